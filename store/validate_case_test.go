package store

import (
	"slices"
	"testing"
)

// skeletonsOf are the skeletons of a name as NormalizeUsername reads it.
func skeletonsOf(t *testing.T, name string) []string {
	t.Helper()
	display, lower, err := NormalizeUsername(name)
	if err != nil {
		t.Fatalf("%q: %v", name, err)
	}
	return UsernameSkeletons(display, lower)
}

func shareOne(a, b []string) bool {
	return slices.ContainsFunc(a, func(s string) bool { return slices.Contains(b, s) })
}

// TestUsernameSkeletonsAcrossCase: in each script with letter case, a name
// that looks like another only as written, in capitals, shares a skeleton
// with it (the security probe registered the Cherokee ones
// beside "Dave" and the others), while lower-case look-alikes still do.
func TestUsernameSkeletonsAcrossCase(t *testing.T) {
	for _, tc := range []struct{ script, name, lookAlike string }{
		{"Cherokee", "Dave", "Ꭰave"},
		{"Cherokee", "Tom", "Ꭲom"},
		{"Cherokee", "Bill", "Ᏼill"},
		{"Cherokee", "Paul", "Ꮲaul"},
		{"Cherokee", "Alice", "Ꭺlice"},
		{"Cherokee", "Dave", "ᎠᎪᏙᎬ"},
		{"Latin", "lan", "Ian"}, // capital i, small L
		{"Latin", "alice", "ALICE"},
		{"Greek", "Anna", "ΑΝΝΑ"},
		{"Greek", "Kate", "ΚΑΤΕ"},
		{"Cyrillic", "Bob", "ВОВ"},
		{"Cyrillic", "Ivan", "Іvan"},
		{"Armenian", "Sus", "Տus"},
		{"Georgian", "Ꞇom", "Ⴀom"}, // Latin insular T, Georgian Asomtavruli An
		{"Deseret", "lily", "𐐛ily"},
		{"Osage", "rose", "𐒴ose"},
		{"Osage", "Paul", "𐓄aul"},
	} {
		a, b := skeletonsOf(t, tc.name), skeletonsOf(t, tc.lookAlike)
		if !shareOne(a, b) {
			t.Errorf("%s: %q %q and %q %q share no skeleton", tc.script, tc.name, a, tc.lookAlike, b)
		}
	}
}

// TestHonestNamesKeepTheirSkeletons: real names in many scripts, caseful or
// not, share no skeleton with each other.
func TestHonestNamesKeepTheirSkeletons(t *testing.T) {
	names := []string{
		"小明", "小朋", "王小明", "山田太郎", "さくら", "サクラ", "김민준", "김민수",
		"Ελένη", "Eleni", "Иван", "Ivan", "Ivana", "Արամ", "Anahit", "დავითი", "ᲓᲐᲕᲘᲗᲘ_2",
		"ᏣᎳᎩ", "𐐔𐐯𐑅𐐨𐑉𐐯𐐻", "𐓏𐓘𐓻𐓘𐓻𐓟", "Dave", "David", "Ian", "Anna", "Hannah",
	}
	for i, a := range names {
		for _, b := range names[i+1:] {
			if sa, sb := skeletonsOf(t, a), skeletonsOf(t, b); shareOne(sa, sb) {
				t.Errorf("%q %q and %q %q share a skeleton", a, sa, b, sb)
			}
		}
	}
}
