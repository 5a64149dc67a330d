package mastodon

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// statusesOf maps posts as the request's reader sees them, with what the
// store's Post does not carry: which of them the reader reposted (one
// round trip for the page) and whom the replies among them answer. A
// repost whose original is gone is left out, as Mastodon drops reblogs of
// deleted statuses.
func (a *API) statusesOf(c echo.Context, posts []store.Post) ([]Status, error) {
	m, err := a.mapperFor(c, posts)
	if err != nil {
		return nil, err
	}
	out := make([]Status, 0, len(posts))
	for _, p := range posts {
		if p.RepostOf != nil && p.RepostOf.Deleted {
			continue
		}
		out = append(out, m.status(p))
	}
	return out, nil
}

// statusOf is statusesOf for one post.
func (a *API) statusOf(c echo.Context, p store.Post) (Status, error) {
	m, err := a.mapperFor(c, []store.Post{p})
	if err != nil {
		return Status{}, err
	}
	return m.status(p), nil
}

// mapperFor is the request's mapper, knowing the reposts and replied-to
// authors of posts.
func (a *API) mapperFor(c echo.Context, posts []store.Post) (mapper, error) {
	m := mapperOf(c)
	ctx := c.Request().Context()
	var mids []int64
	parents := make(map[int64]int64)
	for _, p := range posts {
		mids = append(mids, p.ID)
		if p.RepostOf != nil {
			mids = append(mids, p.RepostOf.ID)
		}
		if p.ParentID != nil {
			parents[*p.ParentID] = 0
		}
	}
	if m.viewer != 0 && len(mids) > 0 {
		reposts, err := a.st.RepostsBy(ctx, m.viewer, mids)
		if err != nil {
			return m, fmt.Errorf("mastodon: read the reader's reposts: %w", err)
		}
		m.reposted = make(map[int64]bool)
		for i, r := range reposts {
			if r != 0 {
				m.reposted[mids[i]] = true
			}
		}
	}
	if len(parents) > 0 {
		m.replyTo = make(map[int64]int64, len(parents))
		for mid := range parents {
			// A parent the reader may not see (or gone) answers no one.
			if p, err := a.st.Post(ctx, mid, m.viewer); err == nil {
				m.replyTo[mid] = p.Author.ID
			}
		}
	}
	return m, nil
}

// statusID reads the status id of the path (its first parameter, so that
// it serves shared paths too).
func statusID(c echo.Context) (int64, error) {
	vs := c.ParamValues()
	if len(vs) == 0 {
		return 0, store.ErrPostNotFound
	}
	n, err := strconv.ParseInt(vs[0], 10, 64)
	if err != nil || n <= 0 {
		return 0, store.ErrPostNotFound
	}
	return n, nil
}

// pathPost reads the post of the path's status id as the caller sees it.
func (a *API) pathPost(c echo.Context) (store.Post, error) {
	mid, err := statusID(c)
	if err != nil {
		return store.Post{}, err
	}
	return a.st.Post(c.Request().Context(), mid, viewer(c))
}

// formOf reads a request's parameters as Mastodon takes them: the query,
// and a body that is a form, multipart or a JSON object. A name ending in
// "[]" (media_ids[]) is read without it; a JSON array gives one value per
// element, a JSON number or boolean its text.
func formOf(c echo.Context) (url.Values, error) {
	out := url.Values{}
	add := func(k string, vs ...string) {
		k = strings.TrimSuffix(k, "[]")
		out[k] = append(out[k], vs...)
	}
	ct, _, _ := mime.ParseMediaType(c.Request().Header.Get("Content-Type"))
	if ct == echo.MIMEApplicationJSON {
		for k, vs := range c.QueryParams() {
			add(k, vs...)
		}
		var body map[string]any
		dec := json.NewDecoder(c.Request().Body)
		dec.UseNumber()                                                      // ids past 2^53 stay whole
		if err := dec.Decode(&body); err != nil && !errors.Is(err, io.EOF) { // no body: no parameters
			return nil, store.Invalid(store.CodeInvalidJSON, "request body must be a JSON object")
		}
		for k, v := range body {
			if list, ok := v.([]any); ok {
				add(k) // an empty list is there, with no values
				for _, e := range list {
					add(k, jsonText(e))
				}
			} else if v != nil {
				add(k, jsonText(v))
			}
		}
		return out, nil
	}
	form, err := c.FormParams() // the query as well
	if err != nil {
		return nil, store.Invalid(store.CodeInvalidBody, "could not read the request's parameters")
	}
	for k, vs := range form {
		add(k, vs...)
	}
	return out, nil
}

// jsonText is a JSON scalar as a form would carry it.
func jsonText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	case bool:
		return strconv.FormatBool(v)
	default:
		b, _ := json.Marshal(v)
		return string(b)
	}
}

// isTrue tells whether a parameter says yes, as Rails reads booleans.
func isTrue(s string) bool {
	switch strings.ToLower(s) {
	case "1", "true", "t", "on", "yes":
		return true
	}
	return false
}

// idsOf reads a list of ids, such as media_ids.
func idsOf(vs []string, name string) ([]int64, error) {
	ids := make([]int64, 0, len(vs))
	for _, v := range vs {
		if v == "" { // "media_ids[]=": a form's empty list
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return nil, store.Invalid(store.CodeInvalidField, name+" must hold ids")
		}
		ids = append(ids, n)
	}
	return ids, nil
}

// maxStatusesByID is how many ids one GET /api/v1/statuses may ask for.
const maxStatusesByID = 20

// statusesByID answers GET /api/v1/statuses?id[]=…: the statuses of those
// ids that the caller may see, in the order asked, each once; an id that
// is not a status the caller may see is left out, as Mastodon does.
func (a *API) statusesByID(c echo.Context) error {
	q := c.QueryParams()
	raw := slices.Concat(q["id[]"], q["id"])
	if len(raw) > maxStatusesByID {
		return store.Invalid(store.CodeInvalidField, "at most "+strconv.Itoa(maxStatusesByID)+" ids")
	}
	ctx, uid := c.Request().Context(), viewer(c)
	var posts []store.Post
	seen := make(map[int64]bool, len(raw))
	for _, v := range raw {
		mid, err := strconv.ParseInt(v, 10, 64)
		if err != nil || mid <= 0 || seen[mid] {
			continue
		}
		seen[mid] = true
		p, err := a.st.Post(ctx, mid, uid)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		posts = append(posts, p)
	}
	out := make([]Status, 0, len(posts))
	m, err := a.mapperFor(c, posts)
	if err != nil {
		return err
	}
	for _, p := range posts {
		out = append(out, m.status(p))
	}
	return c.JSON(http.StatusOK, out)
}
