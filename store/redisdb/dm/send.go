package dm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/internal/reqpath"
	"microblog/store/redisdb/schema"
)

// Private messages (私信). A message's own hash pm:<id> is under its own
// tag; each of its two users holds it in keys under their own tag: its id
// in conv:<uid>:<other> (the conversation's hot window), the conversation's
// place in conv:<uid> (latest activity first), a read mark in
// conv:<uid>:read and the unread conversations in conv:<uid>:unread. So no
// command touches two users' keys: a message is written like a post, its
// hash first and then its two sides, each one script call (lua/conv_*.lua),
// and it goes out live on both users' notify channels.
//
// The claim is one round trip, as a post's: the sender's name, the
// recipient's name and who may write to it, the blocks both ways and
// whether the recipient follows the sender, the images, the count against
// the sender's "message" rate limit, the Idempotency-Key and a new id from
// global:messageid. A message refused there leaves nothing but a used id
// and its count against the limit. Writing it is one more round trip
// (MULTI/EXEC on one Redis; on a cluster its hash first, as a post's).

// dmBucket is the rate-limit bucket of private messages.
const dmBucket = "message"

// dmDraft is a private message on its way into Redis.
type dmDraft struct {
	nm  store.NewDM
	msg store.DM
	// idemKey is the claimed idempotency key, or empty; claim and reqHash
	// as in draft; finished tells, once written, whether the key took the
	// result.
	idemKey, claim, reqHash string
	finished                *redis.Cmd
	row                     store.ArchivedDM
	// push tells whether the recipient has a device to push to (push.go).
	push *redis.IntCmd
}

// SendDM writes a private message from nm.From to nm.To: 403 blocked
// when one of them blocks the other, 403 messages_closed when the
// recipient takes messages only from the users it follows and does not
// follow the sender. It answers a retry with the same Idempotency-Key with
// the first message.
func (s *DMs) SendDM(ctx context.Context, nm store.NewDM) (store.DM, error) {
	if err := nm.Check(); err != nil {
		return store.DM{}, err
	}
	// From the claim on, the write belongs to the server (as Create's).
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), reqpath.WriteTimeout)
	defer cancel()
	d := &dmDraft{nm: nm}
	first, err := s.claimDM(ctx, d)
	if err != nil || first != nil {
		return deref(first), err
	}
	if err := s.writeDM(ctx, d); err != nil {
		return store.DM{}, err
	}
	s.queuePush(ctx, d)
	return d.msg, nil
}

func deref(m *store.DM) store.DM {
	if m == nil {
		return store.DM{}
	}
	return *m
}

// claimDM checks, counts and claims the message in one round trip
// (see the top of this file), and shapes d.msg. When an earlier request
// holds the key, it returns that request's message instead.
func (s *DMs) claimDM(ctx context.Context, d *dmDraft) (*store.DM, error) {
	nm := d.nm
	var from, to *redis.SliceCmd
	var blocking, blocked, follows *redis.FloatCmd
	var media []*redis.MapStringStringCmd
	var held *redis.Cmd
	var next, queued *redis.IntCmd
	var spent func() error
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		spent = s.core.QueueAllow(ctx, pl, dmBucket, id(nm.From), nm.Limit)
		queued = s.core.QueueArchiveRoom(ctx, pl)
		from = pl.HMGet(ctx, s.keys.User(nm.From), schema.FieldUsername)
		to = pl.HMGet(ctx, s.keys.User(nm.To), schema.FieldUsername, schema.FieldDMsFrom)
		blocking = pl.ZScore(ctx, s.keys.Blocking(nm.From), id(nm.To))
		blocked = pl.ZScore(ctx, s.keys.Blocking(nm.To), id(nm.From))
		follows = pl.ZScore(ctx, s.keys.Stars(nm.To), id(nm.From))
		media = s.core.QueueMediaRead(ctx, pl, nm.MediaIDs)
		if nm.IdempotencyKey != "" {
			d.reqHash = dmRequestHash(nm)
			d.idemKey, d.claim, held = s.core.QueueIdemClaim(ctx, pl, nm.From, nm.IdempotencyKey, d.reqHash)
		}
		next = pl.Incr(ctx, s.keys.LastDMID())
		d.push = pl.Exists(ctx, s.keys.PushSubscriptions(nm.To))
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		s.releaseDM(ctx, d) // the claim may have been taken before the reply was lost
		return nil, s.core.Wrap("send message", err)
	}
	if held != nil {
		if h, _ := held.Text(); h != d.claim {
			m, err := s.firstDM(ctx, d, h)
			if err != nil {
				return nil, err
			}
			return &m, nil
		}
	}
	fromName, _ := from.Val()[0].(string)
	toName, _ := to.Val()[0].(string)
	closed, _ := to.Val()[1].(string)
	err = spent()
	if err == nil {
		err = s.core.ArchiveRoom(queued)
	}
	switch {
	case err != nil:
	case fromName == "" || toName == "":
		err = store.ErrUserNotFound
	case blocking.Err() == nil || blocked.Err() == nil:
		err = store.ErrBlocked
	case closed == store.DMsFromFollowing && follows.Err() != nil:
		err = store.ErrMessagesClosed
	}
	var files []store.Media
	if err == nil {
		files, err = s.core.OwnMedia(nm.From, nm.MediaIDs, media)
	}
	if err != nil {
		s.releaseDM(ctx, d)
		return nil, err
	}
	d.msg = store.DM{ID: next.Val(), Sender: store.Party{ID: nm.From, Username: fromName},
		Recipient: store.Party{ID: nm.To, Username: toName}, Content: nm.Content,
		CreatedAt: store.Time(s.core.Now()), Media: files}
	d.row = archivedDM(&d.msg)
	return nil, nil
}

