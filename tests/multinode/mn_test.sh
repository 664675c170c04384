#!/usr/bin/env bash
# mn_test.sh - PEs on two "hosts" (network namespaces joined by a veth pair)
# under Open MPI's mpirun; the hosts' PEs talk through UCX over TCP.
#
#   mn_test.sh CASE BUILD_DIR WORK_DIR PES_PER_HOST
#
# Cases:
#   rma   mn_prog rma: put/get/AMO/fence/quiet/signal/wait_until/barrier
#         across hosts, checked by the program; must print one "rma ok" line
#   coll  mn_prog coll: team collectives (broadcast, collect, fcollect,
#         alltoall(s), reductions, scans) and splits on teams spanning the
#         hosts, checked by the program; must print one "coll ok" line
#   kill  a PE SIGKILLs itself on the second host: every PE ends, mpirun
#         exits non-zero, no process, no new /dev/shm entry and no namespace
#         is left
# Exit 0 pass, 1 fail, 77 skip (not root, no `ip netns`, no mpirun, no UCX).
#
# Layout: namespaces NA, NB (unique names per run) with one veth end each,
# both ends renamed symv0, addresses 10.77.0.1/24 and 10.77.0.2/24 (they
# exist only inside the namespaces, so concurrent runs do not clash).
# mpirun runs in NA with --host 10.77.0.1:K,10.77.0.2:K: the first host is
# its own (it owns that address), the second is reached through the rsh
# agent ($T/rsh), which runs Open MPI's daemon with `ip netns exec NB`.
# Everything is removed on exit (trap), failures included.
set -u
CASE=$1 B=$2 WORK=$3 K=${4:-1}
skip() { echo "skip: $*"; exit 77; }
[ "${SYMHEAP_UCX:-ON}" != OFF ] || skip "built without the UCX transport (SYMHEAP_UCX=OFF)"
[ "$(id -u)" = 0 ] || skip "not root: creating network namespaces needs root"
command -v ip >/dev/null || skip "no ip command (Debian: apt-get install iproute2)"
MPIRUN=${MPIRUN:-$(command -v mpirun)}
[ -n "$MPIRUN" ] || skip "no mpirun (Debian: apt-get install openmpi-bin)"
ldconfig -p 2>/dev/null | grep -q 'libucp\.so\.0' || skip "no libucp.so.0 (Debian: apt-get install libucx0)"
PROG=$B/tests/multinode/mn_prog
case $K in [1-9]|[1-9][0-9]) ;; *) echo "FAIL [$CASE]: PES_PER_HOST='$K' is not a number"; exit 1 ;; esac
[ -x "$PROG" ] || { echo "FAIL [$CASE]: $PROG is missing: build the tree first"; exit 1; }
SUPP=$(cd "$(dirname "$0")" && pwd)/lsan.supp
export LSAN_OPTIONS="suppressions=$SUPP${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
mkdir -p "$WORK"
T=$(mktemp -d "$WORK/$CASE.XXXXXX")
ID=$$-$RANDOM
NA=symheap-mn-$ID-a NB=symheap-mn-$ID-b
VA=smv$$a VB=smv$$b
MARK="multinode-test-$CASE-$ID"
FAILS=0
fail() { echo "FAIL [$CASE]: $*"; FAILS=$((FAILS + 1)); }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

cleanup() {
    for ns in "$NA" "$NB"; do
        ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
        ip netns del "$ns" 2>/dev/null
    done
    ip link del "$VA" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

ip netns add "$NA" 2>"$T/ns.err" || skip "ip netns add refused: $(cat "$T/ns.err")"
ip netns add "$NB" && ip link add "$VA" type veth peer name "$VB" &&
    ip link set "$VA" netns "$NA" && ip link set "$VB" netns "$NB" &&
    ip -n "$NA" link set "$VA" name symv0 && ip -n "$NB" link set "$VB" name symv0 &&
    ip -n "$NA" addr add 10.77.0.1/24 dev symv0 && ip -n "$NB" addr add 10.77.0.2/24 dev symv0 &&
    for ns in "$NA" "$NB"; do
        ip -n "$ns" link set lo up && ip -n "$ns" link set symv0 up || exit 1
    done || { echo "FAIL [$CASE]: cannot set up the namespaces"; exit 1; }
ip netns exec "$NA" ping -c 1 -W 5 10.77.0.2 >/dev/null 2>&1 ||
    ip netns exec "$NA" bash -c 'exec 3<>/dev/tcp/10.77.0.2/1' 2>&1 | grep -q refused ||
    { echo "FAIL [$CASE]: host A cannot reach host B over the veth"; exit 1; }

# The rsh agent: mpirun calls it as `rsh HOST COMMAND...`.
cat >"$T/rsh" <<AGENT
#!/bin/sh
host=\$1
shift
case \$host in
10.77.0.1) ns=$NA ;;
10.77.0.2) ns=$NB ;;
*) echo "rsh agent: unknown host \$host" >&2; exit 255 ;;
esac
exec ip netns exec \$ns sh -c "\$*"
AGENT
chmod +x "$T/rsh"

