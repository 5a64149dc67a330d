package media

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"testing"

	"github.com/buckket/go-blurhash"
)

// TestProcessGivesABlurhash: an upload's BlurHash has Mastodon's 4 × 3
// components and draws its colours where the image has them (decoded with
// the library's own decoder); a GIF gets one from its first frame, an
// avatar none.
func TestProcessGivesABlurhash(t *testing.T) {
	red, blue := color.RGBA{220, 20, 20, 255}, color.RGBA{20, 20, 220, 255}
	img := image.NewRGBA(image.Rect(0, 0, 600, 300))
	for y := range 300 {
		for x := range 600 {
			c := red
			if x >= 300 {
				c = blue
			}
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	png.Encode(&b, img)
	out, err := Process(context.Background(), b.Bytes(), false)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(out.Blurhash); n != 28 { // 1 + 1 + 4 + 2 × (4 × 3 − 1) characters
		t.Fatalf("blurhash %q has %d characters, want 28", out.Blurhash, n)
	}
	x, y, err := blurhash.Components(out.Blurhash)
	if err != nil || x != 4 || y != 3 {
		t.Fatalf("blurhash %q: %d × %d components (%v), want 4 × 3", out.Blurhash, x, y, err)
	}
	drawn, err := blurhash.Decode(out.Blurhash, 32, 16, 1)
	if err != nil {
		t.Fatal(err)
	}
	left, right := color.RGBAModel.Convert(drawn.At(2, 8)).(color.RGBA), color.RGBAModel.Convert(drawn.At(29, 8)).(color.RGBA)
	if left.R <= left.B+60 || right.B <= right.R+60 {
		t.Errorf("blurhash %q draws %v on the left and %v on the right, want red then blue", out.Blurhash, left, right)
	}

	pal := color.Palette{color.Black, red}
	frame := image.NewPaletted(image.Rect(0, 0, 40, 20), pal)
	for x := range 40 {
		frame.SetColorIndex(x, 5, 1)
	}
	var g bytes.Buffer
	if err := gif.EncodeAll(&g, &gif.GIF{Image: []*image.Paletted{frame, frame}, Delay: []int{5, 5}}); err != nil {
		t.Fatal(err)
	}
	gifOut, err := Process(context.Background(), g.Bytes(), false)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := blurhash.Components(gifOut.Blurhash); err != nil {
		t.Errorf("a GIF's blurhash %q: %v", gifOut.Blurhash, err)
	}
	avatar, err := Process(context.Background(), b.Bytes(), true)
	if err != nil || avatar.Blurhash != "" {
		t.Errorf("an avatar's blurhash = %q (%v), want none", avatar.Blurhash, err)
	}
}
