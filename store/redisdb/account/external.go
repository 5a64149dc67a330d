package account

import (
	"context"
	"crypto/rand"
	"errors"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/redis/go-redis/v9"
	"golang.org/x/text/unicode/norm"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// An identity of another sign-in service (provider, subject) is owned
// through the STRING key Identity(provider, subject) holding the uid,
// written with SET NX like a name; the user's UserIdentities hash lists
// what it owns so that deletion can give it back. Like a name, an identity
// key whose user no longer exists is taken over (staleOwner).

// maxSubject bounds the subject an identity key is built from: OpenID
// Connect allows 255 ASCII characters, and a DN is seldom longer.
const maxSubject = 1024

// maxGuardName bounds the name an external sign-in's guard is keyed by.
const maxGuardName = 256

// nameTries is how many numbered forms of a preferred name (alice_2,
// alice_3, ...) a new account tries before falling back to random digits.
const nameTries = 20

// SignInExternal opens a session for the user linked to (provider,
// subject), making and linking one first when there is none. Of concurrent
// first sign-ins of one identity exactly one account is made: each makes a
// user, the identity key's SET NX picks one, and the others remove theirs.
// The user has no password: Login with any password fails for it as for a
// name nobody has.
func (s *Accounts) SignInExternal(ctx context.Context, provider, subject, preferredName string) (store.User, string, error) {
	if err := checkIdentity(provider, subject); err != nil {
		return store.User{}, "", err
	}
	uid, err := s.linkedUser(ctx, provider, subject)
	if err != nil {
		return store.User{}, "", err
	}
	if uid == 0 {
		if uid, err = s.createExternal(ctx, provider, subject, preferredName); err != nil {
			return store.User{}, "", err
		}
	}
	s.pruneSessions(ctx, uid)
	token, err := s.newSession(ctx, uid, NativeSession)
	if err != nil {
		return store.User{}, "", err
	}
	// Seen from now on, as after a sign-up: pushes reach the user again.
	if err := s.core.Touch(ctx, uid); err != nil {
		return store.User{}, "", err
	}
	u, err := s.core.User(ctx, uid, uid)
	return u, token, err
}

// LinkExternal links (provider, subject) to uid. A user has one subject per
// provider: linking another gives the first back.
func (s *Accounts) LinkExternal(ctx context.Context, uid int64, provider, subject string) error {
	if err := checkIdentity(provider, subject); err != nil {
		return err
	}
	if n, err := s.rdb.Exists(ctx, s.keys.User(uid)).Result(); err != nil || n == 0 {
		if err == nil {
			err = store.ErrUserNotFound
		}
		return s.core.Wrap("link identity", err)
	}
	old, err := s.rdb.HGet(ctx, s.keys.UserIdentities(uid), provider).Result()
	if err != nil && !errors.Is(err, redis.Nil) {
		return s.core.Wrap("link identity", err)
	}
	key := s.keys.Identity(provider, subject)
	if err := s.claimIdentity(ctx, key, uid); err != nil {
		return err
	}
	if err := s.rdb.HSet(ctx, s.keys.UserIdentities(uid), provider, subject).Err(); err != nil {
		return s.core.Wrap("link identity", err)
	}
	if old != "" && old != subject {
		s.releaseKey(ctx, s.keys.Identity(provider, old), uid)
	}
	return nil
}

// ExternalIdentities are the providers linked to uid, sorted.
func (s *Accounts) ExternalIdentities(ctx context.Context, uid int64) ([]string, error) {
	providers, err := s.rdb.HKeys(ctx, s.keys.UserIdentities(uid)).Result()
	if err != nil {
		return nil, s.core.Wrap("list identities", err)
	}
	slices.Sort(providers)
	return providers, nil
}

// checkIdentity refuses what no provider would send: a provider name
// outside [a-z0-9_-], an empty or oversized subject.
func checkIdentity(provider, subject string) error {
	if provider == "" || strings.TrimFunc(provider, func(r rune) bool {
		return r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_'
	}) != "" {
		return store.Invalid(store.CodeInvalidField, "unknown sign-in provider")
	}
	if subject == "" || len(subject) > maxSubject || !utf8.ValidString(subject) {
		return store.Invalid(store.CodeInvalidField, "the sign-in provider named no valid account")
	}
	return nil
}

// linkedUser is the uid linked to (provider, subject), 0 for none (or for a
// link left by a deleted account, which it removes).
func (s *Accounts) linkedUser(ctx context.Context, provider, subject string) (int64, error) {
	key := s.keys.Identity(provider, subject)
	uid, err := s.rdb.Get(ctx, key).Int64()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, s.core.Wrap("find identity", err)
	}
	if stale, err := s.staleOwner(ctx, key, uid); err != nil || stale {
		return 0, err
	}
	return uid, nil
}

