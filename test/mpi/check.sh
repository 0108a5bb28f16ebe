#!/usr/bin/env bash
# The MPI tests: clreduce-mpi under mpirun, judged by its output and exit code, never left to
# hang (each run is given 120 seconds).
#   check.sh same    MPIRUN CLREDUCE-MPI CLREDUCE RANKS ARGS...  -q results equal clreduce's
#   check.sh prints  MPIRUN REGEX MPIRUN-ARGS...                 a stdout line matches REGEX
#   check.sh json    MPIRUN MPIRUN-ARGS...                       stdout is one valid JSON value
#   check.sh fails   MPIRUN EXIT REGEX MPIRUN-ARGS...            exits EXIT, one error line
#                                                                 matching REGEX on stderr
# MPIRUN-ARGS run clreduce-mpi as mpirun takes them (-np N PROGRAM ARGS, or several
# programs separated by ':').
set -euo pipefail
mode=$1
mpirun=("$2" --allow-run-as-root --oversubscribe)
shift 2
out=$(mktemp)
err=$(mktemp)
# A session folder of its own: mpiruns started at once (CTest runs tests side by side) race to
# create the shared one, and the loser fails ("A call to mkdir was unable to create").
session=$(mktemp -d)
export OMPI_MCA_orte_tmpdir_base="$session"
trap 'rm -rf "$out" "$err" "$session"' EXIT

run() {
  set +e
  timeout 120 "${mpirun[@]}" "$@" >"$out" 2>"$err"
  code=$?
  set -e
  [ "$code" -ne 124 ] || fail "mpirun $* hung: stopped after 120 seconds"
}

fail() {
  echo "FAILED: $1" >&2
  echo "--- stdout:" >&2
  cat "$out" >&2
  echo "--- stderr:" >&2
  cat "$err" >&2
  exit 1
}

case "$mode" in
same)
  mpi=$1 tool=$2 ranks=$3
  shift 3
  expected=$("$tool" -q "$@")
  run -np "$ranks" "$mpi" -q "$@"
  [ "$code" -eq 0 ] || fail "exit code $code"
  [ "$(cat "$out")" == "$expected" ] ||
    fail "$ranks ranks give '$(cat "$out")', clreduce gives '$expected'"
  ;;
prints)
  regex=$1
  shift
  run "$@"
  [ "$code" -eq 0 ] || fail "exit code $code"
  grep -qE "$regex" "$out" || fail "no line of stdout matches '$regex'"
  ;;
json)
  run "$@"
  [ "$code" -eq 0 ] || fail "exit code $code"
  python3 -c 'import json, sys; json.load(sys.stdin, parse_constant=lambda c: sys.exit("bare " + c))' \
    <"$out" || fail "stdout is not one valid JSON value"
  ;;
fails)
  exit_code=$1 regex=$2
  shift 2
  run "$@"
  [ "$code" -eq "$exit_code" ] || fail "exit code $code, expected $exit_code"
  # mpirun forwards each rank's stderr apart, so what a rank's OpenCL compiler writes there
  # (PoCL's "21 errors generated.") may begin the line that holds clreduce-mpi's error.
  errors=$(grep -o 'clreduce-mpi: error: .*' "$err" || true)
  lines=$(grep -c . <<<"$errors" || true)
  [ "$lines" -eq 1 ] || fail "$lines 'clreduce-mpi: error:' lines on stderr, expected one"
  grep -qE "^clreduce-mpi: error: $regex" <<<"$errors" || fail "the error line does not match '$regex'"
  ;;
*)
  echo "check.sh: unknown mode '$mode'" >&2
  exit 2
  ;;
esac
