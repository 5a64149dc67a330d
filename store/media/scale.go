package media

import (
	"context"
	"image"
	"image/color"
	"image/draw"

	xdraw "golang.org/x/image/draw"
)

// fitSize is w × h scaled down (never up) so that its longer side is at
// most side.
func fitSize(w, h, side int) (int, int) {
	switch {
	case w <= side && h <= side:
		return w, h
	case w >= h:
		return side, max(1, h*side/w)
	}
	return max(1, w*side/h), side
}

// fit scales img down (never up) so that its longer side is at most side.
func fit(ctx context.Context, img image.Image, side int) (image.Image, error) {
	b := img.Bounds()
	w, h := fitSize(b.Dx(), b.Dy(), side)
	if w == b.Dx() && h == b.Dy() {
		return img, nil
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	return dst, scaleInto(ctx, dst, dst.Bounds(), img, b, draw.Src)
}

// square crops the middle square of img and scales it to side × side, on
// white.
func square(ctx context.Context, img image.Image, side int) (image.Image, error) {
	b := img.Bounds()
	n := min(b.Dx(), b.Dy())
	src := image.Rect(b.Min.X+(b.Dx()-n)/2, b.Min.Y+(b.Dy()-n)/2, 0, 0)
	src.Max = src.Min.Add(image.Pt(n, n))
	dst := image.NewRGBA(image.Rect(0, 0, side, side))
	draw.Draw(dst, dst.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	return dst, scaleInto(ctx, dst, dst.Bounds(), img, src, draw.Over)
}

// scaleInto draws the part sr of src into the part dr of dst, scaled with
// Catmull-Rom. A source at least twice as large as dr either way is first
// shrunk by averaging blocks of pixels (reduce), since Catmull-Rom alone
// keeps 32 bytes for each pixel of dr's width times sr's height: 123 MB for
// a thumbnail of an 8000-pixel-high picture.
func scaleInto(ctx context.Context, dst draw.Image, dr image.Rectangle, src image.Image, sr image.Rectangle, op draw.Op) error {
	if dr.Empty() || sr.Empty() {
		return nil
	}
	if k := min(sr.Dx()/dr.Dx(), sr.Dy()/dr.Dy()); k >= 2 {
		small, err := reduce(ctx, src, sr, k)
		if err != nil {
			return err
		}
		src, sr = small, small.Bounds()
	}
	xdraw.CatmullRom.Scale(dst, dr, src, sr, op, nil)
	return nil
}

// reduce shrinks the part sr of src k times either way, each pixel the
// average of a k × k block (a box filter; the last sr.Dx() % k columns and
// rows are dropped). It converts k rows of the source at a time, so it
// needs little more memory than its result, and stops once ctx ends.
func reduce(ctx context.Context, src image.Image, sr image.Rectangle, k int) (*image.RGBA, error) {
	w, h := sr.Dx()/k, sr.Dy()/k
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	band := image.NewRGBA(image.Rect(0, 0, w*k, k))
	sums := make([]uint32, 4*w)
	area := uint32(k * k)
	for y := range h {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		draw.Draw(band, band.Bounds(), src, image.Pt(sr.Min.X, sr.Min.Y+y*k), draw.Src)
		clear(sums)
		for r := range k {
			row := band.Pix[r*band.Stride:]
			for x, p := 0, 0; x < w; x++ {
				s := sums[4*x : 4*x+4 : 4*x+4]
				for range k {
					s[0] += uint32(row[p])
					s[1] += uint32(row[p+1])
					s[2] += uint32(row[p+2])
					s[3] += uint32(row[p+3])
					p += 4
				}
			}
		}
		out := dst.Pix[y*dst.Stride:]
		for i, s := range sums {
			out[i] = uint8((s + area/2) / area)
		}
	}
	return dst, nil
}