// claimIdentity makes uid the owner of an identity key, or returns
// ErrIdentityTaken. It is claimKey with identities' error.
func (s *Accounts) claimIdentity(ctx context.Context, key string, uid int64) error {
	err := s.claimKey(ctx, key, uid)
	if errors.Is(err, store.ErrUsernameTaken) {
		owner, gerr := s.rdb.Get(ctx, key).Int64()
		if gerr == nil && owner == uid {
			return nil
		}
		return store.ErrIdentityTaken
	}
	return err
}

// createExternal makes a user for (provider, subject) and links it, or,
// when a concurrent sign-in of the same identity linked its own user
// first, removes the one it made and returns the winner's uid.
func (s *Accounts) createExternal(ctx context.Context, provider, subject, preferred string) (int64, error) {
	uid, err := s.rdb.Incr(ctx, s.keys.LastUserID()).Result()
	if err != nil {
		return 0, s.core.Wrap("sign in: new user", err)
	}
	name, lower, err := s.claimDerivedName(ctx, uid, preferred)
	if err != nil {
		return 0, err
	}
	// The list first, the link after, so that a deletion always finds what
	// to give back.
	if err := s.rdb.HSet(ctx, s.keys.UserIdentities(uid), provider, subject).Err(); err != nil {
		s.discardUser(ctx, uid, name)
		return 0, s.core.Wrap("sign in: link", err)
	}
	key := s.keys.Identity(provider, subject)
	if err := s.claimKey(ctx, key, uid); err != nil {
		s.discardUser(ctx, uid, name)
		if !errors.Is(err, store.ErrUsernameTaken) {
			return 0, err
		}
		winner, err := s.linkedUser(ctx, provider, subject)
		if err == nil && winner == 0 {
			err = s.core.Wrap("sign in", errors.New("the concurrent sign-in that linked this identity was undone; try again"))
		}
		return winner, err
	}
	_, err = s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
		s.core.IndexUser(ctx, pl, uid, lower)
		pl.ZAddNX(ctx, s.keys.Popular(), redis.Z{Member: uid})
		return nil
	})
	return uid, s.core.Wrap("sign in: index user", err)
}

// discardUser removes a user that lost the race for its identity: its list
// of identities, its profile hash and its name.
func (s *Accounts) discardUser(ctx context.Context, uid int64, name string) {
	ctx = context.WithoutCancel(ctx)
	s.rdb.Del(ctx, s.keys.UserIdentities(uid))
	if err := s.freeName(ctx, uid, name); err != nil {
		s.opt.Logger.WarnContext(ctx, "sign in: remove the losing user", "uid", uid, "err", err)
	}
}

// claimDerivedName writes uid's profile hash (no password) and claims the
// first free name among the forms of preferred (see nameCandidates),
// returning it in display and index form.
func (s *Accounts) claimDerivedName(ctx context.Context, uid int64, preferred string) (string, string, error) {
	created := s.core.Now()
	for _, cand := range nameCandidates(preferred) {
		name, lower, err := store.NormalizeUsername(cand)
		if err != nil {
			continue
		}
		// The hash first, the name after, as in Register: an owner key
		// never points at a missing hash.
		if err := s.rdb.HSet(ctx, s.keys.User(uid), schema.UserHash{Username: name, Created: created}).Err(); err != nil {
			return "", "", s.core.Wrap("sign in: new user", err)
		}
		err = s.claimName(ctx, uid, name, lower)
		if err == nil {
			return name, lower, nil
		}
		if !errors.Is(err, store.ErrUsernameTaken) {
			s.rdb.Del(context.WithoutCancel(ctx), s.keys.User(uid))
			return "", "", err
		}
	}
	s.rdb.Del(context.WithoutCancel(ctx), s.keys.User(uid))
	return "", "", s.core.Wrap("sign in: new user", errors.New("no free username found"))
}

