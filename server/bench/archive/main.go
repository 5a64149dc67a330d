// Command archive draws the chart of the store's archive benchmark
// (BenchmarkArchive in store/redisdb): Redis's used_memory over the posts
// written, with the SQL archive on, on but keeping likes and topics in
// Redis (as before they left with their messages), and off. The benchmark measures inside
// the product's module and writes its figures to archive-memory.json; this
// command, in the bench module that holds gonum/plot, draws them into
// archive-memory.svg and archive-memory.png beside that file:
//
//	go test -run '^$' -bench BenchmarkArchive -benchtime 1x -timeout 60m ./store/redisdb
//	go run -C server/bench ./archive "$PWD/bench-out/archive-memory.json"   # make bench-archive does both
package main

import (
	"encoding/json"
	"fmt"
	"image/color"
	"os"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"microblog/server/bench/chart"
)

func main() {
	if len(os.Args) != 2 || !strings.HasSuffix(os.Args[1], ".json") {
		fmt.Fprintln(os.Stderr, "usage: archive path/archive-memory.json (as BenchmarkArchive wrote it)")
		os.Exit(2)
	}
	paths, err := drawChart(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "archive:", err)
		os.Exit(1)
	}
	fmt.Println("wrote", strings.Join(paths, ", "))
}

// chartFile is what BenchmarkArchive writes (arChartFile in
// store/redisdb/post_archive_bench_report_test.go).
type chartFile struct {
	Users     int   `json:"users"`
	Posts     int   `json:"posts"`
	HotWindow int   `json:"hot_window"`
	Runs      []run `json:"runs"`
}

// run is one run's used_memory: at each sample, and once its queues had
// drained, drain_seconds after the last post. Kept marks the run whose
// archiver left likes and topic entries in Redis.
type run struct {
	Name         string  `json:"name"`
	Archive      bool    `json:"archive"`
	Kept         bool    `json:"kept"`
	Samples      []point `json:"samples"`
	Drained      point   `json:"drained"`
	DrainSeconds float64 `json:"drain_seconds"`
}

type point struct {
	Posts      int   `json:"posts"`
	UsedMemory int64 `json:"used_memory_bytes"`
}

const mib = 1024 * 1024

// drawChart reads the JSON file at path and draws the runs on one chart, as SVG
// and PNG beside it, and returns the charts' paths.
func drawChart(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the benchmark's figures: %w", err)
	}
	var f chartFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(f.Runs) == 0 {
		return nil, fmt.Errorf("%s: no runs", path)
	}
	c := chart.Lines{
		Title: fmt.Sprintf("Redis used_memory, %s users posting %s messages (hot window %s)",
			chart.Thousands(float64(f.Users)), chart.Thousands(float64(f.Posts)), chart.Thousands(float64(f.HotWindow))),
		XLabel:     "posts written (thousands)",
		YLabel:     "used_memory (MiB)",
		LegendLeft: true,
	}
	at := func(p point) plotter.XY {
		return plotter.XY{X: float64(p.Posts) / 1000, Y: float64(p.UsedMemory) / mib}
	}
	for _, r := range f.Runs {
		col := color.RGBA{R: 200, G: 60, B: 40, A: 255} // off
		switch {
		case r.Kept:
			col = color.RGBA{R: 230, G: 150, B: 20, A: 255}
		case r.Archive:
			col = color.RGBA{R: 30, G: 90, B: 190, A: 255}
		}
		pts := make(plotter.XYs, len(r.Samples))
		for i, s := range r.Samples {
			pts[i] = at(s)
		}
		drained := fmt.Sprintf("%.2f s", r.DrainSeconds)
		if r.DrainSeconds < 1 {
			drained = chart.FmtMS(1000 * r.DrainSeconds)
		}
		c.Series = append(c.Series,
			chart.Series{Label: r.Name, Points: pts, Color: col, Width: vg.Points(2)},
			// Where the run stood once its queues had drained.
			chart.Series{Label: fmt.Sprintf("%s, queues drained (+%s)", r.Name, drained), Points: plotter.XYs{at(r.Drained)},
				Color: col, Dash: chart.NoLine, Glyph: draw.CircleGlyph{}, Radius: vg.Points(4)})
	}
	_, y := chart.Extent(c.Series)
	c.Y = chart.Span{Min: 0, Max: y.Max}
	base := strings.TrimSuffix(path, ".json")
	paths := []string{base + ".svg", base + ".png"}
	return paths, c.Save(9*vg.Inch, 5*vg.Inch, paths...)
}
