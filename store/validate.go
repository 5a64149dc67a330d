package store

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Limits of the contract.
const (
	MinUsername   = 2
	MaxUsername   = 30
	MinPassword   = 8   // bytes
	MaxPassword   = 128 // bytes; bcrypt itself reads only 72, so longer ones are pre-hashed
	MaxContent    = 280 // characters (runes)
	MaxBio        = 160 // characters (runes)
	MaxIdemKeyLen = 255
)

// NormalizeUsername checks a username and returns it in NFC form and its
// lower-case index form.
func NormalizeUsername(name string) (display, lower string, err error) {
	if !utf8.ValidString(name) {
		return "", "", Invalid(CodeInvalidUsername, "username is not valid UTF-8")
	}
	name = norm.NFC.String(name)
	n := utf8.RuneCountInString(name)
	if n < MinUsername || n > MaxUsername {
		return "", "", Invalid(CodeInvalidUsername, fmt.Sprintf("username must be %d to %d characters long", MinUsername, MaxUsername))
	}
	for _, r := range name {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' {
			return "", "", Invalid(CodeInvalidUsername, "username may hold only letters, digits and _")
		}
	}
	return name, strings.ToLower(name), nil
}

// LookupName turns a username as a caller typed it into its index form, or
// reports that no such user can exist.
func LookupName(name string) (string, bool) {
	_, lower, err := NormalizeUsername(name)
	return lower, err == nil
}

// CheckPassword checks a new password's length.
func CheckPassword(pw string) error {
	if len(pw) < MinPassword || len(pw) > MaxPassword {
		return Invalid(CodeInvalidPassword, fmt.Sprintf("password must be %d to %d bytes long", MinPassword, MaxPassword))
	}
	return nil
}

// CheckContent checks the text of a post or comment. allowEmpty is for reposts,
// which may pass the original on without a word of their own.
func CheckContent(content string, allowEmpty bool) error {
	if !utf8.ValidString(content) {
		return Invalid(CodeInvalidContent, "content is not valid UTF-8")
	}
	if strings.ContainsRune(content, 0) {
		return Invalid(CodeInvalidContent, "content may not contain NUL characters")
	}
	if utf8.RuneCountInString(content) > MaxContent {
		return Invalid(CodeContentTooLong, fmt.Sprintf("content must be at most %d characters", MaxContent))
	}
	if !allowEmpty && !strings.ContainsFunc(content, visible) {
		return Invalid(CodeContentEmpty, "content must not be empty, only white space or only invisible characters")
	}
	return nil
}

// visible tells whether r shows something on its own. White space, control
// and format characters (U+200B, U+FEFF, U+00AD, U+2060, bidi marks),
// default-ignorable ones (the Hangul fillers U+3164 and U+115F, variation
// selectors), combining marks and the blank braille pattern U+2800 render as
// nothing by themselves: a text needs one other character, and may carry
// those around it (U+200D joining an emoji, marks shaping a script).
func visible(r rune) bool {
	switch {
	case unicode.IsSpace(r), r == '\u2800',
		unicode.In(r, unicode.Cc, unicode.Cf, unicode.Mn, unicode.Me,
			unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector):
		return false
	}
	return true
}

// CheckBio checks a bio.
func CheckBio(bio string) error {
	if !utf8.ValidString(bio) || strings.ContainsRune(bio, 0) {
		return Invalid(CodeInvalidBio, "bio is not valid UTF-8 text")
	}
	if utf8.RuneCountInString(bio) > MaxBio {
		return Invalid(CodeBioTooLong, fmt.Sprintf("bio must be at most %d characters", MaxBio))
	}
	return nil
}
