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

func TestPositive(t *testing.T) {
	if err := Positive(Flag{"-c", 50}, Flag{"-rate", 0.5}); err != nil {
		t.Errorf("Positive(50, 0.5) = %v", err)
	}
	for _, c := range []struct {
		flags []Flag
		want  string
	}{
		{[]Flag{{"-c", 1}, {"-n", 0}, {"-fans", -1}}, "-n must be positive, not 0"},
		{[]Flag{{"-posts", -2000000}}, "-posts must be positive, not -2000000"},
		{[]Flag{{"-rate", -0.5}}, "-rate must be positive, not -0.5"},
	} {
		if err := Positive(c.flags...); err == nil || err.Error() != c.want {
			t.Errorf("Positive(%v) = %v; want %q", c.flags, err, c.want)
		}
	}
}

func TestEnvList(t *testing.T) {
	if got := EnvList(""); got != nil {
		t.Errorf("EnvList(\"\") = %q; want nil", got)
	}
	if got := EnvList("A=1,B=2"); len(got) != 2 || got[0] != "A=1" || got[1] != "B=2" {
		t.Errorf("EnvList(\"A=1,B=2\") = %q", got)
	}
}
