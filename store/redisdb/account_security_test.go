package redisdb

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
	"golang.org/x/text/unicode/norm"

	"microblog/store"
	"microblog/store/redisdb/account"
	"microblog/store/redisdb/schema"
	"microblog/store/storetest"
)

// setLegacyPassword gives uid a password record as the server wrote them
// before every password was pre-hashed: bcrypt of the bytes as typed, or of
// base64(SHA-256) of them beyond 72 bytes.
func (s testStore) setLegacyPassword(uid int64, pw string) {
	s.t.Helper()
	h, err := bcrypt.GenerateFromPassword(account.LegacyInput(pw), bcrypt.MinCost)
	if err != nil {
		s.t.Fatal(err)
	}
	if err := s.rdb.HSet(s.ctx, s.keys.User(uid), schema.FieldPassword, h).Err(); err != nil {
		s.t.Fatal(err)
	}
	s.rdb.HDel(s.ctx, s.keys.User(uid), schema.FieldPasswordKey)
}

func (s testStore) login(name, pw string) error {
	_, _, err := s.Login(s.ctx, name, pw, store.Attempt{})
	return err
}

// TestLegacyPasswordsLogInAndAreUpgraded: records made before keep working,
// are rewritten in the current form on the first login, and their pre-hash
// never stands in for the password.
func TestLegacyPasswordsLogInAndAreUpgraded(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	long := strings.Repeat("a long passphrase ", 6) // 108 bytes
	sum := sha256.Sum256([]byte(long))
	pre := base64.StdEncoding.EncodeToString(sum[:])
	nfc := "crème brûlée"
	cases := []struct{ name, stored, typed string }{
		{"short", "password123", "password123"},
		{"long", long, long},
		{"nfc", nfc, norm.NFD.String(nfc)}, // typed in another Unicode form
	}
	for _, c := range cases {
		uid := s.user(c.name)
		s.setLegacyPassword(uid, c.stored)
		if c.name == "long" {
			if err := s.login("long", pre); !errors.Is(err, store.ErrBadCredential) {
				t.Fatalf("the pre-hash logs in to an old record: %v", err)
			}
		}
		if err := s.login(c.name, c.typed); err != nil {
			t.Fatalf("%s: old record does not log in: %v", c.name, err)
		}
		if k, _ := s.rdb.HGet(s.ctx, s.keys.User(uid), schema.FieldPasswordKey).Result(); k == "" {
			t.Fatalf("%s: old record not upgraded on login", c.name)
		}
		for _, typed := range []string{c.stored, c.typed} {
			if err := s.login(c.name, typed); err != nil {
				t.Fatalf("%s: upgraded record does not log in with %+q: %v", c.name, typed, err)
			}
		}
		if err := s.login(c.name, "wrong password"); !errors.Is(err, store.ErrBadCredential) {
			t.Fatalf("%s: wrong password after the upgrade: %v", c.name, err)
		}
	}
	// Neither the old pre-hash nor the new one is a password now.
	key, _ := s.rdb.HGet(s.ctx, s.keys.User(2), schema.FieldPasswordKey).Result()
	for _, p := range []string{pre, string(account.PreHash(key, long))} {
		if err := s.login("long", p); !errors.Is(err, store.ErrBadCredential) {
			t.Fatalf("pre-hash %s logs in: %v", p, err)
		}
	}
}

// TestLoginGuardBacksOffAndCaps: from N failures on, the wait doubles from
// one second and stops at five minutes; attempts made while waiting are not
// counted; a success resets the count.
func TestLoginGuardBacksOffAndCaps(t *testing.T) {
	parallel(t)
	var now atomic.Int64
	now.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli())
	s := newTestStoreWith(t, Options{Now: func() time.Time { return time.UnixMilli(now.Load()) }})
	s.user("dave")
	at := store.Attempt{Client: "198.51.100.7", Guard: store.Limit{N: 3, Per: time.Hour}}
	try := func(pw string) error { _, _, err := s.Login(s.ctx, "dave", pw, at); return err }
	for i := range 3 {
		if err := try("wrong password"); !errors.Is(err, store.ErrBadCredential) {
			t.Fatalf("failure %d: %v", i+1, err)
		}
	}
	var waits []time.Duration
	for range 12 {
		err := try("password123") // even the right one waits
		var rl *store.RateLimitError
		if !errors.As(err, &rl) {
			t.Fatalf("during the back-off: %v, want a rate limit", err)
		}
		waits = append(waits, rl.RetryAfter)
		if err := try("wrong password"); !errors.As(err, &rl) {
			t.Fatalf("a second try during the wait was checked: %v", err)
		}
		now.Add(rl.RetryAfter.Milliseconds())
		if err := try("wrong password"); !errors.Is(err, store.ErrBadCredential) {
			t.Fatalf("after the wait: %v", err)
		}
	}
	want := []time.Duration{1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300}
	for i := range want {
		want[i] *= time.Second
	}
	if !slices.Equal(waits, want) {
		t.Fatalf("waits %v, want %v", waits, want)
	}
	now.Add(5 * time.Minute.Milliseconds())
	if err := try("password123"); err != nil {
		t.Fatalf("right password after the wait: %v", err)
	}
	if err := try("wrong password"); !errors.Is(err, store.ErrBadCredential) {
		t.Fatalf("the success did not reset the count: %v", err)
	}
}

