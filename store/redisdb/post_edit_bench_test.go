package redisdb

import (
	"fmt"
	"os"
	"testing"

	"microblog/store"
	"microblog/store/storetest"
)

// BenchmarkEditCost weighs an edit against a post: the same author writes
// posts (create) or edits them (edit, each post 10 times, to text of the
// same shape: a topic that stays, about a hundred characters), on the
// request side, as a server runs it: with a CacheListener, so the author's
// card and lens come from memory, and no fan-out worker (a post's push job
// runs later, off the request path; an edit has none). It reports CPU per
// op, this process's (getrusage) and Redis's (INFO), round trips, and the
// edit's CPU over the post's:
//
//	go test -run '^$' -bench BenchmarkEditCost -benchtime 3000x ./store/redisdb
func BenchmarkEditCost(b *testing.B) {
	e := newTLBench(b, storetest.Start(b))
	runCaches(b, e.writer)
	author := e.register("author")
	content := func(i int) string {
		return fmt.Sprintf("Post %d about #redis: a line of about a hundred characters, as people write them, to weigh a write.", i)
	}
	create := func(i int) int64 {
		p, err := e.writer.Create(e.ctx, store.NewPost{Author: author, Content: content(i)})
		if err != nil {
			b.Fatal(err)
		}
		return p.ID
	}
	cpu := map[string]float64{}
	for _, op := range []string{"create", "edit"} {
		b.Run(op, func(b *testing.B) {
			var mids []int64
			if op == "edit" {
				for i := range (b.N + store.MaxEdits - 1) / store.MaxEdits {
					mids = append(mids, create(i))
				}
			}
			for i := range 50 { // warm up the connections and the caches
				create(i)
			}
			e.writerTrips.n.Store(0)
			s0 := e.stats()
			b.ResetTimer()
			for i := range b.N {
				if op == "create" {
					create(i)
				} else if _, err := e.writer.Edit(e.ctx, author, mids[i/store.MaxEdits], content(b.N+i)); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			cpu[op] = e.reportCPU(b, s0, e.stats(), e.writerTrips)
		})
	}
	if cpu["create"] > 0 && cpu["edit"] > 0 {
		fmt.Fprintf(os.Stdout, "BenchmarkEditCost: edit / post CPU per op = %.2f (goal: about 1); load %s\n",
			cpu["edit"]/cpu["create"], tlLoad())
	}
}
