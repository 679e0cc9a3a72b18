#!/usr/bin/env bash
# The ledger's campaign (ctest): BUGGY FIXED SCENARIO.
#   1. the scenario as it is (no faults) passes with the ledger as first written;
#   2. `ledger-sim fuzz` with member crashes, stops and pauses finds its bug within 100 seeds,
#      shrinks it, and saves a scenario file that `ledger-sim replay` reproduces bit for bit;
#   3. the fixed ledger passes the same campaign, also as two shards merged (the same tally of its
#      sometimes assertion), and the saved failure no longer fails.
set -u
buggy=$1 fixed=$2 scenario=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
check() {  # check DESCRIPTION COMMAND...
  local what=$1; shift
  if "$@"; then echo "ok:   $what"; else echo "FAIL: $what"; fails=$((fails + 1)); fi
}
faults=member-crash,member-stop,member-pause

"$buggy" run "$scenario" --quiet; rc=$?
check "without faults the ledger passes" test $rc -eq 0

out=$(cd "$tmp" && "$buggy" fuzz "$scenario" --faults "$faults" --seeds 100 --out found 2>/dev/null); rc=$?
echo "$out"
check "fuzz finds the bug (exit 1)" test $rc -eq 1
check "as records the group never processed" grep -qE "FAILURE      seed [0-9]+: (unseen|lost-commit)" <<<"$out"
check "whose reproduce line names this binary, not logsim" grep -q "reproduce    $(basename "$buggy") run " <<<"$out"
saved=$(grep -oE 'scenario     [^ ]+' <<<"$out" | awk '{print $2}')
check "fuzz saves the shrunk scenario" test -s "$tmp/$saved"
check "which names the app" grep -q '"app": "ledger"' "$tmp/$saved"
out=$("$buggy" replay "$tmp/$saved"); rc=$?
echo "$out"
check "replay reproduces it bit for bit" grep -q "REPRODUCED bit-for-bit" <<<"$out"
check "replay exits 1 (a violation)" test $rc -eq 1

out=$(cd "$tmp" && "$fixed" fuzz "$scenario" --faults "$faults" --seeds 100 --out clean 2>/dev/null); rc=$?
echo "$out"
check "the fixed ledger passes the same campaign" test $rc -eq 0
check "whose seeds reach the timing that matters (a sometimes assertion)" \
  grep -qE 'sometimes    "a partition was revoked while payments for it were held": held in [1-9][0-9]* of' <<<"$out"
# The same campaign as two shards (two machines), merged: the same tally of the assertion.
single=$(grep -oE 'sometimes    "a partition was revoked[^"]*": held in [0-9]+ of the [0-9]+ seeds' <<<"$out")
for i in 0 1; do (cd "$tmp" && "$fixed" fuzz "$scenario" --faults "$faults" --seeds 100 --shard $i/2 --out shard-$i --quiet 2>/dev/null); done
merged=$(cd "$tmp" && "$fixed" merge shard-0 shard-1 --out merged); rc=$?
echo "$merged"
check "two shards merged exit 0 as the single campaign did" test $rc -eq 0
check "and tally the sometimes assertion as it did ($single)" grep -qF "$single" <<<"$merged"
check "... in the merged fuzz.json too" python3 -c '
import json, re, sys
held, reached = map(int, re.search(r"held in (\d+) of the (\d+)", sys.argv[2]).groups())
s = json.load(open(sys.argv[1]))["sometimes"][0]
sys.exit(0 if (s["held_seeds"], s["reached_seeds"]) == (held, reached) else 1)' "$tmp/merged/fuzz.json" "$single"
"$fixed" run "$tmp/$saved" --quiet; rc=$?
check "and the saved failure passes with the fix" test $rc -eq 0

echo "$fails failed"
test $fails -eq 0
