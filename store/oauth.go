package store

import (
	"context"
	"time"
)

// OAuthKind names one kind of record of the Mastodon API's OAuth 2.0
// server. Each kind is its own key family.
type OAuthKind string

// The kinds of OAuth record.
const (
	OAuthClient  OAuthKind = "client"  // a registered app, by client id
	OAuthCode    OAuthKind = "code"    // an authorization code's grant, by the code's hash
	OAuthPKCE    OAuthKind = "pkce"    // an authorization code's PKCE challenge, by the code's hash
	OAuthToken   OAuthKind = "token"   // an access token's grant, by the token's hash
	OAuthRequest OAuthKind = "request" // the access token's hash of a grant, by the grant's request id
)

// OAuth keeps what the OAuth 2.0 server of the Mastodon API needs of a store.
// Its records are the server's, opaque to the store; their keys are never
// secrets (a client id, a hash of a code or token, a request id), so that
// no code or token is ever kept in the clear.
type OAuth interface {
	// PutOAuth keeps record under (kind, key) for ttl (zero: no expiry),
	// replacing any record there.
	PutOAuth(ctx context.Context, kind OAuthKind, key string, record []byte, ttl time.Duration) error
	// OAuthRecord returns the record under (kind, key), sliding its expiry
	// to slide from now when slide is not zero; ErrNotFound when there is none.
	OAuthRecord(ctx context.Context, kind OAuthKind, key string, slide time.Duration) ([]byte, error)
	// TakeOAuth returns and deletes the record under (kind, key) in one
	// step; ErrNotFound when there is none.
	TakeOAuth(ctx context.Context, kind OAuthKind, key string) ([]byte, error)
	// CheckPassword proves a name and password as Login does (the same
	// errors, under at's guard) without opening a session.
	CheckPassword(ctx context.Context, username, password string, at Attempt) (User, error)
	// OpenOAuthSession opens a new session of uid for an OAuth grant,
	// returning its token; ErrSuspended for a suspended user. It ends as a
	// login's session does, but is valid only through AuthenticateOAuth:
	// Accounts.Authenticate (the native API, /ws) refuses it.
	OpenOAuthSession(ctx context.Context, uid int64) (string, error)
	// AuthenticateOAuth returns the user and token hash of a session
	// OpenOAuthSession opened; ErrNotLoggedIn for any other token.
	AuthenticateOAuth(ctx context.Context, token string) (uid int64, tokenHash string, err error)
}
