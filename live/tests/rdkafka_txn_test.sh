#!/usr/bin/env bash
# logsim serve against librdkafka 2.0.2's transactional producer and read_committed consumer
# (rdkafka_txn_client), then the broker-side history of it: the transactions of rd-tx, the
# read_committed reads marked, and no aborted or precommitted read.
# Every wait is bounded; the server is stopped by its process id.
# Usage: rdkafka_txn_test.sh LOGSIM CLIENT
set -u
logsim=$1 client=$2
source "$(dirname "$0")/serve_lib.sh"
cat > "$tmp/cluster.json" <<'JSON'
{"name": "rdkafka-txn", "cluster": {"brokers": 3, "config": {"default.replication.factor": 3, "min.insync.replicas": 2,
  "offsets.topic.replication.factor": 3, "transaction.state.log.replication.factor": 3, "group.initial.rebalance.delay.ms": 0}},
 "topics": [{"name": "rdtx", "partitions": 2, "replication_factor": 3}]}
JSON
serve_start serve "$tmp/cluster.json" --duration 150s --out "$tmp/run" || finish
timeout 120 "$client" "$bs" rdtx
rc=$?
[ $rc -eq 0 ] || bad "the transactional client's checks (exit $rc)"
serve_stop
if [ $serve_rc -eq 0 ] && grep -q '"verdict": "pass"' "$tmp/run/summary.json"; then ok "the broker-side verdict is a pass"; else bad "the broker-side verdict is a pass (exit $serve_rc)"; fi
h=$tmp/run/history.jsonl
for op in txn-begin txn-commit-invoke txn-commit txn-abort; do
  if grep "\"op\":\"$op\"" "$h" | grep -q '"process":"rd-tx@'; then ok "the history has rd-tx's $op"; else bad "the history has rd-tx's $op"; fi
done
if [ "$(grep -c '"op":"txn-commit"' "$h")" -eq 3 ] && [ "$(grep -c '"op":"txn-abort"' "$h")" -eq 1 ]; then ok "three commits and an abort"; else bad "three commits and an abort"; fi
if grep -q '"read_committed":true' "$h"; then ok "read_committed reads are marked so"; else bad "read_committed reads are marked so"; fi
"$logsim" check "$h" --json > "$tmp/check.json"
if grep -q '"anomaly": "aborted-read"\|"anomaly": "precommitted-read"' "$tmp/check.json"; then bad "logsim check finds no aborted or precommitted read"; else ok "logsim check finds no aborted or precommitted read"; fi
[ $fails -eq 0 ] || { echo "--- serve stderr"; tail -30 "$tmp/serve.err"; }
finish
