package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"microblog/store"
	"microblog/store/redisdb"
)

// config is every setting of the server. Each comes from a flag, else from
// the environment, else from a default that runs on a laptop; those of the
// packages the server builds on are theirs (redisdb.DefaultX, hub.DefaultX).
// Some come from the environment only (envconfig.go).
type config struct {
	Addr         string
	RedisURL     string
	RedisPrefix  string
	RedisCAFile  string
	RedisCluster bool
	// RedisReplicaAcks is MICROBLOG_REDIS_REPLICA_ACKS: how many replicas of
	// each master must have a write before it is acknowledged (0: none).
	RedisReplicaAcks int
	AllowedOrigins   []string
	RateLimits       rateLimits
	BcryptCost       int
	SessionTTL       time.Duration
	LogLevel         slog.Level
	LogFormat        string
	MediaDir         string
	Edges            edges          // connections and HTTP edges, read by edgeFlags below
	Live             liveConfig     // the live feed (envconfig.go, as the three below)
	Timelines        timelineConfig // the hybrid timelines, the fan-out and the archive
	Repair           repairConfig   // the checker of half-written messages
	Pprof            pprofConfig    // the profiler
	Bundle           bool           // MICROBLOG_BUNDLE: the front ends' code bundled (envconfig.go)
	Auth             authConfig     // local sign-up and the other ways to sign in (authconfig.go)
	OIDC             oidcConfig     // the OpenID Connect sign-in (oidc_config.go)
	Safety           safetyConfig   // operators and the limits of blocks and mutes (safety_config.go)
	Push             pushConfig     // Web Push: the VAPID keys and contact (push_config.go)
	Mail             mailConfig     // the SMTP server, the links' origin (mail_config.go)
	Fed              fedConfig      // ActivityPub federation (fed_config.go)
	FedOut           fedOutConfig   // its delivery queue (fed_out_config.go)
}

// rateLimits are the per-action limits; a zero Limit means unlimited.
type rateLimits struct {
	Signup store.Limit // per client address
	Login  store.Limit // per client address
	// LoginAccount is the login guard: N wrong passwords in a row per account
	// and address (3N from all addresses), forgotten Per after the last,
	// before further attempts back off (see redisdb's loginguard.go).
	LoginAccount store.Limit
	Post         store.Limit // per user, posts and comments together
	Follow       store.Limit // per user, follows and unfollows together
	DM           store.Limit // per user, private messages
	// PasswordReset counts password reset requests per client address and
	// per address asked about, and address changes per user.
	PasswordReset store.Limit
}

var defaultRateLimits = rateLimits{
	Signup:        store.Limit{N: 100, Per: time.Hour},
	Login:         store.Limit{N: 20, Per: time.Minute},
	LoginAccount:  store.Limit{N: 10, Per: 15 * time.Minute},
	Post:          store.Limit{N: 30, Per: time.Minute},
	Follow:        store.Limit{N: 60, Per: time.Minute},
	DM:            store.Limit{N: 60, Per: time.Minute},
	PasswordReset: store.Limit{N: 5, Per: time.Hour},
}

