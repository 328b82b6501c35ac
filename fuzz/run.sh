#!/usr/bin/env bash
# Builds the libFuzzer harnesses (fuzz/CMakeLists.txt -> build-fuzz) and runs them.
#   fuzz/run.sh build           configure (clang-14, ccache) and build only
#   fuzz/run.sh smoke           every harness: the committed crash-* inputs whole, each corpus file once, then
#                               FUZZ_SMOKE_SECONDS (10) of mutation (inputs up to FUZZ_MAX_LEN, 4096 bytes);
#                               non-zero exit on any crash, leak, sanitizer report or broken invariant
#   fuzz/run.sh fuzz [names]    every (or the named) harness for FUZZ_SECONDS (60) each, growing the working
#                               corpus build-fuzz/corpus/<harness> from the committed seeds in fuzz/corpus/<harness>
# Crash inputs go to build-fuzz/artifacts/<harness>/; reproduce one with build-fuzz/fuzz_<harness> <file>.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD=${FUZZ_BUILD:-$ROOT/build-fuzz}
JOBS=${JOBS:-2}
MODE=${1:-smoke}
shift || true

ALL=(spool_record spool_file mesh_frame config_env http_body http_wire jwt_token payload_envelope)
declare -A DICT=([spool_record]=json [spool_file]=json [http_body]=json [config_env]=config [http_wire]=http [jwt_token]=json
                 [payload_envelope]=json)

build() {
  # One build at a time: .ci/run starts one in the background (make build-fuzz), and fuzz-smoke asks for it
  # again; the second waits for the first and then finds the harnesses up to date.
  mkdir -p "$BUILD"
  exec 9>"$BUILD/.lock"
  flock 9
  if [ ! -f "$BUILD/CMakeCache.txt" ]; then
    CC=${FUZZ_CC:-clang-14} CXX=${FUZZ_CXX:-clang++-14} \
      cmake -S "$ROOT/fuzz" -B "$BUILD" >/dev/null || exit 1
  fi
  cmake --build "$BUILD" -j "$JOBS" || exit 1
}

# run <harness> <seconds> <working corpus dir>
run() {
  local h=$1 seconds=$2 work=$3
  local bin="$BUILD/fuzz_$h"
  if [ ! -x "$bin" ]; then
    echo "fuzz: $h: not built (skipped)"
    return 0
  fi
  mkdir -p "$work" "$BUILD/artifacts/$h" "$ROOT/fuzz/corpus/$h"
  local log="$BUILD/logs/$h.log"
  mkdir -p "$BUILD/logs"
  local start=$SECONDS
  : >"$log"
  # The inputs of fixed findings first, each run once and whole (some are larger than the mutation length).
  local crashes=("$ROOT/fuzz/corpus/$h"/crash-*)
  if [ -e "${crashes[0]}" ] && ! "$bin" "${crashes[@]}" >>"$log" 2>&1; then
    echo "fuzz: $h: FAILED on a committed crash input; log $log"
    grep -E 'ERROR: |runtime error|fuzz invariant|Running: ' "$log" | tail -4 | sed 's/^/  /'
    return 1
  fi
  local args=(-max_total_time="$seconds" -max_len="${FUZZ_MAX_LEN:-4096}" -timeout=10 -rss_limit_mb=2048
              -print_final_stats=1 -artifact_prefix="$BUILD/artifacts/$h/")
  [ -n "${DICT[$h]:-}" ] && args+=(-dict="$ROOT/fuzz/dict/${DICT[$h]}.dict")
  "$bin" "${args[@]}" "$work" "$ROOT/fuzz/corpus/$h" >>"$log" 2>&1
  local rc=$?
  local stats
  stats=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}')
  if [ $rc -ne 0 ]; then
    echo "fuzz: $h: FAILED (exit $rc) after $((SECONDS - start)) s; log $log"
    grep -E 'ERROR: |runtime error|fuzz invariant|Test unit written|==ERROR' "$log" | head -8 | sed 's/^/  /'
    echo "  reproduce: $bin <the crash file above>"
    return 1
  fi
  echo "fuzz: $h: ok, ${stats:-?} inputs in $((SECONDS - start)) s"
}

names=("$@")
[ ${#names[@]} -eq 0 ] && names=("${ALL[@]}")
case "$MODE" in
  build) build ;;
  smoke)
    build
    failed=0
    for h in "${names[@]}"; do
      work=$(mktemp -d "${TMPDIR:-/tmp}/queen-fuzz-smoke-XXXXXX")
      run "$h" "${FUZZ_SMOKE_SECONDS:-10}" "$work" || failed=1
      rm -rf "$work"
    done
    exit $failed
    ;;
  fuzz)
    build
    failed=0
    for h in "${names[@]}"; do run "$h" "${FUZZ_SECONDS:-60}" "$BUILD/corpus/$h" || failed=1; done
    exit $failed
    ;;
  *) echo "usage: fuzz/run.sh build|smoke|fuzz [harness...]" >&2; exit 2 ;;
esac
