package store

import (
	"slices"
	"testing"
)

// TestResumePoint: where a client resumes from the posts it holds.
func TestResumePoint(t *testing.T) {
	w := Time(ResumeWindow.Milliseconds())
	const t0 = Time(1_000_000_000)
	many := make([]Held, 150)
	for i := range many {
		many[i] = Held{ID: int64(i + 1), At: t0}
	}
	cases := []struct {
		name  string
		floor int64
		held  []Held
		after int64
		seen  []int64
	}{
		{"nothing held", 7, nil, 7, nil},
		{"all recent", 7, []Held{{9, t0}, {8, t0 + 5}}, 7, []int64{8, 9}},
		{"one a window older", 0, []Held{{3, t0}, {9, t0 + w}, {5, t0 + w - 1}}, 3, []int64{5, 9}},
		{"the newest old one", 0, []Held{{3, t0}, {4, t0 + 1}, {9, t0 + w + 1}}, 4, []int64{9}},
		{"floor above the old ones", 6, []Held{{3, t0}, {9, t0 + w}}, 6, []int64{9}},
		{"a late post above an old one", 0, []Held{{5, t0 + w}, {2, t0}, {4, t0 + w}}, 2, []int64{4, 5}},
		{"twice", 0, []Held{{5, t0}, {5, t0}}, 0, []int64{5}},
		{"more than MaxSeen", 0, many, 50, ids(51, 150)},
	}
	for _, tc := range cases {
		after, seen := ResumePoint(tc.floor, tc.held)
		if after != tc.after || !slices.Equal(seen, tc.seen) {
			t.Errorf("%s: ResumePoint = %d, %v; want %d, %v", tc.name, after, seen, tc.after, tc.seen)
		}
	}
}

func ids(from, to int64) []int64 {
	var out []int64
	for id := from; id <= to; id++ {
		out = append(out, id)
	}
	return out
}
