package redisdb

import (
	"cmp"
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The tables and the chart of BenchmarkArchive.

const arMiB = 1024 * 1024

// arChart draws Redis's used_memory over the posts written, both runs on one
// chart, as SVG and PNG in bench-out/ at the module's root, and returns the
// files' paths.
func arChart(on, off *arRun) ([]string, error) {
	root, err := arModuleRoot()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(root, "bench-out")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Redis used_memory, %s users posting %s messages (hot window %s)",
		tlCount(arUsers), tlCount(on.written.posts), tlCount(on.writer.opt.HotWindow))
	p.X.Label.Text = "posts written (thousands)"
	p.Y.Label.Text = "used_memory (MiB)"
	p.Y.Min = 0
	p.Add(plotter.NewGrid())
	p.Legend.Top, p.Legend.Left = true, true

	series := func(r *arRun) plotter.XYs {
		xy := make(plotter.XYs, len(r.samples))
		for i, s := range r.samples {
			xy[i].X, xy[i].Y = float64(s.posts)/1000, float64(s.mem)/arMiB
		}
		return xy
	}
	for _, s := range []struct {
		r    *arRun
		name string
		c    color.RGBA
	}{
		{off, "archive off", color.RGBA{R: 200, G: 60, B: 40, A: 255}},
		{on, "archive on (SQLite)", color.RGBA{R: 30, G: 90, B: 190, A: 255}},
	} {
		l, err := plotter.NewLine(series(s.r))
		if err != nil {
			return nil, err
		}
		l.Color, l.Width = s.c, vg.Points(2)
		p.Add(l)
		p.Legend.Add(s.name, l)
		// Where the run stood once its queues had drained.
		pt, err := plotter.NewScatter(plotter.XYs{{X: float64(s.r.drained.posts) / 1000, Y: float64(s.r.drained.mem) / arMiB}})
		if err != nil {
			return nil, err
		}
		pt.GlyphStyle = draw.GlyphStyle{Color: s.c, Radius: vg.Points(4), Shape: draw.CircleGlyph{}}
		p.Add(pt)
		p.Legend.Add(fmt.Sprintf("%s, queues drained (+%s)", s.name, tlDur(max(s.r.drainTime, s.r.fanOutDrainTime))), pt)
	}

	var paths []string
	for _, ext := range []string{"svg", "png"} {
		path := filepath.Join(dir, "archive-memory."+ext)
		if err := p.Save(9*vg.Inch, 5*vg.Inch, path); err != nil {
			return nil, fmt.Errorf("archive bench: save chart: %w", err)
		}
		paths = append(paths, path)
	}
	return paths, nil
}

