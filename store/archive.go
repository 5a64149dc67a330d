package store

import "context"

// Archived is one message as the SQL archive keeps it: the complete record
// of every post, repost and comment, hot or cold (docs/architecture.md,
// "Hot window and archive"). Mentions, Tags and Media are the JSON the message carries
// in Redis. A deleted message stays as a tombstone: Deleted set, its text
// and pictures cleared, its ids kept so that counts and threads stay right.
type Archived struct {
	ID       int64
	Kind     string // KindPost or KindComment
	Author   int64
	Username string
	Content  string
	Created  int64 // unix ms
	RepostOf int64 // 0: not a repost
	Parent   int64 // 0: not a comment
	Mentions string
	Tags     string
	Media    string
	Deleted  bool
	// Spoiler is the content warning (empty: none); a tombstone keeps none.
	Spoiler string
	// URL is a remote note's original's address (store.Post's url; empty
	// on local messages).
	URL string
	// Edited is when the content last changed (unix ms), 0 if never;
	// History is the JSON list of the earlier versions ([]Version, oldest
	// first), empty until the first edit. A tombstone keeps neither text.
	Edited  int64
	History string
	// Poll is the definition of its poll (store.PollDefinition as JSON),
	// empty without one; its votes stay in Redis (docs/redis-keys.md).
	Poll string
	// CommentsCount, RepostsCount and LikesCount are derived when read: the
	// archived comments on the message and reposts of it that are not
	// deleted, and its archived likes.
	CommentsCount int64
	RepostsCount  int64
	LikesCount    int64
}

// ArchivedLike is one like as the archive keeps it: user UID likes message
// MID since At (unix ms). As a like or an unlike to save, it carries the
// Version of that action: versions order the actions of one user on one
// message (newer is greater), so that SaveLikes can apply them in any order;
// 0 is the version of the likes saved before versions existed.
type ArchivedLike struct {
	MID, UID, At int64
	Version      int64
}

// LikeQuery selects likes from the archive, newest first (by At, then by
// the other id, descending): exactly one of MID (the likes of that message:
// its likers) and UID (that user's likes of messages not deleted), and a
// positive Limit, else Likes fails with ErrInvalid. A page goes on below the
// like (BeforeAt, BeforeID), the last of the page before (BeforeID: the uid
// for MID, the mid for UID); BeforeAt 0 is the first page.
type LikeQuery struct {
	MID, UID           int64
	BeforeAt, BeforeID int64
	Limit              int
}

// ArchiveQuery selects message ids from the archive, newest first. Exactly
// one of Authors (non-nil; empty selects nothing), Parent, Public and Tag
// says which, and Limit must be positive, else IDs fails with ErrInvalid;
// deleted messages are never returned.
type ArchiveQuery struct {
	Authors []int64 // posts and reposts (not comments) by any of these users; may hold thousands
	// CommentsBy: the comments this user wrote.
	CommentsBy int64
	Parent     int64  // comments on this message
	Public     bool   // every post
	Tag        string // the posts carrying this topic (its TagKey)
	Before     int64  // only ids below this; 0: no bound
	After      int64  // only ids above this
	Limit      int
	// Ascending: the Limit OLDEST ids within the bounds, oldest first
	// (ORDER BY id ASC), instead of the newest, newest first.
	Ascending bool
}

// Archive is the SQL archive behind the Redis hot window. Every method is
// safe to call from many goroutines and processes at once, and Save may be
// replayed: what is already there stays as it is. When the database cannot
// be reached, errors wrap ErrUnavailable. store/archive implements it.
type Archive interface {
	// Save writes, in one transaction, new messages (an id already archived,
	// or already a tombstone, is left as it is; a put with Deleted set is
	// stored as a tombstone) and tombstones for deleted ones (a tombstone
	// replaces whatever row there was, or is inserted: its text and JSON
	// cleared, its other fields as given, except those given as zero, which
	// keep what the row had). Ids must be positive.
	Save(ctx context.Context, put, deleted []Archived) error
	// SaveEdits saves edited messages, each a whole row as the message now
	// reads: a row not archived yet is inserted as given; an archived one
	// takes the row's Content, Mentions, Tags, Edited and History when its
	// own Edited is older, unless it is a tombstone. So a replay, or an
	// older edit saved after a newer one, changes nothing.
	SaveEdits(ctx context.Context, edits []Archived) error
	// Edit edits an archived message in place: row m.ID takes m's Content,
	// Mentions, Tags, Edited and History if it is not a tombstone and its
	// Edited is still prev, as its editor read it. False when it is not
	// (deleted, not there, or edited meanwhile).
	Edit(ctx context.Context, m Archived, prev int64) (bool, error)
	// SaveLikes adds likes (one already there is left as it is) and takes
	// unlikes away, in one transaction, each only if its Version is at least
	// that of the newest like or unlike of its pair saved before (an unlike
	// leaves its version behind): so the newest action of each pair wins,
	// whatever the order they are saved in, and a replay changes nothing.
	// Within one call, an unlike of a pair wins over a like of the same
	// version.
	SaveLikes(ctx context.Context, likes, unlikes []ArchivedLike) error
	// LikeNow likes (liked) or unlikes an archived message as its user does
	// it now, and tells whether the like changed. Its action wins over every
	// action of the pair saved before it: it takes l.Version, or one above
	// the pair's newest version when that is not older (another process's
	// clock ahead), so that the entry queued for it with l.Version, saved
	// later, changes nothing.
	LikeNow(ctx context.Context, l ArchivedLike, liked bool) (bool, error)
	// Liked returns which of the messages ids uid likes.
	Liked(ctx context.Context, uid int64, ids []int64) ([]int64, error)
	// Likers returns the uids who like each of the messages mids (a
	// message no one likes is not in the map): what the archiver checks the
	// archive holds before a message's likes leave Redis.
	Likers(ctx context.Context, mids []int64) (map[int64][]int64, error)
	// Likes returns the likes q selects (LikeQuery).
	Likes(ctx context.Context, q LikeQuery) ([]ArchivedLike, error)
	// Messages returns the rows of these ids that exist, tombstones included
	// (Deleted set, Content, Mentions, Tags, Media and History empty).
	Posts(ctx context.Context, ids []int64) (map[int64]Archived, error)
	// Has returns which of ids have a row (a message or a tombstone), in the
	// order of ids, each once.
	Has(ctx context.Context, ids []int64) ([]int64, error)
	// IDs returns the ids the query selects, newest first.
	IDs(ctx context.Context, q ArchiveQuery) ([]int64, error)
	// DMArchive keeps the private messages.
	DMArchive
	// Search finds the posts (not comments, not deleted) whose content
	// holds every word of q, newest first (SearchResult).
	Search(ctx context.Context, q SearchQuery) (SearchResult, error)
	// Ping tells whether the archive answers.
	Ping(ctx context.Context) error
	// Close releases the database.
	Close() error
}
