package schema

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"microblog/store"
)

// Keys builds every Redis key and channel name the store uses. All of them
// live here, one builder per family, so that the schema can be read in one
// place and a test can pin the exact strings. The optional prefix is put in
// front of every key and channel.
//
// On a Redis Cluster, the id in the keys of one user or one message is
// wrapped in a hash tag (B:{12}, D:{12}:publicTime, F:{7}:messageID), so
// that all the keys of one message, or of one user, are on one slot: a
// transaction or script that touches several of them never fails with
// CROSSSLOT. On a single Redis the names are exactly the contract's.
type Keys struct {
	prefix  string
	cluster bool
}

// NewKeys returns the builders of a store whose keys start with prefix, on a
// Redis Cluster when cluster is true. Tests name keys through it instead of
// spelling them again.
func NewKeys(prefix string, cluster bool) Keys { return Keys{prefix: prefix, cluster: cluster} }

// ID is n as it appears in keys and fields.
func ID(n int64) string { return strconv.FormatInt(n, 10) }

// tag is how the id of a user or message appears in its keys: wrapped in a
// hash tag on a cluster, bare on a single Redis.
func (k Keys) tag(n int64) string {
	if k.cluster {
		return "{" + ID(n) + "}"
	}
	return ID(n)
}

// LastUserID is the STRING global:userid, INCRed for each new user.
func (k Keys) LastUserID() string { return k.prefix + "global:userid" }

// LastPostID is the STRING global:postid, INCRed for each new message.
func (k Keys) LastPostID() string { return k.prefix + "global:postid" }

// User is the HASH user:userid:<uid> with username, password, created, bio.
func (k Keys) User(uid int64) string { return k.prefix + "user:userid:" + k.tag(uid) }

// UsernameIndex is the STRING user:username:<lower-case name>:uid.
func (k Keys) UsernameIndex(lowerName string) string {
	return k.prefix + "user:username:" + lowerName + ":uid"
}

// NameOfUsernameIndex is the lower-case name a usernameIndex key names.
func (k Keys) NameOfUsernameIndex(key string) string {
	return strings.TrimSuffix(strings.TrimPrefix(key, k.prefix+"user:username:"), ":uid")
}

// UsernameSkeleton is the STRING user:skeleton:<skeleton>:uid: the uid of
// the user whose name has that UTS #39 confusable skeleton
// (store.UsernameSkeleton), so that no two names that look alike can exist.
// Written with SET NX like usernameIndex.
func (k Keys) UsernameSkeleton(skeleton string) string {
	return k.prefix + "user:skeleton:" + skeleton + ":uid"
}

// LoginFailures is the HASH login:fail:<name index form> of the failed
// logins to one account from every address: n (failures in a row) and
// until (unix ms before which unknown addresses must wait), with a TTL. It
// is keyed by name, not uid, so that a name nobody has backs off alike.
func (k Keys) LoginFailures(lowerName string) string { return k.prefix + "login:fail:" + lowerName }

// LoginClientFailures is the HASH login:fail:<name index form>:<address>,
// LoginFailures for one client address.
func (k Keys) LoginClientFailures(lowerName, client string) string {
	return k.prefix + "login:fail:" + lowerName + ":" + client
}

// KnownClients is the ZSET login:known:<uid> of the addresses the user
// logged in from, score = when (ms): these are not held up by a back-off
// that failures from other addresses caused.
func (k Keys) KnownClients(uid int64) string { return k.prefix + "login:known:" + k.tag(uid) }

// Session is the STRING auth:<sha256-hex of token> holding the uid, with a TTL.
func (k Keys) Session(tokenHash string) string { return k.prefix + "auth:" + tokenHash }

// OIDCState is the STRING oidc:state:<sha256-hex of state> holding, with a
// TTL, what an OpenID Connect sign-in started with (opaque to the store);
// it is taken, and so deleted, by the callback that finishes it.
func (k Keys) OIDCState(stateHash string) string { return k.prefix + "oidc:state:" + stateHash }

