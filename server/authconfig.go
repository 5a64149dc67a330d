package main

import (
	"errors"
	"fmt"
	"time"

	"microblog/server/ldapauth"
)

// authConfig is how people sign in: local passwords, and the other
// services (docs/operations.md, "Signing in from elsewhere").
type authConfig struct {
	LocalSignup bool                // MICROBLOG_LOCAL_SIGNUP: whether POST /api/v1/users makes accounts
	LDAP        *ldapauth.Directory // MICROBLOG_LDAP_*; nil: LDAP is off
	LDAPName    string              // MICROBLOG_LDAP_NAME: the directory's label in the front ends
}

// defaultLDAPName is the directory's label when MICROBLOG_LDAP_NAME is unset.
const defaultLDAPName = "Campus directory"

// readAuthSettings reads cfg's sign-in settings from the environment; a bad
// value is an error naming its variable. It runs once every other setting
// is read (the OpenID Connect ones included), since local sign-up may be
// off only beside another way in.
func readAuthSettings(getenv func(string) string, cfg *config) error {
	ac := authConfig{LocalSignup: true, LDAPName: defaultLDAPName}
	switch v := getenv("MICROBLOG_LOCAL_SIGNUP"); v {
	case "", "true":
	case "false":
		ac.LocalSignup = false
	default:
		return fmt.Errorf("invalid MICROBLOG_LOCAL_SIGNUP %q: want true or false", v)
	}
	if v := getenv("MICROBLOG_LDAP_NAME"); v != "" {
		ac.LDAPName = v
	}
	if url := getenv("MICROBLOG_LDAP_URL"); url != "" {
		lc := ldapauth.Config{
			URL:          url,
			UserDN:       getenv("MICROBLOG_LDAP_USER_DN"),
			SearchBase:   getenv("MICROBLOG_LDAP_SEARCH_BASE"),
			SearchFilter: getenv("MICROBLOG_LDAP_SEARCH_FILTER"),
			BindDN:       getenv("MICROBLOG_LDAP_BIND_DN"),
			BindPassword: getenv("MICROBLOG_LDAP_BIND_PASSWORD"),
			CAFile:       getenv("MICROBLOG_LDAP_CA_FILE"),
			Timeout:      ldapauth.DefaultTimeout,
		}
		if err := readEnvDurations(getenv, []envDuration{{"MICROBLOG_LDAP_TIMEOUT", &lc.Timeout, 100 * time.Millisecond}}); err != nil {
			return err
		}
		dir, err := ldapauth.New(lc)
		if err != nil {
			return err
		}
		ac.LDAP = dir
	} else if getenv("MICROBLOG_LDAP_USER_DN") != "" || getenv("MICROBLOG_LDAP_SEARCH_BASE") != "" {
		return errors.New("MICROBLOG_LDAP_USER_DN or MICROBLOG_LDAP_SEARCH_BASE is set without MICROBLOG_LDAP_URL")
	}
	if !ac.LocalSignup && !ac.externalSignIn() && cfg.OIDC.Issuer == "" {
		return errors.New("MICROBLOG_LOCAL_SIGNUP=false needs another way to sign in: set MICROBLOG_LDAP_URL or MICROBLOG_OIDC_ISSUER, or nobody new could join")
	}
	cfg.Auth = ac
	return nil
}

// externalSignIn tells whether the directory signs people in; readAuthSettings
// also counts the OpenID Connect sign-in (cfg.OIDC).
func (ac authConfig) externalSignIn() bool { return ac.LDAP != nil }
