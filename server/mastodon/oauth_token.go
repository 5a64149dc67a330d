package mastodon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/ory/fosite"

	"microblog/store"
)

// Token is Mastodon's Token entity, the answer of POST /oauth/token.
type Token struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	Scope       string `json:"scope"`
	CreatedAt   int64  `json:"created_at"`
}

// token is POST /oauth/token: authorization_code (with PKCE when the code
// was asked for with a challenge) or client_credentials, the body
// form-encoded or JSON. Errors are OAuth's {"error", "error_description"}.
func (o *oauthServer) token(c echo.Context) error {
	r := c.Request()
	ctx := r.Context()
	if err := formBody(r); err != nil {
		return o.accessError(c, nil, fosite.ErrInvalidRequest.WithHint(err.Error()))
	}
	// The password grant is gone from Mastodon 4 too (apps sign in on the
	// authorize page), and is refused as Mastodon refuses it.
	if r.PostForm.Get("grant_type") == "password" {
		return o.accessError(c, nil, fosite.ErrUnsupportedGrantType)
	}
	// Mastodon grants an app "read" when it asks for no scope.
	if r.PostForm.Get("grant_type") == "client_credentials" && r.PostForm.Get("scope") == "" {
		r.PostForm.Set("scope", "read")
	}
	ar, err := o.provider.NewAccessRequest(ctx, r, userSession(0))
	if err != nil {
		return o.accessError(c, ar, err)
	}
	if ar.GetGrantTypes().ExactOne("client_credentials") {
		for _, s := range ar.GetRequestedScopes() {
			ar.GrantScope(s)
		}
	}
	resp, err := o.provider.NewAccessResponse(ctx, ar)
	if err != nil {
		return o.accessError(c, ar, err)
	}
	return c.JSON(http.StatusOK, Token{AccessToken: resp.GetAccessToken(), TokenType: "Bearer",
		Scope: strings.Join(ar.GetGrantedScopes(), " "), CreatedAt: time.Now().Unix()})
}

// accessError answers a token request's error as OAuth does. A suspended
// user's code is an invalid grant, not the server's failure.
func (o *oauthServer) accessError(c echo.Context, ar fosite.AccessRequester, err error) error {
	if errors.Is(err, store.ErrSuspended) {
		err = fosite.ErrInvalidGrant.WithHint("The account is suspended.")
	}
	if ar == nil {
		ar = fosite.NewAccessRequest(userSession(0))
	}
	o.provider.WriteAccessError(c.Request().Context(), c.Response(), ar, err)
	return nil
}

// revoke is POST /oauth/revoke (client_id, client_secret, token): the
// token stops working at once, everywhere. Mastodon answers {} whether or
// not the token was live.
func (o *oauthServer) revoke(c echo.Context) error {
	r := c.Request()
	if err := formBody(r); err != nil {
		o.provider.WriteRevocationResponse(r.Context(), c.Response(), fosite.ErrInvalidRequest.WithHint(err.Error()))
		return nil
	}
	if err := o.provider.NewRevocationRequest(r.Context(), r); err != nil {
		o.provider.WriteRevocationResponse(r.Context(), c.Response(), err)
		return nil
	}
	return c.JSON(http.StatusOK, struct{}{})
}

// formBody parses r's form, turning a JSON body (which Mastodon takes too)
// into the form fosite reads.
func formBody(r *http.Request) error {
	if ct := r.Header.Get(echo.HeaderContentType); strings.HasPrefix(ct, echo.MIMEApplicationJSON) {
		var in map[string]any
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("the body is not a JSON object: %w", err)
		}
		r.PostForm = url.Values{}
		for k, v := range in {
			switch v := v.(type) {
			case string:
				r.PostForm.Set(k, v)
			case float64, bool:
				r.PostForm.Set(k, fmt.Sprint(v))
			}
		}
		r.Form = url.Values{}
		for k, vs := range r.URL.Query() {
			r.Form[k] = vs
		}
		for k, vs := range r.PostForm {
			r.Form[k] = vs
		}
		return nil
	}
	return r.ParseForm()
}

// grantOf reads what a live access token may do: its grant kept beside it
// (by the token's hash), sliding the grant's expiry as sessions slide on use.
func (o *oauthServer) grantOf(ctx context.Context, hash string) (grantRecord, error) {
	var g grantRecord
	if err := o.storage.get(ctx, store.OAuthToken, hash, tokenTTL, &g); err != nil {
		return g, err
	}
	if _, err := o.d.Store.OAuthRecord(ctx, store.OAuthRequest, g.ID, tokenTTL); err != nil && !errors.Is(err, store.ErrNotFound) {
		return g, err
	}
	return g, nil
}

// resolve is who the access token raw (without TokenPrefix) acts for. A
// user's token is live while its session is (the store tells at once when
// it ends); an app's while its grant is kept.
func (o *oauthServer) resolve(ctx context.Context, raw string) (caller, error) {
	if strings.HasPrefix(raw, appTokenPrefix) {
		hash := store.TokenHash(raw)
		g, err := o.grantOf(ctx, hash)
		if err != nil || g.UID != 0 {
			return caller{}, tokenError(err)
		}
		return caller{TokenHash: hash, ClientID: g.ClientID, Scopes: scopesOf(g.Granted)}, nil
	}
	uid, hash, err := o.d.Store.AuthenticateOAuth(ctx, raw)
	if err != nil {
		return caller{}, tokenError(err)
	}
	who, ok := o.grants.get(hash)
	if !ok {
		g, err := o.grantOf(ctx, hash)
		if err != nil {
			return caller{}, tokenError(err)
		}
		who = caller{UID: g.UID, TokenHash: hash, ClientID: g.ClientID, Scopes: scopesOf(g.Granted)}
		o.grants.put(hash, who)
	}
	if who.UID != uid {
		return caller{}, errInvalidToken
	}
	return who, nil
}

// tokenError is the error of a token that cannot be resolved: invalid
// unless the store failed.
func tokenError(err error) error {
	if err == nil || errors.Is(err, fosite.ErrNotFound) || errors.Is(err, store.ErrUnauthorized) {
		return errInvalidToken
	}
	return err
}
