package store

import (
	"encoding/json"
	"testing"
	"time"
)

// TestTimeText: a Time's JSON is the contract's form, as time's own layout
// writes it, for times across the range a service meets (and outside the
// four-digit years, where the layout takes over), and reads back.
func TestTimeText(t *testing.T) {
	for _, ms := range []int64{0, 1, 999, 1000, 59_999, 86_399_999, 951_782_400_000 /* 2000-02-29 */, 1_796_194_703_347,
		time.Date(9999, 12, 31, 23, 59, 59, 999e6, time.UTC).UnixMilli(), -1, -62_135_596_800_000, /* year 1 */
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli(), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()} {
		want, _ := json.Marshal(time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z07:00"))
		got, err := json.Marshal(Time(ms))
		if err != nil || string(got) != string(want) {
			t.Errorf("Time(%d) = %s, %v; want %s", ms, got, err, want)
		}
		var back Time
		if ms >= 0 && ms < 253_402_300_800_000 {
			if err := json.Unmarshal(got, &back); err != nil || back != Time(ms) {
				t.Errorf("%s reads back as %d, %v; want %d", got, back, err, ms)
			}
		}
	}
}

func BenchmarkTimeJSON(b *testing.B) {
	v := struct{ A, B, C Time }{1_796_194_703_347, 1_796_194_703_348, 1_796_194_703_349}
	for b.Loop() {
		json.Marshal(v)
	}
}
