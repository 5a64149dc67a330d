// Package webpush sends the service's Web Push notifications: it keeps the
// VAPID keys (RFC 8292), checks the subscriptions devices give, and
// delivers each queued push (store.PushJob) to the user's devices whose
// alerts and policy want it, encrypted to each device (RFC 8291,
// aes128gcm) by github.com/SherClockHolmes/webpush-go.
//
// The payload is Mastodon's (notification_id, notification_type,
// preferred_locale, icon, title, body) without the access_token Mastodon
// puts in it: the payload is encrypted to the device, but a token has no
// business passing through a push service, and the apps fetch what they
// show with the token they hold.
package webpush
