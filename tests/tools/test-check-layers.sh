#!/bin/sh
# tools/check-layers on the tree (it keeps the layers), and on copies of it broken
# two ways: a file that includes a header of a layer above its own, and two files
# that need each other. Each must fail (exit 1) naming the files. Usage: SRCROOT
set -eu
root=$1
check="$root/tools/check-layers"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 "$check" --root "$root"

copy () {
  rm -rf "$tmp/tree"
  mkdir -p "$tmp/tree/src" "$tmp/tree/include"
  cp -R "$root/src/core" "$tmp/tree/src/core"
  cp -R "$root/include/parallax" "$tmp/tree/include/parallax"
}

expect_failure () {
  if python3 "$check" --root "$tmp/tree" 2> "$tmp/err"; then
    echo "FAIL: check-layers passed a tree where $1" >&2
    exit 1
  fi
  if ! grep -qF "$2" "$tmp/err"; then
    echo "FAIL: check-layers did not say: $2" >&2
    cat "$tmp/err" >&2
    exit 1
  fi
}

# base/ may use nothing above it: the error unit including the search.
copy
printf '#include "parallax/plx-search.h"\n' >> "$tmp/tree/src/core/base/plx-error.c"
expect_failure "base/ includes optimize/" \
  "check-layers: src/core/base/plx-error.c (base/) includes include/parallax/plx-search.h (optimize/), a layer above it"

# Within one folder: plx-scenario.h includes plx-strategy.h; the strategy including
# the scenario's header makes the two need each other.
copy
printf '#include "parallax/plx-scenario.h"\n' >> "$tmp/tree/src/core/scenario/plx-strategy.c"
expect_failure "two files need each other" \
  "files that need each other: include/parallax/plx-scenario.h includes include/parallax/plx-strategy.h; src/core/scenario/plx-strategy.c includes include/parallax/plx-scenario.h"

# A file outside the role folders is refused (exit 2).
copy
touch "$tmp/tree/src/core/plx-stray.c"
set +e
python3 "$check" --root "$tmp/tree" 2> "$tmp/err"
status=$?
set -e
[ "$status" -eq 2 ] || { echo "FAIL: a stray file gave exit $status, not 2" >&2; exit 1; }
grep -qF "src/core/plx-stray.c is in no role folder" "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
echo "ok: the tree keeps its layers; a wrong direction, a loop and a stray file are refused"
