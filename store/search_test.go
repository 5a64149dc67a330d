package store

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestParseQuery: a query is 1 to 100 characters of UTF-8 with a word; its
// words are folded, each once, and those another word holds are dropped.
func TestParseQuery(t *testing.T) {
	for q, want := range map[string][]string{
		"天":            {"天"},
		"  天气  好 ":     {"天气", "好"},
		"天 天气":         {"天气"},
		"Redis天 REDIS": {"redis天"},
		"STRASSE ß":    {"strasse"},
		"Straße":       {"strasse"},
		"🔥 2024 🔥":     {"🔥", "2024"},
		"a\tb\nc":      {"a", "b", "c"},
	} {
		got, err := ParseQuery(q)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("ParseQuery(%q) = %q, %v; want %q", q, got, err, want)
		}
	}
	for _, q := range []string{"", " \t\n", strings.Repeat("天", 101), "\xff", "a\x00"} {
		var e *Error
		if _, err := ParseQuery(q); !errors.As(err, &e) || e.Code != CodeInvalidQuery {
			t.Errorf("ParseQuery(%q): %v, want invalid_query", q, err)
		}
	}
	if _, err := ParseQuery(strings.Repeat("天", 100)); err != nil {
		t.Errorf("100 characters: %v", err)
	}
}

// TestMatches: every word, as a substring of the folded content.
func TestMatches(t *testing.T) {
	for _, c := range []struct {
		content string
		q       string
		want    bool
	}{
		{"今天天气好", "天", true},
		{"今天天气好", "天气 好", true},
		{"今天天气好", "天好", false},
		{"用Redis天天缓存", "redis天", true},
		{"STRASSE", "straße", true},
		{"Straße", "SS", true},
		{"🔥🔥", "🔥", true},
		{"in 2024!", "2024 in", true},
		{"in 2024!", "2025", false},
	} {
		words, err := ParseQuery(c.q)
		if err != nil {
			t.Fatal(err)
		}
		if got := Matches(c.content, words); got != c.want {
			t.Errorf("Matches(%q, %q) = %v, want %v", c.content, c.q, got, c.want)
		}
	}
}
