package main

import (
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/prometheus/client_golang/prometheus"

	"microblog/server/api"
	"microblog/server/federation"
	"microblog/server/mastodon"
	"microblog/store"
	"microblog/store/media"
	"microblog/store/redisdb"
)

// newServer builds the Echo instance with its middleware, error handler and
// routes, and the two APIs it serves, whose live routes run adds once the
// hub is up (addLiveRoutes).
func newServer(cfg config, st store.Service, fed *federation.Service, files *media.Folder, logger *slog.Logger, reg *prometheus.Registry) (*echo.Echo, *api.API, *mastodon.API) {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = errorHandler(logger)
	useProxies(e, cfg.Edges)
	m := newHTTPMetrics(reg)
	e.Use(
		recoverMiddleware(logger),
		requestLog(logger),
		m.middleware,
		securityHeaders,
		strictTransport,
		noStore,
		unescapeParams,
	)
	if r, ok := st.(replicator); ok && cfg.RedisReplicaAcks > 0 {
		e.Use(replicatedWrites(r))
	}
	apiStore := st
	if fed != nil { // what the APIs do that concerns other servers goes out (federation/outbound_store.go)
		apiStore = fed.Outbound(st)
	}
	native, mst := newAPIs(cfg, apiStore, fed, files, logger)
	addRoutes(e, st, reg, cfg, native, mst)
	if fed != nil {
		fed.Routes(e)
	}
	return e, native, mst
}

// newAPIs makes the native API and the Mastodon API over the store, each
// with the settings it reads.
func newAPIs(cfg config, st store.Service, fed *federation.Service, files *media.Folder, logger *slog.Logger) (*api.API, *mastodon.API) {
	rl, auth, o := cfg.RateLimits, cfg.Auth, cfg.OIDC
	// Both APIs take remote accounts by name@domain when federation is on.
	var mremote mastodon.Federation
	var domains api.DomainBlocker
	if fed != nil {
		st, mremote, domains = remoteNames{st, fed}, fed, fed.Store()
	}
	push := newPush(cfg.Push, st, logger)
	native := api.New(api.Deps{
		Store: st, Media: files, SessionTTL: cfg.SessionTTL, AllowedOrigins: cfg.AllowedOrigins,
		Limits: api.Limits{Signup: rl.Signup, Login: rl.Login, LoginAccount: rl.LoginAccount, Post: rl.Post, Follow: rl.Follow, DM: rl.DM,
			PasswordReset: rl.PasswordReset},
		Admins: cfg.Safety.Admins, Signup: auth.LocalSignup, LDAP: auth.LDAP, LDAPName: auth.LDAPName,
		OIDC:    api.OIDC{Client: o.newRelyingParty(), Name: o.Name, RedirectURL: o.RedirectURL},
		Push:    push,
		Mail:    cfg.Mail.SMTP != nil,
		Bundle:  cfg.Bundle,
		Domains: domains,
		Logger:  logger,
	})
	mst := mastodon.New(mastodon.Deps{
		Store: st, Media: files, Origin: origin,
		Limits: mastodon.Limits{Login: rl.Login, LoginAccount: rl.LoginAccount, Post: rl.Post, Follow: rl.Follow, DM: rl.DM},
		Admins: cfg.Safety.Admins, Signup: auth.LocalSignup,
		Push:       push,
		Federation: mremote,
		Logger:     logger,
	})
	return native, mst
}

// recoverMiddleware turns a panic in a handler into a logged 500 instead of a
// dropped connection.
func recoverMiddleware(logger *slog.Logger) echo.MiddlewareFunc {
	return middleware.RecoverWithConfig(middleware.RecoverConfig{
		DisableStackAll: true,
		LogErrorFunc: func(c echo.Context, err error, stack []byte) error {
			logger.Error("panic in handler", "path", c.Path(), "err", err, "stack", string(stack))
			return err
		},
	})
}

