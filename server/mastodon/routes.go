package mastodon

import (
	"maps"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// router registers the API's routes. A route whose method and path the
// native API serves too is registered once, answering as whichever API
// the request speaks (Speaks).
type router struct {
	e       *echo.Echo
	a       *API
	natives map[string]echo.HandlerFunc
}

// add registers a route; mw run before h, after the API's own marking.
func (r *router) add(method, path string, h echo.HandlerFunc, mw ...echo.MiddlewareFunc) {
	h = chain(h, mw...)
	a := r.a
	own := func(c echo.Context) error {
		c.Set(CtxSpeaking, true)
		c.Set(ctxAPI, a)
		return h(c)
	}
	if native, ok := r.natives[method+" "+path]; ok {
		delete(r.natives, method+" "+path)
		r.e.Add(method, path, func(c echo.Context) error {
			if Speaks(c) {
				return own(c)
			}
			return native(c)
		})
		return
	}
	r.e.Add(method, path, own)
}

// chain wraps h in mw, the first outermost, as Echo does a route's.
func chain(h echo.HandlerFunc, mw ...echo.MiddlewareFunc) echo.HandlerFunc {
	for i := len(mw) - 1; i >= 0; i-- {
		h = mw[i](h)
	}
	return h
}

// Routes registers the API on e, beside the native API: natives holds the
// native handlers (with their middleware) of the paths both serve, by
// "METHOD /path" as registered.
func (a *API) Routes(e *echo.Echo, natives map[string]echo.HandlerFunc) {
	r := &router{e: e, a: a, natives: maps.Clone(natives)}
	a.oauthRoutes(r)
	a.instanceRoutes(r)
	a.wellKnownRoutes(r)
	a.accountRoutes(r)
	a.statusRoutes(r)
	a.timelineRoutes(r)
	a.notificationRoutes(r)
	a.searchRoutes(r)
	a.conversationRoutes(r)
	a.miscRoutes(r)
	a.listRoutes(r)
	a.tagRoutes(r)
	a.pollRoutes(r)
	for route, native := range r.natives { // shared paths the API does not serve yet
		method, path, _ := strings.Cut(route, " ")
		e.Add(method, path, native)
	}
}

// SharedPaths are the routes both APIs serve, as the native API registers
// them. A Mastodon handler of such a path reads its path parameter by
// position (c.ParamValues()), as the native name is the route's.
var SharedPaths = []string{
	http.MethodGet + " /api/v1/timelines/home",
	http.MethodGet + " /api/v1/timelines/public",
	http.MethodGet + " /api/v1/notifications",
	http.MethodGet + " /api/v1/conversations",
	http.MethodPost + " /api/v1/conversations/:username/read",
	http.MethodPost + " /api/v1/conversations/:username/unread",
	http.MethodPost + " /api/v1/reports",
	http.MethodGet + " /api/v1/trends/tags",
	http.MethodGet + " /api/v1/tags/:tag",
	http.MethodPost + " /api/v1/media",
	http.MethodGet + " /api/v1/polls/:id",
	http.MethodPost + " /api/v1/polls/:id/votes",
}
