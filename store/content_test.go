package store

import (
	"errors"
	"testing"
)

// TestInvisibleContentIsEmpty: a post made only of characters that show
// nothing (zero-width and format characters, Hangul fillers, the blank
// braille pattern, white space) is refused as empty; text that carries them
// between visible characters, such as an emoji joined with U+200D, passes.
func TestInvisibleContentIsEmpty(t *testing.T) {
	for _, c := range []string{
		"\u200b", "\u200b\u200b\u200b", "\u3164", "\u2800", "\ufeff", "\u115f", "\u1160", "\uffa0",
		"\u00ad", "\u2060", "\u200c\u200d", "\u200e\u200f", "\u202e", "\u2061", "\u180e", "\u034f",
		"\ufe0f", "\U000e0041", " \u200b \u3164\n", "\u0301",
	} {
		err := CheckContent(c, false)
		var e *Error
		if !errors.As(err, &e) || e.Code != CodeContentEmpty {
			t.Errorf("content %+q: got %v, want %s", c, err, CodeContentEmpty)
		}
		if err := CheckContent(c, true); err != nil {
			t.Errorf("repost content %+q: got %v, want it taken as empty", c, err)
		}
	}
	for _, c := range []string{
		"hi", "👨\u200d👩\u200d👧", "❤\ufe0f", "a\u200b", "\u3164x", "中文", "é", "e\u0301", "🇫🇷", ".", "\u2801",
	} {
		if err := CheckContent(c, false); err != nil {
			t.Errorf("content %+q refused: %v", c, err)
		}
	}
}
