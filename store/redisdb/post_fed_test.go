package redisdb

import (
	"testing"

	"microblog/store"
)

// TestPostFedOutbox: with federation on, a post by a user no remote
// account follows queues nothing on fed:outbox (and its claim reads the
// mark in the HMGET it makes anyway); once a remote account follows the
// user (fed_fans), its posts and comments are queued, in their own write.
func TestPostFedOutbox(t *testing.T) {
	parallel(t)
	s := newTestStoreWith(t, Options{Federation: true})
	alice := s.user("alice")
	plain, err := s.Create(s.ctx, store.NewPost{Author: alice, Content: "nobody out there"})
	if err != nil {
		t.Fatal(err)
	}
	if n := s.rdb.XLen(s.ctx, s.keys.FedOutbox()).Val(); n != 0 || plain.Federated {
		t.Fatalf("a post with no remote followers queued %d events (federated %v)", n, plain.Federated)
	}
	if err := s.MarkFedFans(s.ctx, alice); err != nil {
		t.Fatal(err)
	}
	p, err := s.Create(s.ctx, store.NewPost{Author: alice, Content: "hello fediverse"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(s.ctx, store.NewPost{Author: alice, Content: "a comment", Parent: p.ID}); err != nil {
		t.Fatal(err)
	}
	if n := s.rdb.XLen(s.ctx, s.keys.FedOutbox()).Val(); n != 2 || !p.Federated {
		t.Fatalf("posts by a user with remote followers queued %d events, want 2 (federated %v)", n, p.Federated)
	}
}
