package federation

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"

	"microblog/store"
)

// localKey is a local user's signing key (uid 0: the instance actor's),
// parsed once per process.
type localKey struct {
	priv   *rsa.PrivateKey
	pubPEM string
}

// keyBits is the size of the RSA keys made here, as Mastodon's.
const keyBits = 2048

// localKey returns uid's signing key, made and stored on first need
// (fed:key:<uid>). The private half is never logged nor served.
func (s *Service) localKey(ctx context.Context, uid int64) (*localKey, error) {
	if k, ok := s.keys.Load(uid); ok {
		return k.(*localKey), nil
	}
	if uid != 0 {
		// No key is made for an account deleted (or never there): its
		// keys went with it (a late event of its signs nothing).
		if u, err := s.st.User(ctx, uid, 0); err != nil || u.Remote {
			if err == nil {
				err = store.ErrUserNotFound
			}
			return nil, fmt.Errorf("federation: no signing key for user %d: %w", uid, err)
		}
	}
	privPEM, pubPEM, err := s.st.LocalKey(ctx, uid, newKeyPair)
	if err != nil {
		return nil, err
	}
	k, err := parseLocalKey(privPEM, pubPEM)
	if err != nil {
		return nil, err
	}
	s.keys.Store(uid, k)
	return k, nil
}

// parseLocalKey reads a stored signing key (PKCS#1 PEM) and its public
// half's PEM.
func parseLocalKey(privPEM, pubPEM string) (*localKey, error) {
	block, _ := pem.Decode([]byte(privPEM))
	if block == nil {
		return nil, errors.New("federation: stored signing key is not PEM")
	}
	priv, err := x509.ParsePKCS1PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("federation: stored signing key: %w", err)
	}
	return &localKey{priv: priv, pubPEM: pubPEM}, nil
}

// errNoKey is a key asked for that is not there (keyOf).
var errNoKey = errors.New("federation: no signing key")

// keyOf is uid's private key's PEM as stored, without making one.
func (s *Service) keyOf(ctx context.Context, uid int64) (string, error) {
	priv, _, err := s.st.LocalKey(ctx, uid, func() (string, string, error) { return "", "", errNoKey })
	return priv, err
}

// newKeyPair makes an RSA key pair as PEM: PKCS#1 private, PKIX public.
func newKeyPair() (string, string, error) {
	priv, err := rsa.GenerateKey(rand.Reader, keyBits)
	if err != nil {
		return "", "", err
	}
	pub, err := x509.MarshalPKIXPublicKey(&priv.PublicKey)
	if err != nil {
		return "", "", err
	}
	privPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(priv)})
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub})
	return string(privPEM), string(pubPEM), nil
}

// parsePublicKey reads a remote actor's publicKeyPem: PKIX ("PUBLIC KEY")
// or PKCS#1 ("RSA PUBLIC KEY").
func parsePublicKey(p string) (*rsa.PublicKey, error) {
	block, _ := pem.Decode([]byte(p))
	if block == nil {
		return nil, errors.New("public key is not PEM")
	}
	if k, err := x509.ParsePKIXPublicKey(block.Bytes); err == nil {
		if rk, ok := k.(*rsa.PublicKey); ok {
			return rk, nil
		}
		return nil, errors.New("public key is not RSA")
	}
	k, err := x509.ParsePKCS1PublicKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("public key: %w", err)
	}
	return k, nil
}
