package redisdb

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/crypto/bcrypt"

	"microblog/store"
	"microblog/store/storetest"
)

// TestReplicatedWaitsForReplicas: with ReplicaAcks set, Replicated returns
// once a replica has what the master took, and answers unavailable when
// the replica cannot confirm it (stalled): a write then is not
// acknowledged, and its retry is, once the replica is back. On one Redis
// with a replica of its own; on a cluster of 3 masters with one replica
// each, every master asked.
func TestReplicatedWaitsForReplicas(t *testing.T) {
	parallel(t)
	var rdb redis.UniversalClient
	var replica *storetest.Redis
	if storetest.ClusterMode() {
		c := storetest.StartReplicatedCluster(t)
		rdb, replica = c.Client(), c.Replicas[1]
	} else {
		master := storetest.Start(t)
		replica = storetest.StartReplica(t, master)
		rdb = master.Client()
	}
	s := testStore{Store: New(rdb, Options{BcryptCost: bcrypt.MinCost, ReplicaAcks: 1, ReplicaWait: time.Second}),
		t: t, ctx: context.Background()}
	alice := s.user("alice")
	s.post(store.NewPost{Author: alice, Content: "replicated"})
	// A replica just started may still be taking its master's data, and a
	// busy machine may hold a confirmation past the wait: in sync, a retry
	// is soon confirmed.
	for deadline := time.Now().Add(storetest.HangWait); ; {
		err := s.Replicated(s.ctx)
		if err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("with the replicas in sync: %v", err)
		}
	}

	replica.Pause()
	resumed := false
	defer func() {
		if !resumed {
			replica.Resume()
		}
	}()
	s.post(store.NewPost{Author: alice, Content: "on the master alone"})
	start := time.Now()
	err := s.Replicated(s.ctx)
	if !errors.Is(err, store.ErrUnavailable) || !errors.Is(err, ErrReplicasBehind) {
		t.Fatalf("with a replica stalled: %v, want ErrReplicasBehind (unavailable)", err)
	}
	if took := time.Since(start); took > 10*time.Second { // bounded by the wait, not a speed check
		t.Fatalf("Replicated took %v with a wait of 1s", took)
	}
	t.Logf("with a replica stalled: %v", err)

	replica.Resume()
	resumed = true
	deadline := time.Now().Add(storetest.HangWait)
	for err = s.Replicated(s.ctx); err != nil; err = s.Replicated(s.ctx) {
		if time.Now().After(deadline) {
			t.Fatalf("the replica is back, and Replicated still answers %v", err)
		}
	}

	// Off (the default), it asks nothing.
	off := New(rdb, Options{BcryptCost: bcrypt.MinCost})
	replica.Pause()
	err = off.Replicated(s.ctx)
	replica.Resume()
	if err != nil {
		t.Fatalf("with ReplicaAcks 0: %v", err)
	}
}
