#!/usr/bin/env bash
# hosts.sh: symheap against Open MPI's OSHMEM across two "hosts" (issue 9), in one table.
#
#   bench/hosts.sh [--quick] [--md FILE] [--pes "K..."] [--only NAMES] [build-dir]
#
# The hosts are network namespaces joined by a veth pair (scripts/hosts.sh; root only);
# PEs on different hosts talk through UCX over TCP.  Both libraries are started the same
# way: Open MPI's mpirun in host A with an rsh agent into host B, UCX_TLS=tcp and
# UCX_NET_DEVICES=symv0; OSHMEM with --mca spml ucx.  bench.c runs with --idle-wait (PEs
# a benchmark leaves idle block in shmem_long_wait_until: OSHMEM over TCP moves bytes into
# a PE only inside such calls).  OSHMEM also gets --mca mpi_yield_when_idle 1: its default
# busy polling keeps the kernel thread that moves the veth's packets (ksoftirqd) off the 2
# CPUs until the next tick, 4-8 ms per operation, which would say nothing about OSHMEM;
# and with 2 PEs per host --mca btl self,tcp: with its shared-memory BTL (vader) OSHMEM
# 4.1 crashes in shmem_init in these namespaces (and without it, in shmem_finalize after
# its results, which are kept).
# Per round: 1 PE per host (put/get/fadd 8 B, one-way ping-pong, barrier, broadcast,
# put/get bandwidth) and 2 PEs per host (barrier, broadcast), the libraries taking turns.
# --pes "2 4" --only reduce,fcollect instead runs those benchmarks (bench.c's names)
# with K PEs per host for each K (the node-aware collectives, issue 16).
# Each launch prints per-metric medians over its trials; the table shows the median over
# 3 rounds (--quick: 1 round of short trials).  sym/OSH is a time ratio: below 1 symheap
# is faster (bandwidth is inverted to match).  --md FILE also writes the table to FILE.
#
# Exits 77 when it cannot make the hosts (not root, no ip, no mpirun); a missing oshcc
# leaves the OSHMEM column empty.  Removes what it made, also on Ctrl-C.
set -u -o pipefail

rounds=3
bargs=(--trials 9)
build="" md="" pes="" only=""
while [ $# -gt 0 ]; do
    a=$1
    shift
    case "$a" in
    --quick) rounds=1 bargs=(--quick) ;;
    --md) md=${1:?--md needs a file}; shift ;;
    --pes) pes=${1:?--pes needs PEs per host, e.g. \"2 4\"}; shift ;;
    --only) only=${1:?--only needs benchmark names}; shift ;;
    -h | --help) sed -n '3,5s/^# \{0,1\}//p' "$0"; exit 0 ;;
    -*) echo "hosts.sh: unknown option '$a'" >&2; exit 2 ;;
    *) build=$a ;;
    esac
done
here=$(cd "$(dirname "$0")" && pwd)
build=${build:-$here/../build}
note() { echo "# $*" >&2; }

