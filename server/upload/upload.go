// Package upload is the one pipeline by which a client's image becomes the
// service's: it reads a multipart form without buffering it on disk,
// prepares the image (store/media) and keeps its files and record. Both
// APIs use it: the native /api/v1/media and /api/v1/me/avatar, and the
// Mastodon API's media and update_credentials.
package upload

import (
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"microblog/store"
	"microblog/store/media"
)

// maxField is the most read of a text part: room for the longest text a
// form carries (an alt text of store.MaxAlt characters of up to 4 bytes)
// and one byte more, so that a longer one fails its check.
const maxField = 4*store.MaxAlt + 1

// Form is what an upload form carried.
type Form struct {
	// File is the image part's bytes, nil when there was none.
	File []byte
	// Values are the text parts by name, each cut at maxField bytes.
	Values url.Values
	// Files are the image parts by name (ReadImages); File is one of them.
	Files map[string][]byte
}

// Read reads a multipart/form-data body: the image in the part named file
// and the text parts beside it. It streams the parts, keeping at most
// media.MaxBytes of the image in memory and nothing on disk.
func Read(c echo.Context, file string) (Form, error) {
	f, err := ReadImages(c, file)
	f.File = f.Files[file]
	return f, err
}

// ReadImages is Read of a form that may carry several images (the
// Mastodon API's avatar and header), each in a part of its own, all in
// one body of at most media.MaxBytes and a little more. files[0] names
// the form in errors.
func ReadImages(c echo.Context, files ...string) (Form, error) {
	file := files[0]
	f := Form{Values: url.Values{}, Files: map[string][]byte{}}
	mt, _, err := mime.ParseMediaType(c.Request().Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		return f, store.NewError(store.ErrUnsupported, store.CodeUnsupportedMedia, "an upload must be multipart/form-data with the image in the part \""+file+"\"")
	}
	c.Request().Body = http.MaxBytesReader(c.Response(), c.Request().Body, media.MaxBytes+64<<10)
	mr, err := c.Request().MultipartReader()
	if err != nil {
		return f, store.Invalid(store.CodeInvalidBody, "the upload is not a valid multipart form")
	}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return f, media.ErrTooBig
		}
		if err != nil {
			return f, store.Invalid(store.CodeInvalidBody, "the upload is not a valid multipart form")
		}
		if name := part.FormName(); slices.Contains(files, name) {
			if f.Files[name], err = media.Read(part); err != nil {
				return f, err
			}
		} else if name != "" {
			b, _ := io.ReadAll(io.LimitReader(part, maxField))
			f.Values.Add(name, string(b))
		}
		part.Close()
	}
	// Read to the end of the body (within its limit): net/http watches the
	// connection, and ends the request's context when the client goes away,
	// only once the body is read, and decoding stops with that context.
	io.Copy(io.Discard, c.Request().Body)
	return f, nil
}

// Text is the text part name, trimmed: valid UTF-8 of at most max
// characters, or a 400 invalid_field naming it.
func (f Form) Text(name string, max int) (string, error) {
	s := f.Values.Get(name)
	if !utf8.ValidString(s) || utf8.RuneCountInString(s) > max {
		return "", store.Invalid(store.CodeInvalidField, name+" must be text of at most "+strconv.Itoa(max)+" characters")
	}
	return strings.TrimSpace(s), nil
}

// NoFile is the error of a form without its image part.
func NoFile(name string) error {
	return store.Invalid(store.CodeInvalidField, "the upload has no part named \""+name+"\"")
}

// Allow counts an upload of uid's against the post limit (each is work
// like a post), before anything of it is read.
func Allow(ctx context.Context, st store.Limiter, uid int64, limit store.Limit) error {
	return st.Allow(ctx, "post", strconv.FormatInt(uid, 10), limit)
}

// Prepare prepares an uploaded image (a square one for an avatar),
// stopping when the client goes away. Refused as busy, the client is told
// when to try again.
func Prepare(c echo.Context, file []byte, avatar bool) (*media.Image, error) {
	img, err := media.Process(c.Request().Context(), file, avatar)
	if errors.Is(err, media.ErrBusy) {
		c.Response().Header().Set("Retry-After", strconv.Itoa(int(media.BusyRetryAfter.Seconds())))
	}
	return img, err
}

// SaveImage keeps a prepared image of owner's for a post, with its alt
// text: its files in the media folder and its record in the store.
func SaveImage(ctx context.Context, st store.Uploads, files *media.Folder, owner int64, img *media.Image, alt string) (store.Media, error) {
	f := store.MediaFile{Name: media.NewName(img.Ext), ThumbName: media.NewName(img.ThumbExt),
		Width: img.Width, Height: img.Height, Alt: alt, Blurhash: img.Blurhash}
	if err := saveFiles(files, f.Name, img.Full, f.ThumbName, img.Thumb); err != nil {
		return store.Media{}, err
	}
	m, err := st.SaveMedia(ctx, owner, f)
	if err != nil {
		files.Remove(f.Name, f.ThumbName)
		return store.Media{}, err
	}
	return m, nil
}

// SaveAvatar makes a prepared (square) image uid's avatar.
func SaveAvatar(ctx context.Context, st store.Uploads, files *media.Folder, uid int64, img *media.Image) (store.User, error) {
	name := media.NewName(img.Ext)
	if err := saveFiles(files, name, img.Full); err != nil {
		return store.User{}, err
	}
	u, err := st.SetAvatar(ctx, uid, name)
	if err != nil {
		files.Remove(name)
		return store.User{}, err
	}
	return u, nil
}

// saveFiles writes name/bytes pairs, all or none.
func saveFiles(files *media.Folder, pairs ...any) error {
	var saved []string
	for i := 0; i < len(pairs); i += 2 {
		name, b := pairs[i].(string), pairs[i+1].([]byte)
		if err := files.Save(name, b); err != nil {
			files.Remove(saved...)
			return err
		}
		saved = append(saved, name)
	}
	return nil
}