// requestLog writes one structured line per request.
func requestLog(logger *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			err := next(c)
			if err != nil {
				c.Error(err)
			}
			status := c.Response().Status
			level := slog.LevelInfo
			if status >= 500 {
				level = slog.LevelWarn
			}
			if !logger.Enabled(c.Request().Context(), level) {
				return nil // and build none of the line
			}
			logger.Log(c.Request().Context(), level, "request",
				"method", c.Request().Method, "path", c.Request().URL.Path, "status", status,
				"duration_ms", time.Since(start).Milliseconds(), "ip", c.RealIP())
			return nil
		}
	}
}

// securityHeaders keep the front ends from being framed or fed foreign scripts.
func securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Content-Security-Policy", contentSecurityPolicy(c))
		return next(c)
	}
}

// contentSecurityPolicy lets the pages load and connect to their own origin
// only: the API and, as not every browser counts ws: and wss: as 'self', the
// live feed's origin named in full. Forms post only here, no page may frame
// them, and no <base> may move their relative URLs elsewhere.
func contentSecurityPolicy(c echo.Context) string {
	connect := "'self'"
	if host := c.Request().Host; api.PlainHost(host) {
		scheme := "ws://"
		if api.OverHTTPS(c) {
			scheme = "wss://"
		}
		connect += " " + scheme + host
	}
	return "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
		"connect-src " + connect + "; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
}

// noStore keeps the API's answers, and the live feed's refusals, out of
// every cache: they are personal and change all the time. Static files have
// their own caching (api/static.go).
func noStore(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if p := c.Request().URL.Path; strings.HasPrefix(p, "/api/") || p == "/ws" {
			c.Response().Header().Set("Cache-Control", "no-store")
		}
		return next(c)
	}
}

// httpMetrics counts requests by route and status, times them, and counts
// the round trips to Redis each route makes.
type httpMetrics struct {
	requests   *prometheus.CounterVec
	duration   *prometheus.HistogramVec
	roundTrips *prometheus.CounterVec
}

func newHTTPMetrics(reg prometheus.Registerer) *httpMetrics {
	m := &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "microblog_http_requests_total", Help: "HTTP requests by route, method and status.",
		}, []string{"route", "method", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "microblog_http_request_duration_seconds", Help: "HTTP request latency by route.",
			Buckets: prometheus.DefBuckets,
		}, []string{"route", "method"}),
		roundTrips: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "microblog_redis_round_trips_total",
			Help: "Round trips to Redis made while serving requests, by route (a pipeline is one).",
		}, []string{"route", "method"}),
	}
	reg.MustRegister(m.requests, m.duration, m.roundTrips)
	return m
}

func (m *httpMetrics) middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		ctx, rt := redisdb.CountRoundTrips(c.Request().Context())
		c.SetRequest(c.Request().WithContext(ctx))
		err := next(c)
		if err != nil {
			c.Error(err)
		}
		route := c.Path() // the pattern, never the raw path, to keep label sets small
		if route == "" {
			route = "unmatched"
		}
		method := c.Request().Method
		m.requests.WithLabelValues(route, method, strconv.Itoa(c.Response().Status)).Inc()
		m.duration.WithLabelValues(route, method).Observe(time.Since(start).Seconds())
		if n := rt.N(); n > 0 {
			m.roundTrips.WithLabelValues(route, method).Add(float64(n))
		}
		return nil
	}
}

// unescapeParams gives the handlers the path parameters the client meant
// when Echo routed the escaped path: it does so when the path holds an
// escape that Go would not write (%2F, %2B, %26, %3A: a topic "a/b", "C++",
// "Q&A"), and then leaves the parameters escaped, so that the topic's page
// would look for "a%2Fb" and list nothing.
func unescapeParams(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if c.Request().URL.RawPath != "" {
			values := c.ParamValues()
			for i, v := range values {
				if u, err := url.PathUnescape(v); err == nil {
					values[i] = u
				}
			}
			c.SetParamValues(values...)
		}
		return next(c)
	}
}
