package redisdb

import (
	"context"
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"
	"golang.org/x/crypto/bcrypt"

	"microblog/store"
	"microblog/store/storetest"
)

// Run with: make bench
// Each benchmark talks to its own redis-server on loopback, so the figures
// are dominated by round trips: fewer round trips, faster writes and reads.

// benchStar makes a store with one author followed by fans users.
func benchStar(b *testing.B, fans int) (*Store, int64) {
	b.Helper()
	ctx := context.Background()
	s := New(storetest.Start(b).Client(), Options{BcryptCost: bcrypt.MinCost})
	star, _, err := s.Register(ctx, "star", "password123")
	if err != nil {
		b.Fatal(err)
	}
	for i := range fans {
		u, _, err := s.Register(ctx, fmt.Sprintf("fan%d", i), "password123")
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Follow(ctx, u.ID, star.ID); err != nil {
			b.Fatal(err)
		}
	}
	return s, star.ID
}

// BenchmarkCreatePost times the request side of a post: the fan-out into the
// fans' home timelines runs later, in the workers (see BenchmarkTimelines),
// so the fan count changes nothing here. It reports the CPU its Redis and
// this process spent per post (redis-cpu-µs/op, app-cpu-µs/op): one post
// after the other, so Redis's share is its part of the write itself, which
// two builds compare on with -count and no other load.
func BenchmarkCreatePost(b *testing.B) {
	for _, fans := range []int{0, 100, 1000} {
		b.Run(fmt.Sprintf("fans=%d", fans), func(b *testing.B) {
			s, star := benchStar(b, fans)
			ctx := context.Background()
			rdb := s.rdb.(*redis.Client)
			b.ResetTimer()
			r0, a0 := benchRedisCPU(b, rdb), benchAppCPU()
			for i := 0; i < b.N; i++ {
				if _, err := s.Create(ctx, store.NewPost{Author: star, Content: "benchmark post"}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((benchRedisCPU(b, rdb)-r0)*1e6/float64(b.N), "redis-cpu-µs/op")
			b.ReportMetric((benchAppCPU()-a0)*1e6/float64(b.N), "app-cpu-µs/op")
		})
	}
}

func BenchmarkHomeTimelinePage(b *testing.B) {
	s, star := benchStar(b, 0)
	ctx := context.Background()
	var last int64
	for i := range 200 {
		np := store.NewPost{Author: star, Content: fmt.Sprint("post ", i)}
		if i%4 == 3 {
			// A quarter are reposts (one per original: a user reposts a
			// post once), which need their original too.
			np.RepostOf = last
		}
		p, err := s.Create(ctx, np)
		if err != nil {
			b.Fatal(err)
		}
		last = p.ID
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		page, err := s.HomeTimeline(ctx, star, store.PageQuery{Limit: 20})
		if err != nil || len(page.Items) != 20 {
			b.Fatal(err, len(page.Items))
		}
	}
}
