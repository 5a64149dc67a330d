package pubsub

import (
	"context"
	"fmt"
	"testing"
	"time"

	"microblog/store"
	"microblog/store/storetest"
)

// TestClusterSubscriberFailover SIGKILLs the master that serves a
// partition's slot on a replicated cluster: its replica takes over, and the
// subscriber, once it reports being back, hears every channel again,
// those of the failed master's partitions included, exactly once.
func TestClusterSubscriberFailover(t *testing.T) {
	c := storetest.StartReplicatedCluster(t)
	st := clusterStore(t, c)
	fan := newLiveFan(t)
	sub := runSubscriber(t, st, fan)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, authors := followedAuthors(t, st, sub, 12)
	var topics []store.Topic
	for _, uid := range authors {
		topics = append(topics, store.AuthorTopic(uid))
	}
	p := startPosting(st, authors)
	time.Sleep(200 * time.Millisecond)
	rc := c.Client()
	victim := sub.channel(topics[2])
	failed := slotOwner(t, c, int(rc.ClusterKeySlot(ctx, victim).Val()))
	c.Fail(failed)
	took := c.FailedOver(failed)
	fan.waitBack(t, 20*time.Second)
	time.Sleep(300 * time.Millisecond)
	p.end()

	for round := range 3 {
		for _, tp := range topics {
			ch := sub.channel(tp)
			msg := fmt.Sprintf("round %d on %s", round, ch)
			eventually(t, msg+" to be heard", func() bool { return rc.SPublish(ctx, ch, msg).Val() == 1 })
		}
		if err := sub.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		for _, tp := range topics {
			msg := fmt.Sprintf("round %d on %s", round, sub.channel(tp))
			eventually(t, msg+" to be delivered", func() bool { return fan.count(msg) == 1 })
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("master %d (%s) failed over in %v; %d gap(s) reported", failed, victim, took, fan.gaps())
}
