#!/usr/bin/env bash
# logsim serve against a Go application (go/sarama_client.go, on Debian's Sarama 1.22, built
# here in GOPATH mode from /usr/share/gocode) while scenarios/live/broker-crash.json crashes and
# restarts broker-2; then the broker-side verdict and history of it.
# Every wait is bounded; the server is stopped by its process id.
# Usage: go_test.sh LOGSIM SOURCE_ROOT BUILD_DIR
set -u
logsim=$1 root=$2 build=$(cd "$3" && pwd)
sarama=/usr/share/gocode/src/github.com/Shopify/sarama
if ! command -v go >/dev/null || [ ! -d "$sarama" ]; then
  echo "FAIL go or Sarama is missing (scripts/install-deps installs golang-go and golang-github-shopify-sarama-dev)"
  exit 1
fi
source "$(dirname "$0")/serve_lib.sh"
# Debian's Go modules are a GOPATH tree; the build cache stays in the build folder between runs.
mkdir -p "$build/go-cache"
if ! GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE="$build/go-cache" GOFLAGS= \
    timeout 240 go build -o "$tmp/sarama_client" "$root/live/tests/go/sarama_client.go" 2> "$tmp/go-build.err"; then
  bad "the Go client builds"
  cat "$tmp/go-build.err"
  finish
fi
serve_start serve "$root/scenarios/live/broker-crash.json" --duration 200s --out "$tmp/run" || finish
timeout 170 "$tmp/sarama_client" "$bs" | tee "$tmp/client.out"
rc=${PIPESTATUS[0]}
if [ $rc -eq 124 ]; then bad "the Go client did not finish in 170 s"; elif [ $rc -ne 0 ]; then bad "the Go client's checks (exit $rc)"; fi
serve_stop
for line in "crash broker-2" "restart broker-2"; do
  check "serve logs: $line" grep -q "$line" "$tmp/serve.err"
done
if [ $serve_rc -eq 0 ] && grep -q '"verdict": "pass"' "$tmp/run/summary.json"; then ok "the broker-side verdict is a pass"; else bad "the broker-side verdict is a pass (exit $serve_rc)"; fi
h=$tmp/run/history.jsonl
acked=$(grep '"op":"send-ok"' "$h" | grep -c '"process":"go-orders"')
if [ "$acked" -ge 300 ]; then ok "the history has the producer's 300 acknowledgements ($acked)"; else bad "the history has the producer's 300 acknowledgements ($acked)"; fi
# The crash came while the producer was sending (Sarama retried across it).
first=$(grep -n '"op":"send-invoke","process":"go-orders"' "$h" | head -1 | cut -d: -f1)
last=$(grep -n '"op":"send-invoke","process":"go-orders"' "$h" | tail -1 | cut -d: -f1)
crash=$(grep -n '"note":"crash broker-2"' "$h" | head -1 | cut -d: -f1)
if [ -n "$first" ] && [ -n "$crash" ] && [ "$first" -lt "$crash" ] && [ "$crash" -lt "$last" ]; then
  ok "broker-2 crashed while the producer was sending"
else bad "broker-2 crashed while the producer was sending (sends at lines ${first:-?}..${last:-?}, crash at ${crash:-?})"; fi
check "the history has go-readers' accepted commits" bash -c "grep '\"op\":\"commit-ok\"' '$h' | grep -q '\"group\":\"go-readers\"'"
# Sarama's assignments (its own encoding of Kafka's consumer protocol) read from SyncGroup.
members=$(grep '"op":"assign"' "$h" | grep '"group":"go-readers"' | grep -o '"process":"[^"]*"' | sort -u | wc -l)
if [ "$members" -ge 2 ]; then ok "the history has go-readers' assignments, both members' ($members)"
else bad "the history has go-readers' assignments, both members' ($members)"; fi
served=$(grep '"op":"process"' "$h" | grep -c '"process":"go-replay-1#')
if [ "$served" -ge 300 ]; then ok "the history has the records served to go-replay ($served)"; else bad "the history has the records served to go-replay ($served)"; fi
if "$logsim" check "$h" > "$tmp/check.out" 2>&1; then ok "logsim check of the history passes"; else bad "logsim check of the history passes"; cat "$tmp/check.out"; fi
[ $fails -eq 0 ] || { echo "--- serve stderr"; tail -30 "$tmp/serve.err"; }
finish