// UserSessions is the SET user:userid:<uid>:auth of the user's live token hashes.
func (k Keys) UserSessions(uid int64) string { return k.prefix + "user:userid:" + k.tag(uid) + ":auth" }

// Identity is the STRING ext:<provider>:<subject>:uid holding the uid of
// the user linked to that account of another sign-in service (an OpenID
// provider's sub, a directory entry). Written with SET NX: the first
// writer owns the identity. Provider names hold no colon, so the key reads
// back unambiguously whatever the subject holds.
func (k Keys) Identity(provider, subject string) string {
	return k.prefix + "ext:" + provider + ":" + subject + ":uid"
}

// UserIdentities is the HASH user:userid:<uid>:ext of the user's linked
// identities, provider → subject, so that they can be listed and given
// back when the account is deleted.
func (k Keys) UserIdentities(uid int64) string {
	return k.prefix + "user:userid:" + k.tag(uid) + ":ext"
}

// UserLikes is the ZSET user:userid:<uid>:likes of the messages the user
// likes, score = when (ms): what a page asks, in one command, to say which
// of its posts its reader likes.
func (k Keys) UserLikes(uid int64) string { return k.prefix + "user:userid:" + k.tag(uid) + ":likes" }

// UserReposts is the ZSET user:userid:<uid>:reposts of the posts the
// user reposted, score = the mid of its repost: what a page asks, in one
// command, to say which of its posts its reader reposted.
func (k Keys) UserReposts(uid int64) string {
	return k.prefix + "user:userid:" + k.tag(uid) + ":reposts"
}

// Pinned is the ZSET user:userid:<uid>:pinned of the posts the user pinned
// to the top of its profile, score = when (ms); at most store.MaxPins.
func (k Keys) Pinned(uid int64) string { return k.prefix + "user:userid:" + k.tag(uid) + ":pinned" }

// Bookmarks is the ZSET user:userid:<uid>:bookmarks of the messages the
// user saved to read later, score = when (ms): private to the user, and
// what a page asks, in one command, to say which of its posts its reader
// saved.
func (k Keys) Bookmarks(uid int64) string {
	return k.prefix + "user:userid:" + k.tag(uid) + ":bookmarks"
}

// Fans is the ZSET A:<uid>:fansID of the user's followers, score = follow time (ms).
func (k Keys) Fans(uid int64) string { return k.prefix + "A:" + k.tag(uid) + ":fansID" }

// Stars is the ZSET A:<uid>:loverID of the users the user follows, score = follow time (ms).
func (k Keys) Stars(uid int64) string { return k.prefix + "A:" + k.tag(uid) + ":loverID" }

// Message is the HASH B:<mid> holding one message.
func (k Keys) Post(mid int64) string { return k.prefix + "B:" + k.tag(mid) }

// History is the LIST history:<mid> of a message's earlier versions,
// oldest first, each "<unix ms>:<content>" (when that version was written,
// then its text); at most store.MaxEdits. It shares the message's hash tag,
// so that an edit changes the message and its history in one script.
func (k Keys) History(mid int64) string { return k.prefix + "history:" + k.tag(mid) }

// Comments is the ZSET C:<mid>:commentID of the comments on a message, score = mid.
func (k Keys) Comments(mid int64) string { return k.prefix + "C:" + k.tag(mid) + ":commentID" }

// PublicTime is the STRING D:<mid>:publicTime, when the message reached the server (ms).
func (k Keys) PublicTime(mid int64) string { return k.prefix + "D:" + k.tag(mid) + ":publicTime" }

// Author is the STRING E:<mid>:personID, the uid of the message's author.
func (k Keys) Author(mid int64) string { return k.prefix + "E:" + k.tag(mid) + ":personID" }

