package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"microblog/server/bench/chart"
)

// maxListed is how many broken invariants the report lists.
const maxListed = 40

// print writes the run's table, then what broke.
func (r *result) print(w io.Writer) {
	f := r.found
	total := 0
	for _, n := range r.acks {
		total += n
	}
	byKind := map[string]int{}
	var failovers []string
	for _, d := range r.faults {
		byKind[d.kind]++
		if d.kind == faultFailover {
			failovers = append(failovers, d.took.Round(100*time.Millisecond).String())
		}
	}
	faults := fmt.Sprintf("%d (%s)", len(r.faults), counts(byKind))
	if len(failovers) > 0 {
		faults += "; failovers took " + strings.Join(failovers, ", ")
	}
	fmt.Fprintf(w, "--- chaos: %s of load on %d server processes, seed %d\n", max(r.loaded, r.cfg.duration), r.cfg.procs, r.cfg.seed)
	fmt.Fprintln(w, "| figure | value | goal |\n|---|---|---|")
	row := func(name, value, goal string) { fmt.Fprintf(w, "| %s | %s | %s |\n", name, value, goal) }
	row("writes acknowledged", fmt.Sprintf("%s (%s)", thousands(total), counts(r.acks)), "")
	row("writes never acknowledged", thousands(r.unacked), "")
	row("faults injected", faults, "")
	row("writes lost", thousands(len(f.lost)), "0")
	row("duplicates delivered", thousands(f.duplicates), "0")
	row("unacknowledged shown live", fmt.Sprintf("%d (and %d that stand)", f.unackedLive, f.unackedLiveStanding), "0")
	if n := len(f.delays); n > 0 {
		row("live delay, post to frame: p50 / p99 / max", fmt.Sprintf("%s / %s / %s", ms(f.delays[n/2]), ms(f.delays[n*99/100]), ms(f.delays[n-1])), "")
	}
	row("live resumes", fmt.Sprintf("%d (sockets ended: %s)", r.resumes, counts(r.ends)), "")
	row("attempts tried again", counts(r.failed), "")
	row("reads", fmt.Sprintf("%d answered, %d not", r.reads[0], r.reads[1]), "")
	row("posts never acknowledged that stand; left unfinished", fmt.Sprintf("%d; %d", f.standing, f.unfinished), "")
	row("home entries of an author unfollowed meanwhile", thousands(f.strays), "")
	row("settled in", r.settled.Round(100*time.Millisecond).String(), "")
	row("answers the contract does not allow", counts(r.surprise), "none")
	row("invariants broken", thousands(len(f.failures)), "0")
	for i, s := range f.failures {
		if i == maxListed {
			fmt.Fprintf(w, "... and %d more\n", len(f.failures)-maxListed)
			break
		}
		fmt.Fprintln(w, "FAIL:", s)
	}
	if r.logs != "" {
		fmt.Fprint(w, r.logs)
	}
}

// counts writes a tally as "a 3, b 2", largest first, or "none".
func counts(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	keys := slices.Sorted(maps.Keys(m))
	slices.SortStableFunc(keys, func(a, b string) int { return m[b] - m[a] })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %s", k, thousands(m[k]))
	}
	return strings.Join(parts, ", ")
}

func ms(d time.Duration) string { return chart.FmtMS(float64(d) / float64(time.Millisecond)) }

// draw writes the chart of writes acknowledged and attempts failed each
// second, the faults marked at the top where they struck.
func (r *result) draw(path string) error {
	var acks, failed plotter.XYs
	top := 1.0
	for i, s := range r.seconds {
		acks = append(acks, plotter.XY{X: float64(i), Y: float64(s.acks)})
		failed = append(failed, plotter.XY{X: float64(i), Y: float64(s.failed)})
		top = max(top, float64(s.acks), float64(s.failed))
	}
	c := chart.Lines{
		Title:  fmt.Sprintf("Chaos run, seed %d: writes each second, faults marked", r.cfg.seed),
		XLabel: "seconds since the load began", YLabel: "per second",
		Series: []chart.Series{
			{Label: "writes acknowledged", Points: acks, Color: chart.Color(0)},
			{Label: "attempts failed, tried again", Points: failed, Color: chart.Color(1)},
		},
	}
	glyphs := []draw.GlyphDrawer{draw.TriangleGlyph{}, draw.SquareGlyph{}, draw.CircleGlyph{}}
	for i, kind := range faultKinds {
		var at plotter.XYs
		for _, d := range r.faults {
			if d.kind == kind {
				at = append(at, plotter.XY{X: d.at.Seconds(), Y: top * 1.05})
			}
		}
		if len(at) > 0 {
			c.Series = append(c.Series, chart.Series{Label: kind, Points: at, Color: chart.Color(2 + i),
				Dash: chart.NoLine, Glyph: glyphs[i], Radius: vg.Points(4)})
		}
	}
	return c.Save(chart.Width, chart.Height, path)
}

// thousands writes 12345 as 12,345.
func thousands(n int) string { return chart.Thousands(float64(n)) }
