package redisdb

import (
	"context"
	"errors"
	"fmt"
	"sync"

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

// replicaSyncs is, on a cluster, the ReplicaSync key of each master, by
// address: found once from the map of the slots, forgotten when the
// master refuses it (its slots moved).
type replicaSyncs struct {
	mu   sync.Mutex
	keys map[string]string
}

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
	return cc.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
		addr := m.Options().Addr
		key, err := s.replicaSyncOf(ctx, cc, addr)
		if err != nil {
			return s.wrap("wait for replicas", err)
		}
		err = s.waitReplicas(ctx, m, key)
		if err != nil && !errors.Is(err, ErrReplicasBehind) {
			s.syncs.mu.Lock()
			delete(s.syncs.keys, addr) // perhaps no longer its slot
			s.syncs.mu.Unlock()
		}
		return err
	})
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
		return s.wrap("wait for replicas", err)
	}
	if n, _ := acked.Int64(); n < int64(s.opt.ReplicaAcks) {
		s.opt.Metrics.replicasBehind.Inc()
		return fmt.Errorf("redisdb: %d of %d replicas confirmed within %v: %w", n, s.opt.ReplicaAcks, s.opt.ReplicaWait, ErrReplicasBehind)
	}
	return nil
}

// replicaSyncOf is the ReplicaSync key in a slot of the master at addr.
func (s *Store) replicaSyncOf(ctx context.Context, cc *redis.ClusterClient, addr string) (string, error) {
	s.syncs.mu.Lock()
	key, ok := s.syncs.keys[addr]
	s.syncs.mu.Unlock()
	if ok {
		return key, nil
	}
	for n := range 1 << 16 {
		key = s.keys.ReplicaSync(n)
		node, err := cc.MasterForKey(ctx, key)
		if err != nil {
			return "", err
		}
		if node.Options().Addr == addr {
			s.syncs.mu.Lock()
			if s.syncs.keys == nil {
				s.syncs.keys = make(map[string]string)
			}
			s.syncs.keys[addr] = key
			s.syncs.mu.Unlock()
			return key, nil
		}
	}
	return "", fmt.Errorf("no slot of master %s in the map of the slots", addr)
}
