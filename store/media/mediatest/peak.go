package mediatest

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
)

// heapObjects is the runtime metric of the bytes in heap objects, live or
// not yet swept: what a decoder's buffers add to the moment they are made.
const heapObjects = "/memory/classes/heap/objects:bytes"

// Growth is how much the heap of this process grew while f ran: Peak is
// the most it held above the level before (sampled every millisecond),
// Allocated all it allocated (an upper bound of Peak that no sampling can
// miss).
type Growth struct{ Peak, Allocated uint64 }

// MiB formats a number of bytes in mebibytes.
func MiB(n uint64) float64 { return float64(n) / (1 << 20) }

// Measure runs f and returns how much the heap grew meanwhile.
func Measure(f func()) Growth {
	runtime.GC()
	sample := []metrics.Sample{{Name: heapObjects}, {Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(sample)
	base, allocs := sample[0].Value.Uint64(), sample[1].Value.Uint64()
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		s := []metrics.Sample{{Name: heapObjects}}
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	f()
	close(done)
	wg.Wait()
	metrics.Read(sample)
	g := Growth{Allocated: sample[1].Value.Uint64() - allocs}
	if peak > base {
		g.Peak = peak - base
	}
	return g
}
