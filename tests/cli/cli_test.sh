#!/usr/bin/env bash
# The command line as a user types it (D1, D2): exit codes and what is printed.
set -uo pipefail
cairn="$1"
root="$2"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
passed=0

check() {  # check <description> <expected exit> <regex on stdout+stderr> -- command...
  local description="$1" expected="$2" pattern="$3"
  shift 4
  local output status
  output=$("$@" 2>&1)
  status=$?
  if [ "$status" -ne "$expected" ] || ! grep -Eq -- "$pattern" <<<"$output"; then
    echo "FAIL: $description (exit $status, expected $expected; pattern /$pattern/)"
    echo "$output" | head -20 | sed 's/^/    /'
    failures=$((failures + 1))
  else
    passed=$((passed + 1))
  fi
}

check "--version prints the version" 0 '^cairn [0-9]+\.[0-9]+\.[0-9]+' -- "$cairn" --version
check "--help prints usage" 0 'cairn validate <config>' -- "$cairn" --help
check "no arguments prints usage and fails" 2 'Usage' -- "$cairn"
check "unknown option fails" 2 'unknown option --bogus' -- "$cairn" serve x.yaml --bogus 1
check "validate accepts the example" 0 '^valid: ' -- "$cairn" validate "$root/examples/app.yaml"
check "validate reports a missing file" 1 'nope.yaml' -- "$cairn" validate "$work/nope.yaml"

cat >"$work/bad.yaml" <<'YAML'
name: Bad Name
tables:
  - name: posts
    fields:
      - name: title
        type: single-line-text
      - name: amount
        type: integer
        options: [a]
YAML
check "validate reports every error with key path and line" 1 \
  'bad.yaml:1: name:.*' -- "$cairn" validate "$work/bad.yaml"
check "validate names the field property" 1 'bad.yaml:9: tables\[0\]\.fields\[1\]\.options' \
  -- "$cairn" validate "$work/bad.yaml"

# Keys this build accepts but does not serve are warnings (app/not_served.cpp), not errors.
cat >"$work/inert.yaml" <<'YAML'
name: inert
buckets:
  - name: files
tables:
  - name: docs
    fields:
      - name: scan
        type: attachment
        bucket: files
auth:
  strategies:
    - type: magicLink
analytics: true
YAML
check "validate passes a config with keys not served" 0 '^valid: inert' -- \
  "$cairn" validate "$work/inert.yaml"
# File storage needs auth (signing needs a session): without it, buckets are named.
cat >"$work/no-auth.yaml" <<'YAML'
name: no-auth
buckets:
  - name: files
YAML
check "validate warns about buckets without auth, with their line" 0 \
  'no-auth.yaml:2: buckets: accepted, not served by this build: file storage is served with an auth section only' -- \
  "$cairn" validate "$work/no-auth.yaml"
check "validate is quiet about buckets with auth" 0 '^quiet$' -- \
  bash -c '"$1" validate "$2" 2>&1 | grep -q "buckets:" || echo quiet' _ "$cairn" "$work/inert.yaml"
check "validate is quiet about analytics, which is served" 0 '^quiet$' -- \
  bash -c '"$1" validate "$2" 2>&1 | grep -q "analytics:" || echo quiet' _ "$cairn" "$work/inert.yaml"
# D18: an OAuth provider without its credentials stops startup, naming both variables.
cat >"$work/oauth.yaml" <<'YAML'
name: oauth
auth:
  strategies:
    - type: oauth
      providers: [google, { name: my-idp, issuer: "https://idp.example.com" }]
YAML
check "serve names a provider's missing credentials" 1 'MY_IDP_CLIENT_ID and MY_IDP_CLIENT_SECRET' -- \
  env GOOGLE_CLIENT_ID=id GOOGLE_CLIENT_SECRET=secret "$cairn" serve "$work/oauth.yaml" --port 0 --data-dir "$work/d4"

