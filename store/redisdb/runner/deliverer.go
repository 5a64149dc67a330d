package runner

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net/url"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// Defaults of the deliverer (DelivererOptions).
const (
	DefaultDeliveryRetryBase = 30 * time.Second
	DefaultDeliveryRetryMax  = 4 * time.Hour
	DefaultDeliveryGiveUp    = 26 * time.Hour
	DefaultDeliveryTimeout   = 15 * time.Second
	DefaultDeliveryInFlight  = 512
	DefaultDeliveryPerHost   = 4
	// DefaultDeliveryBatch is how many jobs one read takes.
	DefaultDeliveryBatch = 128
	// hostFailuresToRest is how many failures in a row put a host to rest:
	// its jobs wait in the retries instead of being tried, for a while that
	// doubles with each further failure (RetryBase up to RetryMax).
	hostFailuresToRest = 3
	// hostWaitingMax bounds the jobs of one host that wait in memory for one
	// of its PerHost slots; more go to the retries, due RetryBase later.
	hostWaitingMax = 1000
	// bodyCacheMax bounds the bodies a deliverer keeps in memory.
	bodyCacheMax = 256
)

// DelivererOptions tune the deliverer of one process (NewDeliverer).
type DelivererOptions struct {
	// Deliver sends one job (signs and POSTs it). It returns nil once the
	// inbox took it, an error wrapping store.ErrDeliveryRefused when it must
	// not be tried again, and any other error to try again later. Required.
	Deliver func(ctx context.Context, job store.DeliveryJob) error
	// Blocked tells whether deliveries to host are stopped (a domain
	// block); nil: none are.
	Blocked func(ctx context.Context, host string) (bool, error)
	// RetryBase is the wait before the first retry; each further one waits
	// twice as long, up to RetryMax; a job is given up once GiveUpAfter has
	// passed since its delivery was queued.
	RetryBase, RetryMax, GiveUpAfter time.Duration
	// Timeout bounds one request.
	Timeout time.Duration
	// InFlight bounds the requests under way in this process; PerHost those
	// to one host.
	InFlight, PerHost int
	// Batch is how many jobs one read takes (DefaultDeliveryBatch).
	Batch int
	// ClaimIdle is how long a job may go without a sign of life before
	// another process takes it over (DefaultClaimIdle); the jobs in hand are
	// renewed every ClaimIdle/3.
	ClaimIdle time.Duration
	Logger    *slog.Logger
	// Metrics counts what is done (nil: not counted).
	Metrics *DeliveryMetrics
}

// Deliverer sends the activities queued for other servers (fed:deliveries,
// filled by EnqueueDelivery) through the consumer group every process
// shares. Each job runs in its own goroutine with a timeout; a host has at
// most PerHost of them under way, and a host that fails again and again is
// rested (its jobs put off, durably, as a whole), so that a slow or dead
// host delays no other. A job leaves the stream only once sent, refused
// for good, given up, or written into the retries, in one script each
// (fed_done.lua, fed_retry.lua): a process that dies leaves its jobs
// pending, and another takes them over.
type Deliverer struct {
	opt  DelivererOptions
	c    *consumer
	rdb  redis.UniversalClient
	keys schema.Keys
	now  func() int64

	slots chan struct{} // InFlight tokens
	wg    sync.WaitGroup

	mu     sync.Mutex
	hosts  map[string]*hostState
	held   map[string]bool // entry ids taken and not settled
	bodies map[string]*deliveryBody
}

// hostState is what a deliverer knows of one host.
type hostState struct {
	active  int
	waiting []deliveryEntry
	// fails counts failures in a row; restUntil is when a rested host is
	// tried again.
	fails     int
	restUntil time.Time
}

// deliveryEntry is a job as read from the stream.
type deliveryEntry struct {
	id   string
	job  schema.DeliveryJobRef
	host string
}

// deliveryBody is a queued delivery's activity.
type deliveryBody struct {
	id     string
	signer int64
	body   []byte
	key    string // the signing key it carries, if any (store.Delivery.Key)
}