// dmRequestHash is what a message's Idempotency-Key is bound to: its
// recipient and body, so that the key of a post is never taken for a
// message, nor the other way round.
func dmRequestHash(nm store.NewDM) string {
	if len(nm.MediaIDs) == 0 {
		nm.MediaIDs = nil
	}
	b, _ := json.Marshal([]any{"message", nm.To, nm.MediaIDs, nm.Content})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// releaseDM gives up the Idempotency-Key of a request that failed, as
// release does for a post.
func (s *DMs) releaseDM(ctx context.Context, d *dmDraft) {
	if d.idemKey != "" {
		s.core.DropClaim(ctx, d.idemKey, d.claim, schema.DMResult(d.msg.ID, d.reqHash))
	}
}

// firstDM answers a request whose Idempotency-Key another request
// holds, as firstResult does for a post.
func (s *DMs) firstDM(ctx context.Context, d *dmDraft, held string) (store.DM, error) {
	st := schema.ParseIdem(held)
	switch {
	case st.ReqHash != d.reqHash:
		return store.DM{}, store.ErrIdemKeyReused
	case st.Running:
		return store.DM{}, store.ErrInProgress
	}
	m, _, err := s.lookupDM(ctx, st.Mid)
	if err == nil && m == nil {
		err = store.ErrDMNotFound // deleted since
	}
	if err == nil && s.keys.Cluster() {
		// Its first answer may have been a 503 with the event not sent (as
		// a post's retry does, sendAgain).
		raw, err := json.Marshal(m)
		if err != nil {
			return store.DM{}, fmt.Errorf("send message: encode: %w", err)
		}
		if err := s.sendDMEvent(ctx, *m, store.FrameOf(store.EventDM, raw)); err != nil {
			return store.DM{}, err
		}
	}
	return deref(m), err
}

// writeDM stores the claimed message: its hash, then its two sides, its
// archive entry, the idempotency result and its live events. A write that
// fails is settled (settleDM): taken out again where it did not stand, so
// that its 503 is true, kept where a retry may get it.
func (s *DMs) writeDM(ctx context.Context, d *dmDraft) error {
	raw, err := json.Marshal(d.msg)
	if err != nil {
		return s.core.Wrap("send message: encode", err)
	}
	d.msg.Encoded = raw
	frame := store.FrameOf(store.EventDM, raw)
	if s.keys.Cluster() {
		_, err = s.rdb.TxPipelined(ctx, func(t redis.Pipeliner) error {
			s.queueDM(ctx, t, d)
			return nil
		})
		if err == nil {
			_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
				s.queueDMIndex(ctx, pl, d, nil)
				return nil
			})
		}
	} else {
		_, err = s.rdb.TxPipelined(ctx, func(t redis.Pipeliner) error {
			s.queueDM(ctx, t, d)
			s.queueDMIndex(ctx, t, d, frame)
			return nil
		})
	}
	switch {
	case err != nil && !errors.Is(err, redis.Nil):
		s.settleDM(ctx, d)
		return s.core.Wrap("send message", err)
	case d.finished != nil && d.finished.Val() == int64(0):
		err = store.ErrInProgress // the claim ran out and a retry holds the key
	case s.keys.Cluster() && !s.publishDM(ctx, d, frame):
		return errDMEventPending
	default:
		return nil
	}
	s.unwriteDM(ctx, d)
	return err
}

