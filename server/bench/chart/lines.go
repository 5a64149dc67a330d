package chart

import (
	"fmt"
	"image/color"
	"math"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Lines is a chart of series of points, with reference lines across it.
type Lines struct {
	Title, XLabel, YLabel string
	LogX, LogY            bool
	// XTicks and YTicks mark the axes; nil leaves gonum's default.
	XTicks, YTicks plot.Ticker
	// X and Y are the axes' ranges; the zero Span is the data's own.
	X, Y   Span
	Series []Series
	Refs   []Ref
	// LegendLeft puts the legend at the top left rather than the top right.
	LegendLeft bool
}

// Span is the range of an axis.
type Span struct{ Min, Max float64 }

// Ref is a horizontal line across the chart: a goal, or someone else's
// figure to compare with.
type Ref struct {
	Y     float64
	Label string
}

// Series is one line of points.
type Series struct {
	Label  string
	Points plotter.XYs
	Color  color.Color
	Dash   Dash
	// Width is the line's; 0 is 1.5 pt for a solid line, 1 pt otherwise.
	Width vg.Length
	// Glyph, if set, marks each point, Radius wide (0: gonum's default).
	Glyph  draw.GlyphDrawer
	Radius vg.Length
}

// Dash is how a series' line is drawn.
type Dash int

// The dashes a series may have.
const (
	Solid Dash = iota
	Dashed
	Dotted
	NoLine // the glyphs alone
)

// Plot lays the chart out, for Save or SaveRow.
func (c Lines) Plot() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = c.Title
	p.X.Label.Text = c.XLabel
	p.Y.Label.Text = c.YLabel
	if c.LogX {
		p.X.Scale = plot.LogScale{}
	}
	if c.LogY {
		p.Y.Scale = plot.LogScale{}
	}
	if c.XTicks != nil {
		p.X.Tick.Marker = c.XTicks
	}
	if c.YTicks != nil {
		p.Y.Tick.Marker = c.YTicks
	}
	p.Add(plotter.NewGrid())
	for _, s := range c.Series {
		var thumbs []plot.Thumbnailer
		if s.Dash != NoLine {
			l, err := plotter.NewLine(s.Points)
			if err != nil {
				return nil, fmt.Errorf("chart %q, %s: %w", c.Title, s.Label, err)
			}
			l.Color, l.Width = s.Color, s.Width
			switch s.Dash {
			case Dashed:
				l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
			case Dotted:
				l.Dashes = []vg.Length{vg.Points(1), vg.Points(2)}
			}
			if l.Width == 0 {
				l.Width = vg.Points(1)
				if s.Dash == Solid {
					l.Width = vg.Points(1.5)
				}
			}
			p.Add(l)
			thumbs = append(thumbs, l)
		}
		if s.Glyph != nil {
			sc, err := plotter.NewScatter(s.Points)
			if err != nil {
				return nil, fmt.Errorf("chart %q, %s: %w", c.Title, s.Label, err)
			}
			sc.Color, sc.Shape = s.Color, s.Glyph
			if s.Radius > 0 {
				sc.Radius = s.Radius
			}
			p.Add(sc)
			thumbs = append(thumbs, sc)
		}
		p.Legend.Add(s.Label, thumbs...)
	}
	// The reference lines run from edge to edge.
	x := Span{p.X.Min, p.X.Max}
	if c.X != (Span{}) {
		x = c.X
	}
	for _, r := range c.Refs {
		l := HLine(r.Y, x.Min, x.Max)
		p.Add(l)
		p.Legend.Add(r.Label, l)
	}
	p.X.Min, p.X.Max = x.Min, x.Max
	if c.Y != (Span{}) {
		p.Y.Min, p.Y.Max = c.Y.Min, c.Y.Max
	}
	p.Legend.Top, p.Legend.Left = true, c.LegendLeft
	return p, nil
}

// Save draws the chart w by h into each of paths, in the format each
// one's extension names (.svg, .png, …).
func (c Lines) Save(w, h vg.Length, paths ...string) error {
	p, err := c.Plot()
	if err != nil {
		return err
	}
	for _, path := range paths {
		if err := p.Save(w, h, path); err != nil {
			return fmt.Errorf("chart: save %s: %w", path, err)
		}
	}
	return nil
}

// SaveRow draws plots side by side, each Width by Height, under one
// title, into the SVG file path.
func SaveRow(title string, plots []*plot.Plot, path string) error {
	n := vg.Length(len(plots))
	c := vgsvg.New(n*Width, Height)
	dc := draw.New(c)
	titleStyle := plot.New().Title.TextStyle
	dc.FillText(titleStyle, vg.Point{X: n * Width / 2, Y: Height - titleStyle.Height(title)}, title)
	dc = draw.Crop(dc, 0, 0, 0, -2*titleStyle.Height(title))
	tiles := draw.Tiles{Rows: 1, Cols: len(plots), PadX: vg.Centimeter, PadTop: vg.Points(4)}
	canvases := plot.Align([][]*plot.Plot{plots}, tiles, dc)
	for k, p := range plots {
		p.Draw(canvases[0][k])
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("chart: save %s: %w", path, err)
	}
	if _, err := c.WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("chart: save %s: %w", path, err)
	}
	return f.Close()
}

// Extent is the range of the points of every series: on a logarithmic
// axis, what to widen by a factor to leave a margin.
func Extent(series []Series) (x, y Span) {
	x, y = Span{math.Inf(1), math.Inf(-1)}, Span{math.Inf(1), math.Inf(-1)}
	for _, s := range series {
		for _, pt := range s.Points {
			x.Min, x.Max = min(x.Min, pt.X), max(x.Max, pt.X)
			y.Min, y.Max = min(y.Min, pt.Y), max(y.Max, pt.Y)
		}
	}
	return x, y
}
