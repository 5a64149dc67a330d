package main

import (
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"time"

	"microblog/server/bench/chart"
	"microblog/server/bench/spawn"
)

// The private messages' part of the bench (-messages): users in pairs, each
// pair one conversation, every user's live feed connected. One of each pair
// writes to the other, the two taking turns, at -messages-rate messages a
// second over HTTP, and each message is delivered to both users' sockets.
// Then the same users post at the same rate, each post by the first of a
// pair, whose one fan is the second: a post with one fan, delivered to the
// same two sockets. Each run reports what arrived, the delay from the
// write request to receipt, and the CPU per write, side by side.

// conversationResult is what one run of writes between pairs measured.
type conversationResult struct {
	Label    string        `json:"label"`
	Round    int           `json:"round"`
	Kind     string        `json:"kind"` // "message", or "post" (with one fan)
	Users    int           `json:"users"`
	Rate     float64       `json:"writes_per_second"`
	Duration time.Duration `json:"duration_ns"`

	Writes     int64 `json:"writes"`
	Failed     int64 `json:"failed_writes"`
	Expected   int64 `json:"expected"`
	Delivered  int64 `json:"delivered"`
	Duplicates int64 `json:"duplicates"`

	// Delay and WriteLatency are as deliveryResult's Delay and PostLatency.
	Delay        []float64 `json:"delay_ms_permille"`
	WriteLatency []float64 `json:"write_latency_ms_permille"`

	CPU  cpuShare `json:"cpu_seconds"`
	Wall float64  `json:"wall_seconds"`
}

// cpuPerWrite is the server's and Redis's CPU per successful write, in µs.
func (r conversationResult) cpuPerWrite() float64 {
	return 1e6 * (r.CPU.Server + r.CPU.Redis) / float64(max(1, r.Writes-r.Failed))
}

// pairUp makes the second of each pair of users follow the first: the
// first's posts have one fan.
func (lt *loadTest) pairUp(base string, users []account) error {
	return parallel(len(users)/2, lt.par, func(i int) error {
		return spawn.Call(lt.client, base, "PUT", "/api/v1/users/"+users[2*i].Name+"/follow", users[2*i+1].Token, nil, http.StatusNoContent, nil)
	})
}

// converse connects every user's live feed from the loopback address
// source, has the pairs write kind ("message" or "post") at rate a second
// for duration, and measures what arrives: each write goes to both users
// of its pair.
func (lt *loadTest) converse(base, source, kind string, users []account, rate float64, duration time.Duration, pr probes) (conversationResult, error) {
	res := conversationResult{Kind: kind, Users: len(users), Rate: rate, Duration: duration}
	parse := parseMessage
	if kind == "post" {
		parse = parsePost
	}
	start := time.Now()
	f, err := lt.listen(base, source, kindNative, users, parse)
	if err != nil {
		return res, err
	}
	fmt.Fprintf(lt.out, "  connected %d users in %s\n", len(users), time.Since(start).Round(time.Millisecond))
	pairs := len(users) / 2
	var ok atomic.Int64
	w := lt.steady(pr, rate, duration, func(i int, body map[string]string) error {
		p := i % pairs
		from, to := users[2*p], users[2*p+1]
		path := "/api/v1/posts"
		if kind == "message" {
			if i/pairs%2 == 1 {
				from, to = to, from
			}
			path = "/api/v1/conversations/" + to.Name + "/messages"
		}
		if err := spawn.Call(lt.client, base, "POST", path, from.Token, body, http.StatusCreated, nil); err != nil {
			return err
		}
		ok.Add(1)
		return nil
	})
	res.Expected = 2 * ok.Load()
	res.Wall, res.CPU = f.wait(lt, w, res.Expected)
	res.Writes, res.Failed = int64(w.sent), w.failed
	res.Delivered, res.Duplicates = f.rec.delivered.Load(), f.rec.dups.Load()
	res.Delay, res.WriteLatency = permille(f.rec.delays), permille(w.lat)
	return res, nil
}

// printConversation says how one run of writes between pairs went.
func printConversation(w io.Writer, r conversationResult) {
	fmt.Fprintf(w, "  %d %ss (%d failed); deliveries expected %d, delivered %d, lost %d, duplicates %d\n",
		r.Writes, r.Kind, r.Failed, r.Expected, r.Delivered, max(0, r.Expected-r.Delivered), r.Duplicates)
	fmt.Fprintf(w, "  delay from request to receipt: p50 %s, p99 %s, max %s; request p50 %s, p99 %s\n",
		chart.FmtMS(pct(r.Delay, 50)), chart.FmtMS(pct(r.Delay, 99)), chart.FmtMS(pct(r.Delay, 100)),
		chart.FmtMS(pct(r.WriteLatency, 50)), chart.FmtMS(pct(r.WriteLatency, 99)))
	fmt.Fprintf(w, "  CPU over %.1f s: server %.2f s, Redis %.2f s (%.0f µs per %s), load tool %.2f s; other processes ≈ %.2f cores\n",
		r.Wall, r.CPU.Server, r.CPU.Redis, r.cpuPerWrite(), r.Kind, r.CPU.Tool,
		max(0, r.CPU.Machine-r.CPU.Server-r.CPU.Redis-r.CPU.Tool)/max(r.Wall, 1e-9))
}

// printConversationTable prints the messages' table of docs/performance.md.
func printConversationTable(w io.Writer, runs []conversationResult) {
	if len(runs) == 0 {
		return
	}
	fmt.Fprintln(w, "\n| build | round | write | users | writes/s | deliveries | lost | duplicates | delay p50 | p99 | max | server + Redis CPU per write |")
	fmt.Fprintln(w, "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range runs {
		kind := "message"
		if r.Kind == "post" {
			kind = "post, 1 fan"
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %d | %d | %s | %s | %s | %.0f µs |\n", r.Label, r.Round, kind,
			chart.Thousands(float64(r.Users)), chart.Thousands(r.Rate), chart.Thousands(float64(r.Delivered)),
			max(0, r.Expected-r.Delivered), r.Duplicates, chart.FmtMS(pct(r.Delay, 50)), chart.FmtMS(pct(r.Delay, 99)),
			chart.FmtMS(pct(r.Delay, 100)), r.cpuPerWrite())
	}
}
