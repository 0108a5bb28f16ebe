#!/usr/bin/env bash
# Runs four clreduce processes at once, each with its own seed and the arguments given, and
# fails unless every one of them validates (clreduce exits non-zero on a wrong result).
#   concurrently.sh CLREDUCE ARGS...
set -u
clreduce=$1
shift
pids=()
for seed in 1 2 3 4; do
  "$clreduce" "$@" -s "$seed" >/dev/null &
  pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do
  wait "$pid" || failed=$((failed + 1))
done
echo "$failed of ${#pids[@]} concurrent runs failed"
[ "$failed" -eq 0 ]
