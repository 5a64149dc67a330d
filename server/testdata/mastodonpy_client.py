"""A real Mastodon app's library against the service: Mastodon.py (Debian's
python3-mastodon). It reads the server's version from /api/v1/instance/
(with its trailing slash) and refuses what that version lacks; it streams
over server-sent events. Run by TestMastodonPyClient with BASE_URL,
READER_TOKEN and AUTHOR_TOKEN; it prints what it did and exits non-zero,
saying why, at the first thing that is not as on Mastodon."""

import os
import queue
import secrets
import sys
import threading

from mastodon import Mastodon, StreamListener

BASE = os.environ["BASE_URL"]
DEADLINE = 60  # seconds: a guard against a hang, not a speed check


import time
T0 = time.time()


def check(ok, what):
    if not ok:
        print("FAIL:", what)
        sys.exit(1)
    print("ok: %.1fs" % (time.time() - T0), what)


reader = Mastodon(access_token=os.environ["READER_TOKEN"], api_base_url=BASE)
author = Mastodon(access_token=os.environ["AUTHOR_TOKEN"], api_base_url=BASE)

version = reader.retrieve_mastodon_version()
check(reader.version_check_worked and version.startswith("4."), "the version is read: " + version)

me = reader.account_verify_credentials()
them = author.account_verify_credentials()
check(reader.account_lookup(them["username"])["id"] == them["id"], "account lookup (needs version 3.4)")
reader.account_follow(them["id"])

updates = queue.Queue()


class Listener(StreamListener):
    def on_update(self, status):
        updates.put(status)

    def on_abort(self, err):
        updates.put(err)


check(reader.stream_healthy(), "the streaming API is healthy")
handle = reader.stream_user(Listener(), run_async=True)
try:
    # The stream is open once the server has written its first line; a
    # post that reaches it proves it. Post until one does, a few at most.
    word = "py" + secrets.token_hex(4)
    status = None
    for attempt in range(20):
        posted = author.status_post("from Mastodon.py %s %d" % (word, attempt))
        try:
            got = updates.get(timeout=3)
        except queue.Empty:
            continue
        check(not isinstance(got, Exception), "the stream stays up: %r" % (type(got),))
        status = got
        break
    check(status is not None and word in status["content"], "a followed account's post arrives on the user stream (SSE)")
    check(status["account"]["id"] == them["id"], "the streamed status names its author")
finally:
    # close() returns once the stream's reader wakes, at the next line the
    # server sends: the edit below sends one at once.
    closing = threading.Thread(target=handle.close)
    closing.start()

found = reader.search_v2(them["username"], result_type="accounts")
check(any(a["id"] == them["id"] for a in found["accounts"]), "search v2 finds the account")
edited = author.status_update(posted["id"], "edited by Mastodon.py " + word)
check("edited" in edited["content"], "a status is edited (needs version 3.5)")
closing.join(DEADLINE)
check(not closing.is_alive(), "the stream closes")
history = author.status_history(posted["id"])
check(len(history) >= 2, "its history has both versions")
home = reader.timeline_home(limit=40)
check(any(s["id"] == posted["id"] for s in home), "the post is on the reader's home timeline")
reader.markers_set(["home"], [home[0]["id"]])
check(str(reader.markers_get(["home"])["home"]["last_read_id"]) == str(home[0]["id"]), "the home marker is set and read back")

# Web Push: the app's keys, made by Mastodon.py; the subscription is the
# token's one. (Mastodon.py's push_subscription_decrypt_push needs
# http_ece, which Debian does not ship: TestPushDelivery decrypts.)
from mastodon import MastodonNotFoundError, MastodonAPIError
priv, pub = reader.push_subscription_generate_keys()
sub = reader.push_subscription_set("https://push.example.invalid/py", pub, mention_events=True,
                                   follow_events=True, policy="followed")
check(sub["endpoint"] == "https://push.example.invalid/py" and sub["alerts"]["mention"]
      and sub["alerts"]["follow"] and not sub["alerts"]["favourite"] and sub["policy"] == "followed",
      "push_subscription_set subscribes with the alerts and policy given")
check(sub["server_key"] and sub["server_key"] == reader.app_verify_credentials()["vapid_key"],
      "its server_key is the app's vapid_key")
check(reader.push_subscription()["id"] == sub["id"], "push_subscription reads it back")
updated = reader.push_subscription_update(favourite_events=True, mention_events=False)
check(updated["alerts"]["favourite"] and not updated["alerts"]["mention"] and updated["alerts"]["follow"],
      "push_subscription_update changes the alerts given and keeps the others")
try:
    reader.push_subscription_set("http://push.example.invalid/py", pub)
    check(False, "an http endpoint is refused")
except MastodonAPIError as e:
    check("422" in str(e) or getattr(e, "args", [None, 0])[1] == 422, "an http endpoint is refused with 422: %s" % (e,))
reader.push_subscription_delete()
try:
    reader.push_subscription()
    check(False, "the subscription is gone after push_subscription_delete")
except MastodonNotFoundError:
    check(True, "the subscription is gone after push_subscription_delete")
# Polls: the instance says their limits; a status carries one (made with
# make_poll, sent as poll[...] form fields); a vote answers the Poll; the
# poll reads back with the reader's own votes; a second vote is refused.
polls = reader.instance()["configuration"]["polls"]
check(polls["max_options"] == 4 and polls["max_characters_per_option"] == 50
      and polls["min_expiration"] == 300 and polls["max_expiration"] == 604800,
      "the instance's configuration tells the poll limits: %r" % (polls,))
asked = author.status_post("Tea or coffee? " + word, poll=author.make_poll(["tea", "coffee", "水"], expires_in=600))
check(asked["poll"] and len(asked["poll"]["options"]) == 3 and asked["poll"]["options"][2]["title"] == "水"
      and asked["poll"]["votes_count"] == 0 and not asked["poll"]["expired"],
      "a status is posted with a poll of three options")
reader.poll_vote(asked["poll"]["id"], [1])  # this Mastodon.py drops the answer (returns None)
again = reader.poll(asked["poll"]["id"])
check(again["voted"] and again["own_votes"] == [1] and again["options"][1]["votes_count"] == 1
      and again["votes_count"] == 1 and again["voters_count"] == 1, "poll_vote votes; poll reads the counts and the reader's own votes")
seen = author.status(asked["id"])
check(seen["poll"]["voters_count"] == 1 and seen["poll"]["voted"] is False, "the author's status shows the vote, not voted itself")
try:
    reader.poll_vote(asked["poll"]["id"], [0])
    check(False, "a second vote is refused")
except MastodonAPIError as e:
    check("409" in str(e) or "already" in str(e), "a second vote is refused: %s" % (e,))
try:
    author.status_post("bad poll", poll=author.make_poll(["only one"], expires_in=600))
    check(False, "a poll of one option is refused")
except MastodonAPIError as e:
    check("422" in str(e), "a poll of one option is refused with 422: %s" % (e,))
print("all done")
