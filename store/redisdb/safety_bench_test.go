package redisdb

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/storetest"
)

// BenchmarkHomeLens weighs the safety rule on the read path: the first
// home page (20) of a reader who blocks 1,000 users and filters 100 words
// against that of a reader who does neither, both following the same 20
// stars, so both read the same 20 posts (no word matches, no star is
// blocked). As on a server, a CacheListener runs, so each reader's lens and
// the authors' cards come from memory. It reports CPU per read, this
// process's (getrusage) and Redis's (INFO), and the lens reader's ratio:
//
//	go test -run '^$' -bench BenchmarkHomeLens -benchtime 3000x -count 3 ./store/redisdb
func BenchmarkHomeLens(b *testing.B) {
	e := newTLBench(b, storetest.Start(b))
	e.startWorkers()
	runCaches(b, e.reader)
	plain, lensed := e.register("plain"), e.register("lensed")
	for i := range 20 {
		star := e.register(fmt.Sprintf("star%d", i))
		e.follow(plain, star)
		e.follow(lensed, star)
		for n := range 3 {
			content := fmt.Sprintf("Post %d of star %d: a line of about a hundred characters, as people write them, to weigh a read.", n, i)
			if (i+n)%2 == 1 {
				content = fmt.Sprintf("第%d条，来自%d号：今天下午在图书馆看书，窗外下着小雨，想起了很多往事，写下这几句话。", n, i)
			}
			if _, err := e.writer.Create(e.ctx, store.NewPost{Author: star, Content: content}); err != nil {
				b.Fatal(err)
			}
		}
	}
	e.waitQueue(time.Minute)
	words := make([]string, 0, store.MaxFilters)
	for i := range store.MaxFilters / 2 {
		words = append(words, fmt.Sprintf("Spoiler%d", i), fmt.Sprintf("剧透%d", i))
	}
	if _, err := e.writer.SetFilters(e.ctx, lensed, words); err != nil {
		b.Fatal(err)
	}
	e.blockMany(lensed, 1000)
	if l, err := e.reader.Lens(e.ctx, lensed); err != nil || len(l.Hidden) != 1000 || len(l.Words) != store.MaxFilters {
		b.Fatalf("the lensed reader's lens: %v", err)
	}

	q := store.PageQuery{Limit: 20}
	cpu := map[string]float64{}
	for _, r := range []struct {
		name string
		uid  int64
	}{{"plain", plain}, {"lens", lensed}} {
		b.Run(r.name, func(b *testing.B) {
			read := func() {
				page, err := e.reader.HomeTimeline(e.ctx, r.uid, q)
				if err != nil || len(page.Items) != 20 {
					b.Fatalf("home page of %d posts, %v; want 20", len(page.Items), err)
				}
			}
			for range 50 { // warm up the connections and the caches
				read()
			}
			e.readerTrips.n.Store(0)
			s0 := e.stats()
			b.ResetTimer()
			for range b.N {
				read()
			}
			b.StopTimer()
			cpu[r.name] = e.reportCPU(b, s0, e.stats(), e.readerTrips)
		})
	}
	if cpu["plain"] > 0 && cpu["lens"] > 0 {
		fmt.Fprintf(os.Stdout, "BenchmarkHomeLens: lens reader / plain reader CPU per read = %.2f (goal at most 1.2); load %s\n",
			cpu["lens"]/cpu["plain"], tlLoad())
	}
}

// register makes a user through the writer store and returns its uid.
func (e *tlBench) register(name string) int64 {
	e.b.Helper()
	u, _, err := e.writer.Register(e.ctx, name, "password123")
	if err != nil {
		e.b.Fatal(err)
	}
	return u.ID
}

// blockMany makes uid block n users (ids no one has), with their mirrors,
// straight into Redis.
func (e *tlBench) blockMany(uid int64, n int) {
	k := e.writer.keys
	zs := make([]redis.Z, n)
	_, err := e.admin.Pipelined(e.ctx, func(pl redis.Pipeliner) error {
		for i := range zs {
			other := int64(50_000_000 + i)
			zs[i] = redis.Z{Score: float64(time.Now().UnixMilli()), Member: other}
			pl.SAdd(e.ctx, k.BlockedBy(other), uid)
		}
		pl.ZAdd(e.ctx, k.Blocking(uid), zs...)
		return nil
	})
	e.must(err)
}

// BenchmarkProtect times turning the protection of an account on and off
// (one op: both), for accounts of 1,000 and of 100,000 posts: the switch is
// one flag and what follows it touches at most the newest HotWindow posts,
// so the two must take about as long.
//
//	go test -run '^$' -bench BenchmarkProtect -benchtime 200x ./store/redisdb
func BenchmarkProtect(b *testing.B) {
	e := newTLBench(b, storetest.Start(b))
	for _, posts := range []int{1000, 100_000} {
		uid := e.register(fmt.Sprintf("author%d", posts))
		e.seedPosts(uid, posts)
		b.Run(fmt.Sprintf("posts=%d", posts), func(b *testing.B) {
			for range b.N {
				for _, on := range []bool{true, false} {
					if u, err := e.writer.SetProtected(e.ctx, uid, on); err != nil || u.Protected != on {
						b.Fatalf("SetProtected(%v): %+v, %v", on, u, err)
					}
				}
			}
		})
	}
}

// seedPosts writes n posts of uid straight into Redis, in pipelines of
// about 10,000 commands: their B hashes, the author's F set, and the newest
// HotWindow of them in the public timeline, as writing them would leave it.
func (e *tlBench) seedPosts(uid int64, n int) {
	k, hot := e.writer.keys, e.writer.opt.HotWindow
	name, err := e.writer.username(e.ctx, uid)
	e.must(err)
	last, err := e.admin.IncrBy(e.ctx, k.LastPostID(), int64(n)).Result()
	e.must(err)
	first, now := last-int64(n)+1, time.Now().UnixMilli()
	content := strings.Repeat("x", 100)
	const chunk = 10000
	for lo := first; lo <= last; lo += chunk {
		hi := min(last, lo+chunk-1)
		zs := make([]redis.Z, 0, hi-lo+1)
		_, err := e.admin.Pipelined(e.ctx, func(pl redis.Pipeliner) error {
			for mid := lo; mid <= hi; mid++ {
				pl.HSet(e.ctx, k.Post(mid), "content", content, "author", uid, "username", name,
					"time", now, "kind", store.KindPost)
				zs = append(zs, redis.Z{Score: float64(mid), Member: mid})
			}
			pl.ZAdd(e.ctx, k.UserPosts(uid), zs...)
			if hi > last-int64(hot) {
				pl.ZAdd(e.ctx, k.PublicTimeline(), zs[max(0, len(zs)-hot):]...)
				pl.ZRemRangeByRank(e.ctx, k.PublicTimeline(), 0, int64(-hot-1))
			}
			return nil
		})
		e.must(err)
	}
}
