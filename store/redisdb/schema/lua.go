package schema

import (
	_ "embed"
	"strings"

	"github.com/redis/go-redis/v9"
)

// newScript is the script of a file under lua/ as Redis gets it: without its
// lines of comment. A script in a pipeline goes with EVAL, body and all, once
// a call, and Redis hashes the body on every call to find its compiled
// function: the header that says what KEYS and ARGV are is for the reader,
// and was two thirds of the bytes a post sent for its scripts.
func newScript(src string) *redis.Script {
	var b strings.Builder
	for line := range strings.Lines(src) {
		if !strings.HasPrefix(strings.TrimSpace(line), "--") {
			b.WriteString(line)
		}
	}
	sources = append(sources, b.String())
	return redis.NewScript(b.String())
}

// sources are the bodies of all the scripts of newScript.
var sources []string

// Sources are the bodies of all the package's scripts as Redis gets them,
// for loading them into a Redis ahead of their first EVALSHA
// (redisdb.Store.LoadScripts).
func Sources() []string { return sources }

// The Lua scripts, one file each under lua/, each touching the keys of one
// message or one user only, as the Cluster rule asks. They are sent with
// EVAL inside pipelines (where EVALSHA could not fall back on NOSCRIPT, and
// inside MULTI its NOSCRIPT would leave the transaction's other writes
// applied) and with EVALSHA on their own (go-redis falls back to EVAL, and
// a script runs whole or not at all): without their comments (newScript),
// which are most of each file.
var (
	//go:embed lua/spublish.lua
	spublishSrc string
	Spublish    = newScript(spublishSrc)

	//go:embed lua/zadd_capped.lua
	zaddCappedSrc string
	ZaddCapped    = newScript(zaddCappedSrc)

	//go:embed lua/like_hot.lua
	likeHotSrc string
	LikeHot    = newScript(likeHotSrc)

	//go:embed lua/unlike_hot.lua
	unlikeHotSrc string
	UnlikeHot    = newScript(unlikeHotSrc)

	//go:embed lua/delete_message.lua
	deleteMessageSrc string
	DeleteMessage    = newScript(deleteMessageSrc)

	//go:embed lua/queue_delete.lua
	queueDeleteSrc string
	QueueDelete    = newScript(queueDeleteSrc)

	//go:embed lua/past_window.lua
	pastWindowSrc string
	PastWindow    = newScript(pastWindowSrc)

	//go:embed lua/evict_message.lua
	evictMessageSrc string
	EvictPost       = newScript(evictMessageSrc)

	//go:embed lua/evict_hot.lua
	evictHotSrc string
	EvictHot    = newScript(evictHotSrc)

	//go:embed lua/notify_add.lua
	notifyAddSrc string
	NotifyAdd    = newScript(notifyAddSrc)

	//go:embed lua/post_add.lua
	postAddSrc string
	PostAdd    = newScript(postAddSrc)

	//go:embed lua/post_remove.lua
	postRemoveSrc string
	PostRemove    = newScript(postRemoveSrc)

	//go:embed lua/count_sync.lua
	countSyncSrc string
	CountSync    = newScript(countSyncSrc)

	//go:embed lua/decrement.lua
	decrementSrc string
	Decrement    = newScript(decrementSrc)

	//go:embed lua/repost_add.lua
	repostAddSrc string
	RepostAdd    = newScript(repostAddSrc)

	//go:embed lua/repost_remove.lua
	repostRemoveSrc string
	RepostRemove    = newScript(repostRemoveSrc)

	//go:embed lua/idem_claim.lua
	idemClaimSrc string
	IdemClaim    = newScript(idemClaimSrc)

	//go:embed lua/idem_finish.lua
	idemFinishSrc string
	IdemFinish    = newScript(idemFinishSrc)

	//go:embed lua/post_finish.lua
	postFinishSrc string
	PostFinish    = newScript(postFinishSrc)

	//go:embed lua/version_raise.lua
	versionRaiseSrc string
	VersionRaise    = newScript(versionRaiseSrc)

	//go:embed lua/del_if_equals.lua
	delIfEqualsSrc string
	DelIfEquals    = newScript(delIfEqualsSrc)

	//go:embed lua/notify_remove.lua
	notifyRemoveSrc string
	NotifyRemove    = newScript(notifyRemoveSrc)

	//go:embed lua/notify_dismiss.lua
	notifyDismissSrc string
	NotifyDismiss    = newScript(notifyDismissSrc)

	//go:embed lua/password_swap.lua
	passwordSwapSrc string
	PasswordSwap    = newScript(passwordSwapSrc)

	//go:embed lua/login_fail.lua
	loginFailSrc string
	LoginFail    = newScript(loginFailSrc)

	//go:embed lua/pending_add.lua
	pendingAddSrc string
	PendingAdd    = newScript(pendingAddSrc)

	//go:embed lua/post_index.lua
	postIndexSrc string
	PostIndex    = newScript(postIndexSrc)

	//go:embed lua/pending_done.lua
	pendingDoneSrc string
	PendingDone    = newScript(pendingDoneSrc)

	//go:embed lua/celebrity_leave.lua
	celebrityLeaveSrc string
	CelebrityLeave    = newScript(celebrityLeaveSrc)

	//go:embed lua/pending_recount.lua
	pendingRecountSrc string
	PendingRecount    = newScript(pendingRecountSrc)

	//go:embed lua/queue_ack.lua
	queueAckSrc string
	QueueAck    = newScript(queueAckSrc)

	//go:embed lua/hand_back.lua
	handBackSrc string
	HandBack    = newScript(handBackSrc)

	//go:embed lua/forget_consumer.lua
	forgetConsumerSrc string
	ForgetConsumer    = newScript(forgetConsumerSrc)

	//go:embed lua/edit_message.lua
	editMessageSrc string
	EditMessage    = newScript(editMessageSrc)

	//go:embed lua/edit_saved.lua
	editSavedSrc string
	EditSaved    = newScript(editSavedSrc)

	//go:embed lua/mode_set.lua
	modeSetSrc string
	ModeSet    = newScript(modeSetSrc)
)

// The scripts of lists (关注分组), each over the keys of one owner.
var (
	//go:embed lua/list_create.lua
	listCreateSrc string
	ListCreate    = newScript(listCreateSrc)

	//go:embed lua/list_add.lua
	listAddSrc string
	ListAdd    = newScript(listAddSrc)
)
