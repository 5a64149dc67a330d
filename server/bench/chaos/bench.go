package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"time"
)

// result is what a run did and what the checker found.
type result struct {
	cfg      config
	acks     map[string]int // writes acknowledged, by kind
	unacked  int            // writes tried and never acknowledged
	failed   map[string]int // attempts tried again, by outcome
	surprise map[string]int // answers the contract does not allow
	reads    [2]int         // answered, failed
	faults   []done
	// loaded is how long the load lasted: -duration, or longer when faults
	// came late.
	loaded  time.Duration
	resumes int
	ends    map[string]int // why live sockets ended
	settled time.Duration
	found   *findings
	seconds []second
	logs    string // the servers' logs' ends, when an invariant failed
}

// measure runs the chaos: backends, users, load and faults, settling, the
// check. onStart is given the function that stops the backends, for a
// timeout or an interrupt to call before the command exits.
func measure(cfg config, log io.Writer, onStart func(stop func())) (*result, error) {
	b, err := startBackends(cfg)
	if err != nil {
		return nil, err
	}
	onStart(b.stop)
	defer b.stop()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(cfg.seed, 0))
	led := newLedger()
	w, err := setUp(ctx, cfg, b, led, rng)
	if err != nil {
		return nil, err
	}
	fans := make([]*liveFan, len(w.fans))
	for i, u := range w.fans {
		fans[i] = &liveFan{u: u}
		if err := fans[i].connect(ctx, b, rng); err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(log, "started: a Redis Cluster of 3 masters with a replica each, MariaDB, %d server processes; %d authors, %d fans on live feeds, %d churners\n",
		cfg.procs, len(w.authors), len(w.fans), len(w.churners))

	liveCtx, stopLive := context.WithCancel(ctx)
	defer stopLive()
	var readers sync.WaitGroup
	for i, f := range fans {
		frng := rand.New(rand.NewPCG(cfg.seed, uint64(1000+i)))
		readers.Go(func() { f.run(liveCtx, b, frng) })
	}
	faults := plan(rng, cfg.kinds, cfg.faults, cfg.duration, cfg.warmup, cfg.cooldown)
	led.mu.Lock()
	led.start = time.Now()
	led.mu.Unlock()
	load, endLoad := context.WithCancel(ctx)
	defer endLoad()
	grace, endGrace := context.WithCancel(ctx)
	defer endGrace()
	begun := time.Now()
	wait := w.run(load, grace, cfg.seed)
	injected, ierr := inject(ctx, b, rand.New(rand.NewPCG(cfg.seed, 999)), faults, cfg, log)
	// The load lasts its duration, or until the cool-down after the last
	// fault when faults came late (one still under way delays the next: a
	// server's start took 7 s on a busy machine), so that every fault
	// planned strikes under load.
	end := begun.Add(cfg.duration)
	if late := time.Now().Add(cfg.cooldown); ierr == nil && late.After(end) {
		end = late
	}
	select {
	case <-time.After(time.Until(end)):
	case <-ctx.Done():
	}
	endLoad()
	stopGrace := time.AfterFunc(cfg.grace, endGrace)
	defer stopGrace.Stop()
	wait()
	if ierr != nil {
		return nil, ierr
	}
	loaded := time.Since(begun).Round(100 * time.Millisecond)
	fmt.Fprintf(log, "load over after %s; settling\n", loaded)

	r := &result{cfg: cfg, faults: injected, loaded: loaded}
	settled, serr := settle(ctx, w, fans, cfg.settle)
	r.settled = settled
	stopLive()
	readers.Wait()
	r.found, err = check(ctx, w, fans)
	if err != nil {
		return nil, err
	}
	r.tally(led, fans)
	if serr != nil {
		r.found.fail("%v", serr)
	}
	if len(r.found.failures) > 0 {
		r.logs = b.logs()
		return r, fmt.Errorf("%d invariants broken (seed %d)", len(r.found.failures), cfg.seed)
	}
	return r, nil
}

// tally copies the ledger's and the live feeds' counts into r.
func (r *result) tally(led *ledger, fans []*liveFan) {
	led.mu.Lock()
	defer led.mu.Unlock()
	r.acks, r.failed, r.surprise = led.acks, led.failed, led.unexpected
	r.unacked = len(led.unacked) + len(led.likesUnsure) + len(led.followsUnsure)
	r.reads = [2]int{led.reads - led.readsFailed, led.readsFailed}
	r.seconds = led.perSecond
	r.ends = map[string]int{}
	for _, f := range fans {
		r.resumes += f.resumes
		for k, n := range f.ends {
			r.ends[k] += n
		}
	}
}
