"""Mastodon.py (Debian's python3-mastodon) sets a profile as an app does:
account_update_credentials with a display name, fields (sent as
fields_attributes[N][name] and [value]) and a header image (a multipart
file), then reads them back on the account and on a status. Run by
TestMastodonPyProfile with BASE_URL, TOKEN and HEADER (a PNG's path); it
prints what it did and exits non-zero, saying why, at the first thing that
is not as on Mastodon."""

import os
import sys

from mastodon import Mastodon, MastodonAPIError

BASE = os.environ["BASE_URL"]


def check(ok, what):
    if not ok:
        print("FAIL:", what)
        sys.exit(1)
    print("ok:", what)


api = Mastodon(access_token=os.environ["TOKEN"], api_base_url=BASE)
me = api.account_verify_credentials()
check(me["display_name"] == me["username"] and me["fields"] == [] and me["header"].endswith("/img/header.png"),
      "a new account shows its username, no fields and the default header")

me = api.account_update_credentials(display_name="\u202e韩梅梅", fields=[("网站", "https://example.com/hmm"), ("城市", "杭州")])
check(me["display_name"] == "韩梅梅", "display_name is set, its bidi control stripped: %r" % me["display_name"])
check([f["name"] for f in me["fields"]] == ["网站", "城市"], "the fields are set in order: %r" % me["fields"])
link = me["fields"][0]["value"]
check(link.startswith('<a href="https://example.com/hmm"') and 'rel="nofollow noopener' in link,
      "a URL field's value is a nofollow link: %s" % link)
check(me["fields"][1]["value"] == "杭州", "a text field's value is its text")
check(me["source"]["fields"][0]["value"] == "https://example.com/hmm", "source.fields keep the value as written")

me = api.account_update_credentials(header=os.environ["HEADER"], header_mime_type="image/png")
check("/media/" in me["header"] and me["header"] == me["header_static"], "the header is uploaded: %s" % me["header"])
check(me["display_name"] == "韩梅梅" and len(me["fields"]) == 2, "an upload keeps the rest of the profile")

try:
    api.account_update_credentials(display_name="名" * 31)
    check(False, "31 characters are refused")
except MastodonAPIError as e:
    check("422" in str(e), "31 characters are refused with 422: %s" % (e,))
check(api.account_verify_credentials()["display_name"] == "韩梅梅", "a refused update changes nothing")

status = api.status_post("名字 from Mastodon.py")
check(status["account"]["display_name"] == "韩梅梅", "a status carries its author's display name")
found = api.account_search("韩")
check(any(a["id"] == me["id"] for a in found), "account search finds the display name's start")
print("all done")
