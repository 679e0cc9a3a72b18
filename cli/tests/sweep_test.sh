#!/usr/bin/env bash
# Sweeps past one machine (docs/sweeps.md): the shards of a sweep, run through GNU parallel with
# deploy/parallel-sweep.sh and joined by logsim merge, give the single-machine sweep seed for seed
# (seeds, verdicts, trace hashes, junit.xml, reports, exit code), for logsim run and logsim fuzz;
# merge refuses overlapping shards, shards of different sweeps and missing shards (exit 2);
# bad --shard values exit 2. GNU parallel is a declared dependency (scripts/install-deps): this
# test fails without it, it does not skip.
# Usage: sweep_test.sh LOGSIM_BINARY REPO_ROOT
set -u
logsim=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
pass=0
check() {  # check NAME CONDITION...
  local name=$1; shift
  if "$@"; then pass=$((pass + 1)); else echo "FAIL: $name"; failures=$((failures + 1)); fi
}
if ! command -v parallel >/dev/null 2>&1; then
  echo "FAIL: GNU parallel is not installed: scripts/install-deps installs it (apt install parallel). Not skipping."
  exit 1
fi
export LOGSIM=$logsim
cd "$tmp" || exit 1

# runs.json of two directories agree run for run: file, seed, trace hash, verdict, expectation, anomalies.
same_runs() {
  python3 - "$1" "$2" <<'PY'
import json, sys
def key(r): return (r["file"], r["seed"], r["trace_hash"], r["verdict"], r["expectation_met"], r["error"],
                    r["nondeterministic"], [v["anomaly"] for v in r["violations"]])
a = [key(r) for r in json.load(open(sys.argv[1] + "/runs.json"))]
b = [key(r) for r in json.load(open(sys.argv[2] + "/runs.json"))]
if a != b:
    print("runs differ:", len(a), "vs", len(b), [x for x in zip(a, b) if x[0] != x[1]][:2])
    sys.exit(1)
PY
}
testcases() { grep -oE '<testcase classname="[^"]*" name="[^"]*"|<failure type="[^"]*"|name="trace_hash" value="[0-9a-f]*"' "$1"; }

# --- logsim run: a passing and an unexpectedly failing scenario, 5 seeds each ---------------------
mkdir sc
cp "$root/scenarios/quickstart.json" sc/
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["name"]="failover-loses-writes"; d["expect"]={"verdict":"pass"}; json.dump(d,open("sc/failover-loses-writes.json","w"))' \
  "$root/scenarios/acks-1-leader-failover.json"
"$logsim" run "$tmp/sc" --seeds 5 --jobs 2 --out full --quiet; full_rc=$?
check "the single-machine sweep finds the unexpected loss (exit 1)" test $full_rc -eq 1
"$root/deploy/parallel-sweep.sh" -S : -n 3 -o "$tmp/sweep" -- run "$tmp/sc" --seeds 5 > par.txt 2>&1; rc=$?
check "3 shards through GNU parallel exit as one machine does ($rc vs $full_rc)" test $rc -eq $full_rc
check "merge says 3 of 3 shards and 10 of 10 runs" grep -q "logsim merge: 3 of 3 shards of a logsim run sweep: 10 of 10 runs" par.txt
check "the merged runs.json is the single machine's, seed for seed" same_runs full sweep/merged
check "the merged junit.xml has the same cases, failures and hashes in the same order" \
  diff <(testcases full/junit.xml) <(testcases sweep/merged/junit.xml)
check "the merged junit.xml counts its cases again" grep -q '<testsuites name="logsim run" tests="10" failures="5"' sweep/merged/junit.xml
check "the merged junit.xml matches the JUnit schema" xmllint --noout --schema "$root/reports/junit.xsd" sweep/merged/junit.xml 2>/dev/null
check "every failing run's report is in the merge" \
  diff <(cd full && find . -name summary.json | sort) <(cd sweep/merged && find . -name summary.json | sort)
check "the shards are disjoint and cover the sweep" python3 -c '
import json, sys
runs = [json.load(open(f"sweep/shard-{i}/shard.json"))["runs"] for i in range(3)]
flat = sorted(n for r in runs for n in r)
sys.exit(0 if flat == list(range(10)) and all(n % 3 == i for i, r in enumerate(runs) for n in r) else 1)'
check "merge.json records the shards and the exit code" python3 -c '
import json, sys; m = json.load(open("sweep/merged/merge.json"))
sys.exit(0 if m["exit_code"] == 1 and m["missing"] == [] and [s["index"] for s in m["shards"]] == [0, 1, 2] else 1)'
check "no temporary files left in the merge" test -z "$(find sweep/merged -name '*.tmp.*')"

