package mastodon

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/ory/fosite"

	"microblog/store"
)

// How long the OAuth records live. Mastodon's codes last ten minutes and
// its tokens until revoked; ours slide on use (resolve), like sessions.
const (
	codeTTL  = 10 * time.Minute
	tokenTTL = 90 * 24 * time.Hour
)

// grantRecord is what the OAuth server keeps of a fosite request (an
// authorization code's, a PKCE challenge's or an access token's): never a
// code, token, secret or password, only the form fields listed in keptForm.
type grantRecord struct {
	ID        string     `json:"id"`
	At        time.Time  `json:"at"`
	ClientID  string     `json:"client_id"`
	Requested []string   `json:"requested,omitempty"`
	Granted   []string   `json:"granted,omitempty"`
	Form      url.Values `json:"form,omitempty"`
	UID       int64      `json:"uid,omitempty"`  // 0: an app's own grant (client credentials)
	Used      bool       `json:"used,omitempty"` // an authorization code already exchanged
}

// keptForm are the request parameters the token endpoint reads back from
// a stored authorize request (redirect_uri must match; PKCE's challenge).
var keptForm = []string{"redirect_uri", "code_challenge", "code_challenge_method", "response_type", "scope"}

// recordOf is what is kept of r.
func recordOf(r fosite.Requester) grantRecord {
	g := grantRecord{ID: r.GetID(), At: r.GetRequestedAt(), ClientID: r.GetClient().GetID(),
		Requested: r.GetRequestedScopes(), Granted: r.GetGrantedScopes(), Form: url.Values{}}
	for _, k := range keptForm {
		if v, ok := r.GetRequestForm()[k]; ok {
			g.Form[k] = v
		}
	}
	g.UID = subjectUID(r.GetSession())
	return g
}

// subjectUID is the user a fosite session is for, 0 for an app alone.
func subjectUID(s fosite.Session) int64 {
	if s == nil {
		return 0
	}
	uid, _ := strconv.ParseInt(s.GetSubject(), 10, 64)
	return uid
}

// userSession is the fosite session of uid's grant.
func userSession(uid int64) *fosite.DefaultSession {
	s := &fosite.DefaultSession{}
	if uid != 0 {
		s.Subject = strconv.FormatInt(uid, 10)
	}
	return s
}

// oauthStorage is fosite's storage over the store's OAuth records.
type oauthStorage struct {
	st store.Service
}

// appRecord is a registered app (POST /api/v1/apps); its secret is kept as
// its SHA-256 only.
type appRecord struct {
	Name         string    `json:"name"`
	Website      string    `json:"website,omitempty"`
	RedirectURIs []string  `json:"redirect_uris"`
	Scopes       []string  `json:"scopes"`
	SecretHash   []byte    `json:"secret_hash"`
	Created      time.Time `json:"created"`
}

// app reads the app of clientID.
func (s oauthStorage) app(ctx context.Context, clientID string) (appRecord, error) {
	var app appRecord
	err := s.get(ctx, store.OAuthClient, clientID, 0, &app)
	return app, err
}

// GetClient is fosite's view of the app of id.
func (s oauthStorage) GetClient(ctx context.Context, id string) (fosite.Client, error) {
	app, err := s.app(ctx, id)
	if err != nil {
		return nil, err
	}
	return &fosite.DefaultClient{ID: id, Secret: app.SecretHash, RedirectURIs: app.RedirectURIs,
		GrantTypes:    []string{"authorization_code", "client_credentials"},
		ResponseTypes: []string{"code"}, Scopes: app.Scopes}, nil
}

// ClientAssertionJWTValid refuses JWT client assertions, which no Mastodon
// client sends and this server does not take.
func (oauthStorage) ClientAssertionJWTValid(context.Context, string) error {
	return fosite.ErrJTIKnown
}

// SetClientAssertionJWT refuses JWT client assertions (see ClientAssertionJWTValid).
func (oauthStorage) SetClientAssertionJWT(context.Context, string, time.Time) error {
	return fosite.ErrJTIKnown
}

