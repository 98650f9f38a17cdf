#!/bin/sh
# Every installed man page (parallax(1), parallax-cli(1) and its commands') is read by
# groff as man(1) reads it (preconv for UTF-8) with every warning on; a warning fails.
# The FILES section names the installed documentation folder (issue 34, item 13).
status=0
for page in "$@"; do
  out=$(groff -k -man -Tutf8 -ww -z "$page" 2>&1)
  if [ -n "$out" ]; then
    echo "$page: $out"
    status=1
  fi
  if ! grep -q '^\.SH FILES' "$page" || ! grep -q 'share/doc/parallax' "$page"; then
    echo "$page: no FILES section naming share/doc/parallax"
    status=1
  fi
done
[ $status -eq 0 ] && echo "$# passed, 0 failed"
exit $status
