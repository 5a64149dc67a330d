package mastodon

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// Timelines are the store's lists of posts, newest first, under the same
// rules as the native API's (protection, blocks, mutes and word filters are
// the store's, by the reader in PageQuery.Viewer), paged as Mastodon pages.

// postLister reads one page of a list of posts.
type postLister func(ctx context.Context, q store.PageQuery) (store.Page[store.Post], error)

// timelineRoutes registers the routes of this area.
func (a *API) timelineRoutes(r *router) {
	read := a.auth("read:statuses", false)
	r.add(http.MethodGet, "/api/v1/timelines/home", a.homeTimeline, a.auth("read:statuses", true))
	r.add(http.MethodGet, "/api/v1/timelines/public", a.publicTimeline, read)
	r.add(http.MethodGet, "/api/v1/timelines/tag/:hashtag", a.tagTimeline, read)
}

// homeTimeline answers the caller's home timeline.
func (a *API) homeTimeline(c echo.Context) error {
	uid := viewer(c)
	return a.timeline(c, func(ctx context.Context, q store.PageQuery) (store.Page[store.Post], error) {
		return a.st.HomeTimeline(ctx, uid, q)
	}, keepAll)
}

// publicTimeline answers everyone's posts. Every account is local, so
// local is the same list, and remote=true an empty one. Reblogs are left
// out, as Mastodon's PublicFeed leaves them (the service's own public
// page shows reposts).
func (a *API) publicTimeline(c echo.Context) error {
	if isTrue(c.QueryParam("remote")) {
		return c.JSON(http.StatusOK, []Status{})
	}
	return a.timeline(c, a.st.PublicTimeline, keep{media: isTrue(c.QueryParam("only_media")), noReblogs: true})
}

// tagTimeline answers the posts and replies (comments) carrying the tag in
// the path, without reblogs, as Mastodon's TagFeed.
func (a *API) tagTimeline(c echo.Context) error {
	tag := c.ParamValues()[0]
	return a.timeline(c, func(ctx context.Context, q store.PageQuery) (store.Page[store.Post], error) {
		return a.st.TagPosts(ctx, tag, q)
	}, keep{media: isTrue(c.QueryParam("only_media")), noReblogs: true})
}

// keep says which statuses of a timeline's page are answered: media,
// those with images alone; noReblogs, no reblogs (reposts).
type keep struct{ media, noReblogs bool }

// keepAll answers every status of a page.
var keepAll = keep{}

// timeline answers a page of list as Statuses, with the Link header of
// the pages around it; k leaves some out (the links page on from what was
// read, so that none is skipped).
func (a *API) timeline(c echo.Context, list postLister, k keep) error {
	p, err := pageOf(c)
	if err != nil {
		return err
	}
	posts, more, top, err := readPage(c.Request().Context(), list, p)
	if err != nil {
		return err
	}
	if len(posts) > 0 || top > 0 {
		next, prev := "", idString(top)
		if more && len(posts) > 0 {
			next = idString(posts[len(posts)-1].ID)
		}
		links(c, next, prev)
	}
	posts = withoutFiltered(posts)
	if k.media {
		posts = withMedia(posts)
	}
	if k.noReblogs {
		posts = withoutReblogs(posts)
	}
	out, err := a.statusesOf(c, posts)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// readPage reads the page p asks of list, newest first, tells whether
// older posts may follow it, and the id its prev link starts from (0 for
// none: an empty page). Without min_id, that is the store's page. With it,
// the page is the posts right above min_id, however far below the newest:
// the store reads upwards from min_id (store.PageQuery.Ascending).
func readPage(ctx context.Context, list postLister, p page) ([]store.Post, bool, int64, error) {
	if p.MinID != 0 {
		posts, top, err := readPageUp(p.PageQuery, func(q store.PageQuery) (store.Page[store.Post], error) { return list(ctx, q) })
		// Older posts lie below min_id, where the next page goes.
		return posts, true, top, err
	}
	pg, err := list(ctx, p.PageQuery)
	if err != nil || len(pg.Items) == 0 {
		return nil, false, 0, err
	}
	return pg.Items, pg.NextCursor != nil, pg.Items[0].ID, nil
}

// withoutReblogs leaves the reposts out of posts.
func withoutReblogs(posts []store.Post) []store.Post {
	out := posts[:0:0]
	for _, p := range posts {
		if p.RepostOf == nil {
			out = append(out, p)
		}
	}
	return out
}

// withMedia keeps the posts (or reposts of posts) with images.
func withMedia(posts []store.Post) []store.Post {
	out := posts[:0:0]
	for _, p := range posts {
		if len(p.Media) > 0 || p.RepostOf != nil && len(p.RepostOf.Media) > 0 {
			out = append(out, p)
		}
	}
	return out
}

// withoutFiltered leaves out the posts the reader's word filters fold on
// its home page (store.Post.Filtered): this API's filters hide them, as
// the v1 filters of Mastodon's clients expect.
func withoutFiltered(posts []store.Post) []store.Post {
	out := posts[:0:0]
	for _, p := range posts {
		if !p.Filtered {
			out = append(out, p)
		}
	}
	return out
}
