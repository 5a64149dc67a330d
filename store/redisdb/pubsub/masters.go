package pubsub

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// errNotMaster refuses a subscriber connection to a node that is not a
// master.
var errNotMaster = errors.New("the node is not a master (the map of the slots that named it is out of date)")

// mastersOnly is a client of the cluster that cc reaches, for the
// subscriber's own connections: like cc, but it refuses a connection to a
// node that does not say it is a master (ROLE).
//
// A map of the slots read in the second after a failover can still name
// the old master, which its operator (or a supervisor) may have started
// again: it is a replica by then, and a replica takes a SSUBSCRIBE for its
// shard's channels. But it hears its shard's SPUBLISHes only once the new
// master knows it as its replica, so a partition subscribed there counts
// as restored, its catch-up runs, and what is published next is lost (the
// chaos runs lost live posts that way). Refused, the connection breaks
// like any other: the reader reloads the map and tries again.
func mastersOnly(cc *redis.ClusterClient) *redis.ClusterClient {
	opt := *cc.Options()
	onConnect := opt.OnConnect
	opt.OnConnect = func(ctx context.Context, cn *redis.Conn) error {
		if onConnect != nil {
			if err := onConnect(ctx, cn); err != nil {
				return err
			}
		}
		role, err := cn.Do(ctx, "ROLE").Slice()
		if err != nil {
			return fmt.Errorf("ROLE: %w", err)
		}
		if len(role) == 0 || role[0] != "master" {
			return errNotMaster
		}
		return nil
	}
	return redis.NewClusterClient(&opt)
}
