package redisdb

import (
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/internal/reqpath"
	"microblog/store/redisdb/schema"
)

// Editing (store.Edits). A hot message is edited by one script on its own
// keys (edit_message.lua): its hash takes the new text and edited time, and
// history:<mid> the version it replaces, or nothing happens at all. A
// delete's tombstone (or, without the archive, its DEL) makes every later
// edit refuse, and the delete removes the history with the message's other
// keys: an edit racing a delete ends in a deleted message, never a
// half-edited one. The edit's row, whole, goes on archive:queue; until the
// archive has it the hash is marked edit_pending, and the archiver leaves
// the message in Redis, so that a reader never falls back to an archive
// row older than what Redis showed. A message whose hash has left Redis is
// edited in the archive itself (store.Archive.Edit), guarded there by its
// last edit time.
//
// Then, as a new message does: the topics it no longer carries lose it and
// those it now carries gain it; users it mentions for the first time are
// notified; and the edited Post goes out live as post_update where its
// post event went out, and on the channels of those who reposted it. The
// message keeps its id, so it keeps its place in every timeline, and
// reposts, which read their original when read, show the edit at once.

// Errors of Edit.
var (
	errNotEditor = store.NewError(store.ErrForbidden, store.CodeNotAuthor, "only the author can edit a message")
	errEditLimit = store.NewError(store.ErrConflict, store.CodeEditLimit,
		fmt.Sprintf("a message can be edited at most %d times", store.MaxEdits))
	errEditRace = store.NewError(store.ErrConflict, store.CodeConflict, "the message changed while it was being edited; try again")
	// errNotHot says the message's hash is not in Redis: look in the archive.
	errNotHot = store.NewError(store.ErrNotFound, store.CodePostNotFound, "no such post in Redis")
)

// archivedEditTries is how often an edit of an archived message reads it
// again when another edit got there first.
const archivedEditTries = 3

// change is one edit on its way: who edits which message to what, what
// the new text refers to, the version it replaced, the history it made and
// the message as edited.
type change struct {
	uid, mid int64
	content  string
	// spoiler is the new content warning, nil to keep the one it has.
	spoiler *string
	// blank is the content_empty error when the content is blank, which
	// only a post that reposts or carries images may be, as when written.
	blank    error
	mentions []store.Author
	tags     []string
	// was are the content, mentions and tags of the version replaced, as the
	// edit found them.
	was struct {
		content  string
		mentions []store.Author
		tags     []string
	}
	history []store.Version // every earlier version, oldest first
	hot     bool            // edited in Redis, not in the archive
	post    store.Post      // the message as edited, as its author sees it
}

// Edit replaces the content of uid's message mid (see store.Edits): 403
// for what uid did not write (as Delete answers), the content rules of a
// new message, 409 edit_limit past store.MaxEdits (a refused edit does not
// count). An edit to the same content changes nothing and counts for
// nothing. It costs about what a new post costs: the edit itself is one
// script, which answers with the message as edited, and what follows it
// one more round trip.
func (s *Store) Edit(ctx context.Context, uid, mid int64, content string) (store.Post, error) {
	return s.EditPost(ctx, uid, mid, store.PostEdit{Content: content})
}

// EditPost is Edit that may change the content warning too (e.Spoiler
// not nil), which an edit of the content warning alone counts as.
func (s *Store) EditPost(ctx context.Context, uid, mid int64, e store.PostEdit) (store.Post, error) {
	content := e.Content
	if e.Spoiler != nil {
		spoiler, err := store.NormalizeSpoiler(*e.Spoiler)
		if err != nil {
			return store.Post{}, err
		}
		e.Spoiler = &spoiler
	}
	if mid <= 0 {
		return store.Post{}, store.ErrPostNotFound
	}
	if err := store.CheckContent(content, true); err != nil {
		return store.Post{}, err
	}
	d := &draft{np: store.NewPost{Author: uid, Content: content}}
	if err := s.resolveEntities(ctx, d); err != nil {
		return store.Post{}, err
	}
	// As with a new message, an edit once begun is carried through.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), reqpath.WriteTimeout)
	defer cancel()
	c := &change{uid: uid, mid: mid, content: content, spoiler: e.Spoiler, blank: store.CheckContent(content, false),
		mentions: d.mentions, tags: d.tags}
	edited, err := s.editHot(ctx, c)
	if errors.Is(err, errNotHot) {
		edited, err = s.editArchived(ctx, c)
	}
	switch {
	case errors.Is(err, errNotEditor):
		return store.Post{}, s.hiddenOr(ctx, uid, mid, err)
	case err != nil:
		return store.Post{}, err
	case !edited: // the same content
		return s.Post(ctx, mid, uid)
	}
	s.afterEdit(ctx, c)
	return c.post, nil
}

