package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/redis/go-redis/v9"

	"microblog/store"
)

// bareServer is the naive port the service is compared with: Echo and
// go-redis with nothing else: a token check, no validation, no limits, no
// idempotency, no safety rules, no fan-out queue. A post checks its bearer
// token against the contract's session key (GET auth:<sha256-hex of
// token>, which must hold the author's uid), draws its id and reads the
// author's fans in one round trip, then writes in one pipeline the
// message's own keys, its indexes (the A–G writes), each fan's home
// timeline and the live event. A home read is the same page the product
// returns, read naively: the ids from the home timeline (ZREVRANGE), one
// pipeline of HGETALL for the posts, one of HMGET for their authors.
type bareServer struct {
	rdb      *redis.Client
	author   int64
	username string
	reader   int64
	trips    routeTrips
}

// bareMain is `seedbench bare`: it serves on -addr until SIGINT or SIGTERM.
func bareMain(args []string) error {
	fs := flag.NewFlagSet("seedbench bare", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8080", "listen address")
	url := fs.String("redis", "redis://127.0.0.1:6379/0", "Redis URL")
	author := fs.Int64("author", 1, "uid of the author every post is written by")
	username := fs.String("username", "author", "the author's name, copied into each message")
	reader := fs.Int64("reader", 2, "uid whose home timeline GET /api/v1/timelines/home reads")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ro, err := redis.ParseURL(*url)
	if err != nil {
		return fmt.Errorf("-redis: %w", err)
	}
	ro.MaxRetries = -1 // as the service: no write is sent twice
	b := &bareServer{rdb: redis.NewClient(ro), author: *author, username: *username, reader: *reader}
	b.rdb.AddHook(&b.trips)

	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.POST("/api/v1/posts", b.createPost)
	e.GET("/api/v1/timelines/home", b.home)
	e.GET("/readyz", func(c echo.Context) error {
		if err := b.rdb.Ping(c.Request().Context()).Err(); err != nil {
			return c.String(http.StatusServiceUnavailable, err.Error())
		}
		return c.String(http.StatusOK, "ok")
	})
	e.GET("/metrics", b.metrics)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- e.Start(*addr) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	e.Shutdown(sctx)
	return b.rdb.Close()
}

// createPost is POST /api/v1/posts: body {"content"}, 201 Post.
func (b *bareServer) createPost(c echo.Context) error {
	var in struct {
		Content string `json:"content"`
	}
	if err := json.NewDecoder(c.Request().Body).Decode(&in); err != nil {
		return c.JSON(http.StatusBadRequest, map[string]string{"error": err.Error()})
	}
	ctx := b.trips.on(c.Request().Context(), &b.trips.posts)
	token, ok := strings.CutPrefix(c.Request().Header.Get("Authorization"), "Bearer ")
	if !ok || token == "" {
		return c.JSON(http.StatusUnauthorized, map[string]string{"error": "not_logged_in"})
	}
	var session *redis.StringCmd
	var next *redis.IntCmd
	var fans *redis.StringSliceCmd
	_, err := b.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		session = pl.Get(ctx, "auth:"+store.TokenHash(token))
		next = pl.Incr(ctx, "global:postid")
		fans = pl.ZRange(ctx, "A:"+id(b.author)+":fansID", 0, -1)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return c.JSON(http.StatusServiceUnavailable, map[string]string{"error": err.Error()})
	}
	if session.Val() != id(b.author) {
		return c.JSON(http.StatusUnauthorized, map[string]string{"error": "not_logged_in"})
	}
	mid, now := next.Val(), time.Now().UnixMilli()
	no := false
	p := store.Post{ID: mid, Kind: store.KindPost, Author: store.Author{ID: b.author, Username: b.username},
		Content: in.Content, CreatedAt: store.Time(now), Liked: &no,
		Mentions: []store.Author{}, Tags: []string{}, Media: []store.Media{}}
	frame, err := store.EncodeFrame(store.EventPost, p)
	if err != nil {
		return err
	}
	z := redis.Z{Score: float64(mid), Member: mid}
	_, err = b.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		pl.HSet(ctx, "B:"+id(mid), "content", in.Content, "author", b.author, "username", b.username,
			"time", now, "kind", store.KindPost, "repost_of", "", "parent", "",
			"comments_count", 0, "reposts_count", 0)
		pl.Set(ctx, "D:"+id(mid)+":publicTime", now, 0)
		pl.Set(ctx, "E:"+id(mid)+":personID", b.author, 0)
		pl.ZAdd(ctx, "F:"+id(b.author)+":messageID", z)
		pl.ZAdd(ctx, "G:"+id(b.author)+":messageID", z)
		pl.ZAdd(ctx, "global:timeline", z)
		pl.ZRemRangeByRank(ctx, "global:timeline", 0, -1001)
		for _, fan := range fans.Val() {
			pl.ZAdd(ctx, "G:"+fan+":messageID", z)
		}
		pl.Publish(ctx, "author:"+id(b.author), frame)
		return nil
	})
	if err != nil {
		return c.JSON(http.StatusServiceUnavailable, map[string]string{"error": err.Error()})
	}
	return c.JSON(http.StatusCreated, p)
}

