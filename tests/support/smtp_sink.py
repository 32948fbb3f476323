#!/usr/bin/python3
"""A real SMTP server for the OTP tests (Debian's python3-aiosmtpd), on loopback only.

Each accepted message is written to --dir as <n>.eml (the DATA as received). Prints
"port <n>" once listening. Optional: STARTTLS with --cert/--key (required before AUTH),
AUTH PLAIN/LOGIN with --user/--password, and --reject-rcpt to refuse every recipient with
550 (a delivery failure). Without it, a mailbox named bounce* is refused with 550 and one named
defer* with 451. Exits when stdin closes, so a test that dies leaves nothing behind.
"""
import argparse
import asyncio
import os
import ssl
import sys

from aiosmtpd.smtp import SMTP, AuthResult


class Sink:
    def __init__(self, directory, reject):
        self.directory = directory
        self.reject = reject
        self.count = 0

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        # A recipient whose mailbox starts with "bounce" is refused for good, one starting with
        # "defer" for now: what a relay answers a mailbox it will never, or not yet, take.
        if self.reject or address.startswith("bounce"):
            return "550 5.1.1 mailbox unavailable"
        if address.startswith("defer"):
            return "451 4.3.0 mailbox busy, try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.count += 1
        path = os.path.join(self.directory, "%d.eml" % self.count)
        with open(path + ".partial", "wb") as f:
            f.write(b"X-Envelope-From: " + envelope.mail_from.encode() + b"\r\n")
            f.write(b"X-Envelope-To: " + ",".join(envelope.rcpt_tos).encode() + b"\r\n")
            f.write(envelope.original_content or envelope.content)
        os.rename(path + ".partial", path)
        return "250 Message accepted"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--cert")
    ap.add_argument("--key")
    ap.add_argument("--user")
    ap.add_argument("--password")
    ap.add_argument("--reject-rcpt", action="store_true")
    args = ap.parse_args()

    tls = None
    if args.cert:
        tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        tls.load_cert_chain(args.cert, args.key)

    def authenticator(server, session, envelope, mechanism, auth_data):
        ok = (args.user is not None and auth_data.login.decode() == args.user
              and auth_data.password.decode() == args.password)
        return AuthResult(success=ok)

    handler = Sink(args.dir, args.reject_rcpt)

    def factory():
        return SMTP(handler, hostname="localhost", tls_context=tls,
                    require_starttls=tls is not None,
                    auth_required=args.user is not None,
                    auth_require_tls=tls is not None,
                    authenticator=authenticator if args.user else None)

    async def run():
        server = await asyncio.get_running_loop().create_server(factory, "127.0.0.1", 0)
        print("port %d" % server.sockets[0].getsockname()[1], flush=True)
        # Stop when the test closes our stdin (or exits).
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
        server.close()

    asyncio.run(run())


if __name__ == "__main__":
    main()