// get reads the record under (kind, key) into v; fosite.ErrNotFound when
// there is none.
func (s oauthStorage) get(ctx context.Context, kind store.OAuthKind, key string, slide time.Duration, v any) error {
	b, err := s.st.OAuthRecord(ctx, kind, key, slide)
	if errors.Is(err, store.ErrNotFound) {
		return fosite.ErrNotFound
	}
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("oauth: read %s record: %w", kind, err)
	}
	return nil
}

// put keeps v under (kind, key) for ttl.
func (s oauthStorage) put(ctx context.Context, kind store.OAuthKind, key string, v any, ttl time.Duration) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("oauth: write %s record: %w", kind, err)
	}
	return s.st.PutOAuth(ctx, kind, key, b, ttl)
}

// request rebuilds the fosite request of a kept grant.
func (s oauthStorage) request(ctx context.Context, g grantRecord) (*fosite.Request, error) {
	client, err := s.GetClient(ctx, g.ClientID)
	if err != nil {
		return nil, err
	}
	r := fosite.NewRequest()
	r.ID, r.RequestedAt, r.Client, r.Form = g.ID, g.At, client, g.Form
	r.RequestedScope, r.GrantedScope = g.Requested, g.Granted
	r.Session = userSession(g.UID)
	return r, nil
}

// grant reads the grant under (kind, key) as a fosite request.
func (s oauthStorage) grant(ctx context.Context, kind store.OAuthKind, key string) (*fosite.Request, grantRecord, error) {
	var g grantRecord
	if err := s.get(ctx, kind, key, 0, &g); err != nil {
		return nil, g, err
	}
	r, err := s.request(ctx, g)
	return r, g, err
}

// CreateAuthorizeCodeSession keeps the grant of a new code, by its hash.
func (s oauthStorage) CreateAuthorizeCodeSession(ctx context.Context, signature string, r fosite.Requester) error {
	return s.put(ctx, store.OAuthCode, signature, recordOf(r), codeTTL)
}

// GetAuthorizeCodeSession reads a code's grant; fosite.ErrInvalidatedAuthorizeCode
// (with the grant, so that fosite revokes its tokens) for a code used before.
func (s oauthStorage) GetAuthorizeCodeSession(ctx context.Context, signature string, _ fosite.Session) (fosite.Requester, error) {
	r, g, err := s.grant(ctx, store.OAuthCode, signature)
	if err != nil {
		return nil, err
	}
	if g.Used {
		return r, fosite.ErrInvalidatedAuthorizeCode
	}
	return r, nil
}

// InvalidateAuthorizeCodeSession marks a code used, for the rest of its life.
func (s oauthStorage) InvalidateAuthorizeCodeSession(ctx context.Context, signature string) error {
	var g grantRecord
	if err := s.get(ctx, store.OAuthCode, signature, 0, &g); err != nil {
		return err
	}
	g.Used = true
	left := codeTTL - time.Since(g.At)
	if left < time.Second {
		left = time.Second
	}
	return s.put(ctx, store.OAuthCode, signature, g, left)
}

// CreatePKCERequestSession keeps a code's PKCE challenge, by the code's hash.
func (s oauthStorage) CreatePKCERequestSession(ctx context.Context, signature string, r fosite.Requester) error {
	return s.put(ctx, store.OAuthPKCE, signature, recordOf(r), codeTTL)
}

// GetPKCERequestSession reads a code's PKCE challenge.
func (s oauthStorage) GetPKCERequestSession(ctx context.Context, signature string, _ fosite.Session) (fosite.Requester, error) {
	r, _, err := s.grant(ctx, store.OAuthPKCE, signature)
	return r, err
}

// DeletePKCERequestSession forgets a code's PKCE challenge.
func (s oauthStorage) DeletePKCERequestSession(ctx context.Context, signature string) error {
	return s.take(ctx, store.OAuthPKCE, signature, nil)
}