// UserPosts is the ZSET F:<uid>:messageID of the posts a user wrote, score = mid.
func (k Keys) UserPosts(uid int64) string { return k.prefix + "F:" + k.tag(uid) + ":messageID" }

// UserComments is the ZSET R:<uid>:commentID of the comments a user
// wrote, score = mid: the newest store.HotWindow-sized part of them when
// there is an archive (the older ones are read there), all of them when
// there is none. Mastodon's account statuses list them with the posts.
func (k Keys) UserComments(uid int64) string { return k.prefix + "R:" + k.tag(uid) + ":commentID" }

// Home is the ZSET G:<uid>:messageID of the posts delivered to a user's home timeline, score = mid.
func (k Keys) Home(uid int64) string { return k.prefix + "G:" + k.tag(uid) + ":messageID" }

// PublicTimeline is the ZSET global:timeline of everyone's newest posts, score = mid.
func (k Keys) PublicTimeline() string { return k.prefix + "global:timeline" }

// Idempotency is the STRING idem:<uid>:<sha256-hex of key> holding the mid a
// keyed request created (or "0" while it is being created), with a TTL.
func (k Keys) Idempotency(uid int64, keyHash string) string {
	return k.prefix + "idem:" + k.tag(uid) + ":" + keyHash
}

// Rate is the STRING rate:<bucket>:<subject>:<window> counting requests in one
// fixed window, with a TTL of the window.
func (k Keys) Rate(bucket, subject string, window int64) string {
	return k.prefix + "rate:" + bucket + ":" + subject + ":" + ID(window)
}

// Likes is the ZSET likes:<mid> of the users who like a message, score =
// when (ms). Its size is the message's likes_count.
func (k Keys) Likes(mid int64) string { return k.prefix + "likes:" + k.tag(mid) }

// Reposts is the ZSET reposts:<mid> of the users who reposted a post, score =
// the mid of their repost (one each). Its size is the post's reposts_count.
func (k Keys) Reposts(mid int64) string { return k.prefix + "reposts:" + k.tag(mid) }

// TagPosts is the ZSET T:<tag key>:messageID of the posts carrying a topic,
// score = mid (the tag key is store.TagKey of the topic).
func (k Keys) TagPosts(tagKey string) string { return k.prefix + "T:" + tagKey + ":messageID" }

// FollowedTags is the ZSET user:userid:<uid>:tags of the topics (tag keys)
// the user follows, score = when (ms), at most store.MaxFollowedTags: its
// home timeline merges their TagPosts sets.
func (k Keys) FollowedTags(uid int64) string { return k.prefix + "user:userid:" + k.tag(uid) + ":tags" }

// TagCounts is the ZSET global:tags of topics (tag keys) by how many posts
// carry them.
func (k Keys) TagCounts() string { return k.prefix + "global:tags" }

// TagNames is the ZSET global:tagnames of tag keys, all scored 0, for
// prefix search by lexical range.
func (k Keys) TagNames() string { return k.prefix + "global:tagnames" }

// Trend is the ZSET trend:<tag key>:<bucket> of the users whose posts
// carried a topic in a time bucket (bucket: its first second, unix), score =
// how many of their posts did (redisdb/social/trends.go). On a cluster the tag key is a
// hash tag, so that the buckets of one topic, which a read unites, share a
// slot.
func (k Keys) Trend(tagKey string, bucket int64) string {
	if k.cluster {
		return k.prefix + "trend:{" + tagKey + "}:" + ID(bucket)
	}
	return k.prefix + "trend:" + tagKey + ":" + ID(bucket)
}

// TrendTags is the ZSET trends:<bucket> of the topics posts carried in a
// time bucket, score = how many posts. On a cluster, trends:{all}:<bucket>:
// one slot for all buckets, which a read unites.
func (k Keys) TrendTags(bucket int64) string {
	if k.cluster {
		return k.prefix + "trends:{all}:" + ID(bucket)
	}
	return k.prefix + "trends:" + ID(bucket)
}

