package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"microblog/server/bench/chart"
)

// printTables prints the results as Markdown tables.
func printTables(w io.Writer, res results) {
	fmt.Fprintf(w, "\n%s; %d CPUs, load average %s before, %s after\n", res.Command, res.CPUs, res.LoadAvg[0], res.LoadAvg[1])
	bares := map[int]*targetResult{} // by round
	for i := range res.Targets {
		if res.Targets[i].Kind == kindBare {
			bares[res.Targets[i].Round] = &res.Targets[i]
		}
	}
	var t targetResult // the row being printed: compared with the bare handler of its round
	vsBare := func(cpu float64, pick func(targetResult) float64) string {
		bare := bares[t.Round]
		if bare == nil || pick(*bare) <= 0 {
			return "–"
		}
		return fmt.Sprintf("%.2f×", cpu/pick(*bare))
	}

	fmt.Fprintf(w, "\nPosts: %s, after a warm-up. \"With the fan-out done\" counts the time the fan-out queue took to empty after ab ended; the CPU and Redis figures include that work.\n\n", res.PostShape)
	fmt.Fprintln(w, "| target | posts/s | vs the paper's 611/s | with the fan-out done | p50 | p99 | Redis commands per post | Redis reads per post | bytes sent to Redis per post | round trips on the request path | server CPU per post | Redis CPU per post | server CPU vs bare | Redis CPU vs bare |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, t = range res.Targets {
		m := t.Posts
		fmt.Fprintf(w, "| %s | %s | %.1f× | %s | %s | %s | %.1f | %.1f | %s | %s | %.0f µs | %.0f µs | %s | %s |\n", t.Label,
			chart.Thousands(m.AB.PerSec), m.AB.PerSec/float64(res.Seed), chart.Thousands(m.AB.sustained(m.Cost.Settle)),
			chart.FmtMS(m.AB.p(50)), chart.FmtMS(m.AB.p(99)),
			m.Cost.RedisCommands, m.Cost.RedisReads, chart.Thousands(m.Cost.RedisBytesIn), fmtTrips(m.Cost.RoundTrips), m.Cost.ServerCPUus, m.Cost.RedisCPUus,
			vsBare(m.Cost.ServerCPUus, func(t targetResult) float64 { return t.Posts.Cost.ServerCPUus }),
			vsBare(m.Cost.RedisCPUus, func(t targetResult) float64 { return t.Posts.Cost.RedisCPUus }))
	}

	fmt.Fprintf(w, "\nHome timeline reads: %s; the goal is %s/s with p99 under %d ms.\n\n", res.ReadShape, chart.Thousands(goalReadsPerSec), goalReadP99MS)
	fmt.Fprintln(w, "| target | reads/s | p50 | p99 | goal met | Redis commands per read | round trips on the request path | server CPU per read | Redis CPU per read | server CPU vs bare |")
	fmt.Fprintln(w, "|---|---:|---:|---:|:---:|---:|---:|---:|---:|---:|")
	for _, t = range res.Targets {
		m := t.Reads
		met := "no"
		if m.AB.PerSec >= goalReadsPerSec && m.AB.p(99) < goalReadP99MS {
			met = "yes"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %.1f | %s | %.0f µs | %.0f µs | %s |\n", t.Label,
			chart.Thousands(m.AB.PerSec), chart.FmtMS(m.AB.p(50)), chart.FmtMS(m.AB.p(99)), met,
			m.Cost.RedisCommands, fmtTrips(m.Cost.RoundTrips), m.Cost.ServerCPUus, m.Cost.RedisCPUus,
			vsBare(m.Cost.ServerCPUus, func(t targetResult) float64 { return t.Reads.Cost.ServerCPUus }))
	}

	for _, what := range []string{"posts", "reads"} {
		cs := sweepConcurrencies(res, what)
		if len(cs) == 0 {
			continue
		}
		fmt.Fprintf(w, "\nSweep of %s: requests/s (p99, server CPU per request) at each ab -c\n\n| target |", what)
		for _, c := range cs {
			fmt.Fprintf(w, " -c %d |", c)
		}
		fmt.Fprintf(w, "\n|---|%s\n", strings.Repeat("---:|", len(cs)))
		for _, t := range res.Targets {
			fmt.Fprintf(w, "| %s |", t.Label)
			for _, c := range cs {
				cell := "–"
				for _, p := range t.Sweep {
					if p.What == what && p.C == c {
						cell = fmt.Sprintf("%s (%s, %.0f µs)", chart.Thousands(p.PerSec), chart.FmtMS(p.P99), p.Cost.ServerCPUus)
					}
				}
				fmt.Fprintf(w, " %s |", cell)
			}
			fmt.Fprintln(w)
		}
	}
}

// sweepConcurrencies are the -c of a sweep, in the order run.
func sweepConcurrencies(res results, what string) []int {
	var cs []int
	seen := map[int]bool{}
	for _, t := range res.Targets {
		for _, p := range t.Sweep {
			if p.What == what && !seen[p.C] {
				seen[p.C] = true
				cs = append(cs, p.C)
			}
		}
	}
	return cs
}

// save writes results.json and the charts into out.
func save(w io.Writer, res results, out string) error {
	if out == "" {
		return nil
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	b, _ := json.MarshalIndent(res, "", "  ")
	written := []string{filepath.Join(out, "results.json")}
	if err := os.WriteFile(written[0], b, 0o644); err != nil {
		return err
	}
	for _, ch := range []struct {
		name string
		draw func(results, string) error
	}{
		{"seed-post-latency.svg", postLatencyChart},
		{"seed-read-latency.svg", readLatencyChart},
		{"seed-throughput.svg", throughputChart},
	} {
		path := filepath.Join(out, ch.name)
		if err := ch.draw(res, path); err != nil {
			return fmt.Errorf("%s: %w", ch.name, err)
		}
		written = append(written, path)
	}
	fmt.Fprintln(w, "\nwrote", strings.Join(written, ", "))
	return nil
}

func loadResults(path string) (results, error) {
	var res results
	b, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(b, &res)
	}
	if err != nil {
		return res, fmt.Errorf("%s: %w", path, err)
	}
	return res, nil
}

// fmtTrips writes round trips per request, or n/a when the server does not
// count them.
func fmtTrips(v float64) string {
	if v < 0 {
		return "n/a"
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}
