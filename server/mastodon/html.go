package mastodon

import (
	"html"
	"net/url"
	"strings"

	"microblog/store"
)

// contentHTML renders a post's text as Mastodon renders a status: in a
// paragraph, its line breaks as <br>, the mentions of users that exist
// (mentions) and its tags as links of the classes apps look for (u-url
// mention, hashtag), web addresses as links, everything else escaped. The
// mentions and tags are found by store.Spans, the rules that index them.
func contentHTML(origin, text string, mentions []store.Author) string {
	known := make(map[string]bool, len(mentions))
	for _, m := range mentions {
		known[strings.ToLower(m.Username)] = true
	}
	var b strings.Builder
	b.Grow(len(text) + 32)
	b.WriteString("<p>")
	at := 0
	for sp := range store.Spans(text) {
		plainHTML(&b, text[at:sp.Start])
		at = sp.End
		switch {
		case sp.Kind == store.SpanMention && known[strings.ToLower(sp.Value)]:
			name := html.EscapeString(sp.Value)
			b.WriteString(`<span class="h-card" translate="no"><a href="` + origin + "/@" + name +
				`" class="u-url mention">@<span>` + name + `</span></a></span>`)
		case sp.Kind == store.SpanTag:
			// A topic is free text: its key is percent-encoded in the
			// address, which is escaped as any attribute (PathEscape
			// leaves an & as it is), and its text escaped.
			href := html.EscapeString(origin + "/tags/" + url.PathEscape(store.TagKey(sp.Value)))
			b.WriteString(`<a href="` + href + `" class="mention hashtag" rel="tag">#<span>` +
				html.EscapeString(sp.Value) + `</span></a>`)
		default:
			plainHTML(&b, text[sp.Start:sp.End])
		}
	}
	plainHTML(&b, text[at:])
	b.WriteString("</p>")
	return b.String()
}

// plainHTML writes text with no mentions or tags: escaped, line breaks as
// <br>, http(s) addresses as links.
func plainHTML(b *strings.Builder, text string) {
	for text != "" {
		i := strings.Index(text, "http")
		var u string
		if i >= 0 {
			rest := text[i:]
			if strings.HasPrefix(rest, "http://") || strings.HasPrefix(rest, "https://") {
				n := strings.IndexFunc(rest, func(r rune) bool { return r <= ' ' || strings.ContainsRune(`<>"'`, r) })
				if n < 0 {
					n = len(rest)
				}
				u = rest[:n]
			}
		}
		if u == "" {
			if i < 0 {
				i = len(text)
			} else {
				i += len("http")
			}
			b.WriteString(strings.ReplaceAll(html.EscapeString(text[:i]), "\n", "<br>"))
			text = text[i:]
			continue
		}
		b.WriteString(strings.ReplaceAll(html.EscapeString(text[:i]), "\n", "<br>"))
		e := html.EscapeString(u)
		b.WriteString(`<a href="` + e + `" target="_blank" rel="nofollow noopener noreferrer">` + e + `</a>`)
		text = text[i+len(u):]
	}
}

// noteHTML renders a bio as Mastodon renders an account's note.
func noteHTML(bio string) string {
	if bio == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString("<p>")
	plainHTML(&b, bio)
	b.WriteString("</p>")
	return b.String()
}