// TrendsCache is the STRING trends:cache, the trends as last worked out
// (JSON), for a few seconds.
func (k Keys) TrendsCache() string { return k.prefix + "trends:cache" }

// Usernames is the ZSET global:usernames of "<lower-case name>:<uid>", all
// scored 0, for prefix search by lexical range.
func (k Keys) Usernames() string { return k.prefix + "global:usernames" }

// DisplayNames is the ZSET global:displaynames of "<lower-case display
// name>:<uid>", all scored 0: user search by the start of a display name.
func (k Keys) DisplayNames() string { return k.prefix + "global:displaynames" }

// Popular is the ZSET global:popular of users by follower count, for
// suggestions.
func (k Keys) Popular() string { return k.prefix + "global:popular" }

// Notifications is the ZSET N:<uid>:notificationID of a user's
// notification ids, score = id; the newest maxNotifications are kept.
func (k Keys) Notifications(uid int64) string {
	return k.prefix + "N:" + k.tag(uid) + ":notificationID"
}

// Notes is the HASH N:<uid>:notes of a user's notifications: id → JSON of
// {kind, actor, post, at}, and "k:<kind>:<actor>:<post>" → id, to undo one.
func (k Keys) Notes(uid int64) string { return k.prefix + "N:" + k.tag(uid) + ":notes" }

// Markers is the HASH user:userid:<uid>:markers of where a user stopped
// reading its timelines in apps: "<timeline>:id" → the last id read,
// "<timeline>:v" → its version, "<timeline>:t" → when it was set (ms).
func (k Keys) Markers(uid int64) string { return k.prefix + "user:userid:" + k.tag(uid) + ":markers" }

// FollowNoted is the STRING N:<star>:followed:<fan>, with a TTL, set while
// a follow of star by fan has been announced lately: following again soon
// after an unfollow announces nothing (no follow event, no notification).
func (k Keys) FollowNoted(star, fan int64) string {
	return k.prefix + "N:" + k.tag(star) + ":followed:" + ID(fan)
}

// LastNotificationID is the STRING global:notificationid, INCRed for each
// notification.
func (k Keys) LastNotificationID() string { return k.prefix + "global:notificationid" }

// Schema is the STRING global:schema: the version of the data model the
// last migration left (see Migrate).
func (k Keys) Schema() string { return k.prefix + "global:schema" }

// Media is the HASH M:<id> of one uploaded image: owner, name, thumb,
// width, height, alt, created (ms) and post (the mid it is attached to).
func (k Keys) Media(mediaID int64) string { return k.prefix + "M:" + ID(mediaID) }

// LastMediaID is the STRING global:mediaid, INCRed for each upload.
func (k Keys) LastMediaID() string { return k.prefix + "global:mediaid" }

// UnattachedMedia is the ZSET media:unattached of uploads no post has taken
// yet, score = when uploaded (ms): those older than a day are removed.
func (k Keys) UnattachedMedia() string { return k.prefix + "media:unattached" }

// FanOutQueue is the STREAM fanout:queue of fan-out jobs (push a post into
// its fans' home timelines, take a deleted one out, backfill), read by the
// consumer group fanOutGroup of every server process.
func (k Keys) FanOutQueue() string { return k.prefix + "fanout:queue" }

// FanOutPending is the HASH fanout:pending of the posts whose push job is
// not done yet (mid → author), whole, as schema 5 kept it. On a single Redis
// it is FanOutPendingShard(0); on a cluster the marks are in the shards, and
// Migrate moves there what an older version left in this key.
func (k Keys) FanOutPending() string { return k.prefix + "fanout:pending" }

// ArchiveQueue is the STREAM archive:queue of messages (and deletes) on
// their way to the SQL archive, read in batches by the consumer group
// archiveGroup of every server process.
func (k Keys) ArchiveQueue() string { return k.prefix + "archive:queue" }

