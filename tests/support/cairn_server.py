"""The built cairn binary as a child process, for the Python runners (tests/hostile/run.py,
tests/load/run.py): a data directory of its own, its output in a log there, the port it chose,
and on PostgreSQL a schema of its own in the cluster of scripts/with-postgres
(CAIRN_TEST_DATABASE_URL), dropped again by stop()."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

STARTUP_SECONDS = 60
_LISTENING = re.compile(rb"listening on http://127\.0\.0\.1:(\d+)")


class CairnServer:
    def __init__(self, binary, backend, app_yaml, name, env_overrides, fail=sys.exit):
        """`name` prefixes the directory and the schema; `env_overrides` are the server's
        settings beside the port, address and data directory; `fail(message)` must not
        return."""
        self.fail = fail
        self.dir = tempfile.mkdtemp(prefix=f"cairn-{name}-")
        self.schema = None
        self.admin_url = None
        env = dict(os.environ)
        env.update({"PORT": "0", "HOST": "127.0.0.1", "CAIRN_DATA_DIR": self.dir})
        env.update(env_overrides)
        env.pop("DATABASE_URL", None)
        if backend == "postgres":
            url = os.environ.get("CAIRN_TEST_DATABASE_URL")
            if not url:
                fail("CAIRN_TEST_DATABASE_URL is not set: run under scripts/with-postgres")
            self.schema = f"cairn_{name}_{os.getpid()}"
            self.admin_url = url
            self.psql(f'CREATE SCHEMA "{self.schema}"')
            separator = "&" if "?" in url else "?"
            env["DATABASE_URL"] = f"{url}{separator}options=-csearch_path%3D{self.schema}"
        self.log_path = os.path.join(self.dir, "server.log")
        self.log = open(self.log_path, "wb")
        self.process = subprocess.Popen([binary, "serve", app_yaml], env=env, stdout=self.log,
                                        stderr=subprocess.STDOUT)
        self.port = self._wait_for_port()

    def psql(self, sql, *extra):
        """Runs `sql` on the cluster as its owner; psql's output."""
        result = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", *extra,
                                 self.admin_url, "-c", sql],
                                check=False, capture_output=True, text=True)
        if result.returncode != 0:
            self.fail(f"psql failed: {result.stderr.strip()}")
        return result.stdout

    def query(self, sql):
        """One value (or rows, unaligned) of `sql` in the server's schema."""
        return self.psql(f'SET search_path TO "{self.schema}"; {sql}', "-A", "-t").strip()

    def _wait_for_port(self):
        deadline = time.time() + STARTUP_SECONDS
        while time.time() < deadline:
            if self.process.poll() is not None:
                self.fail("cairn exited at startup:\n" + self.output())
            with open(self.log_path, "rb") as f:
                match = _LISTENING.search(f.read())
            if match:
                return int(match.group(1))
            time.sleep(0.05)
        self.process.kill()
        self.fail(f"cairn did not start within {STARTUP_SECONDS} s:\n" + self.output())

    def output(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log.close()
        if self.schema:
            subprocess.run(["psql", "-X", "-q", "-o", "/dev/null", self.admin_url, "-c",
                            "SET client_min_messages = warning; "
                            f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE'], check=False)

    def remove(self):
        """Deletes the data directory and the log (after stop; a failed run keeps them)."""
        shutil.rmtree(self.dir, ignore_errors=True)
