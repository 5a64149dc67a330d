package schema

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
	Spublish    = redis.NewScript(spublishSrc)

	//go:embed lua/zadd_capped.lua
	zaddCappedSrc string
	ZaddCapped    = redis.NewScript(zaddCappedSrc)

	//go:embed lua/like_hot.lua
	likeHotSrc string
	LikeHot    = redis.NewScript(likeHotSrc)

	//go:embed lua/unlike_hot.lua
	unlikeHotSrc string
	UnlikeHot    = redis.NewScript(unlikeHotSrc)

	//go:embed lua/delete_message.lua
	deleteMessageSrc string
	DeleteMessage    = redis.NewScript(deleteMessageSrc)

	//go:embed lua/queue_delete.lua
	queueDeleteSrc string
	QueueDelete    = redis.NewScript(queueDeleteSrc)

	//go:embed lua/past_window.lua
	pastWindowSrc string
	PastWindow    = redis.NewScript(pastWindowSrc)

	//go:embed lua/evict_message.lua
	evictMessageSrc string
	EvictPost       = redis.NewScript(evictMessageSrc)

	//go:embed lua/evict_hot.lua
	evictHotSrc string
	EvictHot    = redis.NewScript(evictHotSrc)

	//go:embed lua/notify_add.lua
	notifyAddSrc string
	NotifyAdd    = redis.NewScript(notifyAddSrc)

	//go:embed lua/post_add.lua
	postAddSrc string
	PostAdd    = redis.NewScript(postAddSrc)

	//go:embed lua/post_remove.lua
	postRemoveSrc string
	PostRemove    = redis.NewScript(postRemoveSrc)

	//go:embed lua/count_sync.lua
	countSyncSrc string
	CountSync    = redis.NewScript(countSyncSrc)

	//go:embed lua/decrement.lua
	decrementSrc string
	Decrement    = redis.NewScript(decrementSrc)

	//go:embed lua/repost_add.lua
	repostAddSrc string
	RepostAdd    = redis.NewScript(repostAddSrc)

	//go:embed lua/repost_remove.lua
	repostRemoveSrc string
	RepostRemove    = redis.NewScript(repostRemoveSrc)

	//go:embed lua/idem_claim.lua
	idemClaimSrc string
	IdemClaim    = redis.NewScript(idemClaimSrc)

	//go:embed lua/idem_finish.lua
	idemFinishSrc string
	IdemFinish    = redis.NewScript(idemFinishSrc)

	//go:embed lua/post_finish.lua
	postFinishSrc string
	PostFinish    = redis.NewScript(postFinishSrc)

	//go:embed lua/version_raise.lua
	versionRaiseSrc string
	VersionRaise    = redis.NewScript(versionRaiseSrc)

	//go:embed lua/del_if_equals.lua
	delIfEqualsSrc string
	DelIfEquals    = redis.NewScript(delIfEqualsSrc)

	//go:embed lua/notify_remove.lua
	notifyRemoveSrc string
	NotifyRemove    = redis.NewScript(notifyRemoveSrc)

	//go:embed lua/notify_dismiss.lua
	notifyDismissSrc string
	NotifyDismiss    = redis.NewScript(notifyDismissSrc)

	//go:embed lua/password_swap.lua
	passwordSwapSrc string
	PasswordSwap    = redis.NewScript(passwordSwapSrc)

	//go:embed lua/login_fail.lua
	loginFailSrc string
	LoginFail    = redis.NewScript(loginFailSrc)

	//go:embed lua/pending_add.lua
	pendingAddSrc string
	PendingAdd    = redis.NewScript(pendingAddSrc)

	//go:embed lua/pending_done.lua
	pendingDoneSrc string
	PendingDone    = redis.NewScript(pendingDoneSrc)

	//go:embed lua/celebrity_leave.lua
	celebrityLeaveSrc string
	CelebrityLeave    = redis.NewScript(celebrityLeaveSrc)

	//go:embed lua/pending_recount.lua
	pendingRecountSrc string
	PendingRecount    = redis.NewScript(pendingRecountSrc)

	//go:embed lua/hand_back.lua
	handBackSrc string
	HandBack    = redis.NewScript(handBackSrc)

	//go:embed lua/forget_consumer.lua
	forgetConsumerSrc string
	ForgetConsumer    = redis.NewScript(forgetConsumerSrc)

	//go:embed lua/edit_message.lua
	editMessageSrc string
	EditMessage    = redis.NewScript(editMessageSrc)

	//go:embed lua/edit_saved.lua
	editSavedSrc string
	EditSaved    = redis.NewScript(editSavedSrc)

	//go:embed lua/mode_set.lua
	modeSetSrc string
	ModeSet    = redis.NewScript(modeSetSrc)
)
