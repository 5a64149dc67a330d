package redisdb

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/crypto/bcrypt"

	"microblog/store"
	"microblog/store/archive"
	"microblog/store/archive/archivetest"
	"microblog/store/redisdb/runner"
	"microblog/store/storetest"
)

// BenchmarkLikeAndTopic times, with the archive on (SQLite, its archiver
// running) and a hot window of 100, a like or an unlike (by turns) of a hot
// post and of an archived one, and a page of 20 of a topic's posts: its
// newest (hot) and past the hot window (archived). Beside ns/op it reports
// the CPU of this process (app-cpu-µs/op) and of Redis (redis-cpu-µs/op).
//
//	go test -run '^$' -bench LikeAndTopic ./store/redisdb   # make bench runs it
func BenchmarkLikeAndTopic(b *testing.B) {
	ctx := context.Background()
	db, err := archive.Open(ctx, archivetest.SQLite(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	rdb := storetest.Start(b).Client()
	s := New(rdb, Options{BcryptCost: bcrypt.MinCost, HotWindow: 100, Archive: db})
	actx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); runner.NewArchiver(s, runner.ArchiverOptions{}).Run(actx) }()
	b.Cleanup(func() { cancel(); <-done })
	author, _, err := s.Register(ctx, "author", "password123")
	if err != nil {
		b.Fatal(err)
	}
	fan, _, err := s.Register(ctx, "fan", "password123")
	if err != nil {
		b.Fatal(err)
	}
	var mids []int64
	for i := range 400 {
		p, err := s.Create(ctx, store.NewPost{Author: author.ID, Content: fmt.Sprintf("post %d #bench", i)})
		if err != nil {
			b.Fatal(err)
		}
		mids = append(mids, p.ID)
	}
	for rdb.XLen(ctx, s.keys.ArchiveQueue()).Val() > 0 || rdb.Exists(ctx, s.keys.Post(mids[0])).Val() == 1 {
		time.Sleep(10 * time.Millisecond)
	}
	like := func(mid int64) func(i int) error {
		return func(i int) error { return s.Like(ctx, fan.ID, mid, i%2 == 0) }
	}
	topic := func(before int64) func(int) error {
		return func(int) error {
			page, err := s.TagPosts(ctx, "bench", store.PageQuery{Limit: 20, Cursor: store.Cursor{Score: before}})
			if err == nil && len(page.Items) != 20 {
				err = fmt.Errorf("a topic page of %d posts, want 20", len(page.Items))
			}
			return err
		}
	}
	for _, c := range []struct {
		name string
		op   func(int) error
	}{
		{"like/hot", like(mids[len(mids)-1])},
		{"like/archived", like(mids[0])},
		{"topic/newest", topic(0)},
		{"topic/archived", topic(mids[200])},
	} {
		b.Run(c.name, func(b *testing.B) {
			r0, a0 := benchRedisCPU(b, rdb), benchAppCPU()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := c.op(i); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric((benchAppCPU()-a0)*1e6/float64(b.N), "app-cpu-µs/op")
			b.ReportMetric((benchRedisCPU(b, rdb)-r0)*1e6/float64(b.N), "redis-cpu-µs/op")
		})
	}
}

// benchRedisCPU is Redis's CPU time so far, in seconds.
func benchRedisCPU(b *testing.B, rdb *redis.Client) float64 {
	info, err := rdb.Info(context.Background(), "cpu").Result()
	if err != nil {
		b.Fatal(err)
	}
	return arInfoFloat(info, "used_cpu_user") + arInfoFloat(info, "used_cpu_sys")
}

// benchAppCPU is this process's CPU time so far, in seconds.
func benchAppCPU() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
