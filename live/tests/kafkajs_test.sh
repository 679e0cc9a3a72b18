#!/usr/bin/env bash
# logsim serve against kafkajs 2.2.4 (pinned in live/tests/kafkajs/package-lock.json, installed
# once under BUILD/npm-kafkajs): admin, keyed produce, groups, offsets reset, a throwing
# handler, idle members, manual commits, seek, list and delete groups (live_test.js); then a
# broker crash and restart under an idempotent acks=-1 producer, after which every acknowledged
# value is read back once (crash_test.js); then transactions, read_committed, offsets in a
# transaction and a fenced zombie, and their broker-side history (txn_test.js).
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
cp "$root/live/tests/kafkajs/live_test.js" "$root/live/tests/kafkajs/crash_test.js" "$root/live/tests/kafkajs/txn_test.js" \
  "$root/live/tests/kafkajs/checks.js" "$npm_dir/"
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
kill "$pid"; wait "$pid" 2>/dev/null; pid=

# A broker crash in the middle of an idempotent acks=-1 producer (scenarios/live/broker-crash.json).
rm -f "$tmp/bootstrap"
"$logsim" serve "$root/scenarios/live/broker-crash.json" --listen 127.0.0.1:0 --bootstrap-file "$tmp/bootstrap" --duration 200s \
  --out "$tmp/run" > /dev/null 2> "$tmp/crash.err" &
pid=$!
for _ in $(seq 1 200); do [ -s "$tmp/bootstrap" ] && break; sleep 0.1; done
(cd "$npm_dir" && timeout 150 node crash_test.js "$(cat "$tmp/bootstrap")" "$logsim") | tee "$tmp/crash.out"
crash_rc=${PIPESTATUS[0]}
kill -TERM "$pid"; wait "$pid"; serve_rc=$?; pid=
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; crash_rc=1; }
check_log() { if grep -q "$1" "$tmp/crash.err"; then ok "serve logs: $1"; else bad "serve logs: $1"; fi; }
check_log "crash broker-2"
check_log "restart broker-2"
# The broker-side verdict: a pass. The values kafkajs wrote twice went out under new sequence
# numbers, so the brokers stored each of the producer's records once, as Kafka promises.
if [ -s "$tmp/run/summary.json" ] && [ -s "$tmp/run/history.jsonl" ] && [ -s "$tmp/run/report.html" ]; then ok "serve --out writes its files"; else bad "serve --out writes its files"; fi
if [ $serve_rc -eq 0 ] && grep -q '"verdict": "pass"' "$tmp/run/summary.json"; then ok "the broker-side verdict is a pass"; else bad "the broker-side verdict is a pass (exit $serve_rc)"; fi
if grep -q '"op":"send-ok"' "$tmp/run/history.jsonl" && grep -q '"op":"process"' "$tmp/run/history.jsonl" && grep -q '"note":"crash broker-2"' "$tmp/run/history.jsonl"; then
  ok "the history has the acknowledgements, the reads and the crash"
else
  bad "the history has the acknowledgements, the reads and the crash"
fi
# logsim check reads the history again (with every checker: a broker-side history's reads are
# deliveries, so it may say more than serve's verdict, but never less).
"$logsim" check "$tmp/run/history.jsonl" --json > "$tmp/check.json"
for a in $(grep -o '"anomaly": "[a-z-]*"' "$tmp/run/summary.json" | sort -u | cut -d'"' -f4); do
  if grep -q "\"anomaly\": \"$a\"" "$tmp/check.json"; then ok "logsim check finds $a again"; else bad "logsim check finds $a again"; fi
done
[ $crash_rc -eq 0 ] || { echo "--- serve stderr"; tail -30 "$tmp/crash.err"; }

# Transactions (txn_test.js) and what the broker-side history makes of them.
rm -f "$tmp/bootstrap"
"$logsim" serve "$root/scenarios/live/cluster.json" --listen 127.0.0.1:0 --bootstrap-file "$tmp/bootstrap" --duration 200s \
  --out "$tmp/txn" > /dev/null 2> "$tmp/txn.err" &
pid=$!
for _ in $(seq 1 200); do [ -s "$tmp/bootstrap" ] && break; sleep 0.1; done
(cd "$npm_dir" && timeout 150 node txn_test.js "$(cat "$tmp/bootstrap")")
txn_rc=$?
kill -TERM "$pid"; wait "$pid"; serve_rc=$?; pid=
tbad() { echo "FAIL $1"; txn_rc=1; }
if [ $serve_rc -eq 0 ] && grep -q '"verdict": "pass"' "$tmp/txn/summary.json"; then ok "the transactions' broker-side verdict is a pass"; else tbad "the transactions' broker-side verdict is a pass (exit $serve_rc)"; fi
h=$tmp/txn/history.jsonl
for op in txn-begin txn-commit-invoke txn-commit txn-abort; do
  if grep -q "\"op\":\"$op\".*\"process\":\"tx-payments@0\"\|\"process\":\"tx-payments@0\".*\"op\":\"$op\"" "$h"; then ok "the history has tx-payments' $op"; else tbad "the history has tx-payments' $op"; fi
done
if grep -q '"read_committed":true' "$h"; then ok "read_committed reads are marked so"; else tbad "read_committed reads are marked so"; fi
# logsim check judges the whole history (every checker) without an aborted or precommitted read.
"$logsim" check "$h" --json > "$tmp/txn-check.json"
if grep -q '"anomaly": "aborted-read"\|"anomaly": "precommitted-read"\|"anomaly": "zombie-write"' "$tmp/txn-check.json"; then tbad "logsim check finds no aborted, precommitted or zombie write"; else ok "logsim check finds no aborted, precommitted or zombie write"; fi
[ $txn_rc -eq 0 ] || { echo "--- serve stderr"; tail -30 "$tmp/txn.err"; }
[ $rc -eq 0 ] && [ $crash_rc -eq 0 ] && [ $txn_rc -eq 0 ]
