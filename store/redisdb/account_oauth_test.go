package redisdb

import (
	"errors"
	"testing"
	"time"

	"microblog/store"
	"microblog/store/redisdb/account"
	"microblog/store/redisdb/schema"
)

// TestOAuthRecords: a record is kept under its key with its TTL, read
// (sliding the TTL when asked), and taken once.
func TestOAuthRecords(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	if got := schema.NewKeys("p:", false).OAuth(store.OAuthToken, "ab12"); got != "p:oauth:token:ab12" {
		t.Fatalf("key %q", got)
	}
	if err := s.PutOAuth(s.ctx, store.OAuthCode, "h1", []byte("grant"), time.Minute); err != nil {
		t.Fatal(err)
	}
	if ttl := s.rdb.TTL(s.ctx, s.keys.OAuth(store.OAuthCode, "h1")).Val(); ttl <= 0 || ttl > time.Minute {
		t.Fatalf("ttl %v", ttl)
	}
	b, err := s.OAuthRecord(s.ctx, store.OAuthCode, "h1", time.Hour)
	if err != nil || string(b) != "grant" {
		t.Fatalf("read: %q %v", b, err)
	}
	if ttl := s.rdb.TTL(s.ctx, s.keys.OAuth(store.OAuthCode, "h1")).Val(); ttl <= time.Minute {
		t.Fatalf("the read did not slide the ttl: %v", ttl)
	}
	if _, err := s.OAuthRecord(s.ctx, store.OAuthToken, "h1", 0); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another kind's record: %v, want not found", err)
	}
	if b, err := s.TakeOAuth(s.ctx, store.OAuthCode, "h1"); err != nil || string(b) != "grant" {
		t.Fatalf("take: %q %v", b, err)
	}
	if _, err := s.TakeOAuth(s.ctx, store.OAuthCode, "h1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("taken twice: %v", err)
	}
	if err := s.PutOAuth(s.ctx, store.OAuthClient, "app", []byte("x"), 0); err != nil {
		t.Fatal(err)
	}
	if ttl := s.rdb.TTL(s.ctx, s.keys.OAuth(store.OAuthClient, "app")).Val(); ttl != -1 {
		t.Fatalf("a record without ttl has %v", ttl)
	}
}

