package store

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
)

// Paging limits of the contract.
const (
	DefaultLimit = 20
	MaxLimit     = 100
)

// PageQuery is what a caller asks of a list: how many items, where to go on
// from (the cursor of the previous page), and optionally only items newer
// than After. ParsePageQuery is the one place that checks what a client sent.
//
// A page is the newest items of its range (below Cursor.Score, above After
// and Cursor.After), newest first. With Ascending it is the other end of
// the same range: the Size() OLDEST items above After (and above
// Cursor.After, below Cursor.Score when set), answered OLDEST first, under
// the same rules (what is gone or hidden from the reader is skipped, so a
// page may hold fewer). Its NextCursor, when newer items may follow,
// keeps the upper bound as Score and moves After up to what the page read:
// the next ascending page goes on right above it. It is what a Mastodon
// min_id page needs (the page right above an id, however far below the
// newest). The lists of posts paged by message id answer it (UserPosts,
// UserComments, PublicTimeline, TagPosts, HomeTimeline, Comments); other
// lists ignore it.
type PageQuery struct {
	Limit     int    // 1 to MaxLimit; 0 means DefaultLimit
	Cursor    Cursor // zero for the first page
	After     int64  // 0: no lower bound
	Viewer    int64  // who reads (for Post.Liked, User.Following); 0: anonymous
	Ascending bool   // the oldest items of the range, oldest first (see above)
}

// Size is the number of items the page holds at most.
func (q PageQuery) Size() int {
	if q.Limit <= 0 {
		return DefaultLimit
	}
	return min(q.Limit, MaxLimit)
}

// ParsePageQuery checks ?limit=, ?cursor= and ?after= as a client sent them
// (empty when absent).
func ParsePageQuery(limit, cursor, after string) (PageQuery, error) {
	var q PageQuery
	if limit != "" {
		n, err := strconv.Atoi(limit)
		if err != nil || n < 1 || n > MaxLimit {
			return q, Invalid(CodeInvalidLimit, fmt.Sprintf("limit must be a number from 1 to %d", MaxLimit))
		}
		q.Limit = n
	}
	if after != "" {
		n, err := strconv.ParseInt(after, 10, 64)
		if err != nil || n < 0 {
			return q, Invalid(CodeInvalidAfter, "after must be a message id")
		}
		q.After = n
	}
	if cursor != "" {
		c, err := DecodeCursor(cursor)
		if err != nil {
			return q, err
		}
		q.Cursor = c
	}
	return q, nil
}

// Cursor is where the next page of a list starts: below Score (a message id,
// or a follow time with Member breaking ties), and still above After. Clients
// see it only encoded, as an opaque string.
type Cursor struct {
	Score  int64
	Member int64
	After  int64
}

// IsZero tells whether c is the first page's (no cursor).
func (c Cursor) IsZero() bool { return c == Cursor{} }

// Encode writes the cursor in its opaque form.
func (c Cursor) Encode() string {
	raw := fmt.Sprintf("v1:%d:%d:%d", c.Score, c.Member, c.After)
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

// DecodeCursor reads a cursor that Encode wrote.
func DecodeCursor(s string) (Cursor, error) {
	bad := Invalid(CodeInvalidCursor, "cursor is not one this server gave out")
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return Cursor{}, bad
	}
	parts := strings.Split(string(raw), ":")
	if len(parts) != 4 || parts[0] != "v1" {
		return Cursor{}, bad
	}
	var n [3]int64
	for i, p := range parts[1:] {
		if n[i], err = strconv.ParseInt(p, 10, 64); err != nil || n[i] < 0 {
			return Cursor{}, bad
		}
	}
	c := Cursor{Score: n[0], Member: n[1], After: n[2]}
	if c.IsZero() {
		return Cursor{}, bad // Encode never writes one: the first page has no cursor
	}
	return c, nil
}

// NextCursor is the Page's NextCursor for c.
func NextCursor(c Cursor) *string {
	s := c.Encode()
	return &s
}
