package schema

import "testing"

func TestPushKeys(t *testing.T) {
	k, c := NewKeys("", false), NewKeys("", true)
	for got, want := range map[string]string{
		k.PushSubscriptions(7):           "push:subs:7",
		c.PushSubscriptions(7):           "push:subs:{7}",
		k.LastPushSubscriptionID():       "global:pushsubid",
		k.PushQueue():                    "push:queue",
		k.VAPIDKeys():                    "global:vapid",
		NewKeys("p:", false).PushQueue(): "p:push:queue",
	} {
		if got != want {
			t.Errorf("key %q, want %q", got, want)
		}
	}
}
