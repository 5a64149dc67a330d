package mediatest

import (
	"bytes"
	"compress/zlib"
	"image/png"
	"io"
	"testing"
)

// TestZlibZeros: the hand-written stream is zlib that the standard reader
// takes, of exactly n zeros, checksum included.
func TestZlibZeros(t *testing.T) {
	for _, n := range []int{0, 1, 2, 257, 258, 259, 260, 516, 1000, 100_003} {
		r, err := zlib.NewReader(bytes.NewReader(zlibZeros(n)))
		if err != nil {
			t.Fatalf("%d: %v", n, err)
		}
		got, err := io.ReadAll(r)
		if err != nil {
			t.Fatalf("%d: %v", n, err)
		}
		if len(got) != n || bytes.Count(got, []byte{0}) != n {
			t.Fatalf("%d zeros read back as %d bytes", n, len(got))
		}
	}
}

// TestPNGDecodes: a small PNG of each kind decodes to its size.
func TestPNGDecodes(t *testing.T) {
	for _, ct := range []int{0, 2, 3, 4, 6} {
		for _, depth := range []int{8, 16} {
			if ct == 3 && depth == 16 {
				continue
			}
			img, err := png.Decode(bytes.NewReader(PNG(37, 11, depth, ct)))
			if err != nil {
				t.Fatalf("colour type %d, depth %d: %v", ct, depth, err)
			}
			if b := img.Bounds(); b.Dx() != 37 || b.Dy() != 11 {
				t.Fatalf("colour type %d, depth %d: %v", ct, depth, b)
			}
		}
	}
}
