package redisdb

import (
	"strings"
	"sync"
	"testing"

	"microblog/store"
	"microblog/store/redisdb/schema"
	"microblog/store/storetest"
)

// TestSessions: register and login give tokens that authenticate until
// logout; only the token's hash is kept.
func TestSessions(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	u, tok1, err := s.Register(s.ctx, "Alice", "password123")
	if err != nil {
		t.Fatal(err)
	}
	if u.Username != "Alice" || u.Following == nil || *u.Following {
		t.Fatalf("registered %+v", u)
	}
	lu, tok2, err := s.Login(s.ctx, "aLiCe", "password123", store.Attempt{})
	if err != nil || lu.ID != u.ID {
		t.Fatalf("login: %+v, %v", lu, err)
	}
	for _, tok := range []string{tok1, tok2} {
		uid, h, err := s.Authenticate(s.ctx, tok)
		if err != nil || uid != u.ID || h != store.TokenHash(tok) {
			t.Fatalf("authenticate: %d, %q, %v", uid, h, err)
		}
	}
	if err := s.Logout(s.ctx, u.ID, store.TokenHash(tok1)); err != nil {
		t.Fatal(err)
	}
	_, _, err = s.Authenticate(s.ctx, tok1)
	wantCode(t, err, store.ErrUnauthorized, store.CodeUnauthorized)
	if _, _, err := s.Authenticate(s.ctx, tok2); err != nil {
		t.Fatalf("the other session ended too: %v", err)
	}
	keys := storetest.Keys(t, s.rdb, "*")
	for _, k := range keys {
		if strings.Contains(k, tok2) {
			t.Fatalf("token stored in the clear in key %s", k)
		}
	}
	if h, _ := s.rdb.HGet(s.ctx, s.keys.User(u.ID), schema.FieldPassword).Result(); !strings.HasPrefix(h, "$2") {
		t.Fatalf("password field %q is not a bcrypt hash", h)
	}
}

// TestLoginFailuresLookAlike: a wrong name and a wrong password give the
// same error; so do names that cannot exist.
func TestLoginFailuresLookAlike(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	s.user("alice")
	for _, c := range [][2]string{{"alice", "wrong password"}, {"nobody", "password123"}, {"x", "password123"}, {"alice", strings.Repeat("p", 200)}} {
		_, _, err := s.Login(s.ctx, c[0], c[1], store.Attempt{})
		wantCode(t, err, store.ErrUnauthorized, store.CodeInvalidCredentials)
	}
}

// TestUsernamesAreUniqueInAnyCase: of racing sign-ups of one name in
// different letter cases exactly one wins, and the losers leave no hash.
func TestUsernamesAreUniqueInAnyCase(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	names := []string{"Zoë", "ZOË", "zoë", "zOë", "ZoË", "zoË"}
	var wg sync.WaitGroup
	errs := make([]error, len(names))
	for i, n := range names {
		wg.Add(1)
		go func() { defer wg.Done(); _, _, errs[i] = s.Register(s.ctx, n, "password123") }()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		if err == nil {
			won++
		} else {
			wantCode(t, err, store.ErrConflict, store.CodeUsernameTaken)
		}
	}
	if won != 1 {
		t.Fatalf("%d sign-ups won, want 1", won)
	}
	hashes := storetest.Keys(t, s.rdb, "user:userid:*")
	users := 0
	for _, k := range hashes {
		if !strings.HasSuffix(k, ":auth") {
			users++
		}
	}
	if users != 1 {
		t.Fatalf("%d user hashes, want 1 (losers must clean up)", users)
	}
}

// TestSetBio: a bio is checked, stored and shown; a missing user gets none.
func TestSetBio(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	alice := s.user("alice")
	u, err := s.SetBio(s.ctx, alice, "likes 🐈")
	if err != nil || u.Bio != "likes 🐈" {
		t.Fatalf("set bio: %+v, %v", u, err)
	}
	_, err = s.SetBio(s.ctx, alice, strings.Repeat("b", store.MaxBio+1))
	wantCode(t, err, store.ErrInvalid, store.CodeBioTooLong)
	_, err = s.SetBio(s.ctx, alice+1, "ghost")
	wantCode(t, err, store.ErrNotFound, store.CodeUserNotFound)
	if n, _ := s.rdb.Exists(s.ctx, s.keys.User(alice+1)).Result(); n != 0 {
		t.Fatal("setting a missing user's bio created the user")
	}
}
