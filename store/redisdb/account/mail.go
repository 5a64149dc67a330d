package account

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// A user's addresses are two fields of its hash: email, the confirmed one,
// where password resets are mailed, and email_pending, one set but not yet
// confirmed (the confirmed one stays until then). An address is confirmed
// by one account at most: the one holding its index key (EmailIndex),
// claimed when the link mailed to it is followed. So an address two
// accounts set is the first confirmer's, and the other's confirmation is
// refused with email_taken; setting an address tells nobody whether another
// account has it.
//
// Mail goes out from the queue mail:queue (the mailer runner): the request
// path only queues a job, and the runner resolves the address and makes
// the link's token (IssueMailLink), so a reset request costs the same
// whatever the address. A token is 256 random bits, kept as the SHA-256 of
// it (MailToken) with the record of what it is for, and used up with
// GETDEL: a link works once.

// mailTokenTTL is how long past a link's life its record stays in Redis:
// its expiry is judged by the store's clock, the TTL only cleans up.
const mailTokenTTL = time.Minute

// Email is uid's address state.
func (s *Accounts) Email(ctx context.Context, uid int64) (store.EmailState, error) {
	v, err := s.rdb.HMGet(ctx, s.keys.User(uid), schema.FieldEmail, schema.FieldEmailPending).Result()
	if err != nil {
		return store.EmailState{}, s.core.Wrap("read email", err)
	}
	var st store.EmailState
	st.Address, _ = v[0].(string)
	st.Pending, _ = v[1].(string)
	return st, nil
}

// SetEmail sets the address uid wants and queues its confirmation mail.
func (s *Accounts) SetEmail(ctx context.Context, uid int64, address, lang string) (store.EmailState, error) {
	addr, err := store.CheckEmail(address)
	if err != nil {
		return store.EmailState{}, err
	}
	cur, err := s.Email(ctx, uid)
	if err != nil {
		return cur, err
	}
	user := s.keys.User(uid)
	switch {
	case addr == "":
		if err := s.rdb.HDel(ctx, user, schema.FieldEmail, schema.FieldEmailPending).Err(); err != nil {
			return cur, s.core.Wrap("remove email", err)
		}
		if cur.Address != "" {
			s.releaseKey(ctx, s.keys.EmailIndex(cur.Address), uid)
		}
		return store.EmailState{}, nil
	case cur.Address != "" && store.EmailKey(addr) == store.EmailKey(cur.Address):
		if err := s.rdb.HDel(ctx, user, schema.FieldEmailPending).Err(); err != nil {
			return cur, s.core.Wrap("set email", err)
		}
		return store.EmailState{Address: cur.Address}, nil
	}
	job := store.MailJob{Kind: store.MailConfirm, UID: uid, To: addr, Lang: lang, At: s.core.Now()}
	_, err = s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, user, schema.FieldEmailPending, addr)
		s.queueMail(ctx, p, job)
		return nil
	})
	if err != nil {
		return cur, s.core.Wrap("set email", err)
	}
	return store.EmailState{Address: cur.Address, Pending: addr}, nil
}

// RequestPasswordReset queues a reset mail for address: one XADD whatever
// the address, so that no answer or timing tells whether it is known.
func (s *Accounts) RequestPasswordReset(ctx context.Context, address, lang string) error {
	addr, err := store.CheckEmail(address)
	if err != nil {
		return err
	}
	if addr == "" {
		return store.Invalid(store.CodeInvalidEmail, "email is missing")
	}
	_, err = s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		s.queueMail(ctx, p, store.MailJob{Kind: store.MailReset, To: addr, Lang: lang, At: s.core.Now()})
		return nil
	})
	return s.core.Wrap("queue password reset", err)
}

// queueMail queues job on the mail queue.
func (s *Accounts) queueMail(ctx context.Context, p redis.Pipeliner, job store.MailJob) {
	p.XAdd(ctx, &redis.XAddArgs{Stream: s.keys.MailQueue(), MaxLen: schema.MailQueueMax, Approx: true,
		Values: schema.MailEntry(job)})
}

