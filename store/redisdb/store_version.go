package redisdb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"microblog/store/redisdb/schema"

	"github.com/redis/go-redis/v9"
)

// Writer versions, for rolling upgrades. Processes of two versions may
// share one Redis while the newer one is rolled out, as long as each writes
// the data the way the other reads it. A change after which the older
// code's writes would be wrong (a counter kept another way, a key family
// moved, as the likes' were) raises both numbers below: the first process
// of the new version stamps its MinWriter into global:version at start, and
// every process of an older Writer stops (it checks at start and every
// VersionCheck) and refuses to start again. Releases that change nothing of
// the kind keep the numbers, and run side by side freely.
const (
	// CodeWriterVersion is the version of how this code writes the data:
	// 2 marks the sessions of OAuth grants (a version 1 process opens them
	// as plain sessions, which the native API would take).
	CodeWriterVersion = 2
	// CodeMinWriterVersion is the lowest writer version whose writes this
	// code's data stays right with.
	CodeMinWriterVersion = 2
)

// VersionCheck is how often a running process checks global:version
// (CheckVersion): how long a process of an older version may write beside
// a newer one that raised it.
const VersionCheck = 5 * time.Second

// WriterVersions is the writer version a process runs as, and the lowest
// one its data allows beside it; zero values stand for this code's
// (CodeWriterVersion, CodeMinWriterVersion).
type WriterVersions struct {
	Version, MinWriter int
}

func (w WriterVersions) orCode() WriterVersions {
	if w.Version == 0 {
		w = WriterVersions{Version: CodeWriterVersion, MinWriter: CodeMinWriterVersion}
	}
	return w
}

// ErrWriterTooOld means the data requires a newer writer version than this
// process runs: it must not write, and stops.
var ErrWriterTooOld = errors.New("this server is older than the data allows to write")

// ClaimVersion checks at start that this process may write the data, and
// raises global:version to the lowest writer version its own data allows
// (never lowering it): ErrWriterTooOld if a newer version raised it above
// this process's.
func (s *Store) ClaimVersion(ctx context.Context) error {
	w := s.opt.Writer.orCode()
	allowed, err := schema.VersionRaise.Run(ctx, s.rdb, []string{s.keys.WriterVersion()}, w.MinWriter).Int()
	if err != nil {
		return s.Wrap("claim writer version", err)
	}
	return s.writerAllowed(allowed)
}

// CheckVersion tells, as ClaimVersion does, whether this process may still
// write the data: a newer version started beside it may have raised
// global:version since.
func (s *Store) CheckVersion(ctx context.Context) error {
	allowed, err := s.rdb.Get(ctx, s.keys.WriterVersion()).Int()
	if err != nil && !errors.Is(err, redis.Nil) {
		return s.Wrap("check writer version", err)
	}
	return s.writerAllowed(allowed)
}

func (s *Store) writerAllowed(allowed int) error {
	if v := s.opt.Writer.orCode().Version; v < allowed {
		return fmt.Errorf("%w: Redis (%s) allows writer version %d and up, this server is writer version %d; run the newer release (see docs/operations.md, \"Rolling upgrades\")",
			ErrWriterTooOld, s.keys.WriterVersion(), allowed, v)
	}
	return nil
}
