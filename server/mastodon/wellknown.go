package mastodon

import (
	"encoding/xml"
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// The /.well-known documents apps and servers read before anything else:
// WebFinger (RFC 7033) to find an account by its handle, host-meta (RFC
// 6415) to find WebFinger, and the OAuth server's metadata (RFC 8414),
// where a web app learns that PKCE is supported. NodeInfo's is in
// instance.go. Every other /.well-known path is 404 (the front ends'
// fallback page never answers there: see api's static.go).

// wellKnownRoutes registers the documents; CORS for every /.well-known
// path is set where the API's middleware is (server/routes.go).
func (a *API) wellKnownRoutes(r *router) {
	r.add(http.MethodGet, "/.well-known/webfinger", a.webFinger)
	r.add(http.MethodGet, "/.well-known/host-meta", hostMeta)
	r.add(http.MethodGet, "/.well-known/oauth-authorization-server", oauthMetadata)
}

// JRD is a WebFinger answer (RFC 7033 section 4.4).
type JRD struct {
	Subject string    `json:"subject"`
	Aliases []string  `json:"aliases,omitempty"`
	Links   []JRDLink `json:"links"`
}

// JRDLink is one link of a JRD.
type JRDLink struct {
	Rel  string `json:"rel"`
	Type string `json:"type,omitempty"`
	Href string `json:"href,omitempty"`
}

// errNoResource is WebFinger's answer to a resource that is not an
// account here.
var errNoResource = store.NewError(store.ErrNotFound, store.CodeNotFound, "no such resource")

// webFinger answers GET /.well-known/webfinger?resource=: acct:name@domain
// (or the account's profile URL, or with federation on its actor URL)
// names a local account, answered with its
// profile page; anything else is 404, a missing resource 400.
func (a *API) webFinger(c echo.Context) error {
	resource := strings.TrimSpace(c.QueryParam("resource"))
	if resource == "" { // 400, as RFC 7033 has it (Mastodon's own errors would make it 422)
		return c.JSON(http.StatusBadRequest, ErrorBody{Error: "resource is required"})
	}
	m := mapperOf(c)
	name, ok := accountOf(resource, m.origin)
	if !ok && a.d.Federation != nil {
		// Handles name the public URL's host, which a proxy in front
		// may not pass on as the request's.
		name, ok = accountOf(resource, "https://"+a.d.Federation.Host())
	}
	var u store.User
	var err error
	if uid, actor := a.actorResource(resource); actor {
		u, err = a.st.User(c.Request().Context(), uid, 0) // its actor URL names it too
	} else if !ok {
		return errNoResource
	} else {
		u, err = a.st.UserByName(c.Request().Context(), name, 0)
	}
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return errNoResource
		}
		return err
	}
	if u.Remote { // another server's account: asked of it, not here
		return errNoResource
	}
	profile := m.origin + "/@" + u.Username
	out := JRD{
		Subject: "acct:" + u.Username + "@" + hostOf(m.origin),
		Aliases: []string{profile},
		Links:   []JRDLink{{Rel: "http://webfinger.net/rel/profile-page", Type: "text/html", Href: profile}},
	}
	if f := a.d.Federation; f != nil {
		// The actor, under the public URL, whatever host the request named.
		actor := f.ActorURL(u.ID)
		out.Subject = "acct:" + u.Username + "@" + f.Host()
		out.Aliases = append(out.Aliases, actor)
		out.Links = append(out.Links, JRDLink{Rel: "self", Type: "application/activity+json", Href: actor})
	}
	c.Response().Header().Set(echo.HeaderContentType, "application/jrd+json; charset=utf-8")
	return c.JSON(http.StatusOK, out)
}

// actorResource reads a local actor URL as a WebFinger resource.
func (a *API) actorResource(resource string) (int64, bool) {
	if a.d.Federation == nil {
		return 0, false
	}
	return a.d.Federation.LocalUID(resource)
}

// accountOf reads the username a WebFinger resource names on the service
// at origin: acct:name@host (host this one's, with or without its port)
// or the profile URL origin/@name.
func accountOf(resource, origin string) (string, bool) {
	if rest, ok := strings.CutPrefix(resource, origin+"/@"); ok {
		return rest, rest != "" && !strings.ContainsAny(rest, "/@?#")
	}
	acct, ok := strings.CutPrefix(resource, "acct:")
	if !ok {
		return "", false
	}
	name, host, ok := strings.Cut(strings.TrimPrefix(acct, "@"), "@")
	if !ok || name == "" {
		return "", false
	}
	ours := hostOf(origin)
	bare, _, _ := strings.Cut(ours, ":")
	return name, strings.EqualFold(host, ours) || strings.EqualFold(host, bare)
}

// hostMeta answers GET /.well-known/host-meta: where WebFinger is, as the
// XRD document older servers and clients read.
func hostMeta(c echo.Context) error {
	type link struct {
		Rel      string `xml:"rel,attr"`
		Type     string `xml:"type,attr"`
		Template string `xml:"template,attr"`
	}
	type xrd struct {
		XMLName xml.Name `xml:"http://docs.oasis-open.org/ns/xri/xrd-1.0 XRD"`
		Link    link     `xml:"Link"`
	}
	doc := xrd{Link: link{Rel: "lrdd", Type: "application/jrd+json",
		Template: mapperOf(c).origin + "/.well-known/webfinger?resource={uri}"}}
	body, err := xml.Marshal(doc)
	if err != nil {
		return err
	}
	return c.Blob(http.StatusOK, "application/xrd+xml; charset=utf-8", append([]byte(xml.Header), body...))
}

// OAuthMetadata is the OAuth server's metadata (RFC 8414), as Mastodon
// publishes it.
type OAuthMetadata struct {
	Issuer                            string   `json:"issuer"`
	ServiceDocumentation              string   `json:"service_documentation,omitempty"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RevocationEndpoint                string   `json:"revocation_endpoint"`
	AppRegistrationEndpoint           string   `json:"app_registration_endpoint"`
	ScopesSupported                   []string `json:"scopes_supported"`
	ResponseTypesSupported            []string `json:"response_types_supported"`
	ResponseModesSupported            []string `json:"response_modes_supported"`
	GrantTypesSupported               []string `json:"grant_types_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
}

// oauthMetadata answers GET /.well-known/oauth-authorization-server.
func oauthMetadata(c echo.Context) error {
	o := mapperOf(c).origin
	return c.JSON(http.StatusOK, OAuthMetadata{
		Issuer:                            o + "/",
		AuthorizationEndpoint:             o + "/oauth/authorize",
		TokenEndpoint:                     o + "/oauth/token",
		RevocationEndpoint:                o + "/oauth/revoke",
		AppRegistrationEndpoint:           o + "/api/v1/apps",
		ScopesSupported:                   knownScopes,
		ResponseTypesSupported:            []string{"code"},
		ResponseModesSupported:            []string{"query"},
		GrantTypesSupported:               []string{"authorization_code", "client_credentials"},
		TokenEndpointAuthMethodsSupported: []string{"client_secret_basic", "client_secret_post"},
		CodeChallengeMethodsSupported:     []string{"S256"},
	})
}
