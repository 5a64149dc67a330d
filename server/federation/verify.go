package federation

import (
	"context"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/go-fed/httpsig"

	"microblog/store"
)

// Checking the signatures of what arrives (CONTRACT.md §16): a request is
// taken only with a valid HTTP Signature, draft-cavage (with go-fed/httpsig)
// or RFC 9421 (rfc9421.go), covering the method and target, the host, the
// date (no more than maxSkew away) and, with a body, a Digest or
// Content-Digest that matches it; the key is read from its owner's actor.
// Anything else is errUnsigned (401).

// maxSkew is how far a signed request's date may be from now.
const maxSkew = time.Hour

// errUnsigned is a request whose signature is missing or does not hold.
var errUnsigned = errors.New("federation: missing or invalid signature")

// unsigned wraps why a signature was refused.
func unsigned(format string, a ...any) error {
	return fmt.Errorf("%w: %s", errUnsigned, fmt.Sprintf(format, a...))
}

// verified is who signed a request.
type verified struct {
	keyID string
	actor store.RemoteActor
}

// verifyRequest checks req's signature (and, with a body, its digest);
// actorID, when known (the activity's actor), must own the key.
func (s *Service) verifyRequest(ctx context.Context, req *http.Request, body []byte, actorID string) (verified, error) {
	if err := checkDigest(req, body); err != nil {
		return verified{}, err
	}
	if req.Header.Get("Signature-Input") != "" {
		return s.verifyRFC9421(ctx, req, body, actorID)
	}
	return s.verifyCavage(ctx, req, body, actorID)
}

// reHeaders reads the headers parameter of a draft-cavage signature.
var reHeaders = regexp.MustCompile(`(?:^|,)\s*headers\s*=\s*"([^"]*)"`)

// verifyCavage checks a draft-cavage Signature (or Authorization: Signature).
func (s *Service) verifyCavage(ctx context.Context, req *http.Request, body []byte, actorID string) (verified, error) {
	raw := req.Header.Get("Signature")
	if raw == "" {
		raw = strings.TrimPrefix(req.Header.Get("Authorization"), "Signature ")
	}
	if raw == "" {
		return verified{}, unsigned("no signature")
	}
	m := reHeaders.FindStringSubmatch(raw)
	if m == nil {
		return verified{}, unsigned("the signature names no headers")
	}
	covered := map[string]bool{}
	for _, h := range strings.Fields(strings.ToLower(m[1])) {
		covered[h] = true
	}
	if !covered[httpsig.RequestTarget] || !covered["host"] || !covered["date"] {
		return verified{}, unsigned("the signature must cover (request-target), host and date")
	}
	if body != nil && !covered["digest"] && !covered["content-digest"] {
		return verified{}, unsigned("the signature must cover the digest")
	}
	if err := checkDate(req.Header.Get("Date"), true); err != nil {
		return verified{}, err
	}
	v, err := httpsig.NewVerifier(req)
	if err != nil {
		return verified{}, unsigned("%v", err)
	}
	return s.withKey(ctx, v.KeyId(), actorID, func(k *rsa.PublicKey) error {
		return v.Verify(k, httpsig.RSA_SHA256)
	})
}

// checkDate refuses a missing Date (when it is signed) or one more than
// maxSkew away.
func checkDate(date string, required bool) error {
	if date == "" {
		if required {
			return unsigned("no date")
		}
		return nil
	}
	t, err := http.ParseTime(date)
	if err != nil {
		return unsigned("unreadable date")
	}
	if d := time.Since(t); d > maxSkew || d < -maxSkew {
		return unsigned("date is more than an hour away")
	}
	return nil
}

