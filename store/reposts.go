package store

import "context"

// Reposts tell who reposted which post: Mastodon's reblogged flag and its
// reblogged_by list, and the repost to take back on an unreblog.
type Reposts interface {
	// RepostsBy is, for each of mids, the id of uid's repost of it (0 for
	// none), in the order of mids.
	RepostsBy(ctx context.Context, uid int64, mids []int64) ([]int64, error)
	// Reposters is a page of the users who reposted mid, newest repost
	// first, when q.Viewer may see mid.
	Reposters(ctx context.Context, mid int64, q PageQuery) (Page[User], error)
	// Unrepost deletes uid's repost of mid (of its original, when mid is a
	// repost), if there is one; ErrPostNotFound when uid may not see mid.
	Unrepost(ctx context.Context, uid, mid int64) error
}
