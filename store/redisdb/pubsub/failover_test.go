package pubsub

import (
	"context"
	"testing"
	"time"

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
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	uid, authors := followedAuthors(t, st, sub, 12)
	p := startPosting(st, authors)
	time.Sleep(200 * time.Millisecond)
	rc := c.Client()
	victim := st.Keys().AuthorChannel(authors[0])
	failed := slotOwner(t, c, int(rc.ClusterKeySlot(ctx, victim).Val()))
	c.Fail(failed)
	took := c.FailedOver(failed)
	fan.waitBack(t, 20*time.Second)
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
