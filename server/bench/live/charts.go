package main

import (
	"fmt"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"

	"microblog/server/bench/chart"
)

// Goals the charts draw as lines.
const (
	goalDelayP99 = 50 // ms, live delivery p99 at 10,000 connections
	goalKiBIdle  = 16 // KiB resident per idle connection
)

// latencyChart draws the delay distribution of each delivery run as a
// percentile curve.
func latencyChart(runs []deliveryResult, title, path string) error {
	c := chart.Percentiles{
		Title:     title,
		XLabel:    "percentile of deliveries",
		YLabel:    "delay from post request to receipt (ms)",
		Goal:      goalDelayP99,
		GoalLabel: fmt.Sprintf("goal: p99 under %d ms", goalDelayP99),
		Headroom:  1.3,
	}
	oneBuild := true
	for _, r := range runs {
		oneBuild = oneBuild && r.Label == runs[0].Label
	}
	for _, r := range runs {
		name := r.Label + ", " + r.feed()
		if oneBuild { // the legend names the feed only, to fit the chart
			name = r.feed()
		}
		if r.Round > 0 {
			name = fmt.Sprintf("%s (others took %.2f cores)", name, r.otherCores())
		}
		c.Curves = append(c.Curves, chart.Curve{Values: r.Delay, Label: fmt.Sprintf("%s: p50 %s, p99 %s, max %s",
			name, chart.FmtMS(pct(r.Delay, 50)), chart.FmtMS(pct(r.Delay, 99)), chart.FmtMS(pct(r.Delay, 100)))})
	}
	return c.Save(path)
}

// memoryChart draws the servers' memory per idle connection as
// connections grow, for each build: resident (solid), Go heap (dashed)
// and goroutine stacks (dotted).
func memoryChart(runs []idleResult, title, path string) error {
	c := chart.Lines{
		Title:  title,
		XLabel: "idle connections (server processes)",
		YLabel: "KiB per connection",
		LogX:   true,
		YTicks: chart.WholeTicks{},
		Refs:   []chart.Ref{{Y: goalKiBIdle, Label: fmt.Sprintf("goal: %d KiB resident", goalKiBIdle)}},
	}
	var ticks plot.ConstantTicks
	for i, r := range runs {
		if len(r.Steps) == 0 {
			continue
		}
		for k, part := range []struct {
			name string
			dash chart.Dash
			get  func(memory) float64
		}{
			{"resident", chart.Solid, func(m memory) float64 { return m.RSS }},
			{"Go heap", chart.Dashed, func(m memory) float64 { return m.Heap }},
			{"stacks", chart.Dotted, func(m memory) float64 { return m.Stack }},
		} {
			pts := make(plotter.XYs, len(r.Steps))
			for j, s := range r.Steps {
				pts[j] = plotter.XY{X: float64(s.Conns), Y: part.get(s.PerConn) / 1024}
				if i == 0 && k == 0 {
					ticks = append(ticks, plot.Tick{Value: pts[j].X, Label: chart.Count(s.Conns) + " (" + strconv.Itoa(s.Servers) + ")"})
				}
			}
			last := r.Steps[len(r.Steps)-1]
			c.Series = append(c.Series, chart.Series{
				Label:  fmt.Sprintf("%s, %s (%.1f KiB at %s)", r.Label, part.name, part.get(last.PerConn)/1024, chart.Count(last.Conns)),
				Points: pts, Color: chart.Color(i), Dash: part.dash, Glyph: draw.CircleGlyph{},
			})
		}
	}
	if len(ticks) == 0 {
		return nil
	}
	x, y := chart.Extent(c.Series)
	c.XTicks = ticks
	c.X = chart.Span{Min: x.Min / 1.3, Max: x.Max * 1.3}
	c.Y = chart.Span{Min: 0, Max: max(y.Max, goalKiBIdle) * 1.75} // room for the legend above the lines
	return c.Save(chart.Width, chart.Height, path)
}
