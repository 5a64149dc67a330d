package redisdb

import (
	_ "embed"

	"github.com/redis/go-redis/v9"
)

// The Lua scripts, one file each under lua/, each touching the keys of one
// message or one user only, as the Cluster rule asks. They are sent with
// EVAL inside pipelines (where EVALSHA could not fall back on NOSCRIPT) and
// with EVALSHA on their own (go-redis falls back to EVAL).
var (
	//go:embed lua/spublish.lua
	spublishSrc string
	spublish    = redis.NewScript(spublishSrc)

	//go:embed lua/zadd_capped.lua
	zaddCappedSrc string
	zaddCapped    = redis.NewScript(zaddCappedSrc)

	//go:embed lua/like_hot.lua
	likeHotSrc string
	likeHot    = redis.NewScript(likeHotSrc)

	//go:embed lua/unlike_hot.lua
	unlikeHotSrc string
	unlikeHot    = redis.NewScript(unlikeHotSrc)

	//go:embed lua/delete_message.lua
	deleteMessageSrc string
	deleteMessage    = redis.NewScript(deleteMessageSrc)

	//go:embed lua/queue_delete.lua
	queueDeleteSrc string
	queueDelete    = redis.NewScript(queueDeleteSrc)

	//go:embed lua/past_window.lua
	pastWindowSrc string
	pastWindow    = redis.NewScript(pastWindowSrc)

	//go:embed lua/evict_message.lua
	evictMessageSrc string
	evictPost       = redis.NewScript(evictMessageSrc)

	//go:embed lua/evict_hot.lua
	evictHotSrc string
	evictHot    = redis.NewScript(evictHotSrc)

	//go:embed lua/notify_add.lua
	notifyAddSrc string
	notifyAdd    = redis.NewScript(notifyAddSrc)

	//go:embed lua/post_add.lua
	postAddSrc string
	postAdd    = redis.NewScript(postAddSrc)

	//go:embed lua/post_remove.lua
	postRemoveSrc string
	postRemove    = redis.NewScript(postRemoveSrc)

	//go:embed lua/count_sync.lua
	countSyncSrc string
	countSync    = redis.NewScript(countSyncSrc)

	//go:embed lua/decrement.lua
	decrementSrc string
	decrement    = redis.NewScript(decrementSrc)

	//go:embed lua/repost_add.lua
	repostAddSrc string
	repostAdd    = redis.NewScript(repostAddSrc)

	//go:embed lua/repost_remove.lua
	repostRemoveSrc string
	repostRemove    = redis.NewScript(repostRemoveSrc)

	//go:embed lua/idem_claim.lua
	idemClaimSrc string
	idemClaim    = redis.NewScript(idemClaimSrc)

	//go:embed lua/idem_finish.lua
	idemFinishSrc string
	idemFinish    = redis.NewScript(idemFinishSrc)

	//go:embed lua/post_finish.lua
	postFinishSrc string
	postFinish    = redis.NewScript(postFinishSrc)

	//go:embed lua/version_raise.lua
	versionRaiseSrc string
	versionRaise    = redis.NewScript(versionRaiseSrc)

	//go:embed lua/del_if_equals.lua
	delIfEqualsSrc string
	delIfEquals    = redis.NewScript(delIfEqualsSrc)

	//go:embed lua/notify_remove.lua
	notifyRemoveSrc string
	notifyRemove    = redis.NewScript(notifyRemoveSrc)

	//go:embed lua/notify_dismiss.lua
	notifyDismissSrc string
	notifyDismiss    = redis.NewScript(notifyDismissSrc)

	//go:embed lua/password_swap.lua
	passwordSwapSrc string
	passwordSwap    = redis.NewScript(passwordSwapSrc)

	//go:embed lua/login_fail.lua
	loginFailSrc string
	loginFail    = redis.NewScript(loginFailSrc)

	//go:embed lua/pending_add.lua
	pendingAddSrc string
	pendingAdd    = redis.NewScript(pendingAddSrc)

	//go:embed lua/pending_done.lua
	pendingDoneSrc string
	pendingDone    = redis.NewScript(pendingDoneSrc)

	//go:embed lua/celebrity_leave.lua
	celebrityLeaveSrc string
	celebrityLeave    = redis.NewScript(celebrityLeaveSrc)

	//go:embed lua/pending_recount.lua
	pendingRecountSrc string
	pendingRecount    = redis.NewScript(pendingRecountSrc)
)