// editHot edits the message in Redis; errNotHot when its hash is not there.
func (s *Store) editHot(ctx context.Context, c *change) (bool, error) {
	mentions, _ := json.Marshal(c.mentions)
	tags, _ := json.Marshal(c.tags)
	setSpoiler, spoiler := "", ""
	if c.spoiler != nil {
		setSpoiler, spoiler = "1", *c.spoiler
	}
	args := append([]any{c.uid, c.content, mentions, tags, s.Now(), store.MaxEdits,
		reqpath.Flag(s.opt.Archive != nil), reqpath.Flag(c.blank != nil), setSpoiler, spoiler}, schema.PostFieldArgs...)
	res, err := schema.EditMessage.Run(ctx, s.rdb, []string{s.keys.Post(c.mid), s.keys.History(c.mid)}, args...).Slice()
	if err != nil {
		return false, s.Wrap("edit post", err)
	}
	switch status, _ := res[0].(int64); status {
	case -1:
		return false, store.ErrPostNotFound
	case -2:
		return false, errNotHot
	case -3:
		return false, errEditLimit
	case -4:
		return false, errNotEditor
	case -5:
		return false, c.blank
	case 0:
		return false, nil
	}
	if len(res) != 7 {
		return false, s.Wrap("edit post", fmt.Errorf("the script answered %d values", len(res)))
	}
	c.hot = true
	c.was.content, _ = res[2].(string)
	oldMentions, _ := res[3].(string)
	oldTags, _ := res[4].(string)
	schema.UnmarshalList(oldMentions, &c.was.mentions)
	schema.UnmarshalList(oldTags, &c.was.tags)
	history, _ := res[5].([]any)
	for _, v := range history {
		raw, _ := v.(string)
		c.history = append(c.history, parseVersion(raw))
	}
	fields, _ := res[6].([]any)
	h := schema.ScanPost(fields)
	p := h.Post(c.mid)
	p.LikesCount = h.Likes
	// The edit is made: should Redis fail from here on, the message keeps
	// its mark for the archive, and stays in Redis till its next edit.
	if err := s.complete(ctx, []*store.Post{p}, c.uid); err != nil {
		return false, err
	}
	c.post = *p
	return true, nil
}

// editArchived edits a message that is only in the archive, in the
// archive, as long as it is there, not deleted and not edited meanwhile,
// and reads it back.
func (s *Store) editArchived(ctx context.Context, c *change) (bool, error) {
	if s.opt.Archive == nil {
		return false, store.ErrPostNotFound
	}
	for range archivedEditTries {
		rows, err := s.opt.Archive.Posts(ctx, []int64{c.mid})
		if err != nil {
			return false, s.Wrap("edit post: archive", err)
		}
		row, ok := rows[c.mid]
		switch p := archivedPost(row); {
		case !ok || row.Deleted:
			return false, store.ErrPostNotFound
		case row.Author != c.uid:
			return false, errNotEditor
		case c.blank != nil && (p.Kind == store.KindComment || p.RepostOf == nil && len(p.Media) == 0):
			return false, c.blank
		case row.Content == c.content && (c.spoiler == nil || *c.spoiler == row.Spoiler):
			return false, nil
		}
		c.history = nil
		schema.UnmarshalList(row.History, &c.history)
		if len(c.history) >= store.MaxEdits {
			return false, errEditLimit
		}
		c.was.content = row.Content
		schema.UnmarshalList(row.Mentions, &c.was.mentions)
		schema.UnmarshalList(row.Tags, &c.was.tags)
		c.history = append(c.history, store.Version{Content: row.Content, CreatedAt: store.Time(cmp.Or(row.Edited, row.Created))})
		prev := row.Edited
		mentions, _ := json.Marshal(c.mentions)
		tags, _ := json.Marshal(c.tags)
		history, _ := json.Marshal(c.history)
		row.Content, row.Mentions, row.Tags, row.History = c.content, string(mentions), string(tags), string(history)
		if c.spoiler != nil {
			row.Spoiler = *c.spoiler
		}
		row.Edited = max(s.Now(), prev+1)
		done, err := s.opt.Archive.Edit(ctx, row, prev)
		if err != nil {
			return false, s.Wrap("edit post: archive", err)
		}
		if done {
			ps, err := s.posts(ctx, []int64{c.mid}, c.uid)
			if err != nil {
				return false, err
			}
			if ps[0] == nil {
				return false, store.ErrPostNotFound // deleted since
			}
			c.post = *ps[0]
			return true, nil
		}
	}
	return false, errEditRace
}

