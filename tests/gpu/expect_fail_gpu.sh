#!/usr/bin/env bash
# expect_fail_gpu.sh REGEX CMD...: as tests/pe/expect_fail.sh (CMD must fail
# with REGEX in its output), but a run that printed "SKIP: no GPU" is passed
# on as exit 77, which ctest counts as skipped.
regex=$1; shift
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" >"$out" 2>&1
rc=$?
cat "$out" >&2
if grep -q '^SKIP: no GPU' "$out"; then exit 77; fi
if [ "$rc" -eq 0 ]; then echo "expect_fail_gpu: '$*' exited 0, expected failure" >&2; exit 1; fi
if [ -n "$regex" ] && ! grep -Eq -- "$regex" "$out"; then
  echo "expect_fail_gpu: output does not match /$regex/" >&2; exit 1
fi
echo "expect_fail_gpu: ok (exit $rc)"