// IssueMailLink makes the token of job's link, or reports that there is
// nothing to send.
func (s *Accounts) IssueMailLink(ctx context.Context, job store.MailJob) (store.MailLink, bool, error) {
	rec := schema.MailTokenRecord{UID: job.UID, To: job.To, Lang: job.Lang}
	var valid time.Duration
	switch job.Kind {
	case store.MailConfirm:
		cur, err := s.Email(ctx, job.UID)
		if err != nil || store.EmailKey(cur.Pending) != store.EmailKey(job.To) {
			return store.MailLink{}, false, err // changed since, or removed
		}
		valid = store.ConfirmValid
	case store.MailReset:
		uid, err := s.rdb.Get(ctx, s.keys.EmailIndex(job.To)).Int64()
		if errors.Is(err, redis.Nil) {
			return store.MailLink{}, false, nil
		}
		if err != nil {
			return store.MailLink{}, false, s.core.Wrap("find email", err)
		}
		v, err := s.rdb.HMGet(ctx, s.keys.User(uid), schema.FieldEmail, schema.FieldPassword).Result()
		if err != nil {
			return store.MailLink{}, false, s.core.Wrap("find email", err)
		}
		confirmed, _ := v[0].(string)
		if confirmed == "" || store.EmailKey(confirmed) != store.EmailKey(job.To) {
			return store.MailLink{}, false, nil // a stale index entry
		}
		hash, _ := v[1].(string)
		rec.UID, rec.To, rec.Password = uid, confirmed, passwordDigest(hash)
		valid = store.ResetValid
	default:
		return store.MailLink{}, false, nil
	}
	name, err := s.core.Username(ctx, rec.UID)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return store.MailLink{}, false, nil
		}
		return store.MailLink{}, false, err
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return store.MailLink{}, false, s.core.Wrap("new mail token", err)
	}
	token := base64.RawURLEncoding.EncodeToString(b[:])
	rec.Expires = s.core.Now() + valid.Milliseconds()
	data, _ := json.Marshal(rec)
	if err := s.rdb.Set(ctx, s.keys.MailToken(job.Kind, store.TokenHash(token)), data, valid+mailTokenTTL).Err(); err != nil {
		return store.MailLink{}, false, s.core.Wrap("store mail token", err)
	}
	return store.MailLink{Kind: job.Kind, To: rec.To, Token: token, Username: name, Lang: job.Lang}, true, nil
}

// passwordDigest stands for a password record in a reset link's record:
// the link is void once the record changes.
func passwordDigest(hash string) string {
	sum := sha256.Sum256([]byte(hash))
	return hex.EncodeToString(sum[:16])
}

// mailToken reads (take: and deletes) the record of a link's token and
// checks that it still holds: ErrInvalidToken otherwise.
func (s *Accounts) mailToken(ctx context.Context, kind, token string, take bool) (schema.MailTokenRecord, error) {
	var rec schema.MailTokenRecord
	if token == "" || len(token) > 128 || (kind != store.MailConfirm && kind != store.MailReset) {
		return rec, store.ErrInvalidToken
	}
	key := s.keys.MailToken(kind, store.TokenHash(token))
	var data []byte
	var err error
	if take {
		data, err = s.rdb.GetDel(ctx, key).Bytes()
	} else {
		data, err = s.rdb.Get(ctx, key).Bytes()
	}
	if errors.Is(err, redis.Nil) {
		return rec, store.ErrInvalidToken
	}
	if err != nil {
		return rec, s.core.Wrap("read mail token", err)
	}
	if json.Unmarshal(data, &rec) != nil || rec.UID <= 0 || s.core.Now() >= rec.Expires {
		return rec, store.ErrInvalidToken
	}
	switch kind {
	case store.MailConfirm:
		cur, err := s.Email(ctx, rec.UID)
		if err != nil {
			return rec, err
		}
		if store.EmailKey(cur.Pending) != store.EmailKey(rec.To) {
			return rec, store.ErrInvalidToken // replaced by another address, or removed
		}
	case store.MailReset:
		hash, err := s.rdb.HGet(ctx, s.keys.User(rec.UID), schema.FieldPassword).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return rec, s.core.Wrap("read password", err)
		}
		if passwordDigest(hash) != rec.Password {
			return rec, store.ErrInvalidToken // the password changed since
		}
	}
	return rec, nil
}

// CheckMailToken tells whether a link's token is valid now, leaving it.
func (s *Accounts) CheckMailToken(ctx context.Context, kind, token string) (store.MailLink, error) {
	rec, err := s.mailToken(ctx, kind, token, false)
	if err != nil {
		return store.MailLink{}, err
	}
	name, err := s.core.Username(ctx, rec.UID)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			err = store.ErrInvalidToken
		}
		return store.MailLink{}, err
	}
	return store.MailLink{Kind: kind, To: rec.To, Username: name, Lang: rec.Lang}, nil
}

