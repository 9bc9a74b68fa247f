#!/ usr / bin / python3
"""A real SMTP server for tests (Debian's python3-aiosmtpd): accepts every message.

Usage: smtp_sink.py <out-dir> [port]
Listens on 127.0.0.1 on the port (default: a free one) and prints the port on stdout. Each message is saved as
<out-dir>/<n>.eml (the DATA exactly as received) and <n>.envelope ("MAIL FROM:<a>" and one
"RCPT TO:<b>" line per recipient), written before the server answers 250, so a client that got
its reply can read them at once. Exits when stdin closes, so it never outlives the test.
"""
import asyncio
import os
import socket
import sys

from aiosmtpd.smtp import SMTP


def write_atomically(path, data):
    with open(path + ".tmp", "wb") as f:
        f.write(data)
    os.rename(path + ".tmp", path)


class Sink:
    def __init__(self, out_dir):
        self.out_dir = out_dir
        self.count = 0

    async def handle_DATA(self, server, session, envelope):
        self.count += 1
        base = os.path.join(self.out_dir, "%06d" % self.count)
        write_atomically(base + ".eml", envelope.original_content or envelope.content)
        lines = ["MAIL FROM:<%s>" % envelope.mail_from]
        lines += ["RCPT TO:<%s>" % rcpt for rcpt in envelope.rcpt_tos]
        write_atomically(base + ".envelope", ("\n".join(lines) + "\n").encode())
        return "250 Message accepted"


async def main(out_dir, port):
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sink = Sink(out_dir)
    loop = asyncio.get_running_loop()
#A fixed hostname : the default, socket.getfqdn(), can wait on DNS.
    server = await loop.create_server(lambda: SMTP(sink, hostname="sink.test"), sock=sock)
    print(sock.getsockname()[1], flush=True)
    await loop.run_in_executor(None, sys.stdin.read)
    server.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 0))
