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
#   aset  mn_prog aset: the deprecated active-set routines (shmem_barrier,
#         broadcast64, fcollect64, collect64, alltoall64, long_sum_to_all
#         with pSync) across hosts; must print one "aset ok" line
#   selftest  mn_prog selftest with SHMEM_SELFTEST=1: every allocation is
#         self-tested across hosts; must print "selftest ok" and the
#         self-test's summary (all passed)
#   mismatch  one PE allocates another size (a non-leader, then the second
#         host's leader): the job ends non-zero with both calls named
#   kill  a PE SIGKILLs itself on the second host: every PE ends, mpirun
#         exits non-zero, no process, no new /dev/shm entry and no namespace
#         is left
#   uid_rma, uid_coll, uid_kill  the rma and coll cases and a PE killed, with
#         no launcher: every PE started by `ip netns exec` in its host,
#         rank 0 making the unique ID (written to a file the others read),
#         shmemx_init_uniqueid in each; the kill case: every PE ends
#         non-zero within 30 s and names the dead PE, nothing is left
# Exit 0 pass, 1 fail, 77 skip (not root, no `ip netns`, no mpirun, no UCX).
#
# The two hosts: scripts/hosts.sh (network namespaces joined by a veth pair,
# mpirun in host A reaching host B through an rsh agent).  Everything is
# removed on exit (trap), failures included.
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
# shellcheck source=../../scripts/hosts.sh
. "$(dirname "$0")/../../scripts/hosts.sh"
NA=$HOSTS_NA NB=$HOSTS_NB ID=$HOSTS_ID
MARK="multinode-test-$CASE-$ID"
FAILS=0
fail() { echo "FAIL [$CASE]: $*"; FAILS=$((FAILS + 1)); }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

cleanup() {
    hosts_down
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

hosts_up "$T"
case $? in
0) ;;
77) skip "$HOSTS_ERR" ;;
*) echo "FAIL [$CASE]: $HOSTS_ERR"; exit 1 ;;
esac
hosts_mpi "$K"
MPI=("${HOSTS_MPI[@]}" -x LSAN_OPTIONS ${MN_EXTRA:-})

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
        left=$(pgrep -f "$MARK"; hosts_pids)
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

case_aset() {
    mpi 0 "$PROG" aset "$MARK"
    expect_lines 1 "^mn_prog: aset ok, $((2 * K)) PEs, $K remote"
    no_procs
}

case_selftest() {
    MPI+=(-x SHMEM_SELFTEST=1)
    mpi 0 "$PROG" selftest "$MARK"
    expect_lines 1 "^mn_prog: selftest ok, $((2 * K)) PEs, $K remote"
    expect_lines 1 "self-test: [0-9]+ blocks checked on $((2 * K)) PEs .*all passed"
    no_procs
}

# An argument mismatch found across hosts by the two-level barrier: by the
# leader of the odd PE's node (PE 1: not a leader when K > 1) and by the next
# node's leader (PE K: the second host's leader).
case_mismatch() {
    local odd
    for odd in 1 "$K"; do
        mpi nz "$PROG" mismatch "$MARK" "$odd"
        expect_lines 0 "mismatch not detected"
        [ "$(lines 'collective mismatch: .*shmem_malloc\(64\).*shmem_malloc\(128\)|collective mismatch: .*shmem_malloc\(128\).*shmem_malloc\(64\)')" -ge 1 ] ||
            fail "PE $odd's different size was not reported with both calls: $(head -c 3000 "$T/out" "$T/err")"
        [ "$MS" -lt 30000 ] || fail "the job took $MS ms to end after the mismatch"
        no_procs
    done
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

# uid MODE EXPECTED: 2K PEs with no launcher (see the top); sets RC (0 when
# every PE exited as EXPECTED says: 0, or nz) and MS; output in $T/out, $T/err.
uid() {
    local mode=$1 want=$2 r ns t0 pids=() bad=0 st
    rm -f "$T/uid"
    t0=$(now_ms)
    for r in $(seq 0 $((2 * K - 1))); do
        ns=$NA
        [ "$r" -lt "$K" ] || ns=$NB
        MN_UID_FILE=$T/uid MN_UID_RANK=$r MN_UID_NRANKS=$((2 * K)) \
            timeout -k 5 120 ip netns exec "$ns" "$PROG" "$mode" "$MARK" >>"$T/out" 2>>"$T/err" &
        pids+=($!)
    done
    for r in "${!pids[@]}"; do
        wait "${pids[$r]}"
        st=$?
        if { [ "$want" = nz ] && [ "$st" = 0 ]; } || { [ "$want" != nz ] && [ "$st" != "$want" ]; }; then
            fail "rank $r exited $st, expected $want"
            bad=1
        fi
    done
    MS=$(($(now_ms) - t0))
    RC=$bad
    [ "$bad" = 0 ] && [ -z "${MN_VERBOSE:-}" ] || { sed 's/^/    out: /' "$T/out" | head -20; sed 's/^/    err: /' "$T/err" | head -30; }
}

case_uid_rma() {
    uid rma 0
    expect_lines 1 "^mn_prog: rma ok, $((2 * K)) PEs, $K remote"
    no_procs
}

case_uid_coll() {
    uid coll 0
    expect_lines 1 "^mn_prog: coll ok, $((2 * K)) PEs, $K remote"
    no_procs
}

case_uid_kill() {
    uid kill nz
    [ "$MS" -lt 30000 ] || fail "the job took $MS ms to end after the PE died"
    expect_lines 1 "PE $((2 * K - 1)) \(pid [0-9]+ on [^)]+\) ended without shmem_finalize"
    no_procs
}

"case_$CASE"
if [ "$FAILS" != 0 ]; then
    echo "$CASE: $FAILS failure(s)"
    exit 1
fi
echo "$CASE: ok"
