package mastodon

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// Statuses are the service's posts and comments: a comment is a reply
// (in_reply_to_id), a repost a reblog. What Mastodon has and the service
// has not is refused with 422 rather than dropped in silence, so that an
// app does not show its user something that did not happen:
//
//   - visibility: public and unlisted make an ordinary post (there is no
//     unlisted here: it is public); private is the post of a protected
//     account (which is what its posts are), refused for anyone else;
//     direct is a private message (CONTRACT §9) to the one user the
//     status mentions, answered as the direct status that shows it
//     (statuses_direct.go).
//   - polls are the native polls (polls.go);
//   - spoiler_text is the post's content warning (store.Post.Spoiler),
//     and sensitive follows it; scheduled_at is refused when given;
//     language is taken and ignored.

// idempotencyHeader makes a retried create return the first result, as on
// the native API.
const idempotencyHeader = "Idempotency-Key"

// deleteTimeout bounds a delete, which does not end with its client.
const deleteTimeout = 10 * time.Second

// statusRoutes registers the routes of this area.
func (a *API) statusRoutes(r *router) {
	const base = "/api/v1/statuses"
	read := a.auth("read:statuses", false)
	write := a.auth("write:statuses", true)
	favourites := a.auth("write:favourites", true)
	bookmarks := a.auth("write:bookmarks", true)
	accounts := a.auth("write:accounts", true)
	people := a.auth("read:accounts", false)

	r.add(http.MethodPost, base, a.createStatus, write)
	r.add(http.MethodGet, base, a.statusesByID, read)
	r.add(http.MethodGet, base+"/:id", a.getStatus, read)
	r.add(http.MethodDelete, base+"/:id", a.deleteStatus, write)
	r.add(http.MethodPut, base+"/:id", a.editStatus, write)
	r.add(http.MethodGet, base+"/:id/context", a.statusContext, read)
	r.add(http.MethodGet, base+"/:id/history", a.statusHistory, read)
	r.add(http.MethodGet, base+"/:id/source", a.statusSource, a.auth("read:statuses", true))
	r.add(http.MethodPost, base+"/:id/reblog", a.reblog, write)
	r.add(http.MethodPost, base+"/:id/unreblog", a.unreblog, write)
	r.add(http.MethodPost, base+"/:id/favourite", a.mark(a.st.Like, true, true), favourites)
	r.add(http.MethodPost, base+"/:id/unfavourite", a.mark(a.st.Like, false, true), favourites)
	r.add(http.MethodPost, base+"/:id/bookmark", a.mark(a.st.Bookmark, true, true), bookmarks)
	r.add(http.MethodPost, base+"/:id/unbookmark", a.mark(a.st.Bookmark, false, true), bookmarks)
	// A reblog is pinned as itself (the store decides whether it may be).
	r.add(http.MethodPost, base+"/:id/pin", a.mark(a.st.Pin, true, false), accounts)
	r.add(http.MethodPost, base+"/:id/unpin", a.mark(a.st.Pin, false, false), accounts)
	r.add(http.MethodGet, base+"/:id/favourited_by", a.people(a.st.Likers), people)
	r.add(http.MethodGet, base+"/:id/reblogged_by", a.people(a.st.Reposters), people)
}

