package main

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"microblog/server/mastodon"
)

// hashtagLink is one hashtag link of a status's content, as a browser
// reads it: its address and its text.
type hashtagLink struct{ href, text string }

// hashtagLinks parses content as HTML and returns its hashtag links.
func hashtagLinks(t *testing.T, content string) []hashtagLink {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(content))
	if err != nil {
		t.Fatalf("content %q: %v", content, err)
	}
	var links []hashtagLink
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode || n.Data != "a" {
			continue
		}
		var l hashtagLink
		hashtag := false
		for _, a := range n.Attr {
			switch a.Key {
			case "href":
				l.href = a.Val
			case "class":
				hashtag = slices.Contains(strings.Fields(a.Val), "hashtag")
			}
		}
		for c := range n.Descendants() {
			if c.Type == html.TextNode {
				l.text += c.Data
			}
		}
		if hashtag {
			links = append(links, l)
		}
	}
	return links
}

// TestMastodonStatusTags: topics are free text (#杭州 天气#, #<b>"x"&lt;y#),
// but a status's tags[] carries only those that are hashtag names as
// Mastodon makes them (letters, digits, _ and a few separators), each
// with its address percent-encoded; the others are left out, not renamed
// into another topic's name. The content links every topic, escaped: read
// as HTML, each link's text is the topic as written and its address the
// topic's, percent-encoded, and no markup of the text gets through.
func TestMastodonStatusTags(t *testing.T) {
	parallel(t)
	ts := newTestServer(t)
	tok, _ := ts.mastodonUser(t, "amy", "")
	bob, _ := ts.register(t, "bob")
	// #a <b> "c" d# is no topic (a space and no CJK: "#a" and text), but
	// its text must stay text; the next three are topics.
	text := `#a <b> "c" d# #杭州 天气# #<b>"x"&lt;y# #杭州天气# #Go`
	pid := ts.newPost(t, bob, text)

	var s mastodon.Status
	ts.mastodonJSON(t, "GET", "/api/v1/statuses/"+strconv.FormatInt(pid, 10), tok, nil, &s)
	origin := s.URL[:strings.Index(s.URL, "/@")]

	var names []string
	for _, tag := range s.Tags {
		names = append(names, tag.Name)
		if want := origin + "/tags/" + url.PathEscape(tag.Name); tag.URL != want {
			t.Errorf("tag %q: url %q, want %q", tag.Name, tag.URL, want)
		}
	}
	if want := []string{"a", "杭州天气", "go"}; !slices.Equal(names, want) {
		t.Fatalf("tags %q, want %q: the topics with a space or signs left out", names, want)
	}
	if u := s.Tags[1].URL; !strings.HasSuffix(u, "/tags/%E6%9D%AD%E5%B7%9E%E5%A4%A9%E6%B0%94") {
		t.Errorf("杭州天气's url %q, not percent-encoded", u)
	}

	for _, raw := range []string{"<b>", `"c"`, `"x"`, "&lt;y"} {
		if strings.Contains(s.Content, raw) {
			t.Errorf("content %s holds %s unescaped", s.Content, raw)
		}
	}
	want := []hashtagLink{
		{origin + "/tags/a", "#a"},
		{origin + "/tags/%E6%9D%AD%E5%B7%9E%20%E5%A4%A9%E6%B0%94", "#杭州 天气"},
		{origin + "/tags/%3Cb%3E%22x%22&lt%3By", `#<b>"x"&lt;y`},
		{origin + "/tags/%E6%9D%AD%E5%B7%9E%E5%A4%A9%E6%B0%94", "#杭州天气"},
		{origin + "/tags/go", "#Go"},
	}
	if got := hashtagLinks(t, s.Content); !slices.Equal(got, want) {
		t.Errorf("hashtag links of %s\n got %q\nwant %q", s.Content, got, want)
	}
	if !strings.Contains(s.Content, ` &lt;b&gt; &#34;c&#34; d# `) {
		t.Errorf("content %s: the text after #a not escaped as text", s.Content)
	}

	// A topic left out of tags[] is still a topic: its link leads to its
	// timeline.
	for _, tag := range []string{"杭州 天气", `<b>"x"&lt;y`, "杭州天气"} {
		path := "/api/v1/timelines/tag/" + url.PathEscape(tag)
		if got, _ := ts.timelinePage(t, tok, path); len(got) != 1 || got[0].ID != s.ID {
			t.Errorf("%s: %d statuses, want the post", path, len(got))
		}
	}
}
