package store

import (
	"slices"
	"strings"
	"testing"
)

func TestParseText(t *testing.T) {
	for _, tc := range []struct {
		text     string
		mentions []string
		tags     []string
	}{
		{"hello @alice", []string{"alice"}, nil},
		{"@alice at the start", []string{"alice"}, nil},
		{"@Alice and @alice are one", []string{"Alice"}, nil},
		{"mail bob@example.com now", nil, nil},
		{"write to a.b@c.d or x_y@z", nil, nil},
		{"(@carol)", []string{"carol"}, nil},
		{"@dave, @erin; @frank!", []string{"dave", "erin", "frank"}, nil},
		{"@a is too short", nil, nil},
		{"@" + strings.Repeat("x", 31) + " too long", nil, nil},
		{"@" + strings.Repeat("x", 30) + " just fits", []string{strings.Repeat("x", 30)}, nil},
		{"谢谢@小明 的帮助", []string{"小明"}, nil},
		{"@Ünïcode_1 ok", []string{"Ünïcode_1"}, nil},
		{"@@alice", nil, nil},
		{"email@@alice", nil, nil},
		{"🎉@alice 🎉", []string{"alice"}, nil},
		{"@alice🎉", []string{"alice"}, nil},
		{"@u1 @u2 @u3 @u4 @u5 @u6 @u7 @u8 @u9 @u10 @u11", []string{"u1", "u2", "u3", "u4", "u5", "u6", "u7", "u8", "u9", "u10"}, nil},
		{"#golang is fun", nil, []string{"golang"}},
		{"I #love #Go and #go", nil, []string{"love", "Go"}},
		{"#123 is not a tag, #a1 is", nil, []string{"a1"}},
		{"a#b c&#35;d", nil, nil},
		{"see http://x.y/#anchor", nil, nil},
		{"#话题# 很好", nil, []string{"话题"}},
		{"今天#天气不错#出门", nil, []string{"天气不错"}},
		{"#超级 话题# has a space inside", nil, []string{"超级 话题"}},
		{"#a #b", nil, []string{"a", "b"}},
		{"# spaced # is nothing", nil, nil},
		{"#tag#", nil, []string{"tag"}},
		{"#中文标签 without a closing hash", nil, []string{"中文标签"}},
		{"#हिन्दी tag", nil, []string{"हिन्दी"}},
		{"#emoji🎉", nil, []string{"emoji"}},
		{"#🎉#", nil, []string{"🎉"}},
		{"##double", nil, []string{"double"}},
		{"multi\n#line\n#tags", nil, []string{"line", "tags"}},
		{"#unclosed\nnext# line", nil, []string{"unclosed"}},
		{"@bob likes #Go and #话题#, cc @carol", []string{"bob", "carol"}, []string{"Go", "话题"}},
		{"", nil, nil},
		{"no entities here.", nil, nil},
		{"#" + strings.Repeat("t", 51), nil, nil},
	} {
		got := ParseText(tc.text)
		if !slices.Equal(got.Mentions, tc.mentions) || !slices.Equal(got.Tags, tc.tags) {
			t.Errorf("ParseText(%q) = mentions %q tags %q; want %q %q", tc.text, got.Mentions, got.Tags, tc.mentions, tc.tags)
		}
	}
}

func TestTagKey(t *testing.T) {
	for tag, want := range map[string]string{"Go": "go", "话题": "话题", "E\u0301té": "été"} {
		if got := TagKey(tag); got != want {
			t.Errorf("TagKey(%q) = %q, want %q", tag, got, want)
		}
	}
}

// TestParseRemoteMentions: @name@domain mentions another server's
// account; an address glued to a word mentions nobody.
func TestParseRemoteMentions(t *testing.T) {
	e := ParseText("hi @bob@social.example.org. and @carol@127.0.0.1:8080, @dave and mail@x.org")
	want := []string{"bob@social.example.org", "carol@127.0.0.1:8080", "dave"}
	if len(e.Mentions) != len(want) {
		t.Fatalf("mentions %q, want %q", e.Mentions, want)
	}
	for i := range want {
		if e.Mentions[i] != want[i] {
			t.Errorf("mention %d: %q, want %q", i, e.Mentions[i], want[i])
		}
	}
	if l, ok := LookupName("Bob@Social.Example.org"); !ok || l != "bob@social.example.org" {
		t.Errorf("LookupName: %q %v", l, ok)
	}
	if d := DomainsOf("a.b.example:8080"); len(d) != 4 || d[0] != "a.b.example:8080" || d[3] != "example" {
		t.Errorf("DomainsOf: %q", d)
	}
	if NormalizeDomain("bad domain") != "" || NormalizeDomain("Example.ORG.") != "example.org" {
		t.Error("NormalizeDomain")
	}
}
