package store

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxSpoiler is the longest content warning of a post, in characters.
const MaxSpoiler = 100

// Codes of content warnings (ErrInvalid).
const (
	CodeInvalidSpoiler Code = "invalid_spoiler"
	CodeSpoilerTooLong Code = "spoiler_too_long"
)

// NormalizeSpoiler checks a content warning and returns it as stored:
// without the white space around it, so that one of only white space is
// none.
func NormalizeSpoiler(spoiler string) (string, error) {
	if !utf8.ValidString(spoiler) || strings.ContainsRune(spoiler, 0) {
		return "", Invalid(CodeInvalidSpoiler, "spoiler (the content warning) is not valid UTF-8 text")
	}
	spoiler = strings.TrimSpace(spoiler)
	if utf8.RuneCountInString(spoiler) > MaxSpoiler {
		return "", Invalid(CodeSpoilerTooLong, fmt.Sprintf("spoiler (the content warning) must be at most %d characters", MaxSpoiler))
	}
	return spoiler, nil
}

// PostEdit is an edit of a message: its new content, and, when Spoiler
// is not nil, its new content warning (empty: none).
type PostEdit struct {
	Content string
	Spoiler *string
}