[ "$(id -u)" = 0 ] || { note "not root: network namespaces need root"; exit 77; }
command -v ip >/dev/null || { note "no ip command (apt-get install iproute2)"; exit 77; }
command -v mpirun >/dev/null || { note "no mpirun (apt-get install openmpi-bin)"; exit 77; }
[ -x "$build/bench/bench_symheap" ] || { echo "hosts.sh: no $build/bench/bench_symheap: build first (./dev build)" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/symheap-hosts.XXXXXX") || exit 1
# shellcheck source=../scripts/hosts.sh
. "$here/../scripts/hosts.sh"
cleanup() { hosts_down; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'note interrupted; exit 130' INT
trap 'exit 143' TERM
hosts_up "$tmp" || { note "$HOSTS_ERR"; exit 77; }

osh=""
if command -v oshcc >/dev/null; then
    if oshcc -std=c11 -O2 -o "$tmp/bench_oshmem" "$here/bench.c" "$here/common.c" 2>"$tmp/cc.err"; then
        osh=$tmp/bench_oshmem
    else
        echo "hosts.sh: oshcc failed:" >&2; cat "$tmp/cc.err" >&2; exit 1
    fi
else
    note "no oshcc (apt-get install libopenmpi-dev): no OSHMEM column"
fi

errors=0
# launch TAG K ONLY: one mpirun with K PEs per host; 'bench' lines go to results, tagged
launch() {
    local tag=$1 k=$2 only=$3 prog=$build/bench/bench_symheap extra=()
    if [ "$tag" = oshmem ]; then
        prog=$osh extra=(--mca spml ucx --mca btl "$([ "$k" = 1 ] && echo ^openib || echo self,tcp)"
                         --mca mpi_yield_when_idle 1)
    fi
    hosts_mpi "$k"
    note "running: $tag, 2 hosts x $k PEs: $only"
    timeout -k 5 180 ip netns exec "$HOSTS_NA" "${HOSTS_MPI[@]}" "${extra[@]}" \
        "$prog" --idle-wait "${bargs[@]}" --only "$only" >"$tmp/out" 2>"$tmp/err" </dev/null
    local rc=$? got
    got=$(grep -c '^bench ' "$tmp/out")
    awk -v t="$tag" -v k="$k" '$1 == "bench" { print t, $2, "2x" k, $4, $5, $6 }' \
        "$tmp/out" >>"$tmp/results"
    if [ "$rc" != 0 ]; then
        # OSHMEM 4.1 with 2 PEs per host segfaults in shmem_finalize here, after its
        # results: keep them, say so
        echo "hosts.sh: $tag with 2 x $k PEs exited $rc after $got result line(s):" >&2
        grep -v '^bench ' "$tmp/out" "$tmp/err" | grep -m 3 -iE 'signal|error|fault' >&2
        [ "$got" -gt 0 ] || errors=$((errors + 1))
    fi
}

touch "$tmp/results"
for ((r = 1; r <= rounds; r++)); do
    note "round $r of $rounds"
    for tag in symheap oshmem; do
        [ "$tag" = oshmem ] && [ -z "$osh" ] && continue
        if [ -n "$pes$only" ]; then
            for k in ${pes:-1 2}; do launch "$tag" "$k" "${only:-barrier,bcast}"; done
            continue
        fi
        launch "$tag" 1 put,get,fadd,pingpong,barrier,bcast
        launch "$tag" 2 barrier,bcast
    done
done

table() {
    awk '
    function med(k,   n, i, j, x, v) {
        n = cnt[k]; if (!n) return ""
        for (i = 1; i <= n; i++) { x = vals[k, i] + 0
            for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]
            v[j + 1] = x }
        return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    function f3(x) { return x == "" ? "-" : sprintf(x >= 100 ? "%.1f" : x >= 1 ? "%.2f" : "%.3f", x) }
    {
        row = $2 " " $4 SUBSEP $3
        if (!(row in seen)) { seen[row] = 1; rows[++n] = row; unit[row] = $6 }
        k = $1 SUBSEP row; vals[k, ++cnt[k]] = $5
    }
    END {
        print "| metric | hosts x PEs | symheap | OSHMEM | sym/OSH |"
        print "|---|---|--:|--:|--:|"
        for (i = 1; i <= n; i++) {
            split(rows[i], a, SUBSEP)
            s = med("symheap" SUBSEP rows[i]); o = med("oshmem" SUBSEP rows[i])
            q = (s == "" || o == "" || o + 0 == 0 || s + 0 == 0) ? "-" : \
                sprintf("%.2f", unit[rows[i]] == "GB/s" ? o / s : s / o)
            printf "| %s (%s) | %s | %s | %s | %s |\n", a[1], unit[rows[i]], a[2], f3(s), f3(o), q
        }
    }' "$tmp/results"
}

{
    echo "Across two hosts (network namespaces, UCX over TCP on a veth pair), $(date -u +%Y-%m-%d), $(nproc) CPUs;"
    echo "medians over $rounds round(s); sym/OSH < 1: symheap faster."
    echo
    table
} | tee "${md:-/dev/null}"
[ "$errors" = 0 ]
