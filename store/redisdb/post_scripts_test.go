package redisdb

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/crypto/bcrypt"

	"microblog/store"
	"microblog/store/redisdb/schema"
	"microblog/store/storetest"
)

// TestPostWholeAfterScriptFlush: a Redis that lost its scripts (SCRIPT
// FLUSH, as after a restart or a failover to a replica that never ran
// them) still takes every kind of post whole, and never half-applies one:
// on one Redis no EVALSHA is ever sent inside a transaction (where its
// NOSCRIPT would leave the transaction's other writes applied), and a
// plain post is its one script, alone, by EVALSHA, in one round trip after
// its claim; after the flush, two (NOSCRIPT, then EVAL). On a cluster,
// where a post's keys and indexes go to different masters in steps, no
// script runs inside a transaction: the posts must be whole all the same.
func TestPostWholeAfterScriptFlush(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	s.rdb.AddHook(roundTripHook{})
	alice, bob := s.user("alice"), s.user("bob")
	s.follow(bob, alice)
	if err := s.LoadScripts(s.ctx); err != nil {
		t.Fatal(err)
	}
	var mon *monitorLog
	if !storetest.ClusterMode() {
		mon = startMonitor(t, s)
	}

	// write posts np and returns it with the round trips its Create took.
	write := func(np store.NewPost) (store.Post, int64) {
		t.Helper()
		ctx, rt := CountRoundTrips(s.ctx)
		p, err := s.Create(ctx, np)
		if err != nil {
			t.Fatalf("create %+v: %v", np, err)
		}
		return p, rt.N()
	}
	flush := func() {
		t.Helper()
		if err := s.rdb.ScriptFlush(s.ctx).Err(); err != nil {
			t.Fatal(err)
		}
	}
	// whole checks that p is written and indexed whole: readable, in its
	// author's F and G, in the public timeline, in its topics' indexes,
	// counted, with its D and E.
	var posts int64
	whole := func(p store.Post) {
		t.Helper()
		got, err := s.Post(s.ctx, p.ID, 0)
		if err != nil || got.Content != p.Content {
			t.Fatalf("post %d read back %+v, %v", p.ID, got, err)
		}
		keys := []string{s.keys.UserPosts(alice), s.keys.Home(alice), s.keys.PublicTimeline()}
		for _, tag := range p.Tags {
			keys = append(keys, s.keys.TagPosts(store.TagKey(tag)))
		}
		for _, key := range keys {
			if _, err := s.rdb.ZScore(s.ctx, key, id(p.ID)).Result(); err != nil {
				t.Errorf("post %d: %s lacks it: %v", p.ID, key, err)
			}
		}
		if d, _ := s.rdb.Get(s.ctx, s.keys.PublicTime(p.ID)).Int64(); d != int64(p.CreatedAt) {
			t.Errorf("post %d: D holds %d, want %d", p.ID, d, p.CreatedAt)
		}
		if e, _ := s.rdb.Get(s.ctx, s.keys.Author(p.ID)).Int64(); e != alice {
			t.Errorf("post %d: E holds %d, want %d", p.ID, e, alice)
		}
		posts++
		if u, _ := s.User(s.ctx, alice, 0); u.PostsCount != posts {
			t.Errorf("posts_count %d, want %d", u.PostsCount, posts)
		}
	}

	plain, rt := write(store.NewPost{Author: alice, Content: "scripts loaded"})
	whole(plain)
	if !storetest.ClusterMode() && rt != 2 {
		t.Errorf("a plain post with its scripts loaded: %d round trips, want 2 (claim, script)", rt)
	}
	flush()
	plain, rt = write(store.NewPost{Author: alice, Content: "scripts flushed"})
	whole(plain)
	if !storetest.ClusterMode() && rt != 3 {
		t.Errorf("a plain post after SCRIPT FLUSH: %d round trips, want 3 (claim, NOSCRIPT, EVAL)", rt)
	}
	// Every other kind of post, each on a Redis that has just lost its
	// scripts: they go inside a transaction (topics, keys, polls) or take
	// other scripts (reposts, comments).
	for _, np := range []store.NewPost{
		{Author: alice, Content: "with a #topic"},
		{Author: alice, Content: "with a key", IdempotencyKey: "k1"},
		{Author: alice, Content: "with a poll", Poll: &store.NewPoll{Options: []string{"a", "b"}, ExpiresIn: 300}},
		{Author: alice, Content: "plain again"},
	} {
		flush()
		p, _ := write(np)
		whole(p)
	}
	flush()
	orig := s.post(store.NewPost{Author: bob, Content: "bob's"})
	flush()
	if _, rt := write(store.NewPost{Author: alice, RepostOf: orig.ID}); rt < 2 {
		t.Errorf("repost: %d round trips", rt)
	}
	if o, _ := s.Post(s.ctx, orig.ID, 0); o.RepostsCount != 1 {
		t.Errorf("the original counts %d reposts, want 1", o.RepostsCount)
	}
	flush()
	c, _ := write(store.NewPost{Author: alice, Parent: orig.ID, Content: "a comment"})
	if o, _ := s.Post(s.ctx, orig.ID, 0); o.CommentsCount != 1 {
		t.Errorf("the parent counts %d comments, want 1", o.CommentsCount)
	}
	if _, err := s.rdb.ZScore(s.ctx, s.keys.Comments(orig.ID), id(c.ID)).Result(); err != nil {
		t.Errorf("the comment is not in its parent's C: %v", err)
	}
	if mon == nil {
		return
	}
	calls := mon.stopAfter(t, s)
	if calls.evalsha < 2 {
		t.Errorf("%d EVALSHA calls: the plain posts did not go alone by EVALSHA", calls.evalsha)
	}
	if calls.inMulti != 0 {
		t.Errorf("%d EVALSHA calls inside MULTI: %v", calls.inMulti, calls.lines)
	}
	if calls.multi == 0 {
		t.Error("no transaction seen: the monitor missed the posts")
	}
}