// take deletes the record under (kind, key), reading it into v unless nil;
// a record already gone is no error.
func (s oauthStorage) take(ctx context.Context, kind store.OAuthKind, key string, v any) error {
	b, err := s.st.TakeOAuth(ctx, kind, key)
	if errors.Is(err, store.ErrNotFound) {
		return fosite.ErrNotFound
	}
	if err != nil || v == nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// CreateAccessTokenSession keeps a new access token's grant by the token's
// hash, and the hash by the grant's request id, which revocation goes by.
func (s oauthStorage) CreateAccessTokenSession(ctx context.Context, signature string, r fosite.Requester) error {
	if err := s.put(ctx, store.OAuthToken, signature, recordOf(r), tokenTTL); err != nil {
		return err
	}
	return s.put(ctx, store.OAuthRequest, r.GetID(), signature, tokenTTL)
}

// GetAccessTokenSession reads an access token's grant.
func (s oauthStorage) GetAccessTokenSession(ctx context.Context, signature string, _ fosite.Session) (fosite.Requester, error) {
	r, _, err := s.grant(ctx, store.OAuthToken, signature)
	return r, err
}

// DeleteAccessTokenSession ends an access token: its grant, and for a
// user's token the session it is, everywhere at once (the live feed closes
// its sockets).
func (s oauthStorage) DeleteAccessTokenSession(ctx context.Context, signature string) error {
	var g grantRecord
	if err := s.take(ctx, store.OAuthToken, signature, &g); err != nil {
		if errors.Is(err, fosite.ErrNotFound) {
			return nil
		}
		return err
	}
	if g.UID == 0 {
		return nil
	}
	return s.st.Logout(ctx, g.UID, signature)
}

// RevokeAccessToken ends the access token of the grant requestID.
func (s oauthStorage) RevokeAccessToken(ctx context.Context, requestID string) error {
	var signature string
	if err := s.take(ctx, store.OAuthRequest, requestID, &signature); err != nil {
		if errors.Is(err, fosite.ErrNotFound) {
			return nil
		}
		return err
	}
	return s.DeleteAccessTokenSession(ctx, signature)
}

// errNoRefresh: this server gives out no refresh tokens, as Mastodon does
// not by default; its access tokens live until revoked.
var errNoRefresh = errors.New("oauth: no refresh tokens are given out")

// CreateRefreshTokenSession is never called: no grant carries the refresh
// scope (oauthConfig's RefreshTokenScopes).
func (oauthStorage) CreateRefreshTokenSession(context.Context, string, string, fosite.Requester) error {
	return errNoRefresh
}

// GetRefreshTokenSession finds no refresh token: there are none.
func (oauthStorage) GetRefreshTokenSession(context.Context, string, fosite.Session) (fosite.Requester, error) {
	return nil, fosite.ErrNotFound
}

// DeleteRefreshTokenSession has no refresh token to delete.
func (oauthStorage) DeleteRefreshTokenSession(context.Context, string) error { return nil }

// RotateRefreshToken has no refresh token to rotate.
func (oauthStorage) RotateRefreshToken(context.Context, string, string) error { return nil }

// RevokeRefreshToken has no refresh token to revoke.
func (oauthStorage) RevokeRefreshToken(context.Context, string) error { return nil }

// secretHasher checks client secrets by SHA-256: they are 256 random bits
// made here, which a slow hash (fosite's default bcrypt) would not make
// any harder to guess, only every token request slower.
type secretHasher struct{}

// Hash is the SHA-256 of a secret.
func (secretHasher) Hash(_ context.Context, data []byte) ([]byte, error) {
	sum := sha256.Sum256(data)
	return sum[:], nil
}

// Compare tells whether data is the secret of hash, in constant time.
func (secretHasher) Compare(_ context.Context, hash, data []byte) error {
	sum := sha256.Sum256(data)
	if subtle.ConstantTimeCompare(hash, sum[:]) != 1 {
		return errors.New("oauth: wrong client secret")
	}
	return nil
}