"$cairn" schema >"$work/schema.json" 2>&1
check "schema is JSON Schema 2020-12" 0 'json-schema.org/draft/2020-12' -- cat "$work/schema.json"
check "schema parses as JSON" 0 'ok' -- python3 -c "import json,sys; json.load(open(sys.argv[1])); print('ok')" "$work/schema.json"

check "a bad setting names the setting" 1 'PORT' -- env PORT=99999 "$cairn" serve "$root/examples/app.yaml" --data-dir "$work/d1"
check "a bad flag value names the flag" 1 '--log-level' -- "$cairn" serve "$root/examples/app.yaml" --log-level loud --data-dir "$work/d2"
check "a bad DATABASE_URL names it" 1 'DATABASE_URL' -- env DATABASE_URL=mysql://x "$cairn" serve "$root/examples/app.yaml" --data-dir "$work/d3"

check "secret generate prints 43 base64url characters" 0 '^[A-Za-z0-9_-]{43}$' -- "$cairn" secret generate
check "admin create creates a verified admin" 0 '^created admin boss@example.com' -- \
  "$cairn" admin create Boss@Example.com --password "correct horse 1" --data-dir "$work/serve"
check "admin create is idempotent" 0 'already exists: boss@example.com' -- \
  "$cairn" admin create boss@example.com --password "correct horse 1" --data-dir "$work/serve"
check "admin create refuses a short password" 1 'Password too short' -- \
  "$cairn" admin create other@example.com --password short --data-dir "$work/serve"
check "admin create needs a password" 2 'needs --password' -- \
  env -u AUTH_ADMIN_PASSWORD "$cairn" admin create other@example.com --data-dir "$work/serve"

# serve answers health and signs the admin in, then exits 0 on SIGTERM.
SCHEMA_EDIT_API_ENABLED=true ECO_RETENTION_PURGE_DAYS=30 ECO_IMAGE_FORMAT=webp STORAGE_PUBLIC_PATHS=contracts/public "$cairn" serve "$root/examples/app.yaml" --port 0 --data-dir "$work/serve" \
  >"$work/serve.log" 2>&1 &
pid=$!
port=""
for _ in $(seq 1 100); do
  port=$(grep -oE 'listening on http://127.0.0.1:[0-9]+' "$work/serve.log" | grep -oE '[0-9]+$' || true)
  [ -n "$port" ] && break
  sleep 0.1
done
if [ -z "$port" ]; then
  echo "FAIL: serve did not start"; cat "$work/serve.log"; failures=$((failures + 1))
else
  check "serve answers /api/health" 0 '"status":"ok"' -- curl -sS "http://127.0.0.1:$port/api/health"
  check "serve registers the schema routes with SCHEMA_EDIT_API_ENABLED" 0 '"code":"UNAUTHORIZED"' -- \
    curl -sS "http://127.0.0.1:$port/api/admin/schema/status"
  check "serve is quiet about storage, purge and schema settings it serves" 0 '^quiet$' -- \
    bash -c 'grep -qE "STORAGE_PUBLIC_PATHS|ECO_IMAGE_FORMAT|ECO_RETENTION_PURGE_DAYS|SCHEMA_EDIT_API_ENABLED" "$1" || echo quiet' _ "$work/serve.log"
  check "serve serves analytics (examples/app.yaml has analytics: true)" 0 'sendBeacon' -- \
    curl -sS "http://127.0.0.1:$port/api/analytics/script.js"
  check "the admin made by admin create signs in as admin" 0 '"role":"admin"' -- \
    curl -sS -H 'Content-Type: application/json' \
    -d '{"email":"boss@example.com","password":"correct horse 1"}' \
    "http://127.0.0.1:$port/api/auth/sign-in/email"
  kill -TERM "$pid"
  wait "$pid"
  status=$?
  if [ "$status" -ne 0 ]; then
    echo "FAIL: serve exited $status after SIGTERM"; cat "$work/serve.log"; failures=$((failures + 1))
  else
    passed=$((passed + 1))
  fi
  check "the database file exists" 0 'cairn.db' -- ls "$work/serve"
fi

echo "$passed passed, $failures failed"
[ "$failures" -eq 0 ]
