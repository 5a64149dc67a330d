//go:build ignore

// gen.go draws the app's PNG icons (the same picture as icon.svg: a speech
// bubble with three dots on a violet-to-blue tile). Run it from this folder
// after changing the design:
//
//	go run gen.go
package main

import (
	"image"
	"image/color"
	"image/png"
	"log"
	"math"
	"os"
)

func main() {
	for _, ic := range []struct {
		name     string
		size     int
		maskable bool // full-bleed tile, picture inside the 80% safe zone
	}{
		{"icon-192.png", 192, false},
		{"icon-512.png", 512, false},
		{"icon-180.png", 180, true}, // iOS rounds the corners itself
		{"maskable-512.png", 512, true},
	} {
		if err := write(ic.name, draw(ic.size, ic.maskable)); err != nil {
			log.Fatal(err)
		}
	}
}

func write(name string, img image.Image) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// draw renders the icon on a 64-unit grid scaled to size, with 4×4 supersampling.
func draw(size int, maskable bool) image.Image {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	scale := float64(size) / 64
	inset, zoom := 0.0, 1.0
	if maskable {
		inset, zoom = 6.4, 0.8 // keep the bubble inside the safe zone
	}
	const ss = 4
	for py := 0; py < size; py++ {
		for px := 0; px < size; px++ {
			var r, g, b, a float64
			for sy := 0; sy < ss; sy++ {
				for sx := 0; sx < ss; sx++ {
					x := (float64(px) + (float64(sx)+0.5)/ss) / scale
					y := (float64(py) + (float64(sy)+0.5)/ss) / scale
					c, ok := shade(x, y, maskable, inset, zoom)
					if ok {
						r, g, b, a = r+c[0], g+c[1], b+c[2], a+1
					}
				}
			}
			if a > 0 {
				img.SetNRGBA(px, py, color.NRGBA{uint8(r / a), uint8(g / a), uint8(b / a), uint8(255 * a / ss / ss)})
			}
		}
	}
	return img
}

// shade returns the colour at (x, y) in the 64-unit grid, or false outside the tile.
func shade(x, y float64, maskable bool, inset, zoom float64) ([3]float64, bool) {
	if !maskable && !inRoundRect(x, y, 0, 0, 64, 64, 16) {
		return [3]float64{}, false
	}
	t := (x + y) / 128 // diagonal gradient #6d5dfc → #1d9bf0
	bg := [3]float64{0x6d + t*(0x1d-0x6d), 0x5d + t*(0x9b-0x5d), 0xfc + t*(0xf0-0xfc)}
	// Picture coordinates (the maskable form shrinks the picture to the safe zone).
	u, v := (x-inset)/zoom, (y-inset)/zoom
	for i, c := range [][3]float64{{0x6d, 0x5d, 0xfc}, {0x4a, 0x7c, 0xf5}, {0x1d, 0x9b, 0xf0}} {
		if math.Hypot(u-float64(24+8*i), v-31) <= 3 {
			return c, true
		}
	}
	if inRoundRect(u, v, 14, 20, 36, 22, 4) || inTail(u, v) {
		return [3]float64{255, 255, 255}, true
	}
	return bg, true
}

func inRoundRect(x, y, rx, ry, w, h, rad float64) bool {
	if x < rx || y < ry || x > rx+w || y > ry+h {
		return false
	}
	cx := math.Max(rx+rad, math.Min(x, rx+w-rad))
	cy := math.Max(ry+rad, math.Min(y, ry+h-rad))
	return math.Hypot(x-cx, y-cy) <= rad
}

// inTail is the bubble's tail: the triangle (21,41) (30,41) (21,49).
func inTail(x, y float64) bool {
	return x >= 21 && y >= 41 && (x-21)/9+(y-41)/8 <= 1
}
