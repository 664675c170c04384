#!/usr/bin/env bash
# scale.sh: start, barrier and finalize at large PE counts on this machine
# (issue 17, item 8): bench_scale (bench/scale.c) through symrun at each count,
# wall time per phase, each seconds since the launch:
#   main      the last PE entered main (symrun forked and exec'd them all)
#   init      the last PE returned from shmem_init
#   barrier1  the last PE left the first shmem_barrier_all
#   barriers  10 more barriers, all PEs (seconds for the 10)
#   finalize  PE 0's shmem_finalize
#   total     the whole launch, until symrun exited
#   alloc, bcast   shmem_malloc(1 MiB) written by every PE, then its broadcast
#             from PE 0: the slowest PE's seconds
#   rss, pte  after those, per PE (/proc/self/status VmRSS, VmPTE): max / mean MiB
#
#   bench/scale.sh [--pes "128 256 512 1024"] [build-dir]
#
# Each launch is limited to RUN_TIMEOUT seconds (default 600); the heap is
# SHMEM_SYMMETRIC_SIZE (default 16M per PE).  Not a test: minutes at 1024 PEs
# on 2 CPUs.
set -u -o pipefail
pes="128 256 512 1024"
build=""
while [ $# -gt 0 ]; do
    a=$1
    shift
    case "$a" in
    --pes) pes=${1:?}; shift ;;
    -h | --help) sed -n '2,17p' "$0"; exit 0 ;;
    -*) echo "scale.sh: unknown option '$a'" >&2; exit 2 ;;
    *) build=$a ;;
    esac
done
here=$(cd "$(dirname "$0")" && pwd)
build=${build:-$here/../build}
export SHMEM_SYMMETRIC_SIZE=${SHMEM_SYMMETRIC_SIZE:-16M}
run_timeout=${RUN_TIMEOUT:-600}
echo "scale.sh: $(nproc) CPUs, SHMEM_SYMMETRIC_SIZE=$SHMEM_SYMMETRIC_SIZE, $(date -u +%FT%TZ)"
printf '%6s %8s %8s %9s %13s %9s %8s %8s %8s %13s %13s %s\n' pes main init barrier1 "barriers(10)" \
    finalize total alloc bcast "rss max/mean" "pte max/mean" status
for n in $pes; do
    t0=$(date +%s%N)
    out=$(SCALE_T0_NS=$t0 timeout --foreground -s INT "$run_timeout" \
        "$build/tools/symrun" -n "$n" "$build/bench/bench_scale" 2>&1)
    rc=$?
    total=$(( ($(date +%s%N) - t0) / 1000000 ))
    line=$(grep '^scale: ' <<< "$out")
    if [ -n "$line" ]; then
        read -r _ _ _ _ m _ i _ b _ bb _ f _ al _ bc _ rx _ rm _ px _ pm <<< "$line"
        printf '%6s %8s %8s %9s %13s %9s %8s %8s %8s %13s %13s %s\n' "$n" "$m" "$i" "$b" "$bb" "$f" \
            "$(printf '%d.%03d' $((total / 1000)) $((total % 1000)))" "$al" "$bc" "$rx/$rm" \
            "$px/$pm" "exit $rc"
    else
        printf '%6s %s\n' "$n" "no result (exit $rc after $total ms): $(grep -m1 -v '^$' <<< "$out")"
    fi
done
