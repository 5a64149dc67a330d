package schema

import (
	"encoding/json"
	"strconv"
	"strings"

	"microblog/store"
)

// The hashes' field names live here and nowhere else: postHash and
// userHash name every field in their tags (go-redis writes a struct with
// HSET and reads one back with Scan), and the counters that are bumped on
// their own have a constant each.

// PostHash is the B:<mid> hash of one message.
type PostHash struct {
	Content  string `redis:"content"`
	Author   int64  `redis:"author"`
	Username string `redis:"username"` // a copy of the author's name, for speed
	Time     int64  `redis:"time"`     // unix ms
	Kind     string `redis:"kind"`     // store.KindPost or store.KindComment
	RepostOf string `redis:"repost_of"`
	Parent   string `redis:"parent"`
	Comments int64  `redis:"comments_count"`
	Reposts  int64  `redis:"reposts_count"`
	Likes    int64  `redis:"likes_count"` // the size of likes:<mid>, kept by each like and unlike
	Mentions string `redis:"mentions"`    // JSON [{"id", "username"}] of the users mentioned
	Tags     string `redis:"tags"`        // JSON ["topic", ...]
	Media    string `redis:"media"`       // JSON [store.Media, ...]
	// Deleted is "1" in a tombstone: the hash of a deleted message keeps
	// only this field until the archive has the delete too, so that readers
	// take it as gone instead of finding it in the archive. Absent else.
	Deleted string `redis:"deleted,omitempty"`
	// Edited is when the content last changed (unix ms); absent until the
	// first edit (redisdb/post_edit.go).
	Edited int64 `redis:"edited,omitempty"`
	// Unfinished is "1" on a cluster from when the message's own keys are
	// written until it stands, indexed whole and its Idempotency-Key's
	// result recorded (finish): readers take it as not there yet, so a
	// message that is taken out again, never acknowledged, is never shown.
	// Absent else.
	Unfinished string `redis:"unfinished,omitempty"`
	// Poll is the definition of its poll (FieldPoll), absent without one.
	Poll string `redis:"poll,omitempty"`
	// Spoiler is the content warning; absent when there is none.
	Spoiler string `redis:"spoiler,omitempty"`
	// URL is a remote note's original's address (FieldAPURL); absent on
	// local messages.
	URL string `redis:"apurl,omitempty"`
}

// Counters of postHash, bumped with HINCRBY.
const (
	FieldComments = "comments_count"
	FieldReposts  = "reposts_count"
	FieldLikes    = "likes_count"
)

// FieldIdem of a message written under an Idempotency-Key holds "<key
// hash> <claim>" (the key's hash, as in its idem: key, and the claim its
// request held), for the checker of half-written messages (redisdb/post_repair.go).
const FieldIdem = "idem"

// Args are the fields and values of h as HSET writes them, the same
// go-redis writes for the struct (every field but those omitempty leaves out
// while empty), without its reflection, which boxes a copy of every field:
// a new message's hash was a sixth of the allocations of its write.
func (h PostHash) Args() []any {
	a := make([]any, 0, 32)
	a = append(a, "content", h.Content, "author", h.Author, "username", h.Username, "time", h.Time,
		"kind", h.Kind, "repost_of", h.RepostOf, "parent", h.Parent, FieldComments, h.Comments,
		FieldReposts, h.Reposts, FieldLikes, h.Likes, "mentions", h.Mentions, "tags", h.Tags,
		"media", h.Media)
	if h.Deleted != "" {
		a = append(a, FieldDeleted, h.Deleted)
	}
	if h.Edited != 0 {
		a = append(a, FieldEdited, h.Edited)
	}
	if h.Unfinished != "" {
		a = append(a, FieldUnfinished, h.Unfinished)
	}
	if h.Poll != "" {
		a = append(a, FieldPoll, h.Poll)
	}
	if h.Spoiler != "" {
		a = append(a, FieldSpoiler, h.Spoiler)
	}
	if h.URL != "" {
		a = append(a, FieldAPURL, h.URL)
	}
	return a
}

