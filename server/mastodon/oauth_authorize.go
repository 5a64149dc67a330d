package mastodon

import (
	"bytes"
	_ "embed"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/ory/fosite"

	"microblog/store"
)

//go:embed oauth_authorize.html
var authorizeHTML string

// authorizePages are the authorize endpoint's pages: "form" (sign in and
// consent), "code" (the code, for oobRedirect) and "error".
var authorizePages = template.Must(template.New("authorize").Parse(authorizeHTML))

// authorizeParams are the authorize request's parameters the form carries
// on as hidden fields.
var authorizeParams = []string{"response_type", "client_id", "redirect_uri", "scope", "state", "code_challenge", "code_challenge_method"}

// hiddenField is one of them with its value.
type hiddenField struct{ Name, Value string }

// formPage is the data of the "form" page.
type formPage struct {
	App, Website, Username, Error string
	Scopes                        []string
	Hidden                        []hiddenField
}

// render writes page with data and status, as a page no cache keeps.
func render(c echo.Context, status int, page string, data any) error {
	var b bytes.Buffer
	if err := authorizePages.ExecuteTemplate(&b, page, data); err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.HTMLBlob(status, b.Bytes())
}

// ctxState is the context key of the state the app sent.
const ctxState = "mastodon.oauth_state"

// statePad lengthens a short state for fosite, which wants 8 characters
// at least where Mastodon (and the apps written for it) take none. The app
// gets back exactly what it sent (appState).
const statePad = "mastodon-state:"

// authorizeRequest reads and checks the authorize request (query or form):
// the app, its redirect URI and the scopes ("read" when none are asked,
// as Mastodon defaults).
func (o *oauthServer) authorizeRequest(c echo.Context) (fosite.AuthorizeRequester, error) {
	r := c.Request()
	if err := r.ParseForm(); err != nil {
		return nil, fosite.ErrInvalidRequest.WithHint("The request is not a form.")
	}
	if r.Form.Get("scope") == "" {
		r.Form.Set("scope", "read")
	}
	state := r.Form.Get("state")
	c.Set(ctxState, state)
	if len(state) < fosite.MinParameterEntropy {
		r.Form.Set("state", statePad+state)
	}
	return o.provider.NewAuthorizeRequest(r.Context(), r)
}

// appState is the state the app sent with the request.
func appState(c echo.Context) string {
	s, _ := c.Get(ctxState).(string)
	return s
}

// authorizePage is GET /oauth/authorize: the sign-in and consent form.
func (o *oauthServer) authorizePage(c echo.Context) error {
	ar, err := o.authorizeRequest(c)
	if err != nil {
		return o.authorizeError(c, ar, err)
	}
	return o.renderForm(c, ar, http.StatusOK, "", "")
}

// renderForm shows the form for ar, with a message when a try failed.
func (o *oauthServer) renderForm(c echo.Context, ar fosite.AuthorizeRequester, status int, username, message string) error {
	app, err := o.storage.app(c.Request().Context(), ar.GetClient().GetID())
	if err != nil {
		return err
	}
	p := formPage{App: app.Name, Website: app.Website, Username: username, Error: message, Scopes: ar.GetRequestedScopes()}
	for _, k := range authorizeParams {
		v := ar.GetRequestForm().Get(k)
		if k == "state" {
			v = appState(c)
		}
		if v != "" {
			p.Hidden = append(p.Hidden, hiddenField{k, v})
		}
	}
	allowFormRedirect(c, ar.GetRedirectURI())
	return render(c, status, "form", p)
}

// allowFormRedirect widens the page's Content-Security-Policy so that the
// form's answer may redirect to the app: browsers (Chromium) hold the
// redirect after a form submission to form-action too, which the server
// sets to 'self'. A redirect URI that could not be written in a policy
// safely is left out (the page then works for oobRedirect alone).
func allowFormRedirect(c echo.Context, to *url.URL) {
	h := c.Response().Header()
	csp := h.Get("Content-Security-Policy")
	if to == nil || to.String() == oobRedirect || !strings.Contains(csp, formActionSelf) {
		return
	}
	src := to.Scheme + ":" // an app's own scheme (com.example.app:)
	if to.Host != "" {
		src = to.Scheme + "://" + to.Host
	}
	if strings.ContainsFunc(src, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("+-.:/[]", r))
	}) {
		return
	}
	h.Set("Content-Security-Policy", strings.Replace(csp, formActionSelf, formActionSelf+" "+src, 1))
}

