package redisdb

import "testing"

// TestKeys pins every key and channel name: a schema change shows up here.
func TestKeys(t *testing.T) {
	for _, prefix := range []string{"", "mb:"} {
		k := Keys{prefix: prefix}
		for got, want := range map[string]string{
			k.lastUserID():                              "global:userid",
			k.lastPostID():                              "global:postid",
			k.user(7):                                   "user:userid:7",
			k.usernameIndex("alice"):                    "user:username:alice:uid",
			k.usernameSkeleton("al1ce"):                 "user:skeleton:al1ce:uid",
			k.loginFailures("alice"):                    "login:fail:alice",
			k.loginClientFailures("alice", "127.0.0.1"): "login:fail:alice:127.0.0.1",
			k.knownClients(7):                           "login:known:7",
			k.followNoted(7, 8):                         "N:7:followed:8",
			k.session("ab12"):                           "auth:ab12",
			k.userSessions(7):                           "user:userid:7:auth",
			k.userLikes(7):                              "user:userid:7:likes",
			k.fans(7):                                   "A:7:fansID",
			k.stars(7):                                  "A:7:loverID",
			k.message(42):                               "B:42",
			k.comments(42):                              "C:42:commentID",
			k.publicTime(42):                            "D:42:publicTime",
			k.author(42):                                "E:42:personID",
			k.userPosts(7):                              "F:7:messageID",
			k.home(7):                                   "G:7:messageID",
			k.publicTimeline():                          "global:timeline",
			k.idempotency(7, "ab12"):                    "idem:7:ab12",
			k.rate("post", "7", 99):                     "rate:post:7:99",
			k.reposts(42):                               "reposts:42",
			k.repairLock():                              "lock:repair",
			k.repairCheckpoint():                        "repair:checkpoint",
			k.writeProbe():                              "probe:writable",
			k.likes(42):                                 "likes:42",
			k.tagPosts("话题"):                            "T:话题:messageID",
			k.tagCounts():                               "global:tags",
			k.tagNames():                                "global:tagnames",
			k.usernames():                               "global:usernames",
			k.popular():                                 "global:popular",
			k.notifications(7):                          "N:7:notificationID",
			k.notes(7):                                  "N:7:notes",
			k.lastNotificationID():                      "global:notificationid",
			k.schema():                                  "global:schema",
			k.media(5):                                  "M:5",
			k.lastMediaID():                             "global:mediaid",
			k.unattachedMedia():                         "media:unattached",
			k.fanOutQueue():                             "fanout:queue",
			k.archiveQueue():                            "archive:queue",
			k.fanOutPending():                           "fanout:pending",
			k.celebrities():                             "global:celebrities",
			k.lastSeen():                                "global:lastseen",
			k.fanOutLock(7):                             "lock:fanout:7",
			k.AuthorChannel(7):                          "author:7",
			k.NotifyChannel(7):                          "notify:7",
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
	k := Keys{cluster: true}
	for got, want := range map[string]string{
		k.user(7):                "user:userid:{7}",
		k.userSessions(7):        "user:userid:{7}:auth",
		k.userLikes(7):           "user:userid:{7}:likes",
		k.knownClients(7):        "login:known:{7}",
		k.fans(7):                "A:{7}:fansID",
		k.stars(7):               "A:{7}:loverID",
		k.userPosts(7):           "F:{7}:messageID",
		k.home(7):                "G:{7}:messageID",
		k.idempotency(7, "ab12"): "idem:{7}:ab12",
		k.notifications(7):       "N:{7}:notificationID",
		k.notes(7):               "N:{7}:notes",
		k.followNoted(7, 8):      "N:{7}:followed:8",
		k.fanOutLock(7):          "lock:fanout:{7}",
		k.message(42):            "B:{42}",
		k.comments(42):           "C:{42}:commentID",
		k.publicTime(42):         "D:{42}:publicTime",
		k.author(42):             "E:{42}:personID",
		k.likes(42):              "likes:{42}",
		k.reposts(42):            "reposts:{42}",
		k.usernameIndex("alice"): "user:username:alice:uid",
		k.publicTimeline():       "global:timeline",
		k.archiveQueue():         "archive:queue",
		k.AuthorChannel(7):       "{p7}author:7",
		k.NotifyChannel(7):       "{p7}notify:7",
		k.AuthorChannel(64):      "{p0}author:64",
		k.AuthorChannel(1234):    "{p18}author:1234",
		k.NotifyChannel(1234):    "{p18}notify:1234",
	} {
		if got != want {
			t.Errorf("cluster key %q, want %q", got, want)
		}
	}
}

// TestClusterChannels pins the live partitions: 64 of them, a user's in
// uid % 64, both of its channels in it, and the prefix in front of the tag.
func TestClusterChannels(t *testing.T) {
	if livePartitions != 64 {
		t.Fatalf("%d live partitions; every process must agree on 64", livePartitions)
	}
	k := Keys{prefix: "mb:", cluster: true}
	if got := k.AuthorChannel(130); got != "mb:{p2}author:130" {
		t.Errorf("prefixed author channel %q", got)
	}
	if got := k.NotifyChannel(63); got != "mb:{p63}notify:63" {
		t.Errorf("prefixed notify channel %q", got)
	}
}
