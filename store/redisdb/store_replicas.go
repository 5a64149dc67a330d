package redisdb

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
)

// Redis replicates asynchronously: a master answers a write before its
// replicas have it, and a master that dies in between takes the write with
// it, though it was acknowledged (its replica, now the master, never had
// it). With Options.ReplicaAcks set, the server acknowledges a write only
// once Replicated says every master's replicas have what it wrote.
//
// WAIT waits for the replicas to reach the replication offset of its own
// connection's last write, and go-redis sends a command on any connection
// of its pool; so Replicated writes on each master, in one of its slots, a
// counter of its own (Keys.ReplicaSync) and sends WAIT right after it, in
// one pipeline, which goes on one connection. The master's replication
// stream is one, in order: once the replicas have the counter, they have
// every write the master took before it, the request's among them.

// ErrReplicasBehind answers a write that its master's replicas did not
// confirm in time (a replica down or far behind): 503, and its retry with
// the same Idempotency-Key is answered once they do.
var ErrReplicasBehind = store.NewError(store.ErrUnavailable, store.CodeUnavailable,
	"the database's replicas did not confirm the write in time; try again")

// replicaSyncs is, on a cluster, a ReplicaSync key in a slot of each
// master: learnt from go-redis's list of the masters (ForEachMaster),
// which reads the map of the slots afresh from some node at every call. A
// request must not do that (a round trip more per write, and a node that
// stalls, the very case Replicated is for, holds the read for the client's
// read timeout), so the keys are learnt once and again every
// replicaSyncRelearn, in the background; between times each key's master
// is the one go-redis's cached map names, which follows a failover.
type replicaSyncs struct {
	mu       sync.Mutex
	keys     []string
	learnt   time.Time
	learning bool
}

// replicaSyncRelearn is how often the ReplicaSync keys are learnt again,
// for a master added to the cluster.
const replicaSyncRelearn = 10 * time.Second

// Replicated returns once every write the masters took before it is on
// Options.ReplicaAcks of their replicas, or ErrReplicasBehind after
// Options.ReplicaWait. It returns at once when ReplicaAcks is 0. On a
// cluster it asks every master, side by side, in one round trip each.
func (s *Store) Replicated(ctx context.Context) error {
	if s.opt.ReplicaAcks <= 0 {
		return nil
	}
	cc, ok := s.rdb.(*redis.ClusterClient)
	if !ok {
		return s.waitReplicas(ctx, s.rdb, s.keys.ReplicaSync(0))
	}
	keys, err := s.replicaSyncKeys(ctx, cc)
	if err != nil {
		return s.Wrap("wait for replicas", err)
	}
	// Each master once: a failover or a move of slots may have put two
	// keys on one.
	masters := make(map[string]*redis.Client, len(keys))
	key := make(map[string]string, len(keys))
	for _, k := range keys {
		m, err := cc.MasterForKey(ctx, k)
		if err != nil {
			return s.Wrap("wait for replicas", err)
		}
		addr := m.Options().Addr
		masters[addr], key[addr] = m, k
	}
	errs := make(chan error, len(masters))
	for addr, m := range masters {
		go func() { errs <- s.waitReplicas(ctx, m, key[addr]) }()
	}
	var first error
	for range masters {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first != nil && !errors.Is(first, ErrReplicasBehind) {
		s.relearnReplicaSyncs() // perhaps a master left or came
	}
	return first
}

// replicaSyncKeys returns a ReplicaSync key of each master: learnt now the
// first time, and learnt again in the background once they are
// replicaSyncRelearn old.
func (s *Store) replicaSyncKeys(ctx context.Context, cc *redis.ClusterClient) ([]string, error) {
	s.syncs.mu.Lock()
	keys, stale := s.syncs.keys, time.Since(s.syncs.learnt) > replicaSyncRelearn && !s.syncs.learning
	if stale && keys != nil {
		s.syncs.learning = true
	}
	s.syncs.mu.Unlock()
	if keys == nil {
		return s.learnReplicaSyncs(ctx, cc)
	}
	if stale {
		go func() {
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
			defer cancel()
			if _, err := s.learnReplicaSyncs(ctx, cc); err != nil {
				s.opt.Logger.Warn("wait for replicas: learn the masters", "err", err)
			}
		}()
	}
	return keys, nil
}

// relearnReplicaSyncs has the next Replicated learn the keys again first.
func (s *Store) relearnReplicaSyncs() {
	s.syncs.mu.Lock()
	s.syncs.keys = nil
	s.syncs.mu.Unlock()
}

// learnReplicaSyncs finds a ReplicaSync key in a slot of each master.
func (s *Store) learnReplicaSyncs(ctx context.Context, cc *redis.ClusterClient) ([]string, error) {
	defer func() {
		s.syncs.mu.Lock()
		s.syncs.learning = false
		s.syncs.mu.Unlock()
	}()
	var mu sync.Mutex
	var keys []string
	err := cc.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
		key, err := s.replicaSyncOf(ctx, cc, m.Options().Addr)
		mu.Lock()
		keys = append(keys, key)
		mu.Unlock()
		return err
	})
	if err != nil {
		return nil, err
	}
	s.syncs.mu.Lock()
	s.syncs.keys, s.syncs.learnt = keys, time.Now()
	s.syncs.mu.Unlock()
	return keys, nil
}

// waitReplicas increments key on c and waits for ReplicaAcks replicas to
// have it, on one connection.
func (s *Store) waitReplicas(ctx context.Context, c redis.Cmdable, key string) error {
	var acked *redis.Cmd
	_, err := c.Pipelined(ctx, func(pl redis.Pipeliner) error {
		pl.Incr(ctx, key)
		acked = pl.Do(ctx, "WAIT", s.opt.ReplicaAcks, s.opt.ReplicaWait.Milliseconds())
		return nil
	})
	if err != nil {
		return s.Wrap("wait for replicas", err)
	}
	if n, _ := acked.Int64(); n < int64(s.opt.ReplicaAcks) {
		s.opt.Metrics.replicasBehind.Inc()
		return fmt.Errorf("redisdb: %d of %d replicas confirmed within %v: %w", n, s.opt.ReplicaAcks, s.opt.ReplicaWait, ErrReplicasBehind)
	}
	return nil
}

// replicaSyncOf is a ReplicaSync key in a slot of the master at addr, by
// go-redis's map of the slots.
func (s *Store) replicaSyncOf(ctx context.Context, cc *redis.ClusterClient, addr string) (string, error) {
	for n := range 1 << 16 {
		key := s.keys.ReplicaSync(n)
		node, err := cc.MasterForKey(ctx, key)
		if err != nil {
			return "", err
		}
		if node.Options().Addr == addr {
			return key, nil
		}
	}
	return "", fmt.Errorf("no slot of master %s in the map of the slots", addr)
}
