package mastodon

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
	"github.com/ory/fosite"

	"microblog/store"
)

// RegisteredApp is Mastodon's Application entity as the apps API answers it
// (a status's Application is its short form). ClientID and ClientSecret
// are shown once, when the app registers.
type RegisteredApp struct {
	ID           string   `json:"id"`
	Name         string   `json:"name"`
	Website      *string  `json:"website"`
	Scopes       []string `json:"scopes"`
	RedirectURI  string   `json:"redirect_uri"` // the redirect URIs, one a line (deprecated by Mastodon)
	RedirectURIs []string `json:"redirect_uris"`
	VapidKey     string   `json:"vapid_key"`
	ClientID     string   `json:"client_id,omitempty"`
	ClientSecret string   `json:"client_secret,omitempty"`
	// ClientSecretExpiresAt is 0: secrets do not expire.
	ClientSecretExpiresAt *int64 `json:"client_secret_expires_at,omitempty"`
}

// application is the entity of the app clientID.
func application(clientID string, app appRecord) RegisteredApp {
	out := RegisteredApp{ID: clientID, Name: app.Name, Scopes: app.Scopes,
		RedirectURI: strings.Join(app.RedirectURIs, "\n"), RedirectURIs: app.RedirectURIs}
	if app.Website != "" {
		out.Website = &app.Website
	}
	return out
}

// Limits of what an app registers with.
const (
	maxAppName      = 100
	maxRedirectURIs = 10
	maxURILen       = 2000
)

// appForm is what POST /api/v1/apps reads.
type appForm struct {
	name, scopes, website string
	redirectURIs          []string
}

// readAppForm reads POST /api/v1/apps's body, form-encoded or JSON; the
// redirect URIs come one or several in a string (separated by spaces or
// new lines) or as an array.
func readAppForm(c echo.Context) (appForm, error) {
	var f appForm
	r := c.Request()
	if strings.HasPrefix(r.Header.Get(echo.HeaderContentType), echo.MIMEApplicationJSON) {
		var in struct {
			ClientName   string          `json:"client_name"`
			RedirectURIs json.RawMessage `json:"redirect_uris"`
			Scopes       string          `json:"scopes"`
			Website      string          `json:"website"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil && !errors.Is(err, io.EOF) {
			return f, store.Invalid(store.CodeInvalidJSON, "the body is not valid JSON")
		}
		f.name, f.scopes, f.website = in.ClientName, in.Scopes, in.Website
		var one string
		var many []string
		switch {
		case len(in.RedirectURIs) == 0:
		case json.Unmarshal(in.RedirectURIs, &one) == nil:
			many = []string{one}
		case json.Unmarshal(in.RedirectURIs, &many) != nil:
			return f, store.Invalid(store.CodeInvalidField, "redirect_uris must be a string or an array of strings")
		}
		for _, u := range many {
			f.redirectURIs = append(f.redirectURIs, strings.Fields(u)...)
		}
		return f, nil
	}
	form, err := c.FormParams()
	if err != nil {
		return f, store.Invalid(store.CodeInvalidField, "the body is not a form")
	}
	f.name, f.scopes, f.website = form.Get("client_name"), form.Get("scopes"), form.Get("website")
	for _, u := range append(form["redirect_uris"], form["redirect_uris[]"]...) {
		f.redirectURIs = append(f.redirectURIs, strings.Fields(u)...)
	}
	return f, nil
}

// check validates the form into the app to keep.
func (f appForm) check(ctx context.Context) (appRecord, error) {
	app := appRecord{Name: strings.TrimSpace(f.name), Website: strings.TrimSpace(f.website), Created: time.Now().UTC()}
	if app.Name == "" || utf8.RuneCountInString(app.Name) > maxAppName || !utf8.ValidString(app.Name) {
		return app, store.Invalid(store.CodeInvalidField, "client_name must be 1 to 100 characters")
	}
	if len(f.redirectURIs) == 0 || len(f.redirectURIs) > maxRedirectURIs {
		return app, store.Invalid(store.CodeInvalidField, "redirect_uris must name 1 to 10 URIs")
	}
	for _, s := range f.redirectURIs {
		u, err := url.Parse(s)
		if len(s) > maxURILen || err != nil || !fosite.IsValidRedirectURI(u) || !fosite.IsRedirectURISecure(ctx, u) {
			return app, store.Invalid(store.CodeInvalidField, "redirect_uris: "+s+" is not an absolute URI without fragment (http only to localhost)")
		}
		if !slices.Contains(app.RedirectURIs, s) {
			app.RedirectURIs = append(app.RedirectURIs, s)
		}
	}
	if app.Website != "" {
		if u, err := url.Parse(app.Website); len(app.Website) > maxURILen || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return app, store.Invalid(store.CodeInvalidField, "website must be an http(s) URL")
		}
	}
	var err error
	app.Scopes, err = checkScopes(f.scopes)
	return app, err
}

// createApp is POST /api/v1/apps: 200 Application with its client id and
// secret, the secret kept as its hash only.
func (a *API) createApp(c echo.Context) error {
	ctx := c.Request().Context()
	if err := a.st.Allow(ctx, "apps", c.RealIP(), a.d.Limits.Login); err != nil {
		return err
	}
	f, err := readAppForm(c)
	if err != nil {
		return err
	}
	app, err := f.check(ctx)
	if err != nil {
		return err
	}
	clientID, err := randomSecret()
	if err != nil {
		return err
	}
	secret, err := randomSecret()
	if err != nil {
		return err
	}
	app.SecretHash, _ = secretHasher{}.Hash(ctx, []byte(secret))
	if err := a.oauth.storage.put(ctx, store.OAuthClient, clientID, app, 0); err != nil {
		return err
	}
	out := application(clientID, app)
	out.VapidKey = a.vapidKey(ctx)
	var never int64
	out.ClientID, out.ClientSecret, out.ClientSecretExpiresAt = clientID, secret, &never
	return c.JSON(http.StatusOK, out)
}

// verifyApp is GET /api/v1/apps/verify_credentials: the app of the
// caller's token, user's or app's own.
func (a *API) verifyApp(c echo.Context) error {
	w := who(c)
	if w == nil {
		return errInvalidToken
	}
	app, err := a.oauth.storage.app(c.Request().Context(), w.ClientID)
	if errors.Is(err, fosite.ErrNotFound) {
		return errInvalidToken
	}
	if err != nil {
		return err
	}
	out := application(w.ClientID, app)
	out.VapidKey = a.vapidKey(c.Request().Context())
	return c.JSON(http.StatusOK, out)
}
