package api

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"microblog/server/webpush"
	"microblog/store"
)

// The mobile app's Web Push subscription: one per session, which ends with
// it (logout, a new password, the account deleted).

// pushOut is what GET and PUT /me/push answer: the VAPID public key the
// app subscribes with and the session's subscription (null: none).
type pushOut struct {
	VAPIDPublicKey string      `json:"vapid_public_key"`
	Subscription   *pushSubOut `json:"subscription"`
}

// pushSubOut is a subscription as the native API shows it.
type pushSubOut struct {
	Endpoint string           `json:"endpoint"`
	Lang     string           `json:"lang"`
	Alerts   store.PushAlerts `json:"alerts"`
}

// pushIn is the body of PUT /me/push: the PushSubscription's JSON
// (endpoint and keys) and the language of the notifications.
type pushIn struct {
	Endpoint string `json:"endpoint"`
	Keys     struct {
		P256dh string `json:"p256dh"`
		Auth   string `json:"auth"`
	} `json:"keys"`
	Lang string `json:"lang"`
}

// sessionOwner is the owner of the session's subscription.
func sessionOwner(c echo.Context) string {
	h, _ := c.Get(ctxTokenHash).(string)
	return "s:" + h
}

// handleGetPush is GET /me/push.
func handleGetPush(st store.Push, push *webpush.Service) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		key, err := push.PublicKey(ctx)
		if err != nil {
			return err
		}
		out := pushOut{VAPIDPublicKey: key}
		sub, err := st.PushSubscription(ctx, viewer(c), sessionOwner(c))
		switch {
		case err == nil:
			out.Subscription = &pushSubOut{Endpoint: sub.Endpoint, Lang: sub.Lang, Alerts: sub.Alerts}
		case !errors.Is(err, store.ErrNotFound):
			return err
		}
		return c.JSON(http.StatusOK, out)
	}
}

// handlePutPush is PUT /me/push: it subscribes the session's device to
// every kind of notification, replacing its subscription if any.
func handlePutPush(st store.Push, push *webpush.Service) echo.HandlerFunc {
	return func(c echo.Context) error {
		var in pushIn
		if err := bindJSON(c, &in); err != nil {
			return err
		}
		if err := webpush.CheckSubscription(in.Endpoint, in.Keys.P256dh, in.Keys.Auth); err != nil {
			return err
		}
		ctx := c.Request().Context()
		key, err := push.PublicKey(ctx)
		if err != nil {
			return err
		}
		scheme := "http"
		if OverHTTPS(c) {
			scheme = "https"
		}
		sub, err := st.PutPushSubscription(ctx, store.PushSubscription{UID: viewer(c), Owner: sessionOwner(c),
			Endpoint: in.Endpoint, P256dh: in.Keys.P256dh, Auth: in.Keys.Auth, Alerts: store.AllPushAlerts,
			Policy: store.PushPolicyAll, Lang: webpush.Lang(in.Lang), Origin: scheme + "://" + c.Request().Host})
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, pushOut{VAPIDPublicKey: key,
			Subscription: &pushSubOut{Endpoint: sub.Endpoint, Lang: sub.Lang, Alerts: sub.Alerts}})
	}
}

// handleDeletePush is DELETE /me/push: the device hears no more.
func handleDeletePush(st store.Push) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := st.DeletePushSubscription(c.Request().Context(), viewer(c), sessionOwner(c)); err != nil {
			return err
		}
		return noContent(c)
	}
}