// TestCheckPasswordOpensNoSession: CheckPassword proves the password as
// Login does, under the same guard, and opens no session; OpenOAuthSession
// then opens one, valid only through AuthenticateOAuth, and none for a
// suspended user.
func TestCheckPasswordOpensNoSession(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	u, _, err := s.Register(s.ctx, "alice", "a good password")
	if err != nil {
		t.Fatal(err)
	}
	sessions := func() int64 { return s.rdb.SCard(s.ctx, s.keys.UserSessions(u.ID)).Val() }
	before := sessions()
	if got, err := s.CheckPassword(s.ctx, "ALICE", "a good password", store.Attempt{}); err != nil || got.ID != u.ID {
		t.Fatalf("right password: %+v %v", got, err)
	}
	if _, err := s.CheckPassword(s.ctx, "alice", "wrong", store.Attempt{}); !errors.Is(err, store.ErrBadCredential) {
		t.Fatalf("wrong password: %v", err)
	}
	if _, err := s.CheckPassword(s.ctx, "nobody", "wrong", store.Attempt{}); !errors.Is(err, store.ErrBadCredential) {
		t.Fatalf("unknown name: %v", err)
	}
	if n := sessions(); n != before {
		t.Fatalf("sessions %d, were %d", n, before)
	}
	guard := store.Attempt{Client: "192.0.2.1", Guard: store.Limit{N: 2, Per: time.Minute}}
	for range 3 {
		s.CheckPassword(s.ctx, "alice", "wrong", guard)
	}
	var limited *store.RateLimitError
	if _, err := s.CheckPassword(s.ctx, "alice", "a good password", guard); !errors.As(err, &limited) {
		t.Fatalf("past the guard: %v, want a wait", err)
	}

	token, err := s.OpenOAuthSession(s.ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	// Twice each, the second time from the session cache.
	for range 2 {
		if uid, _, err := s.AuthenticateOAuth(s.ctx, token); err != nil || uid != u.ID {
			t.Fatalf("the session: %d %v", uid, err)
		}
		if uid, _, err := s.Authenticate(s.ctx, token); !errors.Is(err, store.ErrNotLoggedIn) {
			t.Fatalf("the OAuth session as a native one: %d %v, want not logged in", uid, err)
		}
	}
	_, native, err := s.Login(s.ctx, "alice", "a good password", store.Attempt{})
	if err != nil {
		t.Fatal(err)
	}
	if uid, _, err := s.AuthenticateOAuth(s.ctx, native); !errors.Is(err, store.ErrNotLoggedIn) {
		t.Fatalf("a login's session as an OAuth one: %d %v, want not logged in", uid, err)
	}
	if err := s.Suspend(s.ctx, u.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.OpenOAuthSession(s.ctx, u.ID); !errors.Is(err, store.ErrSuspended) {
		t.Fatalf("a suspended user's session: %v", err)
	}
}

// TestMigrateOAuthSessions: a session an older version opened for an OAuth
// grant, plain as a login's, is marked as the grant's by Migrate: from then
// on only AuthenticateOAuth takes it, and its expiry is kept; a login's
// session, with no grant, stays as it was.
func TestMigrateOAuthSessions(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	u, login, err := s.Register(s.ctx, "alice", "a good password")
	if err != nil {
		t.Fatal(err)
	}
	legacy, err := account.NewSession(s.ctx, s.Accounts, u.ID, account.NativeSession) // as version 1 opened a grant's
	if err != nil {
		t.Fatal(err)
	}
	h := store.TokenHash(legacy)
	if err := s.PutOAuth(s.ctx, store.OAuthToken, h, []byte(`{}`), time.Hour); err != nil {
		t.Fatal(err)
	}
	if err := s.PutOAuth(s.ctx, store.OAuthToken, store.TokenHash("app.gone"), []byte(`{}`), time.Hour); err != nil {
		t.Fatal(err) // an app's token: a grant with no session
	}
	s.rdb.Set(s.ctx, s.keys.Schema(), 7, 0)
	if err := s.Migrate(s.ctx); err != nil {
		t.Fatal(err)
	}
	s.caches.sessions.Forget(h)
	if _, _, err := s.Authenticate(s.ctx, legacy); !errors.Is(err, store.ErrNotLoggedIn) {
		t.Fatalf("the grant's session on the native side after Migrate: %v, want not logged in", err)
	}
	if uid, _, err := s.AuthenticateOAuth(s.ctx, legacy); err != nil || uid != u.ID {
		t.Fatalf("the grant's session on the OAuth side: %d %v", uid, err)
	}
	if ttl := s.rdb.TTL(s.ctx, s.keys.Session(h)).Val(); ttl <= 0 {
		t.Fatalf("the marked session's TTL is %v", ttl)
	}
	if uid, _, err := s.Authenticate(s.ctx, login); err != nil || uid != u.ID {
		t.Fatalf("the login's session after Migrate: %d %v", uid, err)
	}
	if n := s.rdb.Exists(s.ctx, s.keys.Session(store.TokenHash("app.gone"))).Val(); n != 0 {
		t.Fatal("Migrate made a session for an app's token")
	}

	// One an older process opens after Migrate ran (a rolling upgrade) is
	// told by its grant at its first use, and marked then.
	late, err := account.NewSession(s.ctx, s.Accounts, u.ID, account.NativeSession)
	if err != nil {
		t.Fatal(err)
	}
	lh := store.TokenHash(late)
	if err := s.PutOAuth(s.ctx, store.OAuthToken, lh, []byte(`{}`), time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Authenticate(s.ctx, late); !errors.Is(err, store.ErrNotLoggedIn) {
		t.Fatalf("an unmarked grant's session on the native side: %v, want not logged in", err)
	}
	if v := s.rdb.Get(s.ctx, s.keys.Session(lh)).Val(); v != account.OAuthSession.Value(u.ID) {
		t.Fatalf("the unmarked grant's session holds %q after its use", v)
	}
	if uid, _, err := s.AuthenticateOAuth(s.ctx, late); err != nil || uid != u.ID {
		t.Fatalf("the unmarked grant's session on the OAuth side: %d %v", uid, err)
	}
}
