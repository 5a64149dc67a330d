package mastodon

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// maxRounds bounds the store pages one request of an account's statuses
// reads when its filters (exclude_replies, exclude_reblogs, only_media)
// leave pages short: past it, a page ends early with a next link where it
// stopped. A min_id page reads upwards from min_id (collectUp, minid.go).
const maxRounds = 10

// accountStatuses answers GET /api/v1/accounts/:id/statuses: the
// account's posts as the caller may see them, newest first, or its pinned
// ones (pinned=true).
func (a *API) accountStatuses(c echo.Context) error {
	id, err := pathID(c)
	if err != nil {
		return err
	}
	ctx, q := c.Request().Context(), c.QueryParams()
	if _, err := a.userOf(ctx, id, viewer(c)); err != nil {
		return err
	}
	m := mapperOf(c)
	out := []Status{}
	if flag(q.Get("pinned")) {
		if q.Has("max_id") || q.Has("min_id") || q.Has("since_id") {
			return c.JSON(http.StatusOK, out) // the pins are one page
		}
		pins, err := a.st.Pinned(ctx, id, viewer(c))
		if err != nil {
			return recordNotFound(err)
		}
		for _, p := range pins {
			out = append(out, m.status(p))
		}
		return c.JSON(http.StatusOK, out)
	}
	p, err := pageOf(c)
	if err != nil {
		return err
	}
	noReplies, noReblogs, onlyMedia := flag(q.Get("exclude_replies")), flag(q.Get("exclude_reblogs")), flag(q.Get("only_media"))
	keep := func(s store.Post) bool {
		return !(noReplies && s.ParentID != nil) && !(noReblogs && s.RepostOf != nil) && !(onlyMedia && len(s.Media) == 0)
	}
	fetch := func(pq store.PageQuery) (store.Page[store.Post], error) { return a.st.UserPosts(ctx, id, pq) }
	if !noReplies { // replies are statuses too, as in Mastodon
		fetch = func(pq store.PageQuery) (store.Page[store.Post], error) {
			return mergedPage(pq, func(pq store.PageQuery) (store.Page[store.Post], error) { return a.st.UserPosts(ctx, id, pq) },
				func(pq store.PageQuery) (store.Page[store.Post], error) { return a.st.UserComments(ctx, id, pq) })
		}
	}
	var posts []store.Post
	var next, prev string
	if p.MinID != 0 { // the page right above min_id, however far below the newest
		var top int64
		posts, top, err = collectUp(p.PageQuery, keep, fetch)
		if top > 0 {
			prev = strconv.FormatInt(top, 10)
		}
		if len(posts) > 0 { // older posts lie below min_id
			next = strconv.FormatInt(posts[len(posts)-1].ID, 10)
		}
	} else if posts, next, err = collect(p, keep, fetch); len(posts) > 0 {
		prev = strconv.FormatInt(posts[0].ID, 10)
	}
	if err != nil {
		return recordNotFound(err)
	}
	if m, err = a.mapperFor(c, posts); err != nil { // whom the replies answer, what the reader reblogged
		return err
	}
	for _, post := range posts {
		out = append(out, m.status(post))
	}
	if next != "" || prev != "" {
		links(c, next, prev)
	}
	return c.JSON(http.StatusOK, out)
}

// collect reads the page p asks of a list in message-id order (fetch),
// newest first, keeping the posts keep takes: the newest below max_id (and
// above since_id). next is the max_id of the page below, "" when there is
// none. (A min_id page is collectUp's.)
func collect(p page, keep func(store.Post) bool, fetch func(store.PageQuery) (store.Page[store.Post], error)) ([]store.Post, string, error) {
	q := p.PageQuery
	var out []store.Post
	for round := 0; round < maxRounds; round++ {
		page, err := fetch(q)
		if err != nil {
			return nil, "", err
		}
		for i, post := range page.Items {
			if !keep(post) {
				continue
			}
			out = append(out, post)
			if len(out) == p.Limit {
				if i < len(page.Items)-1 || page.NextCursor != nil {
					return out, strconv.FormatInt(post.ID, 10), nil
				}
				return out, "", nil
			}
		}
		if page.NextCursor == nil {
			break
		}
		if q.Cursor, err = store.DecodeCursor(*page.NextCursor); err != nil {
			return nil, "", err
		}
		if round == maxRounds-1 {
			return out, strconv.FormatInt(q.Cursor.Score, 10), nil
		}
	}
	return out, "", nil
}

// flag reads a boolean parameter as Mastodon (Rails) does.
func flag(s string) bool {
	switch s {
	case "1", "true", "True", "TRUE", "t", "on", "yes":
		return true
	}
	return false
}

// mergedPage is the page q asks of the union of lists a and b, each paged
// newest first by message id (store.Cursor's Score): the newest q.Size()
// of both pages. A list that has more stopped reading at its cursor, and
// nothing of the other list below that is taken, for the next page goes
// on below the last id taken in both.
//
// An ascending query is mergedPageUp's.
func mergedPage(q store.PageQuery, a, b func(store.PageQuery) (store.Page[store.Post], error)) (store.Page[store.Post], error) {
	if q.Ascending {
		return mergedPageUp(q, a, b)
	}
	pa, err := a(q)
	if err != nil {
		return pa, err
	}
	pb, err := b(q)
	if err != nil {
		return pb, err
	}
	// Below floor one of the lists is unread (0: both are read to their end).
	floor := max(scannedTo(pa), scannedTo(pb))
	size := q.Size()
	out := store.Page[store.Post]{Items: make([]store.Post, 0, size)}
	i, j := 0, 0
	for len(out.Items) < size {
		fromA := i < len(pa.Items) && (j == len(pb.Items) || pa.Items[i].ID > pb.Items[j].ID)
		var next store.Post
		switch {
		case fromA:
			next = pa.Items[i]
		case j < len(pb.Items):
			next = pb.Items[j]
		}
		if next.ID == 0 || next.ID < floor {
			break
		}
		out.Items = append(out.Items, next)
		if fromA {
			i++
		} else {
			j++
		}
	}
	after := max(q.After, q.Cursor.After)
	switch {
	case len(out.Items) == size:
		out.NextCursor = store.NextCursor(store.Cursor{Score: out.Items[size-1].ID, After: after})
	case floor > 0:
		out.NextCursor = store.NextCursor(store.Cursor{Score: floor, After: after})
	}
	return out, nil
}

// scannedTo is the id a page of a list read down to, the last it holds or
// skipped (its cursor's), when the list has more below it; 0 when it has
// no more.
func scannedTo(p store.Page[store.Post]) int64 {
	if p.NextCursor == nil {
		return 0
	}
	c, err := store.DecodeCursor(*p.NextCursor)
	if err != nil {
		return 0
	}
	return c.Score
}
