package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"microblog/server/upload"
	"microblog/store"
	"microblog/store/media"
)

// The upload routes, under /api/v1, read with a limit of their own
// (media.MaxBytes and room for the form around it) instead of MaxBodyBytes.
const (
	UploadPath = "/media"
	AvatarPath = "/me/avatar"
)

// UploadPaths are the upload routes' whole paths, which the server's body
// limit leaves to them.
var UploadPaths = []string{"/api/v1" + UploadPath, "/api/v1" + AvatarPath, "/api/v1" + HeaderPath}

// uploader is what storing an upload needs: the rate limit, then the record.
type uploader interface {
	store.Limiter
	store.Uploads
	store.Profiles
}

// receive counts an upload against the post limit, reads its form (the
// image in the part "file", an optional "alt" text) and prepares its image
// (a square one for an avatar), as the upload package does for both APIs.
func receive(c echo.Context, st uploader, limit store.Limit, avatar bool) (*media.Image, string, error) {
	if err := upload.Allow(c.Request().Context(), st, viewer(c), limit); err != nil {
		return nil, "", err
	}
	form, err := upload.Read(c, "file")
	if err != nil {
		return nil, "", err
	}
	alt, err := form.Text("alt", store.MaxAlt)
	if err != nil {
		return nil, "", err
	}
	if form.File == nil {
		return nil, "", upload.NoFile("file")
	}
	img, err := upload.Prepare(c, form.File, avatar)
	return img, alt, err
}

// handleUpload takes one image for a post: 201 Media.
func handleUpload(st uploader, files *media.Folder, limit store.Limit) echo.HandlerFunc {
	return func(c echo.Context) error {
		img, alt, err := receive(c, st, limit, false)
		if err != nil {
			return err
		}
		m, err := upload.SaveImage(c.Request().Context(), st, files, viewer(c), img, alt)
		if err != nil {
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
		u, err := upload.SaveAvatar(c.Request().Context(), st, files, viewer(c), img)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, u)
	}
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
