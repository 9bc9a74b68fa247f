#!/usr/bin/python3
"""Replays the hostile-input corpus (tests/hostile/*.jsonl) against a real cairn process.

Usage: run.py --binary <cairn> [--backend sqlite|postgres] [--corpus <dir>]

Starts cairn on tests/hostile/app.yaml (PostgreSQL: a fresh schema in CAIRN_TEST_DATABASE_URL,
as scripts/with-postgres provides), signs in an admin and two members (alice, bob), creates the
records, comments and sessions the corpus refers to, then sends every entry over a raw socket
(so malformed requests reach the server as written) and compares the status with the entry's.

A corpus entry is one JSON object per line:
  name     what it tries (unique)
  as       anon | admin | alice | bob | alice-cookie | tampered | expired | revoked (the caller)
  method, target, headers ({name: value}), body (a string sent as is, or JSON serialized)
  raw      instead of the above: the whole request as text (\\r\\n written out), for HTTP abuse
  expect   a status, a list of statuses, or "4xx"
Placeholders in target, body, headers and raw: {alice_item} {bob_item} {admin_item}
{deleted_item} {alice_comment} {bob_comment} {alice_id} {bob_id} {alice_token} {bob_token}
{bob_session} {group}; in `raw`, {len} is the body's length, and with `bytes: true` a written
\\xNN is that byte (bodies that are not UTF-8). A header set to null is left out.

Prints `N inputs, M 5xx, K crashes` (and hangs and mismatches) and exits 1 on any 5xx, crash,
hang, mismatch or sanitizer report in the server's output.
"""
import argparse
import glob
import json
import os
import re
import socket
import sys
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from cairn_server import CairnServer  # noqa: E402 (found through the path above)
ADMIN = ("admin@hostile.test", "admin password 1")
MEMBERS = {"alice": ("alice@hostile.test", "alice password 1"),
           "bob": ("bob@hostile.test", "bob password 1")}
RESPONSE_TIMEOUT = 10.0  # seconds without an answer: a hang
SANITIZER = re.compile(r"AddressSanitizer|LeakSanitizer|runtime error:|ThreadSanitizer")


class Answer:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    def json(self):
        return json.loads(self.body)


