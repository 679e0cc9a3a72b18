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
check "junit.xml written" grep -q '<testcase classname="logsim.quickstart" name="quickstart seed 7"' "$tmp/o/junit.xml"
check "junit.xml matches the JUnit schema" xmllint --noout --schema "$root/reports/junit.xsd" "$tmp/o/junit.xml"
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

# An engine invariant that breaks (here a latency above the network's bound, which the loader lets
# through): exit 70 and a reproduce line with the seed the run used, the scenario's own (7) when no
# --seed was given, and the plants; that line, run as printed, breaks the same invariant.
printf '{"name": "invariant", "seed": 7, "duration": "1s", "cluster": {"brokers": 1, "network": {"latency_mean": "2h"}}, "topics": [{"name": "t"}]}' > "$tmp/invariant.json"
err=$("$logsim" run "$tmp/invariant.json" --plant accept-stale-commit 2>&1); rc=$?
check "a broken invariant exits 70" test $rc -eq 70
check "a broken invariant says so" grep -q "INTERNAL ERROR" <<<"$err"
check "the reproduce line has the scenario's seed and the plant" grep -qxF "  reproduce: logsim run $tmp/invariant.json --seed 7 --plant accept-stale-commit" <<<"$err"
again=$(grep -oE 'reproduce: logsim run .*' <<<"$err" | sed 's/^reproduce: logsim //')
(eval "\"\$logsim\" $again" >/dev/null 2>&1); rc=$?
check "the reproduce line breaks the invariant again" test $rc -eq 70
err=$("$logsim" run "$tmp/invariant.json" --seed 12 2>&1)
check "with --seed the reproduce line has that seed" grep -qxF "  reproduce: logsim run $tmp/invariant.json --seed 12" <<<"$err"

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
# int-send-skip: measured by default, a violation with --write-isolation. Two successive sends of
# one transaction to orders/0 with another producer's record between them.
cat > "$tmp/skip.jsonl" <<'JSONL'
{"at_ns": 1, "op": "txn-begin", "process": "shop", "key": "tx"}
{"at_ns": 2, "op": "send-invoke", "process": "shop", "topic": "orders", "value_id": 1}
{"at_ns": 3, "op": "send-ok", "process": "shop", "topic": "orders", "partition": 0, "offset": 0, "value_id": 1}
{"at_ns": 4, "op": "send-invoke", "process": "other", "topic": "orders", "value_id": 2}
{"at_ns": 5, "op": "send-ok", "process": "other", "topic": "orders", "partition": 0, "offset": 1, "value_id": 2}
{"at_ns": 6, "op": "send-invoke", "process": "shop", "topic": "orders", "value_id": 3}
{"at_ns": 7, "op": "send-ok", "process": "shop", "topic": "orders", "partition": 0, "offset": 2, "value_id": 3}
{"at_ns": 8, "op": "txn-commit", "process": "shop"}
JSONL
out=$("$logsim" check "$tmp/skip.jsonl"); rc=$?
check "int-send-skip is only counted by default" test $rc -eq 0
check "int-send-skip.count is a figure" grep -q "int-send-skip.count = 1" <<<"$out"
out=$("$logsim" check "$tmp/skip.jsonl" --write-isolation); rc=$?
check "--write-isolation makes int-send-skip a violation" test $rc -eq 1
check "--write-isolation names it" grep -q "VIOLATION  int-send-skip" <<<"$out"
printf '{"at_ns": 1, "op": "sned-ok"}\n' > "$tmp/bad.jsonl"
err=$("$logsim" check "$tmp/bad.jsonl" 2>&1); rc=$?
check "bad history exits 2" test $rc -eq 2
check "bad history names file and line" grep -q "bad.jsonl:1: unknown op" <<<"$err"
check "check --json says the clean history was judged" grep -q '"judged": true' "$tmp/q.json"
# An empty history, or one with nothing to judge, is not a pass: exit 2 and say why.
: > "$tmp/empty.jsonl"
out=$("$logsim" check "$tmp/empty.jsonl" 2>&1); rc=$?
check "empty history exits 2" test $rc -eq 2
check "empty history is named as holding no events" grep -q "empty.jsonl holds no events: nothing to judge" <<<"$out"
printf '\n  \r\n\n' > "$tmp/blank.jsonl"
"$logsim" check "$tmp/blank.jsonl" 2>/dev/null; rc=$?
check "history of blank lines exits 2" test $rc -eq 2
printf '{"at_ns": 1, "op": "fault", "note": "crash broker-1"}\n{"at_ns": 2, "op": "send-invoke", "process": "p", "topic": "t", "value_id": 1}\n' > "$tmp/idle.jsonl"
out=$("$logsim" check "$tmp/idle.jsonl"); rc=$?
check "history with nothing to judge exits 2" test $rc -eq 2
check "history with nothing to judge prints its verdict" grep -q "verdict    PASS" <<<"$out"
check "history with nothing to judge says so" grep -q "nothing to judge: no acknowledged sends" <<<"$out"
out=$("$logsim" check "$tmp/idle.jsonl" --json); rc=$?
check "history with nothing to judge exits 2 with --json" test $rc -eq 2
check "check --json says nothing was judged" grep -q '"judged": false' <<<"$out"

