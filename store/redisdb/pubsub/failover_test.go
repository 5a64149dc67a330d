package pubsub

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/crypto/bcrypt"

	"microblog/store"
	"microblog/store/redisdb"
	"microblog/store/storetest"
)

// TestClusterSubscriberFailover SIGKILLs, while authors of many partitions
// post, the master that serves one of their partitions on a replicated
// cluster: its replica takes over, the subscriber reports the gap and its
// end, every post made reaches the fan once (live or in the catch-up), and
// afterwards every channel is heard again, the failed master's included.
func TestClusterSubscriberFailover(t *testing.T) {
	c := storetest.StartReplicatedCluster(t)
	st := clusterStore(t, c)
	fan := newLiveFan(t)
	sub := runSubscriber(t, st, fan)
	ctx, cancel := context.WithTimeout(context.Background(), 3*waitLimit)
	defer cancel()
	uid, authors := followedAuthors(t, st, sub, 12)
	p := startPosting(st, authors)
	time.Sleep(200 * time.Millisecond)
	rc := c.Client()
	victim := st.Keys().AuthorChannel(authors[0])
	failed := slotOwner(t, c, int(rc.ClusterKeySlot(ctx, victim).Val()))
	c.Fail(failed)
	took := c.FailedOver(failed)
	fan.waitBack(t, waitLimit)
	time.Sleep(300 * time.Millisecond)
	made := p.end()
	t.Logf("master %d (%s) failed over in %v; %d posts refused meanwhile", failed, victim, took, p.errs)
	checkExactlyOnce(t, st, sub, fan, uid, made, true)

	for _, a := range authors {
		ch := st.Keys().AuthorChannel(a)
		eventually(t, ch+" to be heard", func() bool { return rc.SPublish(ctx, ch, "after "+ch).Val() == 1 })
	}
	if err := sub.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	for _, a := range authors {
		ch := st.Keys().AuthorChannel(a)
		if n := fan.count("after " + ch); n != 1 {
			t.Errorf("%s: %d deliveries after the failover, want 1", ch, n)
		}
	}
}

// TestClusterSubscriberRefusesReplica gives the subscriber a map of the
// slots that names a replica the master of its partition, as a map read
// in the second after a failover can name the old master, started again
// as a replica: the replica would take the SSUBSCRIBE but not hear its
// shard's publishes until its new master knows it. The subscriber must
// not count the partition as subscribed there; once the map is right
// again it subscribes on the master and hears what is published.
func TestClusterSubscriberRefusesReplica(t *testing.T) {
	c := storetest.StartReplicatedCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*waitLimit)
	defer cancel()
	truth := c.Client()
	replica := c.Replicas[0]
	var stale atomic.Bool
	stale.Store(true)
	rdb := redis.NewClusterClient(&redis.ClusterOptions{
		Addrs:                      []string{c.Masters[1].Addr()},
		ClusterStateReloadInterval: time.Second,
		ClusterSlots: func(ctx context.Context) ([]redis.ClusterSlot, error) {
			slots, err := truth.ClusterSlots(ctx).Result()
			if err != nil || !stale.Load() {
				return slots, err
			}
			for i, s := range slots {
				if s.Nodes[0].Addr == c.Masters[0].Addr() {
					// The replica first: go-redis takes the first node of
					// a range for its master.
					slots[i].Nodes = []redis.ClusterNode{{Addr: replica.Addr()}, s.Nodes[0]}
				}
			}
			return slots, nil
		},
	})
	t.Cleanup(func() { rdb.Close() })
	st := redisdb.New(rdb, redisdb.Options{BcryptCost: bcrypt.MinCost})
	fan := newLiveFan(t)
	sub := runSubscriber(t, st, fan)
	topic := store.AuthorTopic(1)
	for slotOwner(t, c, int(truth.ClusterKeySlot(ctx, sub.channel(topic)).Val())) != 0 {
		topic.UID++
	}
	ch := sub.channel(topic)
	// (go-redis drops the host of a map given by ClusterSlots: ":port".)
	if node, err := rdb.MasterForKey(ctx, ch); err != nil || !strings.HasSuffix(replica.Addr(), node.Options().Addr) {
		t.Fatalf("the stale map names %v (%v) for %s, want master 0's replica %s", node.Options().Addr, err, ch, replica.Addr())
	}
	// Refused, as when Redis is unreachable: the topic is kept for later.
	t.Logf("subscribe with the stale map: %v", sub.Subscribe(ctx, topic))
	eventually(t, "the refused connection to be reported as a gap", func() bool { return fan.gaps() > 0 })
	time.Sleep(500 * time.Millisecond) // a few more attempts
	if n := shardSubscribers(t, replica); n != 0 {
		t.Fatalf("the replica %s serves %d sharded subscriptions of the subscriber", replica.Addr(), n)
	}
	select {
	case <-fan.backs:
		t.Fatal("the partition was reported subscribed while the map named a replica")
	default:
	}

	stale.Store(false)
	fan.waitBack(t, waitLimit)
	if err := sub.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := truth.SPublish(ctx, ch, "heard").Result(); err != nil || n != 1 {
		t.Fatalf("SPUBLISH %s: %d receivers, %v; want the subscriber's 1", ch, n, err)
	}
	eventually(t, "the publish to be heard", func() bool { return fan.count("heard") == 1 })
	if n := shardSubscribers(t, c.Masters[0]); n != 1 {
		t.Errorf("the master serves %d sharded subscriptions, want 1", n)
	}
}
