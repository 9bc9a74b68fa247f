#!/usr/bin/env bash
# Runs the official Better Auth client (tests/compat/better_auth/compat.mjs) against a real cairn
# server:
#
#   tests/compat/run_better_auth_compat.sh <cairn-binary>
#
# Starts `<cairn> serve` on a free port (--port 0, the port is read from its log) with a fresh
# data directory and an admin from AUTH_ADMIN_EMAIL/AUTH_ADMIN_PASSWORD, waits for /api/health,
# runs `node compat.mjs <base-url>` and then every other *.mjs there (the plugins' flows, with
# CAIRN_OUTBOX_DIR set to the server's outbox), stops the server and returns the scripts' exit
# status.
#
# Backend: CAIRN_TEST_BACKEND=sqlite (default) or postgres. PostgreSQL needs
# CAIRN_TEST_DATABASE_URL (scripts/with-postgres exports it); each run gets its own schema on that
# server, reached through `options=-csearch_path=<schema>` in DATABASE_URL (as tests/support/
# test_database.cpp does), and drops it afterwards.
#
# The npm package must be installed: scripts/install-deps does it, or
# `npm ci --prefix tests/compat/better_auth`. Extra arguments are not accepted; COMPAT_KEEP_GOING=1
# makes compat.mjs report every failing step instead of stopping at the first.
set -uo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 <cairn-binary>" >&2
  exit 2
fi
cairn="$1"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
package_dir="$here/better_auth"
backend="${CAIRN_TEST_BACKEND:-sqlite}"

STARTUP_TIMEOUT=60   # seconds until the server listens and /api/health answers
CLIENT_TIMEOUT=240   # seconds for compat.mjs and the other flows (each has its own deadline)
SERVER_LIFETIME=600  # the server is killed after this even if this script is killed first
STOP_TIMEOUT=15      # seconds from SIGTERM to SIGKILL

die() {
  echo "better-auth compat: $*" >&2
  exit 1
}

[[ -x "$cairn" ]] || die "not an executable: $cairn"
command -v node >/dev/null 2>&1 ||
  die "node is not installed (scripts/install-deps installs Node.js and the npm package)"
command -v curl >/dev/null 2>&1 || die "curl is not installed (scripts/install-deps)"
installed_version=""
if [[ -f "$package_dir/node_modules/better-auth/package.json" ]]; then
  installed_version=$(node -p 'require(process.argv[1]).version' \
    "$package_dir/node_modules/better-auth/package.json" 2>/dev/null || true)
fi
if [[ -z "$installed_version" ]]; then
  die "$package_dir/node_modules is missing: run scripts/install-deps" \
      "(or: npm ci --prefix $package_dir)"
fi
wanted_version=$(node -p 'require(process.argv[1]).dependencies["better-auth"]' \
  "$package_dir/package.json")
if [[ "$installed_version" != "$wanted_version" ]]; then
  die "node_modules has better-auth $installed_version, package.json pins $wanted_version:" \
      "run scripts/install-deps (or: npm ci --prefix $package_dir)"
fi

case "$backend" in
  sqlite | postgres) ;;
  *) die "CAIRN_TEST_BACKEND must be sqlite or postgres, not '$backend'" ;;
esac
if [[ "$backend" == postgres && -z "${CAIRN_TEST_DATABASE_URL:-}" ]]; then
  die "CAIRN_TEST_BACKEND=postgres but CAIRN_TEST_DATABASE_URL is not set: run under" \
      "scripts/with-postgres (e.g. scripts/with-postgres $0 $cairn)"
fi

base="${TMPDIR:-/tmp}"
work="$(mktemp -d "$base/cairn-ba-compat.XXXXXX")" || die "mktemp failed"
server_pid=""
client_pid=""
schema=""

stop_server() {
  [[ -n "$server_pid" ]] || return 0
  if kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null
    local waited=0
    while kill -0 "$server_pid" 2>/dev/null && ((waited < STOP_TIMEOUT * 10)); do
      sleep 0.1
      waited=$((waited + 1))
    done
    if kill -0 "$server_pid" 2>/dev/null; then
      echo "better-auth compat: the server ignored SIGTERM for ${STOP_TIMEOUT} s; killing it" >&2
      kill -KILL "$server_pid" 2>/dev/null
    fi
  fi
  wait "$server_pid" 2>/dev/null
  server_pid=""
}

psql_run() {
  timeout 30 psql -X -q -v ON_ERROR_STOP=1 -d "$CAIRN_TEST_DATABASE_URL" -c "$1"
}

