package redisdb

import (
	"testing"

	"microblog/store"
	"microblog/store/storetest"
)

// caseLookAlikes are the names a security probe registered
// beside "Dave" and the others: Cherokee capitals look like Latin ones, but
// their small letters look like small capitals, so the lower-cased names
// did not share a skeleton. store's TestUsernameSkeletonsAcrossCase has
// the other scripts with letter case.
var caseLookAlikes = [][2]string{
	{"Dave", "Ꭰave"}, {"Tom", "Ꭲom"}, {"Bill", "Ᏼill"}, {"Paul", "Ꮲaul"}, {"Alice", "Ꭺlice"}, {"Dave", "ᎠᎪᏙᎬ"},
	{"Anna", "ΑΝΝΑ"}, // Greek capitals
}

// TestLookAlikesAcrossCase: with a name taken, a look-alike that differs
// from it only as written (in capitals) cannot be registered, whichever
// came first, and deleting the account gives back every skeleton it held.
func TestLookAlikesAcrossCase(t *testing.T) {
	parallel(t)
	for _, pair := range caseLookAlikes {
		for _, order := range [][2]string{pair, {pair[1], pair[0]}} {
			s := newTestStore(t)
			u, _, err := s.Register(s.ctx, order[0], "password123")
			if err != nil {
				t.Fatalf("register %q: %v", order[0], err)
			}
			_, _, err = s.Register(s.ctx, order[1], "password123")
			if err == nil {
				t.Errorf("%q registered beside %q", order[1], order[0])
				continue
			}
			wantCode(t, err, store.ErrConflict, store.CodeUsernameTaken)
			if err := s.DeleteAccount(s.ctx, u.ID, "password123", store.Attempt{}); err != nil {
				t.Fatal(err)
			}
			if left := storetest.Keys(t, s.rdb, s.keys.UsernameSkeleton("*")); len(left) != 0 {
				t.Errorf("%q deleted, its skeletons %v remain", order[0], left)
			}
			if _, _, err := s.Register(s.ctx, order[1], "password123"); err != nil {
				t.Errorf("%q once %q was deleted: %v", order[1], order[0], err)
			}
		}
	}
}

// TestHonestNamesAcrossScripts: names of real people in many scripts, the
// caseful ones included, all register beside each other, and log in in any
// letter case.
func TestHonestNamesAcrossScripts(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	for _, name := range []string{
		"小明", "小朋", "王小明", "山田太郎", "さくら", "サクラ", "김민준", "김민수",
		"Ελένη", "Eleni", "Иван", "Ivan", "Ivana", "Արամ", "Anahit", "დავითი",
		"ᏣᎳᎩ", "𐐔𐐯𐑅𐐨𐑉𐐯𐐻", "𐓏𐓘𐓻𐓘𐓻𐓟", "Dave", "David", "Ian",
	} {
		if _, _, err := s.Register(s.ctx, name, "password123"); err != nil {
			t.Errorf("register %q: %v", name, err)
		}
	}
	for _, name := range []string{"ᏣᎳᎩ", "ꮳꮃꭹ", "ΕΛΈΝΗ", "иван", "DAVE"} {
		if _, _, err := s.Login(s.ctx, name, "password123", store.Attempt{}); err != nil {
			t.Errorf("log in as %q: %v", name, err)
		}
	}
}

// TestMigrateReservesTheSkeletonAsWritten: an account whose name as
// written has a skeleton of its own (Ꭰave's is dave's) but was registered
// when only the lower-case form's was reserved (schema 4) gets it from
// Migrate, so that the name it looks like cannot join it afterwards.
func TestMigrateReservesTheSkeletonAsWritten(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	if _, _, err := s.Register(s.ctx, "Ꭰave", "password123"); err != nil {
		t.Fatal(err)
	}
	asWritten := s.keys.UsernameSkeleton(store.UsernameSkeleton("dave"))
	if n := s.rdb.Del(s.ctx, asWritten).Val(); n != 1 {
		t.Fatalf("Ꭰave holds no %s", asWritten)
	}
	s.rdb.Set(s.ctx, s.keys.Schema(), 4, 0)
	if err := s.Migrate(s.ctx); err != nil {
		t.Fatal(err)
	}
	if got := s.rdb.Exists(s.ctx, asWritten).Val(); got != 1 {
		t.Fatalf("Migrate did not reserve %s", asWritten)
	}
	_, _, err := s.Register(s.ctx, "Dave", "password123")
	wantCode(t, err, store.ErrConflict, store.CodeUsernameTaken)
}
