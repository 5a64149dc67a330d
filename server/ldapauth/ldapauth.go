// Package ldapauth proves a username and password against an LDAP
// directory (OpenLDAP, Active Directory, a campus's people system) by
// binding as the person's entry, the way the directory itself checks a
// password. It knows no HTTP; the server turns what it proves into a
// session through store.ExternalAccounts.
package ldapauth

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-ldap/ldap/v3"

	"microblog/store"
)

// DefaultTimeout bounds each step of a sign-in against the directory
// (connecting, binding, searching), so that a directory that hangs answers
// 503 soon instead of holding requests.
const DefaultTimeout = 5 * time.Second

// Placeholder is what the DN and filter templates hold where the username
// goes.
const Placeholder = "{username}"

// maxUsername bounds the typed name sent to the directory: no directory
// name is longer, and longer input only costs.
const maxUsername = 256

// ErrUnavailable is what a sign-in returns when the directory cannot be
// reached or fails: 503, never a fallback to a local password.
var ErrUnavailable = store.NewError(store.ErrUnavailable, store.CodeUnavailable, "the directory is unreachable; try again shortly")

// Config is how to reach the directory and find a person's entry in it:
// either UserDN, a template such as uid={username},ou=people,dc=example,dc=edu,
// or SearchBase with SearchFilter, such as (sAMAccountName={username}),
// searched with the BindDN service account when it is set (anonymously
// otherwise).
type Config struct {
	URL          string // ldap:// or ldaps://; empty: LDAP is off
	UserDN       string
	SearchBase   string
	SearchFilter string
	BindDN       string
	BindPassword string
	CAFile       string // PEM file of CAs trusted for ldaps://; empty: the system's
	Timeout      time.Duration
}

// Directory signs people in against one LDAP directory.
type Directory struct {
	cfg Config
	tls *tls.Config
}

// New checks cfg and returns a Directory. Errors name the setting at fault.
// Authenticate's errors say what failed with the directory; the server
// logs those that make it answer 503.
func New(cfg Config) (*Directory, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "ldap" && u.Scheme != "ldaps") || u.Host == "" {
		return nil, fmt.Errorf("invalid MICROBLOG_LDAP_URL %q: want ldap://host[:port] or ldaps://host[:port]", cfg.URL)
	}
	switch {
	case cfg.UserDN == "" && cfg.SearchBase == "":
		return nil, errors.New("MICROBLOG_LDAP_URL is set but neither MICROBLOG_LDAP_USER_DN nor MICROBLOG_LDAP_SEARCH_BASE is: say how to find a person's entry")
	case cfg.UserDN != "" && cfg.SearchBase != "":
		return nil, errors.New("MICROBLOG_LDAP_USER_DN and MICROBLOG_LDAP_SEARCH_BASE are both set: keep one")
	case cfg.UserDN != "" && !strings.Contains(cfg.UserDN, Placeholder):
		return nil, fmt.Errorf("invalid MICROBLOG_LDAP_USER_DN %q: want a template holding %s", cfg.UserDN, Placeholder)
	case cfg.SearchBase != "" && !strings.Contains(cfg.SearchFilter, Placeholder):
		return nil, fmt.Errorf("invalid MICROBLOG_LDAP_SEARCH_FILTER %q: want a filter holding %s, such as (uid=%s)", cfg.SearchFilter, Placeholder, Placeholder)
	case cfg.SearchBase == "" && cfg.SearchFilter != "":
		return nil, errors.New("MICROBLOG_LDAP_SEARCH_FILTER is set without MICROBLOG_LDAP_SEARCH_BASE")
	case (cfg.BindDN == "") != (cfg.BindPassword == ""):
		return nil, errors.New("MICROBLOG_LDAP_BIND_DN and MICROBLOG_LDAP_BIND_PASSWORD go together: set both or neither")
	}
	if cfg.SearchBase != "" {
		if _, err := ldap.CompileFilter(strings.ReplaceAll(cfg.SearchFilter, Placeholder, "x")); err != nil {
			return nil, fmt.Errorf("invalid MICROBLOG_LDAP_SEARCH_FILTER %q: %v", cfg.SearchFilter, err)
		}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	d := &Directory{cfg: cfg, tls: &tls.Config{ServerName: u.Hostname(), MinVersion: tls.VersionTLS12}}
	if cfg.CAFile != "" {
		pem, err := os.ReadFile(cfg.CAFile)
		if err != nil {
			return nil, fmt.Errorf("invalid MICROBLOG_LDAP_CA_FILE: %w", err)
		}
		d.tls.RootCAs = x509.NewCertPool()
		if !d.tls.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("invalid MICROBLOG_LDAP_CA_FILE %q: no PEM certificate in it", cfg.CAFile)
		}
	}
	return d, nil
}

