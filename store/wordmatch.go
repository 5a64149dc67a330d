package store

import ahocorasick "github.com/petar-dambovaliev/aho-corasick"

// wordMatcher tells whether a text holds any of a set of words, in one pass
// over the text (Aho–Corasick, as a DFA): a reader who filters 100 words
// pays about what one word costs, where a search for each word in turn made
// the filter most of a home page's CPU (BenchmarkHomeLens). It is safe for
// concurrent use once built.
type wordMatcher struct {
	ac    ahocorasick.AhoCorasick
	empty bool // one of the words is empty: every text holds it
}

// newWordMatcher builds the matcher of words (bytes compared as they are).
func newWordMatcher(words []string) *wordMatcher {
	m := &wordMatcher{}
	for _, w := range words {
		m.empty = m.empty || w == ""
	}
	b := ahocorasick.NewAhoCorasickBuilder(ahocorasick.Opts{MatchKind: ahocorasick.LeftMostFirstMatch, DFA: true})
	m.ac = b.Build(words)
	return m
}

// in tells whether text holds one of the words.
func (m *wordMatcher) in(text string) bool {
	if m.empty {
		return true
	}
	return m.ac.PatternCount() > 0 && m.ac.Iter(text).Next() != nil
}
