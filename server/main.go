// Command microblog serves the real-time microblog: the native JSON API
// with its live feed and front ends (package api), and the Mastodon client
// API (package mastodon). This package is their configuration and wiring:
// it reads the settings (config.go and the *config.go beside it), opens the
// store and starts its runners and the live hub, and serves both APIs from
// one Echo instance with the middleware, error handler and edges (timeouts,
// proxies, connection and socket caps) they share. Neither API imports it
// or the other.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"microblog/store"
	"microblog/store/media"
	"microblog/store/redisdb"
	"microblog/store/redisdb/runner"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "microblog:", err)
		os.Exit(1)
	}
}

// shutdownTimeout bounds how long in-flight requests may take to finish.
const shutdownTimeout = 10 * time.Second

// run is the whole program: it reads the configuration, connects to Redis,
// serves until ctx ends, then shuts down gracefully. Tests call it too.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := loadConfig(args, getenv, stderr)
	if err != nil {
		return err
	}
	logger := slog.New(newLogHandler(stderr, cfg))
	if err := servePprof(ctx, cfg.Pprof.Addr, logger); err != nil {
		return fmt.Errorf("invalid MICROBLOG_PPROF_ADDR: %w", err)
	}

	// Each run has its own metrics registry, so that tests may run several servers in one process.
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))

	files, err := media.OpenFolder(cfg.MediaDir)
	if err != nil {
		return fmt.Errorf("invalid MICROBLOG_MEDIA_DIR: %w", err)
	}
	arch, err := cfg.Timelines.openArchive(ctx)
	if err != nil {
		return err
	}
	if arch != nil {
		defer arch.Close()
	}
	st, err := openStore(ctx, cfg, files, arch, reg, logger)
	if err != nil {
		return err
	}
	defer st.Close()
	guardCtx, stopGuard := context.WithCancel(ctx)
	defer stopGuard()
	refused, err := guardData(guardCtx, st, cfg, logger)
	if err != nil {
		return err
	}

	stopRunners := startRunners(st, cfg, reg, logger)
	defer stopRunners()

	fed := newFederation(cfg, st, files, logger)
	stopFed := startFedRunners(st, fed, cfg, reg, logger)
	defer stopFed()
	srv, native, mst := newServer(cfg, st, fed, files, logger, reg)
	lv := startLive(cfg.Live, st, logger, reg)
	defer func() {
		// After the HTTP server: it does not wait for hijacked WebSocket connections.
		sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
		defer cancel()
		if err := lv.shutdown(sctx); err != nil {
			logger.Warn("live feed did not stop cleanly", "err", err)
		}
	}()
	addLiveRoutes(srv, native, mst, lv.hub, newSocketCaps(cfg.Edges, reg))

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	cfg.Mail.listening(ln.Addr())
	hs, ln := newHTTPServer(cfg.Edges, srv, ln, logger, reg)
	serveErr := make(chan error, 1)
	go func() { serveErr <- hs.Serve(ln) }()
	url := "http://" + ln.Addr().String()
	logger.Info("serving", "url", url, "redis", cfg.redisAddrForLog())
	fmt.Fprintf(stdout, "microblog: serving on %s\n", url)
	fmt.Fprintf(stdout, "microblog: the desktop page is %s/, the mobile app %s/m/\n", url, url)

	var stopped error
	select {
	case err := <-serveErr:
		return fmt.Errorf("serve: %w", err)
	case stopped = <-refused:
		logger.Error("refusing to serve", "err", stopped)
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return errors.Join(stopped, fmt.Errorf("shutdown: %w", err))
	}
	return stopped
}

// guardRetry is how often the checks of guardData that could not be made
// at start are tried again.
const guardRetry = time.Second