// Authenticate proves password for username by binding as the person's
// entry. It returns the entry's stable id (its entryUUID, Active
// Directory's objectGUID, else its normalised DN) as subject, and the name
// as typed for a new account's username. A wrong name or password, and an
// empty password (which many directories take as an anonymous bind), are
// store.ErrBadCredential; a directory that cannot be reached is
// ErrUnavailable.
func (d *Directory) Authenticate(ctx context.Context, username, password string) (subject, preferredName string, err error) {
	if password == "" || username == "" || len(username) > maxUsername || !utf8.ValidString(username) {
		return "", "", store.ErrBadCredential
	}
	conn, err := d.dial(ctx)
	if err != nil {
		return "", "", err
	}
	defer conn.Close()
	// go-ldap takes no context: closing the connection ends what waits on it.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()

	var entry *ldap.Entry
	dn := strings.ReplaceAll(d.cfg.UserDN, Placeholder, ldap.EscapeDN(username))
	if d.cfg.SearchBase != "" {
		if entry, err = d.find(ctx, conn, username); err != nil {
			return "", "", err
		}
		dn = entry.DN
	}
	if err := conn.Bind(dn, password); err != nil {
		return "", "", d.bindFailure(ctx, err)
	}
	if entry == nil {
		// Read as the person, who may read their own entry, for its id.
		if entry, err = d.read(conn, dn); err != nil {
			return "", "", d.failure(ctx, "read own entry", err)
		}
	}
	return subjectOf(entry), strings.TrimSpace(username), nil
}

// dial connects to the directory within the timeout.
func (d *Directory) dial(ctx context.Context) (*ldap.Conn, error) {
	dialer := &net.Dialer{Timeout: d.cfg.Timeout}
	conn, err := ldap.DialURL(d.cfg.URL, ldap.DialWithDialer(dialer), ldap.DialWithTLSConfig(d.tls))
	if err != nil {
		return nil, d.failure(ctx, "connect", err)
	}
	conn.SetTimeout(d.cfg.Timeout)
	return conn, nil
}

// idAttributes are the attributes a person's stable id is read from.
var idAttributes = []string{"entryUUID", "objectGUID"}

// find searches the person's entry (as the service account, if any). No
// entry, or more than one, is a wrong name.
func (d *Directory) find(ctx context.Context, conn *ldap.Conn, username string) (*ldap.Entry, error) {
	if d.cfg.BindDN != "" {
		if err := conn.Bind(d.cfg.BindDN, d.cfg.BindPassword); err != nil {
			// The service account's password is the operator's to fix, not the user's.
			return nil, d.failure(ctx, "bind as MICROBLOG_LDAP_BIND_DN", err)
		}
	}
	filter := strings.ReplaceAll(d.cfg.SearchFilter, Placeholder, ldap.EscapeFilter(username))
	req := ldap.NewSearchRequest(d.cfg.SearchBase, ldap.ScopeWholeSubtree, ldap.NeverDerefAliases,
		2, int(d.cfg.Timeout.Seconds()), false, filter, idAttributes, nil)
	res, err := conn.Search(req)
	if err != nil && !ldap.IsErrorWithCode(err, ldap.LDAPResultSizeLimitExceeded) {
		return nil, d.failure(ctx, "search", err)
	}
	if res == nil || len(res.Entries) != 1 {
		// Several entries: the filter does not name one person, so none of
		// them is signed in.
		return nil, store.ErrBadCredential
	}
	return res.Entries[0], nil
}

// read reads the entry dn's id attributes.
func (d *Directory) read(conn *ldap.Conn, dn string) (*ldap.Entry, error) {
	req := ldap.NewSearchRequest(dn, ldap.ScopeBaseObject, ldap.NeverDerefAliases,
		1, int(d.cfg.Timeout.Seconds()), false, "(objectClass=*)", idAttributes, nil)
	res, err := conn.Search(req)
	if err != nil {
		return nil, err
	}
	if len(res.Entries) == 0 {
		return &ldap.Entry{DN: dn}, nil // not readable: the DN is the id
	}
	return res.Entries[0], nil
}

// subjectOf is the stable id of an entry: entryUUID (OpenLDAP and most
// others), objectGUID (Active Directory), else the DN in normal form
// (lower-case attribute names and values, no extra spaces), which changes
// if the entry is renamed.
func subjectOf(e *ldap.Entry) string {
	if v := e.GetAttributeValue("entryUUID"); v != "" {
		return strings.ToLower(v)
	}
	if v := e.GetRawAttributeValue("objectGUID"); len(v) > 0 {
		return "guid:" + hex.EncodeToString(v)
	}
	if dn, err := ldap.ParseDN(e.DN); err == nil {
		return strings.ToLower(dn.String())
	}
	return strings.ToLower(e.DN)
}

// refused are the bind results that mean a wrong name or password: the
// entry does not exist, the DN the name made is not one, the password is
// wrong, or the directory refuses this kind of bind for it.
var refused = []uint16{
	ldap.LDAPResultInvalidCredentials,
	ldap.LDAPResultInvalidDNSyntax,
	ldap.LDAPResultNoSuchObject,
	ldap.LDAPResultInappropriateAuthentication,
	ldap.LDAPResultUnwillingToPerform,
}

// bindFailure turns the failure of the person's bind into a wrong
// credential or ErrUnavailable.
func (d *Directory) bindFailure(ctx context.Context, err error) error {
	for _, code := range refused {
		if ldap.IsErrorWithCode(err, code) {
			return store.ErrBadCredential
		}
	}
	return d.failure(ctx, "bind", err)
}

// failure is ErrUnavailable with what went wrong with the directory, for
// the log: the caller is told only ErrUnavailable's message.
func (d *Directory) failure(ctx context.Context, step string, err error) error {
	if ctx.Err() != nil {
		err = ctx.Err() // the request ended, closing the connection
	}
	return fmt.Errorf("ldap %s: %s: %w (%w)", d.cfg.URL, step, ErrUnavailable, err)
}