// Celebrities is the SET global:celebrities of the authors whose posts home
// timelines pull from their F set instead of having them pushed: the whole
// list (home reads look up CelebritiesShard, the same key on a single Redis).
func (k Keys) Celebrities() string { return k.prefix + "global:celebrities" }

// pullShards is how many shards the readers' record of pulled authors
// (CelebritiesShard, FanOutPendingShard, FanOutPushingShard) is split into
// on a Redis Cluster, each one hash tag {f<n>}, so that no master carries
// every home read. An author's shard is its uid % pullShards. The number is
// fixed: every process must find an author alike (keys_test pins it).
const pullShards = 16

// PullShards is how many shards the readers' record of pulled authors has:
// pullShards on a cluster, one on a single Redis.
func (k Keys) PullShards() int {
	if k.cluster {
		return pullShards
	}
	return 1
}

// PullShard is the shard of that record holding author.
func (k Keys) PullShard(author int64) int { return int(uint64(author) % uint64(k.PullShards())) }

// pullTag is the hash tag of shard n of that record on a cluster, nothing on
// a single Redis (whose one shard has the plain names).
func (k Keys) pullTag(n int) string {
	if !k.cluster {
		return ""
	}
	return "{f" + strconv.Itoa(n) + "}"
}

// CelebritiesShard is the SET global:celebrities of shard n: on a single
// Redis, global:celebrities itself; on a cluster {f<n>}global:celebrities,
// the celebrities of that shard, which home reads look up.
func (k Keys) CelebritiesShard(n int) string { return k.prefix + k.pullTag(n) + "global:celebrities" }

// FanOutPendingShard is the HASH fanout:pending of shard n (mid → author of
// each post whose push job is not done yet): on a single Redis
// fanout:pending itself, on a cluster {f<n>}fanout:pending. It keeps
// FanOutPushingShard's counts exact when a job is marked or done twice.
func (k Keys) FanOutPendingShard(n int) string { return k.prefix + k.pullTag(n) + "fanout:pending" }

// FanOutPushingShard is the ZSET fanout:pushing ({f<n>}fanout:pushing on a
// cluster) of the authors of shard n with pushes in flight, score = how
// many: home reads pull these authors' F sets meanwhile. An author is in it
// exactly while it has marks in FanOutPendingShard.
func (k Keys) FanOutPushingShard(n int) string { return k.prefix + k.pullTag(n) + "fanout:pushing" }

// FanOutSettledShard is the ZSET {f<n>}fanout:settled of a cluster: the
// authors of shard n that stopped being pulled in the last settledKeep()
// (their last push in flight done, or their drain ended), score = when, in
// ms of the shard's master's clock. A home read that read G before such a
// change and looks the stars up after it pulls them still (redisdb/timeline_pulls.go).
func (k Keys) FanOutSettledShard(n int) string { return k.prefix + k.pullTag(n) + "fanout:settled" }

// LastSeen is the ZSET global:lastseen of users by when they last read their
// Home timeline, connected or posted (unix ms): the fan-out skips the fans
// away longer than the inactivity limit.
func (k Keys) LastSeen() string { return k.prefix + "global:lastseen" }

// FanOutLock is the STRING lock:fanout:<uid> held, with a TTL, while the
// author's fan-out mode changes.
func (k Keys) FanOutLock(uid int64) string { return k.prefix + "lock:fanout:" + k.tag(uid) }

// RepairLock is the STRING lock:repair holding, with a TTL, the token of the
// process running the checker of half-written messages.
func (k Keys) RepairLock() string { return k.prefix + "lock:repair" }

// RepairCheckpoint is the STRING repair:checkpoint, the last message id the
// checker has settled.
func (k Keys) RepairCheckpoint() string { return k.prefix + "repair:checkpoint" }

