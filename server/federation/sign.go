package federation

import (
	"context"
	"net/http"
	"time"

	"github.com/go-fed/httpsig"
)

// Signing of what the service sends (CONTRACT.md §16): draft-cavage HTTP
// Signatures, rsa-sha256, over (request-target), host and date, and digest
// (SHA-256 of the body) when there is a body; with go-fed/httpsig.

// signedHeaders are the headers a request without a body signs; a POST
// adds digest.
var signedHeaders = []string{httpsig.RequestTarget, "host", "date"}

// Sign signs req (whose body, if any, is body) with the key of local user
// uid (0: the instance actor), setting Date, Host, Digest and Signature.
// Fetches and deliveries both go through it.
func (s *Service) Sign(ctx context.Context, req *http.Request, uid int64, body []byte) error {
	k, err := s.localKey(ctx, uid)
	if err != nil {
		return err
	}
	return signRequest(req, body, s.KeyID(uid), k)
}

// signRequest signs req with k under keyID.
func signRequest(req *http.Request, body []byte, keyID string, k *localKey) error {
	headers := signedHeaders
	if body != nil {
		headers = append(headers[:len(headers):len(headers)], "digest")
	}
	req.Header.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	req.Header.Set("Host", req.URL.Host)
	// A Signer is not safe for concurrent use: one per request is cheap.
	signer, _, err := httpsig.NewSigner([]httpsig.Algorithm{httpsig.RSA_SHA256}, httpsig.DigestSha256, headers, httpsig.Signature, 0)
	if err != nil {
		return err
	}
	if body == nil {
		return signer.SignRequest(k.priv, keyID, req, nil)
	}
	return signer.SignRequest(k.priv, keyID, req, body)
}
