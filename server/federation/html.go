package federation

import (
	"html"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/microcosm-cc/bluemonday"

	"microblog/store"
)

// Remote content arrives as HTML: it is sanitized to the few tags Mastodon
// keeps (bluemonday), then turned into the service's plain text:
// paragraphs become blank lines, <br> a line break, links their text.

// sanitizer keeps what Mastodon keeps of remote HTML.
var sanitizer = func() *bluemonday.Policy {
	p := bluemonday.NewPolicy()
	p.AllowElements("p", "br", "span", "a", "del", "pre", "code", "em", "strong", "b", "i", "u", "ul", "ol", "li", "blockquote")
	p.AllowAttrs("href").OnElements("a")
	p.AllowAttrs("class").Matching(regexp.MustCompile(`^[a-z\- ]*$`)).OnElements("a", "span")
	p.AllowURLSchemes("http", "https")
	p.RequireNoFollowOnLinks(true)
	return p
}()

var (
	reBreak = regexp.MustCompile(`(?i)<br\s*/?>`)
	reParaE = regexp.MustCompile(`(?i)</p\s*>\s*`)
	reLi    = regexp.MustCompile(`(?i)</li\s*>\s*`)
	reTag   = regexp.MustCompile(`<[^>]*>`)
	reBlank = regexp.MustCompile(`\n{3,}`)
)

// htmlToText is remote HTML as the service's plain text.
func htmlToText(h string) string {
	if h == "" {
		return ""
	}
	h = sanitizer.Sanitize(h)
	h = reBreak.ReplaceAllString(h, "\n")
	h = reParaE.ReplaceAllString(h, "\n\n")
	h = reLi.ReplaceAllString(h, "\n")
	h = reTag.ReplaceAllString(h, "")
	h = html.UnescapeString(h)
	h = reBlank.ReplaceAllString(h, "\n\n")
	return strings.TrimSpace(h)
}

// plainText is a remote plain-text field (a name) without tags or
// control characters.
func plainText(s string) string {
	s = html.UnescapeString(reTag.ReplaceAllString(s, ""))
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, strings.TrimSpace(s))
}

// cutNote is a note's text as a post keeps it: whole when it fits in
// store.MaxContent, else cut, with an ellipsis and, on a line of its own,
// the note's original (a link of at most maxOriginal characters, http or
// https), so that a reader can still reach what was cut.
func cutNote(text, original string) string {
	if utf8.RuneCountInString(text) <= store.MaxContent {
		return text
	}
	n := utf8.RuneCountInString(original)
	if n == 0 || n > maxOriginal || !(strings.HasPrefix(original, "https://") || strings.HasPrefix(original, "http://")) {
		return truncate(text, store.MaxContent)
	}
	return truncate(text, store.MaxContent-n-1) + "\n" + original
}

// maxOriginal is the longest link to its original a cut note ends with.
const maxOriginal = 120

// truncate cuts s to at most n characters, with an ellipsis when cut.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
