package store

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.mau.fi/util/confusable"
	"golang.org/x/text/secure/precis"
	"golang.org/x/text/unicode/norm"
)

// Limits of the contract.
const (
	MinUsername   = 2
	MaxUsername   = 30
	MinPassword   = 8   // bytes
	MaxPassword   = 128 // bytes; every password is pre-hashed to fit bcrypt's 72
	MaxContent    = 280 // characters (runes)
	MaxBio        = 160 // characters (runes)
	MaxIdemKeyLen = 255
)

// maxNameInput bounds the bytes of a name the PRECIS profiles are run on:
// 30 characters of at most 4 bytes, with room for width and NFD forms.
const maxNameInput = 4 * 4 * MaxUsername

// NormalizeUsername checks a username and returns its display form and its
// index form. Both go through the PRECIS username profiles of RFC 8265:
// fullwidth and halfwidth forms are mapped to their plain letters (so
// "ａｌｉｃｅ" is alice), the result is NFC, and invisible, unassigned and
// compatibility characters (U+3164 HANGUL FILLER, mathematical bold letters,
// zero-width spaces) are refused. The display form keeps the letter case
// (UsernameCasePreserved), the index form is lower case (UsernameCaseMapped).
// The contract's rule holds on top: 2 to 30 letters, digits or _.
func NormalizeUsername(name string) (display, lower string, err error) {
	if !utf8.ValidString(name) {
		return "", "", Invalid(CodeInvalidUsername, "username is not valid UTF-8")
	}
	if len(name) > maxNameInput {
		return "", "", Invalid(CodeInvalidUsername, fmt.Sprintf("username must be %d to %d characters long", MinUsername, MaxUsername))
	}
	display, err1 := precis.UsernameCasePreserved.String(name)
	lower, err2 := precis.UsernameCaseMapped.String(name)
	if err1 != nil || err2 != nil {
		return "", "", Invalid(CodeInvalidUsername, "username holds a character that is not allowed in names (an invisible, unassigned or compatibility character)")
	}
	if err := checkNameRunes(display); err != nil {
		return "", "", err
	}
	return display, lower, nil
}

// checkNameRunes applies the contract's length and letters-digits-_ rule.
func checkNameRunes(name string) error {
	n := utf8.RuneCountInString(name)
	if n < MinUsername || n > MaxUsername {
		return Invalid(CodeInvalidUsername, fmt.Sprintf("username must be %d to %d characters long", MinUsername, MaxUsername))
	}
	for _, r := range name {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' {
			return Invalid(CodeInvalidUsername, "username may hold only letters, digits and _")
		}
	}
	return nil
}

// LookupName turns a username as a caller typed it into its index form, or
// reports that no such user can exist.
func LookupName(name string) (string, bool) {
	if local, domain, ok := strings.Cut(name, "@"); ok {
		// Another server's account, name@domain (federation): its index
		// form is its lower case.
		if local == "" || len(local) > maxNameInput || strings.ContainsAny(local, "@/?# ") || NormalizeDomain(domain) == "" {
			return "", false
		}
		return strings.ToLower(local) + "@" + NormalizeDomain(domain), true
	}
	_, lower, err := NormalizeUsername(name)
	return lower, err == nil
}

// LookupNames are the index forms a typed name may be stored under, most
// likely first: its PRECIS form, then the form names had before PRECIS (NFC,
// strings.ToLower), for accounts made then whose names PRECIS now refuses
// or maps elsewhere. Empty when no user can have that name.
func LookupNames(name string) []string {
	var out []string
	if lower, ok := LookupName(name); ok {
		out = append(out, lower)
	}
	if len(name) <= maxNameInput && utf8.ValidString(name) {
		legacy := norm.NFC.String(name)
		if checkNameRunes(legacy) == nil {
			if l := strings.ToLower(legacy); !slices.Contains(out, l) {
				out = append(out, l)
			}
		}
	}
	return out
}

// UsernameSkeletons are the UTS #39 confusable skeletons a name is compared
// by, one or two: that of its index form and that of its display form (see
// NormalizeUsername), the name as written. Two names that share one look
// alike, so only one of them may exist. The name as written counts because
// some capitals look like another script's letters while their small
// letters do not: Cherokee Ꭰ is a D, its small letter ꭰ a small capital ᴅ;
// Greek Α and Ν are A and N, their small letters α and ν an a and a v; so
// neither "Ꭰave" nor "ΑΝΝΑ" may join "Dave" and "Anna".
func UsernameSkeletons(display, lower string) []string {
	low, written := UsernameSkeleton(lower), UsernameSkeleton(display)
	if low == written {
		return []string{low}
	}
	return []string{low, written}
}

// UsernameSkeleton is the UTS #39 confusable skeleton of a name ("alice"
// and "аlice" with a Cyrillic а, "bob1" and "bobl" share one). It is taken
// again after lower-casing until it stays the same: the table maps some
// lower-case letters to capitals ("0" and "o" both end as "o"), and names
// are one in any letter case, so "DAVE" and anything that looks like it are
// "dave". It is for comparing, never for showing.
func UsernameSkeleton(name string) string {
	s := name
	for range 4 {
		next := strings.ToLower(confusable.Skeleton(s))
		if next == s {
			break
		}
		s = next
	}
	return s
}

// PreparePassword checks a new or typed password's length (in bytes, as
// typed) and prepares it with the PRECIS OpaqueString profile (RFC 8265):
// non-ASCII spaces become ASCII spaces and the result is NFC, so "café" typed
// with a combined é or with e and a combining accent is one password.
// Control characters and unassigned code points are refused.
func PreparePassword(pw string) (string, error) {
	if err := CheckPassword(pw); err != nil {
		return "", err
	}
	p, err := precis.OpaqueString.String(pw)
	if err != nil || !utf8.ValidString(pw) {
		return "", Invalid(CodeInvalidPassword, "password holds a character that is not allowed (a control character or an unassigned code point)")
	}
	return p, nil
}

// CheckPassword checks a password's length.
func CheckPassword(pw string) error {
	if len(pw) < MinPassword || len(pw) > MaxPassword {
		return Invalid(CodeInvalidPassword, fmt.Sprintf("password must be %d to %d bytes long", MinPassword, MaxPassword))
	}
	return nil
}

// CheckContent checks the text of a post or comment. allowEmpty is for reposts,
// which may pass the original on without a word of their own.
func CheckContent(content string, allowEmpty bool) error {
	return checkText(content, allowEmpty, MaxContent)
}

// checkText checks a text of at most max characters.
func checkText(content string, allowEmpty bool, max int) error {
	if !utf8.ValidString(content) {
		return Invalid(CodeInvalidContent, "content is not valid UTF-8")
	}
	if strings.ContainsRune(content, 0) {
		return Invalid(CodeInvalidContent, "content may not contain NUL characters")
	}
	if utf8.RuneCountInString(content) > max {
		return Invalid(CodeContentTooLong, fmt.Sprintf("content must be at most %d characters", max))
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
