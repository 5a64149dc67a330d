package media

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	"image/jpeg"
	"runtime"
	"sync"
	"testing"
	"time"

	"microblog/store"
	"microblog/store/media/mediatest"
)

// jpegOf encodes a w × h picture of one colour with the given chroma
// subsampling (or grey), at quality 90.
func jpegOf(t testing.TB, w, h int, ratio image.YCbCrSubsampleRatio, grey bool) []byte {
	t.Helper()
	var img image.Image = image.NewYCbCr(image.Rect(0, 0, w, h), ratio)
	if grey {
		img = image.NewGray(image.Rect(0, 0, w, h))
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// progressive marks a baseline JPEG as progressive (SOF0 to SOF2): its
// headers then read as a progressive JPEG's, though it cannot be decoded.
func progressive(b []byte) []byte {
	out := bytes.Clone(b)
	i := bytes.Index(out, []byte{0xff, 0xc0})
	out[i+1] = 0xc2
	return out
}

// fullChroma makes the frame header of a 4:2:0 JPEG say 4:4:4 (Go encodes
// only 4:2:0), for tests that read its headers only.
func fullChroma(b []byte) []byte {
	out := bytes.Clone(b)
	i := bytes.Index(out, []byte{0xff, 0xc0})
	out[i+11] = 0x11 // the first component's sampling factors
	return out
}

func wantCode(t *testing.T, what string, err error, code store.Code) {
	t.Helper()
	var e *store.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Errorf("%s: %v, want %s", what, err, code)
	}
}

// TestInspectRefusesBombs: the probe's bombs, and images just past each
// limit, are refused from their headers; images just within are not.
// headerAllocMax bounds what reading an image's headers may allocate: far
// below what decoding any of the bombs would (gigabytes).
const headerAllocMax = 64 << 20

func TestInspectRefusesBombs(t *testing.T) {
	for _, tc := range []struct {
		name   string
		file   []byte
		avatar bool
		code   store.Code // "" when accepted
	}{
		{"32 frames of 8000 × 8000", mediatest.GIF(8000, 8000, 32), false, store.CodeMediaTooLarge},
		{"2 frames of 8000 × 8000", mediatest.GIF(8000, 8000, 2), false, store.CodeMediaTooLarge},
		{"1 frame of 8000 × 8000", mediatest.GIF(8000, 8000, 1), false, ""},
		{"32 frames of 8000 × 8000, as an avatar (first frame only)", mediatest.GIF(8000, 8000, 32), true, ""},
		{"1001 frames", mediatest.GIF(8, 8, MaxFrames+1), false, store.CodeMediaTooLarge},
		{"300 frames of 480 × 270", mediatest.GIF(480, 270, 300), false, ""},
		{"16-bit RGB 8000 × 8000 PNG", mediatest.PNG(8000, 8000, 16, 2), false, store.CodeMediaTooLarge},
		{"16-bit RGB 3500 × 3500 PNG", mediatest.PNG(3500, 3500, 16, 2), false, ""},
		{"8-bit RGBA 8000 × 8000 PNG", mediatest.PNG(8000, 8000, 8, 6), false, store.CodeMediaTooLarge},
		{"8-bit RGBA 5000 × 5000 PNG", mediatest.PNG(5000, 5000, 8, 6), false, ""},
		{"8-bit grey 8000 × 8000 PNG", mediatest.PNG(8000, 8000, 8, 0), false, ""},
		{"16-bit grey 8000 × 8000 PNG", mediatest.PNG(8000, 8000, 16, 0), false, store.CodeMediaTooLarge},
		{"paletted 8000 × 8000 PNG", mediatest.PNG(8000, 8000, 8, 3), false, ""},
		{"8001 × 1 PNG", mediatest.PNG(8001, 1, 8, 0), false, store.CodeMediaTooLarge},
		{"4:2:0 4000 × 3000 JPEG", jpegOf(t, 4000, 3000, image.YCbCrSubsampleRatio420, false), false, ""},
		{"progressive 4:2:0 4000 × 3000 JPEG", progressive(jpegOf(t, 4000, 3000, image.YCbCrSubsampleRatio420, false)), false, ""},
		{"progressive 4:4:4 4000 × 3000 JPEG", progressive(fullChroma(jpegOf(t, 4000, 3000, image.YCbCrSubsampleRatio420, false))), false, store.CodeMediaTooLarge},
		{"4:4:4 4000 × 3000 JPEG", fullChroma(jpegOf(t, 4000, 3000, image.YCbCrSubsampleRatio420, false)), false, ""},
		{"progressive grey 4000 × 3000 JPEG", progressive(jpegOf(t, 4000, 3000, 0, true)), false, ""},
	} {
		// Reading the headers must not decode the image: it allocates little
		// whatever the image's size (counted in bytes, not timed, so that a
		// busy machine cannot fail it).
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := inspect(kind(tc.file), tc.file, tc.avatar)
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > headerAllocMax {
			t.Errorf("%s: reading the headers allocated %d bytes", tc.name, alloc)
		}
		if tc.code == "" && err != nil {
			t.Errorf("%s: refused: %v", tc.name, err)
		} else if tc.code != "" {
			wantCode(t, tc.name, err, tc.code)
		}
	}
}

// TestInspectBoundsTheDecoder: what the headers say decoding takes is at
// least what Go's decoders allocate, for each kind of image they make.
func TestInspectBoundsTheDecoder(t *testing.T) {
	for _, tc := range []struct {
		name string
		file []byte
	}{
		{"grey PNG", mediatest.PNG(2000, 1500, 8, 0)},
		{"16-bit grey PNG", mediatest.PNG(2000, 1500, 16, 0)},
		{"grey and alpha PNG", mediatest.PNG(2000, 1500, 8, 4)},
		{"RGB PNG", mediatest.PNG(2000, 1500, 8, 2)},
		{"RGBA PNG", mediatest.PNG(2000, 1500, 8, 6)},
		{"16-bit RGBA PNG", mediatest.PNG(2000, 1500, 16, 6)},
		{"paletted PNG", mediatest.PNG(2000, 1500, 8, 3)},
		{"4:2:0 JPEG", jpegOf(t, 2000, 1500, image.YCbCrSubsampleRatio420, false)},
		{"grey JPEG", jpegOf(t, 2000, 1500, 0, true)},
		{"GIF of 10 frames", mediatest.GIF(1000, 750, 10)},
	} {
		h, err := inspect(kind(tc.file), tc.file, false)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var derr error
		g := mediatest.Measure(func() {
			if kind(tc.file) == "gif" {
				_, derr = gif.DecodeAll(bytes.NewReader(tc.file))
			} else {
				_, _, derr = image.Decode(bytes.NewReader(tc.file))
			}
		})
		if derr != nil {
			t.Fatalf("%s: %v", tc.name, derr)
		}
		t.Logf("%-18s estimated %6.1f MiB, decoder allocated %6.1f MiB", tc.name, mediatest.MiB(uint64(h.bytes)), mediatest.MiB(g.Allocated))
		if slack := uint64(1 << 20); g.Allocated > uint64(h.bytes)+slack {
			t.Errorf("%s: the decoder allocated %d bytes, more than the %d estimated", tc.name, g.Allocated, h.bytes)
		}
	}
}

// BenchmarkLargestAccepted processes the largest image of each kind that is
// accepted and reports how much the heap grew meanwhile (make bench, or go
// test -run '^$' -bench LargestAccepted -benchtime 1x ./store/media/). Each
// stays within MaxDecodeBytes and the scaling and encoding around it, or the
// benchmark fails. Three at once take more than MaxDecodes of them: the
// third is decoded once a turn is free, while the garbage of the first
// waits for the collector (which lets the heap grow to twice what it held
// after its last run, GOGC=100). It is a benchmark, not a test, because
// under the race detector each of these decodes takes many seconds.
func BenchmarkLargestAccepted(b *testing.B) {
	const bound = MaxDecodeBytes + 48<<20
	for _, tc := range []struct {
		name string
		file []byte
	}{
		{"8000x8000 4:2:0 JPEG", jpegOf(b, 8000, 8000, image.YCbCrSubsampleRatio420, false)},
		{"8000x8000 paletted PNG", mediatest.PNG(8000, 8000, 8, 3)},
		{"5000x5000 RGBA PNG", mediatest.PNG(5000, 5000, 8, 6)},
		{"3500x3500 16-bit RGB PNG", mediatest.PNG(3500, 3500, 16, 2)},
		{"8000x8000 GIF", mediatest.GIF(8000, 8000, 1)},
		{"8000x4000 GIF of 2 frames", mediatest.GIF(8000, 4000, 2)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			peak := measureEach(b, func() error {
				_, err := Process(context.Background(), tc.file, false)
				return err
			})
			if peak > bound {
				b.Errorf("heap grew by %.0f MiB, want at most %d", mediatest.MiB(peak), bound>>20)
			}
		})
	}
	// Three of the largest at once: two are decoded, the third waits its turn.
	defer func(d time.Duration) { decodeWait = d }(decodeWait)
	decodeWait = 10 * time.Minute
	file := jpegOf(b, 8000, 8000, image.YCbCrSubsampleRatio420, false)
	b.Run("three 8000x8000 JPEGs at once", func(b *testing.B) {
		peak := measureEach(b, func() error {
			var wg sync.WaitGroup
			errs := make(chan error, 3)
			for range 3 {
				wg.Go(func() {
					if _, err := Process(context.Background(), file, false); err != nil {
						errs <- err
					}
				})
			}
			wg.Wait()
			close(errs)
			return <-errs
		})
		if peak > (MaxDecodes+1)*bound {
			b.Errorf("three at once grew the heap by %.0f MiB, want at most %d", mediatest.MiB(peak), (MaxDecodes+1)*bound>>20)
		}
	})
}

