package main

import (
	"crypto/subtle"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/labstack/echo/v4"

	"microblog/server/api"
	"microblog/store"
)

// trusts tells whether addr, an address of a direct peer, is one of the
// trusted proxies.
func (ed edges) trusts(addr netip.Addr) bool { return inPrefixes(ed.TrustedProxies, addr) }

func inPrefixes(ps []netip.Prefix, addr netip.Addr) bool {
	addr = addr.Unmap()
	for _, p := range ps {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// peerAddr is the address of the request's direct peer (the last hop).
func peerAddr(remoteAddr string) netip.Addr {
	ap, err := netip.ParseAddrPort(remoteAddr)
	if err != nil {
		return netip.Addr{}
	}
	return ap.Addr().Unmap()
}

// trustOptions are Echo's trust options for exactly the listed proxies:
// Echo would otherwise trust every loopback, link-local and private hop.
func (ed edges) trustOptions() []echo.TrustOption {
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, p := range ed.TrustedProxies {
		opts = append(opts, echo.TrustIPRange(&net.IPNet{
			IP: net.IP(p.Addr().AsSlice()), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen()),
		}))
	}
	return opts
}

// useProxies sets how e finds a request's client address and scheme: from
// the connection itself, or, for requests that come from a trusted proxy,
// from X-Forwarded-For (clientAddr) and X-Forwarded-Proto.
func useProxies(e *echo.Echo, ed edges) {
	if len(ed.TrustedProxies) == 0 {
		e.IPExtractor = echo.ExtractIPDirect()
		e.SchemeExtractor = echo.ExtractSchemeDirect()
		return
	}
	e.IPExtractor = ed.clientAddr
	e.SchemeExtractor = echo.ExtractSchemeFromHeaders(ed.trustOptions()...)
}

// unknownClient is the client address of a request that a trusted proxy
// forwarded without naming its client in a way that can be read. It is no
// address, so it is never in MICROBLOG_METRICS_ALLOW, and all such clients
// share its rate limits, apart from the proxy's own.
const unknownClient = "unknown"

// clientAddr is the client address of a request: its peer's, unless the
// peer is a trusted proxy; then the nearest X-Forwarded-For entry that is
// not a trusted proxy (or the farthest, when all are), read with or without
// a port. A proxy that sends no X-Forwarded-For (only X-Real-IP or
// Forwarded, which it could as well have been sent by its client), or an
// entry that is not an address, forwards an unknownClient: taking the proxy
// itself for the client would open /metrics to anyone behind it and put
// all of them in one rate-limit bucket with it.
func (ed edges) clientAddr(r *http.Request) string {
	peer := peerAddr(r.RemoteAddr)
	if !ed.trusts(peer) {
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		return host
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	var addr netip.Addr
	for i := len(hops) - 1; i >= 0; i-- {
		var ok bool
		if addr, ok = parseHop(hops[i]); !ok {
			return unknownClient
		}
		if !ed.trusts(addr) {
			break
		}
	}
	return addr.String()
}

// parseHop reads an X-Forwarded-For entry: an IPv4 or IPv6 address, the
// latter maybe in brackets, either maybe with a port.
func parseHop(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap(), true
	}
	a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"))
	return a.Unmap(), err == nil
}

// hstsMaxAge is how long a browser that reached the server over HTTPS keeps
// to HTTPS for it: a year, without includeSubDomains, which would bind the
// operator's other hosts too.
const hstsMaxAge = "max-age=31536000"

// strictTransport sends Strict-Transport-Security over HTTPS, so that a
// browser never again asks for the plain-HTTP site, where a network
// attacker could answer it (RFC 6797; over plain HTTP it is ignored).
func strictTransport(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if api.OverHTTPS(c) {
			c.Response().Header().Set("Strict-Transport-Security", hstsMaxAge)
		}
		return next(c)
	}
}

// errMetricsForbidden answers /metrics to a client it is not served to.
var errMetricsForbidden = store.NewError(store.ErrForbidden, store.CodeForbidden, "metrics are not served to this address")

// metricsAccess lets through to /metrics the client addresses of
// MICROBLOG_METRICS_ALLOW and the holders of MICROBLOG_METRICS_TOKEN.
func metricsAccess(ed edges) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if ed.MetricsToken != "" {
				tok, ok := api.BearerToken(c.Request().Header.Get("Authorization"))
				if ok && subtle.ConstantTimeCompare([]byte(tok), []byte(ed.MetricsToken)) == 1 {
					return next(c)
				}
			}
			if ed.metricsClient(c) {
				return next(c)
			}
			return errMetricsForbidden
		}
	}
}

// metricsClient tells whether the client is in MICROBLOG_METRICS_ALLOW. A
// request forwarded by a peer that is not a trusted proxy is refused: its
// client could be anyone, and a proxy on this machine would otherwise make
// every client of the internet look like loopback.
func (ed edges) metricsClient(c echo.Context) bool {
	r := c.Request()
	if forwarded(r.Header) && !ed.trusts(peerAddr(r.RemoteAddr)) {
		return false
	}
	addr, err := netip.ParseAddr(c.RealIP())
	return err == nil && inPrefixes(ed.MetricsAllow, addr)
}

// forwarded tells whether a proxy says it forwarded the request.
func forwarded(h http.Header) bool {
	for _, name := range []string{"X-Forwarded-For", "X-Real-Ip", "Forwarded"} {
		if strings.TrimSpace(h.Get(name)) != "" {
			return true
		}
	}
	return false
}

// origin is the service's origin as a request reached it: its scheme
// (https behind a trusted proxy that says so) and Host.
func origin(c echo.Context) string {
	scheme := "http"
	if api.OverHTTPS(c) {
		scheme = "https"
	}
	return scheme + "://" + c.Request().Host
}
