#!/usr/bin/env bash
# logsim serve against a real librdkafka client (kcat 1.7.1, librdkafka 2.0.2): the cluster's
# metadata, keyed produce onto an auto-created topic, and a consume from the beginning that
# returns every record, each on the partition Kafka's partitioner picks for its key.
# Every wait is bounded (timeout, counted loops); the server is stopped by its process id.
# Usage: kcat_test.sh LOGSIM SOURCE_ROOT
set -u
logsim=$1
root=$2
source "$(dirname "$0")/serve_lib.sh"
command -v kcat >/dev/null || { echo "kcat is not installed (scripts/install-deps installs it)"; exit 1; }

serve_start main --brokers 3 --num-partitions 4 --duration 90s --out "$tmp/main-run" || finish
check "serve prints the bootstrap line" grep -qx "bootstrap $bs" "$tmp/main.out"
check "the brokers listen on loopback" grep -qE '^127\.0\.0\.1:[0-9]+,127\.0\.0\.1:[0-9]+,127\.0\.0\.1:[0-9]+$' "$tmp/main.bootstrap"

# Metadata (kcat -L): three brokers, each at the address it listens on.
timeout 20 kcat -b "$bs" -L -J > "$tmp/metadata.json" 2> "$tmp/metadata.err"
check "kcat -L answers" test -s "$tmp/metadata.json"
check "kcat -L sees 3 brokers" python3 -c '
import json, sys
md = json.load(open(sys.argv[1]))
brokers = sorted(f"{b['"'"'name'"'"']}" for b in md["brokers"])
expected = sorted(sys.argv[2].split(","))
sys.exit(0 if brokers == expected else 1)' "$tmp/metadata.json" "$bs"

# Produce 200 keyed records (auto-creating the topic with 4 partitions) with Kafka's murmur2.
for i in $(seq 1 200); do echo "key-$((i % 17)):value-$i"; done > "$tmp/records"
timeout 30 kcat -b "$bs" -P -t orders -K: -X partitioner=murmur2_random -X topic.request.required.acks=-1 \
  -l "$tmp/records" 2> "$tmp/produce.err"
check "kcat -P exits 0" test $? -eq 0

# Consume everything from the beginning, then stop at the end (-e).
timeout 30 kcat -b "$bs" -C -t orders -o beginning -e -f '%k %s %p %o\n' > "$tmp/consumed" 2> "$tmp/consume.err"
check "kcat -C exits 0" test $? -eq 0
check "every record comes back" test "$(wc -l < "$tmp/consumed")" -eq 200
check "no record twice, none lost" test "$(cut -d' ' -f2 "$tmp/consumed" | sort -u | wc -l)" -eq 200
check "offsets per partition count from 0 without a gap" python3 -c '
import sys, collections
by = collections.defaultdict(list)
for line in open(sys.argv[1]):
    k, v, p, o = line.split()
    by[p].append(int(o))
sys.exit(0 if all(sorted(os) == list(range(len(os))) for os in by.values()) and len(by) > 1 else 1)' "$tmp/consumed"
wrong=0
while read -r key _ partition _; do
  want=$("$logsim" partition "$key" --partitions 4)
  [ "$want" = "$partition" ] || wrong=$((wrong + 1))
done < <(sort -u -k1,1 "$tmp/consumed")
check "each key is on murmur2's partition" test "$wrong" -eq 0

# A topic read again by a second consumer from an offset (-o 5 on partition 0).
timeout 30 kcat -b "$bs" -C -t orders -p 0 -o 5 -e -f '%o\n' > "$tmp/again" 2>/dev/null
first=$(head -1 "$tmp/again")
check "a consumer starts at the offset it asks for" test "$first" = "5"

kill -TERM "$pid"
for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
check "serve stops on SIGTERM" bash -c "! kill -0 $pid 2>/dev/null"
serve_stop
check "serve exits 0 after SIGTERM (the verdict: a pass)" test $serve_rc -eq 0
check "kcat, which follows its leaders, is no client finding" bash -c "! grep -q FINDING '$tmp/main.err'"
# summary.json counts the history's events by kind: each record acknowledged once, served at
# least once (the second consumer read partition 0 again from offset 5).
check "summary.json counts 200 send-ok and at least 200 process events" python3 -c '
import json, sys
stats = json.load(open(sys.argv[1]))["stats"]
sys.exit(0 if stats.get("history.send-ok") == 200 and stats.get("history.process", 0) >= 200 else 1)' "$tmp/main-run/summary.json"
# --data: the logs outlive the process. Write, stop, serve again on the same directory, read back.
data="$tmp/data"
serve_start data1 --brokers 1 --data "$data" --duration 60s || finish
seq 1 50 | sed 's/^/kept-/' | timeout 30 kcat -b "$bs" -P -t kept -X topic.request.required.acks=-1 2> "$tmp/data-produce.err"
serve_stop
check "--data leaves the brokers' logs on disk" test -n "$(ls -A "$data/broker-1" 2>/dev/null)"
serve_start data2 --brokers 1 --data "$data" --duration 60s || finish
timeout 30 kcat -b "$bs" -C -t kept -o beginning -e -f '%s\n' > "$tmp/kept" 2> "$tmp/data-consume.err"
check "a second serve on the same --data serves every record again" test "$(sort -u "$tmp/kept" | wc -l)" -eq 50
serve_stop