// loadConfig reads flags from args and settings from getenv: the one place
// the server reads its settings. A bad value is an error that names the
// setting.
func loadConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	env := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	fs := flag.NewFlagSet("microblog", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	var origins, limits, cost, ttl, level string
	fs.StringVar(&cfg.Addr, "addr", env("MICROBLOG_ADDR", "127.0.0.1:8080"), "listen address (MICROBLOG_ADDR)")
	fs.StringVar(&cfg.RedisURL, "redis", env("REDIS_URL", "redis://127.0.0.1:6379/0"), "Redis URL, redis:// or rediss:// (REDIS_URL)")
	fs.StringVar(&cfg.RedisPrefix, "redis-prefix", env("MICROBLOG_REDIS_PREFIX", ""), "prefix of every Redis key and channel (MICROBLOG_REDIS_PREFIX)")
	fs.BoolVar(&cfg.RedisCluster, "redis-cluster", env("MICROBLOG_REDIS_CLUSTER", "") == "true", "REDIS_URL names a Redis Cluster, as redis://host1:port1?addr=host2:port2&addr=... (MICROBLOG_REDIS_CLUSTER=true)")
	fs.StringVar(&cfg.RedisCAFile, "redis-ca", env("MICROBLOG_REDIS_CA", ""), "PEM file of CAs trusted for rediss:// (MICROBLOG_REDIS_CA; default: the system's)")
	fs.StringVar(&origins, "allowed-origins", env("MICROBLOG_ALLOWED_ORIGINS", ""), "comma-separated browser origins allowed besides the server's own (MICROBLOG_ALLOWED_ORIGINS)")
	fs.StringVar(&limits, "rate-limits", env("MICROBLOG_RATE_LIMITS", ""), `rate limits, "off" or e.g. "signup=100/1h,login=20/1m,login_account=10/15m,post=30/1m,follow=60/1m,message=60/1m,password_reset=5/1h" (MICROBLOG_RATE_LIMITS)`)
	fs.StringVar(&cost, "bcrypt-cost", env("MICROBLOG_BCRYPT_COST", strconv.Itoa(redisdb.DefaultBcryptCost)), "bcrypt work factor of password hashes, 4-31 (MICROBLOG_BCRYPT_COST)")
	fs.StringVar(&ttl, "session-ttl", env("MICROBLOG_SESSION_TTL", redisdb.DefaultSessionTTL.String()), "how long an unused session lives; each use slides it (MICROBLOG_SESSION_TTL)")
	fs.StringVar(&level, "log-level", env("MICROBLOG_LOG_LEVEL", "info"), "debug, info, warn or error (MICROBLOG_LOG_LEVEL)")
	fs.StringVar(&cfg.LogFormat, "log-format", env("MICROBLOG_LOG_FORMAT", "text"), "text or json (MICROBLOG_LOG_FORMAT)")
	fs.StringVar(&cfg.MediaDir, "media-dir", env("MICROBLOG_MEDIA_DIR", ".data/media"), "folder of uploaded images, shared by every server process (MICROBLOG_MEDIA_DIR)")
	readEdges := edgeFlags(fs, env)
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}

	var err error
	if v := getenv("MICROBLOG_REDIS_CLUSTER"); v != "" && v != "true" && v != "false" {
		return config{}, fmt.Errorf("invalid MICROBLOG_REDIS_CLUSTER %q: want true or false", v)
	}
	if err = redisdb.CheckURL(cfg.RedisURL, cfg.RedisCluster); err != nil {
		return config{}, fmt.Errorf("invalid REDIS_URL %q: %w", redactURL(cfg.RedisURL), err)
	}
	if cfg.BcryptCost, err = strconv.Atoi(cost); err != nil || cfg.BcryptCost < 4 || cfg.BcryptCost > 31 {
		return config{}, fmt.Errorf("invalid MICROBLOG_BCRYPT_COST %q: want a number from 4 to 31", cost)
	}
	if cfg.SessionTTL, err = time.ParseDuration(ttl); err != nil || cfg.SessionTTL < time.Minute {
		return config{}, fmt.Errorf("invalid MICROBLOG_SESSION_TTL %q: want a duration of at least 1m, such as 720h", ttl)
	}
	if err := cfg.LogLevel.UnmarshalText([]byte(level)); err != nil {
		return config{}, fmt.Errorf("invalid MICROBLOG_LOG_LEVEL %q: want debug, info, warn or error", level)
	}
	if cfg.LogFormat != "text" && cfg.LogFormat != "json" {
		return config{}, fmt.Errorf("invalid MICROBLOG_LOG_FORMAT %q: want text or json", cfg.LogFormat)
	}
	for _, o := range strings.Split(origins, ",") {
		if o = strings.TrimRight(strings.TrimSpace(o), "/"); o != "" {
			if !strings.Contains(o, "://") {
				return config{}, fmt.Errorf("invalid MICROBLOG_ALLOWED_ORIGINS entry %q: want scheme://host[:port]", o)
			}
			cfg.AllowedOrigins = append(cfg.AllowedOrigins, o)
		}
	}
	if cfg.RateLimits, err = parseRateLimits(limits); err != nil {
		return config{}, err
	}
	if cfg.Edges, err = readEdges(); err != nil {
		return config{}, err
	}
	if err := readEnvSettings(getenv, &cfg); err != nil {
		return config{}, err
	}
	if err := readOIDCSettings(getenv, &cfg); err != nil {
		return config{}, err
	}
	if err := readAuthSettings(getenv, &cfg); err != nil {
		return config{}, err
	}
	if err := readSafetySettings(getenv, &cfg); err != nil {
		return config{}, err
	}
	if err := readPushSettings(getenv, &cfg); err != nil {
		return config{}, err
	}
	if err := readMailSettings(getenv, &cfg); err != nil {
		return config{}, err
	}
	if err := readFedSettings(getenv, &cfg); err != nil {
		return config{}, err
	}
	if err := readFedOutSettings(getenv, &cfg); err != nil {
		return config{}, err
	}
	return cfg, nil
}

