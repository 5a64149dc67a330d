// Command microblog serves the real-time microblog: the JSON API, the live
// feed over WebSocket, and the desktop and mobile front ends.
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
	refused, err := checkIdentity(ctx, st, cfg, logger)
	if err != nil {
		return err
	}

	stopRunners := startRunners(st, cfg, logger)
	defer stopRunners()

	srv, mst := newServer(cfg, st, files, logger, reg)
	lv := startLive(cfg.Live, st, logger, reg)
	defer func() {
		// After the HTTP server: it does not wait for hijacked WebSocket connections.
		sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
		defer cancel()
		if err := lv.shutdown(sctx); err != nil {
			logger.Warn("live feed did not stop cleanly", "err", err)
		}
	}()
	addLiveRoutes(srv, mst, lv.hub, st, cfg.AllowedOrigins, newSocketCaps(cfg.Edges, reg))

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	hs, ln := newHTTPServer(cfg.Edges, srv, ln, logger, reg)
	serveErr := make(chan error, 1)
	go func() { serveErr <- hs.Serve(ln) }()
	url := "http://" + ln.Addr().String()
	logger.Info("serving", "url", url, "redis", cfg.redisAddrForLog())
	fmt.Fprintf(stdout, "microblog: serving on %s\n", url)

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

// identityRetry is how often a check of Redis's and the archive's identity
// that could not be made is tried again.
const identityRetry = time.Second

// checkIdentity refuses to serve a Redis and an archive of different
// histories (see redisdb's CheckIdentity): the error it returns names both.
// Redis or the archive not answering yet is no reason not to start: the
// check is then tried again in the background until it is made, and a
// refusal found then comes on the channel, which stops the server.
func checkIdentity(ctx context.Context, st *redisdb.Store, cfg config, logger *slog.Logger) (<-chan error, error) {
	refused := make(chan error, 1)
	check := func() (done bool, err error) {
		err = st.CheckIdentity(ctx, cfg.redisAddrForLog(), cfg.archiveForLog())
		if errors.Is(err, redisdb.ErrOtherHistory) {
			return true, err
		}
		if err != nil {
			logger.Warn("could not compare the identities of redis and the archive yet; trying again", "err", err)
		}
		return err == nil, nil
	}
	if done, err := check(); done || err != nil {
		return refused, err
	}
	go func() {
		t := time.NewTicker(identityRetry)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if done, err := check(); err != nil {
				refused <- err
				return
			} else if done {
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
		HotWindow: tc.HotWindow, Archive: arch, TrendsWindow: tc.TrendsWindow,
		CelebrityFans: tc.CelebrityFans, InactiveAfter: tc.InactiveAfter, Metrics: redisdb.NewMetrics(reg),
		MaxBlocks: cfg.Safety.MaxBlocks, MaxMutes: cfg.Safety.MaxMutes,
		Logger: logger,
	})
	if err != nil {
		return nil, err
	}
	st.RegisterQueueMetrics(reg)
	st.RegisterStorageMetrics(reg)
	if err := st.Ping(ctx); err != nil {
		logger.Warn("redis is not answering yet", "redis", cfg.redisAddrForLog(), "err", err)
	} else if err := st.Migrate(ctx); err != nil {
		logger.Warn("could not bring the data up to date; search may miss older users until the next start", "err", err)
	}
	return st, nil
}

// startRunners starts the background work of every process: the fan-out
// workers, the archiver, the listener that keeps the session and avatar
// caches, the checker that mends what stopped writes left (one process at a
// time) and the media janitor. A job or check cut short when they stop is
// taken up again, here or by another process. The function it returns
// stops them and waits until they have.
func startRunners(st *redisdb.Store, cfg config, logger *slog.Logger) (stop func()) {
	tc := cfg.Timelines
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, r := range []interface{ Run(context.Context) }{
		redisdb.NewFanOut(st, redisdb.FanOutOptions{Workers: tc.Workers, ClaimIdle: tc.ClaimIdle,
			BatchDelay: tc.BatchDelay, Logger: logger}),
		redisdb.NewArchiver(st, redisdb.ArchiverOptions{ClaimIdle: tc.ClaimIdle, Logger: logger}),
		redisdb.NewCacheListener(st, redisdb.CacheListenerOptions{Logger: logger}),
		redisdb.NewChecker(st, redisdb.CheckerOptions{Interval: cfg.Repair.Interval, Logger: logger}),
		redisdb.NewMediaJanitor(st, redisdb.MediaJanitorOptions{Logger: logger}),
	} {
		wg.Go(func() { r.Run(ctx) })
	}
	return func() {
		cancel()
		wg.Wait()
	}
}