cleanup() {
  local status=$?
  if [[ -n "$client_pid" ]]; then
    kill -TERM "$client_pid" 2>/dev/null  # timeout passes it on to node
    wait "$client_pid" 2>/dev/null
  fi
  stop_server
  if [[ -n "$schema" ]]; then
    psql_run "DROP SCHEMA IF EXISTS \"$schema\" CASCADE" >/dev/null 2>&1 ||
      echo "better-auth compat: could not drop schema $schema" >&2
  fi
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

server_env=(
  env -u BASE_URL -u PORT -u HOST -u CAIRN_DATA_DIR -u DATABASE_URL -u SMTP_HOST
  -u TRUSTED_ORIGINS -u AUTH_ADMIN_NAME
  AUTH_ADMIN_EMAIL=admin@example.com
  AUTH_ADMIN_PASSWORD=admin-password-1
  RATE_LIMIT_DISABLED=true
  # oauth.mjs: the github provider, at a loopback address nobody answers (the flow only starts).
  GITHUB_CLIENT_ID=compat-github-client
  GITHUB_CLIENT_SECRET=compat-github-secret
  GITHUB_URL=http://127.0.0.1:9
  GITHUB_API_URL=http://127.0.0.1:9
)
if [[ "$backend" == postgres ]]; then
  command -v psql >/dev/null 2>&1 || die "psql is not installed (the postgresql package)"
  schema="cairn_ba_$$_$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')"
  psql_run "CREATE SCHEMA \"$schema\"" >"$work/psql.log" 2>&1 || {
    cat "$work/psql.log" >&2
    schema=""
    die "cannot create a schema on $CAIRN_TEST_DATABASE_URL"
  }
  separator='?'
  [[ "$CAIRN_TEST_DATABASE_URL" == *\?* ]] && separator='&'
  server_env+=("DATABASE_URL=${CAIRN_TEST_DATABASE_URL}${separator}options=-csearch_path%3D${schema}")
fi

cat >"$work/app.yaml" <<'YAML'
# Written by tests/compat/run_better_auth_compat.sh.
name: better-auth-compat
version: 1.0.0
description: The official Better Auth client against cairn

auth:
  strategies:
    - type: emailAndPassword
    - type: oauth
      providers: [github]
    - type: magicLink
    - type: emailOtp
  allowSignUp: true
  defaultRole: member
  twoFactor: true
  organizations: true

tables:
  - id: 1
    name: notes
    fields:
      - { id: 1, name: title, type: single-line-text, required: true }
      - { id: 2, name: body, type: long-text }
    permissions:
      read: authenticated
      create: authenticated
YAML

log="$work/server.log"
"${server_env[@]}" timeout -s KILL "$SERVER_LIFETIME" \
  "$cairn" serve "$work/app.yaml" --port 0 --data-dir "$work/data" >"$log" 2>&1 &
server_pid=$!

show_log() {
  echo "--- server log ($log) ---" >&2
  tail -n 60 "$log" >&2
  echo "---" >&2
}

port=""
deadline=$((SECONDS + STARTUP_TIMEOUT))
while ((SECONDS < deadline)); do
  port=$(grep -oE 'listening on http://[^ ]+:[0-9]+' "$log" 2>/dev/null | grep -oE '[0-9]+$' | head -n 1)
  [[ -n "$port" ]] && break
  if ! kill -0 "$server_pid" 2>/dev/null; then
    show_log
    die "the server exited during startup"
  fi
  sleep 0.1
done
if [[ -z "$port" ]]; then
  show_log
  die "the server did not listen within ${STARTUP_TIMEOUT} s"
fi
url="http://127.0.0.1:$port"

healthy=""
while ((SECONDS < deadline)); do
  if curl -fsS --max-time 2 -o /dev/null "$url/api/health" 2>/dev/null; then
    healthy=yes
    break
  fi
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.1
done
if [[ -z "$healthy" ]]; then
  show_log
  die "$url/api/health did not answer 200 within ${STARTUP_TIMEOUT} s"
fi

echo "better-auth compat: cairn on $url ($backend), better-auth $installed_version, node $(node --version)"
# In the background, so that a signal to this script runs the cleanup at once. compat.mjs first,
# then each plugin's flows (two_factor.mjs, …) with the outbox their mail goes to; `timeout`
# passes a signal on to its whole process group, so no node process outlives the run.
(
  cd "$package_dir" &&
    exec env AUTH_ADMIN_EMAIL=admin@example.com AUTH_ADMIN_PASSWORD=admin-password-1 \
      CAIRN_OUTBOX_DIR="$work/data/outbox" GITHUB_URL=http://127.0.0.1:9 \
      timeout -s KILL "$CLIENT_TIMEOUT" bash -c '
        node compat.mjs "$1" || exit
        for script in *.mjs; do
          [[ "$script" == compat.mjs ]] || node "$script" "$1" || exit
        done' run-clients "$url"
) &
client_pid=$!
wait "$client_pid"
status=$?
client_pid=""
if ((status == 137)); then
  echo "better-auth compat: the clients did not finish within ${CLIENT_TIMEOUT} s" >&2
fi
if ! kill -0 "$server_pid" 2>/dev/null; then
  echo "better-auth compat: the server died during the run" >&2
  status=1
fi
if ((status != 0)); then
  show_log
fi
exit "$status"
