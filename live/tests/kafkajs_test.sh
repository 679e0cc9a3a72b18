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
source "$(dirname "$0")/serve_lib.sh"
serve_start serve "$root/scenarios/live/cluster.json" --duration 300s || finish
(cd "$npm_dir" && timeout 270 node live_test.js "$bs" "$logsim")
rc=$?
[ $rc -eq 0 ] || { bad "live_test.js (exit $rc)"; echo "--- serve stderr"; tail -30 "$tmp/serve.err"; }
serve_stop

# A broker crash in the middle of an idempotent acks=-1 producer (scenarios/live/broker-crash.json).
serve_start crash "$root/scenarios/live/broker-crash.json" --duration 200s --out "$tmp/run" || finish
before=$fails
(cd "$npm_dir" && timeout 150 node crash_test.js "$bs" "$logsim") | tee "$tmp/crash.out"
crash_rc=${PIPESTATUS[0]}
[ $crash_rc -eq 0 ] || bad "crash_test.js (exit $crash_rc)"
serve_stop
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
[ $fails -eq $before ] || { echo "--- serve stderr"; tail -30 "$tmp/crash.err"; }

# Transactions (txn_test.js) and what the broker-side history makes of them.
serve_start txn "$root/scenarios/live/cluster.json" --duration 200s --out "$tmp/txn" || finish
before=$fails
(cd "$npm_dir" && timeout 150 node txn_test.js "$bs")
txn_rc=$?
[ $txn_rc -eq 0 ] || bad "txn_test.js (exit $txn_rc)"
serve_stop
if [ $serve_rc -eq 0 ] && grep -q '"verdict": "pass"' "$tmp/txn/summary.json"; then ok "the transactions' broker-side verdict is a pass"; else bad "the transactions' broker-side verdict is a pass (exit $serve_rc)"; fi
h=$tmp/txn/history.jsonl
for op in txn-begin txn-commit-invoke txn-commit txn-abort; do
  if grep -q "\"op\":\"$op\".*\"process\":\"tx-payments@0\"\|\"process\":\"tx-payments@0\".*\"op\":\"$op\"" "$h"; then ok "the history has tx-payments' $op"; else bad "the history has tx-payments' $op"; fi
done
if grep -q '"read_committed":true' "$h"; then ok "read_committed reads are marked so"; else bad "read_committed reads are marked so"; fi
# logsim check judges the whole history (every checker) without an aborted or precommitted read.
"$logsim" check "$h" --json > "$tmp/txn-check.json"
if grep -q '"anomaly": "aborted-read"\|"anomaly": "precommitted-read"\|"anomaly": "zombie-write"' "$tmp/txn-check.json"; then bad "logsim check finds no aborted, precommitted or zombie write"; else ok "logsim check finds no aborted, precommitted or zombie write"; fi
[ $fails -eq $before ] || { echo "--- serve stderr"; tail -30 "$tmp/txn.err"; }
finish
