package federation

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// wantsActivity tells whether the client asked for ActivityStreams
// (application/activity+json, or application/ld+json with the
// ActivityStreams profile, or any ld+json) rather than a page.
func wantsActivity(c echo.Context) bool {
	a := strings.ToLower(c.Request().Header.Get("Accept"))
	return strings.Contains(a, "application/activity+json") || strings.Contains(a, "application/ld+json")
}

// serve answers doc as ActivityStreams, or sends a browser to page (302).
func serve(c echo.Context, page string, doc any) error {
	if !wantsActivity(c) {
		return c.Redirect(http.StatusFound, page)
	}
	c.Response().Header().Set("Vary", "Accept")
	c.Response().Header().Set(echo.HeaderContentType, ContentType)
	return c.JSON(http.StatusOK, doc)
}

// errNotFound is the answer for whatever is not served: unknown, deleted
// (a 410 would tell a deleted post from one hidden from the fetcher) or
// not the fetcher's to see.
var errNotFound = store.NewError(store.ErrNotFound, store.CodeNotFound, "not found")

// pathID reads a positive id path parameter.
func pathID(c echo.Context, name string) (int64, bool) {
	n, err := strconv.ParseInt(c.Param(name), 10, 64)
	return n, err == nil && n > 0
}

// asHTTP turns a store's not-found into a 404 and passes the rest on.
func asHTTP(err error) error {
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrForbidden) {
		return errNotFound
	}
	return err
}

// badRequest is a request federation cannot read.
func badRequest(msg string) error { return store.Invalid(store.CodeBadRequest, msg) }
