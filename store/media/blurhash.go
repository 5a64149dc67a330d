package media

import (
	"context"
	"image"

	"github.com/buckket/go-blurhash"
)

// Every image of a post gets a BlurHash (blurha.sh): a short string that
// apps draw as a blurred likeness of the image while it loads, as Mastodon
// sends with each attachment. It is computed with buckket/go-blurhash, the
// Go implementation the format's site lists, from the thumbnail scaled
// down further, since a blur needs no detail.

// Blurhash components across and down, as Mastodon computes them, and the
// side of the image they are computed from.
const (
	blurX, blurY = 4, 3
	blurSide     = 64
)

// blurhashOf is the BlurHash of img (a thumbnail).
func blurhashOf(ctx context.Context, img image.Image) (string, error) {
	small, err := fit(ctx, img, blurSide)
	if err != nil {
		return "", err
	}
	h, err := blurhash.Encode(blurX, blurY, small)
	if err != nil {
		return "", ErrCorrupt // an image that decoded has pixels to blur: not reached
	}
	return h, nil
}
