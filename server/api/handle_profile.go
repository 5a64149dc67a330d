package api

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"microblog/server/upload"
	"microblog/store"
	"microblog/store/media"
)

// HeaderPath is the route of the header image, under /api/v1; it reads
// with the upload limit, as AvatarPath does.
const HeaderPath = "/me/header"

// profileIn is what PATCH /me takes of a profile (CONTRACT.md §15):
// display_name ("" takes it away) and fields (the whole list; [] takes
// them all away).
type profileIn struct {
	DisplayName *string        `json:"display_name"`
	Fields      *[]store.Field `json:"fields"`
}

// empty tells that neither was sent.
func (p *profileIn) empty() bool { return p.DisplayName == nil && p.Fields == nil }

// check refuses a display name or fields the store would, before the
// request changes anything else.
func (p *profileIn) check() error {
	if p.DisplayName != nil {
		if _, err := store.CleanDisplayName(*p.DisplayName); err != nil {
			return err
		}
	}
	if p.Fields != nil {
		if _, err := store.CleanFields(*p.Fields); err != nil {
			return err
		}
	}
	return nil
}

// save writes what was sent.
func (p *profileIn) save(c echo.Context, st store.Profiles) error {
	if p.empty() {
		return nil
	}
	_, err := st.SetProfile(c.Request().Context(), viewer(c), store.ProfileUpdate{DisplayName: p.DisplayName, Fields: p.Fields})
	return err
}

// handleHeader makes an uploaded image the caller's header: 200 User. It
// is prepared as a post's image is (kept whole, at most media's largest
// side), through the avatar's pipeline (upload).
func handleHeader(st uploader, files *media.Folder, limit store.Limit) echo.HandlerFunc {
	return func(c echo.Context) error {
		img, _, err := receive(c, st, limit, false)
		if err != nil {
			return err
		}
		u, err := upload.SaveHeader(c.Request().Context(), st, files, viewer(c), img)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, u)
	}
}
