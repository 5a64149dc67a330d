package main

import (
	"fmt"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"

	"microblog/server/bench/chart"
)

// postLatencyChart draws the latency distribution of the main post run of
// each target.
func postLatencyChart(res results, path string) error {
	title := fmt.Sprintf("POST /api/v1/posts, ab -c %d -n %s, %d CPUs shared with ab and Redis",
		res.PostC, chart.Thousands(float64(res.PostN)), res.CPUs)
	return latencyChart(res.Targets, false, title, path)
}

// readLatencyChart draws the same for the home timeline reads, with the
// goal's p99.
func readLatencyChart(res results, path string) error {
	title := fmt.Sprintf("GET /api/v1/timelines/home?limit=20, ab -k -c %d -n %s, %d CPUs shared",
		res.ReadC, chart.Thousands(float64(res.ReadN)), res.CPUs)
	return latencyChart(res.Targets, true, title, path)
}

// latencyChart draws one percentile curve per target, from ab's whole
// percentiles; the reads' with their goal.
func latencyChart(ts []targetResult, reads bool, title, path string) error {
	c := chart.Percentiles{
		Title:    title,
		XLabel:   "percentile of requests",
		YLabel:   "latency seen by ab (ms)",
		Headroom: 4, // room for the legend above the curves
	}
	if reads {
		c.Goal = goalReadP99MS
		c.GoalLabel = fmt.Sprintf("goal: p99 under %d ms at %s reads/s", goalReadP99MS, chart.Thousands(goalReadsPerSec))
	}
	for _, t := range ts {
		ab := t.Posts.AB
		if reads {
			ab = t.Reads.AB
		}
		c.Curves = append(c.Curves, chart.Curve{Values: ab.Percentiles, Label: fmt.Sprintf("%s: %s/s, p50 %s, p99 %s, max %s",
			t.Label, chart.Thousands(ab.PerSec), chart.FmtMS(ab.p(50)), chart.FmtMS(ab.p(99)), chart.FmtMS(ab.p(100)))})
	}
	return c.Save(path)
}

// throughputChart draws requests/s against ab's concurrency side by side:
// posts with the seed's 611 posts/s on the left, reads with their goal on
// the right, one colour per target.
func throughputChart(res results, path string) error {
	var plots []*plot.Plot
	for _, what := range []string{"posts", "reads"} {
		c := chart.Lines{
			Title:      "POST /api/v1/posts",
			XLabel:     "concurrent requests (ab -c)",
			YLabel:     what + "/s",
			LogX:       true,
			LogY:       true,
			YTicks:     chart.LogTicks{Label: chart.Thousands},
			Refs:       []chart.Ref{{Y: seedPostsPerSec, Label: fmt.Sprintf("the paper's NodeJS server: %d/s at -c 50", seedPostsPerSec)}},
			LegendLeft: true,
		}
		if what == "reads" {
			c.Title = "GET /api/v1/timelines/home (keep-alive)"
			c.Refs = []chart.Ref{{Y: goalReadsPerSec, Label: fmt.Sprintf("goal: %s/s", chart.Thousands(goalReadsPerSec))}}
		}
		var ticks plot.ConstantTicks
		for _, cc := range sweepConcurrencies(res, what) {
			ticks = append(ticks, plot.Tick{Value: float64(cc), Label: strconv.Itoa(cc)})
		}
		if len(ticks) == 0 {
			return nil
		}
		for i, t := range res.Targets {
			var pts, done plotter.XYs
			background := false
			for _, s := range t.Sweep {
				if s.What == what {
					pts = append(pts, plotter.XY{X: float64(s.C), Y: s.PerSec})
					done = append(done, plotter.XY{X: float64(s.C), Y: s.sustained()})
					background = background || s.Cost.Settle > 0
				}
			}
			if len(pts) == 0 {
				continue
			}
			c.Series = append(c.Series, chart.Series{Label: t.Label, Points: pts, Color: chart.Color(i), Glyph: draw.CircleGlyph{}})
			if background {
				// The same requests, counting the time the fan-out took
				// to finish after ab did.
				c.Series = append(c.Series, chart.Series{Label: t.Label + ", with the fan-out done", Points: done,
					Color: chart.Color(i), Dash: chart.Dashed, Glyph: draw.RingGlyph{}})
			}
		}
		x, y := chart.Extent(c.Series)
		ref := c.Refs[0].Y
		c.XTicks = ticks
		c.X = chart.Span{Min: x.Min / 1.4, Max: x.Max * 1.4}
		c.Y = chart.Span{Min: min(y.Min, ref) / 1.5, Max: max(y.Max, ref) * 6} // room for the legend above the lines
		p, err := c.Plot()
		if err != nil {
			return err
		}
		plots = append(plots, p)
	}
	return chart.SaveRow(fmt.Sprintf("Throughput against ab's concurrency, %d CPUs shared with ab and Redis", res.CPUs), plots, path)
}
