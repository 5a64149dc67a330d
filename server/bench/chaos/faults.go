package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"time"

	"microblog/server/bench/spawn"
)

// The kinds of fault, as -faults names them.
const (
	faultServer   = "server-kill"    // SIGKILL of a server process, and a replacement started
	faultFailover = "redis-failover" // SIGKILL of a Redis master; its replica takes over
	faultArchive  = "archive-restart"
)

var faultKinds = []string{faultServer, faultFailover, faultArchive}

// fault is one planned fault: when, from the load's start, and what.
type fault struct {
	at   time.Duration
	kind string
}

// done is a fault injected: when it began, from the load's start, and how
// long it took (for a failover, the replica's taking over).
type done struct {
	fault
	took   time.Duration
	detail string
}

// plan draws the faults of a run from rng: count of them, at random
// moments between the warm-up's end and the cool-down's start, each kind
// at least once when count allows, in an order rng draws too.
func plan(rng *rand.Rand, kinds []string, count int, load, warmup, cooldown time.Duration) []fault {
	var fs []fault
	span := load - warmup - cooldown
	for i := range count {
		kind := kinds[rng.IntN(len(kinds))]
		if i < len(kinds) {
			kind = kinds[i]
		}
		fs = append(fs, fault{at: warmup + time.Duration(rng.Int64N(int64(span)+1)), kind: kind})
	}
	slices.SortFunc(fs, func(a, b fault) int { return int(a.at - b.at) })
	return fs
}

// inject injects the planned faults, one after another (a fault that is
// still under way when the next one is due delays it), and logs each.
func inject(ctx context.Context, b *backends, rng *rand.Rand, faults []fault, cfg config, log io.Writer) ([]done, error) {
	start := time.Now()
	var out []done
	for _, f := range faults {
		select {
		case <-ctx.Done():
			return out, nil
		case <-time.After(time.Until(start.Add(f.at))):
		}
		d := done{fault: fault{at: time.Since(start), kind: f.kind}}
		var err error
		switch f.kind {
		case faultServer:
			p := b.killServer(rng)
			d.detail = "killed " + p.Name
			var np *spawn.Proc
			if np, err = b.startServer(); err == nil {
				d.detail += ", started " + np.Name
			}
		case faultFailover:
			var shard int
			shard, d.took, err = b.failover(rng, cfg.rejoin)
			d.detail = fmt.Sprintf("shard %d's master killed, its replica took over in %s", shard, d.took.Round(time.Millisecond))
			if cfg.rejoin {
				d.detail += "; the old master is its replica now"
			}
		case faultArchive:
			err = b.restartArchive(cfg.archiveDown)
			d.took = cfg.archiveDown
			d.detail = fmt.Sprintf("mariadbd killed, started again on its data %s later", cfg.archiveDown)
		}
		if err != nil {
			return out, fmt.Errorf("%s at %s: %w", f.kind, d.at.Round(time.Millisecond), err)
		}
		fmt.Fprintf(log, "fault at %6s: %s: %s\n", d.at.Round(100*time.Millisecond), f.kind, d.detail)
		out = append(out, d)
	}
	return out, nil
}
