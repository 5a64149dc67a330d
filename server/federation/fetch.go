package federation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"

	"microblog/store"
)

// Fetching remote documents safely: only https:// (http:// too with
// AllowPrivate), never a loopback, private, link-local or otherwise
// special address (checked on the address actually dialed, so a name that
// resolves to 127.0.0.1, or a redirect to one, is refused), at most
// maxRedirects redirects each checked alike, bounded in time and size, no
// blocked domain; every fetch is signed by the instance actor, as servers
// in secure mode ask.

// maxRedirects bounds the redirects one fetch follows.
const maxRedirects = 3

// errRefusedAddress is a peer the fetcher may not reach.
var errRefusedAddress = errors.New("federation: refusing to connect to a private or special address")

// ErrFetch is a remote document that could not be read as it should.
var ErrFetch = errors.New("federation: fetch failed")

// newSafeClient is the client of fetches and deliveries.
func newSafeClient(allowPrivate bool, timeout time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
	if !allowPrivate {
		dialer.Control = func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || !publicAddr(ap.Addr()) {
				return errRefusedAddress
			}
			return nil
		}
	}
	tr := &http.Transport{
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &http.Client{
		Transport: tr,
		Timeout:   timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > maxRedirects {
				return fmt.Errorf("%w: more than %d redirects", ErrFetch, maxRedirects)
			}
			return checkURL(req.URL, allowPrivate)
		},
	}
}

// publicAddr tells whether ip is an address on the public internet.
func publicAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	return ip.IsValid() && !ip.IsLoopback() && !ip.IsPrivate() && !ip.IsLinkLocalUnicast() &&
		!ip.IsLinkLocalMulticast() && !ip.IsMulticast() && !ip.IsUnspecified() && !ip.IsInterfaceLocalMulticast() &&
		!cgnat.Contains(ip) && !(ip.Is6() && ip.As16()[0] == 0x20 && ip.As16()[1] == 0x01 && ip.As16()[2] == 0x0d && ip.As16()[3] == 0xb8)
}

// cgnat is the carrier-grade NAT range, private in all but name.
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// checkURL refuses what the fetcher may not ask for, before any dial.
func checkURL(u *url.URL, allowPrivate bool) error {
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && allowPrivate:
	default:
		return fmt.Errorf("%w: %s URLs are refused", ErrFetch, u.Scheme)
	}
	if u.Host == "" || u.User != nil {
		return fmt.Errorf("%w: no host", ErrFetch)
	}
	if !allowPrivate {
		if ip, err := netip.ParseAddr(u.Hostname()); err == nil && !publicAddr(ip) {
			return errRefusedAddress
		}
		if h := u.Hostname(); h == "localhost" || len(h) > 10 && h[len(h)-10:] == ".localhost" {
			return errRefusedAddress
		}
	}
	return nil
}

// checkPeer refuses a URL the service may not reach: its form (checkURL)
// and a blocked domain.
func (s *Service) checkPeer(ctx context.Context, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFetch, err)
	}
	if err := checkURL(u, s.opt.AllowPrivate); err != nil {
		return nil, err
	}
	blocked, err := s.st.DomainBlocked(ctx, u.Host)
	if err != nil {
		return nil, err
	}
	if blocked {
		return nil, store.ErrDomainBlocked
	}
	return u, nil
}

// activityAccept is what a fetch of an ActivityStreams document accepts.
const activityAccept = `application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams"`

// fetchJSON reads the JSON document at raw, signed by the instance actor,
// into v; accept is the Accept header. It returns the final URL (after
// redirects).
func (s *Service) fetchJSON(ctx context.Context, raw, accept string, v any) (string, error) {
	u, err := s.checkPeer(ctx, raw)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, s.opt.FetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrFetch, err)
	}
	req.Header.Set("Accept", accept)
	req.Header.Set("User-Agent", s.userAgent())
	if err := s.Sign(ctx, req, 0, nil); err != nil {
		return "", err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrFetch, err)
	}
	defer resp.Body.Close()
	final := resp.Request.URL
	if final.String() != u.String() {
		// A redirect's target is checked before the dial (CheckRedirect);
		// its domain against the blocks here.
		if _, err := s.checkPeer(ctx, final.String()); err != nil {
			return "", err
		}
	}
	if resp.StatusCode == http.StatusGone || resp.StatusCode == http.StatusNotFound {
		return final.String(), fmt.Errorf("%w: %s answered %d", errGone, final.Host, resp.StatusCode)
	}
	if resp.StatusCode != http.StatusOK {
		return final.String(), fmt.Errorf("%w: %s answered %d", ErrFetch, final.Host, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, s.opt.MaxFetchBytes+1))
	if err != nil {
		return final.String(), fmt.Errorf("%w: %v", ErrFetch, err)
	}
	if int64(len(body)) > s.opt.MaxFetchBytes {
		return final.String(), fmt.Errorf("%w: %s sent more than %d bytes", ErrFetch, final.Host, s.opt.MaxFetchBytes)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return final.String(), fmt.Errorf("%w: %s sent no JSON: %v", ErrFetch, final.Host, err)
	}
	return final.String(), nil
}

// errGone is a remote document that is gone (404 or 410).
var errGone = fmt.Errorf("%w: gone", ErrFetch)