// TestLookAlikeSignUpsRace: of racing sign-ups of names that look alike
// exactly one wins, and the losers leave no hash and no index behind.
func TestLookAlikeSignUpsRace(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	names := []string{"alice", "аlice", "ａｌｉｃｅ", "ALICE", "alicе", "Alice", "аlicе", "ＡＬＩＣＥ"}
	for round := range 3 {
		var wg sync.WaitGroup
		errs := make([]error, len(names))
		for i, n := range names {
			wg.Go(func() { _, _, errs[i] = s.Register(s.ctx, n, "password123") })
		}
		wg.Wait()
		won, skeletons := 0, 0
		for i, err := range errs {
			if err == nil {
				won++
				display, lower, _ := store.NormalizeUsername(names[i])
				skeletons = len(store.UsernameSkeletons(display, lower)) // "ALICE" has two: its I looks like an l
			} else {
				wantCode(t, err, store.ErrConflict, store.CodeUsernameTaken)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d sign-ups won, want 1", round, won)
		}
		idx := storetest.Keys(t, s.rdb, "user:username:*")
		skel := storetest.Keys(t, s.rdb, "user:skeleton:*")
		users := 0
		for _, k := range storetest.Keys(t, s.rdb, "user:userid:*") {
			if !strings.HasSuffix(k, ":auth") {
				users++
			}
		}
		if len(idx) != 1 || len(skel) != skeletons || users != 1 {
			t.Fatalf("round %d: %d name indexes, %d skeletons, %d users; want 1, the winner's %d, 1", round, len(idx), len(skel), users, skeletons)
		}
		for _, pattern := range []string{"user:*", "auth:*", "global:*"} {
			for _, k := range storetest.Keys(t, s.rdb, pattern) {
				s.rdb.Del(s.ctx, k)
			}
		}
	}
}

// TestMigrateNames: accounts made before names went through PRECIS get
// their PRECIS index form and a skeleton entry, so a look-alike cannot sign
// up any more, and they all still log in.
func TestMigrateNames(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	// Users as the old server wrote them: index = strings.ToLower(NFC(name)), no skeleton.
	old := map[string]string{"ａｌｉｃｅ": "ａｌｉｃｅ", "Bob": "bob", "\u3164\u3164": "\u3164\u3164", "小明": "小明"}
	uids := map[string]int64{}
	for name, lower := range old {
		uid := s.rdb.Incr(s.ctx, s.keys.LastUserID()).Val()
		uids[name] = uid
		h, _ := bcrypt.GenerateFromPassword([]byte("password123"), bcrypt.MinCost)
		s.rdb.HSet(s.ctx, s.keys.User(uid), schema.UserHash{Username: name, Password: string(h), Created: 1})
		s.rdb.Set(s.ctx, s.keys.UsernameIndex(lower), uid, 0)
	}
	s.rdb.Set(s.ctx, s.keys.Schema(), 2, 0)
	if _, _, err := s.Register(s.ctx, "bоb", "password123"); err != nil { // Cyrillic о: nothing stops it yet
		t.Fatalf("before the migration: %v", err)
	}
	s.rdb.Del(s.ctx, s.keys.User(5), s.keys.UsernameIndex("bоb"), s.keys.UsernameSkeleton(store.UsernameSkeleton("bоb")))
	if err := s.Migrate(s.ctx); err != nil {
		t.Fatal(err)
	}
	if v := s.rdb.Get(s.ctx, s.keys.Schema()).Val(); v != fmt.Sprint(schemaVersion) {
		t.Fatalf("schema %s, want %d", v, schemaVersion)
	}
	if got, _ := s.rdb.Get(s.ctx, s.keys.UsernameIndex("alice")).Int64(); got != uids["ａｌｉｃｅ"] {
		t.Fatalf("ａｌｉｃｅ's PRECIS index form alice holds %d, want %d", got, uids["ａｌｉｃｅ"])
	}
	for _, name := range []string{"bоb", "аlice", "alice", "BOB"} {
		_, _, err := s.Register(s.ctx, name, "password123")
		wantCode(t, err, store.ErrConflict, store.CodeUsernameTaken)
	}
	for name := range old {
		if err := s.login(name, "password123"); err != nil {
			t.Errorf("%q cannot log in after the migration: %v", name, err)
		}
	}
	if err := s.Migrate(s.ctx); err != nil {
		t.Fatalf("second migration: %v", err)
	}
}

// TestChangePasswordAndLogoutAll: a password change needs the old password,
// keeps the session that made it and ends the others; LogoutAll ends all.
func TestChangePasswordAndLogoutAll(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	u, tok1, _ := s.Register(s.ctx, "erin", "password123")
	_, tok2, _ := s.Login(s.ctx, "erin", "password123", store.Attempt{})
	err := s.ChangePassword(s.ctx, u.ID, store.TokenHash(tok1), "wrong password", "new password 1", store.Attempt{})
	wantCode(t, err, store.ErrUnauthorized, store.CodeInvalidCredentials)
	err = s.ChangePassword(s.ctx, u.ID, store.TokenHash(tok1), "password123", "short", store.Attempt{})
	wantCode(t, err, store.ErrInvalid, store.CodeInvalidPassword)
	if err := s.ChangePassword(s.ctx, u.ID, store.TokenHash(tok1), "password123", "new password 1", store.Attempt{}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Authenticate(s.ctx, tok1); err != nil {
		t.Fatalf("the session that changed the password ended: %v", err)
	}
	if _, _, err := s.Authenticate(s.ctx, tok2); err == nil {
		t.Fatal("another session outlived the password change")
	}
	if err := s.login("erin", "password123"); !errors.Is(err, store.ErrBadCredential) {
		t.Fatalf("old password after the change: %v", err)
	}
	_, tok3, err := s.Login(s.ctx, "erin", "new password 1", store.Attempt{})
	if err != nil {
		t.Fatalf("new password: %v", err)
	}
	if err := s.LogoutAll(s.ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	for _, tok := range []string{tok1, tok3} {
		if _, _, err := s.Authenticate(s.ctx, tok); err == nil {
			t.Fatal("a session outlived LogoutAll")
		}
	}
}

// TestDeleteAccount: a deleted account leaves no key of its own, no post,
// no follow on either side, and its name (and look-alikes) can be taken.
func TestDeleteAccount(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	alice, bob, carol := s.user("alice"), s.user("bob"), s.user("carol")
	_, tok, _ := s.Login(s.ctx, "alice", "password123", store.Attempt{Client: "192.0.2.1"})
	s.follow(bob, alice)
	s.follow(alice, carol)
	var mids []int64
	for i := range 130 { // more than a page
		mids = append(mids, s.post(store.NewPost{Author: alice, Content: fmt.Sprintf("post %d #topic", i)}).ID)
	}
	bobs := s.post(store.NewPost{Author: bob, Content: "bob's"})
	s.post(store.NewPost{Author: alice, Content: "a comment", Parent: bobs.ID})
	s.settle()

	err := s.DeleteAccount(s.ctx, alice, "wrong password", store.Attempt{})
	wantCode(t, err, store.ErrUnauthorized, store.CodeInvalidCredentials)
	if n := s.rdb.Exists(s.ctx, s.keys.User(alice)).Val(); n != 1 {
		t.Fatal("a wrong password deleted the account")
	}
	if err := s.DeleteAccount(s.ctx, alice, "password123", store.Attempt{}); err != nil {
		t.Fatal(err)
	}
	s.settle()
	if _, _, err := s.Authenticate(s.ctx, tok); err == nil {
		t.Fatal("a session outlived its account")
	}
	for _, mid := range mids {
		if s.rdb.Exists(s.ctx, s.keys.Post(mid)).Val() != 0 {
			t.Fatalf("post %d outlived its author", mid)
		}
	}
	for _, k := range storetest.Keys(t, s.rdb, "*") {
		for _, own := range []string{"user:userid:1", "A:1:", "F:1:", "G:1:", "N:1:", "login:known:1", "user:username:alice", "user:skeleton:"} {
			if strings.HasPrefix(k, own) && k != s.keys.UsernameSkeleton(store.UsernameSkeleton("bob")) && k != s.keys.UsernameSkeleton(store.UsernameSkeleton("carol")) {
				t.Errorf("key %s outlived the account", k)
			}
		}
	}
	if _, err := s.rdb.ZScore(s.ctx, s.keys.Stars(bob), id(alice)).Result(); err == nil {
		t.Error("bob still follows the deleted account")
	}
	if _, err := s.rdb.ZScore(s.ctx, s.keys.Fans(carol), id(alice)).Result(); err == nil {
		t.Error("carol still has the deleted account as a fan")
	}
	if slices.ContainsFunc(s.homeIDs(bob), func(m int64) bool { return slices.Contains(mids, m) }) {
		t.Error("bob's home still shows the deleted account's posts")
	}
	if p, _ := s.PublicTimeline(s.ctx, store.PageQuery{}); len(p.Items) != 1 || p.Items[0].ID != bobs.ID {
		t.Errorf("public timeline %v, want only bob's post", ids(p.Items))
	}
	if _, err := s.UIDByName(s.ctx, "alice"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the deleted name still resolves: %v", err)
	}
	if u, _, err := s.Register(s.ctx, "аlice", "another password"); err != nil || u.ID == alice {
		t.Fatalf("a look-alike of the freed name: %+v, %v", u, err)
	}
	_, _, err = s.Register(s.ctx, "alice", "another password")
	wantCode(t, err, store.ErrConflict, store.CodeUsernameTaken)
}
