package store

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Limits of mentions and topics.
const (
	MaxMentions = 10 // @names per message that notify
	MaxTags     = 10 // topics per message
	MaxTagLen   = 50 // characters of one topic
)

// Entities are what a message's text refers to: the names it mentions
// (without "@", as written, at most MaxMentions, each once) and the topics
// it carries (without "#", as first written, at most MaxTags, each once).
type Entities struct {
	Mentions []string
	Tags     []string
}

// ParseText finds the @mentions, Twitter-style #tags and Weibo-style
// #话题# of a message:
//
//   - @name: letters of any script, digits and _, MinUsername to MaxUsername
//     of them, not glued to what comes before (so an e-mail address
//     mentions nobody);
//   - #话题#: # then 1 to MaxTagLen characters without # or a line break, not
//     starting or ending with a space, then #;
//   - #tag: # then letters, digits and _ with at least one letter, not
//     glued to what comes before.
func ParseText(s string) Entities {
	if strings.IndexAny(s, "@#") < 0 { // most texts: nothing to find
		return Entities{}
	}
	return parseText(s)
}

// parseText is ParseText of a text with an @ or # in it. Its frame is
// large (two small maps live in it): kept out of ParseText, so that a text
// with neither costs the request's stack nothing (a post's handler runs
// deep, and the frame grew its goroutine's stack, a copy of the whole
// stack, for most posts: 7% of the server's CPU under the seed benchmark).
func parseText(s string) Entities {
	var e Entities
	seenName, seenTag := map[string]bool{}, map[string]bool{}
	for sp := range Spans(s) {
		switch sp.Kind {
		case SpanMention:
			if key := strings.ToLower(sp.Value); !seenName[key] && len(e.Mentions) < MaxMentions {
				seenName[key] = true
				e.Mentions = append(e.Mentions, sp.Value)
			}
		case SpanTag:
			e.addTag(sp.Value, seenTag)
		}
	}
	return e
}

// Kinds of Span.
const (
	SpanMention = iota + 1 // @name
	SpanTag                // #tag or #话题#
)

// Span is one mention or topic in a message's text: its kind, where it
// stands (s[Start:End], the @ or #s included) and its name or topic.
type Span struct {
	Kind       int
	Start, End int
	Value      string
}

// Spans yields the mentions and topics of a message's text in order, by
// the rules of ParseText, each as often as it is written: what renders
// the text (as links, for the Mastodon API) reads it as ParseText does.
func Spans(s string) func(yield func(Span) bool) {
	return func(yield func(Span) bool) {
		for i := 0; i < len(s); {
			r, size := utf8.DecodeRuneInString(s[i:])
			prev, _ := utf8.DecodeLastRuneInString(s[:i])
			switch {
			case r == '@' && (i == 0 || !glued(prev)):
				name := s[i+1:]
				name = name[:spanOf(name, nameRune, MaxUsername+1)]
				if n := utf8.RuneCountInString(name); n >= MinUsername && n <= MaxUsername {
					// @name@domain mentions another server's account.
					name += remoteDomain(s[i+1+len(name):])
					if !yield(Span{SpanMention, i, i + 1 + len(name), name}) {
						return
					}
					i += 1 + len(name)
					continue
				}
			case r == '#' && (i == 0 || !glued(prev)):
				if tag, n := weiboTag(s[i+1:]); n > 0 {
					if !yield(Span{SpanTag, i, i + 1 + n, tag}) {
						return
					}
					i += 1 + n
					continue
				}
				tag := s[i+1:]
				tag = tag[:spanOf(tag, tagRune, MaxTagLen+1)]
				if n := utf8.RuneCountInString(tag); n > 0 && n <= MaxTagLen && strings.IndexFunc(tag, unicode.IsLetter) >= 0 {
					if !yield(Span{SpanTag, i, i + 1 + len(tag), tag}) {
						return
					}
					i += 1 + len(tag)
					continue
				}
			}
			i += size
		}
	}
}

// weiboTag reads the rest of a #话题# after its first #: the topic and the
// bytes it spans with the closing #, or 0 if there is none.
func weiboTag(s string) (string, int) {
	end := strings.IndexAny(s, "#\n\r")
	if end <= 0 || s[end] != '#' {
		return "", 0
	}
	tag := s[:end]
	first, _ := utf8.DecodeRuneInString(tag)
	last, _ := utf8.DecodeLastRuneInString(tag)
	if unicode.IsSpace(first) || unicode.IsSpace(last) || utf8.RuneCountInString(tag) > MaxTagLen {
		return "", 0
	}
	// "#a #b" is two Twitter tags, not the topic "a "; a topic with a space
	// inside must not look like two tags.
	if strings.ContainsFunc(tag, unicode.IsSpace) && !strings.ContainsFunc(tag, isCJK) {
		return "", 0
	}
	return tag, end + 1
}

func (e *Entities) addTag(tag string, seen map[string]bool) {
	key := TagKey(tag)
	if !seen[key] && len(e.Tags) < MaxTags {
		seen[key] = true
		e.Tags = append(e.Tags, tag)
	}
}

// TagKey is the form a topic is indexed and looked up by: NFC, lower case,
// so #Go, #go and #ＧＯ… are distinct only where Unicode says so.
func TagKey(tag string) string { return strings.ToLower(norm.NFC.String(tag)) }

// nameRune tells whether r may be part of a username.
// remoteDomain is the "@domain" (with a port, if any) that s starts
// with, "" when it starts with none: what makes @name@domain a mention
// of another server's account (federation, CONTRACT.md §16).
func remoteDomain(s string) string {
	if len(s) < 2 || s[0] != '@' {
		return ""
	}
	n := 1
	for n < len(s) && (s[n] >= 'a' && s[n] <= 'z' || s[n] >= 'A' && s[n] <= 'Z' || s[n] >= '0' && s[n] <= '9' || s[n] == '.' || s[n] == '-' || s[n] == ':') {
		n++
	}
	d := strings.TrimRight(s[1:n], ".:-")
	if NormalizeDomain(d) == "" || !strings.ContainsAny(d, ".:") {
		return ""
	}
	return "@" + d
}

func nameRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

// tagRune tells whether r may be part of a #tag: a name's, or a combining
// mark (the vowel signs of Indic scripts).
func tagRune(r rune) bool { return nameRune(r) || unicode.IsMark(r) }

// glued tells whether an @ or # right after r is part of a word, an
// address or an entity (bob@example.com, a#b, &#35;) rather than the start of
// a mention or topic. Chinese and Japanese put mentions right after text, so
// only ASCII letters and digits glue.
func glued(r rune) bool {
	return r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) || strings.ContainsRune("_.@+-&/", r)
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// spanOf is the byte length of the longest prefix of s whose runes all
// satisfy ok, stopping after max runes.
func spanOf(s string, ok func(rune) bool, max int) int {
	n, count := 0, 0
	for _, r := range s {
		if !ok(r) || count == max {
			break
		}
		n += utf8.RuneLen(r)
		count++
	}
	return n
}
