// Package media checks and prepares the images users upload, and keeps
// their bytes outside Redis, in a folder. Redis and the archive keep only
// their metadata (store.Media).
package media

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/webp"

	"microblog/store"
)

// Limits of an upload.
const (
	MaxBytes   = 5 << 20 // the whole file
	MaxSide    = 8000    // pixels, either way
	ThumbSide  = 480     // the longer side of a thumbnail
	AvatarSide = 256     // an avatar is a square this big
)

// Image is an upload turned into the files the server keeps: re-encoded
// from its pixels (so no metadata, EXIF location included, survives), and a
// thumbnail.
type Image struct {
	Full, Thumb   []byte
	Ext, ThumbExt string // ".jpg", ".png" or ".gif"
	Width, Height int
}

// Errors of an upload, as the contract answers them.
var (
	ErrUnsupported = store.NewError(store.ErrUnsupported, store.CodeUnsupportedMedia, "the file must be a JPEG, PNG, WebP or GIF image")
	ErrTooBig      = store.NewError(store.ErrTooLarge, store.CodeMediaTooLarge, fmt.Sprintf("images may be at most %d MB and %d × %d pixels", MaxBytes>>20, MaxSide, MaxSide))
	ErrCorrupt     = store.Invalid(store.CodeInvalidImage, "the image could not be read: it is damaged or incomplete")
)

// kind is an image format decided from the first bytes, never from a name
// or a header the client sent.
func kind(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte("\xff\xd8\xff")):
		return "jpeg"
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		return "png"
	case bytes.HasPrefix(b, []byte("GIF87a")), bytes.HasPrefix(b, []byte("GIF89a")):
		return "gif"
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		return "webp"
	}
	return ""
}

// Read reads an upload of at most MaxBytes from r.
func Read(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return nil, store.Invalid(store.CodeInvalidBody, "could not read the upload")
	}
	if len(b) > MaxBytes {
		return nil, ErrTooBig
	}
	return b, nil
}

// Process checks an upload and re-encodes it: the size is checked from the
// header before any pixel is decoded, so a small file that claims to be
// huge costs nothing. avatar makes a square.
func Process(b []byte, avatar bool) (*Image, error) {
	k := kind(b)
	if k == "" {
		return nil, ErrUnsupported
	}
	var cfg image.Config
	var err error
	if k == "webp" {
		cfg, err = webp.DecodeConfig(bytes.NewReader(b))
	} else {
		cfg, _, err = image.DecodeConfig(bytes.NewReader(b))
	}
	if err != nil {
		return nil, ErrCorrupt
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return nil, ErrCorrupt
	}
	if cfg.Width > MaxSide || cfg.Height > MaxSide {
		return nil, ErrTooBig
	}
	if k == "gif" && !avatar {
		return processGIF(b)
	}
	img, err := decode(k, b)
	if err != nil {
		return nil, ErrCorrupt
	}
	if avatar {
		sq := square(img, AvatarSide)
		full, ext := encode(sq)
		return &Image{Full: full, Ext: ext, Thumb: full, ThumbExt: ext, Width: AvatarSide, Height: AvatarSide}, nil
	}
	full, ext := encode(img)
	thumb, thumbExt := encode(fit(img, ThumbSide))
	return &Image{Full: full, Ext: ext, Thumb: thumb, ThumbExt: thumbExt,
		Width: img.Bounds().Dx(), Height: img.Bounds().Dy()}, nil
}

func decode(k string, b []byte) (image.Image, error) {
	r := bytes.NewReader(b)
	switch k {
	case "jpeg":
		return jpeg.Decode(r)
	case "png":
		return png.Decode(r)
	case "gif":
		return gif.Decode(r)
	default:
		return webp.Decode(r)
	}
}

// processGIF keeps a GIF's frames (it may be animated) but nothing else:
// re-encoding writes only frames, palettes and the loop count.
func processGIF(b []byte) (*Image, error) {
	g, err := gif.DecodeAll(bytes.NewReader(b))
	if err != nil || len(g.Image) == 0 {
		return nil, ErrCorrupt
	}
	var full bytes.Buffer
	out := &gif.GIF{Image: g.Image, Delay: g.Delay, LoopCount: g.LoopCount, Disposal: g.Disposal, Config: g.Config}
	if err := gif.EncodeAll(&full, out); err != nil {
		return nil, ErrCorrupt
	}
	first := image.NewRGBA(image.Rect(0, 0, g.Config.Width, g.Config.Height))
	draw.Draw(first, g.Image[0].Bounds(), g.Image[0], g.Image[0].Bounds().Min, draw.Over)
	thumb, thumbExt := encode(fit(first, ThumbSide))
	return &Image{Full: full.Bytes(), Ext: ".gif", Thumb: thumb, ThumbExt: thumbExt,
		Width: g.Config.Width, Height: g.Config.Height}, nil
}

// encode writes an image as PNG when it has transparency, else as JPEG.
func encode(img image.Image) ([]byte, string) {
	var buf bytes.Buffer
	if opaque(img) {
		jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85})
		return buf.Bytes(), ".jpg"
	}
	png.Encode(&buf, img)
	return buf.Bytes(), ".png"
}

func opaque(img image.Image) bool {
	if o, ok := img.(interface{ Opaque() bool }); ok {
		return o.Opaque()
	}
	return false
}

// fit scales img down (never up) so that its longer side is at most side.
func fit(img image.Image, side int) image.Image {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w <= side && h <= side {
		return img
	}
	if w >= h {
		w, h = side, max(1, h*side/w)
	} else {
		w, h = max(1, w*side/h), side
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	xdraw.CatmullRom.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
	return dst
}

// square crops the middle square of img and scales it to side × side.
func square(img image.Image, side int) image.Image {
	b := img.Bounds()
	n := min(b.Dx(), b.Dy())
	src := image.Rect(b.Min.X+(b.Dx()-n)/2, b.Min.Y+(b.Dy()-n)/2, 0, 0)
	src.Max = src.Min.Add(image.Pt(n, n))
	dst := image.NewRGBA(image.Rect(0, 0, side, side))
	draw.Draw(dst, dst.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	xdraw.CatmullRom.Scale(dst, dst.Bounds(), img, src, draw.Over, nil)
	return dst
}
