package store

import (
	"strconv"
	"unicode/utf8"
)

// AppendPostPageJSON appends page as encoding/json's Encoder writes it
// (HTML-escaped, then a newline), byte for byte: what Echo's c.JSON
// answers for a page of posts. A home read spent a fifth of its server CPU
// in encoding/json's reflection; this walks the same fields by hand. A
// field added to Post, Author, Media, Poll or PollOption must be added
// here too: TestAppendPostPageJSON compares the two over many posts.
func AppendPostPageJSON(b []byte, page Page[Post]) []byte {
	b = append(b, `{"items":`...)
	if page.Items == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range page.Items {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendPostJSON(b, &page.Items[i])
		}
		b = append(b, ']')
	}
	b = append(b, `,"next_cursor":`...)
	if page.NextCursor == nil {
		b = append(b, "null"...)
	} else {
		b = appendJSONString(b, *page.NextCursor)
	}
	return append(b, "}\n"...)
}

// AppendPostJSON appends p as json.Marshal writes it.
func AppendPostJSON(b []byte, p *Post) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, p.ID, 10)
	b = append(b, `,"kind":`...)
	b = appendJSONString(b, p.Kind)
	b = append(b, `,"author":`...)
	b = appendAuthorJSON(b, &p.Author)
	b = append(b, `,"content":`...)
	b = appendJSONString(b, p.Content)
	b = append(b, `,"created_at":`...)
	b = appendTimeJSON(b, p.CreatedAt)
	b = append(b, `,"repost_of":`...)
	if p.RepostOf == nil {
		b = append(b, "null"...)
	} else {
		b = AppendPostJSON(b, p.RepostOf)
	}
	b = append(b, `,"parent_id":`...)
	if p.ParentID == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, *p.ParentID, 10)
	}
	b = append(b, `,"comments_count":`...)
	b = strconv.AppendInt(b, p.CommentsCount, 10)
	b = append(b, `,"reposts_count":`...)
	b = strconv.AppendInt(b, p.RepostsCount, 10)
	b = append(b, `,"likes_count":`...)
	b = strconv.AppendInt(b, p.LikesCount, 10)
	b = append(b, `,"liked":`...)
	b = appendBoolPtrJSON(b, p.Liked)
	b = append(b, `,"mentions":`...)
	if p.Mentions == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range p.Mentions {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendAuthorJSON(b, &p.Mentions[i])
		}
		b = append(b, ']')
	}
	b = append(b, `,"tags":`...)
	if p.Tags == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, t := range p.Tags {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, t)
		}
		b = append(b, ']')
	}
	b = append(b, `,"media":`...)
	if p.Media == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range p.Media {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendMediaJSON(b, &p.Media[i])
		}
		b = append(b, ']')
	}
	if p.Deleted {
		b = append(b, `,"deleted":true`...)
	}
	b = append(b, `,"edited_at":`...)
	if p.EditedAt == nil {
		b = append(b, "null"...)
	} else {
		b = appendTimeJSON(b, *p.EditedAt)
	}
	b = append(b, `,"pinned":`...)
	b = appendBoolPtrJSON(b, p.Pinned)
	b = append(b, `,"bookmarked":`...)
	b = appendBoolPtrJSON(b, p.Bookmarked)
	b = append(b, `,"poll":`...)
	if p.Poll == nil {
		b = append(b, "null"...)
	} else {
		b = appendPollJSON(b, p.Poll)
	}
	b = append(b, `,"spoiler":`...)
	b = appendJSONString(b, p.Spoiler)
	if p.URL != "" {
		b = append(b, `,"url":`...)
		b = appendJSONString(b, p.URL)
	}
	b = append(b, `,"reposted":`...)
	b = appendBoolPtrJSON(b, p.Reposted)
	if p.Filtered {
		b = append(b, `,"filtered":true`...)
	}
	return append(b, '}')
}

// appendAuthorJSON appends a as json.Marshal writes it.
func appendAuthorJSON(b []byte, a *Author) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, a.ID, 10)
	b = append(b, `,"username":`...)
	b = appendJSONString(b, a.Username)
	if a.AvatarURL != nil {
		b = append(b, `,"avatar_url":`...)
		b = appendJSONString(b, *a.AvatarURL)
	}
	if a.DisplayName != "" {
		b = append(b, `,"display_name":`...)
		b = appendJSONString(b, a.DisplayName)
	}
	if a.CreatedAt != 0 {
		b = append(b, `,"created_at":`...)
		b = appendTimeJSON(b, a.CreatedAt)
	}
	if a.Protected {
		b = append(b, `,"protected":true`...)
	}
	return append(b, '}')
}

// appendMediaJSON appends m as json.Marshal writes it.
func appendMediaJSON(b []byte, m *Media) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, m.ID, 10)
	b = append(b, `,"url":`...)
	b = appendJSONString(b, m.URL)
	b = append(b, `,"thumb_url":`...)
	b = appendJSONString(b, m.ThumbURL)
	b = append(b, `,"width":`...)
	b = strconv.AppendInt(b, int64(m.Width), 10)
	b = append(b, `,"height":`...)
	b = strconv.AppendInt(b, int64(m.Height), 10)
	b = append(b, `,"alt":`...)
	b = appendJSONString(b, m.Alt)
	if m.Blurhash != "" {
		b = append(b, `,"blurhash":`...)
		b = appendJSONString(b, m.Blurhash)
	}
	return append(b, '}')
}

// appendPollJSON appends p as json.Marshal writes it.
func appendPollJSON(b []byte, p *Poll) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, p.ID, 10)
	b = append(b, `,"options":`...)
	if p.Options == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, o := range p.Options {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"title":`...)
			b = appendJSONString(b, o.Title)
			b = append(b, `,"votes_count":`...)
			b = strconv.AppendInt(b, o.VotesCount, 10)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	b = append(b, `,"expires_at":`...)
	b = appendTimeJSON(b, p.ExpiresAt)
	b = append(b, `,"expired":`...)
	b = strconv.AppendBool(b, p.Expired)
	b = append(b, `,"multiple":`...)
	b = strconv.AppendBool(b, p.Multiple)
	b = append(b, `,"votes_count":`...)
	b = strconv.AppendInt(b, p.VotesCount, 10)
	b = append(b, `,"voters_count":`...)
	b = strconv.AppendInt(b, p.VotersCount, 10)
	b = append(b, `,"voted":`...)
	b = appendBoolPtrJSON(b, p.Voted)
	b = append(b, `,"own_votes":`...)
	if p.OwnVotes == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, v := range p.OwnVotes {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(v), 10)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

func appendBoolPtrJSON(b []byte, v *bool) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	return strconv.AppendBool(b, *v)
}

// appendTimeJSON appends t as encoding/json writes a TextMarshaler: its
// text, quoted.
func appendTimeJSON(b []byte, t Time) []byte {
	b = append(b, '"')
	b, _ = t.AppendText(b)
	return append(b, '"')
}

const jsonHex = "0123456789abcdef"

// appendJSONString appends s quoted as encoding/json writes a string with
// HTML escaping on (its default): <, > and & as \u003c, \u003e and \u0026,
// control characters escaped, invalid UTF-8 as \ufffd, and U+2028 and
// U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', jsonHex[c>>4], jsonHex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', jsonHex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
