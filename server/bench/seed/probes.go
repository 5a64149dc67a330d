package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/server/bench/spawn"
)

// tripsMetric is the server's count of calls to Redis (a command or a
// pipeline: one round trip each) made while serving each route.
const tripsMetric = "microblog_redis_round_trips_total"

// snapshot is what the benchmark reads before and after a run.
type snapshot struct {
	at                       time.Time
	serverCPU, redisCPU      time.Duration
	redisCalls               int64              // commands Redis ran, from INFO commandstats
	redisUsec                map[string]cmdStat // by command, from INFO commandstats
	redisReads, redisCmdsAll int64              // total_reads_processed, total_commands_processed
	redisBytesIn             int64              // total_net_input_bytes: what Redis was sent
	trips                    map[string]float64
	tripsOK                  bool // whether the server has tripsMetric
}

// probe reads the snapshots of one target: its server process, its Redis.
type probe struct {
	server, redis *spawn.Proc
	rdb           *redis.Client
	client        *http.Client
}

func (p *probe) snap(ctx context.Context) (snapshot, error) {
	s := snapshot{at: time.Now(), serverCPU: p.server.CPU(), redisCPU: p.redis.CPU()}
	cmdstats, err := p.rdb.Info(ctx, "commandstats").Result()
	if err != nil {
		return s, fmt.Errorf("INFO commandstats: %w", err)
	}
	s.redisCalls = commandCalls(cmdstats)
	s.redisUsec = commandTimes(cmdstats)
	stats, err := p.rdb.Info(ctx, "stats").Result()
	if err != nil {
		return s, fmt.Errorf("INFO stats: %w", err)
	}
	f := infoFields(stats)
	s.redisReads, _ = strconv.ParseInt(f["total_reads_processed"], 10, 64)
	s.redisCmdsAll, _ = strconv.ParseInt(f["total_commands_processed"], 10, 64)
	s.redisBytesIn, _ = strconv.ParseInt(f["total_net_input_bytes"], 10, 64)
	text, err := p.metrics()
	if err != nil {
		return s, err
	}
	s.trips = map[string]float64{}
	for _, rt := range []struct{ method, route string }{{"POST", "/api/v1/posts"}, {"GET", "/api/v1/timelines/home"}} {
		if v, ok := metricValue(text, tripsMetric, map[string]string{"method": rt.method, "route": rt.route}); ok {
			s.trips[rt.method+" "+rt.route] = v
			s.tripsOK = true
		}
	}
	return s, nil
}

