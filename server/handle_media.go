package main

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"microblog/store"
	"microblog/store/media"
)

// The upload routes, read with a limit of their own (media.MaxBytes and
// room for the form around it) instead of the API's 64 KiB.
const (
	uploadPath = "/media"
	avatarPath = "/me/avatar"
)

func isUpload(path string) bool {
	return path == "/api/v1"+uploadPath || path == "/api/v1"+avatarPath
}

// upload is what an upload form carried.
type upload struct {
	file []byte
	alt  string
}

// readUpload reads a multipart/form-data body: the image in the part named
// "file" and an optional "alt" text. It streams the parts, keeping at most
// media.MaxBytes of the file in memory and nothing on disk.
func readUpload(c echo.Context) (upload, error) {
	var up upload
	mt, _, err := mime.ParseMediaType(c.Request().Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		return up, store.NewError(store.ErrUnsupported, store.CodeUnsupportedMedia, "an upload must be multipart/form-data with the image in the part \"file\"")
	}
	c.Request().Body = http.MaxBytesReader(c.Response(), c.Request().Body, media.MaxBytes+64<<10)
	mr, err := c.Request().MultipartReader()
	if err != nil {
		return up, store.Invalid(store.CodeInvalidBody, "the upload is not a valid multipart form")
	}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return up, media.ErrTooBig
		}
		if err != nil {
			return up, store.Invalid(store.CodeInvalidBody, "the upload is not a valid multipart form")
		}
		switch part.FormName() {
		case "file":
			if up.file, err = media.Read(part); err != nil {
				return up, err
			}
		case "alt":
			b, _ := io.ReadAll(io.LimitReader(part, 4*store.MaxAlt+1))
			if !utf8.Valid(b) || utf8.RuneCount(b) > store.MaxAlt {
				return up, store.Invalid(store.CodeInvalidField, "alt must be text of at most "+strconv.Itoa(store.MaxAlt)+" characters")
			}
			up.alt = strings.TrimSpace(string(b))
		}
		part.Close()
	}
	if up.file == nil {
		return up, store.Invalid(store.CodeInvalidField, "the upload has no part named \"file\"")
	}
	// Read to the end of the body (within its limit): net/http watches the
	// connection, and ends the request's context when the client goes away,
	// only once the body is read, and decoding stops with that context.
	io.Copy(io.Discard, c.Request().Body)
	return up, nil
}

// uploader is what storing an upload needs: the rate limit, then the record.
type uploader interface {
	store.Limiter
	store.Uploads
}

// receive counts an upload against the post limit (each is work like a
// post), reads it and prepares its image (a square one for an avatar),
// stopping when the client goes away. Refused as busy, the client is told
// when to try again.
func receive(c echo.Context, st uploader, limit store.Limit, avatar bool) (*media.Image, string, error) {
	if err := st.Allow(c.Request().Context(), "post", strconv.FormatInt(viewer(c), 10), limit); err != nil {
		return nil, "", err
	}
	up, err := readUpload(c)
	if err != nil {
		return nil, "", err
	}
	img, err := media.Process(c.Request().Context(), up.file, avatar)
	if errors.Is(err, media.ErrBusy) {
		c.Response().Header().Set("Retry-After", strconv.Itoa(int(media.BusyRetryAfter.Seconds())))
	}
	return img, up.alt, err
}

// handleUpload takes one image for a post: 201 Media.
func handleUpload(st uploader, files *media.Folder, limit store.Limit) echo.HandlerFunc {
	return func(c echo.Context) error {
		img, alt, err := receive(c, st, limit, false)
		if err != nil {
			return err
		}
		f := store.MediaFile{Name: media.NewName(img.Ext), ThumbName: media.NewName(img.ThumbExt),
			Width: img.Width, Height: img.Height, Alt: alt}
		if err := saveFiles(files, f.Name, img.Full, f.ThumbName, img.Thumb); err != nil {
			return err
		}
		m, err := st.SaveMedia(c.Request().Context(), viewer(c), f)
		if err != nil {
			files.Remove(f.Name, f.ThumbName)
			return err
		}
		return c.JSON(http.StatusCreated, m)
	}
}

// handleAvatar makes an uploaded image, cut square, the caller's avatar: 200 User.
func handleAvatar(st uploader, files *media.Folder, limit store.Limit) echo.HandlerFunc {
	return func(c echo.Context) error {
		img, _, err := receive(c, st, limit, true)
		if err != nil {
			return err
		}
		name := media.NewName(img.Ext)
		if err := saveFiles(files, name, img.Full); err != nil {
			return err
		}
		u, err := st.SetAvatar(c.Request().Context(), viewer(c), name)
		if err != nil {
			files.Remove(name)
			return err
		}
		return c.JSON(http.StatusOK, u)
	}
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

// handleMediaFile serves a file of the media folder: an image with its own
// type, never sniffed, never HTML, cached for a year (names never change).
func handleMediaFile(files *media.Folder) echo.HandlerFunc {
	return func(c echo.Context) error {
		name := c.Param("name")
		path := files.Path(name)
		if path == "" {
			return echo.ErrNotFound
		}
		h := c.Response().Header()
		h.Set("Content-Type", media.ContentType(name))
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
		h.Set("Content-Disposition", "inline")
		h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
		return c.File(path)
	}
}