// NewDeliverer returns the deliverer of st's process; Run runs it.
func NewDeliverer(st Ops, opt DelivererOptions) *Deliverer {
	opt.RetryBase = cmp.Or(opt.RetryBase, DefaultDeliveryRetryBase)
	opt.RetryMax = max(cmp.Or(opt.RetryMax, DefaultDeliveryRetryMax), opt.RetryBase)
	opt.GiveUpAfter = cmp.Or(opt.GiveUpAfter, DefaultDeliveryGiveUp)
	opt.Timeout = cmp.Or(opt.Timeout, DefaultDeliveryTimeout)
	opt.InFlight = cmp.Or(opt.InFlight, DefaultDeliveryInFlight)
	opt.PerHost = cmp.Or(opt.PerHost, DefaultDeliveryPerHost)
	opt.Batch = cmp.Or(opt.Batch, DefaultDeliveryBatch)
	opt.ClaimIdle = cmp.Or(opt.ClaimIdle, DefaultClaimIdle)
	opt.Logger = cmp.Or(opt.Logger, slog.Default())
	return &Deliverer{opt: opt, rdb: st.Client(), keys: st.Keys(), now: st.Now,
		c:     newConsumer(st.Client(), st.Keys().FedDeliveries(), schema.DeliverGroup, "delivery", opt.Batch, opt.ClaimIdle, opt.Logger),
		slots: make(chan struct{}, opt.InFlight),
		hosts: map[string]*hostState{}, held: map[string]bool{}, bodies: map[string]*deliveryBody{}}
}

// Run delivers until ctx ends; the requests under way go on for
// FinishWithin, and the jobs left are handed back to the other processes.
func (d *Deliverer) Run(ctx context.Context) {
	if d.opt.Deliver == nil {
		return
	}
	work, done := graceful(ctx)
	defer done()
	var bg sync.WaitGroup
	bg.Go(func() { d.moveDue(ctx) })
	bg.Go(func() { d.renewHeld(ctx) })
	d.c.run(ctx, work, d.take, d.take)
	d.wg.Wait()
	bg.Wait()
	d.c.handBack(ctx)
}

// take starts the jobs of a batch: each in its own goroutine, or waiting for
// a slot of its host, or put off while its host rests. It waits only for a
// slot of InFlight, which every request frees within Timeout.
func (d *Deliverer) take(ctx context.Context, msgs []redis.XMessage) {
	for _, m := range msgs {
		raw, _ := m.Values[schema.FedJobField].(string)
		job, ok := schema.ParseDeliveryJobRef(raw)
		u, err := url.Parse(job.Inbox)
		if !ok || err != nil || u.Host == "" {
			d.opt.Logger.Warn("delivery: dropped a job it cannot read", "entry", m.ID)
			d.settle(ctx, deliveryEntry{id: m.ID, job: job})
			continue
		}
		e := deliveryEntry{id: m.ID, job: job, host: u.Host}
		d.mu.Lock()
		d.held[e.id] = true
		d.mu.Unlock()
		d.dispatch(ctx, e)
	}
}

// dispatch runs e now, or queues it behind its host's jobs under way, or
// puts it off while its host rests.
func (d *Deliverer) dispatch(ctx context.Context, e deliveryEntry) {
	d.mu.Lock()
	h := d.hosts[e.host]
	if h == nil {
		h = &hostState{}
		d.hosts[e.host] = h
	}
	switch {
	case time.Now().Before(h.restUntil):
		// The jobs queued behind the host's requests under way go with
		// it: each of those requests, ending, starts only one of them, so
		// some would wait for a request that never comes while it rests.
		until, waiting := h.restUntil, h.waiting
		h.waiting = nil
		d.mu.Unlock()
		for _, w := range append([]deliveryEntry{e}, waiting...) {
			d.restOff(ctx, w, until)
		}
		return
	case h.active >= d.opt.PerHost:
		if len(h.waiting) >= hostWaitingMax {
			d.mu.Unlock()
			d.putOff(ctx, e, e.job, time.Now().Add(d.opt.RetryBase), "host busy")
			return
		}
		h.waiting = append(h.waiting, e)
		d.mu.Unlock()
		return
	}
	h.active++
	d.mu.Unlock()
	select {
	case d.slots <- struct{}{}:
	case <-ctx.Done():
		d.release(ctx, e.host)
		return
	}
	d.wg.Go(func() {
		defer func() { <-d.slots }()
		d.send(ctx, e)
		d.release(ctx, e.host)
	})
}