// ConfirmEmail confirms the address of a confirmation token, once.
func (s *Accounts) ConfirmEmail(ctx context.Context, token string) (store.User, error) {
	rec, err := s.mailToken(ctx, store.MailConfirm, token, true)
	if err != nil {
		return store.User{}, err
	}
	uid := rec.UID
	old, err := s.Email(ctx, uid)
	if err != nil {
		return store.User{}, err
	}
	if err := s.claimEmail(ctx, uid, rec.To); err != nil {
		return store.User{}, err
	}
	_, err = s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, s.keys.User(uid), schema.FieldEmail, rec.To)
		p.HDel(ctx, s.keys.User(uid), schema.FieldEmailPending)
		return nil
	})
	if err != nil {
		return store.User{}, s.core.Wrap("confirm email", err)
	}
	if old.Address != "" && store.EmailKey(old.Address) != store.EmailKey(rec.To) {
		s.releaseKey(ctx, s.keys.EmailIndex(old.Address), uid)
	}
	return s.core.User(ctx, uid, uid)
}

// claimEmail makes uid the account that confirmed address, taking it over
// only from an owner whose hash no longer has it confirmed (a stale claim).
func (s *Accounts) claimEmail(ctx context.Context, uid int64, address string) error {
	key := s.keys.EmailIndex(address)
	for range 2 {
		ok, err := s.rdb.SetNX(ctx, key, uid, 0).Result()
		if err != nil {
			return s.core.Wrap("claim email", err)
		}
		if ok {
			return nil
		}
		owner, err := s.rdb.Get(ctx, key).Int64()
		if errors.Is(err, redis.Nil) {
			continue // given back meanwhile
		}
		if err != nil {
			return s.core.Wrap("claim email", err)
		}
		if owner == uid {
			return nil
		}
		theirs, err := s.rdb.HGet(ctx, s.keys.User(owner), schema.FieldEmail).Result()
		if err != nil && !errors.Is(err, redis.Nil) {
			return s.core.Wrap("claim email", err)
		}
		if theirs != "" && store.EmailKey(theirs) == store.EmailKey(address) {
			return store.ErrEmailTaken
		}
		s.releaseKey(ctx, key, owner) // stale: its owner confirmed another since, or is gone
	}
	return store.ErrEmailTaken
}

// ResetPassword sets the password of a reset token's account, once, and
// ends every session of the account, its OAuth grants' too.
func (s *Accounts) ResetPassword(ctx context.Context, token, password string) error {
	prepared, err := store.PreparePassword(password)
	if err != nil {
		return err // the link stays usable for a better password
	}
	rec, err := s.mailToken(ctx, store.MailReset, token, true)
	if err != nil {
		return err
	}
	hash, err := s.rdb.HGet(ctx, s.keys.User(rec.UID), schema.FieldPassword).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return s.core.Wrap("reset password", err)
	}
	if passwordDigest(hash) != rec.Password {
		return store.ErrInvalidToken // changed since the link was checked
	}
	next, err := s.newPasswordRecord(prepared)
	if err != nil {
		return s.core.Wrap("reset password: hash", err)
	}
	n, err := schema.PasswordSet.Run(ctx, s.rdb, []string{s.keys.User(rec.UID)}, hash, next.Hash, next.Key).Int()
	if err != nil {
		return s.core.Wrap("reset password", err)
	}
	if n != 1 {
		return store.ErrInvalidToken // changed meanwhile
	}
	// Wrong passwords from everywhere no longer hold the account back: they
	// were tries at the password that is gone.
	if name, err := s.core.Username(ctx, rec.UID); err == nil {
		if names := store.LookupNames(name); len(names) > 0 {
			s.rdb.Del(context.WithoutCancel(ctx), s.keys.LoginFailures(names[0]))
		}
	}
	return s.endSessions(context.WithoutCancel(ctx), rec.UID, "")
}

// ReleaseEmail gives back the address uid confirmed, when its account is
// deleted.
func ReleaseEmail(ctx context.Context, a *Accounts, uid int64) error {
	cur, err := a.Email(ctx, uid)
	if err != nil || cur.Address == "" {
		return err
	}
	a.releaseKey(ctx, a.keys.EmailIndex(cur.Address), uid)
	return nil
}
