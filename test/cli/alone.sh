#!/usr/bin/env bash
# Runs a copy of clreduce alone in an empty folder, with the arguments given: the kernel is
# built into it, so it needs no kernel file beside it nor an install prefix around it.
#   alone.sh CLREDUCE ARGS...
set -euo pipefail
folder=$(mktemp -d)
trap 'rm -rf "$folder"' EXIT
cp "$1" "$folder/clreduce"
shift
cd "$folder"
./clreduce "$@"
