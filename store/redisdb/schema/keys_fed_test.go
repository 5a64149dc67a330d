package schema

import "testing"

// TestFedKeys pins federation's keys (docs/redis-keys.md#federation).
func TestFedKeys(t *testing.T) {
	k, c := NewKeys("", false), NewKeys("p:", true)
	for got, want := range map[string]string{
		k.FedActor(7):                         "fed:actor:7",
		c.FedActor(7):                         "p:fed:actor:{7}",
		k.FedActorID("https://x.example/u/a"): "fed:actorid:https://x.example/u/a",
		k.FedKey(0):                           "fed:key:0",
		c.FedKey(12):                          "p:fed:key:{12}",
		k.FedSeen("https://x.example/a/1"):    "fed:seen:https://x.example/a/1",
		k.FedObject("https://x.example/n/1"):  "fed:object:https://x.example/n/1",
		k.FedDomainBlocks():                   "fed:domain_blocks",
		c.FedActivities(3):                    "p:fed:activities:{3}",
		MediaURL("https://x.example/a.png"):   "https://x.example/a.png",
		MediaURL("ab.jpg"):                    "/media/ab.jpg",
	} {
		if got != want {
			t.Errorf("key %q, want %q", got, want)
		}
	}
}