// formActionSelf is the server's form-action directive.
const formActionSelf = "form-action 'self'"

// authorize is POST /oauth/authorize, the form sent: deny redirects with
// access_denied; approve checks the name and password (under the login
// limits and guard, as a native login) and redirects with the code, or
// shows it for oobRedirect. A wrong password shows the form again.
func (o *oauthServer) authorize(c echo.Context) error {
	ar, err := o.authorizeRequest(c)
	if err != nil {
		return o.authorizeError(c, ar, err)
	}
	r := c.Request()
	if r.PostForm.Get("decision") != "approve" {
		return o.authorizeError(c, ar, fosite.ErrAccessDenied.WithHint("The user denied the request."))
	}
	ctx := r.Context()
	name := r.PostForm.Get("username")
	if err := o.d.Store.Allow(ctx, "login", c.RealIP(), o.d.Limits.Login); err != nil {
		return o.signInFailed(c, ar, name, err)
	}
	u, err := o.d.Store.CheckPassword(ctx, name, r.PostForm.Get("password"), store.Attempt{Client: c.RealIP(), Guard: o.d.Limits.LoginAccount})
	if err == nil && u.Suspended {
		err = store.ErrSuspended
	}
	if err != nil {
		return o.signInFailed(c, ar, name, err)
	}
	for _, s := range ar.GetRequestedScopes() {
		ar.GrantScope(s)
	}
	resp, err := o.provider.NewAuthorizeResponse(ctx, ar, userSession(u.ID))
	if err != nil {
		return o.authorizeError(c, ar, err)
	}
	if ar.GetRedirectURI().String() == oobRedirect {
		app, err := o.storage.app(ctx, ar.GetClient().GetID())
		if err != nil {
			return err
		}
		return render(c, http.StatusOK, "code", map[string]string{"App": app.Name, "Code": resp.GetParameters().Get("code")})
	}
	params := resp.GetParameters()
	params.Set("state", appState(c))
	return c.Redirect(http.StatusFound, redirectWith(ar.GetRedirectURI(), params))
}

// signInFailed shows the form again after a refused sign-in, saying why;
// the store's failures (Redis down) are errors.
func (o *oauthServer) signInFailed(c echo.Context, ar fosite.AuthorizeRequester, name string, err error) error {
	var limited *store.RateLimitError
	switch {
	case errors.As(err, &limited):
		secs := strconv.Itoa(int(limited.RetryAfter.Seconds() + 0.999))
		c.Response().Header().Set("Retry-After", secs)
		return o.renderForm(c, ar, http.StatusTooManyRequests, name, "Too many attempts. Try again in "+secs+" seconds.")
	case errors.Is(err, store.ErrSuspended):
		return o.renderForm(c, ar, http.StatusForbidden, name, "This account is suspended.")
	case errors.Is(err, store.ErrUnauthorized):
		return o.renderForm(c, ar, http.StatusUnauthorized, name, "Wrong username or password.")
	}
	return err
}

// authorizeError answers a refused authorize request: to the app's
// redirect URI when it is known good (with error and state, as OAuth
// says), else on a page, since the app cannot be trusted with it.
func (o *oauthServer) authorizeError(c echo.Context, ar fosite.AuthorizeRequester, err error) error {
	rfc := fosite.ErrorToRFC6749Error(err)
	if ar != nil && ar.IsRedirectURIValid() && ar.GetRedirectURI().String() != oobRedirect {
		params := map[string][]string{"error": {rfc.ErrorField}, "error_description": {rfc.GetDescription()}, "state": {appState(c)}}
		return c.Redirect(http.StatusFound, redirectWith(ar.GetRedirectURI(), params))
	}
	status := rfc.CodeField
	if status < 400 {
		status = http.StatusBadRequest
	}
	return render(c, status, "error", map[string]string{"Title": "Authorization failed", "Message": rfc.GetDescription()})
}
