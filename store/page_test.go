package store

import (
	"errors"
	"strings"
	"testing"
)

func TestParsePageQuery(t *testing.T) {
	cur := Cursor{Score: 42, After: 7}.Encode()
	for _, tc := range []struct {
		limit, cursor, after string
		want                 PageQuery
		code                 Code // empty: no error
	}{
		{want: PageQuery{}},
		{limit: "1", want: PageQuery{Limit: 1}},
		{limit: "100", want: PageQuery{Limit: 100}},
		{limit: "0", code: CodeInvalidLimit},
		{limit: "101", code: CodeInvalidLimit},
		{limit: "-3", code: CodeInvalidLimit},
		{limit: "ten", code: CodeInvalidLimit},
		{after: "0", want: PageQuery{}},
		{after: "9", want: PageQuery{After: 9}},
		{after: "-1", code: CodeInvalidAfter},
		{after: "1e3", code: CodeInvalidAfter},
		{cursor: cur, want: PageQuery{Cursor: Cursor{Score: 42, After: 7}}},
		{cursor: "not a cursor", code: CodeInvalidCursor},
		{cursor: Cursor{}.Encode(), code: CodeInvalidCursor},
		{cursor: "djI6MTox", code: CodeInvalidCursor}, // "v2:1:1"
	} {
		q, err := ParsePageQuery(tc.limit, tc.cursor, tc.after)
		if tc.code != "" {
			var e *Error
			if !errors.As(err, &e) || e.Code != tc.code || !errors.Is(err, ErrInvalid) {
				t.Errorf("ParsePageQuery(%q, %q, %q) = %v, want %s", tc.limit, tc.cursor, tc.after, err, tc.code)
			}
			continue
		}
		if err != nil || q != tc.want {
			t.Errorf("ParsePageQuery(%q, %q, %q) = %+v, %v; want %+v", tc.limit, tc.cursor, tc.after, q, err, tc.want)
		}
	}
}

func TestPageSize(t *testing.T) {
	for limit, want := range map[int]int{0: DefaultLimit, 1: 1, 100: 100, 500: MaxLimit} {
		if got := (PageQuery{Limit: limit}).Size(); got != want {
			t.Errorf("Size of limit %d = %d, want %d", limit, got, want)
		}
	}
}

func TestCursorRoundTrip(t *testing.T) {
	for _, c := range []Cursor{{Score: 1}, {Score: 1 << 62, Member: 9, After: 3}, {After: 5}} {
		got, err := DecodeCursor(c.Encode())
		if err != nil || got != c {
			t.Errorf("round trip of %+v = %+v, %v", c, got, err)
		}
		if strings.ContainsAny(c.Encode(), "+/=") {
			t.Errorf("cursor %q is not URL-safe", c.Encode())
		}
	}
}

func TestNewPostCheck(t *testing.T) {
	long := strings.Repeat("字", MaxContent)
	for _, tc := range []struct {
		np   NewPost
		code Code
	}{
		{NewPost{Content: "hello"}, ""},
		{NewPost{Content: long}, ""},
		{NewPost{Content: long + "x"}, CodeContentTooLong},
		{NewPost{Content: " \n\t"}, CodeContentEmpty},
		{NewPost{Content: ""}, CodeContentEmpty},
		{NewPost{Content: "", RepostOf: 3}, ""},
		{NewPost{Content: "", Parent: 3}, CodeContentEmpty},
		{NewPost{Content: "a\x00b"}, CodeInvalidContent},
		{NewPost{Content: "\xff"}, CodeInvalidContent},
		{NewPost{Content: "x", RepostOf: 3, Parent: 4}, CodeInvalidRepost},
		{NewPost{Content: "x", RepostOf: -1}, CodePostNotFound},
		{NewPost{Content: "x", IdempotencyKey: strings.Repeat("k", MaxIdemKeyLen)}, ""},
		{NewPost{Content: "x", IdempotencyKey: strings.Repeat("k", MaxIdemKeyLen+1)}, CodeInvalidIdemKey},
	} {
		err := tc.np.Check()
		var e *Error
		switch {
		case tc.code == "" && err != nil:
			t.Errorf("Check(%+v) = %v, want nil", tc.np, err)
		case tc.code != "" && (!errors.As(err, &e) || e.Code != tc.code):
			t.Errorf("Check(%+v) = %v, want %s", tc.np, err, tc.code)
		}
	}
}

func TestNormalizeUsername(t *testing.T) {
	for name, want := range map[string]string{
		"alice": "alice", "Alice_1": "alice_1", "中文名": "中文名", "Ünïcode": "ünïcode",
		"a": "", "has space": "", "dot.name": "", strings.Repeat("x", MaxUsername+1): "",
		"E\u0301t": "ét", // NFC: a decomposed É is one letter, and its index form is composed
	} {
		_, lower, err := NormalizeUsername(name)
		if want == "" {
			if err == nil {
				t.Errorf("NormalizeUsername(%q) accepted", name)
			}
			continue
		}
		if err != nil || lower != want {
			t.Errorf("NormalizeUsername(%q) = %q, %v; want %q", name, lower, err, want)
		}
	}
}