def read_answer(sock):
    """One HTTP/1.1 response from `sock`; None when the server closed without answering."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return None
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers.setdefault(name.strip().lower(), []).append(value.strip())
    length = headers.get("content-length")
    if length is not None:
        need = int(length[0])
        while len(rest) < need:
            chunk = sock.recv(65536)
            if not chunk:
                break
            rest += chunk
        return Answer(status, headers, rest[:need])
    if "chunked" in ",".join(headers.get("transfer-encoding", [])):
        body = b""
        while True:
            while b"\r\n" not in rest:
                chunk = sock.recv(65536)
                if not chunk:
                    return Answer(status, headers, body)
                rest += chunk
            size_line, _, rest = rest.partition(b"\r\n")
            size = int(size_line.split(b";")[0], 16)
            while len(rest) < size + 2:
                chunk = sock.recv(65536)
                if not chunk:
                    return Answer(status, headers, body + rest)
                rest += chunk
            if size == 0:
                return Answer(status, headers, body)
            body += rest[:size]
            rest = rest[size + 2:]
    return Answer(status, headers, rest)


def exchange(port, raw):
    """Sends `raw` bytes on a new connection and reads one answer (None: closed unanswered)."""
    with socket.create_connection(("127.0.0.1", port), timeout=RESPONSE_TIMEOUT) as sock:
        sock.sendall(raw)
        return read_answer(sock)


def build_request(method, target, headers, body):
    lines = [f"{method} {target} HTTP/1.1", "Host: 127.0.0.1", "Connection: close"]
    for name, value in headers.items():
        lines.append(f"{name}: {value}")
    payload = body.encode("utf-8", "surrogatepass") if isinstance(body, str) else body
    if payload and not any(n.lower() in ("content-length", "transfer-encoding") for n in headers):
        lines.append(f"Content-Length: {len(payload)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", "replace") + (payload or b"")


class Server(CairnServer):
    def __init__(self, binary, backend):
        super().__init__(binary, backend, os.path.join(HERE, "app.yaml"), "hostile", {
            "AUTH_SECRET": "hostile-corpus-secret-0123456789abcdef",
            "AUTH_ADMIN_EMAIL": ADMIN[0], "AUTH_ADMIN_PASSWORD": ADMIN[1],
            "RATE_LIMIT_DISABLED": "true", "LOG_LEVEL": "info"})

    def alive(self):
        if self.process.poll() is not None:
            return False
        try:
            answer = exchange(self.port, build_request("GET", "/api/health", {}, ""))
            return answer is not None and answer.status == 200
        except OSError:
            return False

def call(port, method, target, body=None, token=None, cookie=None):
    headers = {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if cookie:
        headers["Cookie"] = cookie
    text = ""
    if body is not None:
        headers["Content-Type"] = "application/json"
        text = json.dumps(body)
    answer = exchange(port, build_request(method, target, headers, text))
    if answer is None:
        raise RuntimeError(f"{method} {target}: no answer")
    return answer


def must(answer, status, what):
    if answer.status != status:
        raise RuntimeError(f"setup: {what} answered {answer.status}: {answer.body[:300]!r}")
    return answer


def sign_in(port, email, password):
    answer = must(call(port, "POST", "/api/auth/sign-in/email",
                       {"email": email, "password": password}), 200, "sign-in " + email)
    cookie = None
    for value in answer.headers.get("set-cookie", []):
        if value.startswith("better-auth.session_token="):
            cookie = value.split(";")[0]
    return answer.json()["token"], answer.json()["user"]["id"], cookie


def set_up(port):
    """The callers and the resources the corpus names; returns (callers, placeholders)."""
    callers = {"anon": {}}
    token, _, _ = sign_in(port, *ADMIN)
    callers["admin"] = {"Authorization": f"Bearer {token}"}
    values = {}
    for name, (email, password) in MEMBERS.items():
        must(call(port, "POST", "/api/auth/sign-up/email",
                  {"name": name, "email": email, "password": password}), 200, "sign-up " + name)
        member_token, user_id, cookie = sign_in(port, email, password)
        callers[name] = {"Authorization": f"Bearer {member_token}"}
        values[f"{name}_id"] = user_id
        values[f"{name}_token"] = member_token
        if name == "alice":
            callers["alice-cookie"] = {"Cookie": cookie,
                                       "Origin": f"http://127.0.0.1:{port}"}
            callers["tampered"] = {"Authorization": "Bearer " + member_token[:-1] +
                                   ("A" if member_token[-1] != "A" else "B")}
    # bob's second session, for IDOR on session revocation.
    _, _, _ = sign_in(port, *MEMBERS["bob"])
    sessions = must(call(port, "GET", "/api/auth/list-sessions",
                         token=callers["bob"]["Authorization"][7:]), 200, "list-sessions").json()
    values["bob_session"] = sessions[0]["token"] if sessions and "token" in sessions[0] else \
        sessions[0]["id"]
    # A revoked session and a session past its expiry.
    revoked_token, _, _ = sign_in(port, *MEMBERS["alice"])
    must(call(port, "POST", "/api/auth/sign-out", {}, token=revoked_token), 200, "sign-out")
    callers["revoked"] = {"Authorization": f"Bearer {revoked_token}"}
    callers["expired"] = {"Authorization": "Bearer " + "x" * 32}

    admin_token = token
    group = must(call(port, "POST", "/api/tables/groups/records", {"fields": {"name": "g"}},
                      token=admin_token), 201, "group").json()
    values["group"] = str(group["id"])
    for who in ("alice", "bob", "admin"):
        bearer = callers[who]["Authorization"][7:]
        item = must(call(port, "POST", "/api/tables/items/records",
                         {"fields": {"title": f"{who}'s item", "code": who}}, token=bearer), 201,
                    "item of " + who).json()
        values[f"{who}_item"] = str(item["id"])
        if who != "admin":
            comment = must(call(port, "POST",
                                f"/api/tables/items/records/{item['id']}/comments",
                                {"content": f"{who} says hi"}, token=bearer), 201,
                           "comment of " + who).json()
            values[f"{who}_comment"] = str(comment["comment"]["id"])
    deleted = must(call(port, "POST", "/api/tables/items/records", {"fields": {"title": "gone"}},
                        token=admin_token), 201, "deleted item").json()
    must(call(port, "DELETE", f"/api/tables/items/records/{deleted['id']}", token=admin_token),
         204, "soft delete")
    values["deleted_item"] = str(deleted["id"])
    return callers, values


def check_no_escalation(port):
    """The account access/sign-up-role made (with `role: admin` in its body) is no admin."""
    try:
        token, _, _ = sign_in(port, "role@hostile.test", "password 12345")
    except RuntimeError as error:
        return [f"sign-up-role check: {error}"]
    answer = call(port, "GET", "/api/auth/admin/list-users", token=token)
    if answer.status != 403:
        return [f"sign-up-role check: the account reached an admin route ({answer.status})"]
    return []


def fill(text, values):
    if not isinstance(text, str):
        return text
    for key, value in values.items():
        text = text.replace("{" + key + "}", value)
    return text


def raw_bytes(text, escaped):
    """The request of a `raw` entry: UTF-8, `\\xNN` written out as single bytes when `escaped`
    (for bodies that are not UTF-8), `{len}` the length of the body."""
    data = text.encode("utf-8", "surrogatepass")
    if escaped:
        data = re.sub(rb"\\x([0-9a-fA-F]{2})", lambda m: bytes([int(m.group(1), 16)]), data)
    head, separator, body = data.partition(b"\r\n\r\n")
    return head.replace(b"{len}", str(len(body)).encode()) + separator + body


def matches(status, expect):
    if isinstance(expect, list):
        return any(matches(status, one) for one in expect)
    if expect == "close":
        return False
    if expect == "4xx":
        return 400 <= status < 500
    return status == expect


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--backend", default=os.environ.get("CAIRN_TEST_BACKEND", "sqlite"))
    parser.add_argument("--corpus", default=HERE)
    args = parser.parse_args()

    entries = []
    for path in sorted(glob.glob(os.path.join(args.corpus, "*.jsonl"))):
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if line.strip():
                    entry = json.loads(line)
                    entry["_where"] = f"{os.path.basename(path)}:{number}"
                    entries.append(entry)
    names = [e["name"] for e in entries]
    duplicates = {n for n in names if names.count(n) > 1}
    if duplicates:
        sys.exit("duplicate corpus names: " + ", ".join(sorted(duplicates)))

    server = Server(args.binary, args.backend)
    five_xx, crashes, hangs, mismatches = [], [], [], []
    try:
        callers, values = set_up(server.port)
        for entry in entries:
            label = f"{entry['_where']} {entry['name']}"
            if "raw" in entry:
                raw = raw_bytes(fill(entry["raw"], values), entry.get("bytes", False))
            else:
                headers = dict(callers[entry.get("as", "anon")])
                for name, value in entry.get("headers", {}).items():
                    if value is None:
                        headers.pop(name, None)  # the entry sends the request without it
                    else:
                        headers[name] = fill(value, values)
                body = entry.get("body", "")
                if not isinstance(body, str):
                    body = json.dumps(body)
                body = fill(body, values)
                if body and not any(n.lower() == "content-type" for n in headers):
                    headers["Content-Type"] = "application/json"
                raw = build_request(entry.get("method", "GET"), fill(entry["target"], values),
                                    headers, body)
            try:
                answer = exchange(server.port, raw)
            except socket.timeout:
                hangs.append(label)
                continue
            except OSError as error:
                answer = None
                if not server.alive():
                    crashes.append(f"{label}: {error}")
                    break
            if answer is None:
                if not server.alive():
                    crashes.append(label)
                    break
                expect = entry["expect"]
                if expect != "close" and not (isinstance(expect, list) and "close" in expect):
                    mismatches.append(f"{label}: closed without an answer, expected "
                                      f"{entry['expect']}")
                continue
            if answer.status >= 500:
                five_xx.append(f"{label}: {answer.status} {answer.body[:200]!r}")
            elif not matches(answer.status, entry["expect"]):
                mismatches.append(f"{label}: {answer.status}, expected {entry['expect']}: "
                                  f"{answer.body[:200]!r}")
        if not crashes and not server.alive():
            crashes.append("the server is not healthy after the corpus")
        if not crashes:
            mismatches.extend(check_no_escalation(server.port))
    finally:
        server.stop()
    output = server.output()
    sanitizer = [line for line in output.splitlines() if SANITIZER.search(line)]
    print(f"hostile corpus ({args.backend}): {len(entries)} inputs, {len(five_xx)} 5xx, "
          f"{len(crashes)} crashes, {len(hangs)} hangs, {len(mismatches)} mismatches, "
          f"{len(sanitizer)} sanitizer reports")
    for title, items in (("5xx", five_xx), ("crashes", crashes), ("hangs", hangs),
                         ("mismatches", mismatches), ("sanitizer", sanitizer)):
        for item in items[:50]:
            print(f"  {title}: {item}")
    failed = five_xx or crashes or hangs or mismatches or sanitizer
    if failed:
        print(output[-4000:])
    server.remove()
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