// monitorLog watches a Redis with MONITOR, counting EVALSHA calls outside
// and inside transactions.
type monitorLog struct {
	cancel func()
	done   chan struct{}
	mu     sync.Mutex
	counts monitorCounts
}

type monitorCounts struct {
	evalsha, inMulti, multi int
	lines                   []string
	last                    string // the last line read
}

func startMonitor(t *testing.T, s testStore) *monitorLog {
	t.Helper()
	conn, err := net.Dial("tcp", s.rdb.(*redis.Client).Options().Addr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Write([]byte("MONITOR\r\n")); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewReader(conn)
	if ok, err := lines.ReadString('\n'); err != nil || ok != "+OK\r\n" {
		t.Fatalf("MONITOR answered %q, %v", ok, err)
	}
	m := &monitorLog{cancel: func() { conn.Close() }, done: make(chan struct{})}
	go func() {
		defer close(m.done)
		inMulti := map[string]bool{} // by client address
		for {
			line, err := lines.ReadString('\n')
			if err != nil {
				return
			}
			m.count(strings.TrimPrefix(strings.TrimSpace(line), "+"), inMulti)
		}
	}()
	t.Cleanup(func() { m.stop() })
	return m
}

// count reads one MONITOR line: `<time> [<db> <client>] "<command>" ...`.
func (m *monitorLog) count(line string, inMulti map[string]bool) {
	open, end := strings.IndexByte(line, '['), strings.IndexByte(line, ']')
	if open < 0 || end < open {
		return
	}
	fields := strings.Fields(line[open+1 : end])
	if len(fields) < 2 || fields[1] == "lua" {
		return
	}
	client := fields[1]
	rest := strings.TrimSpace(line[end+1:])
	name, _ := strconv.Unquote(strings.SplitN(rest, " ", 2)[0])
	m.mu.Lock()
	defer m.mu.Unlock()
	m.counts.last = line
	switch strings.ToLower(name) {
	case "multi":
		inMulti[client] = true
		m.counts.multi++
	case "exec", "discard":
		inMulti[client] = false
	case "evalsha":
		m.counts.evalsha++
		if inMulti[client] {
			m.counts.inMulti++
			m.counts.lines = append(m.counts.lines, line[:min(len(line), 200)])
		}
	}
}

// stopAfter stops the watch once it has seen every command sent before:
// an ECHO of a word of its own sent after them.
func (m *monitorLog) stopAfter(t *testing.T, s testStore) monitorCounts {
	t.Helper()
	probe := fmt.Sprintf("monitor-probe-%d", time.Now().UnixNano())
	if err := s.rdb.Echo(s.ctx, probe).Err(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(storetest.HangWait)
	for {
		m.mu.Lock()
		seen := strings.Contains(m.counts.last, probe)
		m.mu.Unlock()
		if seen {
			return m.stop()
		}
		if time.Now().After(deadline) {
			t.Fatal("MONITOR never showed the probe")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// stop stops the watch and returns what it counted.
func (m *monitorLog) stop() monitorCounts {
	m.cancel()
	<-m.done
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.counts
}

// TestPostHashAsArgsWritesIt: whichever way a post's hash is written
// (post_index.lua, which knows the names of the fields every post has, or
// HSET in a transaction), Redis holds the very fields and values that
// schema.PostHash.Args gives for it, nothing more, nothing less.
func TestPostHashAsArgsWritesIt(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	alice, bob := s.user("alice"), s.user("bob")
	orig := s.post(store.NewPost{Author: bob, Content: "an original"})
	for _, np := range []store.NewPost{
		{Author: alice, Content: "plain"},
		{Author: alice, Content: "with a warning", Spoiler: "spoilers"},
		{Author: alice, Content: "with a #topic and @bob"},
		{Author: alice, Content: "with a key", IdempotencyKey: "hash-k1"},
		{Author: alice, Content: "with a poll", Poll: &store.NewPoll{Options: []string{"a", "b"}, ExpiresIn: 300}},
		{Author: alice, RepostOf: orig.ID},
		{Author: alice, Content: "a comment", Parent: orig.ID},
	} {
		p := s.post(np)
		got, err := s.rdb.HGetAll(s.ctx, s.keys.Post(p.ID)).Result()
		if err != nil {
			t.Fatal(err)
		}
		var h schema.PostHash
		if err := s.rdb.HGetAll(s.ctx, s.keys.Post(p.ID)).Scan(&h); err != nil {
			t.Fatal(err)
		}
		if h.Author != alice || h.Time != int64(p.CreatedAt) || h.Content != p.Content {
			t.Fatalf("%q: the hash reads %+v", np.Content, h)
		}
		want := map[string]string{}
		args := h.Args()
		for i := 0; i < len(args); i += 2 {
			want[args[i].(string)] = fmt.Sprint(args[i+1])
		}
		for _, f := range []string{schema.FieldIdem, schema.FieldUnfinished} { // not the message's own: the write's
			if v, ok := got[f]; ok {
				want[f] = v
			}
		}
		if !maps.Equal(got, want) {
			t.Errorf("%q: Redis holds\n%v\nwant\n%v", np.Content, got, want)
		}
	}
}

// TestPostQueuesItsPushJob: a post's push job, which post_index.lua writes
// itself on one Redis, reads back (schema.ParseJob) as the job of that
// post, as schema.Job.Values would have written it. No fan-out worker
// runs, so the entry stays in the queue.
func TestPostQueuesItsPushJob(t *testing.T) {
	parallel(t)
	s := testStore{Store: New(storetest.NewBackend(t).Client(), Options{BcryptCost: bcrypt.MinCost}), t: t, ctx: context.Background()}
	alice := s.user("alice")
	before := s.Now()
	p := s.post(store.NewPost{Author: alice, Content: "a plain post"})
	msgs, err := s.rdb.XRevRangeN(s.ctx, s.keys.FanOutQueue(), "+", "-", 1).Result()
	if err != nil || len(msgs) != 1 {
		t.Fatalf("the queue holds %v, %v", msgs, err)
	}
	j := schema.ParseJob(msgs[0])
	if j.Op != schema.OpPush || j.Author != alice || j.Mid != p.ID || j.At < before || j.At > s.Now() || !j.Settles {
		t.Fatalf("the job reads %+v, want a push of %d by %d at %d or later", j, p.ID, alice, before)
	}
	if len(msgs[0].Values) != len(schema.Job{}.Values())/2 {
		t.Fatalf("the job's fields are %v, want those of schema.Job.Values", msgs[0].Values)
	}
}