// restOff puts e off until its host's rest is over, or gives it up.
func (d *Deliverer) restOff(ctx context.Context, e deliveryEntry, until time.Time) {
	if d.expired(e.job) {
		d.opt.Logger.Warn("delivery: given up, its server kept failing", "inbox", e.job.Inbox, "tries", e.job.Attempt)
		d.opt.Metrics.count("given_up")
		d.settle(ctx, e)
		return
	}
	d.putOff(ctx, e, e.job, until, "host resting")
}

// release frees a slot of host and starts the next job waiting for one.
func (d *Deliverer) release(ctx context.Context, host string) {
	d.mu.Lock()
	h := d.hosts[host]
	h.active--
	var next *deliveryEntry
	if len(h.waiting) > 0 && ctx.Err() == nil {
		next = &h.waiting[0]
		h.waiting = h.waiting[1:]
	}
	if h.active == 0 && len(h.waiting) == 0 && h.fails == 0 {
		delete(d.hosts, host)
	}
	d.mu.Unlock()
	if next != nil {
		e := *next
		d.wg.Go(func() { d.dispatch(ctx, e) }) // not under this job's slot of InFlight
	}
}

// send tries one job and settles it by what came of it.
func (d *Deliverer) send(ctx context.Context, e deliveryEntry) {
	if d.opt.Blocked != nil {
		if blocked, err := d.opt.Blocked(ctx, e.host); err == nil && blocked {
			d.opt.Logger.Info("delivery: dropped, its domain is blocked", "host", e.host)
			d.opt.Metrics.count("blocked")
			d.settle(ctx, e)
			return
		}
	}
	b, err := d.body(ctx, e.job.Ref)
	if err != nil {
		d.forget(e.id) // Redis away: the entry stays pending, taken over later
		return
	}
	if b == nil {
		d.opt.Logger.Warn("delivery: dropped a job whose activity is gone", "inbox", e.job.Inbox)
		d.settle(ctx, e)
		return
	}
	rctx, cancel := context.WithTimeout(ctx, d.opt.Timeout)
	start := time.Now()
	err = d.opt.Deliver(rctx, store.DeliveryJob{Ref: e.job.Ref, ID: b.id, Signer: b.signer, Body: b.body, Key: b.key,
		Inbox: e.job.Inbox, Attempt: e.job.Attempt, First: e.job.First})
	cancel()
	d.opt.Metrics.observe(time.Since(start))
	switch {
	case err == nil:
		d.hostDone(e.host, true)
		d.opt.Metrics.count("sent")
		d.settle(ctx, e)
	case errors.Is(err, store.ErrDeliveryRefused):
		d.hostDone(e.host, true) // the host answered
		d.opt.Logger.Warn("delivery: refused for good, dropped", "inbox", e.job.Inbox, "activity", b.id, "err", err)
		d.opt.Metrics.count("refused")
		d.settle(ctx, e)
	case ctx.Err() != nil:
		d.forget(e.id) // stopping: handed back unsettled
	default:
		d.hostDone(e.host, false)
		next := e.job
		next.Attempt++
		if d.expired(e.job) {
			d.opt.Logger.Warn("delivery: given up after retrying", "inbox", e.job.Inbox, "activity", b.id,
				"tries", next.Attempt, "err", err)
			d.opt.Metrics.count("given_up")
			d.settle(ctx, e)
			return
		}
		d.opt.Metrics.count("failed")
		d.putOff(ctx, e, next, time.Now().Add(d.backoff(e.job.Attempt)), err.Error())
	}
}

// expired tells whether a job's delivery was queued GiveUpAfter ago.
func (d *Deliverer) expired(j schema.DeliveryJobRef) bool {
	return time.Duration(d.now()-j.First)*time.Millisecond >= d.opt.GiveUpAfter
}

// backoff is the wait before try attempt+1: RetryBase doubled per try
// before it, up to RetryMax, with a tenth of jitter.
func (d *Deliverer) backoff(attempt int) time.Duration {
	w := d.opt.RetryBase
	for i := 0; i < attempt && w < d.opt.RetryMax; i++ {
		w *= 2
	}
	w = min(w, d.opt.RetryMax)
	return w + time.Duration(rand.Int64N(int64(w)/10+1))
}

