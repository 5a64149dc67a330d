package schema

import (
	"testing"
)

// TestKeys pins every key and channel name: a schema change shows up here.
func TestKeys(t *testing.T) {
	t.Parallel()
	for _, prefix := range []string{"", "mb:"} {
		k := NewKeys(prefix, false)
		for got, want := range map[string]string{
			k.LastUserID():                              "global:userid",
			k.LastPostID():                              "global:postid",
			k.User(7):                                   "user:userid:7",
			k.UsernameIndex("alice"):                    "user:username:alice:uid",
			k.UsernameSkeleton("al1ce"):                 "user:skeleton:al1ce:uid",
			k.LoginFailures("alice"):                    "login:fail:alice",
			k.LoginClientFailures("alice", "127.0.0.1"): "login:fail:alice:127.0.0.1",
			k.KnownClients(7):                           "login:known:7",
			k.FollowNoted(7, 8):                         "N:7:followed:8",
			k.Session("ab12"):                           "auth:ab12",
			k.UserSessions(7):                           "user:userid:7:auth",
			k.OIDCState("ab12"):                         "oidc:state:ab12",
			k.UserLikes(7):                              "user:userid:7:likes",
			k.FollowedTags(7):                           "user:userid:7:tags",
			k.TagChannel("go"):                          "tag:go",
			k.Pinned(7):                                 "user:userid:7:pinned",
			k.Bookmarks(7):                              "user:userid:7:bookmarks",
			k.UserReposts(7):                            "user:userid:7:reposts",
			k.Markers(7):                                "user:userid:7:markers",
			k.LastListID():                              "global:listid",
			k.Lists(7):                                  "user:userid:7:lists",
			k.List(7, 3):                                "user:userid:7:list:3",
			k.ListMembers(7, 3):                         "user:userid:7:list:3:members",
			k.ExclusiveLists(7):                         "user:userid:7:lists:exclusive",
			k.Identity("ldap", "uid=a,dc=x"):            "ext:ldap:uid=a,dc=x:uid",
			k.UserIdentities(7):                         "user:userid:7:ext",
			k.Fans(7):                                   "A:7:fansID",
			k.Stars(7):                                  "A:7:loverID",
			k.Post(42):                                  "B:42",
			k.Comments(42):                              "C:42:commentID",
			k.History(42):                               "history:42",
			k.PublicTime(42):                            "D:42:publicTime",
			k.Author(42):                                "E:42:personID",
			k.UserPosts(7):                              "F:7:messageID",
			k.UserComments(7):                           "R:7:commentID",
			k.Home(7):                                   "G:7:messageID",
			k.PublicTimeline():                          "global:timeline",
			k.Idempotency(7, "ab12"):                    "idem:7:ab12",
			k.Rate("post", "7", 99):                     "rate:post:7:99",
			k.Reposts(42):                               "reposts:42",
			k.RepairLock():                              "lock:repair",
			k.RepairCheckpoint():                        "repair:checkpoint",
			k.RepairPostsCheckpoint():                   "repair:messages:checkpoint",
			k.WriteProbe():                              "probe:writable",
			k.Likes(42):                                 "likes:42",
			k.TagPosts("话题"):                            "T:话题:messageID",
			k.TagCounts():                               "global:tags",
			k.TagNames():                                "global:tagnames",
			k.Usernames():                               "global:usernames",
			k.DisplayNames():                            "global:displaynames",
			k.Popular():                                 "global:popular",
			k.Notifications(7):                          "N:7:notificationID",
			k.Notes(7):                                  "N:7:notes",
			k.LastNotificationID():                      "global:notificationid",
			k.Schema():                                  "global:schema",
			k.HistoryIdentity():                         "global:identity",
			k.WriterVersion():                           "global:version",
			k.Media(5):                                  "M:5",
			k.LastMediaID():                             "global:mediaid",
			k.UnattachedMedia():                         "media:unattached",
			k.FanOutQueue():                             "fanout:queue",
			k.ArchiveQueue():                            "archive:queue",
			k.FanOutPending():                           "fanout:pending",
			k.FanOutParts():                             "fanout:parts",
			k.FanOutPartsLeft(42):                       "fanout:left:42",
			k.Celebrities():                             "global:celebrities",
			k.LastSeen():                                "global:lastseen",
			k.FanOutLock(7):                             "lock:fanout:7",
			k.AuthorChannel(7):                          "author:7",
			k.NotifyChannel(7):                          "notify:7",
			k.PublicChannel():                           "public",
			k.LastDMID():                                "global:messageid",
			k.DM(42):                                    "pm:42",
			k.Conversations(7):                          "conv:7",
			k.Conversation(7, 8):                        "conv:7:8",
			k.ConversationsRead(7):                      "conv:7:read",
			k.ConversationsUnread(7):                    "conv:7:unread",
			k.ConversationsArchived(7):                  "conv:7:archived",
			k.Blocking(7):                               "user:userid:7:blocking",
			k.BlockedBy(7):                              "user:userid:7:blocked_by",
			k.Muting(7):                                 "user:userid:7:muting",
			k.MutedBy(7):                                "user:userid:7:muted_by",
			k.FollowRequests(7):                         "user:userid:7:follow_requests",
			k.LastReportID():                            "global:reportid",
			k.Report(3):                                 "report:3",
			k.Reports(false):                            "reports:open",
			k.Reports(true):                             "reports:resolved",
			k.LensChannel():                             "lenses:changed",
		} {
			if got != prefix+want {
				t.Errorf("key %q, want %q", got, prefix+want)
			}
		}
	}
}

