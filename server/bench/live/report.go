package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"microblog/server/bench/chart"
)

// printDelivery says how one delivery run went, as it ends.
func printDelivery(w io.Writer, r deliveryResult) {
	fmt.Fprintf(w, "  posted %d posts (%d failed); events expected %d, delivered %d, lost %d, duplicates %d\n",
		r.Posts, r.FailedPosts, r.Expected, r.Delivered, max(0, r.Expected-r.Delivered), r.Duplicates)
	fmt.Fprintf(w, "  delay from post request to receipt: p50 %s, p90 %s, p99 %s, p99.9 %s, max %s; post request p50 %s, p99 %s\n",
		chart.FmtMS(pct(r.Delay, 50)), chart.FmtMS(pct(r.Delay, 90)), chart.FmtMS(pct(r.Delay, 99)), chart.FmtMS(pct(r.Delay, 99.9)), chart.FmtMS(pct(r.Delay, 100)),
		chart.FmtMS(pct(r.PostLatency, 50)), chart.FmtMS(pct(r.PostLatency, 99)))
	per := func(m float64) float64 { return m / float64(r.Fans) / 1024 }
	fmt.Fprintf(w, "  server memory: resident %.1f MiB → %.1f MiB with the fans, %.1f KiB per connection (Go heap %.1f KiB, stacks %.1f KiB)\n",
		r.MemBefore.RSS/(1<<20), r.MemAfter.RSS/(1<<20), r.residentPerConn()/1024,
		per(r.MemAfter.Heap-r.MemBefore.Heap), per(r.MemAfter.Stack-r.MemBefore.Stack))
	if r.Delivered > 0 {
		k := float64(r.Delivered) / 1000
		fmt.Fprintf(w, "  CPU over %.1f s: server %.2f s (%.0f ms per 1,000 deliveries), Redis %.2f s, load tool %.2f s; the machine was busy %.2f of %.2f core-seconds (other processes ≈ %.2f)\n",
			r.Wall, r.CPU.Server, 1000*r.CPU.Server/k, r.CPU.Redis, r.CPU.Tool, r.CPU.Machine, r.CPU.Cores,
			max(0, r.CPU.Machine-r.CPU.Server-r.CPU.Redis-r.CPU.Tool))
	}
}

// printTables prints the tables of docs/performance.md.
func printTables(w io.Writer, res results) {
	fmt.Fprintf(w, "\nload average %s before, %s after\n", res.LoadAvg[0], res.LoadAvg[1])
	if len(res.Delivery) > 0 {
		fmt.Fprintln(w, "\n| build | feed | round | fans | deliveries/s | delivered | lost | delay p50 | p99 | max | server CPU per 1,000 deliveries | load tool's | other processes | resident per connection |")
		fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
		for _, r := range res.Delivery {
			k := max(1, float64(r.Delivered)/1000)
			fmt.Fprintf(w, "| %s | %s | %d | %s | %s | %s | %d | %s | %s | %s | %.1f ms | %.1f ms | %.2f cores | %.1f KiB |\n", r.Label, r.feed(), r.Round, chart.Thousands(float64(r.Fans)),
				chart.Thousands(float64(int(float64(r.Expected)/r.Duration.Seconds()))), chart.Thousands(float64(int(r.Delivered))), max(0, r.Expected-r.Delivered),
				chart.FmtMS(pct(r.Delay, 50)), chart.FmtMS(pct(r.Delay, 99)), chart.FmtMS(pct(r.Delay, 100)),
				1000*r.CPU.Server/k, 1000*r.CPU.Tool/k, r.otherCores(), r.residentPerConn()/1024)
		}
		printKindRatios(w, res.Delivery)
	}
	printConversationTable(w, res.Messages)
	if len(res.Idle) > 0 {
		fmt.Fprintln(w, "\n| build | idle connections | server processes | resident per connection | Go heap | stacks |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|")
		for _, r := range res.Idle {
			for _, s := range r.Steps {
				fmt.Fprintf(w, "| %s | %s | %d | %.1f KiB | %.1f KiB | %.1f KiB |\n", r.Label, chart.Thousands(float64(s.Conns)), s.Servers,
					s.PerConn.RSS/1024, s.PerConn.Heap/1024, s.PerConn.Stack/1024)
			}
		}
	}
}

