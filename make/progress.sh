#!/usr/bin/env bash
# make/progress.sh NAME COMMAND: builds one tool, saying which it is, how many of this run's
# tool builds are started, done and left, and how long it took. build_tools (make/tools.mk) sets
# BUILD_PROGRESS (a directory of counters, shared by the builds it runs side by side) and
# BUILD_TOTAL (how many tools were missing); a tool built on its own just says its time.
set -euo pipefail
name=$1
shift

# count FILE: add one to the counter in FILE and print it; flock, since builds run in parallel.
count() {
	flock "$1" bash -c 'n=$(( $(cat "$0" 2>/dev/null || echo 0) + 1 )); echo "$n" > "$0"; echo "$n"' "$1"
}

if [ -n "${BUILD_PROGRESS:-}" ]; then
	echo "[$(count "$BUILD_PROGRESS/started") of ${BUILD_TOTAL}] building $name"
else
	echo "building $name"
fi
start=$(date +%s)
# The build's own output (go's "downloading" lines, hundreds on a fresh machine) would bury
# the progress lines: keep it, and show it only if the build fails.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! bash -c "$1" > "$log" 2>&1; then
	cat "$log" >&2
	echo "building $name failed: the command was $1" >&2
	exit 1
fi
took=$(( $(date +%s) - start ))
took="$((took / 60))m$((took % 60))s"
if [ -n "${BUILD_PROGRESS:-}" ]; then
	done=$(count "$BUILD_PROGRESS/done")
	echo "[$done of ${BUILD_TOTAL}] built $name in $took ($(( BUILD_TOTAL - done )) left)"
else
	echo "built $name in $took"
fi
