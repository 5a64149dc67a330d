// Package media checks and prepares the images users upload, and keeps
// their bytes outside Redis, in a folder. Redis and the archive keep only
// their metadata (store.Media).
package media

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"

	"golang.org/x/image/webp"

	"microblog/store"
)

// Limits of an upload. An image is refused from its headers, before a pixel
// is decoded, when it breaks one of them (see inspect), so that a small file
// that decodes to gigabytes (a decompression bomb) costs nothing.
const (
	MaxBytes   = 5 << 20 // the whole file
	MaxSide    = 8000    // pixels, either way, of the canvas and of every frame
	ThumbSide  = 480     // the longer side of a thumbnail
	AvatarSide = 256     // an avatar is a square this big

	// MaxPixels bounds the pixels of all the frames of an animation
	// together, as of a still image.
	MaxPixels = MaxSide * MaxSide
	// MaxFrames bounds the frames of an animated GIF.
	MaxFrames = 1000
	// MaxDecodeBytes bounds the memory that decoding one upload takes, as
	// the decoders allocate it: 1 to 8 bytes a pixel by format and depth,
	// 5 times a JPEG's planes when it is progressive (see inspect.go).
	MaxDecodeBytes = 96 << 20
)

// Image is an upload turned into the files the server keeps: re-encoded
// from its pixels (so no metadata, EXIF location included, survives), and a
// thumbnail.
type Image struct {
	Full, Thumb   []byte
	Ext, ThumbExt string // ".jpg", ".png" or ".gif"
	Width, Height int
	Blurhash      string // of the thumbnail (blurhash.go); "" for an avatar
}

// Errors of an upload, as the contract answers them.
var (
	ErrUnsupported = store.NewError(store.ErrUnsupported, store.CodeUnsupportedMedia, "the file must be a JPEG, PNG, WebP or GIF image")
	ErrTooBig      = store.NewError(store.ErrTooLarge, store.CodeMediaTooLarge, fmt.Sprintf("images may be at most %d MB and %d × %d pixels", MaxBytes>>20, MaxSide, MaxSide))
	ErrCorrupt     = store.Invalid(store.CodeInvalidImage, "the image could not be read: it is damaged or incomplete")
	errTooMuch     = store.NewError(store.ErrTooLarge, store.CodeMediaTooLarge, fmt.Sprintf(
		"an animated GIF may have at most %d frames and %d million pixels in all its frames together", MaxFrames, MaxPixels/1_000_000))
)

// errTooHeavy refuses an image whose pixels would take need bytes of memory.
func errTooHeavy(need int64) error {
	return store.NewError(store.ErrTooLarge, store.CodeMediaTooLarge, fmt.Sprintf(
		"this image would take %d MB of memory to process, and at most %d MB is allowed: "+
			"send fewer pixels, 8 bits per channel rather than 16, or a baseline rather than a progressive JPEG",
		(need+1<<20-1)>>20, MaxDecodeBytes>>20))
}

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

// Process checks an upload and re-encodes it; avatar makes a square. The
// limits are checked from the headers first (inspect); then the upload
// waits for one of the process's MaxDecodes turns (ErrBusy when none comes
// in time), and decoding, scaling and encoding stop with ctx's error once
// ctx ends (the client went away).
func Process(ctx context.Context, b []byte, avatar bool) (*Image, error) {
	k := kind(b)
	if k == "" {
		return nil, ErrUnsupported
	}
	if _, err := inspect(k, b, avatar); err != nil {
		return nil, err
	}
	release, err := takeTurn(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	if k == "gif" && !avatar {
		return processGIF(ctx, b)
	}
	img, err := decode(ctx, k, b)
	if err != nil {
		return nil, err
	}
	img = narrow(img)
	if avatar {
		sq, err := square(ctx, img, AvatarSide)
		if err != nil {
			return nil, err
		}
		full, ext, err := encode(ctx, sq)
		return &Image{Full: full, Ext: ext, Thumb: full, ThumbExt: ext, Width: AvatarSide, Height: AvatarSide}, err
	}
	small, err := fit(ctx, img, ThumbSide)
	if err != nil {
		return nil, err
	}
	thumb, thumbExt, err := encode(ctx, small)
	if err != nil {
		return nil, err
	}
	hash, err := blurhashOf(ctx, small)
	if err != nil {
		return nil, err
	}
	full, ext, err := encode(ctx, img)
	return &Image{Full: full, Ext: ext, Thumb: thumb, ThumbExt: thumbExt,
		Width: img.Bounds().Dx(), Height: img.Bounds().Dy(), Blurhash: hash}, err
}

// decode decodes the first frame of b, reading through ctx.
func decode(ctx context.Context, k string, b []byte) (image.Image, error) {
	r := ctxReader{ctx, bytes.NewReader(b)}
	var img image.Image
	var err error
	switch k {
	case "jpeg":
		img, err = jpeg.Decode(r)
	case "png":
		img, err = png.Decode(r)
	case "gif":
		img, err = gif.Decode(r)
	default:
		img, err = webp.Decode(r)
	}
	return img, decodeError(ctx, err)
}

// decodeError is what a decoder's failure means: ctx's end, or a damaged file.
func decodeError(ctx context.Context, err error) error {
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return ErrCorrupt
}

// encode writes an image as PNG when it has transparency, else as JPEG.
func encode(ctx context.Context, img image.Image) ([]byte, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	var buf bytes.Buffer
	w := ctxWriter{ctx, &buf}
	if opaque(img) {
		err := jpeg.Encode(w, img, &jpeg.Options{Quality: 85})
		return buf.Bytes(), ".jpg", encodeError(ctx, err)
	}
	err := png.Encode(w, img)
	return buf.Bytes(), ".png", encodeError(ctx, err)
}

// encodeError is ctx's error when ctx ended the encoding; an encoder writing
// into memory fails for no other reason.
func encodeError(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

func opaque(img image.Image) bool {
	if o, ok := img.(interface{ Opaque() bool }); ok {
		return o.Opaque()
	}
	return false
}
