package chart

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

func TestNumbers(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Thousands(20000.4), "20,000"}, {Thousands(611), "611"}, {Thousands(1234567), "1,234,567"},
		{Count(50000), "50k"}, {Count(1500), "1.5k"}, {Count(999), "999"},
		{FmtMS(120.4), "120 ms"}, {FmtMS(14.06), "14.1 ms"}, {FmtMS(4.617), "4.62 ms"},
		{tailLabel(1), "90%"}, {tailLabel(2), "99%"}, {tailLabel(3), "99.9%"}, {tailLabel(4), "99.99%"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	var labels []string
	for _, tk := range MSTicks.Ticks(0.3, 60) {
		labels = append(labels, tk.Label)
	}
	if got := strings.Join(labels, " "); got != "0.5 1 2 5 10 20 50" {
		t.Errorf("MSTicks(0.3, 60) = %s", got)
	}
}

// TestSave draws each kind of chart, and nothing where there is nothing to
// draw.
func TestSave(t *testing.T) {
	dir := t.TempDir()
	whole, permille := make([]float64, 101), make([]float64, 1001)
	for k := range whole {
		whole[k] = 0.5 + float64(k)/10
	}
	for k := range permille {
		permille[k] = float64(k) / 100
	}
	p := Percentiles{Title: "delays", Curves: []Curve{{"whole", whole}, {"0.1%", permille}}, Goal: 10, GoalLabel: "goal", Headroom: 2}
	l := Lines{Title: "lines", LogX: true, Refs: []Ref{{Y: 3, Label: "goal"}}, Series: []Series{
		{Label: "a", Points: plotter.XYs{{X: 1, Y: 2}, {X: 10, Y: 4}}, Color: Color(0)},
		{Label: "b", Points: plotter.XYs{{X: 1, Y: 1}, {X: 10, Y: 5}}, Color: Color(1), Dash: Dotted},
	}}
	lp, err := l.Plot()
	if err != nil {
		t.Fatal(err)
	}
	for name, save := range map[string]func(string) error{
		"percentiles.svg": p.Save,
		"lines.png":       func(path string) error { return l.Save(Width, Height, path) },
		"row.svg":         func(path string) error { return SaveRow("two", []*plot.Plot{lp, lp}, path) },
	} {
		path := filepath.Join(dir, name)
		if err := save(path); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if fi, err := os.Stat(path); err != nil || fi.Size() < 1000 {
			t.Errorf("%s: %v", name, err)
		}
	}
	empty := filepath.Join(dir, "empty.svg")
	if err := (Percentiles{Curves: []Curve{{"none", nil}}}).Save(empty); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(empty); !os.IsNotExist(err) {
		t.Errorf("a chart with no curve and no goal was written: %v", err)
	}
}
