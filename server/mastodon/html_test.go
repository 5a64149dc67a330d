package mastodon

import (
	"testing"

	"microblog/store"
)

// TestContentHTML: a post's text renders as Mastodon renders a status:
// escaped, line breaks as <br>, mentions of existing users and tags as
// the links apps look for, addresses as links; a mention of no one and an
// e-mail address stay text.
func TestContentHTML(t *testing.T) {
	const origin = "https://mb.example"
	bob := []store.Author{{ID: 2, Username: "bob"}}
	for _, c := range []struct{ text, want string }{
		{"hi <b>&", "<p>hi &lt;b&gt;&amp;</p>"},
		{"a\nb", "<p>a<br>b</p>"},
		{"@bob look", `<p><span class="h-card" translate="no"><a href="https://mb.example/@bob" class="u-url mention">@<span>bob</span></a></span> look</p>`},
		{"@nobody x", "<p>@nobody x</p>"},
		{"mail bob@example.com", "<p>mail bob@example.com</p>"},
		{"#Go rocks", `<p><a href="https://mb.example/tags/go" class="mention hashtag" rel="tag">#<span>Go</span></a> rocks</p>`},
		{"今天#天气#好", `<p>今天<a href="https://mb.example/tags/%E5%A4%A9%E6%B0%94" class="mention hashtag" rel="tag">#<span>天气</span></a>好</p>`},
		{"see https://x.org/a?b=1&c=2 now", `<p>see <a href="https://x.org/a?b=1&amp;c=2" target="_blank" rel="nofollow noopener noreferrer">https://x.org/a?b=1&amp;c=2</a> now</p>`},
		{"http without scheme", "<p>http without scheme</p>"},
	} {
		if got := contentHTML(origin, c.text, bob); got != c.want {
			t.Errorf("contentHTML(%q)\n got %s\nwant %s", c.text, got, c.want)
		}
	}
}