# A compacted topic: value 1 (key a) at offset 0 was superseded by value 3 (key a) at offset 2
# before the reader, positioned at 0, passed it. Only a compacted topic excuses the gap.
cat > "$tmp/compacted.jsonl" <<'JSONL'
{"at_ns":1,"op":"send-invoke","process":"p","topic":"t","key":"a","value_id":1}
{"at_ns":2,"op":"send-ok","process":"p","topic":"t","partition":0,"offset":0,"key":"a","value_id":1}
{"at_ns":3,"op":"send-invoke","process":"p","topic":"t","key":"b","value_id":2}
{"at_ns":4,"op":"send-ok","process":"p","topic":"t","partition":0,"offset":1,"key":"b","value_id":2}
{"at_ns":5,"op":"send-invoke","process":"p","topic":"t","key":"a","value_id":3}
{"at_ns":6,"op":"send-ok","process":"p","topic":"t","partition":0,"offset":2,"key":"a","value_id":3}
{"at_ns":7,"op":"seek","process":"c","topic":"t","partition":0,"offset":0,"note":"seekToBeginning"}
{"at_ns":8,"op":"process","process":"c","topic":"t","partition":0,"offset":1,"key":"b","value_id":2}
{"at_ns":9,"op":"process","process":"c","topic":"t","partition":0,"offset":2,"key":"a","value_id":3}
JSONL
out=$("$logsim" check "$tmp/compacted.jsonl"); rc=$?
check "check: a gap on a topic not known to be compacted is a lost-write" test $rc -eq 1
check "check: ... named" grep -q "lost-write" <<<"$out"
"$logsim" check "$tmp/compacted.jsonl" --compacted other,t > /dev/null; rc=$?
check "check --compacted t: compaction explains the gap" test $rc -eq 0
"$logsim" check "$tmp/compacted.jsonl" --any-compacted > /dev/null; rc=$?
check "check --any-compacted: so does any topic" test $rc -eq 0
{ echo '{"at_ns":0,"op":"admin","process":"admin","topic":"t","error":"NONE","note":"create-topic t cleanup.policy=compact: done"}'; cat "$tmp/compacted.jsonl"; } > "$tmp/compacted2.jsonl"
"$logsim" check "$tmp/compacted2.jsonl" > /dev/null; rc=$?
check "check: the history's own create-topic note says the topic is compacted" test $rc -eq 0

# The partitioner command agrees with Kafka: murmur2("foobar") = -790332482.
p=$("$logsim" partition foobar --partitions 1000)
check "partition foobar" test "$p" = $(( (-790332482 & 0x7fffffff) % 1000 ))

