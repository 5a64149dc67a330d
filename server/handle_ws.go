package main

import (
	"net/http"
	"strconv"
	"sync"

	"github.com/gorilla/websocket"
	"github.com/labstack/echo/v4"

	"microblog/hub"
	"microblog/store"
)

// wsWriteBuffers is shared by every connection: a buffer is held only while
// a frame is being written, which keeps idle connections small.
var wsWriteBuffers sync.Pool

// handleWS upgrades GET /ws to the live feed. The caller is authenticated
// before the upgrade (the auth cookie, ?token= or the Authorization header),
// so a bad token is a plain 401, and a browser page from a foreign origin a 403.
func handleWS(h *hub.Hub, st *store.Store, allowed []string) echo.HandlerFunc {
	up := websocket.Upgrader{
		ReadBufferSize:  1024,
		WriteBufferSize: 1024,
		WriteBufferPool: &wsWriteBuffers,
		// Checked below, before authenticating, to answer with the API's error body.
		CheckOrigin: func(*http.Request) bool { return true },
	}
	return func(c echo.Context) error {
		r := c.Request()
		if !originAllowed(r, allowed) {
			return newAPIError(http.StatusForbidden, "cross_origin", "this origin may not open the live feed")
		}
		token := c.QueryParam("token")
		if token == "" {
			token, _ = authToken(c)
		}
		if token == "" {
			return newAPIError(http.StatusUnauthorized, "unauthorized", "not logged in")
		}
		uid, tokenHash, err := st.Authenticate(r.Context(), token)
		if err != nil {
			return err
		}
		cl := hub.Client{UserID: uid, TokenHash: tokenHash}
		if s := c.QueryParam("after"); s != "" {
			if cl.After, err = strconv.ParseInt(s, 10, 64); err != nil || cl.After < 0 {
				return newAPIError(http.StatusBadRequest, "invalid_after", "after must be a message id")
			}
			cl.HasAfter = true
		}
		if !websocket.IsWebSocketUpgrade(r) {
			return newAPIError(http.StatusBadRequest, "not_websocket", "GET /ws must be a WebSocket upgrade")
		}
		ws, err := up.Upgrade(c.Response(), r, nil)
		if err != nil {
			return nil // the upgrader has answered the client
		}
		h.Serve(ws, cl)
		return nil
	}
}
