package redisdb

import (
	"context"
	"errors"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"microblog/store"
	"microblog/store/storetest"
)

// testStore is a Store on its own throwaway redis-server, with the raw client
// for checking keys.
type testStore struct {
	*Store
	t   *testing.T
	ctx context.Context
}

func newTestStore(t *testing.T) testStore {
	t.Helper()
	return testStore{Store: New(storetest.Start(t).Client(), Options{BcryptCost: bcrypt.MinCost}), t: t, ctx: context.Background()}
}

// user registers name and returns its uid.
func (s testStore) user(name string) int64 {
	s.t.Helper()
	u, _, err := s.Register(s.ctx, name, "password123")
	if err != nil {
		s.t.Fatal(err)
	}
	return u.ID
}

// post writes np and fails the test if it fails.
func (s testStore) post(np store.NewPost) store.Post {
	s.t.Helper()
	p, err := s.Create(s.ctx, np)
	if err != nil {
		s.t.Fatalf("create %+v: %v", np, err)
	}
	return p
}

func (s testStore) follow(fan, star int64) {
	s.t.Helper()
	if err := s.Follow(s.ctx, fan, star); err != nil {
		s.t.Fatal(err)
	}
}

// ids are the ids of a page's posts, in order.
func ids(ps []store.Post) []int64 {
	out := make([]int64, len(ps))
	for i, p := range ps {
		out[i] = p.ID
	}
	return out
}

// wantCode fails unless err is a *store.Error of kind and code.
func wantCode(t *testing.T, err error, kind error, code store.Code) {
	t.Helper()
	var e *store.Error
	if !errors.As(err, &e) || e.Code != code || !errors.Is(err, kind) {
		t.Fatalf("got %v, want %s (%v)", err, code, kind)
	}
}