// home is GET /api/v1/timelines/home?limit=: the newest posts of the
// reader's G, as a Page of Post.
func (b *bareServer) home(c echo.Context) error {
	limit := 20
	if s := c.QueryParam("limit"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= 100 {
			limit = n
		}
	}
	ctx := b.trips.on(c.Request().Context(), &b.trips.home)
	mids, err := b.rdb.ZRevRange(ctx, "G:"+id(b.reader)+":messageID", 0, int64(limit-1)).Result()
	if err != nil {
		return c.JSON(http.StatusServiceUnavailable, map[string]string{"error": err.Error()})
	}
	hashes := make([]*redis.MapStringStringCmd, len(mids))
	_, err = b.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		for i, mid := range mids {
			hashes[i] = pl.HGetAll(ctx, "B:"+mid)
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return c.JSON(http.StatusServiceUnavailable, map[string]string{"error": err.Error()})
	}
	// The authors, as the product shows them: each one's avatar, display
	// name and sign-up time, read in one more round trip (the product
	// remembers them per process; the naive read does not).
	var uids []string
	for _, h := range hashes {
		if a := h.Val()["author"]; a != "" && !slices.Contains(uids, a) {
			uids = append(uids, a)
		}
	}
	cards := make(map[string]*redis.SliceCmd, len(uids))
	if len(uids) > 0 {
		_, err = b.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
			for _, uid := range uids {
				cards[uid] = pl.HMGet(ctx, "user:userid:"+uid, "avatar", "display_name", "created")
			}
			return nil
		})
		if err != nil && !errors.Is(err, redis.Nil) {
			return c.JSON(http.StatusServiceUnavailable, map[string]string{"error": err.Error()})
		}
	}
	page := struct {
		Items      []store.Post `json:"items"`
		NextCursor *string      `json:"next_cursor"`
	}{Items: make([]store.Post, 0, len(mids))}
	for i, h := range hashes {
		m := h.Val()
		if len(m) == 0 {
			continue // gone: skipped, as the contract says
		}
		mid, _ := strconv.ParseInt(mids[i], 10, 64)
		author, _ := strconv.ParseInt(m["author"], 10, 64)
		t, _ := strconv.ParseInt(m["time"], 10, 64)
		p := store.Post{ID: mid, Kind: m["kind"], Content: m["content"], Spoiler: m["spoiler"],
			Author: store.Author{ID: author, Username: m["username"]}, CreatedAt: store.Time(t),
			Mentions: []store.Author{}, Tags: []string{}, Media: []store.Media{}}
		if card := cards[m["author"]]; card != nil {
			if v := card.Val(); len(v) == 3 {
				if avatar, _ := v[0].(string); avatar != "" {
					u := "/media/" + avatar
					p.Author.AvatarURL = &u
				}
				p.Author.DisplayName, _ = v[1].(string)
				created, _ := v[2].(string)
				at, _ := strconv.ParseInt(created, 10, 64)
				p.Author.CreatedAt = store.Time(at)
			}
		}
		page.Items = append(page.Items, p)
	}
	if len(mids) == limit {
		cursor := mids[len(mids)-1]
		page.NextCursor = &cursor
	}
	return c.JSON(http.StatusOK, page)
}

// metrics writes the round trips of each route in the service's metric, so
// that the benchmark reads both alike.
func (b *bareServer) metrics(c echo.Context) error {
	return c.String(http.StatusOK, fmt.Sprintf("# TYPE %s counter\n"+
		"%s{method=\"POST\",route=\"/api/v1/posts\"} %d\n"+
		"%s{method=\"GET\",route=\"/api/v1/timelines/home\"} %d\n",
		tripsMetric, tripsMetric, b.trips.posts.Load(), tripsMetric, b.trips.home.Load()))
}

// routeTrips counts the calls to Redis (a command or a pipeline, each one
// round trip) made while serving each route: a go-redis hook adds one to
// the counter the request's context carries.
type routeTrips struct{ posts, home atomic.Int64 }

type tripsKey struct{}

// on is ctx carrying the counter of its route.
func (t *routeTrips) on(ctx context.Context, n *atomic.Int64) context.Context {
	return context.WithValue(ctx, tripsKey{}, n)
}

func count(ctx context.Context) {
	if n, ok := ctx.Value(tripsKey{}).(*atomic.Int64); ok {
		n.Add(1)
	}
}

func (t *routeTrips) DialHook(next redis.DialHook) redis.DialHook { return next }

func (t *routeTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		count(ctx)
		return next(ctx, cmd)
	}
}

func (t *routeTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		count(ctx)
		return next(ctx, cmds)
	}
}

func id(n int64) string { return strconv.FormatInt(n, 10) }