func arPrint(w io.Writer, on, off *arRun, charts []string, elapsed time.Duration, load string) {
	total := on.written.posts
	cmd := "go test -run '^$' -bench BenchmarkArchive -benchtime 1x -timeout 60m ./store/redisdb"
	if total != 1_000_000 {
		cmd = fmt.Sprintf("ARCHIVE_BENCH_POSTS=%d %s", total, cmd)
	}
	if v := os.Getenv("ARCHIVE_BENCH_HOT_WINDOW"); v != "" {
		cmd = "ARCHIVE_BENCH_HOT_WINDOW=" + v + " " + cmd
	}
	window := on.writer.opt.HotWindow
	fmt.Fprintf(w, "\n### Hot window and archive: %s users, %s posts, hot window %s\n\n", tlCount(arUsers), tlCount(total), tlCount(window))
	fmt.Fprintf(w, "Redis %s on loopback, AOF on (appendfsync everysec, automatic rewrite off), a fresh server per run; %d CPUs. "+
		"Posts through Create by %d goroutines at full speed, round robin over the users (%s each); each user has %d fans (pushed, 2 fan-out workers). "+
		"Archive on: SQLite (WAL, synchronous FULL) in a temporary folder, one RunArchiver with default options (batches of 500). "+
		"The two runs one after the other.\n\n",
		on.redisVersion, runtime.NumCPU(), arWriters, tlCount(total/arUsers), arFans)

	mib := func(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/arMiB) }
	rate := func(n float64, d time.Duration) string {
		if d <= 0 {
			return "–"
		}
		return tlCount(int(n/d.Seconds())) + "/s"
	}
	fmt.Fprintln(w, "| | archive on | archive off |")
	fmt.Fprintln(w, "|---|---:|---:|")
	row := func(what, a, b string) { fmt.Fprintf(w, "| %s | %s | %s |\n", what, a, b) }
	row("posts written per second", rate(float64(total), on.writeTime), rate(float64(total), off.writeTime))
	row("writing took", tlDur(on.writeTime), tlDur(off.writeTime))
	row("Redis used_memory before the first post", mib(on.samples[0].mem), mib(off.samples[0].mem))
	row("Redis used_memory when the last post was written", mib(on.written.mem), mib(off.written.mem))
	row("Redis used_memory at the end (queues drained)", mib(on.drained.mem), mib(off.drained.mem))
	row("  per post written", tlBytes(float64(on.drained.mem-on.samples[0].mem)/float64(total)), tlBytes(float64(off.drained.mem-off.samples[0].mem)/float64(total)))
	row("posts still in Redis (Σ ZCARD F), keys (DBSIZE)",
		fmt.Sprintf("%s, %s", tlCount(int(on.hotPosts)), tlCount(int(on.keys))), fmt.Sprintf("%s, %s", tlCount(int(off.hotPosts)), tlCount(int(off.keys))))
	row("archive queue: peak length (XLEN), at the last post", fmt.Sprintf("%s, %s", tlCount(int(on.peakQueue)), tlCount(int(on.written.queue))), "–")
	row("archive queue drained after the last post in", tlDur(on.drainTime), "–")
	row("fan-out queue (2 workers): peak length, at the last post", fmt.Sprintf("%s, %s", tlCount(int(on.peakFanOut)), tlCount(int(on.written.fanOut))),
		fmt.Sprintf("%s, %s", tlCount(int(off.peakFanOut)), tlCount(int(off.written.fanOut))))
	row("fan-out queue drained after the last post in", tlDur(on.fanOutDrainTime), tlDur(off.fanOutDrainTime))
	row("archive rows per second while writing (microblog_archive_rows_total)", rate(on.written.rows, on.writeTime), "–")
	row("archive rows per second, first post to queue drained", rate(on.drained.rows, on.writeTime+on.drainTime), "–")
	row("archive rows (Count), tombstones; file size", fmt.Sprintf("%s, %d; %s", tlCount(int(on.archiveRows)), on.tombstones, mib(on.archiveBytes)), "–")
	row("messages moved out of Redis (microblog_archive_evicted_total)", tlCount(int(on.metric("microblog_archive_evicted_total"))), "–")
	if on.db != nil {
		saves := on.db.saves.Load()
		save, has := time.Duration(on.db.saveNS.Load()), time.Duration(on.db.hasNS.Load())
		row("archiver: batches (rows per batch); time in SQL Save (per batch), in Has; share of the time until drained",
			fmt.Sprintf("%s (%.0f); %s (%s), %s; %.0f%%", tlCount(int(saves)), on.drained.rows/float64(max(1, saves)),
				tlDur(save), tlDur(save/time.Duration(max(1, saves))), tlDur(has),
				100*(save+has).Seconds()/(on.writeTime+on.drainTime).Seconds()), "–")
	}
	row("Redis CPU, first post to queues drained", tlDur(secs(on.redisCPU)), tlDur(secs(off.redisCPU)))
	row("benchmark process CPU (Create, workers, archiver, SQLite)", tlDur(secs(on.appCPU)), tlDur(secs(off.appCPU)))
	row("aof_delayed_fsync (writes held back for a slow fsync)", fmt.Sprint(on.delayedFsyncs), fmt.Sprint(off.delayedFsyncs))
	fmt.Fprintf(w, "\nRedis used_memory at the end, archive off / on: %.2f× (%s / %s).\n",
		float64(off.drained.mem)/float64(on.drained.mem), mib(off.drained.mem), mib(on.drained.mem))

	fmt.Fprintf(w, "\n#### Redis used_memory as the posts go in\n\n")
	fmt.Fprintln(w, "| posts written | archive on: used_memory | archive queue | archive rows | fan-out queue | archive off: used_memory | fan-out queue |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---:|---:|")
	for tenth := 0; tenth <= 10; tenth++ {
		a, b := arAt(on, total*tenth/10), arAt(off, total*tenth/10)
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n", tlCount(a.posts), mib(a.mem), tlCount(int(a.queue)), tlCount(int(a.rows)),
			tlCount(int(a.fanOut)), mib(b.mem), tlCount(int(b.fanOut)))
	}
	fmt.Fprintf(w, "| queues drained | %s | %s | %s | %s | %s | %s |\n",
		mib(on.drained.mem), tlCount(int(on.drained.queue)), tlCount(int(on.drained.rows)), tlCount(int(on.drained.fanOut)),
		mib(off.drained.mem), tlCount(int(off.drained.fanOut)))

	fmt.Fprintf(w, "\n#### Redis's busiest commands, first post to queues drained (INFO commandstats)\n\n")
	fmt.Fprintln(w, "| command | archive on: calls | CPU | per call | archive off: calls | CPU | per call |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|")
	for _, name := range arBusiest(on.commands, off.commands, 10) {
		a, b := on.commands[name], off.commands[name]
		per := func(c arCommand) string {
			if c.calls == 0 {
				return "–"
			}
			return fmt.Sprintf("%.1f µs", float64(c.usec)/float64(c.calls))
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n", name,
			tlCount(int(a.calls)), tlDur(time.Duration(a.usec)*time.Microsecond), per(a),
			tlCount(int(b.calls)), tlDur(time.Duration(b.usec)*time.Microsecond), per(b))
	}

	fmt.Fprintf(w, "\n#### Reading a user's posts, a page of %d (UserPosts), once the queues drained\n\n", arPage)
	fmt.Fprintf(w, "%d reads of each kind, taken in turns, each of another user; \"archived\" counts the page's posts read from SQLite (over the first 50 reads); \"wrong\" the pages whose ids differed from those written there.\n\n", arReads)
	fmt.Fprintln(w, "| page | archive | p50 | p99 | archived per page | wrong |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|")
	for _, r := range []*arRun{on, off} {
		mode := "on"
		if !r.archive {
			mode = "off"
		}
		for _, rd := range r.reads {
			fmt.Fprintf(w, "| %s | %s | %s | %s | %.1f | %d |\n", rd.what, mode, tlDur(tlPct(rd.lat, 0.5)), tlDur(tlPct(rd.lat, 0.99)), rd.cold, rd.mismatch)
		}
	}
	fmt.Fprintf(w, "\nChart of memory over posts: %s\n", charts[0])
	for _, c := range charts[1:] {
		fmt.Fprintf(w, "  also: %s\n", c)
	}
	fmt.Fprintf(w, "\nLoad average (1, 5, 15 min) of the machine: %s; anything else running skews these figures.\n", load)
	fmt.Fprintf(w, "\nWhole run %s. Reproduce with:\n\n    %s\n\n", elapsed.Round(time.Second), cmd)
}

// arBusiest names the n commands that took Redis the most CPU in either run.
func arBusiest(on, off map[string]arCommand, n int) []string {
	var names []string
	for name := range on {
		names = append(names, name)
	}
	for name := range off {
		if _, ok := on[name]; !ok {
			names = append(names, name)
		}
	}
	most := func(name string) int64 { return max(on[name].usec, off[name].usec) }
	slices.SortFunc(names, func(a, b string) int { return cmp.Compare(most(b), most(a)) })
	return names[:min(n, len(names))]
}

// arAt is the last sample taken at or before posts.
func arAt(r *arRun, posts int) arSample {
	s := r.samples[0]
	for _, x := range r.samples {
		if x.posts <= posts {
			s = x
		}
	}
	return s
}
