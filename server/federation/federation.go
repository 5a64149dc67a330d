package federation

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"microblog/store"
	"microblog/store/media"
)

// Store is what federation needs of the store: the service's own
// interfaces and the federation's keeping (store.Fed).
type Store interface {
	store.Service
	store.Fed
}

// Deliverer queues an activity for delivery (the durable queue of
// store/redisdb/fed/queue.go); Direct is a stand-in that sends at once.
type Deliverer interface {
	EnqueueDelivery(ctx context.Context, d store.Delivery) error
}

// Options are federation's settings.
type Options struct {
	// PublicURL is the origin the world reaches (MICROBLOG_PUBLIC_URL),
	// read at each use: a test server learns its own once it listens.
	PublicURL func() string
	// AllowPrivate lets the fetcher and the sender reach http:// peers and
	// loopback or private addresses (MICROBLOG_FEDERATION_ALLOW_PRIVATE).
	AllowPrivate bool
	// Deliverer queues what goes out; nil: sent at once, without retries.
	Deliverer Deliverer
	// Software and Version name the service to peers (User-Agent).
	Software, Version string
	// FetchTimeout bounds one remote fetch (10 s); MaxFetchBytes its body
	// (1 MiB).
	FetchTimeout  time.Duration
	MaxFetchBytes int64
	// RefreshAfter is how old a remote actor may be before it is read
	// again on use (1 day).
	RefreshAfter time.Duration
	// Media is the folder remote pictures are kept in, as uploads
	// (media_in.go); nil keeps them by their remote URL.
	Media  *media.Folder
	Logger *slog.Logger
}

// Service is the federation of one server process.
type Service struct {
	st  Store
	opt Options
	// client fetches and delivers: no private address unless allowed,
	// bounded times (fetch.go).
	client *http.Client
	// deliverClient delivers activities (deliver_queue.go): the same
	// checks, no redirect followed.
	deliverClient *http.Client
	// keys caches the parsed local signing keys by uid.
	keys sync.Map // int64 → *localKey
	// actors caches the remote actors read lately (resolve.go).
	actors actorCache
}

// New returns the federation over st.
func New(st Store, opt Options) *Service {
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if opt.FetchTimeout == 0 {
		opt.FetchTimeout = 10 * time.Second
	}
	if opt.MaxFetchBytes == 0 {
		opt.MaxFetchBytes = 1 << 20
	}
	if opt.RefreshAfter == 0 {
		opt.RefreshAfter = 24 * time.Hour
	}
	if opt.Software == "" {
		opt.Software = "microblog"
	}
	s := &Service{st: st, opt: opt}
	s.client = newSafeClient(opt.AllowPrivate, opt.FetchTimeout)
	s.deliverClient = newDeliverClient(opt.AllowPrivate)
	if s.opt.Deliverer == nil {
		s.opt.Deliverer = direct{s}
	}
	return s
}

// Routes registers federation's routes on e.
func (s *Service) Routes(e *echo.Echo) {
	get := []string{http.MethodGet, http.MethodHead}
	e.Match(get, "/ap/actor", s.instanceActor)
	e.Match(get, "/ap/users/:uid", s.actor)
	e.Match(get, "/ap/users/:uid/outbox", s.outbox)
	e.Match(get, "/ap/users/:uid/followers", s.followers)
	e.Match(get, "/ap/users/:uid/following", s.following)
	e.Match(get, "/ap/posts/:id", s.note)
	e.Match(get, "/ap/posts/:id/activity", s.createActivity)
	e.POST("/ap/users/:uid/inbox", s.inbox)
	e.POST("/ap/inbox", s.inbox)
	e.POST("/ap/actor/inbox", s.inbox)
}

// Store is the store federation keeps its state in.
func (s *Service) Store() Store { return s.st }

// userAgent is what the service's requests say they are.
func (s *Service) userAgent() string {
	return s.opt.Software + "/" + s.opt.Version + " (+" + s.opt.PublicURL() + "/)"
}
