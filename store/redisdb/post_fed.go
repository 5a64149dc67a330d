package redisdb

import (
	"context"
	"strings"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// queueFed queues, in the pipeline that indexes it, the post of d on the
// federation's outbox (fed:outbox) when it may go out: its author has had
// remote followers (fed_fans, read by the claim's HMGET), or it mentions,
// answers or reposts a remote account. A post that does neither adds no
// command (issue 39).
func (s *Store) queueFed(ctx context.Context, pl redis.Pipeliner, d *draft) {
	if !s.opt.Federation || !(d.post.Federated || d.reachesRemote()) {
		return
	}
	pl.XAdd(ctx, &redis.XAddArgs{Stream: s.keys.FedOutbox(),
		Values: schema.FedEventEntry(store.FedEvent{Kind: store.FedCreate, Actor: d.np.Author, Post: d.post.ID, At: int64(d.post.CreatedAt)})})
}

// reachesRemote tells whether the post of d mentions, answers or reposts
// a remote account (whose name is name@domain).
func (d *draft) reachesRemote() bool {
	for _, m := range d.mentions {
		if isRemoteName(m.Username) {
			return true
		}
	}
	return d.parent != nil && isRemoteName(d.parent.Author.Username) ||
		d.orig != nil && isRemoteName(d.orig.Author.Username)
}

// isRemoteName tells a remote account's name (name@domain): a local name
// never holds '@'.
func isRemoteName(name string) bool { return strings.Contains(name, "@") }