// RepairPostsCheckpoint is the STRING repair:messages:checkpoint, the
// last private message id the checker has settled.
func (k Keys) RepairPostsCheckpoint() string { return k.prefix + "repair:messages:checkpoint" }

// ReplicaSync is the STRING replica:sync:{<n>}, a counter that Replicated
// increments on one master, in one of its slots, and waits for its
// replicas to have: n is any number whose slot that master serves (only
// the hash tag matters on a cluster; on one Redis n is 0).
func (k Keys) ReplicaSync(n int) string {
	return k.prefix + "replica:sync:{" + strconv.Itoa(n) + "}"
}

// WriteProbe is the STRING probe:writable, never written: Writable sends
// SET XX of it to learn whether Redis takes writes.
func (k Keys) WriteProbe() string { return k.prefix + "probe:writable" }

// AuthorChannel is the pub/sub channel author:<uid> carrying the author's
// posts, reposts and deletes. On a cluster it is the shard channel
// {p<n>}author:<uid>, n the user's live partition (partition.go).
func (k Keys) AuthorChannel(uid int64) string {
	return k.prefix + k.channelTag(uid) + "author:" + ID(uid)
}

// NotifyChannel is the pub/sub channel notify:<uid> carrying events meant for
// one user alone (comments on their messages, new fans) and the store's
// internal events for that user's connections. On a cluster it is the shard
// channel {p<n>}notify:<uid>, in the same partition as the user's
// AuthorChannel.
func (k Keys) NotifyChannel(uid int64) string {
	return k.prefix + k.channelTag(uid) + "notify:" + ID(uid)
}

// PublicChannel is the pub/sub channel public carrying every public post,
// its edits and its deletes (store.TopicPublic). On a cluster it is the
// shard channel {p0}public, in partition 0 like the topic's UID.
func (k Keys) PublicChannel() string { return k.prefix + k.channelTag(0) + "public" }

// TagChannel is the pub/sub channel tag:<tag key> carrying the new public
// posts that carry a topic (store.TopicTag), for its followers' live feeds.
// On a cluster it is the shard channel {p<n>}tag:<tag key>, n the topic's
// live partition (TagPartition).
func (k Keys) TagChannel(tagKey string) string {
	if !k.cluster {
		return k.prefix + "tag:" + tagKey
	}
	return k.prefix + partitionTag(TagPartition(tagKey)) + "tag:" + tagKey
}

// SessionsChannel is the pub/sub channel sessions:revoked on which every
// ended session's token hash is published, for the processes that remember
// sessions (redisdb/store_caches.go). On a cluster it is a plain channel, which
// every node passes on to every other.
func (k Keys) SessionsChannel() string { return k.prefix + "sessions:revoked" }

// AvatarsChannel is the pub/sub channel avatars:changed on which the id of
// every user whose author card changed (its avatar, protected or suspended,
// its pins) is published, for the processes that remember authors (redisdb/store_caches.go); a
// plain channel on a cluster too.
func (k Keys) AvatarsChannel() string { return k.prefix + "avatars:changed" }

// Blocking is the ZSET user:userid:<uid>:blocking of the users uid blocks,
// score = when (unix ms): the record of a block.
func (k Keys) Blocking(uid int64) string { return k.prefix + "user:userid:" + k.tag(uid) + ":blocking" }

// BlockedBy is the SET user:userid:<uid>:blocked_by of the users who block
// uid: the other side of their Blocking sets, for what uid may see.
func (k Keys) BlockedBy(uid int64) string {
	return k.prefix + "user:userid:" + k.tag(uid) + ":blocked_by"
}

// Muting is the ZSET user:userid:<uid>:muting of the users uid mutes,
// score = when (unix ms).
func (k Keys) Muting(uid int64) string { return k.prefix + "user:userid:" + k.tag(uid) + ":muting" }

// MutedBy is the SET user:userid:<uid>:muted_by of the users who mute uid:
// the fan-out pushes none of uid's posts into their home timelines.
func (k Keys) MutedBy(uid int64) string { return k.prefix + "user:userid:" + k.tag(uid) + ":muted_by" }

