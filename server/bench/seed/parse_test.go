package main

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// abReport is ab 2.3's report of a run against the bare handler.
const abReport = `This is ApacheBench, Version 2.3 <$Revision$>
Benchmarking 127.0.0.1 (be patient).....done


Server Software:        
Server Hostname:        127.0.0.1
Server Port:            6492

Document Path:          /api/v1/posts
Document Length:        Variable

Concurrency Level:      5
Time taken for tests:   0.039 seconds
Complete requests:      300
Failed requests:        2
   (Connect: 0, Receive: 0, Length: 2, Exceptions: 0)
Non-2xx responses:      7
Total transferred:      110292 bytes
Total body sent:        49200
HTML transferred:       76092 bytes
Requests per second:    7657.95 [#/sec] (mean)
Time per request:       0.653 [ms] (mean)
Time per request:       0.131 [ms] (mean, across all concurrent requests)
Transfer rate:          2749.38 [Kbytes/sec] received

Connection Times (ms)
              min  mean[+/-sd] median   max
Connect:        0    0   0.0      0       0
Total:          0    1   0.2      1       2
ERROR: The median and mean for the processing time are more than twice the standard
       deviation apart. These results are NOT reliable.

Percentage of the requests served within a certain time (ms)
  50%      1
 100%      2 (longest request)
`

func TestParseAB(t *testing.T) {
	r, err := parseAB(abReport)
	if err != nil {
		t.Fatal(err)
	}
	want := abResult{Complete: 300, Failed: 2, Non2xx: 7, PerSec: 7657.95, Seconds: 0.039}
	if r.Complete != want.Complete || r.Failed != want.Failed || r.Non2xx != want.Non2xx || r.PerSec != want.PerSec || r.Seconds != want.Seconds {
		t.Errorf("parseAB = %+v, want %+v", r, want)
	}
	// A report cut short (ab stopped by an error) is no result.
	if _, err := parseAB(abReport[:strings.Index(abReport, "Failed requests")]); err == nil {
		t.Error("parseAB took a report without its failed count")
	}
}

func TestParsePercentiles(t *testing.T) {
	var b strings.Builder
	b.WriteString("Percentage served,Time in ms\n")
	for i := range 101 {
		b.WriteString(strconv.Itoa(i) + "," + strconv.Itoa(i) + ".250" + "\n")
	}
	ps, err := parsePercentiles(b.String())
	if err != nil {
		t.Fatal(err)
	}
	if r := (abResult{Percentiles: ps}); r.p(50) != 50.25 || r.p(99) != 99.25 || r.p(100) != 100.25 {
		t.Errorf("p50, p99, max = %v, %v, %v", r.p(50), r.p(99), r.p(100))
	}
	if _, err := parsePercentiles("Percentage served,Time in ms\n0,0.227\n1,0.245\n"); err == nil {
		t.Error("parsePercentiles took 2 lines for 101")
	}
}

// commandStats is INFO commandstats of Redis 7.0 after 300 bare posts,
// with the benchmark's own INFO calls.
const commandStats = "# Commandstats\r\n" +
	"cmdstat_incr:calls=300,usec=134,usec_per_call=0.45,rejected_calls=0,failed_calls=0\r\n" +
	"cmdstat_zrange:calls=300,usec=64,usec_per_call=0.21,rejected_calls=0,failed_calls=0\r\n" +
	"cmdstat_hset:calls=300,usec=1013,usec_per_call=3.38,rejected_calls=0,failed_calls=0\r\n" +
	"cmdstat_info:calls=4,usec=200,usec_per_call=50.00,rejected_calls=0,failed_calls=0\r\n" +
	"cmdstat_set:calls=600,usec=316,usec_per_call=0.53,rejected_calls=0,failed_calls=0\r\n" +
	"cmdstat_zadd:calls=900,usec=1375,usec_per_call=1.53,rejected_calls=0,failed_calls=0\r\n"

func TestCommandCalls(t *testing.T) {
	if n := commandCalls(commandStats); n != 2400 {
		t.Errorf("commandCalls = %d, want 2400 (INFO left out)", n)
	}
	stats := infoFields("# Stats\r\ntotal_connections_received:7\r\ntotal_commands_processed:3006\r\ntotal_reads_processed:3015\r\n")
	if stats["total_commands_processed"] != "3006" || stats["total_reads_processed"] != "3015" {
		t.Errorf("infoFields = %v", stats)
	}
}

// metricsText is a server's /metrics as Prometheus writes it.
const metricsText = `# HELP microblog_fanout_queue_length Fan-out jobs waiting or in progress.
# TYPE microblog_fanout_queue_length gauge
microblog_fanout_queue_length 12
microblog_fanout_queue_length_max 99
# HELP microblog_redis_round_trips_total Calls to Redis made while serving each route.
# TYPE microblog_redis_round_trips_total counter
microblog_redis_round_trips_total{method="POST",route="/api/v1/posts"} 80000
microblog_redis_round_trips_total{method="GET",route="/api/v1/timelines/home"} 1.5e+06
microblog_redis_round_trips_total{route="/api/v1/users/:username",method="GET"} 7
microblog_http_requests_total{code="201",method="POST",route="/api/v1/posts"} 20000
`

func TestMetricValue(t *testing.T) {
	for _, c := range []struct {
		name string
		want map[string]string
		v    float64
		ok   bool
	}{
		{"microblog_fanout_queue_length", nil, 12, true},
		{tripsMetric, map[string]string{"method": "POST", "route": "/api/v1/posts"}, 80000, true},
		{tripsMetric, map[string]string{"route": "/api/v1/timelines/home", "method": "GET"}, 1.5e6, true},
		{tripsMetric, map[string]string{"method": "GET"}, 1.5e6 + 7, true},
		{tripsMetric, map[string]string{"method": "DELETE"}, 0, false},
		{"microblog_archive_queue_length", nil, 0, false},
	} {
		v, ok := metricValue(metricsText, c.name, c.want)
		if ok != c.ok || math.Abs(v-c.v) > 1e-9 {
			t.Errorf("metricValue(%s, %v) = %v, %v; want %v, %v", c.name, c.want, v, ok, c.v, c.ok)
		}
	}
	labels := parseLabels(`a="x,\"y\"",b="z"`)
	if labels["a"] != `x,"y"` || labels["b"] != "z" {
		t.Errorf("parseLabels = %q", labels)
	}
}

func TestPer(t *testing.T) {
	a := snapshot{redisCalls: 100, redisReads: 10, tripsOK: true, trips: map[string]float64{"POST /api/v1/posts": 5}}
	b := snapshot{redisCalls: 4100, redisReads: 1010, serverCPU: 2e9, redisCPU: 5e8, tripsOK: true,
		trips: map[string]float64{"POST /api/v1/posts": 405}}
	c := per(a, b, 200, "POST /api/v1/posts")
	if c.RedisCommands != 20 || c.RedisReads != 5 || c.RoundTrips != 2 || c.ServerCPUus != 10000 || c.RedisCPUus != 2500 {
		t.Errorf("per = %+v", c)
	}
	b.tripsOK = false
	if c := per(a, b, 200, "POST /api/v1/posts"); fmtTrips(c.RoundTrips) != "n/a" {
		t.Errorf("round trips of a server without the metric = %s, want n/a", fmtTrips(c.RoundTrips))
	}
}
