package store

import (
	"errors"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// TestNormalizeUsernamePRECIS: names go through PRECIS UsernameCaseMapped (RFC
// 8265): width forms map to the plain name, invisible, unassigned and
// compatibility characters are refused, and every script keeps working.
func TestNormalizeUsernamePRECIS(t *testing.T) {
	for _, tc := range []struct{ in, display, lower string }{
		{"alice", "alice", "alice"},
		{"Alice", "Alice", "alice"},
		{"ａｌｉｃｅ", "alice", "alice"}, // fullwidth is alice
		{"ＡＬＩＣＥ", "ALICE", "alice"},
		{"bob１", "bob1", "bob1"},
		{"小明", "小明", "小明"},
		{"微博用户", "微博用户", "微博用户"},
		{"Ελένη", "Ελένη", "ελένη"},
		{"Иван", "Иван", "иван"},
		{"Zoë", "Zoë", "zoë"},
		{norm.NFD.String("Zoë"), "Zoë", "zoë"},
		{"a_1", "a_1", "a_1"},
		{"аlice", "аlice", "аlice"}, // Cyrillic а: a valid name (its skeleton is what is refused)
	} {
		d, l, err := NormalizeUsername(tc.in)
		if err != nil || d != tc.display || l != tc.lower {
			t.Errorf("NormalizeUsername(%q) = %q, %q, %v; want %q, %q", tc.in, d, l, err, tc.display, tc.lower)
		}
	}
	for _, bad := range []string{
		"\u3164\u3164\u3164",  // HANGUL FILLER: invisible
		"\u115f\u115f",        // HANGUL CHOSEONG FILLER: invisible
		"ab\u3164",            // invisible inside a name
		"𝐚𝐥𝐢𝐜𝐞",               // mathematical bold: a compatibility form
		"ab\u200bcd",          // zero width space
		"ab\U000e0061",        // a tag character
		"ab\u0378cd",          // unassigned
		"a", "a b", "a-b", "", // the contract's own rules
		strings.Repeat("x", 31), // too long
		"\xff\xfe",
	} {
		if _, _, err := NormalizeUsername(bad); !isCode(err, CodeInvalidUsername) {
			t.Errorf("NormalizeUsername(%q) = %v, want %s", bad, err, CodeInvalidUsername)
		}
	}
}

// TestUsernameSkeleton: look-alike names share a skeleton (UTS #39), other
// names do not.
func TestUsernameSkeleton(t *testing.T) {
	skel := func(name string) string {
		t.Helper()
		_, lower, err := NormalizeUsername(name)
		if err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		return UsernameSkeleton(lower)
	}
	for _, pair := range [][2]string{
		{"alice", "аlice"},   // Cyrillic а
		{"alice", "ａｌｉｃｅ"},   // fullwidth
		{"paypal", "pаypаl"}, // mixed script
		{"bob1", "bobl"},     // digit one and ell
		{"bob1", "bob１"},
		{"Ivan", "іvan"}, // Cyrillic і
		{"modern", "rnodern"},
		{"bobo", "bob0"},
	} {
		if a, b := skel(pair[0]), skel(pair[1]); a != b {
			t.Errorf("skeletons of %q (%q) and %q (%q) differ", pair[0], a, pair[1], b)
		}
	}
	for _, pair := range [][2]string{
		{"alice", "alicia"}, {"小明", "小朋"}, {"Иван", "Ivan"}, {"Ελένη", "Eleni"}, {"bob", "bob1"},
	} {
		if a, b := skel(pair[0]), skel(pair[1]); a == b {
			t.Errorf("%q and %q share the skeleton %q", pair[0], pair[1], a)
		}
	}
}

// TestPreparePassword: the PRECIS OpaqueString profile makes NFC and NFD
// typings of one password the same, and keeps the byte limits.
func TestPreparePassword(t *testing.T) {
	nfc, nfd := "café au lait", norm.NFD.String("café au lait")
	if nfc == nfd {
		t.Fatal("test strings are equal")
	}
	a, err1 := PreparePassword(nfc)
	b, err2 := PreparePassword(nfd)
	if err1 != nil || err2 != nil || a != b {
		t.Fatalf("prepared %q, %v and %q, %v", a, err1, b, err2)
	}
	if p, err := PreparePassword("pass\u00a0word!"); err != nil || p != "pass word!" {
		t.Errorf("non-ASCII space: %q, %v", p, err)
	}
	for _, bad := range []string{"short", strings.Repeat("p", MaxPassword+1), "password\x00zero", "password\x07bell", "\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8"} {
		if _, err := PreparePassword(bad); !isCode(err, CodeInvalidPassword) {
			t.Errorf("PreparePassword(%q) = %v, want %s", bad, err, CodeInvalidPassword)
		}
	}
}

func isCode(err error, code Code) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}
