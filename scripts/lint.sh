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
for f in compile_commands.json unity_batches.json; do
  [ -f "$BUILD/$f" ] || { echo "lint: $BUILD/$f is missing; run 'make build'" >&2; exit 1; }
done
cd "$ROOT"
mapfile -t files < <(find src bench -name '*.cpp' | sort)
log=$(mktemp)
db=$(mktemp -d)
trap 'rm -rf "$log" "$db"' EXIT
# The build's precompiled headers are GCC's: clang-tidy gets the commands without them. And most of clang-tidy's time
# went into parsing and matching the same standard, JSON and logging headers for every file, so each module's files
# are checked in batches of eight, the same batches the sanitizer builds compile (QUEEN_UNITY_BUILD, in the order
# CMake globs them; batch size and the files kept apart come from CMake's $BUILD/unity_batches.json); a finding
# still names its own file. Files outside a module and files kept apart are checked alone. The batch files live
# outside the tree, so the check list is named explicitly.
python3 - "$BUILD" "$db" "${files[@]}" >"$db/units" <<'PY'
import json, os, re, sys
build, out, files = sys.argv[1], sys.argv[2], sys.argv[3:]
unity = json.load(open(os.path.join(build, "unity_batches.json")))
by_file = {}
for entry in json.load(open(os.path.join(build, "compile_commands.json"))):
    entry["command"] = re.sub(r" -Winvalid-pch| -include \S+/cmake_pch\.hxx", "", entry["command"])
    by_file[os.path.realpath(entry["file"])] = entry
alone = set(unity["apart"])
size = unity["batch_size"]
modules, entries, units = {}, [], []
for f in files:
    entry = by_file.get(os.path.realpath(f))
    if entry is None:
        # The RabbitMQ anchor is built only where librabbitmq is installed (scripts/deps.sh bench).
        if f.startswith("bench/rabbitmq/"):
            print(f"lint: {f} is not built here (no librabbitmq); not checked", file=sys.stderr)
            continue
        sys.exit(f"lint: {f} has no compile command in {build}/compile_commands.json; run 'make build'")
    # A module's files, in its subfolders too (src/http/transport/, src/http/api/), as CMake globs them.
    if f.startswith("src/") and f.count("/") >= 2 and f not in alone:
        modules.setdefault(f.split("/")[1], []).append(entry)
    else:
        entries.append(entry)
        units.append(f)
for module, members in sorted(modules.items()):
    members.sort(key=lambda m: m["file"])
    for n in range(0, len(members), size):
        batch = members[n:n + size]
        path = os.path.join(out, f"lint_{module}_{n // size}.cpp")
        with open(path, "w") as unit:
            unit.writelines(f'#include "{m["file"]}"\n' for m in batch)
        first = batch[0]
        entries.append({"directory": first["directory"], "file": path,
                        "command": first["command"].replace(first["file"], path)})
        units.append(path)
json.dump(entries, open(os.path.join(out, "compile_commands.json"), "w"))
print("\n".join(units))
PY
mapfile -t units <"$db/units"
[ ${#units[@]} -gt 0 ] || { echo "lint: no files to check" >&2; exit 1; }
# --quiet drops the "N warnings generated" lines of headers outside HeaderFilterRegex.
if printf '%s\n' "${units[@]}" | xargs -P "$JOBS" -n 1 "$CLANG_TIDY" --config-file="$ROOT/.clang-tidy" -p "$db" --quiet >"$log" 2>&1; then
  echo "lint: clang-tidy clean over ${#files[@]} files"
else
  grep -E "(error|warning):" "$log" | sort -u || cat "$log"
  echo "lint: clang-tidy found the problems above" >&2
  exit 1
fi