// TestClusterKeys pins the cluster spelling: the id of every key of one user
// or one message is a hash tag, so that they share a slot; the other keys
// are named as on a single Redis.
func TestClusterKeys(t *testing.T) {
	t.Parallel()
	k := NewKeys("", true)
	for got, want := range map[string]string{
		k.User(7):                "user:userid:{7}",
		k.UserSessions(7):        "user:userid:{7}:auth",
		k.UserLikes(7):           "user:userid:{7}:likes",
		k.FollowedTags(7):        "user:userid:{7}:tags",
		k.TagChannel("go"):       "{p11}tag:go",
		k.Pinned(7):              "user:userid:{7}:pinned",
		k.Bookmarks(7):           "user:userid:{7}:bookmarks",
		k.UserReposts(7):         "user:userid:{7}:reposts",
		k.Markers(7):             "user:userid:{7}:markers",
		k.LastListID():           "global:listid",
		k.Lists(7):               "user:userid:{7}:lists",
		k.List(7, 3):             "user:userid:{7}:list:3",
		k.ListMembers(7, 3):      "user:userid:{7}:list:3:members",
		k.ExclusiveLists(7):      "user:userid:{7}:lists:exclusive",
		k.UserIdentities(7):      "user:userid:{7}:ext",
		k.Blocking(7):            "user:userid:{7}:blocking",
		k.BlockedBy(7):           "user:userid:{7}:blocked_by",
		k.FollowRequests(7):      "user:userid:{7}:follow_requests",
		k.Identity("oidc", "42"): "ext:oidc:42:uid",
		k.KnownClients(7):        "login:known:{7}",
		k.Fans(7):                "A:{7}:fansID",
		k.Stars(7):               "A:{7}:loverID",
		k.UserPosts(7):           "F:{7}:messageID",
		k.UserComments(7):        "R:{7}:commentID",
		k.Home(7):                "G:{7}:messageID",
		k.Idempotency(7, "ab12"): "idem:{7}:ab12",
		k.Notifications(7):       "N:{7}:notificationID",
		k.Notes(7):               "N:{7}:notes",
		k.FollowNoted(7, 8):      "N:{7}:followed:8",
		k.FanOutLock(7):          "lock:fanout:{7}",
		k.FanOutPartsLeft(42):    "fanout:left:{42}",
		k.Post(42):               "B:{42}",
		k.Comments(42):           "C:{42}:commentID",
		k.History(42):            "history:{42}",
		k.PublicTime(42):         "D:{42}:publicTime",
		k.Author(42):             "E:{42}:personID",
		k.Likes(42):              "likes:{42}",
		k.Reposts(42):            "reposts:{42}",
		k.UsernameIndex("alice"): "user:username:alice:uid",
		k.PublicTimeline():       "global:timeline",
		k.ArchiveQueue():         "archive:queue",
		k.AuthorChannel(7):       "{p7}author:7",
		k.NotifyChannel(7):       "{p7}notify:7",
		k.AuthorChannel(64):      "{p0}author:64",
		k.AuthorChannel(1234):    "{p18}author:1234",
		k.NotifyChannel(1234):    "{p18}notify:1234",
		k.PublicChannel():        "{p0}public",
	} {
		if got != want {
			t.Errorf("cluster key %q, want %q", got, want)
		}
	}
}

// TestClusterChannels pins the live partitions: 64 of them, a user's in
// uid % 64, both of its channels in it, and the prefix in front of the tag.
func TestClusterChannels(t *testing.T) {
	t.Parallel()
	if LivePartitions != 64 {
		t.Fatalf("%d live partitions; every process must agree on 64", LivePartitions)
	}
	k := NewKeys("mb:", true)
	if got := k.AuthorChannel(130); got != "mb:{p2}author:130" {
		t.Errorf("prefixed author channel %q", got)
	}
	if got := k.NotifyChannel(63); got != "mb:{p63}notify:63" {
		t.Errorf("prefixed notify channel %q", got)
	}
}
