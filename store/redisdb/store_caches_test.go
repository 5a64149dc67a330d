package redisdb

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/runner"
	"microblog/store/redisdb/schema"
	"microblog/store/storetest"
)

// runCaches runs s's caches until the test ends and waits until they are live.
func runCaches(t testing.TB, s *Store) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); runner.NewCacheListener(s, runner.CacheListenerOptions{}).Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	waitFor(t, "the session cache to go live", func() bool { return s.caches.sessions.Live() })
}

func waitFor(t testing.TB, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(storetest.HangWait); !ok(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// authRoundTrips authenticates token on s and counts its round trips.
func authRoundTrips(t *testing.T, s *Store, token string) (int64, int64, error) {
	t.Helper()
	ctx, rt := CountRoundTrips(context.Background())
	uid, _, err := s.Authenticate(ctx, token)
	return uid, rt.N(), err
}

// Two processes on one Redis: a session checked once is taken from the
// cache without a round trip, and every way a session ends reaches the
// other process's cache.
func TestSessionCacheAcrossProcesses(t *testing.T) {
	parallel(t)
	a := newTestStore(t)
	b := testStore{Store: New(a.rdb, Options{BcryptCost: a.opt.BcryptCost}), t: t, ctx: a.ctx}
	a.rdb.AddHook(roundTripHook{})
	runCaches(t, a.Store)
	runCaches(t, b.Store)

	u, tok, err := a.Register(a.ctx, "alice", "password123")
	if err != nil {
		t.Fatal(err)
	}
	if uid, n, err := authRoundTrips(t, b.Store, tok); err != nil || uid != u.ID || n != 1 {
		t.Fatalf("first check on b: uid %d, %d round trips, %v; want %d, 1, nil", uid, n, err, u.ID)
	}
	if uid, n, err := authRoundTrips(t, b.Store, tok); err != nil || uid != u.ID || n != 0 {
		t.Fatalf("second check on b: uid %d, %d round trips, %v; want %d from the cache", uid, n, err, u.ID)
	}

	ended := func(name string, tok string) {
		t.Helper()
		// The process that ended it refuses the token at once.
		if _, _, err := a.Authenticate(a.ctx, tok); !errors.Is(err, store.ErrNotLoggedIn) {
			t.Fatalf("%s: a still takes the token: %v", name, err)
		}
		// The other as soon as the revocation reaches it.
		waitFor(t, name+" to reach b", func() bool {
			_, _, err := b.Authenticate(b.ctx, tok)
			return errors.Is(err, store.ErrNotLoggedIn)
		})
	}

	// Logout.
	_, h, _ := a.Authenticate(a.ctx, tok)
	if err := a.Logout(a.ctx, u.ID, h); err != nil {
		t.Fatal(err)
	}
	ended("logout", tok)

	// Log out everywhere, with two sessions cached on b.
	_, t1, _ := a.Login(a.ctx, "alice", "password123", store.Attempt{})
	_, t2, _ := a.Login(a.ctx, "alice", "password123", store.Attempt{})
	for _, tok := range []string{t1, t2} {
		if _, _, err := b.Authenticate(b.ctx, tok); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.LogoutAll(a.ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	ended("log out everywhere", t1)
	ended("log out everywhere", t2)

	// A changed password ends the other sessions, not the one that changed it.
	_, keep, _ := a.Login(a.ctx, "alice", "password123", store.Attempt{})
	_, other, _ := a.Login(a.ctx, "alice", "password123", store.Attempt{})
	_, keepHash, _ := b.Authenticate(b.ctx, keep)
	if _, _, err := b.Authenticate(b.ctx, other); err != nil {
		t.Fatal(err)
	}
	if err := a.ChangePassword(a.ctx, u.ID, keepHash, "password123", "password456", store.Attempt{}); err != nil {
		t.Fatal(err)
	}
	ended("password change", other)
	if _, _, err := b.Authenticate(b.ctx, keep); err != nil {
		t.Fatalf("the session that changed the password: %v", err)
	}
}

// While the revocations cannot be heard, the cache is off: a session ended
// then is refused everywhere once the subscriber's loss is seen, and the
// cache starts empty when it is back.
func TestSessionCacheOffWhileDeaf(t *testing.T) {
	parallel(t)
	a := newTestStore(t)
	b := testStore{Store: New(a.rdb, Options{BcryptCost: a.opt.BcryptCost}), t: t, ctx: a.ctx}
	runCaches(t, b.Store)
	u, tok, err := a.Register(a.ctx, "bob", "password123")
	if err != nil {
		t.Fatal(err)
	}
	_, h, err := b.Authenticate(b.ctx, tok) // cached on b
	if err != nil {
		t.Fatal(err)
	}
	// Cut b's subscriber off, and end the session meanwhile (what b may
	// not hear), as a Redis restart or a network cut would.
	killPubSub(t, a.rdb)
	if err := a.Logout(a.ctx, u.ID, h); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "b to refuse the ended session", func() bool {
		_, _, err := b.Authenticate(b.ctx, tok)
		return errors.Is(err, store.ErrNotLoggedIn)
	})
	waitFor(t, "b's cache to be live again", func() bool { return b.caches.sessions.Live() })
	if _, _, err := b.Authenticate(b.ctx, tok); !errors.Is(err, store.ErrNotLoggedIn) {
		t.Fatalf("after the subscriber came back: %v", err)
	}
}

// killPubSub closes every pub/sub connection to Redis (every master's).
func killPubSub(t *testing.T, rdb redis.UniversalClient) {
	t.Helper()
	ctx := context.Background()
	kill := func(ctx context.Context, c *redis.Client) error {
		return c.ClientKillByFilter(ctx, "TYPE", "pubsub").Err()
	}
	var err error
	if cc, ok := rdb.(*redis.ClusterClient); ok {
		err = cc.ForEachMaster(ctx, kill)
	} else {
		err = kill(ctx, rdb.(*redis.Client))
	}
	if err != nil {
		t.Fatal(err)
	}
}

// A token names its user, so that a check takes one round trip; tokens of
// an older version, without the name, still work in two; a token naming
// another user than its session's is refused.
func TestTokenFormats(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	s.rdb.AddHook(roundTripHook{})
	u, tok, err := s.Register(s.ctx, "carol", "password123")
	if err != nil {
		t.Fatal(err)
	}
	if uid, n, err := authRoundTrips(t, s.Store, tok); err != nil || uid != u.ID || n != 1 {
		t.Fatalf("new token: uid %d, %d round trips, %v", uid, n, err)
	}
	old := "an-older-token-without-its-user-0123456789abcdefghijk"
	h := store.TokenHash(old)
	s.rdb.SAdd(s.ctx, s.keys.UserSessions(u.ID), h)
	s.rdb.Set(s.ctx, s.keys.Session(h), u.ID, time.Hour)
	if uid, n, err := authRoundTrips(t, s.Store, old); err != nil || uid != u.ID || n != 2 {
		t.Fatalf("older token: uid %d, %d round trips, %v", uid, n, err)
	}
	other, _, err := s.Register(s.ctx, "dave", "password123")
	if err != nil {
		t.Fatal(err)
	}
	forged := id(other.ID) + "." + "whatever-random-part-of-the-token-012345678"
	fh := store.TokenHash(forged)
	s.rdb.SAdd(s.ctx, s.keys.UserSessions(u.ID), fh)
	s.rdb.Set(s.ctx, s.keys.Session(fh), u.ID, time.Hour)
	if uid, _, err := authRoundTrips(t, s.Store, forged); err != nil || uid != u.ID {
		t.Fatalf("a token whose name disagrees is checked against its session's user: uid %d, %v", uid, err)
	}
	stray := id(u.ID) + "." + "not-a-session-at-all-0123456789abcdefghijklmno"
	if _, _, err := s.Authenticate(s.ctx, stray); !errors.Is(err, store.ErrNotLoggedIn) {
		t.Fatalf("unknown token: %v", err)
	}
}

// Avatars are remembered as sessions are: a page of posts takes its
// authors' avatars from memory, and a new avatar reaches every process.
func TestAvatarCacheAcrossProcesses(t *testing.T) {
	parallel(t)
	a := newTestStore(t)
	b := testStore{Store: New(a.rdb, Options{BcryptCost: a.opt.BcryptCost}), t: t, ctx: a.ctx}
	var asked atomic.Int64 // reads of an author card under a counted context
	a.rdb.AddHook(seenHook(func(ctx context.Context, cmds []redis.Cmder) {
		if ctx.Value(roundTripsKey{}) == nil {
			return
		}
		for _, c := range cmds {
			if args := c.Args(); len(args) >= 3 && c.Name() == "hmget" && args[2] == schema.FieldAvatar {
				asked.Add(1)
			}
		}
	}))
	runCaches(t, a.Store)
	runCaches(t, b.Store)
	author := a.user("painter")
	a.post(store.NewPost{Author: author, Content: "a picture of a picture"})
	avatarOn := func(s testStore) (url string, asks int64) {
		t.Helper()
		ctx, _ := CountRoundTrips(s.ctx)
		before := asked.Load()
		page, err := s.UserPosts(ctx, author, store.PageQuery{Limit: 5})
		if err != nil || len(page.Items) != 1 {
			t.Fatalf("user posts: %v %v", page.Items, err)
		}
		if u := page.Items[0].Author.AvatarURL; u != nil {
			url = *u
		}
		return url, asked.Load() - before
	}
	if url, asks := avatarOn(b); url != "" || asks != 1 {
		t.Fatalf("first read: avatar %q, asked Redis %d times; want none, once", url, asks)
	}
	if url, asks := avatarOn(b); url != "" || asks != 0 {
		t.Fatalf("second read: avatar %q, asked Redis %d times; want none, from memory", url, asks)
	}
	if _, err := a.SetAvatar(a.ctx, author, "painter.png"); err != nil {
		t.Fatal(err)
	}
	if got, _ := avatarOn(a); got != "/media/painter.png" {
		t.Fatalf("the process that set it shows %q", got)
	}
	waitFor(t, "the new avatar to reach b", func() bool {
		got, _ := avatarOn(b)
		return got == "/media/painter.png"
	})
}

// seenHook sees every pipeline sent, with its context.
type seenHook func(ctx context.Context, cmds []redis.Cmder)

func (seenHook) DialHook(next redis.DialHook) redis.DialHook          { return next }
func (seenHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }
func (h seenHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h(ctx, cmds)
		return next(ctx, cmds)
	}
}