// createStatus posts a status, or a reply with in_reply_to_id: 200 Status.
func (a *API) createStatus(c echo.Context) error {
	f, err := formOf(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	uid := viewer(c)
	if err := refuseUnsupported(f); err != nil {
		return err
	}
	if f.Get("visibility") == "direct" {
		return a.createDirect(c, f)
	}
	if err := a.checkVisibility(ctx, uid, f.Get("visibility")); err != nil {
		return err
	}
	np := store.NewPost{Author: uid, Content: f.Get("status"), Spoiler: f.Get("spoiler_text"), Limit: a.d.Limits.Post,
		IdempotencyKey: c.Request().Header.Get(idempotencyHeader)}
	if np.MediaIDs, err = idsOf(f["media_ids"], "media_ids"); err != nil {
		return err
	}
	if np.Poll, err = pollParams(f); err != nil {
		return err
	}
	if s := f.Get("in_reply_to_id"); s != "" {
		if np.Parent, err = strconv.ParseInt(s, 10, 64); err != nil || np.Parent <= 0 {
			return store.ErrPostNotFound
		}
	}
	p, err := a.st.Create(ctx, np)
	if err != nil {
		return err
	}
	return a.answerPost(c, p.ID)
}

// checkVisibility refuses a visibility the service cannot give a post of
// uid's (see Statuses).
func (a *API) checkVisibility(ctx context.Context, uid int64, visibility string) error {
	switch visibility {
	case "", "public", "unlisted":
		return nil
	case "private":
		u, err := a.st.User(ctx, uid, uid)
		if err != nil {
			return err
		}
		if u.Protected {
			return nil
		}
		return store.Invalid(store.CodeInvalidField,
			"Visibility private is for protected accounts here: every post of an unprotected account is public (protect the account to keep posts to approved followers)")
	}
	return store.Invalid(store.CodeInvalidField, "Visibility must be public, unlisted, private or direct")
}

// refuseUnsupported refuses what a status may carry in Mastodon but not
// here (see Statuses).
func refuseUnsupported(f url.Values) error {
	switch {
	case f.Get("scheduled_at") != "":
		return store.Invalid(store.CodeInvalidField, "Scheduled statuses are not supported")
	}
	return nil
}

// answerPost answers the post mid as the caller sees it now: 200 Status.
func (a *API) answerPost(c echo.Context, mid int64) error {
	p, err := a.st.Post(c.Request().Context(), mid, viewer(c))
	if err != nil {
		return err
	}
	s, err := a.statusOf(c, p)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, s)
}

// getStatus answers one status.
func (a *API) getStatus(c echo.Context) error {
	mid, err := statusID(c)
	if err != nil {
		return err
	}
	return a.answerPost(c, mid)
}

// deleteStatus deletes one of the caller's statuses and answers it as it
// was, with its source text, as apps use it to "delete and redraft".
func (a *API) deleteStatus(c echo.Context) error {
	p, err := a.pathPost(c)
	if err != nil {
		return err
	}
	uid := viewer(c)
	if p.Author.ID != uid {
		return store.ErrNotAuthor
	}
	s, err := a.statusOf(c, p)
	if err != nil {
		return err
	}
	// As on the native API, a delete once begun is carried through even if
	// the client goes away.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Request().Context()), deleteTimeout)
	defer cancel()
	if err := a.st.Delete(ctx, uid, p.ID); err != nil {
		return err
	}
	s.Text = &p.Content
	return c.JSON(http.StatusOK, s)
}

// editStatus replaces a status's text: 200 Status. Its images cannot be
// changed (media_ids, when sent, must be the ones it has), and an edit
// counts against the rate limit of posts, as on the native API.
func (a *API) editStatus(c echo.Context) error {
	f, err := formOf(c)
	if err != nil {
		return err
	}
	if err := refuseUnsupported(f); err != nil {
		return err
	}
	p, err := a.pathPost(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	uid := viewer(c)
	if _, ok := f["media_ids"]; ok {
		sent, err := idsOf(f["media_ids"], "media_ids")
		if err != nil {
			return err
		}
		had := make([]int64, 0, len(p.Media))
		for _, m := range p.Media {
			had = append(had, m.ID)
		}
		if !slices.Equal(sent, had) {
			return store.Invalid(store.CodeInvalidMedia, "A status's media cannot be changed by an edit here, only its text")
		}
	}
	if err := a.st.Allow(ctx, "post", strconv.FormatInt(uid, 10), a.d.Limits.Post); err != nil {
		return err
	}
	e := store.PostEdit{Content: f.Get("status")}
	if _, ok := f["spoiler_text"]; ok { // absent: it stays, as Mastodon's edit does
		spoiler := f.Get("spoiler_text")
		e.Spoiler = &spoiler
	}
	if _, err := a.st.EditPost(ctx, uid, p.ID, e); err != nil {
		return err
	}
	return a.answerPost(c, p.ID)
}