// errDMEventPending answers, on a cluster, a message written whole whose
// live event Redis did not take: 503, as a post's. The message stands and
// its event is sent again in the background; the retry with the same
// Idempotency-Key sends it too, before it is answered (firstDM).
var errDMEventPending = fmt.Errorf("redisdb: send message: live event not sent yet: %w", store.ErrUnavailable)

// publishDM sends, on a cluster, the live event of a message written whole
// whose key (if any) took its result: only then, so that a message taken
// out again is never shown live (its channels and its key live on
// different masters). An event Redis refuses is sent again once it answers
// (untilAnswered): the message stands, and its readers hear of it late
// rather than never. It tells whether the event went out at once: a
// message is acknowledged only then, so that its event never comes after
// the event of a message sent after its answer (the hub drops the repeat
// of one sent twice, by id).
func (s *DMs) publishDM(ctx context.Context, d *dmDraft, frame []byte) bool {
	return s.core.UntilAnswered(ctx, func(ctx context.Context) error {
		return s.sendDMEvent(ctx, d.msg, frame)
	})
}

// sendDMEvent publishes frame, the live event of m, on both its users'
// notify channels, in one round trip.
func (s *DMs) sendDMEvent(ctx context.Context, m store.DM, frame []byte) error {
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		s.core.QueuePublishFrame(ctx, pl, s.keys.NotifyChannel(m.Sender.ID), frame)
		s.core.QueuePublishFrame(ctx, pl, s.keys.NotifyChannel(m.Recipient.ID), frame)
		return nil
	})
	return s.core.Wrap("send message: event", err)
}

// queueDM queues the writes of the message's hash.
func (s *DMs) queueDM(ctx context.Context, t redis.Pipeliner, d *dmDraft) {
	m := d.msg
	fields := []any{"sender", m.Sender.ID, "recipient", m.Recipient.ID,
		"sender_name", m.Sender.Username, "recipient_name", m.Recipient.Username,
		"content", m.Content, "time", int64(m.CreatedAt)}
	if len(m.Media) > 0 {
		fields = append(fields, "media", d.row.Media)
	}
	if d.idemKey != "" { // for the checker, should the request stop half way
		fields = append(fields, schema.FieldIdem, d.idemKey[strings.LastIndexByte(d.idemKey, ':')+1:]+" "+d.claim)
	}
	t.HSet(ctx, s.keys.DM(m.ID), fields...)
}

// queueDMIndex queues the rest of the write: the message's two sides, its
// images, its archive entry and the idempotency result. On one Redis
// (frame set) post_finish.lua records the result and, only if the key took
// it, publishes the live event on both users' notify channels, last in the
// transaction; on a cluster (frame nil) writeDM publishes it afterwards.
func (s *DMs) queueDMIndex(ctx context.Context, pl redis.Pipeliner, d *dmDraft, frame []byte) {
	m := d.msg
	from, to := m.Sender.ID, m.Recipient.ID
	schema.ConvAdd.Eval(ctx, pl, s.convKeys(from, to), m.ID, to, "1")
	schema.ConvAdd.Eval(ctx, pl, s.convKeys(to, from), m.ID, from, "0")
	s.core.QueueAttach(ctx, pl, m.Media, m.ID)
	s.queueArchiveDM(ctx, pl, schema.ArchiveDMPut, d.row)
	result := schema.DMResult(m.ID, d.reqHash)
	switch {
	case frame != nil:
		var keys []string
		claim := ""
		if d.idemKey != "" {
			keys, claim = []string{d.idemKey}, d.claim
		}
		d.finished = schema.PostFinish.Eval(ctx, pl, keys, claim, result, schema.IdempotencyTTL.Milliseconds(), "", "",
			s.keys.NotifyChannel(from), frame, s.keys.NotifyChannel(to), "") // "": the frame before
	case d.idemKey != "":
		d.finished = schema.IdemFinish.Eval(ctx, pl, []string{d.idemKey}, d.claim, result, schema.IdempotencyTTL.Milliseconds())
	}
}

