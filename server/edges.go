package main

import (
	"net"

	"github.com/labstack/echo/v4"
)

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
// from X-Forwarded-For (the nearest address that is not a trusted proxy)
// and X-Forwarded-Proto.
func useProxies(e *echo.Echo, ed edges) {
	if len(ed.TrustedProxies) == 0 {
		e.IPExtractor = echo.ExtractIPDirect()
		e.SchemeExtractor = echo.ExtractSchemeDirect()
		return
	}
	e.IPExtractor = echo.ExtractIPFromXFFHeader(ed.trustOptions()...)
	e.SchemeExtractor = echo.ExtractSchemeFromHeaders(ed.trustOptions()...)
}

// overHTTPS tells whether the browser reached us over TLS, directly or
// through a trusted proxy.
func overHTTPS(c echo.Context) bool {
	s := c.Scheme()
	return s == "https" || s == "wss"
}
