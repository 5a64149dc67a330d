package api

import (
	"log/slog"
	"time"

	"github.com/labstack/echo/v4"

	"microblog/server/ldapauth"
	"microblog/server/oidcauth"
	"microblog/server/webpush"
	"microblog/store"
	"microblog/store/media"
)

// Deps is what the native API needs of the server that runs it: the store,
// the media folder and the settings it reads.
type Deps struct {
	Store  store.Service
	Media  *media.Folder // uploaded images (MICROBLOG_MEDIA_DIR)
	Limits Limits
	// SessionTTL is how long an unused session lives
	// (MICROBLOG_SESSION_TTL): the session cookie's Max-Age.
	SessionTTL time.Duration
	// AllowedOrigins are the browser origins besides the service's own
	// that may open the live feed (MICROBLOG_ALLOWED_ORIGINS; the server's
	// check of cookie writes, SameOriginWrites, takes them too).
	AllowedOrigins []string
	// Admins are the operators' usernames, lower-case (MICROBLOG_ADMINS):
	// they see the reports, suspend users and remove anyone's post.
	Admins []string
	// Signup tells whether POST /api/v1/users makes accounts
	// (MICROBLOG_LOCAL_SIGNUP).
	Signup bool
	// LDAP is the directory that checks the passwords of logins with
	// "provider": "ldap" (MICROBLOG_LDAP_*); nil: LDAP is off. LDAPName is
	// its label in the front ends.
	LDAP     *ldapauth.Directory
	LDAPName string
	OIDC     OIDC
	// Push is the Web Push service (handle_push.go).
	Push *webpush.Service
	// Mail tells whether the server sends mail (MICROBLOG_SMTP_URL): its
	// routes answer 503 mail_unavailable without (handle_mail.go).
	Mail bool
	// Bundle tells whether the front ends' pages load their code bundled,
	// a few files (the default), or module by module, as written
	// (MICROBLOG_BUNDLE=off, for debugging); see static_bundle.go.
	Bundle bool
	// Domains are the operators' domain blocks, nil when federation is
	// off (handle_domain_blocks.go).
	Domains DomainBlocker
	Logger  *slog.Logger
}

// Limits are the service's rate limits (MICROBLOG_RATE_LIMITS), which the
// Mastodon API shares but for Signup; a zero Limit means unlimited.
type Limits struct {
	Signup store.Limit // per client address
	Login  store.Limit // per client address
	// LoginAccount is the login guard: wrong passwords per account (see
	// store.Attempt).
	LoginAccount store.Limit
	Post         store.Limit // per user, posts and comments together
	Follow       store.Limit // per user, follows and unfollows together
	DM           store.Limit // per user, private messages
	// PasswordReset counts reset requests per client address and per
	// address asked about, and address changes per user.
	PasswordReset store.Limit
}

// OIDC is the OpenID Connect sign-in (MICROBLOG_OIDC_*).
type OIDC struct {
	Client *oidcauth.Client // the relying party; nil: the sign-in is off
	Name   string           // the sign-in button's label
	// RedirectURL is the callback URL registered with the provider; empty:
	// made from each request's scheme and host.
	RedirectURL string
}

// API is the native API of one server process.
type API struct {
	d   Deps
	st  store.Service
	ops operators
}

// New returns the API over d.
func New(d Deps) *API {
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	return &API{d: d, st: d.Store, ops: operators{st: d.Store, names: d.Admins}}
}

// SocketGate counts one more live socket of user uid from the client
// address addr, or refuses it (the server's socket caps, shared with the
// Mastodon API's streaming); release gives its place back.
type SocketGate func(uid int64, addr string) (release func(), err error)

// chain wraps h in mw, the first outermost, as Echo does a route's.
func chain(h echo.HandlerFunc, mw ...echo.MiddlewareFunc) echo.HandlerFunc {
	for i := len(mw) - 1; i >= 0; i-- {
		h = mw[i](h)
	}
	return h
}
