#!/usr/bin/env bash
# Runs the README's "First five minutes" as written, against a fresh server: the ```sh blocks
# between <!-- quickstart --> and <!-- /quickstart --> are extracted and run. Two substitutions
# only: `make run` (which would build) becomes the built binary serving examples/app.yaml in a
# fresh data directory in the background, and port 3000 becomes a free port. The answers the
# README promises are checked: the record is created, the filtered list holds it, the OpenAPI
# document and the explorer answer.
# Usage: quickstart_test.sh <cairn binary> <source dir>
set -euo pipefail
cairn="$1"
root="$2"
work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "quickstart: $*" >&2; [ -f "$work/server.log" ] && tail -20 "$work/server.log" >&2; exit 1; }

port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
awk '/<!-- quickstart -->/{on=1; next} /<!-- \/quickstart -->/{on=0} on' "$root/README.md" \
  | awk '/^```sh/{block++; on=1; next} /^```/{on=0; next} on{print > ("'"$work"'/block" block ".sh")}'
[ -f "$work/block1.sh" ] && [ -f "$work/block2.sh" ] || fail "README has no quickstart sh blocks"
grep -q 'make run' "$work/block1.sh" || fail "the first block does not start the server with make run"

# The server block, with `make run` replaced (env assignments before it are kept); `exec`, so
# the pid the cleanup kills is the server itself.
sed -e "s#make run#exec \"$cairn\" serve examples/app.yaml --data-dir \"$work/data\" --port $port#" \
  "$work/block1.sh" > "$work/server.sh"
(cd "$root" && exec bash "$work/server.sh" > "$work/server.log" 2>&1) &
server_pid=$!
for _ in $(seq 1 100); do
  if curl -s -o /dev/null "http://127.0.0.1:$port/api/health"; then break; fi
  kill -0 "$server_pid" 2>/dev/null || fail "the server exited"
  sleep 0.1
done

sed -e "s#127\.0\.0\.1:3000#127.0.0.1:$port#g" "$work/block2.sh" > "$work/client.sh"
# -e: a command that fails stops it (no pipefail: `| head` is as a shell runs it).
output="$(cd "$root" && bash -e "$work/client.sh")" || fail "a command failed: $output"
echo "$output"

# What the README says these commands show.
created="$(echo "$output" | sed -n '1p')"
echo "$created" | grep -q '"name":"Acme"' || fail "no record created: $created"
listed="$(echo "$output" | sed -n '2p')"
echo "$listed" | grep -q '"records":\[{"id":"1","fields":{"name":"Acme","employees":42}' \
  || fail "the filtered list does not hold the record: $listed"
echo "$output" | sed -n '3p' | grep -q '^{"openapi":"3.1.0"' || fail "no OpenAPI document"
[ "$(echo "$output" | sed -n '4p')" = "200" ] || fail "the explorer did not answer 200"
echo "quickstart: ok"
