package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"net"
	"os/exec"
	"sort"
	"strconv"
	"strings"
)

// redisRates is Redis's own pipelined rate for what a push does to one
// fan, measured with redis-benchmark on the run's redis-server just before
// the load and again just after it, the best of the two.
type redisRates struct {
	ZAdd float64 `json:"zadd_per_sec"`
	// Trim is ZREMRANGEBYRANK's rate: the trim to the hot window.
	Trim float64 `json:"trim_per_sec"`
	// Pair is one ZADD and one trim: 1 / (1/ZAdd + 1/Trim).
	Pair float64 `json:"zadd_trim_per_sec"`
}

// best is the faster of two measures of each rate: on a machine shared
// with others, the slower one says more about them than about Redis.
func (r redisRates) best(o redisRates) redisRates {
	b := redisRates{ZAdd: max(r.ZAdd, o.ZAdd), Trim: max(r.Trim, o.Trim)}
	b.Pair = 1 / (1/b.ZAdd + 1/b.Trim)
	return b
}

// redisPipeline is how many commands redis-benchmark sends a round trip
// (-P): a fan-out pipeline, or script call, writes far more.
const redisPipeline = "64"

// redisBench measures redisRates on the redis-server at addr: ZADD and
// ZREMRANGEBYRANK of random keys among a million (-r), as a push's
// G:<uid>:messageID sets are.
func redisBench(cfg config, addr string) (redisRates, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return redisRates{}, err
	}
	rate := func(cmd ...string) (float64, error) {
		args := append([]string{"-h", host, "-p", port, "-P", redisPipeline, "-n", strconv.Itoa(cfg.benchN),
			"-r", "1000000", "--csv"}, cmd...)
		out, err := exec.Command(cfg.benchBin, args...).Output()
		if err != nil {
			return 0, fmt.Errorf("redis-benchmark %v: %w", cmd, err)
		}
		return parseRate(out)
	}
	var r redisRates
	if r.ZAdd, err = rate("zadd", "G:__rand_int__", "__rand_int__", "__rand_int__"); err != nil {
		return r, err
	}
	if r.Trim, err = rate("zremrangebyrank", "G:__rand_int__", "0", strconv.Itoa(-cfg.window-1)); err != nil {
		return r, err
	}
	r.Pair = 1 / (1/r.ZAdd + 1/r.Trim)
	return r, nil
}

// parseRate reads the requests/s of redis-benchmark's --csv output: a
// header line, then "test","rps",….
func parseRate(out []byte) (float64, error) {
	rows, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
	if err != nil {
		return 0, fmt.Errorf("redis-benchmark's output: %w", err)
	}
	if len(rows) < 2 || len(rows[1]) < 2 || rows[0][1] != "rps" {
		return 0, fmt.Errorf("redis-benchmark's output has no rate: %q", out)
	}
	return strconv.ParseFloat(rows[1][1], 64)
}

// commandTime is the time Redis spent in one command, per push.
type commandTime struct {
	Command string  `json:"command"`
	Calls   int64   `json:"calls"`
	USPer   float64 `json:"us_per_push"`
}

// commandTimes reads INFO commandstats (lines
// "cmdstat_zadd:calls=3,usec=12,…") into the time of each command per
// push, the costliest first.
func commandTimes(info string, pushes int64) []commandTime {
	var out []commandTime
	for _, line := range strings.Split(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") {
			continue
		}
		c := commandTime{Command: strings.TrimPrefix(name, "cmdstat_")}
		for _, kv := range strings.Split(rest, ",") {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "calls":
				c.Calls, _ = strconv.ParseInt(v, 10, 64)
			case "usec":
				us, _ := strconv.ParseFloat(v, 64)
				c.USPer = us / float64(pushes)
			}
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].USPer > out[j].USPer })
	return out
}
