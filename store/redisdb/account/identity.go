package account

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"microblog/store/redisdb/internal/reqpath"

	"github.com/redis/go-redis/v9"
)

// IdentityArchive is what CheckIdentity needs of an archive (archive.DB has
// it): the identity stamped on it, a way to stamp one, and the newest ids it
// holds.
type IdentityArchive interface {
	// Identity returns the identity stamped on the archive, "" when none.
	Identity(ctx context.Context) (string, error)
	// StampIdentity stamps id unless the archive holds one already, and
	// returns the one it holds now.
	StampIdentity(ctx context.Context, id string) (string, error)
	// NewestIDs returns the highest message and private message ids it
	// holds, 0 for none.
	NewestIDs(ctx context.Context) (message, direct int64, err error)
}

// ErrOtherHistory means Redis and the archive hold different histories: the
// server must not serve them together.
var ErrOtherHistory = errors.New("redis and the archive hold different histories")

// history is what one side, Redis or the archive, says of its history.
type history struct {
	identity        string
	message, direct int64 // the newest message and private message ids
}

func (h history) String() string {
	return fmt.Sprintf("identity %s, newest message id %d, newest private message id %d",
		cmp.Or(h.identity, "(none)"), h.message, h.direct)
}

// CheckIdentity refuses (ErrOtherHistory, with a message naming both by
// redisName and archiveName) to go on with a Redis and an archive of
// different histories, and stamps the one that is new with the other's
// identity, or both with a new one at first start. Without an archive, or
// with one that keeps no identity, it does nothing.
//
// The rules, in order:
//   - both stamped with different identities: refused;
//   - the archive holds an id Redis never issued (its newest message or
//     private message id is above Redis's counter): refused. That is a
//     fresh or flushed Redis beside an archive with messages, or a Redis
//     restored from a backup older than the archive; serving them would
//     give new posts the ids of archived ones;
//   - Redis is stamped, has issued messages, and the archive is not
//     stamped: refused. Redis has been used with an archive, and it is not
//     this one (a new or emptied archive, or another process's: two
//     processes on one Redis with an archive each split its history, and
//     a message undone in one came back from the other);
//   - otherwise both take Redis's identity, else the archive's (a fresh
//     Redis beside an archive that holds no messages), else a new one. An
//     archive that is new beside an unstamped Redis with data is its first
//     archive, or one that Redis's data already went into (an older
//     version's).
//
// The archive is read before Redis: an id archived meanwhile was issued by
// Redis before, so a running service never looks like another history.
// The archive is stamped before Redis, so that a Redis that is stamped has
// its archive stamped already (a process that saw Redis stamped reads the
// archive's stamp again before it refuses). Processes starting at once
// agree: the archive is stamped only if it has none and Redis's identity is
// set with SET NX, and each reads back what won.
func (s *Accounts) CheckIdentity(ctx context.Context, redisName, archiveName string) error {
	a, ok := s.opt.Archive.(IdentityArchive)
	if !ok {
		return nil
	}
	var arch, rds history
	var err error
	if arch.identity, err = a.Identity(ctx); err != nil {
		return err
	}
	if arch.message, arch.direct, err = a.NewestIDs(ctx); err != nil {
		return err
	}
	if rds, err = s.history(ctx); err != nil {
		return err
	}
	refuse := func(why string) error {
		return fmt.Errorf("%w: %s: redis %s (%s) and archive %s (%s); see docs/operations.md, \"Redis and archive of different histories\"",
			ErrOtherHistory, why, redisName, rds, archiveName, arch)
	}
	switch {
	case rds.identity != "" && arch.identity != "" && rds.identity != arch.identity:
		return refuse("they were stamped by different histories")
	case arch.message > rds.message || arch.direct > rds.direct:
		return refuse("the archive holds messages this Redis never issued")
	case rds.identity != "" && arch.identity == "" && rds.message+rds.direct > 0:
		// Unless a process starting beside this one has just stamped both.
		if arch.identity, err = a.Identity(ctx); err != nil {
			return err
		}
		if arch.identity == "" {
			return refuse("this Redis was used with another archive")
		}
	}
	id := cmp.Or(rds.identity, arch.identity, rand.Text())
	if arch.identity, err = a.StampIdentity(ctx, id); err != nil {
		return err
	}
	if err := s.rdb.SetNX(ctx, s.keys.HistoryIdentity(), arch.identity, 0).Err(); err != nil {
		return s.core.Wrap("stamp identity", err)
	}
	if rds.identity, err = s.rdb.Get(ctx, s.keys.HistoryIdentity()).Result(); err != nil {
		return s.core.Wrap("stamp identity", err)
	}
	if arch.identity != rds.identity {
		return refuse("they were stamped by different histories")
	}
	return nil
}

// history reads Redis's identity and the last ids it issued.
func (s *Accounts) history(ctx context.Context) (history, error) {
	var identity, message, direct *redis.StringCmd
	cmds, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		identity = pl.Get(ctx, s.keys.HistoryIdentity())
		message = pl.Get(ctx, s.keys.LastPostID())
		direct = pl.Get(ctx, s.keys.LastDMID())
		return nil
	})
	if err := reqpath.PipeErr(cmds, err); err != nil {
		return history{}, s.core.Wrap("read identity", err)
	}
	return history{identity: identity.Val(), message: parseID(message.Val()), direct: parseID(direct.Val())}, nil
}
