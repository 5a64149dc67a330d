package mastodon

import (
	"net/http"
	"strings"

	"github.com/gorilla/websocket"
	"github.com/labstack/echo/v4"

	"microblog/hub"
	"microblog/store"
)

// SocketGate counts one more live socket of user uid (0: an app's token)
// from the client address addr, or refuses it (the server's socket caps,
// shared with the native live feed); release gives its place back.
type SocketGate func(uid int64, addr string) (release func(), err error)

// StreamingRoutes registers the streaming API once the live hub is up:
// GET /api/v1/streaming, a WebSocket that speaks Mastodon's streaming
// protocol over the hub's fan-out (streaming_format.go), and its health
// check. gate caps the sockets as the native feed's are.
func (a *API) StreamingRoutes(e *echo.Echo, h *hub.Hub, gate SocketGate) {
	a.hub = h
	e.GET("/api/v1/streaming", a.streaming(gate), speaking)
	e.GET("/api/v1/streaming/health", func(c echo.Context) error {
		return c.String(http.StatusOK, "OK")
	})
	for _, path := range eventStreamPaths {
		e.GET("/api/v1/streaming/"+path, a.eventStream(gate), speaking)
	}
}

// eventStreamPaths are the streams served as server-sent events, one
// stream per request, at /api/v1/streaming/<path>: a path is the stream's
// name with its colons as slashes (user/notification is user:notification).
var eventStreamPaths = []string{
	"user", "user/notification", "public", "public/local", "public/remote",
	"hashtag", "hashtag/local", "list", "direct",
}

// eventStream serves GET /api/v1/streaming/<stream> as server-sent events
// (text/event-stream), for clients that read a stream over plain HTTP:
// each event is "event: <name>" and "data: <payload>" (the payload as the
// WebSocket's, unquoted), a comment line keeps the stream alive, and
// ?only_media=true takes a public stream's :media kind. The token, the
// scopes, the socket caps and the events are the WebSocket's.
func (a *API) eventStream(gate SocketGate) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		name := strings.ReplaceAll(strings.TrimPrefix(c.Path(), "/api/v1/streaming/"), "/", ":")
		if strings.HasPrefix(name, "public") && flag(c.QueryParam("only_media")) {
			name += ":media"
		}
		tok, _ := bearer(r)
		if tok == "" {
			return store.NewError(store.ErrUnauthorized, store.CodeUnauthorized, "Missing access token")
		}
		who, err := a.resolve(r.Context(), tok)
		if err != nil {
			return err
		}
		f := &streamFormat{m: mapper{origin: a.origin(c)}, uid: who.UID, scopes: who.Scopes, sse: true}
		f.members = a.listMembers(who.UID)
		s := newStream(name, c.QueryParam("tag"), c.QueryParam("list"))
		if err := f.check(s); err != nil {
			return err
		}
		if err := f.loadList(s); err != nil {
			return err
		}
		f.add(s)
		f.listening = s.public()
		release, err := gate(who.UID, c.RealIP())
		if err != nil {
			return err
		}
		cl := hub.Client{UserID: who.UID, TokenHash: who.TokenHash, Format: f, Public: s.public()}
		if err := a.markHome(c, &cl, s); err != nil {
			return err
		}
		if err := a.hub.StartEvents(c.Response(), cl, release); err != nil {
			release()
			return err
		}
		return nil
	}
}

// streaming upgrades GET /api/v1/streaming. The token comes as for any
// call (Authorization, ?access_token=) or, as browsers cannot set
// headers on a WebSocket, as its Sec-WebSocket-Protocol, which the
// handshake then echoes, as Mastodon does (masto.js sends it so). Any
// token will do (an app's gets the public streams only); ?stream= (and
// ?tag=) subscribes a first stream. Unlike /ws, any origin may connect:
// the token is no cookie a foreign page could ride on.
func (a *API) streaming(gate SocketGate) echo.HandlerFunc {
	up := hub.NewUpgrader()
	up.CheckOrigin = func(*http.Request) bool { return true }
	return func(c echo.Context) error {
		r := c.Request()
		tok, ok := bearer(r)
		var protocol http.Header
		if !ok {
			if p := websocket.Subprotocols(r); len(p) > 0 {
				tok = p[0]
				protocol = http.Header{"Sec-Websocket-Protocol": {tok}}
			}
		}
		if tok == "" {
			return store.NewError(store.ErrUnauthorized, store.CodeUnauthorized, "Missing access token")
		}
		who, err := a.resolve(r.Context(), tok)
		if err != nil {
			return err
		}
		f := &streamFormat{m: mapper{origin: a.origin(c)}, uid: who.UID, scopes: who.Scopes}
		f.members = a.listMembers(who.UID)
		cl := hub.Client{UserID: who.UID, TokenHash: who.TokenHash, Format: f}
		if name := c.QueryParam("stream"); name != "" {
			s := newStream(name, c.QueryParam("tag"), c.QueryParam("list"))
			if err := f.check(s); err != nil {
				return err
			}
			if err := f.loadList(s); err != nil {
				return err
			}
			f.add(s)
			cl.Public, f.listening = s.public(), s.public()
			if err := a.markHome(c, &cl, s); err != nil {
				return err
			}
		}
		if !websocket.IsWebSocketUpgrade(r) {
			return store.Invalid(store.CodeNotWebSocket, "GET /api/v1/streaming must be a WebSocket upgrade")
		}
		release, err := gate(who.UID, c.RealIP())
		if err != nil {
			return err
		}
		ws, err := up.Upgrade(c.Response(), r, protocol)
		if err != nil {
			release()
			return nil // the upgrader has answered the client
		}
		// As for /ws, the hub runs the connection and this request ends.
		a.hub.Start(ws, cl, release)
		return nil
	}
}

// markHome has a user stream s open from the newest post of the user's
// home timeline as the request found it (hub.HomeMark), so that what is
// posted while the stream opens reaches it. A stream subscribed to later
// over the WebSocket starts when it is subscribed, as in Mastodon.
func (a *API) markHome(c echo.Context, cl *hub.Client, s stream) error {
	if s.name != "user" || cl.UserID == 0 {
		return nil
	}
	mark, err := a.hub.HomeMark(c.Request().Context(), cl.UserID)
	if err != nil {
		return err
	}
	cl.After, cl.HasAfter = mark, true
	return nil
}

// origin is the service's origin as request c reached it, for the URLs
// the streamed entities carry.
func (a *API) origin(c echo.Context) string {
	c.Set(ctxAPI, a)
	return mapperOf(c).origin
}
