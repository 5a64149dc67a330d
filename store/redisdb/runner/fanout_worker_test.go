package runner

import (
	"bytes"
	"log/slog"

	"microblog/store/redisdb"

	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/crypto/bcrypt"
)

// lockedBuffer is a bytes.Buffer that goroutines may write at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestHelpersLogTheirFailureOnce: while Redis is away, a process's fan-out
// helpers (6 here), which all fail every readBlock, log it once every
// helperWarnEvery between them, not 20 lines a second (a chaos run's logs
// held 300 of them for one failover).
func TestHelpersLogTheirFailureOnce(t *testing.T) {
	parallel(t)
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1}) // nothing listens there
	t.Cleanup(func() { rdb.Close() })
	var logs lockedBuffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	s := redisdb.New(rdb, redisdb.Options{BcryptCost: bcrypt.MinCost, Logger: log})
	stop := runFanOut(t, NewFanOut(s, FanOutOptions{Helpers: 6, Logger: log}))
	time.Sleep(1500 * time.Millisecond) // 5 reads of each helper at least
	stop()
	lines := strings.Count(logs.String(), `msg="fan-out: helper: read queue"`)
	if lines != 1 {
		t.Fatalf("6 helpers failing for 1.5 s logged %d lines, want 1:\n%s", lines, logs.String())
	}
}

// TestWalkFansThroughTies: fans who followed in the same millisecond, more
// than a batch of them, are each walked once, in follow order.
func TestWalkFansThroughTies(t *testing.T) {
	parallel(t)
	s := newTestStore(t)
	var zs []redis.Z
	for i := range 2*FanOutBatch + 37 {
		score := float64(1000 + i/(FanOutBatch+100)) // two big ties, then a few
		zs = append(zs, redis.Z{Score: score, Member: 5000 + i})
	}
	if err := s.rdb.ZAdd(s.ctx, s.keys.Fans(1), zs...).Err(); err != nil {
		t.Fatal(err)
	}
	seen := map[int64]int{}
	err := NewFanOut(s.Store, FanOutOptions{}).walkFans(s.ctx, 1, func(fans []int64) error {
		for _, f := range fans {
			seen[f]++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != len(zs) {
		t.Fatalf("walked %d fans, want %d", len(seen), len(zs))
	}
	for f, n := range seen {
		if n != 1 {
			t.Fatalf("fan %d walked %d times", f, n)
		}
	}
}
