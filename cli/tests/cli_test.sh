#!/usr/bin/env bash
# End-to-end tests of the logsim command line as a user runs it: exit codes, the summary,
# summary.json, reproducibility, and the errors for bad input.
# Usage: cli_test.sh LOGSIM_BINARY REPO_ROOT
set -u
logsim=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
pass=0
check() {  # check NAME CONDITION...
  local name=$1; shift
  if "$@"; then pass=$((pass + 1)); else echo "FAIL: $name"; failures=$((failures + 1)); fi
}

# The quick start: exit 0, a verdict, a trace hash, and the same hash twice.
out1=$("$logsim" run "$root/scenarios/quickstart.json" --seed 7); rc=$?
check "quickstart exits 0" test $rc -eq 0
check "quickstart prints PASS" grep -q "verdict    PASS" <<<"$out1"
hash1=$(grep -oE 'trace      [0-9a-f]{16}' <<<"$out1")
out2=$("$logsim" run "$root/scenarios/quickstart.json" --seed 7)
hash2=$(grep -oE 'trace      [0-9a-f]{16}' <<<"$out2")
check "same seed prints the same trace hash" test -n "$hash1" -a "$hash1" = "$hash2"
out3=$("$logsim" run "$root/scenarios/quickstart.json" --seed 8)
hash3=$(grep -oE 'trace      [0-9a-f]{16}' <<<"$out3")
check "another seed prints another trace hash" test "$hash1" != "$hash3"

# --check-determinism and --out.
"$logsim" run "$root/scenarios/quickstart.json" --seed 7 --check-determinism --out "$tmp/o" --trace --quiet; rc=$?
check "check-determinism exits 0" test $rc -eq 0
check "summary.json written" test -s "$tmp/o/summary.json"
check "trace.jsonl written" test -s "$tmp/o/trace.jsonl"
check "summary.json has the verdict" grep -q '"verdict": "pass"' "$tmp/o/summary.json"
check "summary.json has the seed" grep -q '"seed": 7' "$tmp/o/summary.json"
check "summary.json has the printed hash" grep -q "\"trace_hash\": \"${hash1#trace      }\"" "$tmp/o/summary.json"
check "no temporary files left" test -z "$(ls "$tmp/o" | grep tmp)"
json=$("$logsim" run "$root/scenarios/quickstart.json" --seed 7 --json)
check "--json prints summary.json" grep -q '"version": 1' <<<"$json"

# Bad input: exit 2, the file, the JSON pointer, and what is expected; nothing written.
printf '{"name": "x", "topics": [{"name": "t"}], "producers": [{"name": "p", "topic": "t", "config": {"ack": 1}}]}' > "$tmp/bad.json"
err=$("$logsim" run "$tmp/bad.json" --out "$tmp/bad-out" 2>&1); rc=$?
check "bad scenario exits 2" test $rc -eq 2
check "bad scenario names file and pointer" grep -q "bad.json: /producers/0/config/ack: unknown key \"ack\"" <<<"$err"
check "bad scenario suggests the right key" grep -q 'did you mean "acks"' <<<"$err"
check "bad scenario writes no report" test ! -e "$tmp/bad-out/summary.json"
printf '{"name": ' > "$tmp/trunc.json"
"$logsim" run "$tmp/trunc.json" >/dev/null 2>&1; rc=$?
check "truncated JSON exits 2" test $rc -eq 2
"$logsim" run "$tmp/missing.json" >/dev/null 2>&1; rc=$?
check "missing file exits 2" test $rc -eq 2
"$logsim" run >/dev/null 2>&1; rc=$?
check "missing argument exits 2" test $rc -eq 2
"$logsim" frobnicate >/dev/null 2>&1; rc=$?
check "unknown subcommand exits 2" test $rc -eq 2
"$logsim" run "$root/scenarios/quickstart.json" --seed notanumber >/dev/null 2>&1; rc=$?
check "bad seed exits 2" test $rc -eq 2

# history.jsonl: written with --out, checked again by logsim check with the same verdict.
"$logsim" run "$root/scenarios/acks-1-leader-failover.json" --out "$tmp/h" --quiet; rc=$?
check "history.jsonl written" test -s "$tmp/h/history.jsonl"
"$logsim" check "$tmp/h/history.jsonl" > "$tmp/h/check.txt"; rc=$?
check "check of a violated history exits 1" test $rc -eq 1
check "check names the anomaly" grep -q "VIOLATION  lost-write" "$tmp/h/check.txt"
"$logsim" run "$root/scenarios/quickstart.json" --history "$tmp/q.jsonl" --quiet
"$logsim" check "$tmp/q.jsonl" --json > "$tmp/q.json"; rc=$?
check "check of a clean history exits 0" test $rc -eq 0
check "check --json prints the verdict" grep -q '"verdict": "pass"' "$tmp/q.json"
printf '{"at_ns": 1, "op": "sned-ok"}\n' > "$tmp/bad.jsonl"
err=$("$logsim" check "$tmp/bad.jsonl" 2>&1); rc=$?
check "bad history exits 2" test $rc -eq 2
check "bad history names file and line" grep -q "bad.jsonl:1: unknown op" <<<"$err"

# The partitioner command agrees with Kafka: murmur2("foobar") = -790332482.
p=$("$logsim" partition foobar --partitions 1000)
check "partition foobar" test "$p" = $(( (-790332482 & 0x7fffffff) % 1000 ))

echo "$pass passed, $failures failed"
test $failures -eq 0
