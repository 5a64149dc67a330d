package runner

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"microblog/store"
	"microblog/store/redisdb"
)

// The deliverer's tests send to real HTTP servers (httptest) through a
// plain POST: the signing and the safe client are server/federation's,
// tested there (server/fed_out_*_test.go).

// sink is an inbox on a test HTTP server that records what it is sent and
// answers with status (200 when 0), after delay.
type sink struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []sinkHit
	// answer picks the status of the n-th request (from 0).
	answer func(n int) int
	delay  time.Duration
}

type sinkHit struct {
	at   time.Time
	body string
}

func newSink(t *testing.T) *sink {
	s := &sink{}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if s.delay > 0 {
			select {
			case <-time.After(s.delay):
			case <-r.Context().Done():
				return
			}
		}
		s.mu.Lock()
		n := len(s.got)
		s.got = append(s.got, sinkHit{at: time.Now(), body: string(b)})
		status := 202
		if s.answer != nil {
			status = s.answer(n)
		}
		s.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *sink) hits() []sinkHit {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]sinkHit(nil), s.got...)
}

// postJob is a Deliver that POSTs the body and tells the outcome by the
// status, as server/federation's does.
func postJob(ctx context.Context, job store.DeliveryJob) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, job.Inbox, bytes.NewReader(job.Body))
	if err != nil {
		return fmt.Errorf("%w: %v", store.ErrDeliveryRefused, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	switch c := resp.StatusCode; {
	case c >= 200 && c < 300:
		return nil
	case c == 408 || c == 429 || c >= 500:
		return fmt.Errorf("inbox answered %d", c)
	default:
		return fmt.Errorf("%w: inbox answered %d", store.ErrDeliveryRefused, c)
	}
}

// deadInbox is the URL of a port nothing listens on (connection refused).
func deadInbox(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/inbox"
}

func (s testStore) deliverer(opt DelivererOptions) {
	if opt.Deliver == nil {
		opt.Deliver = postJob
	}
	opt.ClaimIdle = cmp0(opt.ClaimIdle, time.Second)
	s.run(NewDeliverer(s.Store, opt).Run)
}

func cmp0(d, or time.Duration) time.Duration {
	if d == 0 {
		return or
	}
	return d
}

// waitHits waits until sk has n requests, within.
func waitHits(t *testing.T, sk *sink, n int, within time.Duration) []sinkHit {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		h := sk.hits()
		if len(h) >= n {
			return h
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s got %d requests, want %d", sk.srv.URL, len(h), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// queueDrained waits until the stream and the retries are empty and no
// delivery body is left.
func (s testStore) queueDrained(within time.Duration) {
	s.t.Helper()
	deadline := time.Now().Add(within)
	for {
		n, _ := s.rdb.XLen(s.ctx, s.keys.FedDeliveries()).Result()
		r, _ := s.rdb.ZCard(s.ctx, s.keys.FedRetries()).Result()
		bodies, _ := s.rdb.Keys(s.ctx, s.keys.FedDeliveryBody("*")).Result()
		if n == 0 && r == 0 && len(bodies) == 0 {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("delivery queue not drained: %d jobs, %d retries, bodies %v", n, r, bodies)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestDelivererOneRequestPerInbox: a delivery to the same inboxes named
// several times sends one request to each, with the body, and leaves
// nothing in Redis once sent.
func TestDelivererOneRequestPerInbox(t *testing.T) {
	parallel(t)
	s := newIdleStore(t, redisdb.Options{})
	a, b := newSink(t), newSink(t)
	body := `{"id":"https://here.example/ap/activities/1","type":"Create"}`
	err := s.EnqueueDelivery(s.ctx, store.Delivery{ID: "https://here.example/ap/activities/1", Signer: 7, Body: []byte(body),
		Inboxes: []string{a.srv.URL + "/inbox", b.srv.URL + "/inbox", a.srv.URL + "/inbox", "not a url", b.srv.URL + "/inbox"}})
	if err != nil {
		t.Fatal(err)
	}
	s.deliverer(DelivererOptions{})
	for _, sk := range []*sink{a, b} {
		h := waitHits(t, sk, 1, 5*time.Second)
		if h[0].body != body {
			t.Fatalf("body %q, want %q", h[0].body, body)
		}
	}
	s.queueDrained(5 * time.Second)
	time.Sleep(100 * time.Millisecond)
	if len(a.hits()) != 1 || len(b.hits()) != 1 {
		t.Fatalf("requests: %d and %d, want one each", len(a.hits()), len(b.hits()))
	}
}

// TestDelivererRetriesWithBackoff: an inbox that answers 503 twice gets the
// job a third time, each wait longer than the one before; one that answers
// 404 (or 410) gets it once; one that always fails is given up once
// GiveUpAfter has passed, and the queue is left empty.
func TestDelivererRetriesWithBackoff(t *testing.T) {
	parallel(t)
	s := newIdleStore(t, redisdb.Options{})
	flaky, gone, broken := newSink(t), newSink(t), newSink(t)
	flaky.answer = func(n int) int {
		if n < 2 {
			return 503
		}
		return 202
	}
	gone.answer = func(int) int { return 410 }
	broken.answer = func(int) int { return 500 }
	base := 200 * time.Millisecond
	s.deliverer(DelivererOptions{RetryBase: base, GiveUpAfter: 1500 * time.Millisecond})
	for _, sk := range []*sink{flaky, gone, broken} {
		if err := s.EnqueueDelivery(s.ctx, store.Delivery{ID: "x", Body: []byte(`{}`), Inboxes: []string{sk.srv.URL + "/inbox"}}); err != nil {
			t.Fatal(err)
		}
	}
	h := waitHits(t, flaky, 3, 10*time.Second)
	first, second := h[1].at.Sub(h[0].at), h[2].at.Sub(h[1].at)
	if first < base || second < 2*base {
		t.Fatalf("retries after %v and %v, want at least %v and %v", first, second, base, 2*base)
	}
	s.queueDrained(10 * time.Second)
	if n := len(gone.hits()); n != 1 {
		t.Fatalf("the 410 inbox got %d requests, want 1", n)
	}
	if n := len(broken.hits()); n < 2 || n > 6 {
		t.Fatalf("the failing inbox got %d requests before it was given up, want a few", n)
	}
	n := len(broken.hits())
	time.Sleep(4 * base)
	if len(broken.hits()) != n {
		t.Fatal("a given-up job was tried again")
	}
}

// TestDelivererSlowOrDeadHostDelaysNoOther: among inboxes of which one
// refuses connections and one answers after seconds, the others get their
// request at once, and the slow one too in the end.
func TestDelivererSlowOrDeadHostDelaysNoOther(t *testing.T) {
	parallel(t)
	s := newIdleStore(t, redisdb.Options{})
	slow := newSink(t)
	slow.delay = 3 * time.Second
	var fast []*sink
	inboxes := []string{deadInbox(t), slow.srv.URL + "/inbox"}
	for range 20 {
		sk := newSink(t)
		fast = append(fast, sk)
		inboxes = append(inboxes, sk.srv.URL+"/inbox")
	}
	s.deliverer(DelivererOptions{RetryBase: time.Minute, PerHost: 1})
	// Several deliveries, so that the slow and the dead host hold jobs
	// while the others' come.
	start := time.Now()
	for i := range 5 {
		err := s.EnqueueDelivery(s.ctx, store.Delivery{ID: fmt.Sprint("a", i), Body: []byte(`{}`), Inboxes: inboxes})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, sk := range fast {
		waitHits(t, sk, 5, 10*time.Second)
	}
	if took := time.Since(start); took > 1500*time.Millisecond {
		t.Fatalf("the healthy inboxes got their 5 requests after %v", took)
	}
	waitHits(t, slow, 1, 10*time.Second)
}

// TestDelivererRestartLosesNothing: jobs taken by a process that died
// without settling them (read, never acknowledged) and jobs a process held
// when it stopped are all delivered by the next process.
func TestDelivererRestartLosesNothing(t *testing.T) {
	parallel(t)
	s := newIdleStore(t, redisdb.Options{})
	// A process that stops while its requests hang: it hands them back.
	hang := make(chan struct{})
	var hungOnce sync.Once
	started := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	d := NewDeliverer(s.Store, DelivererOptions{ClaimIdle: time.Second, Deliver: func(ctx context.Context, job store.DeliveryJob) error {
		hungOnce.Do(func() { close(started) })
		select {
		case <-hang:
		case <-ctx.Done():
		}
		return ctx.Err()
	}})
	sinks := []*sink{newSink(t), newSink(t), newSink(t)}
	var inboxes []string
	for _, sk := range sinks {
		inboxes = append(inboxes, sk.srv.URL+"/inbox")
	}
	if err := s.EnqueueDelivery(s.ctx, store.Delivery{ID: "held", Body: []byte(`{"n":1}`), Inboxes: inboxes}); err != nil {
		t.Fatal(err)
	}
	go func() { defer close(done); d.Run(ctx) }()
	<-started
	cancel()
	<-done
	close(hang)
	for _, sk := range sinks {
		if n := len(sk.hits()); n != 0 {
			t.Fatalf("a hung job reached its sink (%d)", n)
		}
	}
	// A process that died: it read the next delivery's jobs and never
	// settled them.
	if err := s.EnqueueDelivery(s.ctx, store.Delivery{ID: "taken", Body: []byte(`{"n":2}`), Inboxes: inboxes}); err != nil {
		t.Fatal(err)
	}
	dead := newConsumer(s.rdb, s.keys.FedDeliveries(), "deliver", "delivery", 100, time.Second, nil)
	msgs, err := dead.read(s.ctx)
	if err != nil || len(msgs) != 3 {
		t.Fatalf("the dead process read %d jobs (%v)", len(msgs), err)
	}
	s.deliverer(DelivererOptions{ClaimIdle: 500 * time.Millisecond})
	for _, sk := range sinks {
		h := waitHits(t, sk, 2, 10*time.Second)
		bodies := map[string]bool{h[0].body: true, h[1].body: true}
		if !bodies[`{"n":1}`] || !bodies[`{"n":2}`] {
			t.Fatalf("sink got %v", h)
		}
	}
	s.queueDrained(5 * time.Second)
}

// TestDelivererRestsAFailingHost: a host that keeps failing gets a few
// requests, then rests: its other jobs wait in the retries, not tried and
// not lost, while another host's go out.
func TestDelivererRestsAFailingHost(t *testing.T) {
	parallel(t)
	s := newIdleStore(t, redisdb.Options{})
	failing, fine := newSink(t), newSink(t)
	failing.answer = func(int) int { return 503 }
	s.deliverer(DelivererOptions{RetryBase: time.Minute})
	for i := range 10 {
		err := s.EnqueueDelivery(s.ctx, store.Delivery{ID: fmt.Sprint("r", i), Body: []byte(`{}`),
			Inboxes: []string{failing.srv.URL + "/inbox", fine.srv.URL + "/inbox"}})
		if err != nil {
			t.Fatal(err)
		}
	}
	waitHits(t, fine, 10, 10*time.Second)
	deadline := time.Now().Add(10 * time.Second)
	for s.rdb.ZCard(s.ctx, s.keys.FedRetries()).Val() < 10 {
		if time.Now().After(deadline) {
			t.Fatalf("%d of the failing host's 10 jobs in the retries", s.rdb.ZCard(s.ctx, s.keys.FedRetries()).Val())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if n := len(failing.hits()); n > DefaultDeliveryPerHost+hostFailuresToRest {
		t.Fatalf("the failing host got %d requests before it rested", n)
	}
	// The fine host's jobs leave the stream once their answers are in,
	// which may be just after its sink counted their requests.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		n := s.rdb.XLen(s.ctx, s.keys.FedDeliveries()).Val()
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d jobs left on the stream", n)
		}
	}
}
