package spawn

import "testing"

func TestParseStatTicks(t *testing.T) {
	// A command name with a space and a parenthesis in it, as /proc shows it.
	stat := "21285 (seed bench) S 1 21246 18025 0 -1 4194304 1703 0 0 0 17 3 0 0 20 0 8 0 1703917 1837019136 4522 18446744073709551615\n"
	n, err := ParseStatTicks([]byte(stat))
	if err != nil || n != 20 {
		t.Errorf("ParseStatTicks = %d, %v; want 17+3", n, err)
	}
	if _, err := ParseStatTicks([]byte("21285 (x) S 1")); err == nil {
		t.Error("ParseStatTicks took a short line")
	}
}
