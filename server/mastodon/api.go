package mastodon

import (
	"context"
	"log/slog"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"microblog/hub"
	"microblog/server/webpush"
	"microblog/store"
	"microblog/store/media"
)

// Deps is what the Mastodon API shares with the native one.
type Deps struct {
	Store  store.Service
	Media  *media.Folder // nil: uploads are refused
	Limits Limits
	// Origin is the service's public origin as a request reached it
	// ("https://example.org"), for the URLs entities carry.
	Origin func(c echo.Context) string
	// Admins names the service's operators (MICROBLOG_ADMINS), whom the
	// instance shows as contact.
	Admins []string
	// Signup tells whether anyone may make an account here
	// (MICROBLOG_LOCAL_SIGNUP), which the instance shows as registrations.
	Signup bool
	// Push is the Web Push service: its VAPID key and the check of a
	// subscription (push.go).
	Push *webpush.Service
	// Federation is ActivityPub federation (nil when it is off): it names
	// the actors WebFinger links to.
	Federation Federation
	Logger     *slog.Logger
}

// Federation is what the Mastodon API asks of ActivityPub federation.
type Federation interface {
	// ActorURL is the ActivityPub actor of the local user uid; Host is
	// the domain of local handles; LocalUID reads a local actor URL.
	ActorURL(uid int64) string
	Host() string
	LocalUID(actor string) (int64, bool)
}

// Limits are the service's rate limits (MICROBLOG_RATE_LIMITS), the same
// for both APIs.
type Limits struct {
	Login, LoginAccount, Post, Follow, DM store.Limit
}

// API is the Mastodon client API of one server process.
type API struct {
	d   Deps
	st  store.Service
	hub *hub.Hub // set by SetHub once the live hub is up (streaming.go)
	// oauth is the OAuth 2.0 server, which gives out and resolves tokens.
	oauth *oauthServer
}

// New returns the API over d.
func New(d Deps) *API {
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	return &API{d: d, st: d.Store, oauth: newOAuthServer(d)}
}

// Context keys.
const (
	ctxCaller = "mastodon.caller" // the caller's *caller, when it gave a token
	// CtxSpeaking marks a request the Mastodon API answers, for the
	// server's error handler (WriteError).
	CtxSpeaking = "mastodon.speaking"
)

// caller is who a request acts for: a user (UID != 0) or an app alone
// (client credentials), with the scopes its token was granted.
type caller struct {
	UID       int64
	TokenHash string // the token's hash, as the store and the hub know it
	ClientID  string
	Scopes    scopeSet
}

// TokenPrefix starts every access token this API gives out, so that a
// request's credential tells at once which API it speaks.
const TokenPrefix = "mbt_"

// Speaks tells whether a request to a path both APIs serve is the
// Mastodon API's: it carries one of its access tokens, or a query
// parameter only Mastodon has.
func Speaks(c echo.Context) bool {
	if tok, ok := bearer(c.Request()); ok {
		return strings.HasPrefix(tok, TokenPrefix)
	}
	q := c.Request().URL.Query()
	for _, p := range mastodonOnlyParams {
		if q.Has(p) {
			return true
		}
	}
	return false
}

// mastodonOnlyParams are query parameters the native API never takes.
var mastodonOnlyParams = []string{"max_id", "since_id", "min_id", "local", "remote", "only_media", "access_token"}

// bearer is the request's access token: the Authorization header's Bearer
// token, else ?access_token= (which Mastodon accepts too).
func bearer(r *http.Request) (string, bool) {
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, tok, ok := strings.Cut(strings.TrimSpace(h), " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") {
			return "", false
		}
		return strings.TrimSpace(tok), true
	}
	if tok := r.URL.Query().Get("access_token"); tok != "" {
		return tok, true
	}
	return "", false
}

// speaking marks the request as the Mastodon API's, for error bodies.
func speaking(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Set(CtxSpeaking, true)
		return next(c)
	}
}

// errInvalidToken is Mastodon's answer to a token that is not (or no
// longer) valid.
var errInvalidToken = store.NewError(store.ErrUnauthorized, store.CodeUnauthorized, "The access token is invalid")

// auth resolves the request's token, if any, and checks it carries scope
// (none: any token). With user set, a token of a user is required, as
// Mastodon requires it: 401 without a token, 422 with an app's token (no
// user); without it, anonymous callers go on.
func (a *API) auth(scope string, user bool) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			c.Set(CtxSpeaking, true)
			tok, ok := bearer(c.Request())
			if !ok {
				if user {
					return store.NewError(store.ErrUnauthorized, store.CodeUnauthorized, "This method requires an authenticated user")
				}
				return next(c)
			}
			who, err := a.resolve(c.Request().Context(), tok)
			if err != nil {
				return err
			}
			if user && who.UID == 0 {
				return store.NewError(store.ErrInvalid, store.CodeUnauthorized, "This method requires an authenticated user")
			}
			if scope != "" && !who.Scopes.allows(scope) {
				return store.NewError(store.ErrForbidden, store.CodeForbidden, "This action is outside the authorized scopes")
			}
			c.Set(ctxCaller, &who)
			return next(c)
		}
	}
}

// resolve checks an access token (oauth_token.go): a user's or an app's,
// with the scopes it was granted.
func (a *API) resolve(ctx context.Context, token string) (caller, error) {
	raw, ok := strings.CutPrefix(token, TokenPrefix)
	if !ok {
		return caller{}, errInvalidToken
	}
	return a.oauth.resolve(ctx, raw)
}

// who is the request's caller, nil when anonymous.
func who(c echo.Context) *caller {
	w, _ := c.Get(ctxCaller).(*caller)
	return w
}

// viewer is the uid the request acts for, 0 when anonymous or an app.
func viewer(c echo.Context) int64 {
	if w := who(c); w != nil {
		return w.UID
	}
	return 0
}

// ErrorBody is the body of an error as Mastodon answers it.
type ErrorBody struct {
	Error string `json:"error"`
	// Description is OAuth's error_description, on /oauth errors.
	Description string `json:"error_description,omitempty"`
}

// StatusOf is the HTTP status Mastodon answers for an error the native API
// answers with native: a request that fails validation is 422 there.
func StatusOf(native int) int {
	if native == http.StatusBadRequest {
		return http.StatusUnprocessableEntity
	}
	return native
}
