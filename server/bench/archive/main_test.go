package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDraw draws a small run's figures (three runs), as BenchmarkArchive writes them.
func TestDraw(t *testing.T) {
	path := filepath.Join(t.TempDir(), "archive-memory.json")
	figures := `{"users": 1000, "posts": 50000, "hot_window": 1000, "runs": [
		{"name": "archive off", "archive": false, "drain_seconds": 1.5,
		 "samples": [{"posts": 0, "used_memory_bytes": 2000000}, {"posts": 25000, "used_memory_bytes": 40000000}, {"posts": 50000, "used_memory_bytes": 80000000}],
		 "drained": {"posts": 50000, "used_memory_bytes": 81000000}},
		{"name": "before: likes and topics kept", "archive": true, "kept": true, "drain_seconds": 2,
		 "samples": [{"posts": 0, "used_memory_bytes": 2000000}, {"posts": 50000, "used_memory_bytes": 70000000}],
		 "drained": {"posts": 50000, "used_memory_bytes": 65000000}},
		{"name": "archive on (SQLite)", "archive": true, "drain_seconds": 3,
		 "samples": [{"posts": 0, "used_memory_bytes": 2000000}, {"posts": 50000, "used_memory_bytes": 60000000}],
		 "drained": {"posts": 50000, "used_memory_bytes": 50000000}}]}`
	if err := os.WriteFile(path, []byte(figures), 0o644); err != nil {
		t.Fatal(err)
	}
	paths, err := drawChart(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if fi, err := os.Stat(p); err != nil || fi.Size() < 1000 {
			t.Errorf("%s: %v", p, err)
		}
	}
	if _, err := drawChart(filepath.Join(t.TempDir(), "none.json")); err == nil {
		t.Error("draw took a file that is not there")
	}
}