// parseRateLimits reads "off", "" (the defaults) or "name=N/duration,...".
func parseRateLimits(s string) (rateLimits, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return defaultRateLimits, nil
	}
	if s == "off" {
		return rateLimits{}, nil
	}
	rl := defaultRateLimits
	for _, part := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		n, per, ok2 := strings.Cut(val, "/")
		count, err1 := strconv.Atoi(n)
		dur, err2 := time.ParseDuration(per)
		if !ok || !ok2 || err1 != nil || err2 != nil || count < 0 || dur <= 0 {
			return rateLimits{}, fmt.Errorf("invalid MICROBLOG_RATE_LIMITS entry %q: want name=N/duration, such as post=30/1m", part)
		}
		l := store.Limit{N: count, Per: dur}
		switch name {
		case "signup":
			rl.Signup = l
		case "login":
			rl.Login = l
		case "login_account":
			rl.LoginAccount = l
		case "post":
			rl.Post = l
		case "follow":
			rl.Follow = l
		case "message":
			rl.DM = l
		case "password_reset":
			rl.PasswordReset = l
		default:
			return rateLimits{}, fmt.Errorf("invalid MICROBLOG_RATE_LIMITS entry %q: unknown limit %q (signup, login, login_account, post, follow, message, password_reset)", part, name)
		}
	}
	return rl, nil
}

// redisAddrForLog is the Redis URL without its password.
func (cfg config) redisAddrForLog() string { return redactURL(cfg.RedisURL) }

// archiveForLog names the archive without its password: a SQLite file as
// it is, a MySQL URL redacted.
func (cfg config) archiveForLog() string {
	if dsn := cfg.Timelines.Archive; !strings.Contains(dsn, "://") {
		return dsn
	}
	return redactURL(cfg.Timelines.Archive)
}

func redactURL(u string) string {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return "(unparseable)"
	}
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		rest = "***@" + rest[at+1:]
	}
	return scheme + "://" + rest
}

func newLogHandler(w io.Writer, cfg config) slog.Handler {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	if cfg.LogFormat == "json" {
		return slog.NewJSONHandler(w, opts)
	}
	return slog.NewTextHandler(w, opts)
}

// edges are the settings of the connections and HTTP edges: how long a
// client may take, how many connections and live sockets it may hold, which
// proxies are believed, and who may read /metrics. docs/security.md, "Connections and
// HTTP edges", says why each default is what it is.
type edges struct {
	ReadTimeout    time.Duration  // the whole request, headers and body
	WriteTimeout   time.Duration  // from the end of the request's headers to the end of the answer
	IdleTimeout    time.Duration  // a keep-alive connection waiting for its next request
	MaxConnsPerIP  int            // open connections per client address; 0: no cap
	WSMaxPerUser   int            // live sockets per user; 0: no cap
	WSMaxPerIP     int            // live sockets per client address; 0: no cap
	TrustedProxies []netip.Prefix // peers whose X-Forwarded-For and X-Forwarded-Proto are believed
	MetricsAllow   []netip.Prefix // client addresses /metrics answers
	MetricsToken   string         // a bearer token that opens /metrics from any address; empty: none
}

// Defaults of the edges.
const (
	defaultReadTimeout   = 30 * time.Second
	defaultWriteTimeout  = 60 * time.Second
	defaultIdleTimeout   = 60 * time.Second
	defaultMaxConnsPerIP = 256
	defaultWSMaxPerUser  = 20
	defaultWSMaxPerIP    = 100
	// defaultMetricsAllow is loopback and the private ranges: a scraper in
	// the same network, never a client from the internet.
	defaultMetricsAllow = "127.0.0.0/8,::1,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,fc00::/7"
	// loopbackProxies is what the old MICROBLOG_TRUST_PROXY=true means: a
	// proxy on this machine.
	loopbackProxies = "127.0.0.0/8,::1"
	minMetricsToken = 16
)

