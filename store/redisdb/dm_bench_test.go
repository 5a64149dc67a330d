package redisdb

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"microblog/store"
	"microblog/store/archive"
	"microblog/store/archive/archivetest"
	"microblog/store/redisdb/runner"
	"microblog/store/storetest"
)

// BenchmarkDMVsPost weighs a private message against a post with one
// fan, whole: the request (its round trips), and what runs behind it (the
// post's push into its fan's home timeline by the fan-out workers; both
// saved by the archiver to a SQLite archive, and moved out of Redis past
// their window). 100 authors with one fan each post; 100 pairs of users
// write one another. It reports CPU per op, this process's (getrusage: the
// request, the workers and the archiver) and Redis's (INFO), and prints
// the two side by side:
//
//	go test -run '^$' -bench BenchmarkDMVsPost -benchtime 5000x -count 3 ./store/redisdb
func BenchmarkDMVsPost(b *testing.B) {
	e := newTLBench(b, storetest.Start(b))
	db, err := archive.Open(e.ctx, archivetest.SQLite(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	limit := store.Limit{N: 1 << 30, Per: time.Minute} // counted, as on a server, never reached
	opt := Options{BcryptCost: 4, Archive: db, HotWindow: 200}
	writer := New(e.r.Client(), opt)
	e.writer = writer
	e.startWorkers()
	ctx, cancel := context.WithCancel(e.ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		runner.NewArchiver(New(e.r.Client(), opt), runner.ArchiverOptions{}).Run(ctx)
	}()
	b.Cleanup(func() { cancel(); <-done })

	const pairs = 100
	users := make([]int64, 2*pairs)
	for i := range users {
		users[i] = e.register(fmt.Sprintf("user%d", i))
	}
	for i := 0; i < len(users); i += 2 {
		e.follow(users[i+1], users[i])
	}
	content := "在吗？A line of about a hundred characters, as people write them to one another, to weigh a write."
	cpu := map[string]float64{}
	for _, kind := range []string{"post", "message"} {
		b.Run(kind, func(b *testing.B) {
			write := func(i int) {
				from, to := users[2*(i%pairs)], users[2*(i%pairs)+1]
				var err error
				if kind == "post" {
					_, err = writer.Create(e.ctx, store.NewPost{Author: from, Content: content, Limit: limit})
				} else {
					if i/pairs%2 == 1 {
						from, to = to, from
					}
					_, err = writer.SendDM(e.ctx, store.NewDM{From: from, To: to, Content: content, Limit: limit})
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			for i := range 200 { // warm up the connections
				write(i)
			}
			e.waitQueues()
			s0 := e.stats()
			b.ResetTimer()
			for i := range b.N {
				write(i)
			}
			e.waitQueues()
			b.StopTimer()
			s1 := e.stats()
			n := float64(b.N)
			goCPU, redisCPU := (s1.goCPU-s0.goCPU)*1e9/n, (s1.cpu-s0.cpu)*1e9/n
			b.ReportMetric(goCPU, "go-cpu-ns/op")
			b.ReportMetric(redisCPU, "redis-cpu-ns/op")
			b.ReportMetric(goCPU+redisCPU, "cpu-ns/op")
			cpu[kind] = goCPU + redisCPU
		})
	}
	if cpu["post"] > 0 && cpu["message"] > 0 {
		fmt.Fprintf(os.Stdout, "BenchmarkDMVsPost: CPU per message %.0f µs, per post with 1 fan %.0f µs: message / post = %.2f (goal at most 1); load %s\n",
			cpu["message"]/1e3, cpu["post"]/1e3, cpu["message"]/cpu["post"], tlLoad())
	}
}

// waitQueues waits until the fan-out and archive queues are empty.
func (e *tlBench) waitQueues() {
	e.waitQueue(time.Minute)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
		n, err := e.admin.XLen(context.Background(), e.writer.keys.ArchiveQueue()).Result()
		e.must(err)
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			e.b.Fatalf("archive queue still holds %d entries", n)
		}
	}
}
