package main

import (
	"fmt"
	"math"
	"os"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"microblog/server/bench/chart"
)

// The charts' size and the percentile axis, as hub/loadtest draws them.
const (
	chartW = 16 * vg.Centimeter
	chartH = 11 * vg.Centimeter
	// xMax is where the percentile axis puts the slowest request: ab's
	// percentiles are whole, so the axis stretches the tail to 99% (x = 2),
	// then shows the maximum a little further on.
	xMax = 2.3
)

// postLatencyChart draws the latency distribution of the main post run of
// each target.
func postLatencyChart(res results, path string) error {
	title := fmt.Sprintf("POST /api/v1/posts, ab -c %d -n %s, %d CPUs shared with ab and Redis",
		res.PostC, chart.Thousands(float64(res.PostN)), res.CPUs)
	return latencyChart(res.Targets, false, title, 0, path)
}

// readLatencyChart draws the same for the home timeline reads, with the
// goal's p99.
func readLatencyChart(res results, path string) error {
	title := fmt.Sprintf("GET /api/v1/timelines/home?limit=20, ab -k -c %d -n %s, %d CPUs shared",
		res.ReadC, chart.Thousands(float64(res.ReadN)), res.CPUs)
	return latencyChart(res.Targets, true, title, goalReadP99MS, path)
}

// latencyChart draws one percentile curve per target, on an axis that
// stretches the tail (50%, 90%, 99%, max), and a goal line if goalP99 > 0.
func latencyChart(ts []targetResult, reads bool, title string, goalP99 float64, path string) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "percentile of requests"
	p.Y.Label.Text = "latency seen by ab (ms)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = chart.MSTicks
	p.X.Min, p.X.Max = 0, xMax
	p.X.Tick.Marker = plot.ConstantTicks{
		{Value: 0, Label: "0%"}, {Value: math.Log10(2), Label: "50%"}, {Value: 1, Label: "90%"},
		{Value: 2, Label: "99%"}, {Value: xMax, Label: "max"},
	}
	p.Add(plotter.NewGrid())
	lo, hi := math.Inf(1), 0.0
	for i, t := range ts {
		ab := t.Posts.AB
		if reads {
			ab = t.Reads.AB
		}
		if len(ab.Percentiles) == 0 {
			continue
		}
		pts := make(plotter.XYs, 0, len(ab.Percentiles))
		for pct, ms := range ab.Percentiles {
			x := xMax
			if pct < 100 {
				x = -math.Log10(1 - float64(pct)/100)
			}
			ms = max(ms, 0.01)
			pts = append(pts, plotter.XY{X: x, Y: ms})
			lo, hi = min(lo, ms), max(hi, ms)
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		l.Color = plotutil.Color(i)
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("%s: %s/s, p50 %s, p99 %s, max %s", t.Label, chart.Thousands(ab.PerSec),
			chart.FmtMS(ab.p(50)), chart.FmtMS(ab.p(99)), chart.FmtMS(ab.p(100))), l)
	}
	if goalP99 > 0 {
		goal := chart.HLine(goalP99, 0, xMax)
		p.Add(goal)
		p.Legend.Add(fmt.Sprintf("goal: p99 under %g ms at %s reads/s", goalP99, chart.Thousands(goalReadsPerSec)), goal)
		hi = max(hi, goalP99)
	}
	if hi == 0 {
		return nil
	}
	p.Y.Min, p.Y.Max = lo*0.8, hi*4 // room for the legend above the curves
	p.Legend.Top, p.Legend.Left = true, true
	return p.Save(chartW, chartH, path)
}