// IndexArgs are h's values as post_index.lua takes them: the values of the
// fields every post has, in PostIndexFields' order, the author and the time
// left out (the script has them from its own arguments), then the fields
// and values of those Args leaves out while empty, as Args writes them.
// Knowing the field names, the script is sent a third of the arguments:
// each costs Redis a Lua string.
func (h PostHash) IndexArgs() []any {
	a := h.Args()
	out := make([]any, 0, len(a)-len(PostIndexFields)-4)
	for i := 0; i < len(a); i += 2 {
		switch {
		case a[i] == "author" || a[i] == "time":
		case i < 2*(len(PostIndexFields)+2):
			out = append(out, a[i+1])
		default:
			out = append(out, a[i], a[i+1])
		}
	}
	return out
}

// PostIndexFields are the fields of a post's hash whose values
// post_index.lua takes without their names (IndexArgs), in Args' order;
// "author" and "time" come between them there.
var PostIndexFields = []string{"content", "username", "kind", "repost_of", "parent", FieldComments, FieldReposts,
	FieldLikes, "mentions", "tags", "media"}

// FieldSpoiler is postHash.Spoiler.
const FieldSpoiler = "spoiler"

// PostFields are postHash's fields, in the order HMGET asks for them
// and ScanPost reads them.
var PostFields = []string{"content", "author", "username", "time", "kind", "repost_of", "parent", FieldComments, FieldReposts, "mentions", "tags", "media", FieldDeleted, FieldLikes, FieldEdited, FieldUnfinished, FieldPoll, FieldSpoiler, FieldAPURL}

var PostFieldArgs = func() []any {
	out := make([]any, len(PostFields))
	for i, f := range PostFields {
		out[i] = f
	}
	return out
}()

// ScanPost reads the values of PostFields, in that order (as the edit
// script answers them).
func ScanPost(vals []any) PostHash {
	str := func(i int) string {
		if i < len(vals) {
			v, _ := vals[i].(string)
			return v
		}
		return ""
	}
	return PostHash{Content: str(0), Author: ParseID(str(1)), Username: str(2), Time: ParseID(str(3)),
		Kind: str(4), RepostOf: str(5), Parent: str(6), Comments: ParseID(str(7)), Reposts: ParseID(str(8)),
		Mentions: str(9), Tags: str(10), Media: str(11), Deleted: str(12), Likes: ParseID(str(13)),
		Edited: ParseID(str(14)), Unfinished: str(15), Poll: str(16), Spoiler: str(17), URL: str(18)}
}

// ScanPostMap reads the reply of HGETALL B:<mid>, as ScanPost reads
// the edit script's: a page reads whole hashes, which costs Redis less than
// looking up each field by name and sends a few bytes rather than every
// field's name per post.
func ScanPostMap(m map[string]string) PostHash {
	return PostHash{Content: m["content"], Author: ParseID(m["author"]), Username: m["username"],
		Time: ParseID(m["time"]), Kind: m["kind"], RepostOf: m["repost_of"], Parent: m["parent"],
		Comments: ParseID(m[FieldComments]), Reposts: ParseID(m[FieldReposts]),
		Mentions: m["mentions"], Tags: m["tags"], Media: m["media"], Deleted: m[FieldDeleted],
		Likes: ParseID(m[FieldLikes]), Edited: ParseID(m[FieldEdited]), Unfinished: m[FieldUnfinished],
		Poll: m[FieldPoll], Spoiler: m[FieldSpoiler], URL: m[FieldAPURL]}
}

// FieldDeleted marks a tombstone (see postHash.Deleted).
const FieldDeleted = "deleted"

// FieldUnfinished marks a message being written (postHash.Unfinished).
const FieldUnfinished = "unfinished"