func (p *probe) metrics() (string, error) {
	resp, err := p.client.Get(p.server.URL + "/metrics")
	if err != nil {
		return "", fmt.Errorf("metrics: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("metrics: %s %v", resp.Status, err)
	}
	return string(b), nil
}

// settle waits until the server's fan-out and archive queues are empty, so
// that what a post costs includes the fan-out into every fan's timeline
// (and, with an archive, its row). A server without the queue metrics (the
// bare one) has nothing in the background.
func (p *probe) settle(limit time.Duration) (time.Duration, error) {
	start := time.Now()
	for first := true; ; first = false {
		text, err := p.metrics()
		if err != nil {
			return 0, err
		}
		pending := 0.0
		for _, name := range []string{"microblog_fanout_queue_length", "microblog_archive_queue_length"} {
			v, _ := metricValue(text, name, nil)
			pending += v
		}
		if pending == 0 && first {
			return 0, nil // nothing was left to wait for
		}
		if pending == 0 {
			return time.Since(start), nil
		}
		if time.Since(start) > limit {
			return 0, fmt.Errorf("%s: %.0f jobs still queued after %s", p.server.Name, pending, limit)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// costs is what one run cost, per request.
type costs struct {
	Requests      int     `json:"requests"`
	RedisCommands float64 `json:"redis_commands_per_request"`
	RedisReads    float64 `json:"redis_read_events_per_request"`
	RedisBytesIn  float64 `json:"redis_bytes_in_per_request"`           // sent to Redis, the benchmark's INFO included
	RoundTrips    float64 `json:"request_path_round_trips_per_request"` // -1: the server does not count them
	ServerCPUus   float64 `json:"server_cpu_us_per_request"`
	RedisCPUus    float64 `json:"redis_cpu_us_per_request"`
	Settle        float64 `json:"settle_seconds"` // the wait for the queues, after ab ended
	// Commands is, by command, its calls and the µs Redis spent in it
	// (INFO commandstats) per request: where Redis's time inside commands
	// went (a script's own commands count apart and inside its call).
	Commands map[string]cmdStat `json:"redis_commands,omitempty"`
}

// cmdStat is one command's calls and time (µs) in INFO commandstats, or
// their share per request.
type cmdStat struct {
	Calls float64 `json:"calls"`
	Usec  float64 `json:"usec"`
}

// per divides what happened between two snapshots by the requests made;
// route is the "METHOD /path" whose round trips count.
func per(a, b snapshot, requests int, route string) costs {
	n := float64(max(1, requests))
	c := costs{Requests: requests,
		RedisCommands: float64(b.redisCalls-a.redisCalls) / n,
		RedisReads:    float64(b.redisReads-a.redisReads) / n,
		RedisBytesIn:  float64(b.redisBytesIn-a.redisBytesIn) / n,
		ServerCPUus:   float64((b.serverCPU - a.serverCPU).Microseconds()) / n,
		RedisCPUus:    float64((b.redisCPU - a.redisCPU).Microseconds()) / n,
		RoundTrips:    -1,
	}
	if a.tripsOK && b.tripsOK {
		c.RoundTrips = (b.trips[route] - a.trips[route]) / n
	}
	for name, after := range b.redisUsec {
		before := a.redisUsec[name]
		if d := (cmdStat{(after.Calls - before.Calls) / n, (after.Usec - before.Usec) / n}); d.Calls > 0 {
			if c.Commands == nil {
				c.Commands = map[string]cmdStat{}
			}
			c.Commands[name] = d
		}
	}
	return c
}

// commandTimes reads the calls and µs of every command in INFO
// commandstats but INFO itself.
func commandTimes(info string) map[string]cmdStat {
	out := map[string]cmdStat{}
	for _, line := range strings.Split(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") || name == "cmdstat_info" {
			continue
		}
		var st cmdStat
		for _, kv := range strings.Split(rest, ",") {
			if v, ok := strings.CutPrefix(kv, "calls="); ok {
				st.Calls, _ = strconv.ParseFloat(v, 64)
			} else if v, ok := strings.CutPrefix(kv, "usec="); ok {
				st.Usec, _ = strconv.ParseFloat(v, 64)
			}
		}
		out[strings.TrimPrefix(name, "cmdstat_")] = st
	}
	return out
}

// commandCalls sums the calls of every command in INFO commandstats, but
// INFO itself: those are the benchmark's own.
func commandCalls(info string) int64 {
	var sum int64
	for _, line := range strings.Split(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") || name == "cmdstat_info" {
			continue
		}
		for _, kv := range strings.Split(rest, ",") {
			if v, ok := strings.CutPrefix(kv, "calls="); ok {
				n, _ := strconv.ParseInt(v, 10, 64)
				sum += n
			}
		}
	}
	return sum
}

// infoFields reads the name:value lines of an INFO section.
func infoFields(info string) map[string]string {
	f := map[string]string{}
	for _, line := range strings.Split(info, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		if k, v, ok := strings.Cut(line, ":"); ok {
			f[k] = v
		}
	}
	return f
}

// metricValue sums the samples of a metric in Prometheus text whose labels
// include every label of want; ok says whether there was one.
func metricValue(text, name string, want map[string]string) (sum float64, ok bool) {
	for _, line := range strings.Split(text, "\n") {
		rest, found := strings.CutPrefix(line, name)
		if !found || line == "" || line[0] == '#' {
			continue
		}
		labels := map[string]string{}
		switch {
		case strings.HasPrefix(rest, "{"):
			end := strings.LastIndexByte(rest, '}')
			if end < 0 {
				continue
			}
			labels = parseLabels(rest[1:end])
			rest = rest[end+1:]
		case !strings.HasPrefix(rest, " "):
			continue // another metric whose name starts with name
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			continue
		}
		v, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			continue
		}
		match := true
		for k, w := range want {
			if labels[k] != w {
				match = false
			}
		}
		if match {
			sum, ok = sum+v, true
		}
	}
	return sum, ok
}

// parseLabels reads `a="x",b="y"` (quotes escaped with a backslash).
func parseLabels(s string) map[string]string {
	labels := map[string]string{}
	for s != "" {
		k, rest, ok := strings.Cut(s, `="`)
		if !ok {
			break
		}
		var v strings.Builder
		i := 0
		for ; i < len(rest) && rest[i] != '"'; i++ {
			if rest[i] == '\\' && i+1 < len(rest) {
				i++
				switch rest[i] {
				case 'n':
					v.WriteByte('\n')
					continue
				}
			}
			v.WriteByte(rest[i])
		}
		labels[strings.TrimSpace(k)] = v.String()
		s = strings.TrimPrefix(rest[min(i+1, len(rest)):], ",")
	}
	return labels
}
