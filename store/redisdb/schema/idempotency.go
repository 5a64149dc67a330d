package schema

import (
	"strings"
	"time"
)

// The values of the Idempotency-Key of a post or a private message, and
// how long they live.

// IdempotencyTTL is how long an Idempotency-Key is remembered.
const IdempotencyTTL = 24 * time.Hour

// ClaimTTL is how long an Idempotency-Key stays claimed by a request that
// has not finished: longer than writeTimeout, so that a claim never runs out
// under a request still writing, and short, so that a request that died
// (a crash, a Redis stall it gave up on) holds its key back only briefly.
const ClaimTTL = 30 * time.Second

// The values of an idempotency key (idem:<uid>:<key hash>): while its
// request runs, "claim:<token>:<request hash>" for ClaimTTL; once the
// request is done, "post:<mid>:<request hash>" for IdempotencyTTL. Older
// versions left "0" (running) and "<mid>" (done).
func ClaimValue(token, reqHash string) string      { return "claim:" + token + ":" + reqHash }
func ResultValue(mid int64, reqHash string) string { return "post:" + ID(mid) + ":" + reqHash }

// IdemState is what an idempotency key says of the request that holds it.
type IdemState struct {
	Running bool
	Mid     int64  // the post it made, once done
	ReqHash string // the request it is bound to; empty if an older version's
}

func ParseIdem(v string) IdemState {
	kind, rest, _ := strings.Cut(v, ":")
	first, hash, _ := strings.Cut(rest, ":")
	switch kind {
	case "claim":
		return IdemState{Running: true, ReqHash: hash}
	case "post", "message": // a post's id, or a private message's (redisdb/dm/send.go)
		return IdemState{Mid: ParseID(first), ReqHash: hash}
	case "0":
		return IdemState{Running: true}
	}
	return IdemState{Mid: ParseID(kind)}
}

// DMResult is the value of an Idempotency-Key once its message is
// written: "message:<id>:<request hash>" (see ClaimValue).
func DMResult(pmid int64, reqHash string) string { return "message:" + ID(pmid) + ":" + reqHash }

// IdemResult is what records post mid, which author wrote under idem (the
// FieldIdem of its hash: "<key hash> <claim>"), as its Idempotency-Key's
// result: the keys and arguments of IdemFinish; ok is false when idem names
// no key.
func (k Keys) IdemResult(author, mid int64, idem string) (keys []string, args []any, ok bool) {
	keyHash, claim, ok := strings.Cut(idem, " ")
	if !ok {
		return nil, nil, false
	}
	return []string{k.Idempotency(author, keyHash)},
		[]any{claim, ResultValue(mid, ParseIdem(claim).ReqHash), IdempotencyTTL.Milliseconds()}, true
}
