#!/usr/bin/env bash
# Interrupts a sweep once its first row is out, and checks that the rows measured so far were
# printed as they came: the header and the first length, but not the last one.
#   interrupted_sweep.sh CLREDUCE
set -uo pipefail
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$1" -t cpu --sweep --csv -l 2^26 -i 5 --finish passes >"$out" &
sweep=$!
for _ in $(seq 1200); do # at most two minutes for the random draw and the first length
  [ "$(wc -l <"$out")" -ge 2 ] && break
  sleep 0.1
done
kill -TERM "$sweep" 2>/dev/null
wait "$sweep"
cat "$out"
grep -q '^length,' "$out" && grep -q '^1024,int32,sum,passes,' "$out" && ! grep -q '^67108864,' "$out"