// throughputChart draws requests/s against ab's concurrency side by side:
// posts with the seed's 611 posts/s on the left, reads with their goal on
// the right, one colour per target.
func throughputChart(res results, path string) error {
	var plots [1][2]*plot.Plot
	for k, what := range []string{"posts", "reads"} {
		p := plot.New()
		p.X.Label.Text = "concurrent requests (ab -c)"
		p.Y.Label.Text = what + "/s"
		if k == 0 {
			p.Title.Text = "POST /api/v1/posts"
		} else {
			p.Title.Text = "GET /api/v1/timelines/home (keep-alive)"
		}
		p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
		p.Y.Tick.Marker = chart.LogTicks{Label: chart.Thousands}
		p.Add(plotter.NewGrid())
		ref, refLabel := float64(seedPostsPerSec), fmt.Sprintf("seed 002's NodeJS server: %d/s at -c 50", seedPostsPerSec)
		if what == "reads" {
			ref, refLabel = goalReadsPerSec, fmt.Sprintf("goal: %s/s", chart.Thousands(goalReadsPerSec))
		}
		var ticks plot.ConstantTicks
		for _, c := range sweepConcurrencies(res, what) {
			ticks = append(ticks, plot.Tick{Value: float64(c), Label: strconv.Itoa(c)})
		}
		xmin, xmax, ymin, ymax := math.Inf(1), 0.0, ref, ref
		for i, t := range res.Targets {
			var pts, done plotter.XYs
			background := false
			for _, s := range t.Sweep {
				if s.What == what {
					pts = append(pts, plotter.XY{X: float64(s.C), Y: s.PerSec})
					done = append(done, plotter.XY{X: float64(s.C), Y: s.sustained()})
					background = background || s.Cost.Settle > 0
					xmin, xmax = min(xmin, float64(s.C)), max(xmax, float64(s.C))
					ymin, ymax = min(ymin, s.PerSec, s.sustained()), max(ymax, s.PerSec)
				}
			}
			if len(pts) == 0 {
				continue
			}
			l, sc, err := plotter.NewLinePoints(pts)
			if err != nil {
				return err
			}
			l.Color, sc.Color = plotutil.Color(i), plotutil.Color(i)
			l.Width = vg.Points(1.5)
			sc.Shape = draw.CircleGlyph{}
			p.Add(l, sc)
			p.Legend.Add(t.Label, l, sc)
			if background {
				// The same requests, counting the time the fan-out took
				// to finish after ab did.
				l, sc, err := plotter.NewLinePoints(done)
				if err != nil {
					return err
				}
				l.Color, sc.Color = plotutil.Color(i), plotutil.Color(i)
				l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
				sc.Shape = draw.RingGlyph{}
				p.Add(l, sc)
				p.Legend.Add(t.Label+", with the fan-out done", l, sc)
			}
		}
		if len(ticks) == 0 {
			return nil
		}
		x0, x1 := xmin/1.4, xmax*1.4
		line := chart.HLine(ref, x0, x1)
		p.Add(line)
		p.Legend.Add(refLabel, line)
		p.X.Tick.Marker = ticks
		p.X.Min, p.X.Max = x0, x1
		p.Y.Min, p.Y.Max = ymin/1.5, ymax*6 // room for the legend above the lines
		p.Legend.Top, p.Legend.Left = true, true
		plots[0][k] = p
	}
	c := vgsvg.New(2*chartW, chartH)
	dc := draw.New(c)
	title := fmt.Sprintf("Throughput against ab's concurrency, %d CPUs shared with ab and Redis", res.CPUs)
	titleStyle := plot.New().Title.TextStyle
	dc.FillText(titleStyle, vg.Point{X: chartW, Y: chartH - titleStyle.Height(title)}, title)
	dc = draw.Crop(dc, 0, 0, 0, -2*titleStyle.Height(title))
	tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Centimeter, PadTop: vg.Points(4)}
	canvases := plot.Align([][]*plot.Plot{plots[0][:]}, tiles, dc)
	for k := range plots[0] {
		plots[0][k].Draw(canvases[0][k])
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func hasTick(ts plot.ConstantTicks, v float64) bool {
	for _, t := range ts {
		if t.Value == v {
			return true
		}
	}
	return false
}
