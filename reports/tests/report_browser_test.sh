#!/usr/bin/env bash
# report.html as a person sees it: a run with a violation writes the report, a real headless
# Chromium (Debian's chromium) opens it from disk with no network, the page's scripts run
# without an error, the timeline has its lanes and the violation mark, and a screenshot is
# saved (report-screenshot.png in the working directory, for a person to look at). Also:
# `logsim report DIR` rebuilds the same page, and a planted script error is caught (so the
# error check can fail).
# Usage: report_browser_test.sh LOGSIM_BINARY REPO_ROOT
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
chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
  echo "FAIL: chromium is not installed (scripts/install-deps installs Debian's chromium)"
  exit 1
fi
# A fresh profile, no sandbox (root), and nothing that reaches for the network.
browse() {  # browse OUTPUT-FLAG... URL
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --disable-extensions \
    --user-data-dir="$(mktemp -d -p "$tmp")" --hide-scrollbars --window-size=1280,2000 "$@" 2>>"$tmp/chromium.log"
}

# A run with a violation (an expected one: the run exits 0).
"$logsim" run "$root/scenarios/acks-1-leader-failover.json" --out "$tmp/out" --quiet; rc=$?
check "the run exits 0 (its violation is expected)" test $rc -eq 0
check "the run wrote report.html" test -s "$tmp/out/report.html"
check "the run wrote samples.json" test -s "$tmp/out/samples.json"

browse --dump-dom "file://$tmp/out/report.html" >"$tmp/dom.html"
check "chromium loaded the page" grep -q '<svg id="timeline"' "$tmp/dom.html"
check "the page's script ran to the end" grep -q 'data-ready="1"' "$tmp/dom.html"
check "no script error" grep -q 'data-script-errors="0"' "$tmp/dom.html"
for lane in broker-1 broker-2 broker-3 controller payments/0 payments/1 payments/2; do
  check "a lane for $lane" grep -q "data-lane=\"$lane\"" "$tmp/dom.html"
done
lanes=$(grep -oE 'data-lanes="[0-9]+"' "$tmp/dom.html" | grep -oE '[0-9]+')
check "the script counted the lanes (${lanes:-none})" test "${lanes:-0}" -ge 8
check "the violation is marked on the timeline" grep -q 'id="violation-mark"' "$tmp/dom.html"
check "the violation is explained beside it" grep -q 'id="violation"' "$tmp/dom.html"
check "the first event is shown among the events around it" grep -q '<tr class="first">' "$tmp/dom.html"
check "the report says how to reproduce" grep -q 'logsim run .*acks-1-leader-failover.json --seed 3' "$tmp/dom.html"
check "nothing is fetched from the network" bash -c "! grep -qE '(src|href)=\"https?:' '$tmp/out/report.html'"

browse --screenshot="$tmp/shot.png" "file://$tmp/out/report.html" >/dev/null
check "a screenshot was taken" test -s "$tmp/shot.png"
check "the screenshot is a PNG" bash -c "head -c 8 '$tmp/shot.png' | od -An -tx1 | grep -q '89 50 4e 47'"
check "the screenshot is not blank (over 20 KB)" test "$(stat -c %s "$tmp/shot.png" 2>/dev/null || echo 0)" -gt 20000
cp "$tmp/shot.png" report-screenshot.png 2>/dev/null || true

# The error check can fail: a page with a script error is caught.
sed 's#</body>#<script>no_such_function();</script></body>#' "$tmp/out/report.html" >"$tmp/broken.html"
browse --dump-dom "file://$tmp/broken.html" >"$tmp/broken-dom.html"
check "a planted script error is counted" grep -q 'data-script-errors="1"' "$tmp/broken-dom.html"

# logsim report DIR rebuilds the same page from the JSON files.
cp "$tmp/out/report.html" "$tmp/original.html"
rm "$tmp/out/report.html"
"$logsim" report "$tmp/out" >/dev/null; rc=$?
check "logsim report exits 0" test $rc -eq 0
check "logsim report rebuilds the same page" cmp -s "$tmp/out/report.html" "$tmp/original.html"
"$logsim" report "$tmp/nowhere" 2>"$tmp/err.txt"; rc=$?
check "logsim report on a missing directory exits 2" test $rc -eq 2
check "and says what it expected" grep -q "nowhere/summary.json cannot be read; expected a directory that logsim run --out DIR wrote" "$tmp/err.txt"
echo '{"version": 1' >"$tmp/out/samples.json"
"$logsim" report "$tmp/out" 2>"$tmp/err2.txt"; rc=$?
check "a broken samples.json exits 2" test $rc -eq 2
check "and names the file" grep -q "samples.json: not JSON" "$tmp/err2.txt"

echo "report_browser_test: $pass passed, $failures failed"
if [ $failures -ne 0 ]; then
  echo "--- chromium's log (last lines)"
  tail -20 "$tmp/chromium.log"
fi
exit $((failures > 0))
