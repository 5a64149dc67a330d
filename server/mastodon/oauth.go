package mastodon

import (
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/ory/fosite"
	"github.com/ory/fosite/compose"
)

// The OAuth 2.0 server is ory/fosite, a well-kept server library (the core
// of Ory Hydra), over the store (oauth_storage.go), with codes and tokens
// of this service's own (oauth_strategy.go).

// oobRedirect is the redirect URI of apps that show no page of their own:
// the code is shown to the user to copy.
const oobRedirect = "urn:ietf:wg:oauth:2.0:oob"

// oauthServer is the API's OAuth 2.0 server.
type oauthServer struct {
	d        Deps
	storage  oauthStorage
	provider fosite.OAuth2Provider
	grants   grantCache
}

// newOAuthServer builds the server over d's store: authorization codes
// (with PKCE S256 when the app sends a challenge; Mastodon does not
// require one), client credentials and revocation.
func newOAuthServer(d Deps) *oauthServer {
	storage := oauthStorage{st: d.Store}
	cfg := &fosite.Config{
		AuthorizeCodeLifespan: codeTTL,
		AccessTokenLifespan:   tokenTTL,
		ScopeStrategy:         grantsScope,
		ClientSecretsHasher:   secretHasher{},
		// No grant carries this scope (grantsScope knows no such scope),
		// so no refresh token is given out, as by Mastodon.
		RefreshTokenScopes: []string{"offline_access"},
	}
	provider := compose.Compose(cfg, storage, tokenStrategy{st: d.Store},
		compose.OAuth2AuthorizeExplicitFactory,
		compose.OAuth2ClientCredentialsGrantFactory,
		compose.OAuth2PKCEFactory,
		compose.OAuth2TokenRevocationFactory,
	)
	return &oauthServer{d: d, storage: storage, provider: provider, grants: newGrantCache()}
}

// oauthRoutes registers the OAuth endpoints and the apps API.
func (a *API) oauthRoutes(r *router) {
	o := a.oauth
	r.add(http.MethodPost, "/api/v1/apps", a.createApp)
	r.add(http.MethodGet, "/api/v1/apps/verify_credentials", a.verifyApp, a.auth("", false))
	r.add(http.MethodGet, "/oauth/authorize", o.authorizePage)
	r.add(http.MethodPost, "/oauth/authorize", o.authorize)
	// Browser apps (Elk, Phanpy) call these two from their own origin.
	cors := middleware.CORSWithConfig(middleware.CORSConfig{
		AllowOrigins: []string{"*"},
		AllowMethods: []string{http.MethodPost},
		AllowHeaders: []string{"Authorization", "Content-Type"},
		MaxAge:       86400,
	})
	for path, h := range map[string]echo.HandlerFunc{"/oauth/token": o.token, "/oauth/revoke": o.revoke} {
		r.add(http.MethodPost, path, h, cors, noStore)
		r.add(http.MethodOptions, path, h, cors)
	}
}

// noStore keeps an answer carrying a token or code out of every cache.
func noStore(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Cache-Control", "no-store")
		h.Set("Pragma", "no-cache")
		return next(c)
	}
}

// redirectWith is the redirect URI u with params added to its query,
// empty ones left out.
func redirectWith(u *url.URL, params url.Values) string {
	to := *u
	q := to.Query()
	for k, vs := range params {
		for _, v := range vs {
			if v != "" {
				q.Add(k, v)
			}
		}
	}
	to.RawQuery = q.Encode()
	return to.String()
}