// unlinkAll gives back every identity linked to uid (as the user is
// deleted) and removes its list of them.
func (s *Accounts) unlinkAll(ctx context.Context, uid int64) error {
	links, err := s.rdb.HGetAll(ctx, s.keys.UserIdentities(uid)).Result()
	if err != nil {
		return s.core.Wrap("delete account: identities", err)
	}
	for provider, subject := range links {
		s.releaseKey(ctx, s.keys.Identity(provider, subject), uid)
	}
	return s.core.Wrap("delete account: identities", s.rdb.Del(ctx, s.keys.UserIdentities(uid)).Err())
}

// nameCandidates are the usernames a new account made from preferred
// tries, in order: preferred itself (its local part if it is an e-mail
// address), cut down to the characters and length names allow, then
// numbered forms of it (_2, _3, ...), then random ones. A preferred name
// with nothing usable becomes "user".
func nameCandidates(preferred string) []string {
	base := usableName(preferred)
	out := []string{base}
	for n := 2; n < 2+nameTries; n++ {
		out = append(out, withSuffix(base, "_"+strconv.Itoa(n)))
	}
	for range nameTries {
		out = append(out, withSuffix(base, "_"+randomDigits(6)))
	}
	return append(out, "user"+randomDigits(12))
}

// usableName keeps of preferred only what a username may hold.
func usableName(preferred string) string {
	if local, _, ok := strings.Cut(preferred, "@"); ok {
		preferred = local
	}
	if name, _, err := store.NormalizeUsername(preferred); err == nil {
		return name
	}
	var b strings.Builder
	for _, r := range norm.NFKC.String(preferred) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' {
			b.WriteRune(r)
		}
	}
	name := truncateRunes(b.String(), store.MaxUsername)
	if _, _, err := store.NormalizeUsername(name); err != nil {
		return "user"
	}
	return name
}

// withSuffix is base with suffix, base cut short so that both fit.
func withSuffix(base, suffix string) string {
	return truncateRunes(base, store.MaxUsername-len(suffix)) + suffix
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// randomDigits is n random decimal digits.
func randomDigits(n int) string {
	var b strings.Builder
	for range n {
		d, err := rand.Int(rand.Reader, big.NewInt(10))
		if err != nil {
			d = big.NewInt(0)
		}
		b.WriteByte(byte('0' + d.Int64()))
	}
	return b.String()
}

// GuardExternal runs prove, a check of a password by another service that
// returns store.ErrBadCredential for a wrong one, under at's login guard
// as Login runs a local password check: while the guard holds, prove is
// not run and the attempt must wait; a wrong password counts, a right one
// resets the counts. The guard is keyed by provider and name, apart from
// the local account of that name.
func (s *Accounts) GuardExternal(ctx context.Context, provider, name string, at store.Attempt, prove func() error) error {
	key := provider + ":" + strings.ToLower(truncateRunes(name, maxGuardName))
	g := guardedLogin{name: key, at: at}
	if err := s.guardCheck(ctx, g, 0); err != nil {
		return err
	}
	err := prove()
	switch {
	case errors.Is(err, store.ErrBadCredential):
		s.guardFail(ctx, g)
	case err == nil && g.on():
		_, perr := s.rdb.Pipelined(ctx, func(pl redis.Pipeliner) error {
			pl.Del(ctx, s.keys.LoginFailures(key))
			pl.Del(ctx, s.keys.LoginClientFailures(key, at.Client))
			return nil
		})
		if perr != nil {
			s.opt.Logger.WarnContext(ctx, "reset login guard", "name", key, "err", perr)
		}
	}
	return err
}