# --- merge refuses what is not one whole sweep (exit 2) ------------------------------------------
err=$("$logsim" merge sweep/shard-0 sweep/shard-1 sweep/shard-1 sweep/shard-2 --out m1 2>&1); rc=$?
check "a shard given twice exits 2" test $rc -eq 2
check "a shard given twice is named as overlapping" grep -q "are both shard 1/3 (overlapping shards)" <<<"$err"
check "a refused merge writes nothing" test ! -e m1
err=$("$logsim" merge sweep/shard-0 sweep/shard-2 --out m2 2>&1); rc=$?
check "a missing shard exits 2" test $rc -eq 2
check "the missing shard is named" grep -q "shard 1/3 of the sweep is missing" <<<"$err"
"$logsim" merge sweep/shard-0 sweep/shard-2 --out m3 --partial > partial.txt; rc=$?
expect=$(python3 -c '
import json
runs = json.load(open("sweep/shard-0/runs.json")) + json.load(open("sweep/shard-2/runs.json"))
print(1 if any(not r["expectation_met"] for r in runs) else 0)')
check "--partial merges what is there with the exit code of those runs" test $rc -eq "$expect"
check "--partial says the merge is partial" grep -q "PARTIAL: missing 1/3" partial.txt
check "--partial records the missing shard" grep -q '"1/3"' m3/merge.json
"$logsim" run "$tmp/sc" --seeds 4 --shard 1/3 --out other --quiet
err=$("$logsim" merge sweep/shard-0 other sweep/shard-2 --out m4 2>&1); rc=$?
check "shards of different sweeps exit 2" test $rc -eq 2
check "shards of different sweeps: the difference is named" grep -q 'different sweeps ("seeds_per_scenario" is 5 in one and 4 in the other)' <<<"$err"
"$logsim" run "$tmp/sc" --seeds 5 --shard 1/2 --out halves --quiet
err=$("$logsim" merge sweep/shard-0 halves --out m5 2>&1); rc=$?
check "shards cut N ways and M ways overlap: exit 2" test $rc -eq 2
check "the two cuts are named" grep -q "shard 0/3 and .*halves is shard 1/2" <<<"$err"
err=$("$logsim" merge sc --out m6 2>&1); rc=$?
check "a directory that is no shard exits 2" test $rc -eq 2
check "a directory that is no shard is named" grep -q "sc/shard.json cannot be read; expected the --out directory of logsim run --shard" <<<"$err"
"$logsim" merge sweep/shard-0 sweep/shard-1 sweep/shard-2 --out sweep/shard-1 >/dev/null 2>&1; rc=$?
check "--out that is a shard exits 2" test $rc -eq 2

cp -r sweep/shard-2 rebuilt-2
python3 -c 'import json; m = json.load(open("rebuilt-2/shard.json")); m["build"] = "0123456789abcdef"; json.dump(m, open("rebuilt-2/shard.json", "w"))'
err=$("$logsim" merge sweep/shard-0 sweep/shard-1 rebuilt-2 --out m7 2>&1 >/dev/null); rc=$?
check "shards of different builds merge, with the sweep's exit code" test $rc -eq 1
check "shards of different builds: merge warns" grep -q "rebuilt-2 were run by different builds of logsim" <<<"$err"

# --- exit code rules: an engine invariant that breaks (70) is worse than a violation (1) ---------
mkdir sc70
cp sc/failover-loses-writes.json sc70/
printf '{"name": "invariant", "seed": 7, "duration": "1s", "cluster": {"brokers": 1, "network": {"latency_mean": "2h"}}, "topics": [{"name": "t"}]}' > sc70/invariant.json
"$logsim" run "$tmp/sc70" --seeds 2 --out full70 --quiet; full_rc=$?
for i in 0 1; do "$logsim" run "$tmp/sc70" --seeds 2 --shard $i/2 --out s70-$i --quiet; done
"$logsim" merge s70-0 s70-1 --out m70 --quiet; rc=$?
check "a broken invariant in one shard: merge exits 70 as one machine does" test $rc -eq 70 -a $full_rc -eq 70
check "the invariant sweep merges seed for seed" same_runs full70 m70
for i in 0 1 2; do "$logsim" run "$root/scenarios/quickstart.json" --seeds 2 --shard $i/3 --out pass-$i --quiet; done
"$logsim" merge pass-0 pass-1 pass-2 --out mpass --quiet; rc=$?
check "a passing sweep merges to exit 0, also with an empty shard" test $rc -eq 0
check "the empty shard ran nothing" grep -q '"runs": \[\]' pass-2/shard.json

# --- bad --shard values: exit 2 and what is expected --------------------------------------------
for bad in 3/3 1/0 -1/2 2 x/y 1/2/3 ""; do
  err=$("$logsim" run "$root/scenarios/quickstart.json" --shard "$bad" 2>&1); rc=$?
  check "run --shard '$bad' exits 2" test $rc -eq 2
  check "run --shard '$bad' says what is expected" grep -q "expected I/N with 0 <= I < N" <<<"$err"
  err=$("$logsim" fuzz --seeds 1 --shard "$bad" 2>&1); rc=$?
  check "fuzz --shard '$bad' exits 2" test $rc -eq 2
done

# --- logsim fuzz: 3 shards find the failing seeds one machine finds -----------------------------
tmpl="$root/scenarios/templates/zombie-members.json"
fz=(fuzz "$tmpl" --plant accept-stale-commit --faults member-pause,member-crash --seeds 12 --keep-going --no-shrink)
"$logsim" "${fz[@]}" --out "$tmp/fz-full" --quiet; full_rc=$?
check "the single-machine campaign finds the planted bug (exit 1)" test $full_rc -eq 1
"$root/deploy/parallel-sweep.sh" -S : -n 3 -o "$tmp/fz" -- "${fz[@]}" > fzpar.txt 2>&1; rc=$?
check "3 fuzz shards through GNU parallel exit as one machine does ($rc vs $full_rc)" test $rc -eq $full_rc
check "the merged campaign has the same seeds run, failing seeds and failure" python3 -c '
import json, sys
a = json.load(open("fz-full/fuzz.json")); b = json.load(open("fz/merged/fuzz.json"))
keys = ["seeds_run", "failing_seeds", "nondeterministic_seeds", "first_seed"]
ok = all(a[k] == b[k] for k in keys) and a["failure"]["seed"] == b["failure"]["seed"] and a["failure"]["anomaly"] == b["failure"]["anomaly"]
sys.exit(0 if ok else 1)'
lowest=$(python3 -c 'import json; print(json.load(open("fz/merged/fuzz.json"))["failure"]["seed"])')
replayed=$("$logsim" replay "fz/merged/seed-$lowest.json"); rc=$?
check "the lowest failure's scenario is in the merge and replays bit-for-bit" grep -q "REPRODUCED bit-for-bit" <<<"$replayed"
check "its replay exits 1" test $rc -eq 1
"$logsim" fuzz "$tmpl" --faults member-pause --seeds 2 --shard 0/2 --out fz-clean-0 --quiet
"$logsim" fuzz "$tmpl" --faults member-pause --seeds 2 --shard 1/2 --out fz-clean-1 --quiet
check "a shard that finds nothing still writes fuzz.json and shard.json" test -s fz-clean-1/fuzz.json -a -s fz-clean-1/shard.json
"$logsim" merge fz-clean-0 fz-clean-1 --out fz-clean --quiet; rc=$?
check "a clean campaign merges to exit 0" test $rc -eq 0
cp -r fz-clean-1 fz-bad-1
printf '{"seeds_run": 1, "failure": {"anomaly": 3}}' > fz-bad-1/fuzz.json
err=$("$logsim" merge fz-clean-0 fz-bad-1 --out fz-bad 2>&1); rc=$?
check "a fuzz.json that is not as logsim writes it exits 2" test $rc -eq 2
check "a fuzz.json that is not as logsim writes it: said so" grep -q "is not as logsim writes it" <<<"$err"
err=$("$logsim" merge fz/shard-0 fz-clean-1 --out fz-mixed 2>&1); rc=$?
check "fuzz shards of different campaigns exit 2" test $rc -eq 2
err=$("$logsim" merge fz/shard-0 sweep/shard-1 sweep/shard-2 --out fz-run 2>&1); rc=$?
check "a fuzz shard and run shards exit 2" test $rc -eq 2
check "a fuzz shard and run shards: said so" grep -q "a logsim fuzz shard and .* a logsim run shard" <<<"$err"

# --- fuzz --time: shards stop on their own clocks, their seeds stay disjoint ---------------------
for i in 0 1; do
  "$logsim" fuzz "$tmpl" --plant accept-stale-commit --faults member-pause,member-crash --time 2s --keep-going --no-shrink \
    --shard $i/2 --out fzt-$i --quiet
done
check "fuzz --time shards run only their own seeds" python3 -c '
import json, sys
ok = True
for i in range(2):
    c = json.load(open(f"fzt-{i}/fuzz.json"))
    ok = ok and c["seeds_run"] > 0 and all((s - 1) % 2 == i for s in c["failing_seeds"])
sys.exit(0 if ok else 1)'
"$logsim" merge fzt-0 fzt-1 --out fzt --quiet
check "fuzz --time shards merge" test -s fzt/fuzz.json

# --- the Kubernetes and GitHub Actions recipes, run here as their pods and jobs would run them ---
# Their scripts are taken from the files in deploy/ as they are; only SWEEP (the sweep's arguments),
# RESULTS and where logsim lies differ.
mkdir -p recipes/bin
ln -s "$logsim" recipes/bin/logsim
python3 - "$root/deploy" recipes <<'PY'
import sys, yaml
deploy, out = sys.argv[1], sys.argv[2]
docs = [d for d in yaml.safe_load_all(open(deploy + "/k8s-indexed-job.yaml")) if d]
jobs = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Job"}
sweep, merge = jobs["logsim-sweep"], jobs["logsim-merge"]
env = {e["name"]: e["value"] for e in sweep["spec"]["template"]["spec"]["containers"][0]["env"]}
merge_env = {e["name"]: e["value"] for e in merge["spec"]["template"]["spec"]["containers"][0]["env"]}
shards = int(env["SHARDS"])
assert sweep["spec"]["completionMode"] == "Indexed", "the sweep must be an Indexed Job"
assert sweep["spec"]["completions"] == sweep["spec"]["parallelism"] == shards == int(merge_env["SHARDS"]), "N differs"
open(out + "/k8s-shard.sh", "w").write(sweep["spec"]["template"]["spec"]["containers"][0]["args"][0])
open(out + "/k8s-merge.sh", "w").write(merge["spec"]["template"]["spec"]["containers"][0]["args"][0])
open(out + "/k8s-shards", "w").write(str(shards))
wf = yaml.safe_load(open(deploy + "/github-actions-sweep.yml"))
gh_shards = int(wf["env"]["SHARDS"])
assert wf["jobs"]["sweep"]["strategy"]["matrix"]["shard"] == list(range(gh_shards)), "the matrix is not 0..SHARDS-1"
assert wf["jobs"]["sweep"]["strategy"]["fail-fast"] is False and wf["jobs"]["merge"]["if"] == "always()"
step = [s for s in wf["jobs"]["sweep"]["steps"] if "--shard" in s.get("run", "")][0]["run"]
open(out + "/gh-shard.sh", "w").write(step)
open(out + "/gh-merge.sh", "w").write([s for s in wf["jobs"]["merge"]["steps"] if "logsim merge" in s.get("run", "")][0]["run"])
open(out + "/gh-shards", "w").write(str(gh_shards))
PY
check "the recipes parse and agree on N" test $? -eq 0
"$logsim" run "$tmp/sc" --seeds 2 --quiet; small_rc=$?
n=$(cat recipes/k8s-shards)
pods_ok=1
for ((i = 0; i < n; i++)); do
  (cd "$root" && PATH="$tmp/recipes/bin:$PATH" JOB_COMPLETION_INDEX=$i SHARDS=$n RESULTS="$tmp/k8s" SWEEP="run $tmp/sc --seeds 2" \
    sh "$tmp/recipes/k8s-shard.sh") || pods_ok=0
done
check "every Kubernetes pod succeeds (its findings are in shard.json)" test $pods_ok -eq 1
(cd "$root" && PATH="$tmp/recipes/bin:$PATH" SHARDS=$n RESULTS="$tmp/k8s" sh "$tmp/recipes/k8s-merge.sh" >/dev/null); rc=$?
check "the Kubernetes merge Job exits as one machine does ($rc vs $small_rc)" test $rc -eq $small_rc
(cd "$root" && PATH="$tmp/recipes/bin:$PATH" JOB_COMPLETION_INDEX=0 SHARDS=$n RESULTS="$tmp/k8s-bad" SWEEP="run $tmp/no-such.json" \
  sh "$tmp/recipes/k8s-shard.sh" 2>/dev/null); rc=$?
check "a Kubernetes pod with bad input fails with exit 2 (podFailurePolicy: FailJob)" test $rc -eq 2
n=$(cat recipes/gh-shards)
mkdir gh && ln -s "$logsim" gh/logsim
jobs_ok=1
for ((i = 0; i < n; i++)); do
  sed "s/\${{ matrix.shard }}/$i/g; s|bin/logsim|$tmp/gh/logsim|g" recipes/gh-shard.sh > recipes/gh-shard-$i.sh
  (cd gh && SHARDS=$n SWEEP="run $tmp/sc --seeds 2" bash --noprofile --norc -eo pipefail "$tmp/recipes/gh-shard-$i.sh" >/dev/null) || jobs_ok=0
done
check "every GitHub Actions shard job succeeds" test $jobs_ok -eq 1
sed "s|bin/logsim|$tmp/gh/logsim|g" recipes/gh-merge.sh > recipes/gh-merge-local.sh
(cd gh && SHARDS=$n bash --noprofile --norc -eo pipefail "$tmp/recipes/gh-merge-local.sh" >/dev/null); rc=$?
check "the GitHub Actions merge job exits as one machine does ($rc vs $small_rc)" test $rc -eq $small_rc
check "both recipes merge to the same runs" same_runs k8s/merged gh/merged

echo "sweep_test: $pass passed, $failures failed"
[ $failures -eq 0 ]
