package api

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// notificationKinds are the kinds ?types= may name.
var notificationKinds = map[string]bool{
	store.NotifyComment: true, store.NotifyReply: true, store.NotifyRepost: true, store.NotifyLike: true,
	store.NotifyFollow: true, store.NotifyMention: true, store.NotifyFollowRequest: true, store.NotifyFollowAccepted: true,
}

// notificationTypes reads ?types=: kinds, comma-separated or repeated
// (nil: every kind). An unknown kind is 400 invalid_query.
func notificationTypes(c echo.Context) (map[string]bool, error) {
	var kinds map[string]bool
	for _, v := range c.QueryParams()["types"] {
		for _, k := range strings.Split(v, ",") {
			if k = strings.TrimSpace(k); k == "" {
				continue
			}
			if !notificationKinds[k] {
				return nil, store.Invalid(store.CodeInvalidQuery, "types: unknown notification kind "+k)
			}
			if kinds == nil {
				kinds = map[string]bool{}
			}
			kinds[k] = true
		}
	}
	return kinds, nil
}

// handleNotifications lists the caller's notifications, newest first, of
// the kinds ?types= names (all when absent). A filtered page reads the
// store's pages on until it is full, so that a tab's page is as long as
// the others: the store keeps a user's newest 200 only, so this is at most
// a few reads.
func handleNotifications(st store.Social) echo.HandlerFunc {
	return func(c echo.Context) error {
		q, err := pageQuery(c)
		if err != nil {
			return err
		}
		kinds, err := notificationTypes(c)
		if err != nil {
			return err
		}
		ctx, uid := c.Request().Context(), viewer(c)
		if kinds == nil {
			page, err := st.Notifications(ctx, uid, q)
			if err != nil {
				return err
			}
			return c.JSON(http.StatusOK, page)
		}
		want := q.Size()
		out := store.Page[store.Notification]{Items: []store.Notification{}}
		read := q
		read.Limit = store.MaxLimit
		for {
			pg, err := st.Notifications(ctx, uid, read)
			if err != nil {
				return err
			}
			for _, n := range pg.Items {
				if !kinds[n.Kind] {
					continue
				}
				out.Items = append(out.Items, n)
				if len(out.Items) == want {
					// More may follow: the next page goes on below this one.
					out.NextCursor = store.NextCursor(store.Cursor{Score: n.ID})
					return c.JSON(http.StatusOK, out)
				}
			}
			if pg.NextCursor == nil {
				return c.JSON(http.StatusOK, out)
			}
			if read.Cursor, err = store.DecodeCursor(*pg.NextCursor); err != nil {
				return err
			}
		}
	}
}
