package main

import (
	"fmt"
	"net/url"
	"strings"
	"unicode"

	"microblog/server/api"
	"microblog/server/oidcauth"
)

// oidcConfig is the OpenID Connect sign-in's settings, from the
// environment only (the secret must not show in ps). An empty Issuer turns
// the sign-in off.
type oidcConfig struct {
	Issuer       string // MICROBLOG_OIDC_ISSUER: the provider's issuer URL
	ClientID     string // MICROBLOG_OIDC_CLIENT_ID
	ClientSecret string // MICROBLOG_OIDC_CLIENT_SECRET
	Name         string // MICROBLOG_OIDC_NAME: the button's label
	// RedirectURL is MICROBLOG_OIDC_REDIRECT_URL, the callback URL
	// registered with the provider; empty: made from each request's scheme
	// and host.
	RedirectURL string
}

// DefaultOIDCName is the sign-in button's label when MICROBLOG_OIDC_NAME is unset.
const DefaultOIDCName = "Single sign-on"

// maxOIDCName bounds the button's label.
const maxOIDCName = 64

// readOIDCSettings reads the MICROBLOG_OIDC_* variables into cfg.OIDC. A
// bad value, or a configuration set in part, is an error naming the variable.
func readOIDCSettings(getenv func(string) string, cfg *config) error {
	o := oidcConfig{
		Issuer:       strings.TrimRight(strings.TrimSpace(getenv("MICROBLOG_OIDC_ISSUER")), "/"),
		ClientID:     getenv("MICROBLOG_OIDC_CLIENT_ID"),
		ClientSecret: getenv("MICROBLOG_OIDC_CLIENT_SECRET"),
		Name:         strings.TrimSpace(getenv("MICROBLOG_OIDC_NAME")),
		RedirectURL:  strings.TrimSpace(getenv("MICROBLOG_OIDC_REDIRECT_URL")),
	}
	if o.Issuer == "" {
		for _, name := range []string{"MICROBLOG_OIDC_CLIENT_ID", "MICROBLOG_OIDC_CLIENT_SECRET", "MICROBLOG_OIDC_NAME", "MICROBLOG_OIDC_REDIRECT_URL"} {
			if getenv(name) != "" {
				return fmt.Errorf("%s is set but MICROBLOG_OIDC_ISSUER is not: set the issuer too, or unset %s", name, name)
			}
		}
		return nil
	}
	if err := checkProviderURL(o.Issuer, ""); err != nil {
		return fmt.Errorf("invalid MICROBLOG_OIDC_ISSUER %q: %w", o.Issuer, err)
	}
	if o.ClientID == "" {
		return fmt.Errorf("MICROBLOG_OIDC_CLIENT_ID is not set: give the client id registered with %s", o.Issuer)
	}
	if o.ClientSecret == "" {
		return fmt.Errorf("MICROBLOG_OIDC_CLIENT_SECRET is not set: give the client secret registered with %s", o.Issuer)
	}
	if o.Name == "" {
		o.Name = DefaultOIDCName
	}
	if len(o.Name) > maxOIDCName || strings.IndexFunc(o.Name, unicode.IsControl) >= 0 {
		return fmt.Errorf("invalid MICROBLOG_OIDC_NAME %q: want a label of at most %d bytes on one line", o.Name, maxOIDCName)
	}
	if o.RedirectURL != "" {
		if err := checkProviderURL(o.RedirectURL, api.OIDCCallbackPath); err != nil {
			return fmt.Errorf("invalid MICROBLOG_OIDC_REDIRECT_URL %q: %w", o.RedirectURL, err)
		}
	}
	cfg.OIDC = o
	return nil
}

// checkProviderURL accepts an https URL, or an http one to this machine
// (tokens and codes must not cross a network in the clear), without query
// or fragment, and with path wantPath unless that is empty.
func checkProviderURL(s, wantPath string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return fmt.Errorf("want an absolute URL such as https://sso.example.edu/realms/campus, without query or user")
	case u.Scheme == "http" && !isLoopbackHost(u.Hostname()):
		return fmt.Errorf("want https (plain http only to localhost)")
	case u.Scheme != "https" && u.Scheme != "http":
		return fmt.Errorf("want an https URL")
	case wantPath != "" && u.Path != wantPath:
		return fmt.Errorf("want the path %s", wantPath)
	}
	return nil
}

func isLoopbackHost(h string) bool {
	return h == "localhost" || h == "::1" || strings.HasPrefix(h, "127.")
}

// newRelyingParty is the relying party of cfg, nil when the sign-in is off.
func (o oidcConfig) newRelyingParty() *oidcauth.Client {
	if o.Issuer == "" {
		return nil
	}
	return oidcauth.New(oidcauth.Config{Issuer: o.Issuer, ClientID: o.ClientID, ClientSecret: o.ClientSecret})
}
