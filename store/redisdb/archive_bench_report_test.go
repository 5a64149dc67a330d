package redisdb

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"
)

// The tables of BenchmarkArchive, and the data of its chart, which the
// bench module draws (server/bench/archive): gonum/plot stays out of the
// product's module.

const arMiB = 1024 * 1024

// arChartFile is what archive-memory.json holds: Redis's used_memory as the
// posts went in, for each run. server/bench/archive reads the same fields.
type arChartFile struct {
	Users     int          `json:"users"`
	Posts     int          `json:"posts"`
	HotWindow int          `json:"hot_window"`
	Runs      []arChartRun `json:"runs"`
}

// arChartRun is one run's used_memory: at each sample, and once its queues
// had drained, drain_seconds after the last post.
type arChartRun struct {
	Name         string         `json:"name"`
	Archive      bool           `json:"archive"`
	Samples      []arChartPoint `json:"samples"`
	Drained      arChartPoint   `json:"drained"`
	DrainSeconds float64        `json:"drain_seconds"`
}

type arChartPoint struct {
	Posts      int   `json:"posts"`
	UsedMemory int64 `json:"used_memory_bytes"`
}

// arChartData writes the chart's data, bench-out/archive-memory.json at the
// module's root, and returns its path.
func arChartData(on, off *arRun) (string, error) {
	root, err := arModuleRoot()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, "bench-out")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("archive bench: chart data: %w", err)
	}
	data := arChartFile{Users: arUsers, Posts: on.written.posts, HotWindow: on.writer.opt.HotWindow}
	for _, r := range []*arRun{off, on} {
		run := arChartRun{Name: "archive off", Archive: r.archive,
			Drained:      arChartPoint{r.drained.posts, r.drained.mem},
			DrainSeconds: max(r.drainTime, r.fanOutDrainTime).Seconds()}
		if r.archive {
			run.Name = "archive on (SQLite)"
		}
		for _, s := range r.samples {
			run.Samples = append(run.Samples, arChartPoint{s.posts, s.mem})
		}
		data.Runs = append(data.Runs, run)
	}
	b, err := json.MarshalIndent(data, "", "  ")
	if err != nil {
		return "", fmt.Errorf("archive bench: chart data: %w", err)
	}
	path := filepath.Join(dir, "archive-memory.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return "", fmt.Errorf("archive bench: chart data: %w", err)
	}
	return path, nil
}

func arPrint(w io.Writer, on, off *arRun, chartData string, elapsed time.Duration, load string) {
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
		"Archive on: SQLite (WAL, synchronous FULL) in a temporary folder, one Archiver with default options (batches of 500). "+
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
	fmt.Fprintf(w, "\nChart of memory over posts: %s, drawn into archive-memory.svg and .png beside it by `make bench-archive`, or:\n\n    go run -C server/bench ./archive %s\n", chartData, chartData)
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
