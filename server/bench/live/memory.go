package main

import (
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// memory is what a server's /metrics says about its memory.
type memory struct{ RSS, Heap, Stack float64 }

func (m memory) minus(o memory) memory {
	return memory{m.RSS - o.RSS, m.Heap - o.Heap, m.Stack - o.Stack}
}

func (m memory) plus(o memory) memory {
	return memory{m.RSS + o.RSS, m.Heap + o.Heap, m.Stack + o.Stack}
}

// serverMemory reads a server's resident memory, Go heap in use and
// goroutine stacks in use from its /metrics.
func serverMemory(client *http.Client, base string) (memory, error) {
	resp, err := client.Get(base + "/metrics")
	if err != nil {
		return memory{}, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m memory
	for _, line := range strings.Split(string(b), "\n") {
		for prefix, v := range map[string]*float64{
			"process_resident_memory_bytes ": &m.RSS,
			"go_memstats_heap_inuse_bytes ":  &m.Heap,
			"go_memstats_stack_inuse_bytes ": &m.Stack,
		} {
			if s, ok := strings.CutPrefix(line, prefix); ok {
				*v, _ = strconv.ParseFloat(s, 64)
			}
		}
	}
	if m.RSS == 0 {
		return m, errors.New("no process_resident_memory_bytes in " + base + "/metrics")
	}
	return m, nil
}

// settledMemory waits for a server that just took connections to settle
// (its resident memory changing by less than 1% in lt.settle, at most ten
// times that) and returns its memory then.
func (lt *loadTest) settledMemory(base string) (memory, error) {
	prev, err := serverMemory(lt.client, base)
	if err != nil {
		return prev, err
	}
	for range 10 {
		time.Sleep(lt.settle)
		m, err := serverMemory(lt.client, base)
		if err != nil {
			return m, err
		}
		if d := m.RSS - prev.RSS; d < 0.01*prev.RSS && d > -0.01*prev.RSS {
			return m, nil
		}
		prev = m
	}
	return prev, nil
}
