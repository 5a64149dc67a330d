package mastodon

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"microblog/server/upload"
	"microblog/store"
)

// mediaRoutes registers the uploads: POST /api/v2/media, and /api/v1/media
// (a path the native API serves too). Both prepare the image at once, as
// the native upload does, so v2 answers 200 with its URL.
func (a *API) mediaRoutes(r *router) {
	r.add(http.MethodPost, "/api/v2/media", a.uploadMedia, a.auth("write:media", true))
	r.add(http.MethodPost, "/api/v1/media", a.uploadMedia, a.auth("write:media", true))
	r.add(http.MethodGet, "/api/v1/media/:id", a.getMedia, a.auth("write:media", true))
	r.add(http.MethodPut, "/api/v1/media/:id", a.describeMedia, a.auth("write:media", true))
}

// uploadMedia takes one image (the part "file") with its description, as
// the native upload takes it with its alt text, and answers the
// MediaAttachment a status may then carry in media_ids.
func (a *API) uploadMedia(c echo.Context) error {
	if a.d.Media == nil {
		return errNoUploads
	}
	ctx, uid := c.Request().Context(), viewer(c)
	if err := upload.Allow(ctx, a.st, uid, a.d.Limits.Post); err != nil {
		return err
	}
	form, err := upload.Read(c, "file")
	if err != nil {
		return err
	}
	alt, err := form.Text("description", store.MaxAlt)
	if err != nil {
		return err
	}
	if form.File == nil {
		return upload.NoFile("file")
	}
	img, err := upload.Prepare(c, form.File, false)
	if err != nil {
		return err
	}
	m, err := upload.SaveImage(ctx, a.st, a.d.Media, uid, img, alt)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, mapperOf(c).media(m))
}

// getMedia answers one of the caller's uploads (prepared at once, so 200).
func (a *API) getMedia(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	m, err := a.st.Upload(c.Request().Context(), viewer(c), id)
	if err != nil {
		return recordNotFound(err)
	}
	return c.JSON(http.StatusOK, mapperOf(c).media(m))
}

// describeMedia replaces the description of one of the caller's uploads
// until a status takes it.
func (a *API) describeMedia(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	params, err := readParams(c)
	if err != nil {
		return err
	}
	alt, err := upload.Form{Values: params}.Text("description", store.MaxAlt)
	if err != nil {
		return err
	}
	m, err := a.st.DescribeUpload(c.Request().Context(), viewer(c), id, alt)
	if err != nil {
		return recordNotFound(err)
	}
	return c.JSON(http.StatusOK, mapperOf(c).media(m))
}
