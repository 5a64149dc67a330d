package main

import (
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"microblog/server/bench/chart"
)

// Goals the charts draw as lines.
const (
	goalDelayP99  = 50 // ms, live delivery p99 at 10,000 connections
	goalKiBIdle   = 16 // KiB resident per idle connection
	chartW        = 16 * vg.Centimeter
	chartH        = 11 * vg.Centimeter
	tailPercentil = 3 // the percentile axis goes to 99.9%, then the maximum
)

// latencyChart draws the delay distribution of each delivery run as a
// percentile curve whose axis stretches the tail (50%, 90%, 99%, 99.9%,
// max), where the goal is.
func latencyChart(runs []deliveryResult, title, path string) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "percentile of deliveries"
	p.Y.Label.Text = "delay from post request to receipt (ms)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = chart.MSTicks
	p.X.Min, p.X.Max = 0, tailPercentil+0.3
	p.X.Tick.Marker = plot.ConstantTicks{
		{Value: 0, Label: "0%"}, {Value: math.Log10(2), Label: "50%"}, {Value: 1, Label: "90%"},
		{Value: 2, Label: "99%"}, {Value: 3, Label: "99.9%"}, {Value: tailPercentil + 0.3, Label: "max"},
	}
	p.Add(plotter.NewGrid())
	lo, hi := math.Inf(1), 0.0
	for i, r := range runs {
		if len(r.Delay) == 0 {
			continue
		}
		pts := make(plotter.XYs, 0, len(r.Delay))
		for k, ms := range r.Delay {
			x := tailPercentil + 0.3
			if k < 1000 {
				x = -math.Log10(1 - float64(k)/1000)
			}
			pts = append(pts, plotter.XY{X: x, Y: max(ms, 0.1)})
			lo, hi = min(lo, max(ms, 0.1)), max(hi, ms)
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		l.Color = plotutil.Color(i)
		l.Width = vg.Points(1.5)
		p.Add(l)
		name := r.Label
		if r.Round > 0 {
			name = fmt.Sprintf("%s (others took %.2f cores)", r.Label, r.otherCores())
		}
		p.Legend.Add(fmt.Sprintf("%s: p50 %s, p99 %s, max %s", name, chart.FmtMS(pct(r.Delay, 50)), chart.FmtMS(pct(r.Delay, 99)), chart.FmtMS(pct(r.Delay, 100))), l)
	}
	goal := chart.HLine(goalDelayP99, 0, tailPercentil+0.3)
	p.Add(goal)
	p.Legend.Add(fmt.Sprintf("goal: p99 under %d ms", goalDelayP99), goal)
	p.Y.Min, p.Y.Max = min(lo, 1)*0.8, max(hi, goalDelayP99)*1.3
	p.Legend.Top, p.Legend.Left = true, true
	return p.Save(chartW, chartH, path)
}

// memoryChart draws the servers' memory per idle connection as
// connections grow, for each build: resident (solid), Go heap (dashed)
// and goroutine stacks (dotted).
func memoryChart(runs []idleResult, title, path string) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "idle connections (server processes)"
	p.Y.Label.Text = "KiB per connection"
	p.X.Scale = plot.LogScale{}
	p.Add(plotter.NewGrid())
	var ticks plot.ConstantTicks
	xmin, xmax, ymax := math.Inf(1), 0.0, float64(goalKiBIdle)
	for i, r := range runs {
		for k, part := range []struct {
			name string
			get  func(memory) float64
		}{
			{"resident", func(m memory) float64 { return m.RSS }},
			{"Go heap", func(m memory) float64 { return m.Heap }},
			{"stacks", func(m memory) float64 { return m.Stack }},
		} {
			pts := make(plotter.XYs, len(r.Steps))
			for j, s := range r.Steps {
				pts[j] = plotter.XY{X: float64(s.Conns), Y: part.get(s.PerConn) / 1024}
				xmin, xmax, ymax = min(xmin, pts[j].X), max(xmax, pts[j].X), max(ymax, pts[j].Y)
				if i == 0 && k == 0 {
					ticks = append(ticks, plot.Tick{Value: pts[j].X, Label: fmtCount(s.Conns) + " (" + strconv.Itoa(s.Servers) + ")"})
				}
			}
			l, sc, err := plotter.NewLinePoints(pts)
			if err != nil {
				return err
			}
			l.Color, sc.Color = plotutil.Color(i), plotutil.Color(i)
			l.Width = vg.Points(1.5)
			sc.Shape = draw.CircleGlyph{}
			switch k {
			case 1:
				l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
				l.Width = vg.Points(1)
			case 2:
				l.Dashes = []vg.Length{vg.Points(1), vg.Points(2)}
				l.Width = vg.Points(1)
			}
			p.Add(l, sc)
			last := r.Steps[len(r.Steps)-1]
			p.Legend.Add(fmt.Sprintf("%s, %s (%.1f KiB at %s)", r.Label, part.name, part.get(last.PerConn)/1024, fmtCount(last.Conns)), l, sc)
		}
	}
	if len(ticks) == 0 {
		return nil
	}
	goal := chart.HLine(goalKiBIdle, xmin/1.3, xmax*1.3)
	p.Add(goal)
	p.Legend.Add(fmt.Sprintf("goal: %d KiB resident", goalKiBIdle), goal)
	p.X.Tick.Marker = ticks
	p.Y.Tick.Marker = wholeTicks{}
	p.X.Min, p.X.Max = xmin/1.3, xmax*1.3
	p.Y.Min, p.Y.Max = 0, ymax*1.75 // room for the legend above the lines
	p.Legend.Top = true
	return p.Save(chartW, chartH, path)
}

// wholeTicks are gonum's default ticks, labelled without needless decimals.
type wholeTicks struct{}

func (wholeTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'g', -1, 64)
		}
	}
	return ts
}

// fmtCount writes 50000 as 50k and 1500 as 1.5k.
func fmtCount(n int) string {
	if n < 1000 {
		return strconv.Itoa(n)
	}
	return strconv.FormatFloat(float64(n)/1000, 'g', -1, 64) + "k"
}