# logsim fuzz: a planted bug is found, shrunk and written as a scenario file; logsim run
# reproduces it and logsim replay confirms its trace hash; without the bug nothing is found.
tmpl="$root/scenarios/templates/zombie-members.json"
out=$(cd "$tmp" && "$logsim" fuzz "$tmpl" --plant accept-stale-commit --faults member-pause,member-crash --seeds 30 --shrink-runs 20 2>/dev/null); rc=$?
check "fuzz with a planted bug exits 1" test $rc -eq 1
check "fuzz names the anomaly" grep -q "FAILURE      seed [0-9]*: stale-commit-accepted" <<<"$out"
saved=$(grep -oE 'scenario     [^ ]+' <<<"$out" | awk '{print $2}')
check "fuzz writes the shrunk scenario" test -s "$tmp/$saved"
check "fuzz writes its report" test -s "$tmp/${saved%.json}/summary.json"
check "fuzz writes report.html" test -s "$tmp/${saved%.json}/report.html"
check "the saved scenario carries its plant" grep -q '"accept-stale-commit"' "$tmp/$saved"
check "fuzz writes junit.xml for the failure" grep -q '<failure type="stale-commit-accepted"' "$tmp/${saved%.json}/junit.xml"
check "the failing junit.xml matches the JUnit schema" xmllint --noout --schema "$root/reports/junit.xsd" "$tmp/${saved%.json}/junit.xml"
"$logsim" run "$tmp/$saved" --quiet; rc=$?
check "logsim run reproduces the failure" test $rc -eq 1
out=$("$logsim" replay "$tmp/$saved"); rc=$?
check "logsim replay confirms it bit-for-bit" grep -q "REPRODUCED bit-for-bit" <<<"$out"
check "logsim replay exits 1 (a violation)" test $rc -eq 1
sed -i 's/"trace_hash": "[0-9a-f]*"/"trace_hash": "0000000000000000"/' "$tmp/$saved"
"$logsim" replay "$tmp/$saved" > /dev/null; rc=$?
check "logsim replay with another trace hash exits 3" test $rc -eq 3
"$logsim" replay "$root/scenarios/quickstart.json" 2>/dev/null; rc=$?
check "logsim replay of a scenario without found exits 2" test $rc -eq 2
(cd "$tmp" && "$logsim" fuzz "$tmpl" --faults member-pause,member-crash --seeds 10 --quiet --out clean); rc=$?
check "fuzz without a planted bug exits 0" test $rc -eq 0
check "fuzz without a failure writes nothing" test ! -e "$tmp/clean"
err=$("$logsim" fuzz --plant no-such-bug --seeds 1 2>&1); rc=$?
check "fuzz with an unknown plant exits 2" test $rc -eq 2
check "fuzz names the plants" grep -q "accept-stale-commit" <<<"$err"
err=$("$logsim" fuzz --faults crash,earthquake --seeds 1 2>&1); rc=$?
check "fuzz with an unknown fault kind exits 2" test $rc -eq 2
check "fuzz names the fault kinds" grep -q "member-pause" <<<"$err"
"$logsim" fuzz --show-case 3 > "$tmp/case3.json"
"$logsim" run "$tmp/case3.json" --quiet; rc=$?
check "a shown case is a scenario logsim run accepts" test $rc -ne 2
# A broken invariant found by logsim fuzz: exit 70, and the commands it prints to reproduce the
# failure do (the saved scenario loads; logsim run and logsim replay break the invariant again).
out=$(cd "$tmp" && "$logsim" fuzz "$tmp/invariant.json" --seeds 1 --no-shrink --out fz-invariant 2>/dev/null); rc=$?
check "fuzz of a broken invariant exits 70" test $rc -eq 70
check "fuzz names the internal error" grep -q "FAILURE      seed 1: internal-error" <<<"$out"
repro=$(grep -oE 'reproduce    logsim run [^ ]+' <<<"$out" | awk '{print $4}')
check "fuzz prints a reproduce line for it" test -n "$repro"
err=$(cd "$tmp" && "$logsim" run "$repro" 2>&1); rc=$?
check "the printed logsim run reproduces the internal error" test $rc -eq 70
check "and says so" grep -q "INTERNAL ERROR" <<<"$err"
check "and reproduces it with the saved seed" grep -qxF "  reproduce: logsim run $repro --seed 1" <<<"$err"
out=$(cd "$tmp" && "$logsim" replay "$repro" 2>&1); rc=$?
check "logsim replay confirms the internal error" grep -q "REPRODUCED" <<<"$out"
check "logsim replay of it exits 70" test $rc -eq 70
plants=$("$logsim" run --list-plants | wc -l)
check "there are planted bugs" test "$plants" -ge 7
check "fuzz --list-plants lists every plant" test "$("$logsim" fuzz --list-plants | grep -vc "find it:")" -eq "$plants"
check "fuzz --list-plants says how to find each" test "$("$logsim" fuzz --list-plants | grep -c "find it: ")" -eq "$plants"
check "and most have a campaign" test "$("$logsim" fuzz --list-plants | grep -c "find it: logsim fuzz")" -ge $((plants - 1))

