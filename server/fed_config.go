package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"microblog/server/federation"
	"microblog/store"
	"microblog/store/media"
	"microblog/store/redisdb"
)

// fedConfig is federation's settings (CONTRACT.md §16, docs/federation.md).
type fedConfig struct {
	// On is MICROBLOG_FEDERATION=on (default off); it needs
	// MICROBLOG_PUBLIC_URL, whose host is the domain of every handle.
	On bool
	// AllowPrivate is MICROBLOG_FEDERATION_ALLOW_PRIVATE=on: peers on
	// http:// and on loopback or private addresses are allowed (tests and
	// closed networks only).
	AllowPrivate bool
}

// readFedSettings reads cfg.Fed, after cfg.Mail (whose public URL it
// shares); a bad value is an error naming its variable.
func readFedSettings(getenv func(string) string, cfg *config) error {
	var fc fedConfig
	var err error
	if fc.On, err = onOff(getenv, "MICROBLOG_FEDERATION"); err != nil {
		return err
	}
	if fc.AllowPrivate, err = onOff(getenv, "MICROBLOG_FEDERATION_ALLOW_PRIVATE"); err != nil {
		return err
	}
	if fc.On && strings.TrimSpace(getenv("MICROBLOG_PUBLIC_URL")) == "" {
		return fmt.Errorf("MICROBLOG_PUBLIC_URL is missing: MICROBLOG_FEDERATION=on needs the origin the world reaches, such as https://weibo.example.edu")
	}
	cfg.Fed = fc
	return nil
}

// onOff reads a setting that is on or off (default off).
func onOff(getenv func(string) string, name string) (bool, error) {
	switch v := strings.TrimSpace(getenv(name)); v {
	case "", "off":
		return false, nil
	case "on":
		return true, nil
	default:
		return false, fmt.Errorf("invalid %s %q: want on or off", name, v)
	}
}

// newFederation is the federation over st, nil when it is off.
func newFederation(cfg config, st *redisdb.Store, files *media.Folder, logger *slog.Logger) *federation.Service {
	if !cfg.Fed.On {
		return nil
	}
	return federation.New(st, federation.Options{
		PublicURL:    cfg.Mail.PublicURL,
		AllowPrivate: cfg.Fed.AllowPrivate,
		Deliverer:    st,    // the durable queue (store/redisdb/fed/queue.go)
		Media:        files, // remote pictures are kept as uploads
		Software:     "microblog", Version: "1.0",
		Logger: logger,
	})
}

// remoteNames is the store as both APIs see it with federation on: a
// username of the form name@domain names a remote account, looked up
// through WebFinger the first time (CONTRACT.md §16).
type remoteNames struct {
	store.Service
	fed *federation.Service
}

// UIDByName resolves name@domain through federation, other names as the
// store does.
func (r remoteNames) UIDByName(ctx context.Context, name string) (int64, error) {
	if strings.Contains(strings.TrimPrefix(name, "@"), "@") {
		return r.fed.ResolveHandle(ctx, name)
	}
	return r.Service.UIDByName(ctx, name)
}

// UserByName is UIDByName's user as viewer sees it.
func (r remoteNames) UserByName(ctx context.Context, name string, viewer int64) (store.User, error) {
	uid, err := r.UIDByName(ctx, name)
	if err != nil {
		return store.User{}, err
	}
	return r.Service.User(ctx, uid, viewer)
}

// resolveWait bounds the lookups of a new post's unknown remote mentions.
const resolveWait = 5 * time.Second

// Create looks up the remote accounts np mentions as @name@domain that are
// not known here yet (so that the mention reaches them), then writes it;
// @name@<this server's domain> is @name.
func (r remoteNames) Create(ctx context.Context, np store.NewPost) (store.Post, error) {
	np.Content = r.localMentions(np.Content)
	r.resolveMentions(ctx, np.Content)
	return r.Service.Create(ctx, np)
}

// SearchUsers takes @name@<this server's domain> for name.
func (r remoteNames) SearchUsers(ctx context.Context, prefix string, q store.PageQuery) (store.Page[store.User], error) {
	if name, domain, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(prefix), "@"), "@"); ok && name != "" && r.ownDomain(domain) {
		prefix = name
	}
	return r.Service.SearchUsers(ctx, prefix, q)
}

// ownDomain tells whether domain is this server's (the public URL's host,
// with its port or, when it has one, without).
func (r remoteNames) ownDomain(domain string) bool {
	host := r.fed.Host()
	bare, _, _ := strings.Cut(host, ":")
	return host != "" && (strings.EqualFold(domain, host) || strings.EqualFold(domain, bare))
}

// localMentions writes a mention of a local user as @name@<this server's
// domain> as @name: the store, which knows no domain, then mentions it.
func (r remoteNames) localMentions(text string) string {
	if !strings.Contains(text, "@") {
		return text
	}
	var b strings.Builder
	last := 0
	for sp := range store.Spans(text) {
		if sp.Kind != store.SpanMention {
			continue
		}
		if name, domain, ok := strings.Cut(sp.Value, "@"); ok && r.ownDomain(domain) {
			b.WriteString(text[last:sp.Start])
			b.WriteString("@" + name)
			last = sp.End
		}
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// resolveMentions looks up the unknown name@domain mentions of text, all
// together within resolveWait; one that cannot be found mentions nobody.
func (r remoteNames) resolveMentions(ctx context.Context, text string) {
	var unknown []string
	for _, name := range store.ParseText(text).Mentions {
		if strings.Contains(name, "@") {
			if _, err := r.Service.UIDByName(ctx, name); err != nil {
				unknown = append(unknown, name)
			}
		}
	}
	if len(unknown) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, resolveWait)
	defer cancel()
	var wg sync.WaitGroup
	for _, name := range unknown {
		wg.Go(func() { _, _ = r.fed.ResolveHandle(ctx, name) })
	}
	wg.Wait()
}
