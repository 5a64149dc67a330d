package main

import (
	"strings"
	"testing"
)

// TestPrintMedians: with several rounds, each build's ratios are taken to
// the bare handler of its own round, and their median (the mean of the two
// middle ones for an even count), range and verdict printed.
func TestPrintMedians(t *testing.T) {
	post := func(server, redis float64) measured {
		return measured{Cost: costs{ServerCPUus: server, RedisCPUus: redis}}
	}
	read := func(server float64) measured { return measured{Cost: costs{ServerCPUus: server}} }
	res := results{Targets: []targetResult{
		{Label: "bare (round 1)", Kind: kindBare, Round: 1, Posts: post(100, 50), Reads: read(200)},
		{Label: "after (round 1)", Kind: kindServer, Round: 1, Posts: post(120, 70), Reads: read(220)},
		{Label: "after (round 2)", Kind: kindServer, Round: 2, Posts: post(260, 90), Reads: read(300)},
		{Label: "bare (round 2)", Kind: kindBare, Round: 2, Posts: post(200, 50), Reads: read(200)},
		{Label: "bare (round 3)", Kind: kindBare, Round: 3, Posts: post(100, 40), Reads: read(100)},
		{Label: "after (round 3)", Kind: kindServer, Round: 3, Posts: post(110, 64), Reads: read(150)},
	}}
	var b strings.Builder
	printTables(&b, res)
	out := b.String()
	// server: 1.20, 1.30, 1.10; Redis: 1.40, 1.80, 1.60; reads: 1.10, 1.50, 1.50
	want := "| after | 3 | 1.20× (1.10–1.30) ✓ | 1.60× (1.40–1.80) | 1.50× (1.10–1.50) |"
	if !strings.Contains(out, want) {
		t.Fatalf("no line %q in:\n%s", want, out)
	}
	if got := fmtMedian([]float64{1.4, 1.0, 1.2, 1.3}, 1.25); got != "1.25× (1.00–1.40) ✓" {
		t.Errorf("median of four: %q", got)
	}
	var one strings.Builder
	printMedians(&one, results{Targets: []targetResult{{Label: "after", Kind: kindServer}}}, nil)
	if one.Len() != 0 {
		t.Errorf("one round printed medians: %q", one.String())
	}
}