// measureEach runs process b.N times, failing on its error, and reports the
// largest growth of the heap one run caused, which it returns.
func measureEach(b *testing.B, process func() error) uint64 {
	var peak uint64
	for b.Loop() {
		var err error
		g := mediatest.Measure(func() { err = process() })
		if err != nil {
			b.Fatal(err)
		}
		peak = max(peak, g.Peak)
	}
	b.ReportMetric(mediatest.MiB(peak), "MiB-heap-peak")
	return peak
}

// TestProcessStopsWhenContextEnds: a client that goes away stops the work
// on its upload within a few milliseconds.
func TestProcessStopsWhenContextEnds(t *testing.T) {
	file := mediatest.PNG(8000, 8000, 8, 0)
	start := time.Now()
	if _, err := Process(context.Background(), file, false); err != nil {
		t.Fatal(err)
	}
	whole := time.Since(start)
	// The context ends 30 ms in: the work stops then, not after a whole
	// decode. Compared with the whole upload's time, not with a clock, so
	// that a busy machine, which slows both, passes too.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	start = time.Now()
	_, err := Process(ctx, file, false)
	if took := time.Since(start); !errors.Is(err, context.DeadlineExceeded) || took > whole/2+30*time.Millisecond {
		t.Fatalf("Process with a context ending after 30ms: %v after %v (a whole one took %v), want the context's error at once", err, took, whole)
	}
	// It gave its turn back.
	for range MaxDecodes {
		if _, err := Process(context.Background(), mediatest.PNG(8, 8, 8, 0), false); err != nil {
			t.Fatalf("after a cancelled upload: %v", err)
		}
	}
}