// edgeFlags defines the edges' flags on fs; the function it returns reads
// and checks them once fs is parsed.
func edgeFlags(fs *flag.FlagSet, env func(name, def string) string) func() (edges, error) {
	var read, write, idle, conns, wsUser, wsIP, proxies, allow string
	var trustProxy bool
	trustEnv := env("MICROBLOG_TRUST_PROXY", "")
	fs.StringVar(&read, "read-timeout", env("MICROBLOG_READ_TIMEOUT", defaultReadTimeout.String()), "time a client has to send a whole request, body included (MICROBLOG_READ_TIMEOUT)")
	fs.StringVar(&write, "write-timeout", env("MICROBLOG_WRITE_TIMEOUT", defaultWriteTimeout.String()), "time to answer a request, from the end of its headers (MICROBLOG_WRITE_TIMEOUT)")
	fs.StringVar(&idle, "idle-timeout", env("MICROBLOG_IDLE_TIMEOUT", defaultIdleTimeout.String()), "how long a keep-alive connection may wait for its next request (MICROBLOG_IDLE_TIMEOUT)")
	fs.StringVar(&conns, "max-conns-per-ip", env("MICROBLOG_MAX_CONNS_PER_IP", strconv.Itoa(defaultMaxConnsPerIP)), "open connections per client address, 0 for no cap (MICROBLOG_MAX_CONNS_PER_IP)")
	fs.StringVar(&wsUser, "ws-max-per-user", env("MICROBLOG_WS_MAX_PER_USER", strconv.Itoa(defaultWSMaxPerUser)), "live WebSockets per user, 0 for no cap (MICROBLOG_WS_MAX_PER_USER)")
	fs.StringVar(&wsIP, "ws-max-per-ip", env("MICROBLOG_WS_MAX_PER_IP", strconv.Itoa(defaultWSMaxPerIP)), "live WebSockets per client address, 0 for no cap (MICROBLOG_WS_MAX_PER_IP)")
	fs.StringVar(&proxies, "trusted-proxies", env("MICROBLOG_TRUSTED_PROXIES", ""), "comma-separated addresses or CIDRs of the reverse proxies whose X-Forwarded-For and X-Forwarded-Proto are believed (MICROBLOG_TRUSTED_PROXIES)")
	fs.BoolVar(&trustProxy, "trust-proxy", trustEnv == "true", "old form of -trusted-proxies=127.0.0.0/8,::1: a proxy on this machine (MICROBLOG_TRUST_PROXY)")
	fs.StringVar(&allow, "metrics-allow", env("MICROBLOG_METRICS_ALLOW", defaultMetricsAllow), `client addresses or CIDRs /metrics answers, or "none" (MICROBLOG_METRICS_ALLOW)`)
	token := env("MICROBLOG_METRICS_TOKEN", "") // not a flag: flags show in ps
	return func() (edges, error) {
		var ed edges
		var err error
		for _, d := range []struct {
			name, value string
			dst         *time.Duration
		}{
			{"MICROBLOG_READ_TIMEOUT", read, &ed.ReadTimeout},
			{"MICROBLOG_WRITE_TIMEOUT", write, &ed.WriteTimeout},
			{"MICROBLOG_IDLE_TIMEOUT", idle, &ed.IdleTimeout},
		} {
			if *d.dst, err = time.ParseDuration(d.value); err != nil || *d.dst < time.Second {
				return edges{}, fmt.Errorf("invalid %s %q: want a duration of at least 1s, such as 30s", d.name, d.value)
			}
		}
		for _, n := range []struct {
			name, value string
			dst         *int
		}{
			{"MICROBLOG_MAX_CONNS_PER_IP", conns, &ed.MaxConnsPerIP},
			{"MICROBLOG_WS_MAX_PER_USER", wsUser, &ed.WSMaxPerUser},
			{"MICROBLOG_WS_MAX_PER_IP", wsIP, &ed.WSMaxPerIP},
		} {
			if *n.dst, err = strconv.Atoi(n.value); err != nil || *n.dst < 0 || *n.dst > 1<<20 {
				return edges{}, fmt.Errorf("invalid %s %q: want a whole number from 0 (no cap) to %d", n.name, n.value, 1<<20)
			}
		}
		switch {
		case trustEnv != "" && trustEnv != "true" && trustEnv != "false":
			return edges{}, fmt.Errorf("invalid MICROBLOG_TRUST_PROXY %q: list your proxies in MICROBLOG_TRUSTED_PROXIES instead (e.g. 10.0.0.0/8,127.0.0.1)", trustEnv)
		case trustProxy && proxies != "":
			return edges{}, fmt.Errorf("MICROBLOG_TRUST_PROXY and MICROBLOG_TRUSTED_PROXIES are both set: keep MICROBLOG_TRUSTED_PROXIES only")
		case trustProxy:
			proxies = loopbackProxies
		}
		if ed.TrustedProxies, err = parsePrefixes("MICROBLOG_TRUSTED_PROXIES", proxies); err != nil {
			return edges{}, err
		}
		if strings.TrimSpace(allow) != "none" {
			if ed.MetricsAllow, err = parsePrefixes("MICROBLOG_METRICS_ALLOW", allow); err != nil {
				return edges{}, err
			}
		}
		if ed.MetricsToken = token; token != "" && len(token) < minMetricsToken {
			return edges{}, fmt.Errorf("invalid MICROBLOG_METRICS_TOKEN: want at least %d characters", minMetricsToken)
		}
		return ed, nil
	}
}

// parsePrefixes reads a comma-separated list of addresses (each its own
// prefix) and CIDRs; a bad entry is an error naming the setting.
func parsePrefixes(name, list string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			a, aerr := netip.ParseAddr(s)
			if aerr != nil || a.Zone() != "" {
				return nil, fmt.Errorf("invalid %s entry %q: want an IP address or a CIDR such as 10.0.0.0/8", name, s)
			}
			p = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
		}
		out = append(out, p.Masked())
	}
	return out, nil
}
