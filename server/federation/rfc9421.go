package federation

import (
	"context"
	"crypto/rsa"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// A small verifier of RFC 9421 HTTP Message Signatures, for what peers
// send: one signature (the first label of Signature-Input), its covered
// components among @method, @target-uri, @authority, @scheme,
// @request-target, @path, @query and plain header fields (no parameters
// such as ;sf or ;req), with rsa-v1_5-sha256 (or rsa-pss-sha512), its
// created within maxSkew. The signature base is built as §2.5 has it,
// with @signature-params being the member's value exactly as sent.

// verifyRFC9421 checks req's RFC 9421 signature.
func (s *Service) verifyRFC9421(ctx context.Context, req *http.Request, body []byte, actorID string) (verified, error) {
	label, params, ok := firstMember(req.Header.Get("Signature-Input"))
	if !ok {
		return verified{}, unsigned("unreadable Signature-Input")
	}
	sig, ok := signatureOf(req.Header.Get("Signature"), label)
	if !ok {
		return verified{}, unsigned("no signature labelled %q", label)
	}
	if !strings.HasPrefix(params, "(") {
		return verified{}, unsigned("unreadable Signature-Input")
	}
	end := strings.IndexByte(params, ')')
	if end < 0 {
		return verified{}, unsigned("unreadable Signature-Input")
	}
	var components []string
	for _, f := range strings.Fields(params[1:end]) {
		if len(f) < 2 || f[0] != '"' || f[len(f)-1] != '"' {
			return verified{}, unsigned("unsupported component %q", f)
		}
		components = append(components, f[1:len(f)-1])
	}
	p := paramsOf(params[end+1:])
	created, err := strconv.ParseInt(p["created"], 10, 64)
	if err != nil {
		return verified{}, unsigned("no created time")
	}
	if d := time.Since(time.Unix(created, 0)); d > maxSkew || d < -maxSkew {
		return verified{}, unsigned("created is more than an hour away")
	}
	if exp, err := strconv.ParseInt(p["expires"], 10, 64); err == nil && time.Now().Unix() > exp {
		return verified{}, unsigned("the signature expired")
	}
	cover := map[string]bool{}
	for _, c := range components {
		cover[c] = true
	}
	if !cover["@method"] || !(cover["@target-uri"] || cover["@authority"] && (cover["@path"] || cover["@request-target"])) {
		return verified{}, unsigned("the signature must cover the method and target")
	}
	if body != nil && !cover["content-digest"] && !cover["digest"] {
		return verified{}, unsigned("the signature must cover the content digest")
	}
	var b strings.Builder
	for _, c := range components {
		v, ok := s.componentValue(req, c)
		if !ok {
			return verified{}, unsigned("component %q is missing", c)
		}
		b.WriteString(`"` + c + `": ` + v + "\n")
	}
	b.WriteString(`"@signature-params": ` + params)
	alg := p["alg"]
	return s.withKey(ctx, p["keyid"], actorID, func(k *rsa.PublicKey) error {
		return rsaVerify(k, alg, []byte(b.String()), sig)
	})
}

// componentValue is a covered component's value in req.
func (s *Service) componentValue(req *http.Request, c string) (string, bool) {
	switch c {
	case "@method":
		return strings.ToUpper(req.Method), true
	case "@target-uri":
		return s.base() + req.URL.RequestURI(), true
	case "@authority":
		return strings.ToLower(s.Host()), true
	case "@scheme":
		return strings.SplitN(s.base(), ":", 2)[0], true
	case "@request-target":
		return req.URL.RequestURI(), true
	case "@path":
		return req.URL.EscapedPath(), true
	case "@query":
		return "?" + req.URL.RawQuery, true
	}
	if strings.HasPrefix(c, "@") {
		return "", false
	}
	vs := req.Header.Values(c)
	if c == "host" && len(vs) == 0 {
		vs = []string{req.Host}
	}
	if len(vs) == 0 {
		return "", false
	}
	for i := range vs {
		vs[i] = strings.TrimSpace(vs[i])
	}
	return strings.Join(vs, ", "), true
}

// firstMember reads the first member of a structured dictionary header:
// its label and its value as sent.
func firstMember(h string) (label, value string, ok bool) {
	h = strings.TrimSpace(h)
	i := strings.IndexByte(h, '=')
	if i <= 0 {
		return "", "", false
	}
	label, rest := h[:i], h[i+1:]
	// The value runs to the first comma outside quotes and parentheses.
	depth, quoted := 0, false
	for j := 0; j < len(rest); j++ {
		switch ch := rest[j]; {
		case ch == '\\' && quoted:
			j++
		case ch == '"':
			quoted = !quoted
		case ch == '(' && !quoted:
			depth++
		case ch == ')' && !quoted:
			depth--
		case ch == ',' && !quoted && depth == 0:
			return label, strings.TrimSpace(rest[:j]), true
		}
	}
	return label, strings.TrimSpace(rest), true
}

// signatureOf reads the byte sequence labelled label in a Signature header.
func signatureOf(h, label string) ([]byte, bool) {
	for _, part := range strings.Split(h, ",") {
		l, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || l != label || len(v) < 2 || v[0] != ':' || v[len(v)-1] != ':' {
			continue
		}
		b, err := base64.StdEncoding.DecodeString(v[1 : len(v)-1])
		return b, err == nil
	}
	return nil, false
}

// paramsOf reads ;name=value parameters (values quoted or bare).
func paramsOf(s string) map[string]string {
	out := map[string]string{}
	for _, p := range strings.Split(s, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok {
			continue
		}
		out[k] = strings.Trim(v, `"`)
	}
	return out
}