// FieldEdited is postHash.Edited. FieldEditPending holds the Edited of
// an edit not archived yet: the archiver leaves the message in Redis until
// the archive has it (redisdb/post_edit.go).
const (
	FieldEdited      = "edited"
	FieldEditPending = "edit_pending"
)

// Post is the message as the contract shows it; RepostOf holds only the
// original's id, which readers fill in.
func (m *PostHash) Post(mid int64) *store.Post {
	p := &store.Post{ID: mid, Kind: m.Kind, Content: m.Content, Spoiler: m.Spoiler, URL: m.URL,
		Author:    store.Author{ID: m.Author, Username: m.Username},
		CreatedAt: store.Time(m.Time), CommentsCount: m.Comments, RepostsCount: m.Reposts}
	if r := ParseID(m.RepostOf); r != 0 {
		p.RepostOf = &store.Post{ID: r}
	}
	if par := ParseID(m.Parent); par != 0 {
		p.ParentID = &par
	}
	if m.Edited != 0 {
		at := store.Time(m.Edited)
		p.EditedAt = &at
	}
	p.Mentions, p.Tags, p.Media = []store.Author{}, []string{}, []store.Media{}
	UnmarshalList(m.Mentions, &p.Mentions)
	UnmarshalList(m.Tags, &p.Tags)
	UnmarshalList(m.Media, &p.Media)
	if d := store.ParsePollDefinition(m.Poll); d != nil { // its counts: redisdb/polls.go
		p.Poll = d.Poll(mid, 0)
	}
	return p
}

// UnmarshalList decodes a JSON list field; most are empty, and need no decoder.
func UnmarshalList[T any](field string, dst *[]T) {
	if field != "" && field != "[]" {
		json.Unmarshal([]byte(field), dst)
	}
}

// UserHash is the user:userid:<uid> hash of one user.
type UserHash struct {
	Username string `redis:"username"`
	Password string `redis:"password"` // bcrypt (see redisdb/account/passwords.go)
	// PasswordKey is the password's pre-hash key; empty in records made
	// before every password was pre-hashed.
	PasswordKey string `redis:"password_key"`
	Created     int64  `redis:"created"` // unix ms
	Bio         string `redis:"bio"`
	Posts       int64  `redis:"posts_count"`
	Avatar      string `redis:"avatar"` // the avatar's file name in the media folder
	// DisplayName, Header (the header image's file name) and Fields (a
	// JSON list of store.Field) are the profile of CONTRACT.md §15.
	DisplayName string `redis:"display_name"`
	Header      string `redis:"header"`
	Fields      string `redis:"fields"`
	Protected   bool   `redis:"protected"`
	Suspended   bool   `redis:"suspended"`
	// Remote is, on a remote account, its ActivityPub actor's id, and
	// RemoteURL its profile page there (keys_fed.go); empty on local users.
	Remote    string `redis:"remote,omitempty"`
	RemoteURL string `redis:"remote_url,omitempty"`
}

// Fields of userHash read or written on their own, and the fields of the
// hybrid timelines, kept in the same hash.
const (
	FieldUsername = "username"
	FieldPassword = "password"
	// FieldPasswordKey is the pre-hash key of the password (redisdb/account/passwords.go).
	FieldPasswordKey = "password_key"
	FieldBio         = "bio"
	// FieldCreated is when the user signed up, unix ms.
	FieldCreated = "created"
	FieldPosts   = "posts_count"
	FieldAvatar  = "avatar"
	// FieldDisplayName, FieldHeader and FieldFields are the profile's.
	FieldDisplayName = "display_name"
	FieldHeader      = "header"
	FieldFields      = "fields"
	// FieldFanOut is the author's fan-out mode: "" (push), ModePull or ModeDrain.
	FieldFanOut = "fanout"
	// FieldPullFrom is the last message id before the author's posts were
	// pulled instead of pushed: a demotion backfills the newer ones.
	FieldPullFrom = "pull_from"
	// FieldDrain is the token of the author's drain, which its backfill job
	// carries: a backfill ends only its own drain (redisdb/timeline_modes.go).
	FieldDrain = "drain"
	// FieldDrainJob is the entry id in fanout:queue of the drain's backfill
	// job, once recorded: a drain whose job is gone gets another.
	FieldDrainJob = "drain_job"
	// FieldLastPull is the lastpull mark: the last message id issued when the
	// user was last seen. A returning user pulls its stars' newer posts.
	FieldLastPull = "lastpull"
	// FieldNotificationsRead is the id of the newest notification read.
	FieldNotificationsRead = "notifications_read"
	// FieldProtected and FieldSuspended are "1" while the account is
	// protected or suspended.
	FieldProtected = "protected"
	FieldSuspended = "suspended"
	// FieldFilters is the JSON list of the user's filtered words.
	FieldFilters = "filters"
)

