package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"microblog/store"
	"microblog/store/redisdb"
)

// config is every setting of the server. Each comes from a flag, else from
// the environment, else from a default that runs on a laptop.
type config struct {
	Addr           string
	RedisURL       string
	RedisPrefix    string
	RedisCAFile    string
	AllowedOrigins []string
	RateLimits     rateLimits
	BcryptCost     int
	SessionTTL     time.Duration
	LogLevel       slog.Level
	LogFormat      string
	TrustProxy     bool
	MediaDir       string
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
}

var defaultRateLimits = rateLimits{
	Signup:       store.Limit{N: 10, Per: time.Hour},
	Login:        store.Limit{N: 20, Per: time.Minute},
	LoginAccount: store.Limit{N: 10, Per: 15 * time.Minute},
	Post:         store.Limit{N: 30, Per: time.Minute},
	Follow:       store.Limit{N: 60, Per: time.Minute},
}

// loadConfig reads flags from args and settings from getenv. A bad value is
// an error that names the setting.
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
	fs.StringVar(&cfg.RedisCAFile, "redis-ca", env("MICROBLOG_REDIS_CA", ""), "PEM file of CAs trusted for rediss:// (MICROBLOG_REDIS_CA; default: the system's)")
	fs.StringVar(&origins, "allowed-origins", env("MICROBLOG_ALLOWED_ORIGINS", ""), "comma-separated browser origins allowed besides the server's own (MICROBLOG_ALLOWED_ORIGINS)")
	fs.StringVar(&limits, "rate-limits", env("MICROBLOG_RATE_LIMITS", ""), `rate limits, "off" or e.g. "signup=10/1h,login=20/1m,login_account=10/15m,post=30/1m,follow=60/1m" (MICROBLOG_RATE_LIMITS)`)
	fs.StringVar(&cost, "bcrypt-cost", env("MICROBLOG_BCRYPT_COST", "10"), "bcrypt work factor of password hashes, 4-31 (MICROBLOG_BCRYPT_COST)")
	fs.StringVar(&ttl, "session-ttl", env("MICROBLOG_SESSION_TTL", "720h"), "how long an unused session lives; each use slides it (MICROBLOG_SESSION_TTL)")
	fs.StringVar(&level, "log-level", env("MICROBLOG_LOG_LEVEL", "info"), "debug, info, warn or error (MICROBLOG_LOG_LEVEL)")
	fs.StringVar(&cfg.LogFormat, "log-format", env("MICROBLOG_LOG_FORMAT", "text"), "text or json (MICROBLOG_LOG_FORMAT)")
	fs.StringVar(&cfg.MediaDir, "media-dir", env("MICROBLOG_MEDIA_DIR", ".data/media"), "folder of uploaded images, shared by every server process (MICROBLOG_MEDIA_DIR)")
	fs.BoolVar(&cfg.TrustProxy, "trust-proxy", env("MICROBLOG_TRUST_PROXY", "") == "true", "take the client address from X-Forwarded-For (MICROBLOG_TRUST_PROXY=true)")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}

	var err error
	if err = redisdb.CheckURL(cfg.RedisURL); err != nil {
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
		default:
			return rateLimits{}, fmt.Errorf("invalid MICROBLOG_RATE_LIMITS entry %q: unknown limit %q (signup, login, login_account, post, follow)", part, name)
		}
	}
	return rl, nil
}

// redisAddrForLog is the Redis URL without its password.
func (cfg config) redisAddrForLog() string { return redactURL(cfg.RedisURL) }

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
