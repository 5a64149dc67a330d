package schema

import "testing"

// TestFedDeliveryKeys pins the delivery queue's keys and the job's form
// (docs/redis-keys.md#federation): on a cluster they share one hash tag.
func TestFedDeliveryKeys(t *testing.T) {
	k, c := NewKeys("", false), NewKeys("p:", true)
	for got, want := range map[string]string{
		k.FedOutbox():             "fed:outbox",
		c.FedOutbox():             "p:fed:outbox",
		k.FedDeliveries():         "fed:deliveries",
		c.FedDeliveries():         "p:fed:{fedq}:deliveries",
		k.FedRetries():            "fed:retries",
		c.FedRetries():            "p:fed:{fedq}:retries",
		k.FedDeliveryBody("ab12"): "fed:delivery:ab12",
		c.FedDeliveryBody("ab12"): "p:fed:{fedq}:delivery:ab12",
		DeliveryJobRef{Ref: "ab12", Attempt: 3, First: 1700000000000, Inbox: "https://x.example/inbox?a|b"}.String(): "ab12|3|1700000000000|https://x.example/inbox?a|b",
	} {
		if got != want {
			t.Errorf("key %q, want %q", got, want)
		}
	}
	j, ok := ParseDeliveryJobRef("ab12|3|1700000000000|https://x.example/inbox?a|b")
	if !ok || j.Ref != "ab12" || j.Attempt != 3 || j.First != 1700000000000 || j.Inbox != "https://x.example/inbox?a|b" {
		t.Errorf("parsed %+v %v", j, ok)
	}
	if _, ok := ParseDeliveryJobRef("ab12|x|1|https://x.example/inbox"); ok {
		t.Error("a bad attempt was read")
	}
}
