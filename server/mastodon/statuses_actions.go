package mastodon

import (
	"context"
	"errors"
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// Limits of a status's context.
const (
	maxAncestors   = 40  // parents read up a thread
	maxDescendants = 200 // comments read down a thread
	commentsPage   = 100 // comments read per round trip
)

// Context is Mastodon's Context: a status's thread around it.
type Context struct {
	Ancestors   []Status `json:"ancestors"`
	Descendants []Status `json:"descendants"`
}

// statusContext answers the thread of a status: its parents, the oldest
// first, and the comments below it, depth first and the oldest first at
// each level, as Mastodon orders them (at most maxDescendants).
func (a *API) statusContext(c echo.Context) error {
	p, err := a.pathPost(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	uid := viewer(c)
	var up []store.Post
	for parent := p.ParentID; parent != nil && len(up) < maxAncestors; {
		pp, err := a.st.Post(ctx, *parent, uid)
		if err != nil {
			break // a parent the reader may not see ends the thread above
		}
		up = append(up, pp)
		parent = pp.ParentID
	}
	slices.Reverse(up)
	budget := maxDescendants
	down, err := a.descendants(ctx, p, uid, &budget)
	if err != nil {
		return err
	}
	var out Context
	if out.Ancestors, err = a.statusesOf(c, up); err != nil {
		return err
	}
	if out.Descendants, err = a.statusesOf(c, down); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// descendants reads the comments below p, depth first, while budget lasts.
func (a *API) descendants(ctx context.Context, p store.Post, uid int64, budget *int) ([]store.Post, error) {
	if p.CommentsCount == 0 || *budget <= 0 {
		return nil, nil
	}
	var level []store.Post
	q := store.PageQuery{Limit: commentsPage, Viewer: uid}
	for len(level) < *budget {
		page, err := a.st.Comments(ctx, p.ID, q)
		if errors.Is(err, store.ErrNotFound) {
			return nil, nil // gone meanwhile
		}
		if err != nil {
			return nil, err
		}
		level = append(level, page.Items...)
		if page.NextCursor == nil {
			break
		}
		if q.Cursor, err = store.DecodeCursor(*page.NextCursor); err != nil {
			return nil, err
		}
	}
	// The newest ones are dropped when there are too many, as the page
	// ends at the oldest.
	level = level[len(level)-min(len(level), *budget):]
	slices.Reverse(level)
	*budget -= len(level)
	var out []store.Post
	for _, cm := range level {
		out = append(out, cm)
		below, err := a.descendants(ctx, cm, uid, budget)
		if err != nil {
			return nil, err
		}
		out = append(out, below...)
	}
	return out, nil
}

// statusHistory answers every version of a status, the oldest first and
// the current one last, as StatusEdits.
func (a *API) statusHistory(c echo.Context) error {
	p, err := a.pathPost(c)
	if err != nil {
		return err
	}
	vs, err := a.st.History(c.Request().Context(), p.ID, viewer(c))
	if err != nil {
		return err
	}
	m := mapperOf(c)
	out := make([]StatusEdit, 0, len(vs))
	for _, v := range vs {
		out = append(out, m.statusEdit(p, v))
	}
	return c.JSON(http.StatusOK, out)
}

// statusSource answers what the author wrote of a status.
func (a *API) statusSource(c echo.Context) error {
	p, err := a.pathPost(c)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, StatusSource{ID: idString(p.ID), Text: p.Content, SpoilerText: p.Spoiler})
}

// original is the post a status is about: itself, or the original of a
// repost (which favourites, bookmarks and reblogs act on, as Mastodon's
// do).
func (a *API) original(c echo.Context) (int64, error) {
	p, err := a.pathPost(c)
	if err != nil {
		return 0, err
	}
	if p.RepostOf != nil {
		return p.RepostOf.ID, nil
	}
	return p.ID, nil
}

// reblog reposts a status and answers the repost, with the original
// inside; a status reblogged already answers the caller's earlier repost,
// as Mastodon does.
func (a *API) reblog(c echo.Context) error {
	orig, err := a.original(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	uid := viewer(c)
	p, err := a.st.Create(ctx, store.NewPost{Author: uid, RepostOf: orig, Limit: a.d.Limits.Post,
		IdempotencyKey: c.Request().Header.Get(idempotencyHeader)})
	if errors.Is(err, store.ErrReposted) {
		mine, err := a.st.RepostsBy(ctx, uid, []int64{orig})
		if err != nil {
			return err
		}
		if mine[0] == 0 { // taken back meanwhile
			return store.ErrReposted
		}
		return a.answerPost(c, mine[0])
	}
	if err != nil {
		return err
	}
	return a.answerPost(c, p.ID)
}

// unreblog deletes the caller's repost of a status, if any, and answers
// the original.
func (a *API) unreblog(c echo.Context) error {
	orig, err := a.original(c)
	if err != nil {
		return err
	}
	uid := viewer(c)
	mine, err := a.st.RepostsBy(c.Request().Context(), uid, []int64{orig})
	if err != nil {
		return err
	}
	if mine[0] != 0 {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Request().Context()), deleteTimeout)
		defer cancel()
		if err := a.st.Delete(ctx, uid, mine[0]); err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
	}
	return a.answerPost(c, orig)
}

// mark sets (on) or clears one of the caller's marks on a status with
// mark (a like, a bookmark, a pin) and answers the status; ofOriginal
// marks the original of a repost instead.
func (a *API) mark(mark func(ctx context.Context, uid, mid int64, on bool) error, on, ofOriginal bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		mid, err := statusID(c)
		if ofOriginal {
			mid, err = a.original(c)
		}
		if err != nil {
			return err
		}
		if err := mark(c.Request().Context(), viewer(c), mid, on); err != nil {
			return asValidation(err)
		}
		return a.answerPost(c, mid)
	}
}

// asValidation answers as Mastodon does, 422, a refusal that it counts as
// a failed validation (pinning another's status) and the native API as
// forbidden.
func asValidation(err error) error {
	var se *store.Error
	if errors.As(err, &se) && se.Code == store.CodeNotYours {
		return store.NewError(store.ErrInvalid, se.Code, se.Message)
	}
	return err
}

// people answers a page of the accounts list names of a status (who
// favourited or reblogged it), paged by the store's cursor in max_id.
func (a *API) people(list func(ctx context.Context, mid int64, q store.PageQuery) (store.Page[store.User], error)) echo.HandlerFunc {
	return func(c echo.Context) error {
		mid, err := statusID(c)
		if err != nil {
			return err
		}
		q, err := pageOf(c)
		if err != nil {
			return err
		}
		page, err := list(c.Request().Context(), mid, q.PageQuery)
		if err != nil {
			return err
		}
		m := mapperOf(c)
		out := make([]Account, 0, len(page.Items))
		for _, u := range page.Items {
			out = append(out, m.account(u))
		}
		if page.NextCursor != nil {
			links(c, *page.NextCursor, "")
		}
		return c.JSON(http.StatusOK, out)
	}
}
