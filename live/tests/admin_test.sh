#!/usr/bin/env bash
# logsim serve carries out a scenario's topic and group admin steps in wall-clock time
# (scenarios/live/admin-steps.json) while kcat uses the cluster: at 0 s 'audit' is created, at 2 s
# 'orders' grows from 2 to 4 partitions; a group 'readers' reads orders and leaves; at 12 s the
# group is reset to the earliest offsets, and when it joins again it reads everything again.
# Then the steps' outcomes in the broker-side history. Every wait is bounded; the server is
# stopped by its process id.
# Usage: admin_test.sh LOGSIM SOURCE_ROOT
set -u
logsim=$1 root=$2
command -v kcat >/dev/null || { echo "kcat is not installed (scripts/install-deps installs it)"; exit 1; }
source "$(dirname "$0")/serve_lib.sh"
serve_start serve "$root/scenarios/live/admin-steps.json" --duration 90s --out "$tmp/run" || finish
armed=$(date +%s.%N)  # the timeline runs from about now
since() { python3 -c "import sys; print(float(sys.argv[1]) - float(sys.argv[2]))" "$(date +%s.%N)" "$armed"; }
wait_until() { while python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) else 1)" "$(since)" "$1"; do sleep 0.1; done; }

# Before the steps: 20 records on orders' 2 partitions, read by group readers, which then leaves.
seq 1 20 | sed 's/^/k&:v&/' | timeout 20 kcat -b "$bs" -P -t orders -K: -X topic.request.required.acks=-1 2> "$tmp/produce.err" \
  && ok "kcat -P writes 20 records" || bad "kcat -P writes 20 records"
timeout 20 kcat -b "$bs" -G readers -X auto.offset.reset=earliest -c 20 -f '%s\n' orders > "$tmp/first" 2> "$tmp/first.err"
[ "$(sort -u "$tmp/first" | wc -l)" -eq 20 ] && ok "group readers reads the 20 records" || bad "group readers reads the 20 records ($(wc -l < "$tmp/first"))"

# From 2 s: the new topic and the grown one (asked again for up to 15 s more: a loaded machine).
partitions() { python3 -c '
import json, sys
for t in json.load(open(sys.argv[1]))["topics"]:
    if t["topic"] == sys.argv[2]: print(len(t["partitions"]))' "$tmp/metadata.json" "$1" 2>/dev/null; }
wait_until 2.5
for _ in $(seq 1 50); do
  timeout 20 kcat -b "$bs" -L -J > "$tmp/metadata.json" 2> "$tmp/metadata.err"
  [ "$(partitions audit)" = 3 ] && [ "$(partitions orders)" = 4 ] && break
  sleep 0.3
done
[ "$(partitions audit)" = 3 ] && ok "create-topic: audit has 3 partitions" || bad "create-topic: audit has 3 partitions ($(partitions audit))"
[ "$(partitions orders)" = 4 ] && ok "add-partitions: orders has 4 partitions" || bad "add-partitions: orders has 4 partitions ($(partitions orders))"

# After 12 s: the reset; the group reads everything again (without it, nothing: its offsets are at the end).
wait_until 13
timeout 20 kcat -b "$bs" -G readers -X auto.offset.reset=latest -c 20 -f '%s\n' orders > "$tmp/again" 2> "$tmp/again.err"
[ "$(sort -u "$tmp/again" | wc -l)" -eq 20 ] && ok "reset-offsets to-earliest: the group reads the 20 records again" \
  || bad "reset-offsets to-earliest: the group reads the 20 records again ($(wc -l < "$tmp/again"))"

serve_stop
h=$tmp/run/history.jsonl
for note in "create-topic audit cleanup.policy=compact" "add-partitions orders to 4 partitions: done" \
            "alter-config orders retention.ms=600000: done" "reset-offsets readers to-earliest orders: executed"; do
  grep '"op":"admin"' "$h" | grep -q "$note" && ok "the history records: $note" || bad "the history records: $note"
done
[ "$(grep '"op":"seek"' "$h" | grep -c '"group":"readers"')" -eq 4 ] && ok "the reset's four seeks are in the history" \
  || bad "the reset's four seeks are in the history"
if [ $serve_rc -eq 0 ] && grep -q '"verdict": "pass"' "$tmp/run/summary.json"; then ok "the broker-side verdict is a pass"; else bad "the broker-side verdict is a pass (exit $serve_rc)"; fi
[ $fails -eq 0 ] || { echo "--- serve stderr"; tail -30 "$tmp/serve.err"; tail -5 "$tmp"/*.err; }
finish
