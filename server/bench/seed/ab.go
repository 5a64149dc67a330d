package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// abRun is one run of ApacheBench.
type abRun struct {
	url       string
	n, c      int
	token     string // sent as Authorization: Bearer, if set
	body      string // a file to POST as application/json, if set
	keepAlive bool
	csv       string // where ab writes its percentiles (-e)
}

// args are ab's arguments: the seed's `ab -c 50 -n 20000 -p body.json` with
// -T, -H and -e, and -l, which takes responses of varying length (a post's
// id grows a digit now and then) for the pages they are rather than
// failures, and -q for no progress lines.
func (r abRun) args() []string {
	a := []string{"-q", "-l", "-c", strconv.Itoa(r.c), "-n", strconv.Itoa(r.n)}
	if r.keepAlive {
		a = append(a, "-k")
	}
	if r.body != "" {
		a = append(a, "-p", r.body, "-T", "application/json")
	}
	if r.token != "" {
		a = append(a, "-H", "Authorization: Bearer "+r.token)
	}
	if r.csv != "" {
		a = append(a, "-e", r.csv)
	}
	return append(a, r.url)
}

// abResult is what one ab run reports.
type abResult struct {
	Complete    int       `json:"complete"`
	Failed      int       `json:"failed"`
	Non2xx      int       `json:"non_2xx"`
	PerSec      float64   `json:"requests_per_sec"`
	Seconds     float64   `json:"seconds"`
	Percentiles []float64 `json:"percentiles_ms,omitempty"` // 0 to 100%, from -e
}

// sustained is requests/s counting the wait for the fan-out and archive
// queues to empty after ab ended (settle seconds): the rate the server
// keeps up with, background work and all.
func (r abResult) sustained(settle float64) float64 {
	if settle <= 0 || r.Seconds+settle <= 0 {
		return r.PerSec // ab's own figure, unrounded
	}
	return float64(r.Complete) / (r.Seconds + settle)
}

// p is the latency at percentile pct (0 to 100), in ms.
func (r abResult) p(pct int) float64 {
	if pct < 0 || pct >= len(r.Percentiles) {
		return 0
	}
	return r.Percentiles[pct]
}

// runAB runs ab, and fails unless every request got a 2xx answer.
func runAB(abBin string, r abRun) (abResult, error) {
	cmd := exec.Command(abBin, r.args()...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	shown := "ab " + shellQuote(r.args())
	if err != nil {
		return abResult{}, fmt.Errorf("%s: %w\n%s%s", shown, err, out.String(), errOut.String())
	}
	res, err := parseAB(out.String())
	if err != nil {
		return res, fmt.Errorf("%s: %w\n%s", shown, err, out.String())
	}
	if res.Complete != r.n || res.Failed != 0 || res.Non2xx != 0 {
		return res, fmt.Errorf("%s: %d of %d complete, %d failed, %d non-2xx responses\n%s",
			shown, res.Complete, r.n, res.Failed, res.Non2xx, out.String())
	}
	if r.csv != "" {
		b, err := os.ReadFile(r.csv)
		if err != nil {
			return res, err
		}
		if res.Percentiles, err = parsePercentiles(string(b)); err != nil {
			return res, fmt.Errorf("%s: %w", r.csv, err)
		}
	}
	return res, nil
}

// parseAB reads ab's report: complete, failed and non-2xx counts,
// requests/s and the time taken.
func parseAB(out string) (abResult, error) {
	var res abResult
	seen := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		f := strings.Fields(val)
		if len(f) == 0 {
			continue
		}
		var err error
		switch name = strings.TrimSpace(name); name {
		case "Complete requests":
			res.Complete, err = strconv.Atoi(f[0])
		case "Failed requests":
			res.Failed, err = strconv.Atoi(f[0])
		case "Non-2xx responses":
			res.Non2xx, err = strconv.Atoi(f[0])
		case "Requests per second":
			res.PerSec, err = strconv.ParseFloat(f[0], 64)
		case "Time taken for tests":
			res.Seconds, err = strconv.ParseFloat(f[0], 64)
		default:
			continue
		}
		if err != nil {
			return res, fmt.Errorf("ab's %q: %w", name, err)
		}
		seen[name] = true
	}
	for _, name := range []string{"Complete requests", "Failed requests", "Requests per second"} {
		if !seen[name] {
			return res, fmt.Errorf("no %q in ab's report", name)
		}
	}
	return res, nil
}

// parsePercentiles reads ab's -e file: a header, then "percent,ms" for 0
// to 100.
func parsePercentiles(csv string) ([]float64, error) {
	var ps []float64
	for i, line := range strings.Split(strings.TrimSpace(csv), "\n") {
		if i == 0 {
			continue // Percentage served,Time in ms
		}
		pct, ms, ok := strings.Cut(strings.TrimSpace(line), ",")
		n, err1 := strconv.Atoi(pct)
		v, err2 := strconv.ParseFloat(ms, 64)
		if !ok || err1 != nil || err2 != nil || n != len(ps) {
			return nil, fmt.Errorf("line %d: %q is not percent,ms", i+1, line)
		}
		ps = append(ps, v)
	}
	if len(ps) != 101 {
		return nil, fmt.Errorf("%d percentiles, want 0 to 100", len(ps))
	}
	return ps, nil
}

// writeBody writes the post body ab sends, and returns its path.
func writeBody(dir string) (string, error) {
	path := filepath.Join(dir, "body.json")
	return path, os.WriteFile(path, []byte(`{"content":"Hello from ab, as in the paper's benchmark"}`), 0o644)
}

// shellQuote writes args as a shell would need them, to be pasted.
func shellQuote(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\"'\\$&;|<>?*()[]{}!#~`") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		q[i] = a
	}
	return strings.Join(q, " ")
}
