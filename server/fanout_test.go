package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store/storetest"
)

// seedFans makes n users (uids from first on) follow star straight in Redis,
// in follow order, without accounts: enough for the fan-out, which reads
// only A:<star>:fansID. It returns their uids.
func seedFans(t testing.TB, rdb redis.UniversalClient, star, first int64, n int) []int64 {
	t.Helper()
	ctx := context.Background()
	uids := make([]int64, n)
	zs := make([]redis.Z, n)
	for i := range n {
		uids[i] = first + int64(i)
		zs[i] = redis.Z{Score: float64(1_700_000_000_000 + i), Member: uids[i]}
	}
	if err := rdb.ZAdd(ctx, keysOf(rdb).Fans(star), zs...).Err(); err != nil {
		t.Fatal(err)
	}
	return uids
}

// pushedTo counts the fans whose G holds mid, and fails if any holds it
// twice or holds anything else.
func pushedTo(t testing.TB, rdb redis.UniversalClient, fans []int64, mid int64) int {
	t.Helper()
	ctx := context.Background()
	k := keysOf(rdb)
	cmds, _ := rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for _, f := range fans {
			pl.ZRange(ctx, k.Home(f), 0, -1)
		}
		return nil
	})
	n := 0
	for i, c := range cmds {
		got := c.(*redis.StringSliceCmd).Val()
		switch {
		case len(got) == 0:
		case len(got) == 1 && got[0] == fmt.Sprint(mid):
			n++
		default:
			t.Fatalf("fan %d's G holds %v, want only %d", fans[i], got, mid)
		}
	}
	return n
}

// serverBinary builds the server once per test binary run.
func serverBinary(t testing.TB) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	bin := filepath.Join(t.TempDir(), "microblog")
	if out, err := exec.Command(gobin, "build", "-o", bin, "microblog/server").CombinedOutput(); err != nil {
		t.Fatalf("build the server: %v\n%s", err, out)
	}
	return bin
}

// process is a server binary running as its own process.
type process struct {
	cmd  *exec.Cmd
	URL  string
	logs *syncBuffer
}

// startProcess runs bin on r with the test defaults and env, and waits until
// it is ready.
func startProcess(t testing.TB, bin string, b *storetest.Backend, env ...string) *process {
	t.Helper()
	addr := "127.0.0.1:" + strconv.Itoa(storetest.Port(t)) // it must know its address before it starts
	p := &process{cmd: exec.Command(bin), URL: "http://" + addr, logs: &syncBuffer{}}
	dir := backendDir(t, b) // shared by every process on b, as startOn's
	p.cmd.Env = append(append(os.Environ(), b.Env()...), "MICROBLOG_ADDR="+addr,
		"MICROBLOG_RATE_LIMITS=off", "MICROBLOG_BCRYPT_COST=4", "MICROBLOG_LOG_LEVEL=info", "MICROBLOG_MEDIA_DIR="+dir+"/media", "MICROBLOG_ARCHIVE=sqlite:"+dir+"/archive.db")
	p.cmd.Env = append(p.cmd.Env, env...)
	p.cmd.Stderr = p.logs
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		p.cmd.Wait()
		if t.Failed() {
			t.Logf("log of %s:\n%s", addr, p.logs.String())
		}
	})
	for deadline := time.Now().Add(startWait); ; time.Sleep(20 * time.Millisecond) {
		if resp, err := http.Get(p.URL + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return p
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("server process not ready\n%s", p.logs.String())
		}
	}
}

// TestFanOutSurvivesSIGKILL: a server process is killed with SIGKILL in the
// middle of a fan-out (slowed down by a pause between batches); another
// process takes the job over, and every fan's G ends with the post exactly
// once.
func TestFanOutSurvivesSIGKILL(t *testing.T) {
	parallel(t)
	bin := serverBinary(t)
	r := storetest.NewBackend(t)
	rdb := r.Client()
	a := startProcess(t, bin, r, "MICROBLOG_FANOUT_BATCH_DELAY=400ms", "MICROBLOG_FANOUT_WORKERS=1")
	ts := &testServer{t: t, URL: a.URL}
	starTok, starID := ts.register(t, "star")
	fans := seedFans(t, rdb, starID, 1000, 3000) // six batches of 500
	mid := ts.newPost(t, starTok, "to 3000 fans")

	for deadline := time.Now().Add(hangWait); pushedTo(t, rdb, fans, mid) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the fan-out never started\n%s", a.logs.String())
		}
	}
	a.cmd.Process.Signal(syscall.SIGKILL)
	a.cmd.Wait()
	half := pushedTo(t, rdb, fans, mid)
	if half == 0 || half == len(fans) {
		t.Fatalf("killed with %d of %d fans pushed: not in the middle", half, len(fans))
	}
	t.Logf("killed after %d of %d fans", half, len(fans))

	b := startProcess(t, bin, r, "MICROBLOG_FANOUT_CLAIM_IDLE=500ms")
	for deadline := time.Now().Add(hangWait); ; time.Sleep(50 * time.Millisecond) {
		if n := pushedTo(t, rdb, fans, mid); n == len(fans) {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("after the take-over %d of %d fans have the post\n%s", n, len(fans), b.logs.String())
		}
	}
	settle(t, rdb)
	if !strings.Contains(b.logs.String(), "took over a job") {
		t.Fatalf("the second process did not say it took the job over:\n%s", b.logs.String())
	}
	k := keysOf(rdb)
	for shard := range k.PullShards() {
		if n := rdb.HLen(context.Background(), k.FanOutPendingShard(shard)).Val(); n != 0 {
			t.Fatalf("%d posts still marked pending", n)
		}
	}
}

// TestReplayWhileFanOutInFlight: a fan reconnects with ?after= while the
// post's fan-out has not reached it yet; the post arrives once, by replay.
func TestReplayWhileFanOutInFlight(t *testing.T) {
	parallel(t)
	ts := newTestServer(t, "MICROBLOG_FANOUT_BATCH_DELAY=300ms", "MICROBLOG_FANOUT_WORKERS=1")
	rdb := ts.rdb()
	starTok, starID := ts.register(t, "star")
	seedFans(t, rdb, starID, 1000, 1500)
	fanTok, fanID := ts.register(t, "fan")
	ts.follow(t, fanTok, "star", true) // followed last: the last batch reaches it
	ws := ts.dialWS(t, fanTok, "")
	last := ws.ready(t)
	ws.Conn.Close()

	mid := ts.newPost(t, starTok, "in flight")
	ws = ts.dialWS(t, fanTok, "after="+fmt.Sprint(last))
	if inG(rdb, fanID, mid) {
		t.Fatal("the fan-out reached the fan before it reconnected: the test proves nothing")
	}
	ws.expect(t, "post", mid)
	if got := ws.ready(t); got != mid {
		t.Fatalf("ready last_id %d, want %d", got, mid)
	}
	settle(t, rdb)
	select {
	case f := <-ws.Frames():
		t.Fatalf("after the replay came %s", f)
	case <-time.After(300 * time.Millisecond):
	}
	if !inG(rdb, fanID, mid) {
		t.Fatal("the fan-out never reached the fan")
	}
}
