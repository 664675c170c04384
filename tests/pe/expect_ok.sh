#!/usr/bin/env bash
# expect_ok.sh REGEX CMD...: passes when CMD exits 0 and its output (stdout and
# stderr together) matches REGEX (extended regex; empty matches anything).
# Prints both.
regex=$1; shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" >"$out" 2>&1
rc=$?
cat "$out"
if [ "$rc" -ne 0 ]; then echo "expect_ok: '$*' exited $rc, expected 0" >&2; exit 1; fi
if [ -n "$regex" ] && ! grep -Eq -- "$regex" "$out"; then
  echo "expect_ok: output does not match /$regex/" >&2; exit 1
fi
echo "expect_ok: ok"
