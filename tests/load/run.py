#!/usr/bin/python3
"""The load part of the reliability suite (issue 22, docs/reliability.md): cairn under load.

Usage: run.py --binary <cairn> --backend sqlite|postgres [--parts mixed,slowloris,slowquery]
       run.py probe <url> <rate> <seconds> [token]     (internal: the latency probe)

Starts cairn on tests/load/app.yaml (PostgreSQL: a fresh schema in CAIRN_TEST_DATABASE_URL, as
scripts/with-postgres provides) and runs, one after the other:

  mixed      wrk keeps N keep-alive connections busy with the mixed read/write workload of
             mixed.lua (list, get, create, update with a session). Fails on any error: a socket
             error, a timeout or an answer other than 2xx.
  slowloris  N connections send a request one byte every few seconds (half stall in the
             header, half in the body) while a probe asks for /api/health at a steady rate.
             Fails unless every slow connection is closed by the server (its request read
             timeout), and on any probe error.
  slowquery  (PostgreSQL only) fills the events table until one grouped aggregate takes the
             target time, then C clients send that aggregate at once (more than the worker pool
             and the connection pool hold) while probes ask for /api/health and for one record.
             Fails on any error of the aggregates or the probes.

Each part prints one `load <backend> <part>: ...` line with its figures. The short form is the
default (what `make test` and CI run); CAIRN_LOAD_FULL=1 (what `make reliability` sets outside
CI) runs the issue's full lengths and then also fails when a latency threshold is missed
(health p99 >= 10 ms). The short form never asserts a timing, only errors and closes.
"""
import argparse
import http.client
import json
import os
import re
import resource
import socket
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "support"))
from cairn_server import CairnServer  # noqa: E402 (found through the path above)
ADMIN = ("admin@load.test", "admin password 1")
# The server's request read timeout (kRequestReadTimeout, src/http/limits.hpp): a request must
# arrive whole within it once its first byte has.
READ_TIMEOUT_S = 30.0
HEALTH_P99_LIMIT_MS = 10.0
ITEMS = 500  # records the mixed workload gets and updates
# Descriptors a run may leave open beyond those before it (database files, pool connections).
DESCRIPTOR_SLACK = 16


class Form:
    """The lengths of one form of the run: the full one (by hand) or the short one (CI)."""

    def __init__(self, full):
        self.full = full
        self.mixed_connections = 1000 if full else 250
        self.mixed_seconds = 60 if full else 10
        self.slow_connections = 1000 if full else 200
        self.slow_byte_interval = 3.0
        # The short form keeps the first 200,000 rows whatever one aggregate takes.
        self.slowquery_target_s = 2.0 if full else 0.0
        self.slowquery_clients = 32 if full else 16
        self.slowquery_seconds = 30 if full else 8
        self.probe_rate = 100  # requests per second, per probe


def fail(message):
    print("load: " + message, flush=True)
    sys.exit(1)


def raise_descriptor_limit():
    # 1,000 connections need 1,000 descriptors in wrk and in the server (a child inherits it).
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 65536 if hard == resource.RLIM_INFINITY else min(hard, 65536)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


