package redisdb

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"microblog/store"
	"microblog/store/redisdb/schema"
	"microblog/store/storetest"
)

// TestSignInExternal: the first sign-in makes a user and a session, the
// next finds the same user; the token authenticates; the user is listed as
// linked to the provider and has no password.
func TestSignInExternal(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	u, tok, err := s.SignInExternal(s.ctx, "ldap", "uid=alice,ou=people,dc=example,dc=edu", "alice")
	if err != nil {
		t.Fatal(err)
	}
	if u.Username != "alice" || u.ID == 0 {
		t.Fatalf("made %+v", u)
	}
	if uid, _, err := s.Authenticate(s.ctx, tok); err != nil || uid != u.ID {
		t.Fatalf("authenticate: %d, %v", uid, err)
	}
	again, tok2, err := s.SignInExternal(s.ctx, "ldap", "uid=alice,ou=people,dc=example,dc=edu", "someone else")
	if err != nil || again.ID != u.ID || again.Username != "alice" || tok2 == tok {
		t.Fatalf("second sign-in: %+v, %v", again, err)
	}
	if got, err := s.ExternalIdentities(s.ctx, u.ID); err != nil || len(got) != 1 || got[0] != "ldap" {
		t.Fatalf("identities %v, %v", got, err)
	}
	if h, _ := s.rdb.HGet(s.ctx, s.keys.User(u.ID), schema.FieldPassword).Result(); h != "" {
		t.Fatalf("an external account has password field %q", h)
	}
	if found, err := s.UserByName(s.ctx, "ALICE", 0); err != nil || found.ID != u.ID {
		t.Fatalf("the name is not indexed: %+v, %v", found, err)
	}
}

// TestSignInExternalNoPassword: Login refuses every password for an account
// made by another service, with the error of a wrong password.
func TestSignInExternalNoPassword(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	if _, _, err := s.SignInExternal(s.ctx, "oidc", "sub-1", "carol"); err != nil {
		t.Fatal(err)
	}
	for _, pw := range []string{"", "password123", "x"} {
		_, _, err := s.Login(s.ctx, "carol", pw, store.Attempt{})
		wantCode(t, err, store.ErrUnauthorized, store.CodeInvalidCredentials)
	}
}

// TestSignInExternalNames: names are made valid and unique: two providers
// both wanting alice, a look-alike of a local name, names with nothing
// usable, too long or with characters names may not hold.
func TestSignInExternalNames(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	s.user("Dave")
	for _, c := range []struct{ provider, subject, preferred, want string }{
		{"ldap", "a1", "alice", "alice"},
		{"oidc", "a2", "alice", "alice_2"},
		{"oidc", "a3", "ALICE", "ALICE_3"},
		{"oidc", "d1", "Ꭰave", "Ꭰave_2"},
		{"oidc", "d2", "dave", "dave_3"}, // dave_2 looks like Ꭰave_2
		{"oidc", "e1", "erin@example.edu", "erin"},
		{"oidc", "f1", "frank o'neil-smith", "frankoneilsmith"},
		{"oidc", "g1", "", "user"},
		{"oidc", "g2", "!!", "user_2"},
		{"oidc", "h1", strings.Repeat("h", 40), strings.Repeat("h", 30)},
		{"oidc", "h2", strings.Repeat("h", 40), strings.Repeat("h", 28) + "_2"},
		{"oidc", "z1", "张三", "张三"},
	} {
		u, _, err := s.SignInExternal(s.ctx, c.provider, c.subject, c.preferred)
		if err != nil {
			t.Fatalf("%q: %v", c.preferred, err)
		}
		if u.Username != c.want {
			t.Errorf("%q became %q, want %q", c.preferred, u.Username, c.want)
		}
	}
}

// TestSignInExternalConcurrent: concurrent first sign-ins of one identity
// end with one account, and the losers leave nothing behind.
func TestSignInExternalConcurrent(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	const n = 8
	ids := make([]int64, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u, _, err := s.SignInExternal(s.ctx, "oidc", "same-sub", "grace")
			if err != nil {
				t.Error(err)
				return
			}
			ids[i] = u.ID
		}()
	}
	wg.Wait()
	for _, uid := range ids {
		if uid != ids[0] {
			t.Fatalf("one identity made several accounts: %v", ids)
		}
	}
	last, err := s.rdb.Get(s.ctx, s.keys.LastUserID()).Int64()
	if err != nil {
		t.Fatal(err)
	}
	for uid := int64(1); uid <= last; uid++ {
		n, _ := s.rdb.Exists(s.ctx, s.keys.User(uid), s.keys.UserIdentities(uid)).Result()
		if want := int64(2 * b2i(uid == ids[0])); n != want {
			t.Fatalf("user %d has %d of its hash and identity list, want %d", uid, n, want)
		}
	}
	if page, err := s.SearchUsers(s.ctx, "grace", store.PageQuery{Limit: 20}); err != nil || len(page.Items) != 1 {
		t.Fatalf("search finds %+v, %v", page.Items, err)
	}
}

