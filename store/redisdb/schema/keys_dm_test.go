package schema

import (
	"testing"
)

// TestClusterMessageKeys pins the cluster spelling of the keys of private
// messages: a message's under its own tag, a user's conversations under
// the user's, so that a script of one side touches one slot.
func TestClusterMessageKeys(t *testing.T) {
	t.Parallel()
	k := NewKeys("", true)
	for got, want := range map[string]string{
		k.DM(42):                   "pm:{42}",
		k.Conversations(7):         "conv:{7}",
		k.Conversation(7, 8):       "conv:{7}:8",
		k.ConversationsRead(7):     "conv:{7}:read",
		k.ConversationsUnread(7):   "conv:{7}:unread",
		k.ConversationsArchived(7): "conv:{7}:archived",
		k.LastDMID():               "global:messageid",
	} {
		if got != want {
			t.Errorf("cluster key %q, want %q", got, want)
		}
	}
}