// TestTurns: at most MaxDecodes uploads are decoded at once; the next waits
// for a turn, and gives up with ErrBusy, or when its context ends.
func TestTurns(t *testing.T) {
	defer func(d time.Duration) { decodeWait = d }(decodeWait)
	decodeWait = 50 * time.Millisecond
	var releases []func()
	for range MaxDecodes {
		release, err := takeTurn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		releases = append(releases, release)
	}
	small := mediatest.PNG(8, 8, 8, 0)
	if _, err := Process(context.Background(), small, false); !errors.Is(err, ErrBusy) {
		t.Fatalf("with every turn taken: %v, want ErrBusy", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Process(ctx, small, false); !errors.Is(err, context.Canceled) {
		t.Fatalf("waiting with an ended context: %v", err)
	}
	done := make(chan error)
	decodeWait = time.Minute // against a hang: the turn is free in 20 ms
	go func() { _, err := Process(context.Background(), small, false); done <- err }()
	time.Sleep(20 * time.Millisecond)
	releases[0]()
	if err := <-done; err != nil {
		t.Fatalf("once a turn is free: %v", err)
	}
	releases[1]()
}

// TestAnimatedGIFsStayAnimated: the frames, their delays and the loop count
// survive; the thumbnail is the first frame, in its place on the canvas.
func TestAnimatedGIFsStayAnimated(t *testing.T) {
	pal := color.Palette{color.Transparent, color.Black, color.White}
	var frames []*image.Paletted
	for i := range 5 {
		f := image.NewPaletted(image.Rect(0, 0, 960, 480), pal)
		for y := range 480 {
			for x := range 480 {
				f.SetColorIndex(x, y, uint8(1+i%2)) // the left half, black then white
			}
		}
		frames = append(frames, f)
	}
	var b bytes.Buffer
	if err := gif.EncodeAll(&b, &gif.GIF{Image: frames, Delay: []int{5, 6, 7, 8, 9}, LoopCount: 3}); err != nil {
		t.Fatal(err)
	}
	img, err := Process(context.Background(), b.Bytes(), false)
	if err != nil {
		t.Fatal(err)
	}
	g, err := gif.DecodeAll(bytes.NewReader(img.Full))
	if err != nil || len(g.Image) != 5 || g.Delay[4] != 9 || g.LoopCount != 3 || img.Width != 960 || img.Height != 480 {
		t.Fatalf("kept GIF: %v, %d frames, delays %v, loop %d, %d × %d", err, len(g.Image), g.Delay, g.LoopCount, img.Width, img.Height)
	}
	thumb, _, err := image.Decode(bytes.NewReader(img.Thumb))
	if err != nil || thumb.Bounds().Dx() != ThumbSide || thumb.Bounds().Dy() != ThumbSide/2 {
		t.Fatalf("thumbnail: %v %v", err, thumb.Bounds())
	}
	if r, _, _, a := thumb.At(100, 100).RGBA(); r != 0 || a != 0xffff {
		t.Errorf("thumbnail's left half: %v, want black", thumb.At(100, 100))
	}
	if _, _, _, a := thumb.At(400, 100).RGBA(); a != 0 {
		t.Errorf("thumbnail's right half: %v, want transparent", thumb.At(400, 100))
	}
}

// TestNarrow: decoded images of the types the encoders read a pixel at a
// time become ones they read directly, showing the same colours.
func TestNarrow(t *testing.T) {
	r := image.Rect(0, 0, 3, 2)
	opaque := image.NewNRGBA64(r)
	draw.Draw(opaque, r, image.NewUniform(color.White), image.Point{}, draw.Src)
	opaque.Set(1, 1, color.NRGBA64{0x1234, 0x5678, 0x9abc, 0xffff})
	seeThrough := image.NewNRGBA64(r)
	seeThrough.Set(1, 1, color.NRGBA64{0x1234, 0x5678, 0x9abc, 0x8000})
	deep := image.NewRGBA64(r)
	deep.Set(1, 1, color.RGBA64{0x1234, 0x5678, 0x9abc, 0xffff})
	grey := image.NewGray16(r)
	grey.Set(1, 1, color.Gray16{0x9abc})
	cmyk := image.NewCMYK(r)
	cmyk.Set(1, 1, color.CMYK{10, 20, 30, 40})
	ycc := image.NewNYCbCrA(r, image.YCbCrSubsampleRatio444)
	ycc.Y[4], ycc.A[4] = 200, 128
	for _, tc := range []struct {
		name string
		in   image.Image
		want string
	}{
		{"16-bit RGB", deep, "*image.RGBA"},
		{"opaque 16-bit RGBA", opaque, "*image.RGBA"},
		{"16-bit RGBA with alpha", seeThrough, "*image.NRGBA"},
		{"16-bit grey", grey, "*image.Gray"},
		{"CMYK", cmyk, "*image.RGBA"},
		{"YCbCr with alpha", ycc, "*image.NRGBA"},
	} {
		want := color.NRGBAModel.Convert(tc.in.At(1, 1)).(color.NRGBA)
		out := narrow(tc.in)
		got := color.NRGBAModel.Convert(out.At(1, 1)).(color.NRGBA)
		if typ := fmt.Sprintf("%T", out); typ != tc.want || diff(got.R, want.R) > 2 || diff(got.G, want.G) > 2 || diff(got.B, want.B) > 2 || diff(got.A, want.A) > 1 {
			t.Errorf("%s: %s %v, want %s %v", tc.name, typ, got, tc.want, want)
		}
	}
}

func diff(a, b uint8) int { return max(int(a)-int(b), int(b)-int(a)) }