// hostDone records how a request to host ended: a host that failed
// hostFailuresToRest times in a row rests, longer with each failure.
func (d *Deliverer) hostDone(host string, ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	h := d.hosts[host]
	if ok {
		h.fails, h.restUntil = 0, time.Time{}
		return
	}
	h.fails++
	if h.fails >= hostFailuresToRest {
		h.restUntil = time.Now().Add(d.backoff(h.fails - hostFailuresToRest))
	}
}

// settle takes a job out of the queue for good.
func (d *Deliverer) settle(ctx context.Context, e deliveryEntry) {
	actx := context.WithoutCancel(ctx)
	err := schema.FedDone.Run(actx, d.rdb, []string{d.keys.FedDeliveries(), d.keys.FedDeliveryBody(e.job.Ref)},
		schema.DeliverGroup, e.id).Err()
	if err != nil {
		d.opt.Logger.Warn("delivery: settle job; it will be tried again", "err", err)
	}
	d.forget(e.id)
}

// putOff moves a job (as next) into the retries, due at due; should that
// fail, the entry stays pending and is taken over later.
func (d *Deliverer) putOff(ctx context.Context, e deliveryEntry, next schema.DeliveryJobRef, due time.Time, why string) {
	actx := context.WithoutCancel(ctx)
	err := schema.FedRetry.Run(actx, d.rdb, []string{d.keys.FedDeliveries(), d.keys.FedRetries()},
		schema.DeliverGroup, e.id, due.UnixMilli()-time.Now().UnixMilli()+d.now(), next.String()).Err()
	if err != nil {
		d.opt.Logger.Warn("delivery: put off job; it will be tried again", "err", err)
	} else {
		d.opt.Logger.Debug("delivery: put off", "inbox", e.job.Inbox, "tries", next.Attempt, "due", due, "why", why)
	}
	d.forget(e.id)
}

// forget drops an entry from those held (settled, or left pending).
func (d *Deliverer) forget(id string) {
	d.mu.Lock()
	delete(d.held, id)
	d.mu.Unlock()
}

// body is a delivery's activity, read once per process: nil when it is
// gone.
func (d *Deliverer) body(ctx context.Context, ref string) (*deliveryBody, error) {
	d.mu.Lock()
	b, ok := d.bodies[ref]
	d.mu.Unlock()
	if ok {
		return b, nil
	}
	v, err := d.rdb.HMGet(ctx, d.keys.FedDeliveryBody(ref), schema.FedFieldBody, schema.FedFieldID, schema.FedFieldSigner, schema.FedFieldKey).Result()
	if err != nil {
		return nil, err
	}
	raw, _ := v[0].(string)
	if raw == "" {
		return nil, nil
	}
	id, _ := v[1].(string)
	signer, _ := v[2].(string)
	key, _ := v[3].(string)
	b = &deliveryBody{id: id, signer: schema.ParseID(signer), body: []byte(raw), key: key}
	d.mu.Lock()
	if len(d.bodies) >= bodyCacheMax {
		clear(d.bodies)
	}
	d.bodies[ref] = b
	d.mu.Unlock()
	return b, nil
}

// moveDue brings the retries that are due back onto the stream, every
// tick, until ctx ends.
func (d *Deliverer) moveDue(ctx context.Context) {
	tick := max(min(d.opt.RetryBase/4, time.Second), minReclaimTick)
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for ctx.Err() == nil {
			n, err := schema.FedDue.Run(ctx, d.rdb, []string{d.keys.FedDeliveries(), d.keys.FedRetries()},
				d.now(), dueBatch, schema.FedJobField).Int()
			if err != nil || n < dueBatch {
				break
			}
		}
	}
}

// dueBatch is how many due retries one script moves at most.
const dueBatch = 500

// renewHeld resets the idle time of the jobs this process holds (under way
// or waiting for a slot of their host) every ClaimIdle/3, so that no other
// process takes them over.
func (d *Deliverer) renewHeld(ctx context.Context) {
	t := time.NewTicker(max(d.opt.ClaimIdle/3, minReclaimTick))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		d.mu.Lock()
		ids := make([]string, 0, len(d.held))
		for id := range d.held {
			ids = append(ids, id)
		}
		d.mu.Unlock()
		for len(ids) > 0 {
			n := min(len(ids), 1000)
			d.c.renew(ctx, ids[:n])
			ids = ids[n:]
		}
	}
}
