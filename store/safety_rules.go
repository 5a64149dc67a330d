package store

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits of the safety tools.
const (
	MaxFilters    = 100  // filtered words per user
	MaxFilterWord = 50   // characters in one filtered word
	MaxReason     = 1000 // characters in a report's reason
	MaxReportPost = 10   // posts named in one report
)

// CheckFilters checks a user's filtered words and returns them as kept:
// trimmed, each once (whatever its letter case), in the order given.
func CheckFilters(words []string) ([]string, error) {
	if len(words) > MaxFilters {
		return nil, Invalid(CodeInvalidFilter, fmt.Sprintf("at most %d filtered words", MaxFilters))
	}
	out := make([]string, 0, len(words))
	seen := make(map[string]bool, len(words))
	for _, w := range words {
		w = strings.TrimSpace(w)
		n := utf8.RuneCountInString(w)
		if !utf8.ValidString(w) || strings.ContainsRune(w, 0) || !strings.ContainsFunc(w, visible) || n > MaxFilterWord {
			return nil, Invalid(CodeInvalidFilter, fmt.Sprintf("each filtered word must be 1 to %d visible characters", MaxFilterWord))
		}
		if f := FoldWord(w); !seen[f] {
			seen[f] = true
			out = append(out, w)
		}
	}
	return out, nil
}

// Check applies the contract's rules to a report before anything is read
// or written.
func (nr NewReport) Check() error {
	if !utf8.ValidString(nr.Reason) || strings.ContainsRune(nr.Reason, 0) ||
		!strings.ContainsFunc(nr.Reason, visible) || utf8.RuneCountInString(nr.Reason) > MaxReason {
		return Invalid(CodeInvalidReason, fmt.Sprintf("reason must be 1 to %d characters", MaxReason))
	}
	if len(nr.PostIDs) > MaxReportPost {
		return Invalid(CodeInvalidReport, fmt.Sprintf("a report may name at most %d posts", MaxReportPost))
	}
	for _, id := range nr.PostIDs {
		if id <= 0 {
			return Invalid(CodeInvalidReport, "post_ids must be ids of posts")
		}
	}
	return nil
}
