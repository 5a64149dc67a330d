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
// from (an opaque cursor from the previous page), and optionally only items
// newer than After.
type PageQuery struct {
	Limit  int // 0 means DefaultLimit
	Cursor string
	After  int64
}

func (q PageQuery) limit() (int, error) {
	switch {
	case q.Limit == 0:
		return DefaultLimit, nil
	case q.Limit < 1 || q.Limit > MaxLimit:
		return 0, invalid("invalid_limit", "limit must be between 1 and 100")
	}
	return q.Limit, nil
}

// cursor is where the next page starts: below Score (a message id, or a follow
// time with Member breaking ties), and still above After.
type cursor struct {
	Score  int64
	Member int64
	After  int64
}

func encodeCursor(c cursor) string {
	raw := fmt.Sprintf("v1:%d:%d:%d", c.Score, c.Member, c.After)
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

func decodeCursor(s string) (cursor, error) {
	bad := invalid("invalid_cursor", "cursor is not one this server gave out")
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return cursor{}, bad
	}
	parts := strings.Split(string(raw), ":")
	if len(parts) != 4 || parts[0] != "v1" {
		return cursor{}, bad
	}
	var n [3]int64
	for i, p := range parts[1:] {
		if n[i], err = strconv.ParseInt(p, 10, 64); err != nil || n[i] < 0 {
			return cursor{}, bad
		}
	}
	return cursor{Score: n[0], Member: n[1], After: n[2]}, nil
}