// TestLinkExternal: a local user links an identity (again: no-op); another
// user cannot take it (409 identity_taken); the linked identity signs in
// as that user.
func TestLinkExternal(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	alice, bob := s.user("alice"), s.user("bob")
	if err := s.LinkExternal(s.ctx, alice, "oidc", "sub-a"); err != nil {
		t.Fatal(err)
	}
	if err := s.LinkExternal(s.ctx, alice, "oidc", "sub-a"); err != nil {
		t.Fatalf("linking again: %v", err)
	}
	err := s.LinkExternal(s.ctx, bob, "oidc", "sub-a")
	wantCode(t, err, store.ErrConflict, store.CodeIdentityTaken)
	u, _, err := s.SignInExternal(s.ctx, "oidc", "sub-a", "somebody")
	if err != nil || u.ID != alice {
		t.Fatalf("sign-in found %+v, %v", u, err)
	}
	// An identity made by signing in cannot be linked to someone else.
	if _, _, err := s.SignInExternal(s.ctx, "ldap", "uid=carol", "carol"); err != nil {
		t.Fatal(err)
	}
	wantCode(t, s.LinkExternal(s.ctx, bob, "ldap", "uid=carol"), store.ErrConflict, store.CodeIdentityTaken)
	// Linking another subject of the same provider gives the first back.
	if err := s.LinkExternal(s.ctx, alice, "oidc", "sub-a2"); err != nil {
		t.Fatal(err)
	}
	if err := s.LinkExternal(s.ctx, bob, "oidc", "sub-a"); err != nil {
		t.Fatalf("the first subject was not given back: %v", err)
	}
	wantCode(t, s.LinkExternal(s.ctx, 999, "oidc", "sub-x"), store.ErrNotFound, store.CodeUserNotFound)
	for _, bad := range [][2]string{{"", "s"}, {"OIDC", "s"}, {"a:b", "s"}, {"oidc", ""}, {"oidc", strings.Repeat("s", 2000)}} {
		wantCode(t, s.LinkExternal(s.ctx, alice, bad[0], bad[1]), store.ErrInvalid, store.CodeInvalidField)
	}
}

// TestDeleteAccountUnlinks: deleting an account gives its identities back:
// signing in there makes a new account, and no identity key is left.
func TestDeleteAccountUnlinks(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	alice := s.user("alice")
	if err := s.LinkExternal(s.ctx, alice, "oidc", "sub-a"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteAccount(s.ctx, alice, "password123", store.Attempt{}); err != nil {
		t.Fatal(err)
	}
	ext, _, err := s.SignInExternal(s.ctx, "ldap", "uid=erin", "erin")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.removeAccount(s.ctx, ext.ID); err != nil {
		t.Fatal(err)
	}
	if left := storetest.Keys(t, s.rdb, s.keys.Identity("*", "*")); len(left) != 0 {
		t.Fatalf("identity keys left: %v", left)
	}
	for _, uid := range []int64{alice, ext.ID} {
		if left := storetest.Keys(t, s.rdb, s.keys.UserIdentities(uid)); len(left) != 0 {
			t.Fatalf("identity lists left: %v", left)
		}
	}
	u, _, err := s.SignInExternal(s.ctx, "oidc", "sub-a", "alice")
	if err != nil || u.ID == alice || u.Username != "alice" {
		t.Fatalf("sign-in after deletion: %+v, %v", u, err)
	}
}

// TestSignInExternalStaleLink: a link left by a deletion cut short (the
// profile gone, the identity key not) is taken over by a new account.
func TestSignInExternalStaleLink(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	if err := s.rdb.Set(s.ctx, s.keys.Identity("oidc", "sub-z"), 12345, 0).Err(); err != nil {
		t.Fatal(err)
	}
	u, _, err := s.SignInExternal(s.ctx, "oidc", "sub-z", "zoe")
	if err != nil || u.ID == 12345 {
		t.Fatalf("sign-in: %+v, %v", u, err)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestGuardExternal: wrong passwords of another service count under the
// guard, keyed apart from the local account of that name; while it holds,
// the password is not even checked; a right one resets the count.
func TestGuardExternal(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	s.user("dana")
	at := store.Attempt{Client: "192.0.2.1", Guard: store.Limit{N: 2, Per: time.Minute}}
	checked := 0
	prove := func(ok bool) func() error {
		return func() error {
			checked++
			if ok {
				return nil
			}
			return store.ErrBadCredential
		}
	}
	for _, ok := range []bool{false, true, false, false} {
		if err := s.GuardExternal(s.ctx, "ldap", "Dana", at, prove(ok)); (err == nil) != ok {
			t.Fatalf("ok %v: %v", ok, err)
		}
	}
	err := s.GuardExternal(s.ctx, "ldap", "dana", at, prove(true))
	if !errors.Is(err, store.ErrRateLimited) || checked != 4 {
		t.Fatalf("after two failures in a row: %v, %d checks", err, checked)
	}
	if _, _, err := s.Login(s.ctx, "dana", "password123", at); err != nil {
		t.Fatalf("the local dana is held back too: %v", err)
	}
}
