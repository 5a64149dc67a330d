package mastodon

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"

	"microblog/store"
	"microblog/store/redisdb"
	"microblog/store/storetest"
)

// TestAuthEnforcesScopesAndUsers: a.auth refuses a token without the
// route's scope (403), an app's own token where a user is required (422,
// as Mastodon answers),
// a token no grant backs and an ended session (401), over a real store.
func TestAuthEnforcesScopesAndUsers(t *testing.T) {
	ctx := context.Background()
	st := redisdb.New(storetest.Start(t).Client(), redisdb.Options{BcryptCost: 4})
	a := New(Deps{Store: st})
	u, native, err := st.Register(ctx, "alice", "a good password")
	if err != nil {
		t.Fatal(err)
	}
	grant := func(raw string, uid int64, scopes ...string) string {
		g := grantRecord{ID: "req-" + raw[:8], ClientID: "app", UID: uid, Granted: scopes}
		if err := a.oauth.storage.put(ctx, store.OAuthToken, store.TokenHash(raw), g, tokenTTL); err != nil {
			t.Fatal(err)
		}
		return TokenPrefix + raw
	}
	open := func(uid int64) string {
		raw, err := st.OpenOAuthSession(ctx, uid)
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	readOnly := grant(open(u.ID), u.ID, "read")
	_, follower, _ := st.Register(ctx, "bob", "a good password")
	bobUID, _, _ := st.Authenticate(ctx, follower)
	follow := grant(open(bobUID), bobUID, "read", "follow")
	app := grant(appTokenPrefix+"secret-app-token", 0, "read", "write")

	e := echo.New()
	e.HTTPErrorHandler = func(err error, c echo.Context) {
		status := http.StatusInternalServerError
		switch {
		case errors.Is(err, store.ErrUnauthorized):
			status = http.StatusUnauthorized
		case errors.Is(err, store.ErrForbidden):
			status = http.StatusForbidden
		case errors.Is(err, store.ErrInvalid):
			status = http.StatusUnprocessableEntity
		}
		c.NoContent(status)
	}
	ok := func(c echo.Context) error { return c.String(http.StatusOK, who(c).ClientID) }
	e.GET("/statuses", ok, a.auth("read:statuses", true))
	e.POST("/statuses", ok, a.auth("write:statuses", true))
	e.POST("/follows", ok, a.auth("write:follows", true))
	e.GET("/app", ok, a.auth("read", false))
	status := func(method, path, token string) int {
		req := httptest.NewRequest(method, path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		return rec.Code
	}
	for _, c := range []struct {
		method, path, token string
		want                int
	}{
		{"GET", "/statuses", readOnly, 200},
		{"POST", "/statuses", readOnly, 403},
		{"POST", "/follows", readOnly, 403},
		{"POST", "/follows", follow, 200},
		{"POST", "/statuses", follow, 403},
		{"GET", "/statuses", app, 422},
		{"GET", "/app", app, 200},
		{"GET", "/statuses", "", 401},
		{"GET", "/statuses", native, 401},                                 // a native token is no access token
		{"GET", "/statuses", TokenPrefix + "1.not-a-session", 401},        // no such session
		{"GET", "/app", TokenPrefix + appTokenPrefix + "never-made", 401}, // no such grant
	} {
		if got := status(c.method, c.path, c.token); got != c.want {
			t.Errorf("%s %s with %.12q: %d, want %d", c.method, c.path, c.token, got, c.want)
		}
	}

	// A session with no grant beside it (a native login's) is no access token.
	if got := status("GET", "/statuses", TokenPrefix+follower+"x"); got != 401 {
		t.Errorf("a mangled token: %d", got)
	}
	_, other, _ := st.Login(ctx, "alice", "a good password", store.Attempt{})
	if got := status("GET", "/statuses", TokenPrefix+other); got != 401 {
		t.Errorf("a native session as an access token: %d, want 401", got)
	}
	// Ending the session ends the token at once, though its grant is cached.
	if err := st.LogoutAll(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	if got := status("GET", "/statuses", readOnly); got != 401 {
		t.Errorf("after logging out everywhere: %d, want 401", got)
	}
}
