package federation

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"microblog/server/upload"
	"microblog/store"
	"microblog/store/media"
)

// Remote pictures are fetched, checked and served from here as uploads
// are: each image attachment of a note that arrives (at most
// store.MaxMedia) is read from wherever it is (any host: servers keep
// media on other hosts) through the safe client, at most media.MaxBytes
// in mediaFetchTime, then prepared as an upload is (store/media: its
// headers checked before a pixel is decoded, re-encoded without its
// metadata, a thumbnail, a blurhash of our own) and kept in the media
// folder as the remote account's upload. One that cannot be fetched or
// read is left out; the note is taken without it.

// mediaFetchTime bounds the reading of a note's pictures, all together.
const mediaFetchTime = 20 * time.Second

// takeImages are the uploads a note's pictures become: fetched into the
// media folder, or, without one (Options.Media nil), kept by their
// remote URL (takeMedia).
func (s *Service) takeImages(ctx context.Context, actor store.RemoteActor, obj *inDoc) ([]int64, error) {
	if s.opt.Media == nil {
		return s.takeMedia(ctx, actor, obj)
	}
	type picture struct{ url, alt string }
	var pics []picture
	for _, a := range docsOf(obj.Attachment) {
		if len(pics) == store.MaxMedia {
			break
		}
		u := idOf(a.URL)
		if u == "" {
			u = a.Href
		}
		if u == "" || a.MediaType != "" && !strings.HasPrefix(a.MediaType, "image/") {
			continue
		}
		pics = append(pics, picture{u, truncate(plainText(a.Name), store.MaxAlt)})
	}
	if len(pics) == 0 {
		return nil, nil
	}
	fctx, cancel := context.WithTimeout(ctx, mediaFetchTime)
	defer cancel()
	ids := make([]int64, len(pics))
	errs := make([]error, len(pics))
	var wg sync.WaitGroup
	for i, p := range pics {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ids[i], errs[i] = s.fetchImage(fctx, actor.UID, p.url, p.alt)
		}()
	}
	wg.Wait()
	var out []int64
	for i, id := range ids {
		switch {
		case errs[i] == nil:
			out = append(out, id)
		case errors.Is(errs[i], store.ErrUnavailable):
			return nil, errs[i]
		default:
			s.opt.Logger.Info("federation: picture left out", "url", pics[i].url, "err", errs[i])
		}
	}
	return out, nil
}

// fetchImage reads the picture at raw and keeps it as an upload of
// owner's with alt text alt.
func (s *Service) fetchImage(ctx context.Context, owner int64, raw, alt string) (int64, error) {
	b, err := s.fetchBytes(ctx, raw, media.MaxBytes)
	if err != nil {
		return 0, err
	}
	img, err := media.Process(ctx, b, false)
	if err != nil {
		return 0, err
	}
	m, err := upload.SaveImage(ctx, s.st, s.opt.Media, owner, img, alt)
	if err != nil {
		return 0, err
	}
	return m.ID, nil
}

// fetchBytes reads the body at raw, unsigned (media servers are not
// ActivityPub servers), of at most limit bytes.
func (s *Service) fetchBytes(ctx context.Context, raw string, limit int64) ([]byte, error) {
	u, err := s.checkPeer(ctx, raw)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFetch, err)
	}
	req.Header.Set("Accept", "image/*")
	req.Header.Set("User-Agent", s.userAgent())
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFetch, err)
	}
	defer resp.Body.Close()
	if final := resp.Request.URL; final.String() != u.String() {
		if _, err := s.checkPeer(ctx, final.String()); err != nil {
			return nil, err
		}
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: %s answered %d", ErrFetch, resp.Request.URL.Host, resp.StatusCode)
	}
	if resp.ContentLength > limit {
		return nil, fmt.Errorf("%w: %s sent more than %d bytes", ErrFetch, resp.Request.URL.Host, limit)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFetch, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w: %s sent more than %d bytes", ErrFetch, resp.Request.URL.Host, limit)
	}
	return b, nil
}
