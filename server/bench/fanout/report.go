package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"microblog/server/bench/chart"
)

// printTables prints one Markdown table of every run, the builds of a load
// side by side.
func printTables(w io.Writer, res results) {
	fmt.Fprintf(w, "\n%s\n\n%d CPUs shared by the server, Redis, redis-benchmark and the writers; %d authors writing, %d requests at a time; hot window %d.\n\n",
		res.Command, res.CPUs, res.Writers, res.C, res.Window)
	fmt.Fprintln(w, "| load | build | posts/s | fan-out pushes/s | Redis ZADD/s | ZADD + trim/s | pushes ÷ ZADD | pushes ÷ (ZADD + trim) | max lag | max queue | drained after | server CPU/push | Redis CPU/push |")
	fmt.Fprintln(w, "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
	for _, r := range res.Runs {
		pace := ""
		if r.KeptUp {
			pace = " (kept up)"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s%s | %s | %s | %.2f | %.2f | %s ms | %d | %.1f s | %.2f µs | %.2f µs |\n",
			r.Load, r.Build, thousands(r.PostsPerSec), thousands(r.PushesPerSec), pace, thousands(r.Redis.ZAdd),
			thousands(r.Redis.Pair), r.PushesPerSec/r.Redis.ZAdd, r.PushesPerSec/r.Redis.Pair,
			thousands(r.MaxLagMS), r.MaxQueue, r.DrainSec, r.ServerUSPerPush, r.RedisUSPerPush)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Redis's time by command, µs per push (INFO commandstats; the costliest five):")
	fmt.Fprintln(w)
	for _, r := range res.Runs {
		var top []string
		for _, c := range r.RedisTime[:min(5, len(r.RedisTime))] {
			top = append(top, fmt.Sprintf("%s %.2f", c.Command, c.USPer))
		}
		fmt.Fprintf(w, "- %s, %s: %s\n", r.Load, r.Build, strings.Join(top, ", "))
	}
	fmt.Fprintln(w)
}

// save writes results.json and one chart per load into dir (none if empty).
func save(w io.Writer, res results, dir string) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "results.json"), b, 0o644); err != nil {
		return err
	}
	var loads []string
	byLoad := map[string][]runResult{}
	for _, r := range res.Runs {
		if byLoad[r.Load] == nil {
			loads = append(loads, r.Load)
		}
		byLoad[r.Load] = append(byLoad[r.Load], r)
	}
	for _, l := range loads {
		path := filepath.Join(dir, "fanout-"+strings.ReplaceAll(strings.ReplaceAll(l, ",", ""), " ", "-")+".svg")
		if err := queueChart(res, l, byLoad[l], path); err != nil {
			return err
		}
		fmt.Fprintln(w, "wrote", path)
	}
	return nil
}

// queueChart draws the queue's length and lag over time during one load,
// one line per build, side by side.
func queueChart(res results, load string, runs []runResult, path string) error {
	var plots []*plot.Plot
	for _, what := range []string{"queue length (entries)", "lag: age of the oldest entry (ms)"} {
		c := chart.Lines{Title: what, XLabel: "seconds since the first post", YLabel: what,
			XTicks: chart.WholeTicks{}, YTicks: chart.WholeTicks{}, LegendLeft: true}
		if strings.HasPrefix(what, "lag") {
			c.Refs = []chart.Ref{{Y: 1000, Label: "goal: under 1 s"}}
		}
		for i, r := range runs {
			pts := make(plotter.XYs, len(r.Samples))
			for k, s := range r.Samples {
				pts[k].X, pts[k].Y = s.T, float64(s.Queue)
				if strings.HasPrefix(what, "lag") {
					pts[k].Y = s.LagMS
				}
			}
			c.Series = append(c.Series, chart.Series{Label: fmt.Sprintf("%s: %s pushes/s", r.Build, thousands(r.PushesPerSec)),
				Points: pts, Color: chart.Color(i)})
		}
		p, err := c.Plot()
		if err != nil {
			return err
		}
		plots = append(plots, p)
	}
	title := fmt.Sprintf("fan-out queue, %s: %d authors writing %s posts, %d at a time, %d CPUs shared",
		load, runs[0].Authors, thousands(float64(runs[0].Posts)), res.C, res.CPUs)
	return chart.SaveRow(title, plots, path)
}

// thousands writes 20000.4 as 20,000.
func thousands(v float64) string { return chart.Thousands(v) }
