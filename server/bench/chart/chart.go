// Package chart draws the figures of the project's benchmarks with
// gonum/plot, one way for all of them: delays at each percentile
// (Percentiles), series of points against a count (Lines), side by side
// under one title (SaveRow), with goal lines, logarithmic ticks at 1, 2,
// 5, 10…, and numbers written for people to read.
package chart

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// The size of a chart, as docs/performance.md shows them.
const (
	Width  = 16 * vg.Centimeter
	Height = 11 * vg.Centimeter
)

// Color is the i-th colour of the charts' palette: each build or target
// keeps its colour on every chart of a run.
func Color(i int) color.Color { return plotutil.Color(i) }

// HLine is a thin red dashed horizontal line at y from x0 to x1: a goal.
func HLine(y, x0, x1 float64) *plotter.Line {
	l, _ := plotter.NewLine(plotter.XYs{{X: x0, Y: y}, {X: x1, Y: y}})
	l.Color = color.RGBA{R: 200, A: 255}
	l.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
	return l
}

// LogTicks marks a logarithmic axis at 1, 2, 5, 10, 20, 50…, each labelled
// by Label (by default the number as it is, 0.5, 1, 20).
type LogTicks struct{ Label func(float64) string }

// MSTicks marks a logarithmic axis of milliseconds.
var MSTicks = LogTicks{}

// Ticks implements plot.Ticker.
func (t LogTicks) Ticks(lo, hi float64) []plot.Tick {
	label := t.Label
	if label == nil {
		label = func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	}
	var ts []plot.Tick
	for d := math.Pow(10, math.Floor(math.Log10(lo))); d <= hi; d *= 10 {
		for _, m := range []float64{1, 2, 5} {
			if v := d * m; v >= lo && v <= hi {
				ts = append(ts, plot.Tick{Value: v, Label: label(v)})
			}
		}
	}
	return ts
}

// WholeTicks are gonum's default ticks, labelled without needless decimals.
type WholeTicks struct{}

// Ticks implements plot.Ticker.
func (WholeTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'g', -1, 64)
		}
	}
	return ts
}

// FmtMS writes a delay in ms with about three figures: 120 ms, 14.1 ms, 4.62 ms.
func FmtMS(ms float64) string {
	switch {
	case ms >= 100:
		return fmt.Sprintf("%.0f ms", ms)
	case ms >= 10:
		return fmt.Sprintf("%.1f ms", ms)
	default:
		return fmt.Sprintf("%.2f ms", ms)
	}
}

// Thousands writes 20000.4 as 20,000.
func Thousands(v float64) string {
	s := strconv.FormatFloat(v, 'f', 0, 64)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Count writes 50000 as 50k and 1500 as 1.5k, for axes.
func Count(n int) string {
	if n < 1000 {
		return strconv.Itoa(n)
	}
	return strconv.FormatFloat(float64(n)/1000, 'g', -1, 64) + "k"
}
