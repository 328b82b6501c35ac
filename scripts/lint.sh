#!/usr/bin/env bash
# `make lint`: clang-tidy (the check list in .clang-tidy) over every source file of src/ and bench/,
# using the compile commands of the build directory. Any finding fails the run.
#
# Environment: BUILD (default ./build, must hold compile_commands.json), JOBS (default nproc).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
JOBS=${JOBS:-$(nproc)}
CLANG_TIDY=${CLANG_TIDY:-clang-tidy-14}
[ -f "$BUILD/compile_commands.json" ] || { echo "lint: $BUILD/compile_commands.json is missing; run 'make build'" >&2; exit 1; }
cd "$ROOT"
mapfile -t files < <(find src bench -name '*.cpp' | sort)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# --quiet drops the "N warnings generated" lines of headers outside HeaderFilterRegex.
if printf '%s\n' "${files[@]}" | xargs -P "$JOBS" -n 4 "$CLANG_TIDY" -p "$BUILD" --quiet >"$log" 2>&1; then
  echo "lint: clang-tidy clean over ${#files[@]} files"
else
  grep -E "(error|warning):" "$log" | sort -u || cat "$log"
  echo "lint: clang-tidy found the problems above" >&2
  exit 1
fi
