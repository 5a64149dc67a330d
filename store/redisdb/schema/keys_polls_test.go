package schema

import "testing"

func TestPollKeys(t *testing.T) {
	k, c := NewKeys("", false), NewKeys("", true)
	for got, want := range map[string]string{
		k.PollVotes(12):   "poll:12",
		c.PollVotes(12):   "poll:{12}",
		k.PollVoters(12):  "poll:12:voters",
		c.PollVoters(12):  "poll:{12}:voters",
		k.PollLive(12):    "poll:12:live",
		c.PollLive(12):    "poll:{12}:live",
		FieldPollCount(3): "c3",
	} {
		if got != want {
			t.Errorf("key %q, want %q", got, want)
		}
	}
}
