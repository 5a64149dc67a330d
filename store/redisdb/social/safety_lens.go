package social

import (
	"context"
	"encoding/json"
	"microblog/store/redisdb/internal/reqpath"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// lens is what viewer may see (store.Lens; nil for an anonymous viewer),
// from memory when read lately.
func (s *Social) lens(ctx context.Context, viewer int64) (*store.Lens, error) {
	if viewer <= 0 {
		return nil, nil
	}
	now := time.Now()
	if l, ok := s.lenses.Get(viewer, now); ok {
		return l, nil
	}
	gen := s.lenses.Gen()
	l, err := s.Lens(ctx, viewer)
	if err != nil {
		return nil, err
	}
	s.lenses.Put(viewer, l, gen, now)
	return l, nil
}

// Lens reads what viewer may see, now: whom it blocks, who blocks it, whom
// it mutes and its filtered words, in one round trip; and the members of
// its exclusive lists, in one more for a user who has one. The live feed
// holds it per user and reads it again on each lens_changed event.
func (s *Social) Lens(ctx context.Context, viewer int64) (*store.Lens, error) {
	if viewer <= 0 {
		return nil, nil
	}
	var blocking, blockedBy, muting *redis.StringSliceCmd
	var filters *redis.StringCmd
	var exclusive *redis.StringSliceCmd
	cmds, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		blocking = pl.ZRange(ctx, s.keys.Blocking(viewer), 0, -1)
		blockedBy = pl.SMembers(ctx, s.keys.BlockedBy(viewer))
		muting = pl.ZRange(ctx, s.keys.Muting(viewer), 0, -1)
		filters = pl.HGet(ctx, s.keys.User(viewer), schema.FieldFilters)
		exclusive = pl.SMembers(ctx, s.keys.ExclusiveLists(viewer))
		return nil
	})
	if err := reqpath.PipeErr(cmds, err); err != nil {
		return nil, s.core.Wrap("load lens", err)
	}
	l := &store.Lens{Viewer: viewer}
	l.Hidden = schema.IDSet(blocking.Val(), blockedBy.Val())
	l.Muted = schema.IDSet(muting.Val())
	for _, w := range decodeWords(filters.Val()) {
		l.Words = append(l.Words, store.FoldWord(w))
	}
	if lids := exclusive.Val(); len(lids) > 0 {
		if l.Excluded, err = s.exclusiveMembers(ctx, viewer, lids); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// decodeWords reads the filtered words as kept in the user hash.
func decodeWords(raw string) []string {
	var words []string
	if raw != "" {
		json.Unmarshal([]byte(raw), &words)
	}
	return words
}

// lensChanged tells every process that uids' lenses changed: each forgets
// them, and their live connections read them again.
func (s *Social) lensChanged(ctx context.Context, uids ...int64) {
	_, err := s.rdb.Pipelined(context.WithoutCancel(ctx), func(pl redis.Pipeliner) error {
		for _, uid := range uids {
			pl.Publish(ctx, s.keys.LensChannel(), uid)
			s.core.QueuePublish(ctx, pl, s.keys.NotifyChannel(uid), store.EventLensChanged, struct{}{})
		}
		return nil
	})
	s.lenses.Forget(uids...)
	if err != nil {
		s.opt.Logger.WarnContext(ctx, "publish lens change", "users", uids, "err", err)
	}
}

// sieve takes out of posts (setting them nil) those viewer must not see
// at place at, by the one rule of store.Lens: this is where every read of
// posts applies it. On the home timeline, a post that only viewer's word
// filters hide stays, marked Filtered. Protected authors' posts are checked against viewer's
// stars in one round trip, only when the page has some.
func (s *Social) sieve(ctx context.Context, posts []*store.Post, viewer int64, at store.Place) error {
	lens, err := s.lens(ctx, viewer)
	if err != nil {
		return err
	}
	if err := s.approve(ctx, posts, viewer); err != nil {
		return err
	}
	for i, p := range posts {
		switch {
		case at == store.InHome && lens.FilteredOnly(p, at):
			p.Filtered = true
		case lens.Hides(p, at):
			posts[i] = nil
		}
	}
	return nil
}

// approve sets Author.Approved on the posts (and originals) of protected
// authors whom viewer follows: their approved fans.
func (s *Social) approve(ctx context.Context, posts []*store.Post, viewer int64) error {
	var authors []*store.Author
	for _, p := range posts {
		if p == nil {
			continue
		}
		if p.Author.Protected && p.Author.ID != viewer {
			authors = append(authors, &p.Author)
		}
		if o := p.RepostOf; o != nil && o.Author.Protected && o.Author.ID != viewer {
			authors = append(authors, &o.Author)
		}
	}
	if len(authors) == 0 || viewer <= 0 {
		return nil
	}
	members := make([]string, len(authors))
	for i, a := range authors {
		members[i] = id(a.ID)
	}
	scores, err := s.rdb.ZMScore(ctx, s.keys.Stars(viewer), members...).Result()
	if err != nil {
		return s.core.Wrap("check protected authors", err)
	}
	for i, a := range authors {
		a.Approved = i < len(scores) && scores[i] != 0
	}
	return nil
}

// mayAct refuses (ErrBlocked) what actor would do to owner's account or
// posts when one of them blocks the other.
func (s *Social) mayAct(ctx context.Context, actor, owner int64) error {
	if actor == owner || actor <= 0 || owner <= 0 {
		return nil
	}
	var a, b *redis.FloatCmd
	cmds, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		a = pl.ZScore(ctx, s.keys.Blocking(actor), id(owner))
		b = pl.ZScore(ctx, s.keys.Blocking(owner), id(actor))
		return nil
	})
	if err := reqpath.PipeErr(cmds, err); err != nil {
		return s.core.Wrap("check blocks", err)
	}
	if a.Err() == nil || b.Err() == nil {
		return store.ErrBlocked
	}
	return nil
}

// target loads the message actor acts on (likes, reposts, comments on):
// 404 when actor may not see it (nor the post of its thread), blocks
// included, as for a message that does not exist (CONTRACT.md §17).
func (s *Social) target(ctx context.Context, actor, mid int64) (*store.Post, error) {
	seen, err := s.core.Post(ctx, mid, actor)
	if err != nil {
		return nil, err
	}
	return &seen, nil
}

// hiddenOr is the answer to viewer acting on message mid when the act is
// refused for why (not its author, say): 404 post_not_found, as for a
// message that does not exist, when viewer may not see mid; why otherwise.
// What a reader may not see is never told apart from what is not there
// (CONTRACT.md §17), not even by the error of an act it may not do. It
// runs on the refusals only, at no cost to the acts that succeed.
func (s *Social) hiddenOr(ctx context.Context, viewer, mid int64, why error) error {
	if _, err := s.core.Post(ctx, mid, viewer); err != nil {
		return err
	}
	return why
}
