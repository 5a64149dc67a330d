package fed

import (
	"context"

	"microblog/store/redisdb/schema"
)

// LocalKey returns the signing key of the local user uid (0: the instance
// actor), made with make on first need. Concurrent first uses agree: each
// field is written with HSETNX and read back.
func (f *Fed) LocalKey(ctx context.Context, uid int64, make func() (priv, pub string, err error)) (string, string, error) {
	key := f.keys.FedKey(uid)
	v, err := f.rdb.HMGet(ctx, key, schema.FedKeyPrivate, schema.FedKeyPublic).Result()
	if err != nil {
		return "", "", f.core.Wrap("signing key", err)
	}
	if priv, pub := str(v[0]), str(v[1]); priv != "" && pub != "" {
		return priv, pub, nil
	}
	priv, pub, err := make()
	if err != nil {
		return "", "", err
	}
	// One script-free way to write both at once or not at all: the private
	// key decides (HSETNX), and the public one is written by whoever won.
	won, err := f.rdb.HSetNX(ctx, key, schema.FedKeyPrivate, priv).Result()
	if err != nil {
		return "", "", f.core.Wrap("signing key", err)
	}
	if won {
		if err := f.rdb.HSet(ctx, key, schema.FedKeyPublic, pub).Err(); err != nil {
			return "", "", f.core.Wrap("signing key", err)
		}
		return priv, pub, nil
	}
	// Another process made one first; its public half may be on its way.
	for range 50 {
		v, err := f.rdb.HMGet(ctx, key, schema.FedKeyPrivate, schema.FedKeyPublic).Result()
		if err != nil {
			return "", "", f.core.Wrap("signing key", err)
		}
		if p, q := str(v[0]), str(v[1]); p != "" && q != "" {
			return p, q, nil
		}
		if err := sleep(ctx); err != nil {
			return "", "", err
		}
	}
	return "", "", f.core.Wrap("signing key", errKeyHalf)
}
