package hub

import (
	"slices"
	"testing"
)

func TestSmallSet(t *testing.T) {
	var s smallSet[int64]
	check := func(want ...int64) {
		t.Helper()
		got := slices.Sorted(s.all())
		if !slices.Equal(got, want) || s.len() != len(want) {
			t.Fatalf("set holds %v (len %d), want %v", got, s.len(), want)
		}
		for _, x := range want {
			if !s.has(x) {
				t.Fatalf("has(%d) = false", x)
			}
		}
		if s.has(0) || s.has(99) {
			t.Fatal("has an element it was never given")
		}
	}
	check()
	s.add(3)
	s.add(3)
	check(3)
	s.add(5)
	s.add(7)
	check(3, 5, 7)
	s.remove(3)
	s.remove(4)
	check(5, 7)
	s.remove(7)
	check(5)
	if s.many != nil {
		t.Fatal("a set back to one element keeps its map")
	}
	s.remove(5)
	s.remove(5)
	check()
}