class Server(CairnServer):
    def __init__(self, binary, backend):
        # The load is one client address and one user: the rate limits would answer 429 to the
        # load itself, which measures capacity, not the limits.
        super().__init__(binary, backend, os.path.join(HERE, "app.yaml"), "load", {
            "AUTH_SECRET": "load-run-secret-0123456789abcdef0123",
            "AUTH_ADMIN_EMAIL": ADMIN[0], "AUTH_ADMIN_PASSWORD": ADMIN[1],
            "RATE_LIMIT_DISABLED": "true", "LOG_LEVEL": "info"}, fail=fail)

    def descriptors(self):
        return len(os.listdir(f"/proc/{self.process.pid}/fd"))

    def settle_descriptors(self, baseline, within=20.0):
        """Waits for the descriptors to come back near `baseline` once a run's clients left
        (requests still queued when their client closed finish first); returns the count."""
        deadline = time.monotonic() + within
        count = self.descriptors()
        while count > baseline + DESCRIPTOR_SLACK and time.monotonic() < deadline:
            time.sleep(0.25)
            count = self.descriptors()
        return count

    def rss_mib(self):
        with open(f"/proc/{self.process.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) // 1024
        return 0

    def check_alive(self, part):
        if self.process.poll() is not None:
            fail(f"{part}: cairn exited ({self.process.returncode}):\n" + self.output()[-4000:])
        status, _ = call(self.port, "GET", "/api/health")
        if status != 200:
            fail(f"{part}: /api/health answered {status} afterwards")

def call(port, method, target, body=None, token=None, timeout=60):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    headers = {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    payload = None
    if body is not None:
        headers["Content-Type"] = "application/json"
        payload = json.dumps(body)
    try:
        connection.request(method, target, payload, headers)
        answer = connection.getresponse()
        data = answer.read()
        return answer.status, (json.loads(data) if data else None)
    finally:
        connection.close()


def sign_in(port):
    status, body = call(port, "POST", "/api/auth/sign-in/email",
                        {"email": ADMIN[0], "password": ADMIN[1]})
    if status != 200:
        fail(f"setup: sign-in answered {status}: {body}")
    return body["token"]


def create_items(port, token):
    records = [{"fields": {"title": f"item {i}", "body": "seeded before the load", "count": i,
                           "stage": ["lead", "won", "lost"][i % 3]}} for i in range(ITEMS)]
    status, body = call(port, "POST", "/api/tables/items/records/batch", {"records": records},
                        token=token)
    if status not in (200, 201):
        fail(f"setup: batch create answered {status}: {body}")
    ids = sorted(int(record["id"]) for record in body["records"])
    return ids[0], ids[-1]


def percentile(values, fraction):
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


# ---- wrk ---------------------------------------------------------------------------------------

def run_wrk(script, url, connections, seconds, env_extra, timeout_s=10):
    env = dict(os.environ, LOAD_LUA_DIR=HERE, **env_extra)
    threads = min(2, connections)
    command = ["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{seconds}s",
               "--timeout", f"{timeout_s}s", "-s", os.path.join(HERE, script), url]
    result = subprocess.run(command, env=env, capture_output=True, text=True,
                            timeout=seconds + timeout_s + 60, check=False)
    match = re.search(r"^wrk-report (\{.*\})$", result.stdout, re.MULTILINE)
    if result.returncode != 0 or not match:
        fail(f"wrk failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    report = json.loads(match.group(1))
    report["socket_errors"] = (report["connect"] + report["read"] + report["write"] +
                               report["timeout"])
    return report


def status_count(report, status):
    match = re.search(rf"(?:^|,){status}:(\d+)", report["statuses"])
    return int(match.group(1)) if match else 0


def wrk_errors(report, shed_allowed=False):
    """Socket errors, timeouts and answers other than 2xx; with `shed_allowed`, the server's
    503 (Retry-After) for a full worker queue is the designed answer, not an error."""
    shed = status_count(report, 503) if shed_allowed else 0
    return report["socket_errors"] + report["status_errors"] - shed


def describe_wrk(report, shed_allowed=False):
    return (f"{report['requests']} requests "
            f"({report['requests'] / (report['duration_us'] / 1e6):.0f}/s), "
            f"p50 {report['p50_us'] / 1000:.1f} ms, p99 {report['p99_us'] / 1000:.1f} ms, "
            f"max {report['max_us'] / 1000:.0f} ms, statuses {report['statuses'] or 'none'}, "
            f"{wrk_errors(report, shed_allowed)} errors (connect {report['connect']}, "
            f"read {report['read']}, "
            f"write {report['write']}, timeout {report['timeout']}, "
            f"non-2xx {report['status_errors']})")


# ---- the latency probe ------------------------------------------------------------------------

def probe_main(url_path, port, rate, seconds, token):
    """Asks for `url_path` `rate` times a second over 4 keep-alive connections for `seconds`,
    and prints one JSON line: latencies (ms) and errors. A steady rate, not as fast as possible,
    so the figure is the latency a client sees, not the queue a saturating client builds."""
    connections = 4
    interval = connections / rate
    latencies, errors, statuses = [], [], {}
    lock = threading.Lock()
    stop_at = time.monotonic() + seconds

    def worker(offset):
        connection = None
        next_at = time.monotonic() + offset
        while True:
            now = time.monotonic()
            if now >= stop_at:
                break
            if next_at > now:
                time.sleep(next_at - now)
            next_at += interval
            try:
                if connection is None:
                    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                    connection.connect()
                    connection.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                headers = {"Authorization": f"Bearer {token}"} if token else {}
                started = time.perf_counter()
                connection.request("GET", url_path, headers=headers)
                answer = connection.getresponse()
                answer.read()
                elapsed = (time.perf_counter() - started) * 1000
                with lock:
                    statuses[answer.status] = statuses.get(answer.status, 0) + 1
                    if answer.status == 200:
                        latencies.append(elapsed)
                    else:
                        errors.append(f"status {answer.status}")
                if answer.will_close:
                    connection.close()
                    connection = None
            except (OSError, http.client.HTTPException) as e:
                with lock:
                    errors.append(type(e).__name__ + ": " + str(e))
                if connection is not None:
                    connection.close()
                connection = None
        if connection is not None:
            connection.close()

    threads = [threading.Thread(target=worker, args=(i * interval / connections,))
               for i in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(json.dumps({"requests": len(latencies) + len(errors), "errors": len(errors),
                      "first_errors": errors[:5], "statuses": statuses,
                      "p50_ms": percentile(latencies, 0.50), "p99_ms": percentile(latencies, 0.99),
                      "max_ms": max(latencies) if latencies else 0.0}), flush=True)


def start_probe(port, url_path, rate, seconds, token=""):
    return subprocess.Popen([sys.executable, os.path.abspath(__file__), "probe", url_path,
                             str(port), str(rate), str(seconds), token],
                            stdout=subprocess.PIPE, text=True)


def finish_probe(process, seconds):
    out, _ = process.communicate(timeout=seconds + 60)
    if process.returncode != 0:
        fail(f"the probe failed ({process.returncode}): {out}")
    return json.loads(out.strip().splitlines()[-1])


def describe_probe(name, probe):
    return (f"{name} p50 {probe['p50_ms']:.2f} ms, p99 {probe['p99_ms']:.2f} ms, "
            f"max {probe['max_ms']:.1f} ms over {probe['requests']} requests, "
            f"{probe['errors']} errors")


# ---- the parts --------------------------------------------------------------------------------

def part_mixed(server, form, backend, token, first_id, last_id):
    baseline = server.descriptors()
    report = run_wrk("mixed.lua", f"http://127.0.0.1:{server.port}/", form.mixed_connections,
                     form.mixed_seconds,
                     {"LOAD_TOKEN": token, "LOAD_FIRST_ID": str(first_id),
                      "LOAD_LAST_ID": str(last_id)})
    server.check_alive("mixed")
    # Once every client closed, the descriptors come back to the baseline: none leaked.
    after = server.settle_descriptors(baseline)
    print(f"load {backend} mixed: {form.mixed_connections} keep-alive connections for "
          f"{form.mixed_seconds} s: {describe_wrk(report)}; server descriptors {baseline} before, "
          f"{after} after; RSS {server.rss_mib()} MiB", flush=True)
    print(f"load-summary mixed {backend}: {form.mixed_connections} connections "
          f"{form.mixed_seconds} s, {report['requests']} requests, {wrk_errors(report)} errors, "
          f"p50 {report['p50_us'] / 1000:.1f} ms, p99 {report['p99_us'] / 1000:.1f} ms",
          flush=True)
    problems = []
    if wrk_errors(report) > 0:
        problems.append(f"{wrk_errors(report)} errors")
    if report["requests"] == 0:
        problems.append("no request was answered")
    if after > baseline + DESCRIPTOR_SLACK:
        problems.append(f"descriptors grew from {baseline} to {after}")
    return problems


def slow_request(kind, serial):
    """The bytes one slow client sends: a header that never ends, or a whole header and a body
    that never arrives in full."""
    if kind == "header":
        return (b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 4000, 0)
    body = b'{"fields":{"title":"' + b"x" * 4000
    head = (b"POST /api/tables/items/records HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nContent-Length: " +
            str(len(body) + 10).encode() + b"\r\nX-Serial: " + str(serial).encode() + b"\r\n\r\n")
    return head + body, len(head)


def slowloris_clients(port, count, interval, give_up_after):
    """Opens `count` connections that each send their request one byte every `interval` seconds
    (a header's first bytes, or a whole header at once then the body) and watches for the
    server to close them. Returns, per connection, the seconds from its first byte to the close
    (None: still open after `give_up_after`), and what the server sent before closing."""
    import selectors
    selector = selectors.DefaultSelector()
    clients = []
    start = time.monotonic()
    for i in range(count):
        kind = "header" if i % 2 == 0 else "body"
        payload, upfront = slow_request(kind, i)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.connect(("127.0.0.1", port))
        sock.setblocking(False)
        first = max(upfront, 1)
        sock.send(payload[:first])
        # Spread the byte ticks over the interval so the sends do not come in one burst.
        client = {"sock": sock, "kind": kind, "payload": payload, "sent": first,
                  "first_byte": time.monotonic(), "closed_after": None, "answer": b"",
                  "next_at": time.monotonic() + interval * (1 + i / count)}
        clients.append(client)
        selector.register(sock, selectors.EVENT_READ, client)
    opened_in = time.monotonic() - start
    open_count = count
    deadline = time.monotonic() + give_up_after
    while open_count > 0 and time.monotonic() < deadline:
        now = time.monotonic()
        next_tick = min((c["next_at"] for c in clients if c["closed_after"] is None), default=now)
        for key, _ in selector.select(timeout=max(0.0, min(0.2, next_tick - now))):
            client = key.data
            try:
                data = client["sock"].recv(65536)
            except (ConnectionResetError, OSError):
                data = b""
            if data:
                client["answer"] += data
                continue
            client["closed_after"] = time.monotonic() - client["first_byte"]
            selector.unregister(client["sock"])
            client["sock"].close()
            open_count -= 1
        now = time.monotonic()
        for client in clients:
            if client["closed_after"] is not None or client["next_at"] > now:
                continue
            client["next_at"] = now + interval
            if client["sent"] < len(client["payload"]):
                try:
                    client["sock"].send(client["payload"][client["sent"]:client["sent"] + 1])
                    client["sent"] += 1
                except OSError:
                    pass  # the server closed it: the read side notices
    for client in clients:
        if client["closed_after"] is None:
            selector.unregister(client["sock"])
            client["sock"].close()
    return clients, opened_in


def part_slowloris(server, form, backend):
    baseline = server.descriptors()
    give_up_after = READ_TIMEOUT_S + form.slow_byte_interval * 2 + 20
    probe_seconds = READ_TIMEOUT_S + 5
    probe = start_probe(server.port, "/api/health", form.probe_rate, probe_seconds)
    clients, opened_in = slowloris_clients(server.port, form.slow_connections,
                                           form.slow_byte_interval, give_up_after)
    health = finish_probe(probe, probe_seconds)
    server.check_alive("slowloris")
    after = server.settle_descriptors(baseline)
    closed = [c["closed_after"] for c in clients if c["closed_after"] is not None]
    still_open = len(clients) - len(closed)
    answered = sum(1 for c in clients if c["answer"])
    bytes_sent = statistics.mean(c["sent"] for c in clients)
    span = (f"closed {min(closed):.1f}-{max(closed):.1f} s after their first byte"
            if closed else "none closed")
    print(f"load {backend} slowloris: {len(clients)} connections (opened in {opened_in:.1f} s) "
          f"sending a byte every {form.slow_byte_interval:.0f} s (half in the header, half in the "
          f"body): {len(closed)} closed by the server, {still_open} still open, {span}, "
          f"{answered} got an answer before the close; {describe_probe('health', health)} "
          f"during the run; server descriptors {baseline} before, {after} after", flush=True)
    print(f"load-summary slowloris {backend}: {len(closed)}/{len(clients)} slow connections "
          f"closed by the server ({span.replace('closed ', '')}), health p99 "
          f"{health['p99_ms']:.2f} ms, {health['errors']} errors", flush=True)
    problems = []
    if still_open:
        problems.append(f"{still_open} slow connections were still open after "
                        f"{give_up_after:.0f} s")
    if health["errors"]:
        problems.append(f"health probe errors: {health['first_errors']}")
    if after > baseline + DESCRIPTOR_SLACK:
        problems.append(f"descriptors grew from {baseline} to {after}")
    if form.full:
        early = [t for t in closed if t < READ_TIMEOUT_S - 1]
        if early:
            problems.append(f"{len(early)} slow connections closed before the read timeout")
        if closed and max(closed) > READ_TIMEOUT_S + 5:
            problems.append(f"a slow connection was closed only after {max(closed):.1f} s")
        if health["p99_ms"] >= HEALTH_P99_LIMIT_MS:
            problems.append(f"health p99 {health['p99_ms']:.2f} ms >= {HEALTH_P99_LIMIT_MS} ms")
    return problems


AGGREGATE = ("/api/tables/events/records?limit=1&groupBy=kind"
             "&aggregate=count,sum:amount,avg:amount,min:note,max:note,count:note")


def events_table(server):
    name = server.query("SELECT table_name FROM information_schema.tables "
                        f"WHERE table_schema = '{server.schema}' AND table_name LIKE '%events%' "
                        "ORDER BY length(table_name) LIMIT 1")
    if not name:
        fail("slowquery: the events table was not found")
    return name


def add_events(server, table, rows, offset):
    # Generated in the database: the API would take minutes to create millions of rows. The
    # columns are the ones cairn reads (kind, amount, note); the rest keep their defaults.
    columns = server.query("SELECT string_agg(column_name, ',') FROM information_schema.columns "
                           f"WHERE table_schema = '{server.schema}' AND table_name = '{table}'")
    names = set(columns.split(","))
    for wanted in ("kind", "amount", "note"):
        if wanted not in names:
            fail(f"slowquery: column {wanted} not in {table} ({columns})")
    server.query(f'INSERT INTO "{table}" (kind, amount, note) '
                 f"SELECT 'kind ' || (g % 200), (g::bigint * 7919) % 100000, md5(g::text) "
                 f"FROM generate_series({offset + 1}, {offset + rows}) AS g; ANALYZE \"{table}\"")


def time_aggregate(port, token):
    started = time.monotonic()
    status, body = call(port, "GET", AGGREGATE, token=token, timeout=120)
    elapsed = time.monotonic() - started
    if status != 200:
        fail(f"slowquery: the aggregate answered {status}: {body}")
    return elapsed


def sample_running(server, table, stop, samples):
    while not stop.is_set():
        count = server.query("SELECT count(*) FROM pg_stat_activity WHERE state = 'active' "
                             "AND backend_type = 'client backend' "
                             f"AND query LIKE '%{table}%' AND query LIKE '%GROUP BY%' "
                             "AND pid <> pg_backend_pid()")
        samples.append(int(count or 0))
        stop.wait(0.5)


def part_slowquery(server, form, backend, token, item_id):
    if backend != "postgres":
        print(f"load {backend} slowquery: skipped (PostgreSQL only: the aggregate runs on the "
              "database server while cairn's workers wait)", flush=True)
        print(f"load-summary slowquery {backend}: skipped (PostgreSQL only)", flush=True)
        return []
    table = events_table(server)
    rows, step = 0, 200_000
    add_events(server, table, step, rows)
    rows += step
    one = time_aggregate(server.port, token)
    # Grow the table until one aggregate alone takes the target time (at most twice more).
    for _ in range(2):
        if one >= form.slowquery_target_s:
            break
        more = min(int(rows * (form.slowquery_target_s / max(one, 0.01) - 1) * 1.1) + 1,
                   8_000_000)
        add_events(server, table, more, rows)
        rows += more
        one = time_aggregate(server.port, token)
    pool = int(os.environ.get("DATABASE_POOL_SIZE", "8"))
    stop, samples = threading.Event(), []
    sampler = threading.Thread(target=sample_running, args=(server, table, stop, samples))
    seconds = form.slowquery_seconds
    health = start_probe(server.port, "/api/health", form.probe_rate, seconds)
    read = start_probe(server.port, f"/api/tables/items/records/{item_id}", form.probe_rate / 4,
                       seconds, token)
    sampler.start()
    report = run_wrk("probe.lua", f"http://127.0.0.1:{server.port}{AGGREGATE}",
                     form.slowquery_clients, seconds, {"LOAD_TOKEN": token}, timeout_s=60)
    stop.set()
    sampler.join()
    health_figures = finish_probe(health, seconds)
    read_figures = finish_probe(read, seconds)
    server.check_alive("slowquery")
    print(f"load {backend} slowquery: {rows} events, one grouped aggregate alone {one:.2f} s; "
          f"{form.slowquery_clients} clients sending it for {seconds} s: "
          f"{describe_wrk(report, shed_allowed=True)}; "
          f"at most {max(samples, default=0)} aggregates running on PostgreSQL at once "
          f"(database pool {pool}); {describe_probe('health', health_figures)}; "
          f"{describe_probe('record get', read_figures)}", flush=True)
    shed = status_count(report, 503)
    errors = wrk_errors(report, shed_allowed=True)
    print(f"load-summary slowquery {backend}: {form.slowquery_clients} aggregates of "
          f"{one:.2f} s at once, {max(samples, default=0)} running on PostgreSQL, "
          f"{report['requests'] - shed - errors} answered, {shed} shed (503), "
          f"{errors} errors; health p99 {health_figures['p99_ms']:.2f} ms, "
          f"record get p99 {read_figures['p99_ms']:.1f} ms, "
          f"{health_figures['errors'] + read_figures['errors']} probe errors", flush=True)
    problems = []
    if errors:
        problems.append(f"{errors} aggregate errors")
    if report["requests"] - shed - errors == 0:
        problems.append("no aggregate was answered")
    if health_figures["errors"]:
        problems.append(f"health probe errors: {health_figures['first_errors']}")
    if read_figures["errors"]:
        problems.append(f"record probe errors: {read_figures['first_errors']}")
    if form.full and health_figures["p99_ms"] >= HEALTH_P99_LIMIT_MS:
        problems.append(f"health p99 {health_figures['p99_ms']:.2f} ms >= "
                        f"{HEALTH_P99_LIMIT_MS} ms")
    return problems


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "probe":
        _, _, path, port, rate, seconds, *token = sys.argv
        probe_main(path, int(port), float(rate), float(seconds), token[0] if token else "")
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    parser.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--parts", default="mixed,slowloris,slowquery")
    args = parser.parse_args()
    form = Form(os.environ.get("CAIRN_LOAD_FULL") == "1")
    limit = raise_descriptor_limit()
    if limit < 2 * max(form.mixed_connections, form.slow_connections) + 256:
        fail(f"the descriptor limit is {limit}: too low for the run (ulimit -n)")
    print(f"load {args.backend}: {'full' if form.full else 'short'} form, descriptor limit "
          f"{limit}, load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores", flush=True)
    server = Server(args.binary, args.backend)
    failures = []
    try:
        token = sign_in(server.port)
        first_id, last_id = create_items(server.port, token)
        for part in args.parts.split(","):
            if part == "mixed":
                problems = part_mixed(server, form, args.backend, token, first_id, last_id)
            elif part == "slowloris":
                problems = part_slowloris(server, form, args.backend)
            elif part == "slowquery":
                problems = part_slowquery(server, form, args.backend, token, first_id)
            else:
                fail(f"unknown part {part}")
            failures += [f"{part}: {problem}" for problem in problems]
    finally:
        server.stop()
    errors = [line for line in server.output().splitlines() if " ERROR " in line or "[error]" in line]
    if errors:
        print("server errors logged:\n  " + "\n  ".join(errors[:20]), flush=True)
    if failures:
        fail("FAILED: " + "; ".join(failures))
    server.remove()
    print(f"load {args.backend}: passed", flush=True)


if __name__ == "__main__":
    main()