// checkDigest compares the body with its Digest (SHA-256 or SHA-512) and
// Content-Digest (RFC 9530, sha-256 or sha-512): a body needs one, and
// each one given must match.
func checkDigest(req *http.Request, body []byte) error {
	if body == nil {
		return nil
	}
	d, cd := req.Header.Get("Digest"), req.Header.Get("Content-Digest")
	if d == "" && cd == "" {
		return unsigned("no digest of the body")
	}
	if d != "" {
		ok := false
		for _, part := range strings.Split(d, ",") {
			alg, val, _ := strings.Cut(strings.TrimSpace(part), "=")
			if sum := digestOf(strings.ToLower(alg), body); sum != "" {
				if sum != val {
					return unsigned("digest does not match the body")
				}
				ok = true
			}
		}
		if !ok {
			return unsigned("no digest algorithm known")
		}
	}
	if cd != "" {
		ok := false
		for _, part := range strings.Split(cd, ",") {
			alg, val, _ := strings.Cut(strings.TrimSpace(part), "=")
			if sum := digestOf(strings.ToLower(alg), body); sum != "" {
				if ":"+sum+":" != strings.TrimSpace(val) {
					return unsigned("content-digest does not match the body")
				}
				ok = true
			}
		}
		if !ok {
			return unsigned("no content-digest algorithm known")
		}
	}
	return nil
}

// digestOf is body's digest under alg, base64, "" for an unknown alg.
func digestOf(alg string, body []byte) string {
	switch alg {
	case "sha-256":
		sum := sha256.Sum256(body)
		return base64.StdEncoding.EncodeToString(sum[:])
	case "sha-512":
		sum := sha512.Sum512(body)
		return base64.StdEncoding.EncodeToString(sum[:])
	}
	return ""
}

// withKey finds the actor that owns keyID (actorID's, when given: it must
// be the owner) and runs check with its key, reading the actor again once
// when the key it knew fails (a key rotated).
func (s *Service) withKey(ctx context.Context, keyID, actorID string, check func(*rsa.PublicKey) error) (verified, error) {
	if keyID == "" {
		return verified{}, unsigned("no keyId")
	}
	owner := actorID
	if owner == "" {
		var err error
		if owner, err = s.keyOwner(ctx, keyID); err != nil {
			return verified{}, err
		}
	}
	if s.IsLocal(owner) {
		return verified{}, unsigned("a local actor's key")
	}
	for refresh := range 2 {
		a, err := s.RemoteActor(ctx, owner, refresh == 1)
		if err != nil {
			if errors.Is(err, store.ErrDomainBlocked) || errors.Is(err, store.ErrUnavailable) {
				return verified{}, err
			}
			return verified{}, unsigned("the key's owner %q could not be read", owner)
		}
		if a.KeyID == keyID && a.KeyPEM != "" {
			k, err := parsePublicKey(a.KeyPEM)
			if err == nil && check(k) == nil {
				return verified{keyID: keyID, actor: a}, nil
			}
		}
	}
	return verified{}, unsigned("the signature does not verify with %q's key %q", owner, keyID)
}

// keyOwner is the actor that owns keyID: the key's URL without its
// fragment when that is an actor known or served, else the owner its key
// document names.
func (s *Service) keyOwner(ctx context.Context, keyID string) (string, error) {
	base, _, _ := strings.Cut(keyID, "#")
	if a, err := s.st.RemoteActorByID(ctx, base); err == nil && a.KeyID == keyID {
		return base, nil
	}
	var d inDoc
	if _, err := s.fetchJSON(ctx, keyID, activityAccept, &d); err != nil {
		if errors.Is(err, store.ErrDomainBlocked) {
			return "", err
		}
		return "", unsigned("the key %q could not be read", keyID)
	}
	if d.Owner != "" {
		return d.Owner, nil
	}
	if d.Inbox != "" { // the actor itself, its key inside
		return d.ID, nil
	}
	return "", unsigned("the key %q names no owner", keyID)
}

// rsaVerify checks an RSA signature of base: PKCS#1 v1.5 with SHA-256, or
// PSS with SHA-512.
func rsaVerify(k *rsa.PublicKey, alg string, base, sig []byte) error {
	switch alg {
	case "", "rsa-v1_5-sha256":
		sum := sha256.Sum256(base)
		return rsa.VerifyPKCS1v15(k, crypto.SHA256, sum[:], sig)
	case "rsa-pss-sha512":
		sum := sha512.Sum512(base)
		return rsa.VerifyPSS(k, crypto.SHA512, sum[:], sig, nil)
	}
	return unsigned("unsupported algorithm %q", alg)
}