# Client faults (scenarios/live/flaky-clients.json): injected NOT_LEADER_OR_FOLLOWER answers,
# delays and connection resets; librdkafka retries and every record still arrives.
serve_start flaky "$root/scenarios/live/flaky-clients.json" --duration 90s || finish
seq 1 300 | sed 's/^/flaky-/' > "$tmp/flaky-in"
timeout 60 kcat -b "$bs" -P -t flaky -X topic.request.required.acks=-1 -X message.send.max.retries=100 \
  -l "$tmp/flaky-in" 2> "$tmp/flaky-produce.err"
timeout 60 kcat -b "$bs" -C -t flaky -o beginning -e -f '%s\n' > "$tmp/flaky-out" 2> "$tmp/flaky-consume.err"
serve_stop
check "every record arrives through the client faults" test "$(sort -u "$tmp/flaky-out" | wc -l)" -eq 300
faults=$(grep -o 'client faults: .*' "$tmp/flaky.err")
check "errors were injected" grep -qE '[1-9][0-9]* errors injected' <<<"$faults"
check "connections were reset" grep -qE '[1-9][0-9]* connections reset' <<<"$faults"
check "answers were delayed" grep -qE '[1-9][0-9]* answers delayed' <<<"$faults"

# The network between brokers and their clocks (scenarios/live/slow-broker-links.json): every
# link between brokers takes 150 ms and duplicates one message in twenty, two brokers' clocks
# are off. Nothing is lost, and an acks=all produce waits for at least two crossings (300 ms).
serve_start slow "$root/scenarios/live/slow-broker-links.json" --duration 90s || finish
seq 1 100 | sed 's/^/slow-/' > "$tmp/slow-in"
timeout 60 kcat -b "$bs" -P -t slow -X topic.request.required.acks=-1 -X message.send.max.retries=100 \
  -l "$tmp/slow-in" 2> "$tmp/slow-produce.err"
start=$(date +%s%N)
echo one-more | timeout 60 kcat -b "$bs" -P -t slow -X topic.request.required.acks=-1 2>> "$tmp/slow-produce.err"
took_ms=$((($(date +%s%N) - start) / 1000000))
timeout 60 kcat -b "$bs" -C -t slow -o beginning -e -f '%s\n' > "$tmp/slow-out" 2> "$tmp/slow-consume.err"
serve_stop
check "every record arrives over the slow, duplicating links" test "$(sort -u "$tmp/slow-out" | wc -l)" -eq 101
check "an acks=all produce waited for replication over the slow links ($took_ms ms >= 300)" test "$took_ms" -ge 300
check "serve applied set-network and clock-skew" grep -qE 'set-network \(every link between brokers\): latency 150ms' "$tmp/slow.err"
check "... and both clocks" test "$(grep -cE 'clock-skew broker-[23] offset' "$tmp/slow.err")" -eq 2
check "... and its verdict is a pass" test $serve_rc -eq 0

# A client that keeps sending a partition to a broker it was told does not lead it
# (python/misdirected_producer.py, raw protocol: 12 Produce requests 0.5 s apart) is named among
# serve's client findings, in its log and summary.json; the verdict stays a pass.
serve_start stray --brokers 3 --num-partitions 2 --duration 90s --out "$tmp/stray-run" || finish
timeout 60 /usr/bin/python3 "$root/live/tests/python/misdirected_producer.py" "$bs" stray 12 0.5 > "$tmp/stray-client.out" 2>&1
check "every misdirected Produce is answered NOT_LEADER_OR_FOLLOWER" test $? -eq 0
serve_stop
check "serve names the misdirected client" grep -qE 'FINDING +client misdirected sent stray-0 to broker-[123] 12 times' "$tmp/stray.err"
check "... in summary.json" grep -q '"client misdirected sent stray-0 to broker-' "$tmp/stray-run/summary.json"
check "... and a finding is not a violation" test $serve_rc -eq 0

# Bad input: exit 2 with a message, nothing started.
err=$("$logsim" serve --listen 10.1.2.3:9092 2>&1); rc=$?
check "a non-loopback --listen needs --allow-remote (exit 2)" test $rc -eq 2
check "and says why" grep -q "allow-remote" <<<"$err"
err=$("$logsim" serve --listen 127.0.0.1:notaport 2>&1); rc=$?
check "a bad port exits 2" test $rc -eq 2

if [ $fails -ne 0 ]; then
  echo "--- serve stderr"; tail -40 "$tmp/main.err"
  echo "--- kcat stderr"; cat "$tmp"/*.err 2>/dev/null | tail -20
fi
finish
