#!/usr/bin/env bash
# A logsim sweep over several machines with GNU parallel: N shards (`--shard I/N`), each started
# on whichever host has a free slot, each shard's --out directory copied back with rsync
# (parallel's --return), then `logsim merge` over them. See docs/sweeps.md.
#
# Usage: deploy/parallel-sweep.sh [-S SSHLOGINS] [-n SHARDS] [-o OUT] -- run|fuzz ARGS...
#   -S  GNU parallel's --sshlogin list (default ":", this machine): e.g. 8/build1,8/build2,:
#       (N/host: at most N shards at once there; ":" is this machine, needing no ssh)
#   -n  shards (default: 4)
#   -o  output directory (default: sweep): OUT/shard-I for each shard, OUT/merged merged
#   ARGS are the sweep's own (the same for every shard), e.g. run scenarios/ --seeds 1000 --jobs 8
# Every host needs this checkout, built, at this same path: each shard runs there, with
# $LOGSIM (default: build/default/logsim in this checkout, else logsim on PATH).
# Exit code: logsim merge's, which is what one machine running the whole sweep would exit with;
# a shard that could not run (a host down, bad input) is named as missing and merge exits 2.
set -uo pipefail
logins=":"
shards=4
out=sweep
while getopts "S:n:o:" opt; do
  case $opt in
    S) logins=$OPTARG ;;
    n) shards=$OPTARG ;;
    o) out=$OPTARG ;;
    *) echo "usage: $0 [-S SSHLOGINS] [-n SHARDS] [-o OUT] -- run|fuzz ARGS..." >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
if [ $# -lt 1 ] || { [ "$1" != run ] && [ "$1" != fuzz ]; }; then
  echo "usage: $0 [-S SSHLOGINS] [-n SHARDS] [-o OUT] -- run|fuzz ARGS...   (the sweep: logsim run ... or logsim fuzz ...)" >&2
  exit 2
fi
if ! command -v parallel >/dev/null 2>&1; then
  echo "$0: GNU parallel is not installed (apt install parallel; scripts/install-deps installs it)" >&2
  exit 2
fi
repo=$(cd "$(dirname "$0")/.." && pwd)
logsim=${LOGSIM:-$repo/build/default/logsim}
[ -x "$logsim" ] || logsim=logsim
case $out in /*) ;; *) out=$PWD/$out ;; esac  # the same absolute path on every host, for --return
mkdir -p "$out"
rm -rf "$out"/shard-* "$out/merged"

# One shard per index 0..N-1; each runs in the checkout and writes OUT/shard-I. Its exit code is
# recorded in its shard.json (merge reads it), so parallel is told not to stop at a failing one.
quoted=$(printf ' %q' "$@")
back=(--return "$out/shard-{}")
[ "$logins" = ":" ] && back=()  # all here: nothing to copy back
seq 0 $((shards - 1)) | parallel --sshlogin "$logins" --halt never "${back[@]}" \
  "cd $(printf %q "$repo") && $(printf %q "$logsim")$quoted --shard {}/$shards --out $(printf %q "$out")/shard-{} --quiet"
dirs=()
for ((i = 0; i < shards; i++)); do dirs+=("$out/shard-$i"); done
"$logsim" merge "${dirs[@]}" --out "$out/merged"
