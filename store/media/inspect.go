package media

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"

	"golang.org/x/image/webp"
)

// header is what an image's headers tell before any pixel is decoded.
type header struct {
	width, height int   // of the canvas
	frames        int   // that will be decoded
	pixels        int64 // of those frames together
	bytes         int64 // of memory their decoding takes
}

// inspect reads the headers of an image of kind k and checks the limits
// against what decoding it would take: its sides, the pixels of all the
// frames that will be decoded (only the first for an avatar) and the memory
// the decoder allocates for them. Go's own DecodeConfig reads the size; the
// walks below read what it does not tell (a JPEG's sampling and progressive
// mode, a PNG's interlacing and transparency, a GIF's frames).
func inspect(k string, b []byte, avatar bool) (header, error) {
	var h header
	var ok bool
	switch k {
	case "gif":
		h, ok = gifHeader(b, avatar)
	case "webp":
		h, ok = webpHeader(b)
	case "png":
		h, ok = pngHeader(b)
	default:
		h, ok = jpegHeader(b)
	}
	switch {
	case !ok || h.width <= 0 || h.height <= 0:
		return h, ErrCorrupt
	case h.width > MaxSide || h.height > MaxSide:
		return h, ErrTooBig
	case h.frames > MaxFrames || h.pixels > MaxPixels:
		return h, errTooMuch
	case h.bytes > MaxDecodeBytes:
		return h, errTooHeavy(h.bytes)
	}
	return h, nil
}

// still is the header of a one-frame image of cfg's size whose decoding
// takes num/den bytes a pixel.
func still(cfg image.Config, num, den int64) header {
	px := int64(cfg.Width) * int64(cfg.Height)
	return header{width: cfg.Width, height: cfg.Height, frames: 1, pixels: px, bytes: px * num / den}
}

// webpHeader: a lossy WebP decodes to 4:2:0 YCbCr (1.5 bytes a pixel);
// with an alpha channel, that is first decoded as a lossless image (4 bytes
// a pixel, and 1 for the alpha kept); a lossless one decodes to NRGBA, and
// its colour-indexing transform makes a second copy (8 in all).
func webpHeader(b []byte) (header, bool) {
	cfg, err := webp.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return header{}, false
	}
	switch cfg.ColorModel {
	case color.YCbCrModel:
		return still(cfg, 3, 2), true
	case color.NYCbCrAModel:
		return still(cfg, 7, 1), true
	}
	return still(cfg, 8, 1), true
}

// pngHeader: Go's decoder makes a Gray, Gray16, RGBA, RGBA64 or Paletted
// image as the header's colour type and depth say, or an NRGBA(64) one for a
// grey image with a tRNS chunk; an interlaced image's passes are decoded
// into images of their own before they are merged (half of it at most).
func pngHeader(b []byte) (header, bool) {
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil || len(b) < 29 {
		return header{}, false
	}
	transparent := false
	for i := 8; i+8 <= len(b); {
		n, kind := int64(binary.BigEndian.Uint32(b[i:])), string(b[i+4:i+8])
		if kind == "IDAT" {
			break
		}
		transparent = transparent || kind == "tRNS"
		i += 12 + int(min(n, int64(len(b))))
	}
	per := int64(1) // a palette
	switch cfg.ColorModel {
	case color.GrayModel, color.RGBAModel, color.NRGBAModel:
		per = 4
		if cfg.ColorModel == color.GrayModel && !transparent {
			per = 1
		}
	case color.Gray16Model, color.RGBA64Model, color.NRGBA64Model:
		per = 8
		if cfg.ColorModel == color.Gray16Model && !transparent {
			per = 2
		}
	}
	if interlaced := b[28] == 1; interlaced {
		return still(cfg, 3*per, 2), true
	}
	return still(cfg, per, 1), true
}

// jpegHeader: Go's decoder keeps each component's plane, padded to whole
// blocks of 8 × 8 and subsampled as the frame header says; a progressive
// JPEG also keeps every coefficient of every block as an int32 (4 bytes a
// sample more), and an RGB or CMYK one is converted into a 4-byte-a-pixel
// image at the end.
func jpegHeader(b []byte) (header, bool) {
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return header{}, false
	}
	f, ok := jpegFrame(b)
	if !ok {
		return header{}, false
	}
	h := still(cfg, 0, 1)
	h0, v0 := f.sampling[0][0], f.sampling[0][1]
	if len(f.sampling) == 1 {
		h0, v0 = 1, 1 // Go ignores a lone component's factors
	}
	mcus := int64((cfg.Width+8*h0-1)/(8*h0)) * int64((cfg.Height+8*v0-1)/(8*v0))
	var blocks int64
	for _, s := range f.sampling {
		if len(f.sampling) == 1 {
			s = [2]int{1, 1}
		}
		blocks += mcus * int64(s[0]*s[1])
	}
	h.bytes = 64 * blocks
	if f.progressive {
		h.bytes += 4 * 64 * blocks
	}
	if len(f.sampling) == 4 || len(f.sampling) == 3 && f.rgb {
		h.bytes += 4 * h.pixels
	}
	return h, true
}

// jpegLayout is what a JPEG's frame header (SOF) and the segments before
// it say about how it will be decoded.
type jpegLayout struct {
	sampling    [][2]int // each component's horizontal and vertical factors
	progressive bool
	rgb         bool // converted to RGBA at the end, as Go's decoder decides it
}

// jpegFrame walks a JPEG's segments up to its frame header as Go's decoder
// does: stray bytes between segments and fill bytes are skipped, and only
// the frame types it decodes (baseline, extended, progressive) are read.
func jpegFrame(b []byte) (jpegLayout, bool) {
	var f jpegLayout
	jfif, adobeRGB := false, false
	for i := 2; i+4 <= len(b); {
		m := b[i+1]
		switch {
		case b[i] != 0xff || m == 0xff:
			i++ // a stray or fill byte
			continue
		case m == 0x00 || m >= 0xd0 && m <= 0xd7: // no length
			i += 2
			continue
		case m == 0xd9: // the end, without a frame
			return f, false
		}
		n := int(b[i+2])<<8 | int(b[i+3])
		if n < 2 || i+2+n > len(b) {
			return f, false
		}
		seg := b[i+4 : i+2+n]
		switch {
		case m == 0xe0 && bytes.HasPrefix(seg, []byte("JFIF\x00")):
			jfif = true
		case m == 0xee && len(seg) >= 12 && bytes.HasPrefix(seg, []byte("Adobe")):
			adobeRGB = seg[11] == 0 // transform 0: unknown, RGB in practice
		case m >= 0xc0 && m <= 0xc2:
			if len(seg) < 6 || seg[5] == 0 || len(seg) < 6+3*int(seg[5]) {
				return f, false
			}
			comps := seg[6 : 6+3*int(seg[5])]
			for c := 0; c < len(comps); c += 3 {
				h, v := int(comps[c+1]>>4), int(comps[c+1]&0x0f)
				if h < 1 || h > 4 || v < 1 || v > 4 {
					return f, false
				}
				f.sampling = append(f.sampling, [2]int{h, v})
			}
			named := len(comps) >= 9 && string([]byte{comps[0], comps[3], comps[6]}) == "RGB"
			f.rgb = !jfif && (adobeRGB || named)
			f.progressive = m == 0xc2
			return f, true
		case m == 0xda:
			return f, false // a scan before the frame header
		}
		i += 2 + n
	}
	return f, false
}