// save writes results.json and the charts into cfg.out.
func save(w io.Writer, res results, cfg benchConfig) error {
	if cfg.out == "" {
		return nil
	}
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		return err
	}
	b, _ := json.MarshalIndent(res, "", "  ")
	if err := os.WriteFile(filepath.Join(cfg.out, "results.json"), b, 0o644); err != nil {
		return err
	}
	written := []string{filepath.Join(cfg.out, "results.json")}
	if len(res.Delivery) > 0 {
		r := res.Delivery[0]
		path := filepath.Join(cfg.out, "live-latency.svg")
		title := fmt.Sprintf("Live delivery: %s connections, %s deliveries/s, %d CPUs shared", chart.Thousands(float64(r.Fans)),
			chart.Thousands(float64(int(float64(r.Fans)*r.Rate/float64(r.Authors)))), res.CPUs)
		if err := latencyChart(quietest(res.Delivery), title, path); err != nil {
			return err
		}
		written = append(written, path)
	}
	if len(res.Idle) > 0 {
		path := filepath.Join(cfg.out, "live-memory.svg")
		if err := memoryChart(res.Idle, "Server memory per idle live connection", path); err != nil {
			return err
		}
		written = append(written, path)
	}
	fmt.Fprintln(w, "\nwrote", strings.Join(written, ", "))
	return nil
}

// redrawCharts draws the charts of a saved run again, and prints its tables.
func redrawCharts(w io.Writer, path, out string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var res results
	if err := json.Unmarshal(b, &res); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	fmt.Fprintln(w, "run:", res.Command)
	printTables(w, res)
	return save(w, res, benchConfig{out: out})
}

// quietest keeps, of each build's delivery runs on each feed, the one
// during which the rest of the machine took the least CPU.
func quietest(runs []deliveryResult) []deliveryResult {
	var out []deliveryResult
	at := map[[2]string]int{}
	for _, r := range runs {
		key := [2]string{r.Label, r.feed()}
		i, ok := at[key]
		switch {
		case !ok:
			at[key] = len(out)
			out = append(out, r)
		case r.otherCores() < out[i].otherCores():
			out[i] = r
		}
	}
	return out
}

// printKindRatios says, for each build measured on both feeds, what a
// Mastodon streaming connection (WebSocket, or server-sent events) costs
// beside a native one over all rounds:
// the server's CPU per delivery, and its resident memory per connection.
func printKindRatios(w io.Writer, runs []deliveryResult) {
	type sums struct{ cpu, delivered, rss, runs float64 }
	by := map[[2]string]*sums{}
	var labels []string
	for _, r := range runs {
		key := [2]string{r.Label, r.feed()}
		if by[key] == nil {
			by[key] = &sums{}
			if r.feed() == kindNative {
				labels = append(labels, r.Label)
			}
		}
		s := by[key]
		s.cpu, s.delivered, s.rss, s.runs = s.cpu+r.CPU.Server, s.delivered+float64(r.Delivered), s.rss+r.residentPerConn(), s.runs+1
	}
	names := map[string]string{kindMastodon: "Mastodon streaming", kindSSE: "Mastodon streaming as server-sent events"}
	for _, l := range labels {
		for _, kind := range []string{kindMastodon, kindSSE} {
			n, m := by[[2]string{l, kindNative}], by[[2]string{l, kind}]
			if m == nil || n.delivered == 0 || m.delivered == 0 || n.cpu == 0 {
				continue
			}
			// A few connections are too few to tell their memory from the
			// noise (the resident size may even shrink): no ratio then.
			mem := "too few connections to compare"
			if n.rss > 0 && m.rss > 0 {
				mem = fmt.Sprintf("%.2f times", (m.rss/m.runs)/(n.rss/n.runs))
			}
			fmt.Fprintf(w, "\n%s, %s beside native sockets over %.0f and %.0f runs: server CPU per delivery %.2f times, resident memory per connection %s\n",
				l, names[kind], m.runs, n.runs, (m.cpu/m.delivered)/(n.cpu/n.delivered), mem)
		}
	}
}
