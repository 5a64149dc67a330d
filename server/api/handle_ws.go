package api

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/gorilla/websocket"
	"github.com/labstack/echo/v4"

	"microblog/hub"
	"microblog/store"
)

// handleWS upgrades GET /ws to the live feed. The caller is authenticated
// before the upgrade (the session cookie, ?token= or the Authorization
// header), so a bad token is a plain 401, a browser page from a foreign
// origin a 403, and a user or client address over its share of sockets a 429.
func handleWS(h *hub.Hub, st store.Accounts, allowed []string, gate SocketGate) echo.HandlerFunc {
	up := hub.NewUpgrader()
	// Checked below, before authenticating, to answer with the API's error body.
	up.CheckOrigin = func(*http.Request) bool { return true }
	return func(c echo.Context) error {
		r := c.Request()
		if !originAllowed(c, allowed) {
			return store.NewError(store.ErrForbidden, store.CodeCrossOrigin, "this origin may not open the live feed")
		}
		token := c.QueryParam("token")
		if token == "" {
			token, _ = authToken(c)
		}
		if token == "" {
			return store.ErrNotLoggedIn
		}
		uid, tokenHash, err := st.Authenticate(r.Context(), token)
		if err != nil {
			return err
		}
		cl := hub.Client{UserID: uid, TokenHash: tokenHash}
		if s := c.QueryParam("after"); s != "" {
			q, err := store.ParsePageQuery("", "", s)
			if err != nil {
				return err
			}
			cl.After, cl.HasAfter = q.After, true
		}
		if s := c.QueryParam("seen"); s != "" {
			if cl.Seen, err = parseSeen(s); err != nil {
				return err
			}
		}
		if s := c.QueryParam("messages_after"); s != "" {
			q, err := store.ParsePageQuery("", "", s)
			if err != nil {
				return err
			}
			cl.DMsAfter, cl.HasDMsAfter = q.After, true
		}
		if !websocket.IsWebSocketUpgrade(r) {
			return store.Invalid(store.CodeNotWebSocket, "GET /ws must be a WebSocket upgrade")
		}
		release, err := gate(uid, c.RealIP())
		if err != nil {
			return err
		}
		ws, err := up.Upgrade(c.Response(), r, nil)
		if err != nil {
			release()
			return nil // the upgrader has answered the client
		}
		// The hub runs the connection from here, and this request ends: an
		// open socket keeps no HTTP request, buffers or handler goroutine.
		h.Start(ws, cl, release)
		return nil
	}
}

// parseSeen reads ?seen=, the comma-separated ids of the posts above
// ?after= that a resuming client holds (store.ResumePoint): at most
// store.MaxSeen of them.
func parseSeen(s string) ([]int64, error) {
	parts := strings.Split(s, ",")
	if len(parts) > store.MaxSeen {
		return nil, store.Invalid(store.CodeInvalidSeen, fmt.Sprintf("seen lists at most %d post ids", store.MaxSeen))
	}
	ids := make([]int64, len(parts))
	for i, p := range parts {
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil || n <= 0 {
			return nil, store.Invalid(store.CodeInvalidSeen, "seen must be post ids separated by commas")
		}
		ids[i] = n
	}
	return ids, nil
}