# Many scenarios and seeds, for CI: a directory and --seeds, in parallel; one line per run in a
# fixed order, a tally, junit.xml with every run, a report only for the runs not as expected.
out=$("$logsim" run "$root/scenarios/quickstart.json" "$root/scenarios/retries-reorder-without-idempotence.json" --seed 1 --seeds 2 --jobs 2 --out "$tmp/many"); rc=$?
check "many runs: exit 1 when one is not as expected" test $rc -eq 1
check "many runs: one line per run" test "$(grep -cE '^(ok|FAIL) ' <<<"$out")" -eq 4
check "many runs: lines in order" test "$(grep -oE 'json seed [0-9]+' <<<"$out" | tr '\n' ' ')" = "json seed 1 json seed 2 json seed 1 json seed 2 "
check "many runs: the failing run says why" grep -q 'FAIL  .*retries-reorder-without-idempotence.json seed 1 .*expected verdict "violated", got "pass"' <<<"$out"
check "many runs: a tally" grep -q "4 runs (2 scenarios x 2 seeds)" <<<"$out"
check "many runs: junit.xml has every run" test "$(grep -c '<testcase ' "$tmp/many/junit.xml")" -eq 4
check "many runs: junit.xml matches the schema" xmllint --noout --schema "$root/reports/junit.xsd" "$tmp/many/junit.xml"
check "many runs: a report for the failing run" test -s "$tmp/many/retries-reorder-without-idempotence/seed-1/report.html"
check "many runs: no report for a run as expected" test ! -e "$tmp/many/quickstart"
out=$("$logsim" run "$root/scenarios/quickstart.json" --seeds 5..7)
check "--seeds A..B runs seeds A to B" test "$(grep -oE 'seed [0-9]+' <<<"$out" | tr '\n' ' ')" = "seed 5 seed 6 seed 7 "
"$logsim" run "$root/scenarios/quickstart.json" --seeds 7..5 2>"$tmp/seeds-err.txt"; rc=$?
check "--seeds with a backward range exits 2" test $rc -eq 2
check "and says what it expected" grep -q "expected N (1 to 1000000) or A..B" "$tmp/seeds-err.txt"
"$logsim" run "$root/scenarios" --jobs 2 --quiet; rc=$?
check "every bundled scenario runs as expected from a directory" test $rc -eq 0
"$logsim" run "$root/scenarios/quickstart.json" "$tmp/missing.json" --seeds 2 >"$tmp/many-bad.txt" 2>&1; rc=$?
check "many runs: a bad file exits 2" test $rc -eq 2
check "many runs: before anything runs" test "$(grep -c '^ok' "$tmp/many-bad.txt")" -eq 0

echo "$pass passed, $failures failed"
test $failures -eq 0
