package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
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

	printMedians(w, res, bares)

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

// The goals against the naive port (bare), each a ratio of CPU per request
// taken within a round: a post's server and Redis CPU, a home read's server
// CPU.
const (
	goalPostServer = 1.25
	goalPostRedis  = 1.5
	goalReadServer = 1.25
)

// printMedians prints, with several rounds, each build's medians of its
// rounds' ratios to the bare handler of the same round, with their range
// and whether the median meets the goal: the verdict a side-by-side run
// gives, where the machine's speed moves every absolute figure.
func printMedians(w io.Writer, res results, bares map[int]*targetResult) {
	type ratios struct{ postServer, postRedis, readServer []float64 }
	var order []string
	by := map[string]*ratios{}
	for _, t := range res.Targets {
		bare := bares[t.Round]
		if t.Round == 0 || t.Kind == kindBare || bare == nil {
			continue
		}
		label, _, _ := strings.Cut(t.Label, " (round ")
		r := by[label]
		if r == nil {
			r = &ratios{}
			by[label] = r
			order = append(order, label)
		}
		add := func(to *[]float64, v, base float64) {
			if base > 0 {
				*to = append(*to, v/base)
			}
		}
		add(&r.postServer, t.Posts.Cost.ServerCPUus, bare.Posts.Cost.ServerCPUus)
		add(&r.postRedis, t.Posts.Cost.RedisCPUus, bare.Posts.Cost.RedisCPUus)
		add(&r.readServer, t.Reads.Cost.ServerCPUus, bare.Reads.Cost.ServerCPUus)
	}
	if len(order) == 0 {
		return
	}
	fmt.Fprintf(w, "\nMedians of the rounds' ratios to the bare handler of the same round (their range; ✓ where the median meets the goal: a post at most %.2f× its server CPU and %.2f× its Redis CPU, a home read at most %.2f× its server CPU)\n\n", goalPostServer, goalPostRedis, goalReadServer)
	fmt.Fprintln(w, "| target | rounds | post: server CPU vs bare | post: Redis CPU vs bare | home read: server CPU vs bare |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|")
	for _, label := range order {
		r := by[label]
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s |\n", label, len(r.postServer),
			fmtMedian(r.postServer, goalPostServer), fmtMedian(r.postRedis, goalPostRedis), fmtMedian(r.readServer, goalReadServer))
	}
}

// fmtMedian is the median of vs with their range, marked ✓ when the median
// is at most goal.
func fmtMedian(vs []float64, goal float64) string {
	if len(vs) == 0 {
		return "–"
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	mark := ""
	if m <= goal {
		mark = " ✓"
	}
	return fmt.Sprintf("%.2f× (%.2f–%.2f)%s", m, s[0], s[len(s)-1], mark)
}