MPI=("$MPIRUN" --allow-run-as-root --oversubscribe --mca plm_rsh_agent "$T/rsh"
     --mca oob_tcp_if_include 10.77.0.0/24 --mca btl_tcp_if_include 10.77.0.0/24
     --host "10.77.0.1:$K,10.77.0.2:$K" -np $((2 * K))
     -x UCX_TLS=tcp -x UCX_NET_DEVICES=symv0 -x LSAN_OPTIONS ${MN_EXTRA:-})

# mpi EXPECTED_RC ARGS...: mpirun in host A (stdout $T/out, stderr $T/err);
# sets RC and MS.  EXPECTED_RC "nz": any non-zero status.
mpi() {
    local want=$1 t0
    shift
    t0=$(now_ms)
    timeout -k 5 120 ip netns exec "$NA" "${MPI[@]}" "$@" >"$T/out" 2>"$T/err"
    RC=$?
    MS=$(($(now_ms) - t0))
    [ -z "${MN_VERBOSE:-}" ] || { echo "rc $RC in $MS ms"; cat "$T/out" "$T/err"; }
    if { [ "$want" = nz ] && [ "$RC" = 0 ]; } || { [ "$want" != nz ] && [ "$RC" != "$want" ]; }; then
        fail "mpirun $* exited $RC, expected $want"
        sed 's/^/    out: /' "$T/out" | head -20
        sed 's/^/    err: /' "$T/err" | head -30
    fi
}
lines() { cat "$T/out" "$T/err" | grep -cE -- "$1"; }
expect_lines() { # COUNT REGEX
    local n
    n=$(lines "$2")
    [ "$n" = "$1" ] || fail "expected $1 line(s) matching '$2', got $n: $(head -c 3000 "$T/out" "$T/err")"
}

no_procs() { # nothing with our marker and nothing in the namespaces, within 5 s
    local t0 left
    t0=$(now_ms)
    while :; do
        left=$(pgrep -f "$MARK"; ip netns pids "$NA"; ip netns pids "$NB")
        [ -z "$left" ] && return
        if [ $(($(now_ms) - t0)) -gt 5000 ]; then
            fail "processes left behind: $(echo "$left" | xargs -r ps -o pid=,args= -p)"
            return
        fi
        sleep 0.1
    done
}

case_rma() {
    mpi 0 "$PROG" rma "$MARK"
    expect_lines 1 "^mn_prog: rma ok, $((2 * K)) PEs, $K remote"
    no_procs
}

case_coll() {
    mpi 0 "$PROG" coll "$MARK"
    expect_lines 1 "^mn_prog: coll ok, $((2 * K)) PEs, $K remote"
    no_procs
}

case_kill() {
    local before after new
    before=$(ls -A /dev/shm | sort)
    mpi nz "$PROG" kill "$MARK"
    [ "$(grep -c '^ready ' "$T/out")" = $((2 * K)) ] ||
        fail "not every PE got through shmem_init: $(head -c 3000 "$T/out" "$T/err")"
    [ "$MS" -lt 30000 ] || fail "the job took $MS ms to end after the PE died"
    no_procs
    after=$(ls -A /dev/shm | sort)
    new=$(comm -13 <(echo "$before") <(echo "$after"))
    [ -z "$new" ] || fail "new entries in /dev/shm: $new"
    cleanup
    trap - EXIT
    ip netns list | grep -q "symheap-mn-$ID" && fail "namespaces left: $(ip netns list)"
}

# Not a ctest case: bench/bench.c across the two hosts (one PE each by
# default), symheap and, when oshcc is installed, Open MPI's OSHMEM with
# --mca spml ucx over the same UCX transports (docs/cluster.md).
case_bench() {
    local only=${MN_BENCH_ONLY:-put,get,fadd,pingpong,barrier}
    mpi 0 "$B/bench/bench_symheap" --only "$only"
    grep '^bench ' "$T/out" | sed 's/^/symheap /'
    command -v oshcc >/dev/null || { echo "no oshcc: no OSHMEM column"; return; }
    oshcc -std=c11 -O2 -o "$T/bench_oshmem" "$B/../bench/bench.c" "$B/../bench/common.c" 2>/dev/null ||
        oshcc -std=c11 -O2 -o "$T/bench_oshmem" "$(dirname "$0")/../../bench/bench.c" \
            "$(dirname "$0")/../../bench/common.c" || { fail "oshcc failed"; return; }
    mpi 0 --mca spml ucx --mca btl ^openib "$T/bench_oshmem" --only "$only"
    grep '^bench ' "$T/out" | sed 's/^/oshmem  /'
}

"case_$CASE"
if [ "$FAILS" != 0 ]; then
    echo "$CASE: $FAILS failure(s)"
    exit 1
fi
echo "$CASE: ok"
