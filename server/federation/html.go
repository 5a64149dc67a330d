package federation

import (
	"html"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/microcosm-cc/bluemonday"
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

// truncate cuts s to at most n characters, with an ellipsis when cut.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
