package federation

import (
	"strings"
	"testing"
	"unicode/utf8"

	"microblog/store"
)

// A note longer than a post may be is cut to fit, and ends with a link to
// its original, so that nothing sent is out of a reader's reach.
func TestCutNote(t *testing.T) {
	long := strings.Repeat("长文", store.MaxContent)
	const original = "https://example.social/@bob/109"
	got := cutNote(long, original)
	if n := utf8.RuneCountInString(got); n > store.MaxContent {
		t.Fatalf("cut note has %d characters, want at most %d", n, store.MaxContent)
	}
	if !strings.HasSuffix(got, "…\n"+original) {
		t.Fatalf("cut note ends %q, want an ellipsis and the original on its own line", got[len(got)-60:])
	}
	if !strings.HasPrefix(long, strings.TrimSuffix(got, "…\n"+original)) {
		t.Fatal("cut note is not the start of the note")
	}
	if short := "short note"; cutNote(short, original) != short {
		t.Fatalf("a note that fits was changed: %q", cutNote(short, original))
	}
	for _, bad := range []string{"", "javascript:alert(1)", "https://example.social/" + strings.Repeat("x", maxOriginal)} {
		got := cutNote(long, bad)
		if n := utf8.RuneCountInString(got); n != store.MaxContent || !strings.HasSuffix(got, "…") {
			t.Fatalf("with original %.30q: cut note of %d characters ending %q, want %d ending with an ellipsis", bad, n, got[len(got)-10:], store.MaxContent)
		}
	}
}
