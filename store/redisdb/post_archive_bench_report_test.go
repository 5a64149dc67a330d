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
	"strings"
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
// had drained, drain_seconds after the last post. Kept marks the run whose
// archiver left likes and topic entries in Redis (before they left).
type arChartRun struct {
	Name         string         `json:"name"`
	Archive      bool           `json:"archive"`
	Kept         bool           `json:"kept,omitempty"`
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
func arChartData(runs []*arRun) (string, error) {
	root, err := arModuleRoot()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, "bench-out")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("archive bench: chart data: %w", err)
	}
	data := arChartFile{Users: arUsers, Posts: runs[0].written.posts, HotWindow: runs[0].writer.opt.HotWindow}
	for _, r := range runs {
		run := arChartRun{Name: arModeNames[r.mode], Archive: r.archive, Kept: r.mode == arKept,
			Drained:      arChartPoint{r.drained.posts, r.drained.mem},
			DrainSeconds: max(r.drainTime, r.fanOutDrainTime).Seconds()}
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

// arPrint prints the tables of the runs, side by side.
func arPrint(w io.Writer, runs []*arRun, chartData string, elapsed time.Duration, load string) {
	first := runs[0]
	total := first.written.posts
	cmd := "go test -run '^$' -bench BenchmarkArchive -benchtime 1x -timeout 180m ./store/redisdb"
	if total != 1_000_000 {
		cmd = fmt.Sprintf("ARCHIVE_BENCH_POSTS=%d %s", total, cmd)
	}
	if v := os.Getenv("ARCHIVE_BENCH_HOT_WINDOW"); v != "" {
		cmd = "ARCHIVE_BENCH_HOT_WINDOW=" + v + " " + cmd
	}
	window := first.writer.opt.HotWindow
	fmt.Fprintf(w, "\n### Hot window and archive: %s users, %s posts, hot window %s\n\n", tlCount(arUsers), tlCount(total), tlCount(window))
	fmt.Fprintf(w, "Redis %s on loopback, AOF on (appendfsync everysec, automatic rewrite off), a fresh server per run; %d CPUs. "+
		"Posts through Create by %d goroutines at full speed, round robin over the users (%s each), each carrying one of %d topics "+
		"and liked (Like) right after by %d of its author's fans; each user has %d fans (pushed, 2 fan-out workers). "+
		"Archive on: SQLite (WAL, synchronous FULL) in a temporary folder, one Archiver with default options (batches of 500); "+
		"%q: the same, but the archiver leaves the likes sets, topic entries and likers' entries of what it moves out of Redis, as it did before. "+
		"The runs one after the other.\n\n",
		first.redisVersion, runtime.NumCPU(), arWriters, tlCount(total/arUsers), arTopics, arLikes, arFans, arModeNames[arKept])

	mib := func(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/arMiB) }
	rate := func(n float64, d time.Duration) string {
		if d <= 0 {
			return "–"
		}
		return tlCount(int(n/d.Seconds())) + "/s"
	}
	header := func(cols ...string) {
		fmt.Fprintln(w, "| "+strings.Join(cols, " | ")+" |")
		fmt.Fprintln(w, "|---"+strings.Repeat("|---:", len(cols)-1)+"|")
	}
	names := []string{""}
	for _, r := range runs {
		names = append(names, arModeNames[r.mode])
	}
	header(names...)
	row := func(what string, f func(r *arRun) string) {
		cols := []string{what}
		for _, r := range runs {
			cols = append(cols, f(r))
		}
		fmt.Fprintln(w, "| "+strings.Join(cols, " | ")+" |")
	}
	archived := func(f func(r *arRun) string) func(r *arRun) string {
		return func(r *arRun) string {
			if !r.archive {
				return "–"
			}
			return f(r)
		}
	}
	row("posts written per second (each with its likes)", func(r *arRun) string { return rate(float64(total), r.writeTime) })
	row("writing took", func(r *arRun) string { return tlDur(r.writeTime) })
	row("Redis used_memory before the first post", func(r *arRun) string { return mib(r.samples[0].mem) })
	row("Redis used_memory at half the posts", func(r *arRun) string { return mib(arAt(r, total/2).mem) })
	row("Redis used_memory when the last post was written", func(r *arRun) string { return mib(r.written.mem) })
	row("Redis used_memory at the end (queues drained)", func(r *arRun) string { return mib(r.drained.mem) })
	row("  per post written", func(r *arRun) string {
		return tlBytes(float64(r.drained.mem-r.samples[0].mem) / float64(total))
	})
	row("  growth over the second half, per post (level: 0)", func(r *arRun) string {
		return tlBytes(float64(r.written.mem-arAt(r, total/2).mem) / float64(total-total/2))
	})
	row("posts still in Redis (Σ ZCARD F), keys (DBSIZE)", func(r *arRun) string {
		return fmt.Sprintf("%s, %s", tlCount(int(r.hotPosts)), tlCount(int(r.keys)))
	})
	row("likes:<mid> sets; T: entries; likers' entries (Σ ZCARD user:…:likes)", func(r *arRun) string {
		l := r.leftovers
		return fmt.Sprintf("%s; %s; %s", tlCount(int(l.likesSets)), tlCount(int(l.topicPosts)), tlCount(int(l.likedPosts)))
	})
	row("oldest posts read wrong (likes count, likers, liked-by-me)", func(r *arRun) string {
		return fmt.Sprintf("%d of %d", r.likesWrong, r.likesChecked)
	})
	row("archive queue: peak length (XLEN), at the last post", archived(func(r *arRun) string {
		return fmt.Sprintf("%s, %s", tlCount(int(r.peakQueue)), tlCount(int(r.written.queue)))
	}))
	row("archive queue drained after the last post in", archived(func(r *arRun) string { return tlDur(r.drainTime) }))
	row("fan-out queue (2 workers): peak length, at the last post", func(r *arRun) string {
		return fmt.Sprintf("%s, %s", tlCount(int(r.peakFanOut)), tlCount(int(r.written.fanOut)))
	})
	row("fan-out queue drained after the last post in", func(r *arRun) string { return tlDur(r.fanOutDrainTime) })
	row("archive rows per second while writing (microblog_archive_rows_total)", archived(func(r *arRun) string { return rate(r.written.rows, r.writeTime) }))
	row("archive rows per second, first post to queue drained", archived(func(r *arRun) string {
		return rate(r.drained.rows, r.writeTime+r.drainTime)
	}))
	row("archive rows (Count), tombstones; file size", archived(func(r *arRun) string {
		return fmt.Sprintf("%s, %d; %s", tlCount(int(r.archiveRows)), r.tombstones, mib(r.archiveBytes))
	}))
	row("messages moved out of Redis (microblog_archive_evicted_total)", archived(func(r *arRun) string {
		return tlCount(int(r.metric("microblog_archive_evicted_total")))
	}))
	row("archiver: batches (rows per batch); time in SQL Save (per batch), in Has; share of the time until drained", archived(func(r *arRun) string {
		saves := r.db.saves.Load()
		save, has := time.Duration(r.db.saveNS.Load()), time.Duration(r.db.hasNS.Load())
		return fmt.Sprintf("%s (%.0f); %s (%s), %s; %.0f%%", tlCount(int(saves)), r.drained.rows/float64(max(1, saves)),
			tlDur(save), tlDur(save/time.Duration(max(1, saves))), tlDur(has),
			100*(save+has).Seconds()/(r.writeTime+r.drainTime).Seconds())
	}))
	row("Redis CPU, first post to queues drained", func(r *arRun) string { return tlDur(secs(r.redisCPU)) })
	row("benchmark process CPU (Create, Like, workers, archiver, SQLite)", func(r *arRun) string { return tlDur(secs(r.appCPU)) })
	row("aof_delayed_fsync (writes held back for a slow fsync)", func(r *arRun) string { return fmt.Sprint(r.delayedFsyncs) })
	fmt.Fprintln(w)
	for _, r := range runs[1:] {
		fmt.Fprintf(w, "Redis used_memory at the end, %s / %s: %.2f× (%s / %s).\n", arModeNames[r.mode], arModeNames[first.mode],
			float64(r.drained.mem)/float64(first.drained.mem), mib(r.drained.mem), mib(first.drained.mem))
	}

	fmt.Fprintf(w, "\n#### Redis used_memory as the posts go in\n\n")
	cols := []string{"posts written"}
	for _, r := range runs {
		cols = append(cols, arModeNames[r.mode]+": used_memory", "fan-out queue")
		if r.archive {
			cols = append(cols, "archive queue", "archive rows")
		}
	}
	header(cols...)
	line := func(posts string, at func(r *arRun) arSample) {
		cols := []string{posts}
		for _, r := range runs {
			a := at(r)
			cols = append(cols, mib(a.mem), tlCount(int(a.fanOut)))
			if r.archive {
				cols = append(cols, tlCount(int(a.queue)), tlCount(int(a.rows)))
			}
		}
		fmt.Fprintln(w, "| "+strings.Join(cols, " | ")+" |")
	}
	for tenth := 0; tenth <= 10; tenth++ {
		line(tlCount(total*tenth/10), func(r *arRun) arSample { return arAt(r, total*tenth/10) })
	}
	line("queues drained", func(r *arRun) arSample { return r.drained })

	fmt.Fprintf(w, "\n#### Redis's busiest commands, first post to queues drained (INFO commandstats)\n\n")
	cols = []string{"command"}
	for _, r := range runs {
		cols = append(cols, arModeNames[r.mode]+": calls", "CPU", "per call")
	}
	header(cols...)
	for _, name := range arBusiest(runs, 12) {
		cols := []string{name}
		for _, r := range runs {
			c := r.commands[name]
			per := "–"
			if c.calls > 0 {
				per = fmt.Sprintf("%.1f µs", float64(c.usec)/float64(c.calls))
			}
			cols = append(cols, tlCount(int(c.calls)), tlDur(time.Duration(c.usec)*time.Microsecond), per)
		}
		fmt.Fprintln(w, "| "+strings.Join(cols, " | ")+" |")
	}

	fmt.Fprintf(w, "\n#### Reading a user's or a topic's posts, a page of %d (UserPosts, TagPosts), once the queues drained\n\n", arPage)
	fmt.Fprintf(w, "%d reads of each kind, taken in turns, each of another user or topic; \"archived\" counts the page's posts read from SQLite (over the first 50 reads); \"wrong\" the pages whose ids differed from those written there.\n\n", arReads)
	header("page", "run", "p50", "p99", "archived per page", "wrong")
	for _, r := range runs {
		for _, rd := range r.reads {
			fmt.Fprintf(w, "| %s | %s | %s | %s | %.1f | %d |\n", rd.what, arModeNames[r.mode], tlDur(tlPct(rd.lat, 0.5)), tlDur(tlPct(rd.lat, 0.99)), rd.cold, rd.mismatch)
		}
	}
	fmt.Fprintf(w, "\nChart of memory over posts: %s, drawn into archive-memory.svg and .png beside it by `make bench-archive`, or:\n\n    go run -C server/bench ./archive %s\n", chartData, chartData)
	fmt.Fprintf(w, "\nLoad average (1, 5, 15 min) of the machine: %s; anything else running skews these figures.\n", load)
	fmt.Fprintf(w, "\nWhole run %s. Reproduce with:\n\n    %s\n\n", elapsed.Round(time.Second), cmd)
}

// arBusiest names the n commands that took Redis the most CPU in any run.
func arBusiest(runs []*arRun, n int) []string {
	most := map[string]int64{}
	for _, r := range runs {
		for name, c := range r.commands {
			most[name] = max(most[name], c.usec)
		}
	}
	names := make([]string, 0, len(most))
	for name := range most {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int { return cmp.Compare(most[b], most[a]) })
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
