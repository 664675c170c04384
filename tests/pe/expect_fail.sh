#!/usr/bin/env bash
# expect_fail.sh REGEX CMD...: passes when CMD exits non-zero and its stderr
# matches REGEX (extended regex; empty matches anything).  Prints both.
regex=$1; shift
err=$(mktemp)
trap 'rm -f "$err"' EXIT
"$@" 2>"$err"
rc=$?
cat "$err" >&2
if [ "$rc" -eq 0 ]; then echo "expect_fail: '$*' exited 0, expected failure" >&2; exit 1; fi
if [ -n "$regex" ] && ! grep -Eq -- "$regex" "$err"; then
  echo "expect_fail: stderr does not match /$regex/" >&2; exit 1
fi
echo "expect_fail: ok (exit $rc)"
