#!/usr/bin/env bash
# logsim serve against kafkajs 2.2.4 (pinned in live/tests/kafkajs/package-lock.json, installed
# once under BUILD/npm-kafkajs): admin, keyed produce, groups, offsets reset, a throwing
# handler, idle members, manual commits, seek, list and delete groups (live_test.js).
# Every wait is bounded; the server is stopped by its process id.
# Usage: kafkajs_test.sh LOGSIM SOURCE_ROOT BUILD_DIR
set -u
logsim=$1 root=$2 build=$3
npm_dir=$build/npm-kafkajs
if [ ! -f "$npm_dir/node_modules/kafkajs/package.json" ]; then
  command -v npm >/dev/null || { echo "npm is not installed (scripts/install-deps installs nodejs and npm)"; exit 1; }
  mkdir -p "$npm_dir"
  cp "$root/live/tests/kafkajs/package.json" "$root/live/tests/kafkajs/package-lock.json" "$npm_dir/"
  (cd "$npm_dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) || { echo "npm ci failed (is the npm registry reachable?)"; exit 1; }
fi
cp "$root/live/tests/kafkajs/live_test.js" "$npm_dir/"
tmp=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
"$logsim" serve "$root/scenarios/live/cluster.json" --listen 127.0.0.1:0 --bootstrap-file "$tmp/bootstrap" --duration 300s \
  > /dev/null 2> "$tmp/serve.err" &
pid=$!
for _ in $(seq 1 200); do [ -s "$tmp/bootstrap" ] && break; sleep 0.1; done
if [ ! -s "$tmp/bootstrap" ]; then echo "FAIL serve never wrote its bootstrap file"; tail -20 "$tmp/serve.err"; exit 1; fi
(cd "$npm_dir" && timeout 270 node live_test.js "$(cat "$tmp/bootstrap")" "$logsim")
rc=$?
[ $rc -eq 0 ] || { echo "--- serve stderr"; tail -30 "$tmp/serve.err"; }
exit $rc