// convKeys are the keys of uid's side of its conversation with other, as
// lua/conv_add.lua and conv_unlink.lua take them.
func (s *DMs) convKeys(uid, other int64) []string {
	return []string{s.keys.Conversation(uid, other), s.keys.Conversations(uid),
		s.keys.ConversationsRead(uid), s.keys.ConversationsUnread(uid)}
}

// settleDM decides what became of a message whose write failed without
// Redis telling what it did, once Redis answers, as settle does for a
// post: a message whose hash was never written gives its claim back; one
// whose key holds its result (its write reached that far, and a retry may
// have been answered with it) or that has no key stays, and the checker
// finishes what is missing of it; any other is taken out, and only then is
// its key given back.
func (s *DMs) settleDM(ctx context.Context, d *dmDraft) {
	s.core.UntilAnswered(ctx, func(ctx context.Context) error {
		var written *redis.IntCmd
		var held *redis.StringCmd
		_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
			written = pl.Exists(ctx, s.keys.DM(d.msg.ID))
			if d.idemKey != "" {
				held = pl.Get(ctx, d.idemKey)
			}
			return nil
		})
		switch {
		case err != nil && !errors.Is(err, redis.Nil):
			return s.core.Wrap("settle message", err)
		case written.Val() == 0 && d.idemKey != "":
			return schema.DelIfEquals.Run(ctx, s.rdb, []string{d.idemKey}, d.claim).Err()
		case written.Val() == 0, d.idemKey == "", held.Val() == schema.DMResult(d.msg.ID, d.reqHash):
			return nil
		}
		return s.undoDM(ctx, d)
	})
}

// unwriteDM takes out again, entirely, a message that was never answered
// for (undoDM), trying until Redis answers (untilAnswered); what stays even
// then the checker mends.
func (s *DMs) unwriteDM(ctx context.Context, d *dmDraft) {
	s.core.UntilAnswered(ctx, func(ctx context.Context) error { return s.undoDM(ctx, d) })
}

// undoDM takes out a message as unwrite does a post: its hash (a tombstone
// with the archive on, which its archive entry may have reached), its two
// sides, and then its claim on its Idempotency-Key (not before: a key given
// back while the message stands would let the retry send a second one); its
// images are free again, and both users' live readers are told it is gone.
func (s *DMs) undoDM(ctx context.Context, d *dmDraft) error {
	_, err := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		schema.DeleteMessage.Eval(ctx, pl, []string{s.keys.DM(d.msg.ID)}, reqpath.Flag(s.opt.Archive != nil), "1")
		s.queueUnlinkDM(ctx, pl, &d.msg)
		for _, f := range d.msg.Media {
			pl.HSet(ctx, s.keys.Media(f.ID), "post", 0)
			pl.ZAdd(ctx, s.keys.UnattachedMedia(), redis.Z{Score: float64(s.core.Now()), Member: f.ID})
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return s.core.Wrap("undo message", err)
	}
	s.releaseDM(ctx, d)
	return nil
}

// queueUnlinkDM queues what follows the delete of a message's hash: its
// two sides lose it, the archive is told, and both users' live readers.
func (s *DMs) queueUnlinkDM(ctx context.Context, pl redis.Pipeliner, m *store.DM) {
	from, to := m.Sender.ID, m.Recipient.ID
	schema.ConvUnlink.Eval(ctx, pl, s.convKeys(from, to), m.ID, to)
	schema.ConvUnlink.Eval(ctx, pl, s.convKeys(to, from), m.ID, from)
	s.queueArchiveDM(ctx, pl, schema.ArchiveDMDelete, archivedDM(m))
	for _, uid := range []int64{from, to} {
		s.core.QueuePublish(ctx, pl, s.keys.NotifyChannel(uid), store.EventDMDelete, store.DeleteData{ID: m.ID})
	}
}
