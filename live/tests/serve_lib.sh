# Sourced by the live tests (bash): a temporary directory removed at exit, logsim serve started
# on free loopback ports and stopped by its process id (at exit too), and ok/FAIL lines.
# The sourcing script sets $logsim first. Every wait here is bounded.
#
#   serve_start NAME ARGS...  starts `$logsim serve ARGS --listen 127.0.0.1:0` with its bootstrap
#                             file, stdout and stderr at $tmp/NAME.bootstrap, .out and .err; waits
#                             up to 20 s for the bootstrap file and sets $bs and $pid. Returns 1
#                             (with a FAIL line and the log's tail) when serve never wrote it.
#   serve_stop                SIGTERM by $pid, waits for it, sets $serve_rc (its exit status).
#   ok TEXT / bad TEXT        an ok or FAIL line; bad counts in $fails.
#   check TEXT COMMAND...     ok when COMMAND succeeds, else bad.
#   finish                    exits 1 when anything was bad, else 0, after a "N failed" line.
tmp=$(mktemp -d)
pid=
bs=
serve_rc=
fails=0
serve_lib_cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; fi
  rm -rf "$tmp"
}
trap serve_lib_cleanup EXIT

ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fails=$((fails + 1)); }
check() {
  local name=$1
  shift
  if "$@"; then ok "$name"; else bad "$name"; fi
}

serve_start() {
  local name=$1
  shift
  rm -f "$tmp/$name.bootstrap"
  "$logsim" serve "$@" --listen 127.0.0.1:0 --bootstrap-file "$tmp/$name.bootstrap" > "$tmp/$name.out" 2> "$tmp/$name.err" &
  pid=$!
  for _ in $(seq 1 200); do [ -s "$tmp/$name.bootstrap" ] && break; sleep 0.1; done
  if [ ! -s "$tmp/$name.bootstrap" ]; then
    bad "serve ($name) never wrote its bootstrap file"
    tail -20 "$tmp/$name.err"
    return 1
  fi
  bs=$(cat "$tmp/$name.bootstrap")
}

serve_stop() {
  kill -TERM "$pid" 2>/dev/null
  wait "$pid"
  serve_rc=$?
  pid=
}

finish() {
  echo "$fails failed"
  exit $((fails > 0))
}