// UserFields are the fields of userHash a profile shows, in HMGET order.
var UserFields = []string{FieldUsername, FieldBio, FieldCreated, FieldPosts, FieldAvatar, FieldProtected, FieldSuspended,
	FieldDisplayName, FieldHeader, FieldFields, FieldRemote, FieldRemoteURL}

// MediaHash is the M:<id> hash of one uploaded image.
type MediaHash struct {
	Owner  int64  `redis:"owner"`
	Name   string `redis:"name"`
	Thumb  string `redis:"thumb"`
	Width  int    `redis:"width"`
	Height int    `redis:"height"`
	Alt    string `redis:"alt"`
	// Blurhash is store.Media's; absent from uploads made before it was.
	Blurhash string `redis:"blurhash"`
	Created  int64  `redis:"created"`
	Post     int64  `redis:"post"` // 0 until a post (or a private message) takes it
}

// MediaURL is where the server serves a file of the media folder.
//
// A remote account's image (federation) is kept by its URL on its own
// server, http(s)://..., which is its URL here too.
func MediaURL(name string) string {
	if strings.HasPrefix(name, "https://") || strings.HasPrefix(name, "http://") {
		return name
	}
	return "/media/" + name
}

// ParseID reads an id field; empty or malformed is 0.
func ParseID(s string) int64 {
	if s == "" {
		return 0 // often: a field not set, and no error to make
	}
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

// FieldDMsFrom of a user hash is "following" when only the users it
// follows may write to it; absent (everyone) by default.
const FieldDMsFrom = "messages_from"

// DMFields are the fields of a message hash, in the order HMGET asks for
// them and scanPM reads them. deleted is "1" in a tombstone (as in B).
var DMFields = []string{"sender", "recipient", "sender_name", "recipient_name", "content", "time", "media", FieldDeleted}

// The archive queue's kinds of job for private messages (redisdb/post_archive.go).
const (
	ArchiveDMPut    = "pm_put"
	ArchiveDMDelete = "pm_del"
)

// Archived is the message of hash h as the archive keeps it.
func (h *PostHash) Archived(mid int64) store.Archived {
	return store.Archived{ID: mid, Kind: h.Kind, Author: h.Author, Username: h.Username, Content: h.Content,
		Created: h.Time, RepostOf: ParseID(h.RepostOf), Parent: ParseID(h.Parent),
		Mentions: h.Mentions, Tags: h.Tags, Media: h.Media, Poll: h.Poll, Spoiler: h.Spoiler, URL: h.URL}
}

func (h MediaHash) Media(mediaID int64) store.Media {
	return store.Media{ID: mediaID, URL: MediaURL(h.Name), ThumbURL: MediaURL(h.Thumb), Width: h.Width, Height: h.Height,
		Alt: h.Alt, Blurhash: h.Blurhash}
}

// The fan-out modes an author's FieldFanOut holds besides push (empty).
const (
	ModePull  = "pull"
	ModeDrain = "drain"
)

// ParseIDs reads a list of ids, leaving out what is not one.
func ParseIDs(ss []string) []int64 {
	out := make([]int64, 0, len(ss))
	for _, s := range ss {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			out = append(out, n)
		}
	}
	return out
}
