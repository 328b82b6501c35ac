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
db=$(mktemp -d)
trap 'rm -rf "$log" "$db"' EXIT
# The build's precompiled headers are GCC's: clang-tidy gets the commands without them, which also checks that every
# file of src/ and bench/ includes what it uses.
python3 - "$BUILD/compile_commands.json" "$db/compile_commands.json" <<'PY'
import json, re, sys
commands = json.load(open(sys.argv[1]))
for entry in commands:
    entry["command"] = re.sub(r" -Winvalid-pch| -include \S+/cmake_pch\.hxx", "", entry["command"])
json.dump(commands, open(sys.argv[2], "w"))
PY
# --quiet drops the "N warnings generated" lines of headers outside HeaderFilterRegex.
if printf '%s\n' "${files[@]}" | xargs -P "$JOBS" -n 4 "$CLANG_TIDY" -p "$db" --quiet >"$log" 2>&1; then
  echo "lint: clang-tidy clean over ${#files[@]} files"
else
  grep -E "(error|warning):" "$log" | sort -u || cat "$log"
  echo "lint: clang-tidy found the problems above" >&2
  exit 1
fi
