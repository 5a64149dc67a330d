package store

import (
	"context"
	"slices"
	"strings"
	"unicode/utf8"
)

// MaxQuery is the longest search query, in characters.
const MaxQuery = 100

// Search is full-text search over posts and the trending topics
// (CONTRACT.md §10).
type Search interface {
	// SearchPosts is a page of the posts whose content holds every word of
	// q (ParseQuery), newest first, as q.Viewer may see them in search:
	// ErrSearchUnavailable when there is no archive.
	SearchPosts(ctx context.Context, q string, pq PageQuery) (Page[Post], error)
	// Trends are the topics most people used lately, most people first, at
	// most MaxTrends.
	Trends(ctx context.Context) ([]Trend, error)
}

// MaxTrends is how many topics Trends lists at most.
const MaxTrends = 10

// Trend is a topic, how many posts carried it lately and how many people
// wrote them.
type Trend struct {
	Tag    string `json:"tag"`
	Posts  int64  `json:"posts"`
	People int64  `json:"people"`
}

// ParseQuery checks a search query and returns its words: split at white
// space, case-folded (FoldWord), each once, and none that another word
// holds (天 says nothing more beside 天气). A post matches when its folded
// content holds every word.
func ParseQuery(q string) ([]string, error) {
	if !utf8.ValidString(q) || strings.ContainsRune(q, 0) {
		return nil, Invalid(CodeInvalidQuery, "the query is not valid UTF-8 text")
	}
	if n := utf8.RuneCountInString(q); n == 0 || n > MaxQuery {
		return nil, Invalid(CodeInvalidQuery, "the query must be 1 to 100 characters")
	}
	words := strings.Fields(FoldWord(q))
	if len(words) == 0 {
		return nil, Invalid(CodeInvalidQuery, "the query must hold a word, not only white space")
	}
	// Longest first, so that a word is dropped when a kept one holds it.
	slices.SortStableFunc(words, func(a, b string) int { return len(b) - len(a) })
	var kept []string
	for _, w := range words {
		if !slices.ContainsFunc(kept, func(k string) bool { return strings.Contains(k, w) }) {
			kept = append(kept, w)
		}
	}
	return kept, nil
}

// Matches tells whether content holds every word of a parsed query, as a
// search compares them: the one rule that the archive's search and every
// check of its answers apply.
func Matches(content string, words []string) bool {
	folded := FoldWord(content)
	for _, w := range words {
		if !strings.Contains(folded, w) {
			return false
		}
	}
	return true
}

// SearchQuery asks the archive for posts whose content holds every word
// (Archive.Search).
type SearchQuery struct {
	Words  []string // as ParseQuery returns them
	Before int64    // only ids below this; 0: no bound
	After  int64    // only ids above this
	Limit  int      // the most ids to return, positive
}

// SearchResult is what one Archive.Search found: Next is 0 when the search
// looked at every post below Before, else the id it stopped at, below which
// the next call goes on (the last of IDs when Limit were found).
type SearchResult struct {
	IDs  []int64
	Next int64
}
