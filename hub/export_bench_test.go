package hub

import "testing"

// BenchDeliver is benchDeliver for the benchmarks of package hub_test
// (format_bench_test.go), which may import a real Format: post events of
// a star with content delivered to fans connections without lenses, in
// format (nil: native frames).
func BenchDeliver(b *testing.B, fans int, content string, format func() Format) {
	benchDeliver(b, fans, nil, content, false, format)
}