// guardData keeps this process from serving data it must not: a Redis and
// an archive of different histories (CheckIdentity), or a Redis whose data
// a newer version allows only newer writers to write (ClaimVersion at
// start, CheckVersion every VersionCheck after, for a newer version may be
// rolled out beside this one). A refusal at start is returned, naming what
// it refuses. Redis or the archive not answering yet is no reason not to
// start: the checks are then tried again until they are made. A refusal
// found later comes on the channel, and stops the server.
func guardData(ctx context.Context, st *redisdb.Store, cfg config, logger *slog.Logger) (<-chan error, error) {
	startChecks := func() error {
		if err := st.CheckIdentity(ctx, cfg.redisAddrForLog(), cfg.archiveForLog()); err != nil {
			return err
		}
		return st.ClaimVersion(ctx)
	}
	refusal := func(err error) bool {
		return errors.Is(err, redisdb.ErrOtherHistory) || errors.Is(err, redisdb.ErrWriterTooOld)
	}
	err := startChecks()
	if refusal(err) {
		return nil, err
	}
	started := err == nil
	if !started {
		logger.Warn("could not check the data's identity and writer version yet; trying again", "err", err)
	}
	refused := make(chan error, 1)
	go func() {
		for {
			wait := redisdb.VersionCheck
			if !started {
				wait = guardRetry
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			var err error
			if started {
				err = st.CheckVersion(ctx)
			} else if err = startChecks(); err == nil {
				started = true
			}
			if refusal(err) {
				refused <- err
				return
			}
		}
	}()
	return refused, nil
}

// openStore connects to Redis, registers the store's metrics with reg and
// brings the data up to date. A Redis that does not answer yet is no reason
// not to start: /readyz and the API answer 503 until it is back.
func openStore(ctx context.Context, cfg config, files *media.Folder, arch store.Archive, reg *prometheus.Registry, logger *slog.Logger) (*redisdb.Store, error) {
	open := redisdb.Open
	if cfg.RedisCluster {
		open = redisdb.OpenCluster
	}
	tc := cfg.Timelines
	st, err := open(cfg.RedisURL, cfg.RedisCAFile, redisdb.Options{
		Files:  files,
		Prefix: cfg.RedisPrefix, BcryptCost: cfg.BcryptCost, SessionTTL: cfg.SessionTTL,
		HotWindow: tc.HotWindow, Archive: arch, ArchiveQueueMax: tc.ArchiveQueue, TrendsWindow: tc.TrendsWindow,
		CelebrityFans: tc.CelebrityFans, InactiveAfter: tc.InactiveAfter, Metrics: redisdb.NewMetrics(reg),
		MaxBlocks: cfg.Safety.MaxBlocks, MaxMutes: cfg.Safety.MaxMutes,
		ReplicaAcks: cfg.RedisReplicaAcks, ClockSkew: tc.ClockSkew,
		Federation: cfg.Fed.On,
		Logger:     logger,
	})
	if err != nil {
		return nil, err
	}
	st.RegisterQueueMetrics(reg)
	st.RegisterStorageMetrics(reg)
	st.RegisterArchiveMetrics(reg)
	if err := st.Ping(ctx); err != nil {
		logger.Warn("redis is not answering yet", "redis", cfg.redisAddrForLog(), "err", err)
	} else if err := st.Migrate(ctx); err != nil {
		logger.Warn("could not bring the data up to date; search may miss older users until the next start", "err", err)
	}
	if err := st.LoadScripts(ctx); err != nil { // else each script's first call loads it
		logger.Debug("could not load the scripts yet", "err", err)
	}
	return st, nil
}

// startRunners starts the background work of every process: the fan-out
// workers, the archiver, the listener that keeps the session and avatar
// caches, the checker that mends what stopped writes left (one process at a
// time) and the media janitor. The function it returns stops them and
// waits until they have: the fan-out workers and the archiver finish the
// jobs in hand within a second and hand back the rest, which another
// process takes over at once; a check cut short is taken up again, here or
// by another process.
func startRunners(st *redisdb.Store, cfg config, reg prometheus.Registerer, logger *slog.Logger) (stop func()) {
	tc := cfg.Timelines
	m := runner.NewMetrics(reg)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, r := range []interface{ Run(context.Context) }{
		runner.NewFanOut(st, runner.FanOutOptions{Workers: tc.Workers, ClaimIdle: tc.ClaimIdle,
			BatchDelay: tc.BatchDelay, Metrics: m, Logger: logger}),
		runner.NewArchiver(st, runner.ArchiverOptions{ClaimIdle: tc.ClaimIdle, Metrics: m, Logger: logger}),
		runner.NewCacheListener(st, runner.CacheListenerOptions{Logger: logger}),
		runner.NewChecker(st, runner.CheckerOptions{Interval: cfg.Repair.Interval, Metrics: m, Logger: logger}),
		runner.NewMediaJanitor(st, runner.MediaJanitorOptions{Logger: logger}),
		runner.NewPusher(st, runner.PusherOptions{Deliver: newPush(cfg.Push, st, logger).Deliver, ClaimIdle: tc.ClaimIdle, Logger: logger}),
		runner.NewMailer(st, runner.MailerOptions{Deliver: newMailDeliver(cfg.Mail, st, logger), ClaimIdle: tc.ClaimIdle, Logger: logger}),
	} {
		wg.Go(func() { r.Run(ctx) })
	}
	return func() {
		cancel()
		wg.Wait()
	}
}
