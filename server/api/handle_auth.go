package api

import (
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"microblog/store"
)

// ldapProvider is the LDAP directory's provider id: in POST /sessions, in
// GET /auth/providers and in the store's links to accounts.
const ldapProvider = "ldap"

// Kinds of provider: how a front end signs in with it.
const (
	// kindPassword: the front end asks for a name and password and sends
	// them to POST /api/v1/sessions with "provider": the id.
	kindPassword = "password"
	// kindRedirect: the front end sends the browser to LoginURL.
	kindRedirect = "redirect"
)

// Provider is a way to sign in besides a local password, as GET
// /api/v1/auth/providers lists it.
type Provider struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Kind     string `json:"kind"`
	LoginURL string `json:"login_url,omitempty"`
	// Linked says whether the signed-in caller's account is linked to it
	// (for Settings); absent for anonymous callers.
	Linked *bool `json:"linked,omitempty"`
}

// Providers answers GET /api/v1/auth/providers.
type Providers struct {
	LocalSignup bool       `json:"local_signup"`
	Providers   []Provider `json:"providers"`
	// Mail tells whether the server sends mail: the front ends offer
	// "Forgot password?" and an email address in Settings only then.
	Mail bool `json:"mail"`
}

// signInProviders lists the configured ways to sign in besides local
// passwords, in the order the front ends show them. This is the one list:
// the OpenID Connect sign-in appends its entry (kindRedirect) here.
func (a *API) signInProviders() []Provider {
	out := []Provider{}
	if a.d.LDAP != nil {
		out = append(out, Provider{ID: ldapProvider, Name: a.d.LDAPName, Kind: kindPassword})
	}
	if a.d.OIDC.Client != nil {
		out = append(out, Provider{ID: oidcProvider, Name: a.d.OIDC.Name, Kind: kindRedirect, LoginURL: OIDCLoginPath})
	}
	return out
}

// handleProviders lists the ways to sign in: 200 {"local_signup",
// "providers", "mail"}, each provider marked linked or not for a signed-in caller.
func handleProviders(st store.ExternalAccounts, localSignup, mail bool, providers []Provider) echo.HandlerFunc {
	return func(c echo.Context) error {
		out := Providers{LocalSignup: localSignup, Providers: slices.Clone(providers), Mail: mail}
		if uid := viewer(c); uid != 0 {
			linked, err := st.ExternalIdentities(c.Request().Context(), uid)
			if err != nil {
				return err
			}
			for i := range out.Providers {
				on := slices.Contains(linked, out.Providers[i].ID)
				out.Providers[i].Linked = &on
			}
		}
		return c.JSON(http.StatusOK, out)
	}
}