// FollowRequests is the ZSET user:userid:<uid>:follow_requests of the users
// asking to follow uid's protected account, score = when (unix ms).
func (k Keys) FollowRequests(uid int64) string {
	return k.prefix + "user:userid:" + k.tag(uid) + ":follow_requests"
}

// LastReportID is the STRING global:reportid, INCRed for each report.
func (k Keys) LastReportID() string { return k.prefix + "global:reportid" }

// Report is the HASH report:<id> of one report: reporter, target, posts
// (JSON list of ids), reason, created (unix ms), resolved ("1" once).
func (k Keys) Report(reportID int64) string { return k.prefix + "report:" + ID(reportID) }

// Reports is the ZSET reports:open (resolved false) or reports:resolved of
// report ids, score = id.
func (k Keys) Reports(resolved bool) string {
	if resolved {
		return k.prefix + "reports:resolved"
	}
	return k.prefix + "reports:open"
}

// LastDMID is the STRING global:messageid, INCRed for each private
// message: private messages have ids of their own, apart from posts.
func (k Keys) LastDMID() string { return k.prefix + "global:messageid" }

// DM is the HASH pm:<id> holding one private message (its own
// hash tag on a cluster, as a post's B).
func (k Keys) DM(pmid int64) string { return k.prefix + "pm:" + k.tag(pmid) }

// Conversations is the ZSET conv:<uid> of the users uid has a conversation
// with, score = the id of its newest message: latest activity first.
func (k Keys) Conversations(uid int64) string { return k.prefix + "conv:" + k.tag(uid) }

// Conversation is the ZSET conv:<uid>:<other> of the ids of the messages
// between uid and other, as uid holds them (other holds the same ids under
// its own tag), score = id: the hot window of the conversation.
func (k Keys) Conversation(uid, other int64) string {
	return k.prefix + "conv:" + k.tag(uid) + ":" + ID(other)
}

// ConversationsRead is the ZSET conv:<uid>:read of uid's read marks, other
// → the id of the last message uid has read in their conversation.
func (k Keys) ConversationsRead(uid int64) string { return k.prefix + "conv:" + k.tag(uid) + ":read" }

// ConversationsUnread is the SET conv:<uid>:unread of the users whose
// conversation with uid holds messages uid has not read.
func (k Keys) ConversationsUnread(uid int64) string {
	return k.prefix + "conv:" + k.tag(uid) + ":unread"
}

// ConversationsArchived is the ZSET conv:<uid>:archived, other → the
// highest id the archiver moved out of conv:<uid>:<other>: below it, the
// conversation goes on in the archive.
func (k Keys) ConversationsArchived(uid int64) string {
	return k.prefix + "conv:" + k.tag(uid) + ":archived"
}

// LensChannel is the pub/sub channel lenses:changed on which the id of
// every user whose Lens changed (blocks, mutes, word filters) is published,
// for the processes that remember lenses (redisdb/store_caches.go); a plain channel on a
// cluster too.
func (k Keys) LensChannel() string { return k.prefix + "lenses:changed" }

// channelTag is the hash tag of uid's live partition on a cluster, nothing
// on a single Redis.
func (k Keys) channelTag(uid int64) string {
	if !k.cluster {
		return ""
	}
	return partitionTag(LivePartition(uid))
}

// FanOutParts is the STREAM fanout:parts of the parts of split fan-out jobs
// (a push or unpush to more than partFans fans): each entry is its job's
// fields with its part number and the follow times of its fans (lo, hi),
// read one at a time by the consumer group fanOutGroup of every process.
func (k Keys) FanOutParts() string { return k.prefix + "fanout:parts" }

