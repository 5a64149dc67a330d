package store

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Limits of a profile (CONTRACT.md §15).
const (
	MaxDisplayName = 30  // characters (runes); 0 means the username is shown
	MaxFields      = 4   // name/value pairs on a profile
	MaxFieldText   = 100 // characters of a field's name, and of its value
)

// The profile's error codes (ErrInvalid, 400).
const (
	CodeInvalidDisplayName Code = "invalid_display_name"
	CodeDisplayNameTooLong Code = "display_name_too_long"
	CodeInvalidFields      Code = "invalid_fields"
)

// Field is one name/value pair a user shows on its profile; a value that
// is an http(s) URL is shown as a link.
type Field struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// ProfileUpdate is what PATCH /me changes of a profile: nil leaves a part
// as it is. Both are checked and cleaned (CleanDisplayName, CleanFields)
// before they reach the store.
type ProfileUpdate struct {
	DisplayName *string
	Fields      *[]Field
}

// Profiles are the parts of a profile besides the bio and the avatar.
type Profiles interface {
	// SetProfile changes uid's display name, fields, or both; a display
	// name shows at once on every post of uid's, old and archived alike.
	SetProfile(ctx context.Context, uid int64, p ProfileUpdate) (User, error)
	// SetHeader makes the image file name uid's header image.
	SetHeader(ctx context.Context, uid int64, name string) (User, error)
}

// bidiControl tells whether r is one of the characters that reorder the
// text around them (embeddings, overrides, isolates and marks): a name
// holding them could show as something it is not, or turn the text after
// it round, so they are taken out of names and fields.
func bidiControl(r rune) bool {
	switch {
	case r >= '\u202A' && r <= '\u202E', r >= '\u2066' && r <= '\u2069',
		r == '\u200E', r == '\u200F', r == '\u061C':
		return true
	}
	return false
}

// cleanLine is s without bidi controls, in NFC and trimmed of white
// space; ok is false when s is not valid UTF-8 or holds another control
// character (a line break, NUL).
func cleanLine(s string) (string, bool) {
	if !utf8.ValidString(s) {
		return "", false
	}
	s = strings.Map(func(r rune) rune {
		if bidiControl(r) {
			return -1
		}
		return r
	}, s)
	if strings.ContainsFunc(s, unicode.IsControl) {
		return "", false
	}
	return strings.TrimSpace(norm.NFC.String(s)), true
}

// CleanDisplayName checks a display name and returns it as it is kept:
// without bidi controls and surrounding white space, at most
// MaxDisplayName characters; "" (no display name) is allowed. A name of
// only invisible characters counts as none.
func CleanDisplayName(name string) (string, error) {
	clean, ok := cleanLine(name)
	if !ok {
		return "", Invalid(CodeInvalidDisplayName, "display_name must be one line of text")
	}
	if utf8.RuneCountInString(clean) > MaxDisplayName {
		return "", Invalid(CodeDisplayNameTooLong, fmt.Sprintf("display_name must be at most %d characters", MaxDisplayName))
	}
	if !strings.ContainsFunc(clean, visible) {
		return "", nil
	}
	return clean, nil
}

// CleanFields checks a profile's fields and returns them as they are
// kept: at most MaxFields, each name and value 1 to MaxFieldText
// characters of one line, without bidi controls.
func CleanFields(fields []Field) ([]Field, error) {
	if len(fields) > MaxFields {
		return nil, Invalid(CodeInvalidFields, fmt.Sprintf("a profile has at most %d fields", MaxFields))
	}
	out := make([]Field, 0, len(fields))
	for _, f := range fields {
		name, ok1 := cleanLine(f.Name)
		value, ok2 := cleanLine(f.Value)
		if !ok1 || !ok2 {
			return nil, Invalid(CodeInvalidFields, "a field's name and value must be one line of text")
		}
		for _, s := range []string{name, value} {
			if n := utf8.RuneCountInString(s); n == 0 || n > MaxFieldText || !strings.ContainsFunc(s, visible) {
				return nil, Invalid(CodeInvalidFields, fmt.Sprintf("a field's name and value must be 1 to %d characters", MaxFieldText))
			}
		}
		out = append(out, Field{Name: name, Value: value})
	}
	return out, nil
}

// FieldLink is the URL a field's value links to: the value itself when
// it is an http or https URL, else "".
func FieldLink(value string) string {
	u, err := url.Parse(value)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.ContainsAny(value, " \"<>") {
		return ""
	}
	return value
}

// ShownName is the name to show for a user: its display name, or its
// username when it has none.
func ShownName(username, displayName string) string {
	if displayName != "" {
		return displayName
	}
	return username
}
