package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// findings are what the checker found once the run settled.
type findings struct {
	// lost are the acknowledged writes missing from a view, or undone: a
	// post from its author's posts, a home timeline, the archive or a live
	// feed; a like, unlike, follow or unfollow not in force.
	lost map[string]bool
	// duplicates are posts written more than once for one Idempotency-Key
	// and posts a live feed received more than once.
	duplicates int
	// unackedLive are posts shown live that were never acknowledged and do
	// not stand; unackedLiveStanding those that stand (which is allowed).
	unackedLive, unackedLiveStanding int
	// standing are posts never acknowledged that stand all the same (their
	// request stopped after the write; allowed, and held to the same
	// invariants as acknowledged ones but live), unfinished those left for
	// the server's checker to finish or take out (never acknowledged).
	standing, unfinished int
	// strays are home timeline entries of authors their owner unfollowed:
	// a push in flight at the unfollow lands after it (not an invariant).
	strays   int
	failures []string // every invariant broken, said plainly
	// delays are how long the acknowledged posts took from their
	// created_at to a live feed, sorted.
	delays []time.Duration
}

func (f *findings) fail(format string, args ...any) {
	f.failures = append(f.failures, fmt.Sprintf(format, args...))
}

// message is what the checker reads of a message's hash.
type message struct {
	key        string // the Idempotency-Key its content names
	author     int64
	unfinished bool
	deleted    bool
	likes      int64 // likes_count
}

// stands says whether readers see the message.
func (m message) stands() bool { return !m.unfinished && !m.deleted }

// check holds the views to the ledger: Redis's, the archive's (check_archive.go)
// and the live feeds' (check_live.go).
func check(ctx context.Context, w *world, fans []*liveFan) (*findings, error) {
	f := &findings{lost: map[string]bool{}}
	led := w.led
	led.mu.Lock()
	defer led.mu.Unlock()
	rdb := w.b.rdb
	maxID, err := rdb.Get(ctx, lastPostIDKey).Int64()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", lastPostIDKey, err)
	}
	msgs, err := readMessages(ctx, rdb, maxID)
	if err != nil {
		return nil, err
	}
	// byKey are the standing posts of each Idempotency-Key.
	byKey := map[string][]int64{}
	for mid, m := range msgs {
		switch {
		case m.stands():
			byKey[m.key] = append(byKey[m.key], mid)
		case m.unfinished:
			f.unfinished++
		}
	}
	for key, id := range led.posts {
		mids := byKey[key]
		if !slices.Contains(mids, id) {
			m, ok := msgs[id]
			f.lost["post "+key] = true
			f.fail("post %s (%d) was acknowledged and does not stand: hash found %v, unfinished %v, deleted %v", key, id, ok, m.unfinished, m.deleted)
		}
	}
	for key, mids := range byKey {
		if len(mids) > 1 {
			f.duplicates += len(mids) - 1
			f.fail("post %s stands %d times: ids %v (acknowledged as %d)", key, len(mids), mids, led.posts[key])
		}
		if _, ok := led.posts[key]; !ok {
			f.standing++
		}
	}
	// authored are the standing posts by author.
	authored := map[int64][]int64{}
	for mid, m := range msgs {
		if m.stands() {
			authored[m.author] = append(authored[m.author], mid)
		}
	}
	if err := checkPosts(ctx, w, f, msgs, authored); err != nil {
		return nil, err
	}
	if err := checkHomes(ctx, w, f, msgs, authored); err != nil {
		return nil, err
	}
	if err := checkMarks(ctx, w, f, msgs); err != nil {
		return nil, err
	}
	if err := checkArchive(ctx, w, f, msgs); err != nil {
		return nil, err
	}
	f.delays = checkLive(w, f, fans, msgs)
	slices.Sort(f.failures)
	return f, nil
}

// readMessages reads the hash of every message id issued, up to maxID.
func readMessages(ctx context.Context, rdb redis.UniversalClient, maxID int64) (map[int64]message, error) {
	out := map[int64]message{}
	const chunk = 500
	for lo := int64(1); lo <= maxID; lo += chunk {
		hi := min(lo+chunk-1, maxID)
		cmds := make([]*redis.SliceCmd, 0, chunk)
		_, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			for mid := lo; mid <= hi; mid++ {
				cmds = append(cmds, p.HMGet(ctx, messageKey(mid), "content", "author", "unfinished", "deleted", "likes_count"))
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("read messages %d to %d: %w", lo, hi, err)
		}
		for i, c := range cmds {
			v := c.Val()
			if v[0] == nil && v[3] == nil {
				continue // never written, or taken out whole
			}
			str := func(i int) string { s, _ := v[i].(string); return s }
			m := message{key: strings.TrimPrefix(str(0), "chaos "), unfinished: str(2) == "1", deleted: str(3) == "1"}
			m.author, _ = strconv.ParseInt(str(1), 10, 64)
			m.likes, _ = strconv.ParseInt(str(4), 10, 64)
			out[lo+int64(i)] = m
		}
	}
	return out, nil
}

// members reads the members of each ZSET of keys, as ids.
func members(ctx context.Context, rdb redis.UniversalClient, keys []string) ([]map[int64]bool, error) {
	cmds := make([]*redis.StringSliceCmd, len(keys))
	_, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, k := range keys {
			cmds[i] = p.ZRange(ctx, k, 0, -1)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read sorted sets: %w", err)
	}
	out := make([]map[int64]bool, len(keys))
	for i, c := range cmds {
		out[i] = map[int64]bool{}
		for _, s := range c.Val() {
			id, _ := strconv.ParseInt(s, 10, 64)
			out[i][id] = true
		}
	}
	return out, nil
}

