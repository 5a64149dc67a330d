package main

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/prometheus/client_golang/prometheus"

	"microblog/hub"
	"microblog/server/api"
	"microblog/server/mastodon"
	"microblog/store"
)

// addRoutes registers the operators' routes (health, metrics), the
// middleware both APIs share, and each API's routes, which each lists in
// one place in its package: native.Routes, whose handlers of the paths both
// serve (mastodon.SharedPaths) go to mst.Routes, which answers each request
// as the API it speaks.
func addRoutes(e *echo.Echo, st store.Service, reg *prometheus.Registry, cfg config, native *api.API, mst *mastodon.API) {
	e.Match([]string{http.MethodGet, http.MethodHead}, "/healthz", handleHealthz)
	e.GET("/readyz", handleReadyz(st))
	e.GET("/metrics", handleMetrics(reg), metricsAccess(cfg.Edges))

	// API middleware is global, with the CORS part skipping non-API paths:
	// group middleware would make Echo answer 404 instead of 405 for a known
	// path with the wrong method.
	isAPI := func(c echo.Context) bool { return strings.HasPrefix(c.Request().URL.Path, "/api/") }
	// Discovery documents are read by web apps from their own origin too.
	isDiscovery := func(c echo.Context) bool {
		p := c.Request().URL.Path
		return strings.HasPrefix(p, "/.well-known/") || strings.HasPrefix(p, "/nodeinfo/")
	}
	// A trailing slash on an API path is the path without it, as Rails
	// (and so Mastodon) has it: apps write /api/v1/instance/ too.
	e.Pre(middleware.RemoveTrailingSlashWithConfig(middleware.TrailingSlashConfig{
		Skipper: func(c echo.Context) bool {
			p := c.Request().URL.Path
			return !isAPI(c) && !strings.HasPrefix(p, "/oauth/") && !isDiscovery(c)
		},
	}))
	e.Use(
		middleware.CORSWithConfig(middleware.CORSConfig{
			Skipper: func(c echo.Context) bool { return !isAPI(c) && !isDiscovery(c) },
			// Any origin may call the API with a bearer token (the packaged
			// mobile app runs from file://); cookies are never sent cross-origin.
			AllowOrigins:  []string{"*"},
			AllowMethods:  []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete},
			AllowHeaders:  []string{"Authorization", "Content-Type", api.IdempotencyHeader},
			ExposeHeaders: []string{"Retry-After", "Link"},
			MaxAge:        86400,
		}),
		middleware.BodyLimitWithConfig(middleware.BodyLimitConfig{
			Limit: strconv.Itoa(api.MaxBodyBytes>>10) + "KiB", // "K" would be 1000 bytes
			// Uploads are read with their own, larger limit.
			Skipper: func(c echo.Context) bool { return isUpload(c.Request().URL.Path) },
		}),
		api.SameOriginWrites(cfg.AllowedOrigins),
	)
	natives := native.Routes(e)
	for _, sp := range mastodon.SharedPaths {
		if natives[sp] == nil {
			panic("routes: no native handler for the shared path " + sp)
		}
	}
	mst.Routes(e, natives)
}

// isUpload tells whether path takes an upload, in either API.
func isUpload(path string) bool {
	return slices.Contains(api.UploadPaths, path) || slices.Contains(mastodon.UploadPaths, path)
}

// addLiveRoutes lists the live feed's routes, the native API's and the
// Mastodon API's streaming, both under the same socket caps; run adds them
// once the hub is up.
func addLiveRoutes(e *echo.Echo, native *api.API, mst *mastodon.API, h *hub.Hub, caps *socketCaps) {
	native.LiveRoutes(e, h, caps.acquire)
	mst.StreamingRoutes(e, h, caps.acquire)
}
