package chart

import (
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Percentiles is a chart of delays at each percentile, one curve per run,
// on an axis that stretches the tail (50%, 90%, 99%, 99.9%…, then the
// maximum a little further on), where the goals are.
type Percentiles struct {
	Title, XLabel, YLabel string
	Curves                []Curve
	// Goal, if positive, is drawn as a line at that many ms, named GoalLabel.
	Goal      float64
	GoalLabel string
	// Headroom is how far the axis reaches above the highest curve or the
	// goal, as a factor: room for the legend.
	Headroom float64
}

// Curve is one run of a Percentiles chart: its delays in ms at evenly
// spaced quantiles, Values[k] at k/(len(Values)-1) of the way from the
// fastest (0%) to the slowest (100%, the maximum): 101 values for whole
// percentiles, 1001 for every 0.1%.
type Curve struct {
	Label  string
	Values []float64
}

// floorMS is the least delay the logarithmic axis shows: a curve at zero
// has no place on it.
const floorMS = 0.01

// Save draws the chart into path (.svg, .png, …), unless it has nothing
// to show.
func (c Percentiles) Save(path string) error {
	steps := 100
	for _, cv := range c.Curves {
		steps = max(steps, len(cv.Values)-1)
	}
	// The slowest value, at 100%, stands beyond the last decade: 0.3 of a
	// decade on from 99% (whole percentiles) or 99.9% (every 0.1%).
	decades := math.Log10(float64(steps))
	tail := decades + 0.3
	x := func(k, n int) float64 {
		if k == n {
			return tail
		}
		return -math.Log10(1 - float64(k)/float64(n))
	}

	p := plot.New()
	p.Title.Text = c.Title
	p.X.Label.Text = c.XLabel
	p.Y.Label.Text = c.YLabel
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = MSTicks
	p.X.Min, p.X.Max = 0, tail
	ticks := plot.ConstantTicks{{Value: 0, Label: "0%"}, {Value: math.Log10(2), Label: "50%"}}
	for d := 1; d <= int(decades+0.5); d++ {
		ticks = append(ticks, plot.Tick{Value: float64(d), Label: tailLabel(d)})
	}
	p.X.Tick.Marker = append(ticks, plot.Tick{Value: tail, Label: "max"})
	p.Add(plotter.NewGrid())

	lo, hi := 1.0, 0.0
	for i, cv := range c.Curves {
		n := len(cv.Values) - 1
		if n < 1 {
			continue
		}
		pts := make(plotter.XYs, 0, len(cv.Values))
		for k, ms := range cv.Values {
			ms = max(ms, floorMS)
			pts = append(pts, plotter.XY{X: x(k, n), Y: ms})
			lo, hi = min(lo, ms), max(hi, ms)
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		l.Color = Color(i)
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(cv.Label, l)
	}
	if c.Goal > 0 {
		goal := HLine(c.Goal, 0, tail)
		p.Add(goal)
		p.Legend.Add(c.GoalLabel, goal)
		hi = max(hi, c.Goal)
	}
	if hi == 0 {
		return nil
	}
	p.Y.Min, p.Y.Max = lo*0.8, hi*c.Headroom
	p.Legend.Top, p.Legend.Left = true, true
	return p.Save(Width, Height, path)
}

// tailLabel names the percentile d decades into the tail: 90%, 99%,
// 99.9%…
func tailLabel(d int) string {
	if d <= 2 {
		return strings.Repeat("9", d) + strings.Repeat("0", 2-d) + "%"
	}
	return "99." + strings.Repeat("9", d-2) + "%"
}
