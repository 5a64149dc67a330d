package webpush

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	webpush "github.com/SherClockHolmes/webpush-go"

	"microblog/store"
)

// Payload is what a push carries, as Mastodon's push payload, less its
// access_token (doc.go). Conversation is set on a private message: the
// name of the user who wrote it, for the app to open the conversation.
type Payload struct {
	NotificationID   string `json:"notification_id"`
	NotificationType string `json:"notification_type"`
	PreferredLocale  string `json:"preferred_locale"`
	Icon             string `json:"icon"`
	Title            string `json:"title"`
	Body             string `json:"body"`
	Conversation     string `json:"conversation,omitempty"`
}

// types maps the service's notification kinds to Mastodon's types, as the
// Mastodon API shows them.
var types = map[string]string{
	store.NotifyComment:       "mention",
	store.NotifyReply:         "mention",
	store.NotifyMention:       "mention",
	store.NotifyRepost:        "reblog",
	store.NotifyLike:          "favourite",
	store.NotifyFollow:        "follow",
	store.NotifyFollowRequest: "follow_request",
}

// kindDM is the kind titles name a private message by.
const kindDM = "dm"

// titles are each kind's title in each language, with %s for the actor.
var titles = map[string][2]string{ // [en, zh]
	store.NotifyMention:        {"%s mentioned you", "%s 提到了你"},
	store.NotifyComment:        {"%s commented on your post", "%s 评论了你的帖子"},
	store.NotifyReply:          {"%s replied to your comment", "%s 回复了你的评论"},
	store.NotifyRepost:         {"%s reposted your post", "%s 转发了你的帖子"},
	store.NotifyLike:           {"%s liked your post", "%s 赞了你的帖子"},
	store.NotifyFollow:         {"%s followed you", "%s 关注了你"},
	store.NotifyFollowRequest:  {"%s asked to follow you", "%s 请求关注你"},
	store.NotifyFollowAccepted: {"%s accepted your follow request", "%s 通过了你的关注请求"},
	kindDM:                     {"%s sent you a message", "%s 给你发了私信"},
}

// bodyMax is how much of a post or message a push's body shows, in runes.
const bodyMax = 140

// Lang is the language, of those the pushes are written in, nearest to
// the tag (an Accept-Language header, or an app's "zh-CN").
func Lang(tag string) string {
	tag = strings.ToLower(strings.TrimSpace(tag))
	if strings.HasPrefix(tag, "zh") {
		return "zh"
	}
	return "en"
}

// item is one push to make, before it is written for a device.
type item struct {
	id, kind, typ string
	actor         store.User
	body          string
}

// payload writes it in sub's language.
func (it item) payload(sub store.PushSubscription) []byte {
	t, ok := titles[it.kind]
	if !ok {
		t = [2]string{"%s", "%s"}
	}
	title := t[0]
	if sub.Lang == "zh" {
		title = t[1]
	}
	icon := strings.TrimRight(sub.Origin, "/") + "/m/icons/icon-192.png"
	if a := it.actor.AvatarURL; a != nil && *a != "" {
		icon = *a
		if strings.HasPrefix(icon, "/") {
			icon = strings.TrimRight(sub.Origin, "/") + icon
		}
	}
	p := Payload{NotificationID: it.id, NotificationType: it.typ, PreferredLocale: cmp.Or(sub.Lang, "en"), Icon: icon,
		Title: strings.Replace(title, "%s", store.ShownName("@"+it.actor.Username, it.actor.DisplayName), 1), Body: clip(it.body)}
	if it.kind == kindDM {
		p.Conversation = it.actor.Username
	}
	raw, _ := json.Marshal(p)
	return raw
}

// clip shortens s to bodyMax runes.
func clip(s string) string {
	r := []rune(strings.TrimSpace(s))
	if len(r) <= bodyMax {
		return string(r)
	}
	return string(r[:bodyMax-1]) + "…"
}

// urgency is how soon the device should hear of a push (RFC 8030 5.3):
// what someone wrote to the user (a mention, a comment, a message) at once,
// the rest when convenient.
func (it item) urgency() webpush.Urgency {
	if it.typ == "mention" {
		return webpush.UrgencyHigh
	}
	return webpush.UrgencyNormal
}

// Deliver sends job to each of the user's devices whose alerts and policy
// want it, as the user would be shown it now (nothing for a notification
// undone, or one whose actor the user blocks or mutes). A subscription
// its push service no longer knows is removed; a push service that fails
// is tried again DefaultRetries times, a little later each time. It
// returns an error only when the store could not be read: the job is then
// tried again later, as a whole.
func (s *Service) Deliver(ctx context.Context, job store.PushJob) error {
	subs, err := s.st.PushSubscriptions(ctx, job.UID)
	if err != nil || len(subs) == 0 {
		return err
	}
	var it item
	switch {
	case job.Notification > 0:
		n, ok, err := s.st.PushNotification(ctx, job.UID, job.Notification)
		if err != nil || !ok {
			return err
		}
		it = item{id: strconv.FormatInt(n.ID, 10), kind: n.Kind, typ: cmp.Or(types[n.Kind], n.Kind), actor: n.Actor}
		if p := n.Post; p != nil {
			if p.RepostOf != nil && p.Content == "" {
				p = p.RepostOf // a plain repost: what it reposted
			}
			it.body = p.Content
		}
	case job.DM > 0:
		actor, err := s.st.User(ctx, job.Actor, job.UID)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		it = item{id: "dm-" + strconv.FormatInt(job.DM, 10), kind: kindDM, typ: "mention", actor: actor, body: job.Text}
	default:
		return nil
	}
	for _, sub := range subs {
		if !sub.Alerts.Allows(it.typ) {
			continue
		}
		ok, err := s.st.PushFrom(ctx, job.UID, it.actor.ID, sub.Policy)
		if err != nil {
			return err
		}
		if ok {
			if err := s.push(ctx, sub, it); err != nil {
				return err
			}
		}
	}
	return nil
}

// push sends it to sub, trying again while its push service fails. It
// returns an error only when ctx ended first (the process is stopping):
// the job is left for another process then.
func (s *Service) push(ctx context.Context, sub store.PushSubscription, it item) error {
	payload := it.payload(sub)
	wait := s.opt.RetryBase
	for try := 0; ; try++ {
		err := s.send(ctx, sub, payload, it.urgency())
		var refused permanentError
		switch {
		case err == nil:
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.Is(err, errGone):
			if err := s.st.DeletePushSubscription(context.WithoutCancel(ctx), sub.UID, sub.Owner); err != nil {
				s.opt.Logger.Warn("push: remove a subscription gone", "uid", sub.UID, "id", sub.ID, "err", err)
			}
			return nil
		case errors.As(err, &refused), try >= s.opt.Retries:
			s.opt.Logger.Warn("push: not sent", "uid", sub.UID, "id", sub.ID, "tries", try+1, "err", err)
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait *= 2
	}
}
