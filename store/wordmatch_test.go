package store

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestWordMatcher: the matcher says what a search for each word in turn
// says, on words that overlap, nest and share prefixes and suffixes, in
// any script.
func TestWordMatcher(t *testing.T) {
	alphabet := []string{"a", "b", "ab", "ß", "天", "气", "\xe5"}
	pick := func(r *rand.Rand, n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		words := make([]string, 1+r.IntN(6))
		for i := range words {
			words[i] = pick(r, 1+r.IntN(4))
		}
		m := newWordMatcher(words)
		for range 20 {
			text := pick(r, r.IntN(12))
			want := false
			for _, w := range words {
				want = want || strings.Contains(text, w)
			}
			if got := m.in(text); got != want {
				t.Fatalf("words %q in %q: %v, want %v", words, text, got, want)
			}
		}
	}
	if !newWordMatcher([]string{""}).in("x") || newWordMatcher(nil).in("x") {
		t.Fatal("an empty word must match everything, no word nothing")
	}
}

// TestLensFilters: a filtered word hides a post in any letter case and any
// script, in the feed alone, and never the reader's own.
func TestLensFilters(t *testing.T) {
	l := &Lens{Viewer: 1}
	for _, w := range []string{"天气", "RUST", "straße"} {
		l.Words = append(l.Words, FoldWord(w))
	}
	for content, want := range map[string]bool{
		"今天天气好": true, "I like rust": true, "STRASSE closed": true, "Straße": true,
		"a fine day": false, "天 气": false, "": false, "trust": true,
	} {
		if got := l.Filters(content); got != want {
			t.Errorf("Filters(%q) = %v, want %v", content, got, want)
		}
	}
	other := &Post{Author: Author{ID: 2}, Content: "rust"}
	own := &Post{Author: Author{ID: 1}, Content: "rust"}
	if !l.Hides(other, InFeed) || l.Hides(other, InView) || l.Hides(own, InFeed) {
		t.Error("filters apply to others' posts in the feed alone")
	}
	if (*Lens)(nil).Filters("rust") {
		t.Error("an anonymous reader filters nothing")
	}
}
