// Package mediatest makes the images that tests of uploads need and that
// cannot be made with the standard encoders without first holding all their
// pixels: decompression bombs, small files that decode to gigabytes. Each is
// written a row or a frame at a time, so making one costs little memory.
package mediatest

import (
	"bytes"
	"compress/lzw"
	"encoding/binary"
	"hash/crc32"
	"io"
)

// PNG is a w × h PNG of one colour (all zero), bitDepth 8 or 16 bits per
// channel and colorType as in the PNG specification (0 grey, 2 truecolour,
// 3 palette, 4 grey with alpha, 6 truecolour with alpha). A 16-bit
// truecolour 8000 × 8000 one is a file of about 500 KB that a decoder turns
// into 512 MB of pixels.
func PNG(w, h, bitDepth, colorType int) []byte {
	channels := map[int]int{0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[colorType]
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = byte(bitDepth), byte(colorType)
	pngChunk(&out, "IHDR", ihdr)
	if colorType == 3 {
		pngChunk(&out, "PLTE", []byte{0, 0, 0, 255, 255, 255})
	}
	row := 1 + (w*channels*bitDepth+7)/8 // filter byte 0, then zeros
	pngChunk(&out, "IDAT", zlibZeros(h*row))
	pngChunk(&out, "IEND", nil)
	return out.Bytes()
}

func pngChunk(w io.Writer, kind string, data []byte) {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(data)))
	w.Write(n[:])
	crc := crc32.NewIEEE()
	io.WriteString(crc, kind)
	crc.Write(data)
	io.WriteString(w, kind)
	w.Write(data)
	binary.BigEndian.PutUint32(n[:], crc.Sum32())
	w.Write(n[:])
}

// GIF is an animated GIF of frames frames, each covering the whole w × h
// canvas in one colour, 100 ms apart, looping forever. Each 8000 × 8000
// frame is about 40 KB in the file and 64 MB once decoded.
func GIF(w, h, frames int) []byte {
	var out bytes.Buffer
	out.WriteString("GIF89a")
	binary.Write(&out, binary.LittleEndian, [2]uint16{uint16(w), uint16(h)})
	out.Write([]byte{0x80, 0, 0})             // a global table of 2 colours
	out.Write([]byte{0, 0, 0, 255, 255, 255}) // black, white
	out.Write([]byte{0x21, 0xff, 11})
	out.WriteString("NETSCAPE2.0")
	out.Write([]byte{3, 1, 0, 0, 0}) // loop forever
	frame := gifFrame(w, h)
	for range frames {
		out.Write([]byte{0x21, 0xf9, 4, 0, 10, 0, 0, 0}) // 10 × 10 ms
		out.Write(frame)
	}
	out.WriteByte(0x3b)
	return out.Bytes()
}

// gifFrame is an image descriptor and its LZW data in sub-blocks: w × h
// pixels of colour 0.
func gifFrame(w, h int) []byte {
	var data bytes.Buffer
	lw := lzw.NewWriter(&data, lzw.LSB, 2)
	zeros := make([]byte, 64<<10)
	for n := w * h; n > 0; n -= len(zeros) {
		lw.Write(zeros[:min(n, len(zeros))])
	}
	lw.Close()
	var out bytes.Buffer
	out.WriteByte(0x2c)
	binary.Write(&out, binary.LittleEndian, [4]uint16{0, 0, uint16(w), uint16(h)})
	out.Write([]byte{0, 2}) // no local table; LZW minimum code size 2
	for b := data.Bytes(); len(b) > 0; {
		n := min(len(b), 255)
		out.WriteByte(byte(n))
		out.Write(b[:n])
		b = b[n:]
	}
	out.WriteByte(0)
	return out.Bytes()
}

// zlibZeros is a zlib stream of n zero bytes, written directly rather than
// through compress/zlib: one literal zero, then copies of 258 bytes from one
// byte back, 13 bits each, in one block of deflate's fixed codes. Making a
// bomb of hundreds of megabytes so takes milliseconds, also under the race
// detector, where the compressor takes half a minute.
func zlibZeros(n int) []byte {
	var bw bitWriter
	bw.out.Write([]byte{0x78, 0x01}) // deflate, 32 KiB window, no dictionary
	bw.bits(1, 1)                    // the last block
	bw.bits(1, 2)                    // of fixed Huffman codes
	const literal0, length258, distance1, endOfBlock = 0x30, 0xc5, 0, 0
	if n > 0 {
		bw.code(literal0, 8)
	}
	left := n - 1
	for ; left >= 258; left -= 258 {
		bw.code(length258, 8)
		bw.code(distance1, 5)
	}
	for ; left > 0; left-- {
		bw.code(literal0, 8)
	}
	bw.code(endOfBlock, 7)
	bw.flush()
	// Adler-32 of n zeros: the sum of the bytes stays 1, and each adds it to the second sum.
	binary.Write(&bw.out, binary.BigEndian, uint32(n%65521)<<16|1)
	return bw.out.Bytes()
}

// bitWriter writes deflate's bit stream: values least significant bit
// first, Huffman codes most significant bit first.
type bitWriter struct {
	out  bytes.Buffer
	acc  uint64
	nacc uint
}

func (b *bitWriter) bits(v uint64, n uint) {
	b.acc |= v << b.nacc
	b.nacc += n
	for b.nacc >= 8 {
		b.out.WriteByte(byte(b.acc))
		b.acc >>= 8
		b.nacc -= 8
	}
}

func (b *bitWriter) code(c uint64, n uint) {
	var r uint64
	for i := range n {
		r |= (c >> i & 1) << (n - 1 - i)
	}
	b.bits(r, n)
}

func (b *bitWriter) flush() {
	if b.nacc > 0 {
		b.bits(0, 8-b.nacc)
	}
}