// checkPosts holds each author's posts (F) and posts_count to the posts
// that stand.
func checkPosts(ctx context.Context, w *world, f *findings, msgs map[int64]message, authored map[int64][]int64) error {
	keys := make([]string, len(w.authors))
	counts := make([]*redis.StringCmd, len(w.authors))
	for i, a := range w.authors {
		keys[i] = postsKey(a.id)
	}
	sets, err := members(ctx, w.b.rdb, keys)
	if err != nil {
		return err
	}
	_, err = w.b.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, a := range w.authors {
			counts[i] = p.HGet(ctx, userKey(a.id), "posts_count")
		}
		return nil
	})
	if err != nil && err != redis.Nil {
		return fmt.Errorf("read posts_count: %w", err)
	}
	for i, a := range w.authors {
		for _, mid := range authored[a.id] {
			if !sets[i][mid] {
				f.lost["post "+msgs[mid].key] = true
				f.fail("post %s (%d) stands but is not in %s", msgs[mid].key, mid, keys[i])
			}
		}
		n, _ := counts[i].Int64()
		if want := int64(len(sets[i])); n != want {
			f.fail("%s's posts_count is %d, its posts (%s) are %d", a.name, n, keys[i], want)
		}
	}
	return nil
}

// checkHomes holds every home timeline to the follows in force: a fan's
// G holds every standing post of each author it follows, an author's its
// own. Entries of authors it unfollowed are counted as strays.
func checkHomes(ctx context.Context, w *world, f *findings, msgs map[int64]message, authored map[int64][]int64) error {
	users := append(append(append([]*user(nil), w.authors...), w.fans...), w.churners...)
	keys := make([]string, len(users))
	for i, u := range users {
		keys[i] = homeKey(u.id)
	}
	homes, err := members(ctx, w.b.rdb, keys)
	if err != nil {
		return err
	}
	led := w.led
	for i, u := range users {
		owe := map[int64]bool{u.id: true}
		for _, a := range w.authors {
			p := pair{u.id, a.id}
			if led.follows[p] && !led.followsUnsure[p] {
				owe[a.id] = true
			}
		}
		for a := range owe {
			for _, mid := range authored[a] {
				if homes[i][mid] {
					continue
				}
				key := msgs[mid].key
				if _, ok := led.posts[key]; ok {
					f.lost["post "+key] = true
				}
				f.fail("post %s (%d) stands but is not on the home timeline of %s, who follows its author", key, mid, u.name)
			}
		}
		for mid := range homes[i] {
			m, ok := msgs[mid]
			p := pair{u.id, m.author}
			_, followed := led.follows[p]
			switch {
			case !ok || !m.stands() || owe[m.author] || led.followsUnsure[p]:
			case followed:
				f.strays++
			default:
				f.fail("post %d of user %d is on the home timeline of %s, who never followed its author", mid, m.author, u.name)
			}
		}
	}
	return nil
}

// checkMarks holds the likes and follows to the last acknowledged write of
// each pair, and each post's likes_count to its likers.
func checkMarks(ctx context.Context, w *world, f *findings, msgs map[int64]message) error {
	led := w.led
	var likeMids []int64
	for mid, m := range msgs {
		if m.stands() {
			likeMids = append(likeMids, mid)
		}
	}
	keys := make([]string, len(likeMids))
	for i, mid := range likeMids {
		keys[i] = likesKey(mid)
	}
	likers, err := members(ctx, w.b.rdb, keys)
	if err != nil {
		return err
	}
	likersOf := map[int64]map[int64]bool{}
	for i, mid := range likeMids {
		likersOf[mid] = likers[i]
		if n := int64(len(likers[i])); msgs[mid].likes != n {
			f.fail("post %d's likes_count is %d, its likers (%s) %d", mid, msgs[mid].likes, keys[i], n)
		}
	}
	for p, on := range led.likes {
		if !led.likesUnsure[p] && likersOf[p.what][p.who] != on {
			f.lost[fmt.Sprintf("like %d %d", p.who, p.what)] = true
			f.fail("user %d's last acknowledged write of its like of post %d left it %v, Redis says %v", p.who, p.what, on, !on)
		}
	}
	var follows []pair
	for p := range led.follows {
		if !led.followsUnsure[p] {
			follows = append(follows, p)
		}
	}
	stars := make([]*redis.FloatCmd, len(follows))
	fans := make([]*redis.FloatCmd, len(follows))
	_, err = w.b.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, p := range follows {
			stars[i] = pl.ZScore(ctx, starsKey(p.who), strconv.FormatInt(p.what, 10))
			fans[i] = pl.ZScore(ctx, fansKey(p.what), strconv.FormatInt(p.who, 10))
		}
		return nil
	})
	if err != nil && err != redis.Nil {
		return fmt.Errorf("read follows: %w", err)
	}
	for i, p := range follows {
		on := led.follows[p]
		inStars, inFans := stars[i].Err() == nil, fans[i].Err() == nil
		if inStars != on || inFans != on {
			f.lost[fmt.Sprintf("follow %d %d", p.who, p.what)] = true
			f.fail("user %d's last acknowledged write of its follow of %d left it %v: its stars say %v, the star's fans %v", p.who, p.what, on, inStars, inFans)
		}
	}
	return nil
}
