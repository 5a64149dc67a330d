"""An aiosmtpd handler that writes each message it takes into a folder,
one file a message (<time>-<n>.eml), written under a dot name and renamed,
so that a reader never sees half a message. Its first line is
"X-Envelope-To:" and the recipients. Run as:

    python3 -m aiosmtpd -n -l 127.0.0.1:PORT -c folder.Folder DIR
"""
import itertools
import os
import time


class Folder:
    def __init__(self, path):
        self.path = path
        self.n = itertools.count()

    @classmethod
    def from_cli(cls, parser, *args):
        if len(args) != 1:
            parser.error("folder.Folder takes one argument: the folder")
        return cls(args[0])

    async def handle_DATA(self, server, session, envelope):
        name = "%d-%06d.eml" % (time.time_ns(), next(self.n))
        tmp = os.path.join(self.path, "." + name)
        head = ("X-Envelope-To: %s\r\n" % ",".join(envelope.rcpt_tos)).encode()
        with open(tmp, "wb") as f:
            f.write(head + (envelope.original_content or envelope.content))
        os.rename(tmp, os.path.join(self.path, name))
        return "250 OK"
