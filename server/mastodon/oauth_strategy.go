package mastodon

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"strings"

	"github.com/ory/fosite"

	"microblog/store"
)

// appTokenPrefix starts the part after TokenPrefix of an app's own token
// (client credentials); a user's token is TokenPrefix and a session token
// of the store, which begins with the user's id.
const appTokenPrefix = "app."

// tokenStrategy makes fosite's codes and tokens. A user's access token is a
// session of the store, so that suspension, logging out everywhere and the
// live feed's closing of revoked sessions apply to it unchanged. Every
// signature, the only form in which a code or token is kept, is the SHA-256
// of the secret (store.TokenHash), as sessions are kept: a user token's
// signature is its session's hash.
type tokenStrategy struct {
	st store.OAuth
}

// randomSecret is 256 random bits, URL-safe.
func randomSecret() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// newSecret is a random secret and its signature.
func newSecret() (string, string, error) {
	s, err := randomSecret()
	if err != nil {
		return "", "", err
	}
	return s, store.TokenHash(s), nil
}

// AccessTokenSignature is the hash of the token without TokenPrefix.
func (tokenStrategy) AccessTokenSignature(_ context.Context, token string) string {
	return store.TokenHash(strings.TrimPrefix(token, TokenPrefix))
}

// GenerateAccessToken opens a session for the grant's user, or makes an
// app token for a grant of the app alone.
func (s tokenStrategy) GenerateAccessToken(ctx context.Context, r fosite.Requester) (string, string, error) {
	var raw string
	if uid := subjectUID(r.GetSession()); uid != 0 {
		var err error
		if raw, err = s.st.OpenOAuthSession(ctx, uid); err != nil {
			return "", "", err
		}
	} else {
		secret, err := randomSecret()
		if err != nil {
			return "", "", err
		}
		raw = appTokenPrefix + secret
	}
	return TokenPrefix + raw, store.TokenHash(raw), nil
}

// ValidateAccessToken checks a token's form; whether it is live is the
// store's to tell (resolve).
func (tokenStrategy) ValidateAccessToken(_ context.Context, _ fosite.Requester, token string) error {
	if !strings.HasPrefix(token, TokenPrefix) {
		return fosite.ErrInvalidTokenFormat
	}
	return nil
}

// RefreshTokenSignature is the token's hash.
func (tokenStrategy) RefreshTokenSignature(_ context.Context, token string) string {
	return store.TokenHash(token)
}

// GenerateRefreshToken makes a random token (none is given out: see
// errNoRefresh).
func (tokenStrategy) GenerateRefreshToken(context.Context, fosite.Requester) (string, string, error) {
	return newSecret()
}

// ValidateRefreshToken accepts the form of any token; a refresh token's
// grant is looked up in storage, where there is none.
func (tokenStrategy) ValidateRefreshToken(context.Context, fosite.Requester, string) error {
	return nil
}

// AuthorizeCodeSignature is the code's hash.
func (tokenStrategy) AuthorizeCodeSignature(_ context.Context, code string) string {
	return store.TokenHash(code)
}

// GenerateAuthorizeCode makes a random code.
func (tokenStrategy) GenerateAuthorizeCode(context.Context, fosite.Requester) (string, string, error) {
	return newSecret()
}

// ValidateAuthorizeCode accepts the form of any code: a code's grant
// expires with its record (codeTTL), so one that is found is live.
func (tokenStrategy) ValidateAuthorizeCode(context.Context, fosite.Requester, string) error {
	return nil
}
