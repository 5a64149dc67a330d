package account

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"

	"golang.org/x/crypto/bcrypt"

	"microblog/store"
	"microblog/store/redisdb/schema"
)

// A password is kept as a record of two fields of the user hash:
//
//	password      a bcrypt hash
//	password_key  16 random bytes (base64), this record's own pre-hash key
//
// What bcrypt hashes is base64(HMAC-SHA256(password_key, p)), p being the
// password prepared with PRECIS OpaqueString (store.PreparePassword). Every
// password is pre-hashed, whatever its length, so bcrypt never drops a byte
// past its 72 and the pre-hash is no password: typing it gives the HMAC of
// the pre-hash, not the pre-hash.
//
// Records made before (no password_key) hold bcrypt of the password's raw
// bytes, or of base64(SHA-256) of them when longer than 72 bytes. They
// still log in, and a successful login rewrites them in the current form.

// passwordRecord is a user's password record as read from its hash.
type passwordRecord struct {
	Hash string // bcrypt
	Key  string // the pre-hash key; empty for an old record
}

// PreHash is what bcrypt hashes of a prepared password under key.
func PreHash(key, prepared string) []byte {
	mac := hmac.New(sha256.New, []byte(key))
	mac.Write([]byte(prepared))
	return []byte(base64.StdEncoding.EncodeToString(mac.Sum(nil)))
}

// LegacyInput is what an old record's bcrypt hashed: the password's bytes,
// or base64(SHA-256) of them beyond 72 bytes.
func LegacyInput(pw string) []byte {
	if len(pw) <= 72 {
		return []byte(pw)
	}
	sum := sha256.Sum256([]byte(pw))
	return []byte(base64.StdEncoding.EncodeToString(sum[:]))
}

// looksPreHashed tells whether a typed password has the form of an old
// record's pre-hash (44 characters of base64 for 32 bytes): an old record
// accepts no such password, so that a pre-hash never stands in for the
// password it came from.
func looksPreHashed(pw string) bool {
	if len(pw) != 44 {
		return false
	}
	b, err := base64.StdEncoding.DecodeString(pw)
	return err == nil && len(b) == sha256.Size
}

// newPasswordRecord hashes a prepared password under a fresh key.
func (s *Accounts) newPasswordRecord(prepared string) (passwordRecord, error) {
	var k [16]byte
	if _, err := rand.Read(k[:]); err != nil {
		return passwordRecord{}, err
	}
	key := base64.RawStdEncoding.EncodeToString(k[:])
	h, err := bcrypt.GenerateFromPassword(PreHash(key, prepared), s.opt.BcryptCost)
	if err != nil {
		return passwordRecord{}, err
	}
	return passwordRecord{Hash: string(h), Key: key}, nil
}

// matchPassword tells whether typed is the password of rec, and whether rec
// is an old record that should be rewritten (with prepared, the typed
// password prepared for the current form).
func matchPassword(rec passwordRecord, typed string) (ok, upgrade bool, prepared string) {
	prepared, perr := store.PreparePassword(typed)
	if rec.Key != "" {
		if perr != nil {
			return false, false, ""
		}
		return bcrypt.CompareHashAndPassword([]byte(rec.Hash), PreHash(rec.Key, prepared)) == nil, false, prepared
	}
	if len(typed) > store.MaxPassword || looksPreHashed(typed) {
		return false, false, ""
	}
	// An old record hashed the bytes as typed at sign-up; a typing that
	// differs only in Unicode form is tried as well.
	tries := []string{typed}
	if perr == nil && prepared != typed {
		tries = append(tries, prepared)
	}
	for _, t := range tries {
		if bcrypt.CompareHashAndPassword([]byte(rec.Hash), LegacyInput(t)) == nil {
			return true, perr == nil, prepared
		}
	}
	return false, false, ""
}

// fakeMatch does the work of matchPassword against a record nobody has, so
// that a login naming no user takes as long as one with a wrong password.
func (s *Accounts) fakeMatch(typed string) {
	prepared, _ := store.PreparePassword(typed)
	bcrypt.CompareHashAndPassword(s.dummyHash(), PreHash("dummy", prepared))
}

// swapPassword replaces uid's password record old with one for prepared,
// unless it changed meanwhile (then it reports false).
func (s *Accounts) swapPassword(ctx context.Context, uid int64, old passwordRecord, prepared string) (bool, error) {
	_, ok, err := s.swapPasswordRecord(ctx, uid, old, prepared)
	return ok, err
}

func (s *Accounts) swapPasswordRecord(ctx context.Context, uid int64, old passwordRecord, prepared string) (passwordRecord, bool, error) {
	rec, err := s.newPasswordRecord(prepared)
	if err != nil {
		return old, false, s.core.Wrap("hash password", err)
	}
	n, err := schema.PasswordSwap.Run(ctx, s.rdb, []string{s.keys.User(uid)}, old.Hash, rec.Hash, rec.Key).Int()
	if err != nil {
		return old, false, s.core.Wrap("store password", err)
	}
	if n != 1 {
		return old, false, nil
	}
	return rec, true, nil
}

// upgradePassword rewrites an old record in the current form after a
// successful login and returns the record as it stands; a failure only
// leaves the old record in place.
func (s *Accounts) upgradePassword(ctx context.Context, uid int64, old passwordRecord, prepared string) passwordRecord {
	rec, _, err := s.swapPasswordRecord(context.WithoutCancel(ctx), uid, old, prepared)
	if err != nil {
		s.opt.Logger.WarnContext(ctx, "upgrade password record", "uid", uid, "err", err)
	}
	return rec
}
