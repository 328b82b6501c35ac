#!/usr/bin/env bash
# Builds the broker of the previous release (the release `make test-upgrade` upgrades from) into $BUILD_PREV:
# the tree of the release's commit (scripts/sqitch_release.py) is exported into $BUILD_PREV/src, and only
# its queen-broker target is built there, through ccache like every build. An export of the same commit is
# kept, so a second run only checks that the binary is up to date.
#   BUILD_PREV (default build-prev)  JOBS (default nproc)  QUEEN_UPGRADE_FROM (default: from the plan)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD_PREV=${BUILD_PREV:-$ROOT/build-prev}
JOBS=${JOBS:-$(nproc)}
mkdir -p "$BUILD_PREV"
# One build at a time: .ci/run starts one in the background, and make test-upgrade asks for it again.
exec 9>"$BUILD_PREV/.lock"
flock 9
release=$("$ROOT/scripts/sqitch_release.py" previous)
commit=$("$ROOT/scripts/sqitch_release.py" commit "$release")
src=$BUILD_PREV/src
# $BUILD_PREV/commit names the commit of a finished build (tests/upgrade checks it), src/.commit the export.
# Another commit gets a fresh build dir (ccache makes it cheap): git archive stamps files with the commit's
# time, which may be older than the objects of the last build, and make would keep those.
if [ "$(cat "$src/.commit" 2>/dev/null || true)" != "$commit" ]; then
  rm -rf "$src" "$BUILD_PREV/build" "$BUILD_PREV/commit"
  mkdir "$src"
  git -C "$ROOT" archive "$commit" | tar -x -m -C "$src"
  echo "$commit" >"$src/.commit"
fi
echo "build-previous: release $release, commit ${commit:0:12}, into $BUILD_PREV"
cmake -S "$src" -B "$BUILD_PREV/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD_PREV/build" -j "$JOBS" --target queen-broker
echo "$commit" >"$BUILD_PREV/commit"
