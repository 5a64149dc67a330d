package store

import (
	"errors"
	"strings"
	"testing"
)

// TestCleanDisplayName: bidi controls and surrounding space go, 30
// characters of any script pass, 31 are display_name_too_long, a line
// break or invalid UTF-8 is invalid_display_name, and only invisible
// characters count as no name.
func TestCleanDisplayName(t *testing.T) {
	for _, c := range []struct {
		in, want string
		code     Code
	}{
		{"李雷", "李雷", ""},
		{"  \u202e李雷\u202c\u2066x\u2069\u200e ", "李雷x", ""},
		{strings.Repeat("名", 30), strings.Repeat("名", 30), ""},
		{strings.Repeat("名", 30) + "\u202e", strings.Repeat("名", 30), ""},
		{strings.Repeat("名", 31), "", CodeDisplayNameTooLong},
		{"a\nb", "", CodeInvalidDisplayName},
		{"a\x00b", "", CodeInvalidDisplayName},
		{"\xff", "", CodeInvalidDisplayName},
		{"\u200b\u3164", "", ""},
		{"", "", ""},
		{"e\u0301", "\u00e9", ""}, // NFC
	} {
		got, err := CleanDisplayName(c.in)
		var se *Error
		if c.code != "" {
			if !errors.As(err, &se) || se.Code != c.code || !errors.Is(err, ErrInvalid) {
				t.Errorf("CleanDisplayName(%q): %v, want %s", c.in, err, c.code)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("CleanDisplayName(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

// TestCleanFields: at most 4 fields of 1 to 100 characters on one line.
func TestCleanFields(t *testing.T) {
	ok := []Field{{Name: " 网站 ", Value: "\u202ehttps://example.com"}, {Name: "x", Value: strings.Repeat("y", 100)}}
	got, err := CleanFields(ok)
	if err != nil || got[0] != (Field{Name: "网站", Value: "https://example.com"}) || len(got) != 2 {
		t.Fatalf("CleanFields: %v %v", got, err)
	}
	for _, bad := range [][]Field{
		{{Name: "a", Value: "1"}, {Name: "b", Value: "2"}, {Name: "c", Value: "3"}, {Name: "d", Value: "4"}, {Name: "e", Value: "5"}},
		{{Name: "", Value: "1"}},
		{{Name: "a", Value: " "}},
		{{Name: "a", Value: strings.Repeat("y", 101)}},
		{{Name: "a\tb", Value: "1"}},
	} {
		var se *Error
		if _, err := CleanFields(bad); !errors.As(err, &se) || se.Code != CodeInvalidFields {
			t.Errorf("CleanFields(%q): %v, want invalid_fields", bad, err)
		}
	}
}

// TestFieldLink: only http(s) URLs with a host are links.
func TestFieldLink(t *testing.T) {
	for in, want := range map[string]bool{
		"https://example.com/李雷": true, "HTTP://example.com": true, "http://": false,
		"javascript:alert(1)": false, "example.com": false, "https://a.example/ b": false, `https://a.example/"x`: false,
	} {
		if got := FieldLink(in) != ""; got != want {
			t.Errorf("FieldLink(%q) link: %v, want %v", in, got, want)
		}
	}
}
