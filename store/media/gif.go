package media

import (
	"bytes"
	"context"
	"encoding/binary"
	"image"
	"image/draw"
	"image/gif"
)

// Animated GIFs are kept animated, re-encoded from their frames, within
// MaxFrames frames and MaxPixels pixels in all: their frames are decoded at
// one byte a pixel, so the limits bound the memory (64 MB at most) as they
// bound a still image's, and an animation of a few hundred frames of a
// usual size fits. Turning them into video would need an encoder the
// server does not have, and a first frame alone would lose what people
// post them for.

// gifHeader walks a GIF's blocks without decoding a pixel: the canvas, then
// each frame's descriptor, skipping the data. It stops where Go's decoder
// would fail (an unknown block, a frame outside the canvas, the end of the
// data), which the decoder then reports; the frames before are all the
// decoder can reach. Only the first frame is decoded for an avatar.
func gifHeader(b []byte, avatar bool) (header, bool) {
	if len(b) < 13 {
		return header{}, false
	}
	h := header{width: int(binary.LittleEndian.Uint16(b[6:])), height: int(binary.LittleEndian.Uint16(b[8:]))}
	i := 13 + colorTable(b[10])
walk:
	for i < len(b) {
		switch b[i] {
		case 0x21: // an extension
			i = skipExtension(b, i+1)
		case 0x2c: // an image descriptor, its colour table and data
			if i+11 > len(b) {
				break walk
			}
			d := b[i+1:]
			left, top := int(binary.LittleEndian.Uint16(d)), int(binary.LittleEndian.Uint16(d[2:]))
			w, ht := int(binary.LittleEndian.Uint16(d[4:])), int(binary.LittleEndian.Uint16(d[6:]))
			if left+w > h.width || top+ht > h.height {
				break walk
			}
			if !avatar || h.frames == 0 {
				h.frames++
				h.pixels += int64(w) * int64(ht)
			}
			i = skipSubBlocks(b, i+10+colorTable(d[8])+1) // +1: the LZW code size
		default: // the trailer, or something the decoder refuses
			break walk
		}
	}
	h.bytes = h.pixels // image.Paletted: a byte a pixel
	return h, h.frames > 0
}

// colorTable is the length of the colour table that a descriptor's flags
// announce.
func colorTable(flags byte) int {
	if flags&0x80 == 0 {
		return 0
	}
	return 3 << (flags&7 + 1)
}

// skipExtension returns the index after the extension whose label is at
// b[i], read as Go's decoder reads it: a plain text extension has 13 bytes
// before its sub-blocks whatever its first says, an application one as many
// as its first says, a graphic control one is exactly 6 bytes; an unknown
// label ends the walk.
func skipExtension(b []byte, i int) int {
	if i >= len(b) {
		return len(b)
	}
	switch b[i] {
	case 0x01: // plain text
		return skipSubBlocks(b, i+1+13)
	case 0xf9: // graphic control
		if i+7 > len(b) || b[i+1] != 4 || b[i+6] != 0 {
			return len(b)
		}
		return i + 7
	case 0xfe: // comment
		return skipSubBlocks(b, i+1)
	case 0xff: // application
		if i+1 >= len(b) {
			return len(b)
		}
		return skipSubBlocks(b, i+2+int(b[i+1]))
	}
	return len(b)
}

// skipSubBlocks returns the index after the sub-blocks that start at b[i]
// and their empty terminator.
func skipSubBlocks(b []byte, i int) int {
	for i < len(b) {
		n := int(b[i])
		i += 1 + n
		if n == 0 {
			return i
		}
	}
	return len(b)
}

// processGIF keeps a GIF's frames (it may be animated) but nothing else:
// re-encoding writes only frames, palettes and the loop count. The
// thumbnail is the first frame, scaled straight into its place on a
// thumbnail-sized canvas.
func processGIF(ctx context.Context, b []byte) (*Image, error) {
	g, err := gif.DecodeAll(ctxReader{ctx, bytes.NewReader(b)})
	if err == nil && len(g.Image) == 0 {
		err = ErrCorrupt
	}
	if err := decodeError(ctx, err); err != nil {
		return nil, err
	}
	var full bytes.Buffer
	out := &gif.GIF{Image: g.Image, Delay: g.Delay, LoopCount: g.LoopCount, Disposal: g.Disposal, Config: g.Config}
	if err := gif.EncodeAll(ctxWriter{ctx, &full}, out); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, ErrCorrupt
	}
	cw, ch := g.Config.Width, g.Config.Height
	tw, th := fitSize(cw, ch, ThumbSide)
	first := image.NewRGBA(image.Rect(0, 0, tw, th))
	f := g.Image[0]
	fr := f.Bounds()
	if tw == cw && th == ch {
		draw.Draw(first, fr, f, fr.Min, draw.Over)
	} else {
		at := image.Rect(fr.Min.X*tw/cw, fr.Min.Y*th/ch, fr.Max.X*tw/cw, fr.Max.Y*th/ch)
		if err := scaleInto(ctx, first, at, f, fr, draw.Over); err != nil {
			return nil, err
		}
	}
	thumb, thumbExt, err := encode(ctx, first)
	if err != nil {
		return nil, err
	}
	hash, err := blurhashOf(ctx, first)
	return &Image{Full: full.Bytes(), Ext: ".gif", Thumb: thumb, ThumbExt: thumbExt,
		Width: cw, Height: ch, Blurhash: hash}, err
}
