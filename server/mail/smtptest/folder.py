"""A throwaway SMTP server for tests (aiosmtpd) that writes each message it
takes into a folder, one file a message (<time>-<n>.eml), written under a
dot name and renamed, so that a reader never sees half a message. Each file
starts with lines of what the session was: "X-Envelope-To:" (the
recipients), "X-Test-TLS:" (yes after STARTTLS) and "X-Test-Auth:" (the
login that authenticated, or none). Run as:

    python3 folder.py HOST PORT DIR [CERT KEY USER PASSWORD]

With CERT and KEY the server offers STARTTLS and requires it; with USER and
PASSWORD it requires AUTH (PLAIN or LOGIN) after it.
"""
import asyncio
import itertools
import os
import ssl
import sys
import time

from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword


class Folder:
    def __init__(self, path):
        self.path = path
        self.n = itertools.count()

    async def handle_DATA(self, server, session, envelope):
        name = "%d-%06d.eml" % (time.time_ns(), next(self.n))
        tmp = os.path.join(self.path, "." + name)
        login = session.login_data.decode() if session.authenticated and session.login_data else "none"
        head = "X-Envelope-To: %s\r\nX-Test-TLS: %s\r\nX-Test-Auth: %s\r\n" % (
            ",".join(envelope.rcpt_tos), "yes" if session.ssl is not None else "no", login)
        with open(tmp, "wb") as f:
            f.write(head.encode() + (envelope.original_content or envelope.content))
        os.rename(tmp, os.path.join(self.path, name))
        return "250 OK"


async def main(host, port, path, cert=None, key=None, user=None, password=None):
    tls = None
    if cert:
        tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        tls.load_cert_chain(cert, key)

    def authenticate(server, session, envelope, mechanism, auth_data):
        ok = (isinstance(auth_data, LoginPassword) and auth_data.login.decode() == user
              and auth_data.password.decode() == password)
        return AuthResult(success=ok, handled=False, auth_data=auth_data)

    handler = Folder(path)

    def factory():
        return SMTP(handler, hostname="smtptest", tls_context=tls, require_starttls=tls is not None,
                    authenticator=authenticate if user else None, auth_required=bool(user),
                    auth_require_tls=tls is not None)

    server = await asyncio.get_running_loop().create_server(factory, host, int(port))
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:]))
