package mastodon

import (
	"context"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"microblog/server/upload"
	"microblog/store"
)

// UploadPaths are this API's paths that take an image, which the server
// reads with the upload limit (media.MaxBytes) instead of its 64 KiB one;
// their other bodies are held to 64 KiB here (readParams).
var UploadPaths = []string{"/api/v2/media", "/api/v1/accounts/update_credentials"}

// verifyCredentials answers the caller's own account, with what it wrote
// of its profile (source) and its role.
func (a *API) verifyCredentials(c echo.Context) error {
	acct, err := a.credentialAccount(c.Request().Context(), mapperOf(c), viewer(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, acct)
}

// updateCredentials changes the caller's profile as the native PATCH
// /api/v1/me, PUT /api/v1/me/avatar and PUT /api/v1/me/header do: note is
// the bio, locked the protection, display_name and fields_attributes the
// profile's, avatar and header (a multipart form's files) its pictures.
// What the service has no place for (bot, discoverable ...) is left as it
// is. Everything is checked before anything is written. It answers the
// account as verify_credentials does.
func (a *API) updateCredentials(c echo.Context) error {
	ctx, uid := c.Request().Context(), viewer(c)
	var (
		params         url.Values
		avatar, header []byte
		err            error
	)
	if mt, _, _ := mime.ParseMediaType(c.Request().Header.Get("Content-Type")); mt == "multipart/form-data" {
		// A multipart form brings an image, as a native upload does: it
		// counts against the same limit before anything of it is read.
		if err := upload.Allow(ctx, a.st, uid, a.d.Limits.Post); err != nil {
			return err
		}
		form, err := upload.ReadImages(c, "avatar", "header")
		if err != nil {
			return err
		}
		params, avatar, header = form.Values, form.Files["avatar"], form.Files["header"]
	} else if params, err = readParams(c); err != nil {
		return err
	}
	profile := profileParams(params)
	if err := checkProfile(profile); err != nil {
		return err
	}
	if params.Has("note") {
		bio := params.Get("note")
		if err := store.CheckBio(bio); err != nil {
			return err
		}
		if _, err := a.st.SetBio(ctx, uid, bio); err != nil {
			return err
		}
	}
	if profile.DisplayName != nil || profile.Fields != nil {
		if _, err := a.st.SetProfile(ctx, uid, profile); err != nil {
			return err
		}
	}
	if params.Has("locked") {
		if _, err := a.st.SetProtected(ctx, uid, flag(params.Get("locked"))); err != nil {
			return err
		}
	}
	if avatar != nil {
		if a.d.Media == nil {
			return errNoUploads
		}
		img, err := upload.Prepare(c, avatar, true)
		if err != nil {
			return err
		}
		if _, err := upload.SaveAvatar(ctx, a.st, a.d.Media, uid, img); err != nil {
			return err
		}
	}
	if header != nil {
		if a.d.Media == nil {
			return errNoUploads
		}
		img, err := upload.Prepare(c, header, false)
		if err != nil {
			return err
		}
		if _, err := upload.SaveHeader(ctx, a.st, a.d.Media, uid, img); err != nil {
			return err
		}
	}
	return a.verifyCredentials(c)
}

// errNoUploads answers an upload to a server that keeps no media folder.
var errNoUploads = store.NewError(store.ErrUnavailable, store.CodeUnavailable, "this server takes no uploads")

// credentialAccount is uid's own account with its source and role.
func (a *API) credentialAccount(ctx context.Context, m mapper, uid int64) (Account, error) {
	u, err := a.st.User(ctx, uid, uid)
	if err != nil {
		return Account{}, err
	}
	requests, err := a.countFollowRequests(ctx, uid)
	if err != nil {
		return Account{}, err
	}
	return m.credentialAccount(u, requests, a.isAdmin(u.Username)), nil
}

// countFollowRequests counts the requests to follow uid, a page at a time
// (the store keeps no count of them; there are few).
func (a *API) countFollowRequests(ctx context.Context, uid int64) (int64, error) {
	var n int64
	q := store.PageQuery{Limit: store.MaxLimit}
	for {
		page, err := a.st.FollowRequests(ctx, uid, q)
		if err != nil {
			return 0, err
		}
		n += int64(len(page.Items))
		if page.NextCursor == nil {
			return n, nil
		}
		if q.Cursor, err = store.DecodeCursor(*page.NextCursor); err != nil {
			return 0, err
		}
	}
}

// isAdmin tells whether the user named name is one of the operators.
func (a *API) isAdmin(name string) bool {
	for _, admin := range a.d.Admins {
		if strings.EqualFold(admin, name) {
			return true
		}
	}
	return false
}