// row is the edited message as the archive keeps it.
func (c *change) row() store.Archived {
	a := archived(&c.post)
	a.Edited = int64(*c.post.EditedAt)
	history, _ := json.Marshal(c.history)
	a.History = string(history)
	return a
}

// History is every version of mid as viewer may see it (404 otherwise),
// oldest first, the current one last: read at once from the message's own
// keys while it is hot, else from the archive.
func (s *Store) History(ctx context.Context, mid, viewer int64) ([]store.Version, error) {
	p, err := s.Post(ctx, mid, viewer)
	if err != nil {
		return nil, err
	}
	if p.EditedAt == nil {
		return []store.Version{{Content: p.Content, CreatedAt: p.CreatedAt}}, nil
	}
	var list *redis.StringSliceCmd
	var now *redis.SliceCmd
	_, err = s.rdb.TxPipelined(ctx, func(t redis.Pipeliner) error {
		list = t.LRange(ctx, s.keys.History(mid), 0, -1)
		now = t.HMGet(ctx, s.keys.Post(mid), "kind", schema.FieldDeleted, "content", schema.FieldEdited)
		return nil
	})
	if err != nil {
		return nil, s.Wrap("read history", err)
	}
	v := now.Val()
	switch {
	case len(v) != 4:
		return nil, s.Wrap("read history", fmt.Errorf("HMGET answered %d fields", len(v)))
	case v[1] == "1": // deleted meanwhile
		return nil, store.ErrPostNotFound
	case v[0] != nil:
		versions := make([]store.Version, 0, len(list.Val())+1)
		for _, raw := range list.Val() {
			versions = append(versions, parseVersion(raw))
		}
		content, _ := v[2].(string)
		edited, _ := v[3].(string)
		return append(versions, store.Version{Content: content, CreatedAt: store.Time(parseID(edited))}), nil
	}
	return s.archivedHistory(ctx, mid)
}

// archivedHistory is History of a message whose hash has left Redis.
func (s *Store) archivedHistory(ctx context.Context, mid int64) ([]store.Version, error) {
	if s.opt.Archive == nil {
		return nil, store.ErrPostNotFound
	}
	rows, err := s.opt.Archive.Posts(ctx, []int64{mid})
	if err != nil {
		return nil, s.Wrap("read history: archive", err)
	}
	row, ok := rows[mid]
	if !ok || row.Deleted {
		return nil, store.ErrPostNotFound
	}
	var versions []store.Version
	schema.UnmarshalList(row.History, &versions)
	return append(versions, store.Version{Content: row.Content, CreatedAt: store.Time(cmp.Or(row.Edited, row.Created))}), nil
}

// parseVersion reads a version as history:<mid> keeps it, "<unix ms>:<content>"
// (see edit_message.lua).
func parseVersion(raw string) store.Version {
	at, content, _ := strings.Cut(raw, ":")
	return store.Version{Content: content, CreatedAt: store.Time(parseID(at))}
}
