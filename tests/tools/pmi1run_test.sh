#!/usr/bin/env bash
# tools_pmi1run: bench/gpu/pmi1run.py (the PMI-1 launcher for runs of NVIDIA's
# NVSHMEM beside symheap) with 1, 2 and 4 processes, a process that fails, and
# one that hangs past --timeout.  usage: pmi1run_test.sh SOURCE_DIR
set -u
src=$1
run="python3 $src/bench/gpu/pmi1run.py"
client="python3 $src/tests/tools/pmi1run_client.py"
fail=0
for n in 1 2 4; do
    out=$($run -n $n --timeout 60 $client) || { echo "FAIL: -n $n exited $?"; fail=1; }
    [ "$(grep -o "of $n: ok" <<<"$out" | wc -l)" = "$n" ] || { echo "FAIL: -n $n: $out"; fail=1; }
done
$run -n 3 --timeout 60 $client fail >/dev/null 2>&1; rc=$?
[ $rc = 3 ] || { echo "FAIL: a rank exiting 3 gave $rc"; fail=1; }
t0=$(date +%s)
$run -n 2 --timeout 2 $client hang 2>/dev/null >/dev/null; rc=$?
[ $rc = 124 ] || { echo "FAIL: a hanging rank gave $rc, not 124"; fail=1; }
[ $(( $(date +%s) - t0 )) -lt 20 ] || { echo "FAIL: the timeout took $(( $(date +%s) - t0 )) s"; fail=1; }
[ $fail = 0 ] && echo "pmi1run: all cases passed"
exit $fail
