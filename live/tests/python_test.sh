#!/usr/bin/env bash
# logsim serve against confluent-kafka-python (Debian's python3-confluent-kafka, librdkafka
# underneath) while scenarios/live/broker-crash.json crashes and restarts broker-2
# (python/client_test.py); then the broker-side verdict and history of it.
# Every wait is bounded; the server is stopped by its process id.
# Usage: python_test.sh LOGSIM SOURCE_ROOT
set -u
logsim=$1 root=$2
# Debian's module is for Debian's python3, not for another python3 first on PATH (pyenv, venvs).
py=/usr/bin/python3
if ! "$py" -c 'import confluent_kafka' 2>/dev/null; then
  echo "FAIL $py cannot import confluent_kafka (scripts/install-deps installs python3-confluent-kafka)"
  exit 1
fi
source "$(dirname "$0")/serve_lib.sh"
serve_start serve "$root/scenarios/live/broker-crash.json" --duration 200s --out "$tmp/run" || finish
# Meanwhile, broker-2's port: listening, refusing connections while it is crashed (5 s to 10 s
# after start), then listening again. 160 probes, 0.1 s apart.
port2=$(cut -d, -f2 <<<"$bs" | cut -d: -f2)
(for _ in $(seq 1 160); do
   if timeout 1 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port2" 2>/dev/null; then echo up; else echo refused; fi
   sleep 0.1
 done > "$tmp/probes") &
probe_pid=$!
timeout 170 "$py" "$root/live/tests/python/client_test.py" "$bs" | tee "$tmp/client.out"
rc=${PIPESTATUS[0]}
wait "$probe_pid"
if [ $rc -eq 124 ]; then bad "the client did not finish in 170 s"; elif [ $rc -ne 0 ]; then bad "the client's checks (exit $rc)"; fi
serve_stop
for line in "crash broker-2" "restart broker-2"; do
  if grep -q "$line" "$tmp/serve.err"; then ok "serve logs: $line"; else bad "serve logs: $line"; fi
done
if [ "$(uniq "$tmp/probes" | tr '\n' ' ')" = "up refused up " ]; then ok "broker-2's port refuses connections while it is crashed, and only then"
else bad "broker-2's port refuses connections while it is crashed, and only then: $(uniq -c "$tmp/probes" | tr '\n' ' ')"; fi
if [ $serve_rc -eq 0 ] && grep -q '"verdict": "pass"' "$tmp/run/summary.json"; then ok "the broker-side verdict is a pass"; else bad "the broker-side verdict is a pass (exit $serve_rc)"; fi
# When librdkafka got stuck sending a partition to the broker that led it before the crash (the
# client's note: see client_test.py), serve names it among its client findings.
if grep -q '^note librdkafka kept' "$tmp/client.out"; then
  if grep -q '"findings"' "$tmp/run/summary.json" && grep -q 'client py-payments sent payments-[0-3] to broker-' "$tmp/run/summary.json"; then
    ok "serve names the stuck producer among its client findings"
  else bad "serve names the stuck producer among its client findings"; fi
fi
h=$tmp/run/history.jsonl
# Each of the 400 values acknowledged to the producer (its value ids: an idempotent producer's
# records are identified by partition, producer id, epoch and sequence).
acked=$(grep '"op":"send-ok"' "$h" | grep '"process":"py-payments"' | grep -o '"value_id":[0-9]*' | sort -u | wc -l)
if [ "$acked" -ge 400 ]; then ok "the history has the producer's 400 acknowledgements ($acked)"; else bad "the history has the producer's 400 acknowledgements ($acked)"; fi
if grep '"op":"commit-ok"' "$h" | grep -q '"group":"py-readers"'; then ok "the history has the group's accepted commits"; else bad "the history has the group's accepted commits"; fi
# Both readers' assignments from SyncGroup, each an assign event of its member id.
members=$(grep '"op":"assign"' "$h" | grep '"group":"py-readers"' | grep -o '"process":"py-reader-[12]-[^"]*"' | sort -u | wc -l)
if [ "$members" -ge 2 ]; then
  ok "the history has the group's rebalances (both members' assignments, by member id)"
else bad "the history has the group's rebalances (both members' assignments, by member id: $members)"; fi
# Records served to the group's readers (each its own client.id) name the member they were
# served to, and only the member of the reader's client.id. (Not both members: the first to
# join may be served everything before the second one's join moves partitions to it.)
named=$(grep '"op":"process"' "$h" | grep -c '"note":"served to member py-reader-[12]-[^"]* of group py-readers, generation [0-9]*"')
crossed=$(grep '"op":"process"' "$h" | grep -E '"process":"py-reader-1#[^"]*".*member py-reader-2-|"process":"py-reader-2#[^"]*".*member py-reader-1-|member py-reader-2-.*"process":"py-reader-1#|member py-reader-1-.*"process":"py-reader-2#' | wc -l)
if [ "$named" -gt 0 ] && [ "$crossed" -eq 0 ]; then ok "records served to the group's members name the member ($named records)"
else bad "records served to the group's members name the member ($named named, $crossed to another client's member)"; fi
if "$logsim" check "$h" > "$tmp/check.out" 2>&1; then ok "logsim check of the history passes"; else bad "logsim check of the history passes"; cat "$tmp/check.out"; fi
[ $fails -eq 0 ] || { echo "--- serve stderr"; tail -30 "$tmp/serve.err"; }
finish