// FanOutPartsLeft is the SET fanout:left:<mid> of the part numbers of a
// split push of post mid not done yet: the part that empties it ends the
// push, and takes the post out of fanout:pending.
func (k Keys) FanOutPartsLeft(mid int64) string { return k.prefix + "fanout:left:" + k.tag(mid) }

// HistoryIdentity is the STRING global:identity: the random id of this data's
// history, stamped on Redis and on the archive at first start, so that a
// Redis and an archive of different histories are never served together
// (see CheckIdentity).
func (k Keys) HistoryIdentity() string { return k.prefix + "global:identity" }

// WriterVersion is the STRING global:version: the lowest writer version
// allowed to write the data (see redisdb/store_version.go). A process raises it at start
// to what its own data needs, and one of a lower version stops writing.
func (k Keys) WriterVersion() string { return k.prefix + "global:version" }

// OAuth is the STRING oauth:<kind>:<key> holding one record of the Mastodon
// API's OAuth 2.0 server (store.OAuthKind), opaque to the store, with a TTL
// for codes and tokens. The key is a client id, the SHA-256 hex of a code
// or token, or a grant's request id: never a secret. Every command touches
// this one key, so the family needs no hash tag on a cluster.
func (k Keys) OAuth(kind store.OAuthKind, key string) string {
	return k.prefix + "oauth:" + string(kind) + ":" + key
}

// Cluster tells whether k names the keys and channels of a Redis Cluster:
// hash tags in the keys, shard channels grouped in live partitions.
func (k Keys) Cluster() bool { return k.cluster }

// Prefix is what every key and channel name of k starts with.
func (k Keys) Prefix() string { return k.prefix }

// TagKeys are the tag keys of tags, each once.
func TagKeys(tags []string) []string {
	var keys []string
	for _, t := range tags {
		if k := store.TagKey(t); !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys
}

// IDSet is the set of the ids in lists, nil when there are none.
func IDSet(lists ...[]string) map[int64]bool {
	var set map[int64]bool
	for _, list := range lists {
		for _, m := range list {
			if set == nil {
				set = make(map[int64]bool, len(list))
			}
			set[ParseID(m)] = true
		}
	}
	return set
}

// MaxThreadDepth bounds how deep eviction follows replies to replies.
const MaxThreadDepth = 16

// UnattachedMediaTTL is how long an upload waits for a post to take it.
const UnattachedMediaTTL = 24 * time.Hour

// LastListID is the STRING global:listid, INCRed for each new list.
func (k Keys) LastListID() string { return k.prefix + "global:listid" }

// Lists is the ZSET user:userid:<uid>:lists of the ids of the user's lists
// (关注分组), score = when made (ms); at most store.MaxLists.
func (k Keys) Lists(uid int64) string { return k.prefix + "user:userid:" + k.tag(uid) + ":lists" }

// ExclusiveLists is the SET user:userid:<uid>:lists:exclusive of the ids
// of the user's exclusive lists, whose members' posts leave its home
// timeline: the lens reads it, and only for a user with one reads their
// members. Under the owner's hash tag, it changes with the lists' hashes.
func (k Keys) ExclusiveLists(uid int64) string {
	return k.prefix + "user:userid:" + k.tag(uid) + ":lists:exclusive"
}

// List is the HASH user:userid:<uid>:list:<lid> of one of the user's lists:
// title, replies_policy, exclusive ("1" or absent). Its owner's hash tag
// puts it on the slot of the owner's follows, which the script that adds
// members reads.
func (k Keys) List(uid, lid int64) string {
	return k.prefix + "user:userid:" + k.tag(uid) + ":list:" + ID(lid)
}

// ListMembers is the ZSET user:userid:<uid>:list:<lid>:members of the
// uids in one of the user's lists, score = when added (ms); at most
// store.MaxListMembers, each one the user follows.
func (k Keys) ListMembers(uid, lid int64) string {
	return k.prefix + "user:userid:" + k.tag(uid) + ":list:" + ID(lid) + ":members"
}
