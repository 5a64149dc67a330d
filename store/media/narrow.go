package media

import (
	"image"
	"image/color"
	"image/draw"
)

// narrow turns a decoded image into one of the types the encoders and
// scalers read directly (Gray, RGBA, YCbCr), in its own memory where the
// pixel size allows. Any other type they read a pixel at a time through an
// interface, which allocates for each pixel: garbage that lets the heap grow
// to twice the image before the collector runs. 16-bit images keep their
// high bytes (what the encoders would keep), an opaque NRGBA is an RGBA
// byte for byte, CMYK becomes RGBA; only a WebP with transparency needs a
// new image, which its budget (inspect.go) allows for.
func narrow(img image.Image) image.Image {
	switch m := img.(type) {
	case *image.RGBA64:
		return &image.RGBA{Pix: highBytes(m.Pix), Stride: m.Stride / 2, Rect: m.Rect}
	case *image.NRGBA64:
		return narrow(&image.NRGBA{Pix: highBytes(m.Pix), Stride: m.Stride / 2, Rect: m.Rect})
	case *image.Gray16:
		return &image.Gray{Pix: highBytes(m.Pix), Stride: m.Stride / 2, Rect: m.Rect}
	case *image.NRGBA:
		if m.Opaque() {
			return &image.RGBA{Pix: m.Pix, Stride: m.Stride, Rect: m.Rect}
		}
	case *image.CMYK:
		for i := 0; i+4 <= len(m.Pix); i += 4 {
			p := m.Pix[i : i+4 : i+4]
			p[0], p[1], p[2] = color.CMYKToRGB(p[0], p[1], p[2], p[3])
			p[3] = 0xff
		}
		return &image.RGBA{Pix: m.Pix, Stride: m.Stride, Rect: m.Rect}
	case *image.NYCbCrA:
		if m.Opaque() {
			return &m.YCbCr
		}
		dst := image.NewNRGBA(m.Rect)
		draw.Draw(dst, m.Rect, m, m.Rect.Min, draw.Src)
		return dst
	}
	return img
}

// highBytes keeps the high byte of each 16-bit sample of pix, in place.
func highBytes(pix []byte) []byte {
	for i := range len(pix) / 2 {
		pix[i] = pix[2*i]
	}
	return pix[:len(pix)/2]
}
