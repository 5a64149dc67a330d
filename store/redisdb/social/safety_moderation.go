package social

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// reportHash is the report:<id> hash of one report.
type reportHash struct {
	Reporter int64  `redis:"reporter"`
	Target   int64  `redis:"target"`
	Posts    string `redis:"posts"` // JSON list of mids
	Reason   string `redis:"reason"`
	Created  int64  `redis:"created"`
	Resolved bool   `redis:"resolved"`
}

var errNotTargetsPost = store.Invalid(store.CodeInvalidReport, "post_ids must be posts or comments of the reported user")

// Report files reporter's report of nr.Target (and some of its messages).
func (s *Social) Report(ctx context.Context, reporter int64, nr store.NewReport) (store.Report, error) {
	if err := nr.Check(); err != nil {
		return store.Report{}, err
	}
	if nr.Target == reporter {
		return store.Report{}, store.Invalid(store.CodeInvalidReport, "you cannot report yourself")
	}
	if _, err := s.core.Username(ctx, nr.Target); err != nil {
		return store.Report{}, err
	}
	if len(nr.PostIDs) > 0 {
		// A post the reporter may not see is not there for it (404, as a
		// missing one; CONTRACT.md §17): a report is no way to learn that
		// an id exists, nor whose it is.
		ps := make([]store.Post, len(nr.PostIDs))
		for i, mid := range nr.PostIDs { // a few (store.MaxReportPost)
			p, err := s.core.Post(ctx, mid, reporter)
			if err != nil {
				return store.Report{}, err
			}
			ps[i] = p
		}
		for _, p := range ps {
			if p.Author.ID != nr.Target {
				return store.Report{}, errNotTargetsPost
			}
		}
	}
	rid, err := s.rdb.Incr(ctx, s.keys.LastReportID()).Result()
	if err != nil {
		return store.Report{}, s.core.Wrap("report", err)
	}
	posts, _ := json.Marshal(nr.PostIDs)
	h := reportHash{Reporter: reporter, Target: nr.Target, Posts: string(posts), Reason: nr.Reason, Created: s.core.Now()}
	_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		pl.HSet(ctx, s.keys.Report(rid), "reporter", h.Reporter, "target", h.Target, "posts", h.Posts,
			"reason", h.Reason, "created", h.Created)
		pl.ZAdd(ctx, s.keys.Reports(false), redis.Z{Score: float64(rid), Member: rid})
		return nil
	})
	if err != nil {
		return store.Report{}, s.core.Wrap("report", err)
	}
	r, err := s.report(ctx, rid)
	if err != nil {
		return store.Report{}, err
	}
	// The reporter gets back only the posts it may see: naming an id is no
	// way round the rule.
	ps := make([]*store.Post, len(r.Posts))
	for i := range r.Posts {
		ps[i] = &r.Posts[i]
	}
	if err := s.sieve(ctx, ps, reporter, store.InView); err != nil {
		return store.Report{}, err
	}
	seen := []store.Post{}
	for _, p := range ps {
		if p != nil {
			seen = append(seen, *p)
		}
	}
	r.Posts = seen
	return r, nil
}

// Reports is a page of the reports, resolved or open, oldest first.
func (s *Social) Reports(ctx context.Context, resolved bool, q store.PageQuery) (store.Page[store.Report], error) {
	limit := q.Size()
	ids, err := s.rdb.ZRangeByScore(ctx, s.keys.Reports(resolved), &redis.ZRangeBy{
		Min: "(" + strconv.FormatInt(q.Cursor.Score, 10), Max: "+inf", Count: int64(limit + 1),
	}).Result()
	if err != nil {
		return store.Page[store.Report]{}, s.core.Wrap("list reports", err)
	}
	rids := schema.ParseIDs(ids)
	page := store.Page[store.Report]{Items: []store.Report{}}
	if len(rids) > limit {
		rids = rids[:limit]
		page.NextCursor = store.NextCursor(store.Cursor{Score: rids[limit-1]})
	}
	for _, rid := range rids {
		r, err := s.report(ctx, rid)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return store.Page[store.Report]{}, err
		}
		page.Items = append(page.Items, r)
	}
	return page, nil
}

// ResolveReport marks report rid resolved.
func (s *Social) ResolveReport(ctx context.Context, rid int64) (store.Report, error) {
	if _, err := s.report(ctx, rid); err != nil {
		return store.Report{}, err
	}
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		pl.HSet(ctx, s.keys.Report(rid), "resolved", "1")
		pl.ZAdd(ctx, s.keys.Reports(true), redis.Z{Score: float64(rid), Member: rid})
		pl.ZRem(ctx, s.keys.Reports(false), rid)
		return nil
	})
	if err != nil {
		return store.Report{}, s.core.Wrap("resolve report", err)
	}
	return s.report(ctx, rid)
}

// report reads one report as an operator sees it: its users, and those of
// its posts that are still there, whoever may see them.
func (s *Social) report(ctx context.Context, rid int64) (store.Report, error) {
	var h reportHash
	res := s.rdb.HGetAll(ctx, s.keys.Report(rid))
	if err := res.Err(); err != nil {
		return store.Report{}, s.core.Wrap("load report", err)
	}
	if len(res.Val()) == 0 {
		return store.Report{}, store.ErrReportNotFound
	}
	if err := res.Scan(&h); err != nil {
		return store.Report{}, s.core.Wrap("load report", err)
	}
	users, err := s.core.Users(ctx, []int64{h.Reporter, h.Target}, 0)
	if err != nil {
		return store.Report{}, err
	}
	r := store.Report{ID: rid, Reason: h.Reason, CreatedAt: store.Time(h.Created), Resolved: h.Resolved, Posts: []store.Post{}}
	for _, u := range users {
		if u.ID == h.Reporter {
			r.Reporter = u
		}
		if u.ID == h.Target {
			r.Target = u
		}
	}
	var mids []int64
	json.Unmarshal([]byte(h.Posts), &mids)
	if len(mids) > 0 {
		ps, err := s.core.Posts(ctx, mids, 0)
		if err != nil {
			return store.Report{}, err
		}
		for _, p := range ps {
			if p != nil {
				r.Posts = append(r.Posts, *p)
			}
		}
	}
	return r, nil
}

// Suspend suspends uid or lifts its suspension. Its author card says so
// (every read then leaves its posts out) and, when suspended, every session
// it has ends at once, live connections included; a new one is refused
// (newSession). Nothing is deleted.
func (s *Social) Suspend(ctx context.Context, uid int64, on bool) error {
	value := ""
	if on {
		value = "1"
	}
	if err := s.setExisting(ctx, uid, schema.FieldSuspended, value); err != nil {
		return err
	}
	s.authorChanged(ctx, uid)
	if on {
		return s.core.LogoutAll(ctx, uid)
	}
	return nil
}

// Remove deletes message mid as its author could, for an operator.
func (s *Social) Remove(ctx context.Context, mid int64) error {
	m, err := s.core.Message(ctx, mid)
	if err != nil {
		return err
	}
	return s.core.Delete(ctx, m.Author.ID, mid)
}
