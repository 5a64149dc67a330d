package redisdb

import (
	"bytes"
	"log/slog"
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
	s := New(rdb, Options{BcryptCost: bcrypt.MinCost, Logger: log})
	stop := runFanOut(t, NewFanOut(s, FanOutOptions{Helpers: 6, Logger: log}))
	time.Sleep(1500 * time.Millisecond) // 5 reads of each helper at least
	stop()
	lines := strings.Count(logs.String(), `msg="fan-out: helper: read queue"`)
	if lines != 1 {
		t.Fatalf("6 helpers failing for 1.5 s logged %d lines, want 1:\n%s", lines, logs.String())
	}
}
