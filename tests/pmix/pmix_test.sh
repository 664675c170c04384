#!/usr/bin/env bash
# pmix_test.sh - symheap programs under Open MPI's mpirun (PMIx bootstrap).
#
#   pmix_test.sh CASE BUILD_DIR WORK_DIR [ARGS...]
#
# Cases:
#   run N REGEX PROG [ARGS...]  mpirun -np N PROG must exit 0 and print exactly
#                               one line matching REGEX (@N@ stands for N), so
#                               N processes that each think they are a job of
#                               one PE cannot pass
#   boot N MODE ARG             the bootstrap alone (boot_prog) under mpirun
#   forced                      SHMEM_BOOTSTRAP=pmix|single|symrun|bogus, and the
#                               automatic choice (symrun inside mpirun)
#   kill N                      a PE SIGKILLs itself after shmem_init: mpirun
#                               ends the job, no process and no file is left
#   fatal N                     a PE dies in a library error: one message, the
#                               job ends non-zero
#   watchdog                    a deadlock under mpirun: the watchdog report,
#                               exit 124
#   intrude silent|garbage      as another user (made here, removed after; root
#                               only), connect to a PE's memory-handle socket
#                               during shmem_init and send nothing or a fake
#                               header: the job still starts and ends well
#   multinode                   PEs on two (simulated) nodes: run through UCX
#                               (refused clearly when built without UCX)
# Exit 0 pass, 1 fail, 77 skip (no mpirun, or mpirun cannot start processes).
set -u
CASE=$1 B=$2 WORK=$3
shift 3
MPIRUN=${MPIRUN:-$(command -v mpirun)}
[ -n "$MPIRUN" ] || { echo "skip: no mpirun (Debian: apt-get install openmpi-bin)"; exit 77; }
MPI=("$MPIRUN" --oversubscribe)
[ "$(id -u)" = 0 ] && MPI+=(--allow-run-as-root)
PROG=$B/tests/pmix/pmix_prog BOOT=$B/tests/launcher/boot_prog
# Sanitizer builds: libpmix's own leaks are not ours (lsan.supp).
SUPP=$(cd "$(dirname "$0")" && pwd)/lsan.supp
export LSAN_OPTIONS="suppressions=$SUPP${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
mkdir -p "$WORK"
T=$(mktemp -d "$WORK/$CASE.XXXXXX")
trap 'rm -rf "$T"' EXIT
FAILS=0
fail() { echo "FAIL [$CASE]: $*"; FAILS=$((FAILS + 1)); }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
MARK="pmix-test-$CASE-$$-$RANDOM"

# mpi EXPECTED_RC NP ARGS...: mpirun -np NP ARGS (stdout in $T/out, stderr in
# $T/err); sets RC and MS.  EXPECTED_RC "nz" means any non-zero status.
mpi() {
    local want=$1 np=$2 t0
    shift 2
    t0=$(now_ms)
    timeout -k 5 90 "${MPI[@]}" -np "$np" "$@" >"$T/out" 2>"$T/err"
    RC=$?
    MS=$(($(now_ms) - t0))
    if [ "$want" = nz ] && [ "$RC" = 0 ] || { [ "$want" != nz ] && [ "$RC" != "$want" ]; }; then
        fail "mpirun -np $np $* exited $RC, expected $want"
        sed 's/^/    out: /' "$T/out" | head -10
        sed 's/^/    err: /' "$T/err" | head -20
    fi
}
lines() { grep -cE -- "$1" "$T/out" "$T/err" | awk -F: '{ s += $NF } END { print s + 0 }'; }
expect_lines() { # COUNT REGEX
    local n
    n=$(lines "$2")
    [ "$n" = "$1" ] || fail "expected $1 line(s) matching '$2', got $n: $(head -c 2000 "$T/out" "$T/err")"
}

expect_some() { # REGEX: at least one line (mpirun may end the others first)
    [ "$(lines "$1")" -ge 1 ] || fail "no line matching '$1': $(head -c 2000 "$T/out" "$T/err")"
}

# mpirun itself must work here (e.g. not in a sandbox without sockets).
if ! timeout -k 5 60 "${MPI[@]}" -np 1 true >"$T/probe" 2>&1; then
    echo "skip: '${MPI[*]} -np 1 true' fails here:"
    head -5 "$T/probe"
    exit 77
fi

no_procs() { # nothing with our marker may run, within 5 s
    local t0
    t0=$(now_ms)
    while pgrep -f "$MARK" >/dev/null; do
        if [ $(($(now_ms) - t0)) -gt 5000 ]; then
            fail "processes left behind: $(pgrep -af "$MARK")"
            pkill -9 -f "$MARK"
            return
        fi
        sleep 0.1
    done
}

case_run() {
    local np=$1 re=${2//@N@/$1}
    shift 2
    mpi 0 "$np" "$@"
    expect_lines 1 "$re"
}

case_boot() {
    mpi 0 "$1" "$BOOT" "$2" "$3"
}

case_forced() {
    # forced PMIx: every PE says so (SHMEM_DEBUG)
    mpi 0 2 -x SHMEM_BOOTSTRAP=pmix -x SHMEM_DEBUG=1 "$PROG" local
    expect_lines 2 'pmix bootstrap: PMIx .*rank [01] of 2'
    expect_lines 1 'pmix_prog: local ok, 2 PEs'
    # automatic: the same without the variable
    mpi 0 3 -x SHMEM_DEBUG=1 "$PROG" local
    expect_lines 3 'pmix bootstrap: PMIx .*rank [012] of 3'
    # forced single: each process is a job of one PE
    mpi 0 2 -x SHMEM_BOOTSTRAP=single "$PROG" local
    expect_lines 2 'pmix_prog: local ok, 1 PEs'
    # symrun inside mpirun: symrun's PEs win over the inherited PMIX_*
    mpi 0 2 "$B/tools/symrun" -n 3 "$PROG" local
    expect_lines 2 'pmix_prog: local ok, 3 PEs'
    # bad values and impossible choices: one clear line, non-zero
    mpi nz 2 -x SHMEM_BOOTSTRAP=bogus "$PROG" local
    expect_some "SHMEM_BOOTSTRAP='bogus' is not valid: expected one of auto|symrun|pmix|single"
    mpi nz 1 -x SHMEM_BOOTSTRAP=symrun "$PROG" local
    expect_lines 1 'SHMEM_BOOTSTRAP=symrun, but SYMRUN_FD is not set'
    SHMEM_BOOTSTRAP=pmix timeout 30 "$PROG" local >"$T/out" 2>"$T/err"
    RC=$?
    [ "$RC" != 0 ] || fail "SHMEM_BOOTSTRAP=pmix without a launcher exited 0"
    expect_lines 1 'pmix bootstrap: PMIx_Init failed: .*start the program with mpirun'
    # no PMIx launcher, no variable: a single PE, as before
    env -u PMIX_RANK -u PMIX_NAMESPACE timeout 30 "$PROG" local >"$T/out" 2>"$T/err" ||
        fail "a plain run exited $?"
    expect_lines 1 'pmix_prog: local ok, 1 PEs'
}

# In a private mount namespace (fresh /tmp and /dev/shm), when allowed, so
# that files of other jobs on the machine do not count; the old /tmp (which
# may hold the build tree) stays reachable under /dev/shm/.stash.
private_tmp() {
    local u=-Urm
    [ "$(id -u)" = 0 ] && u=-m
    if [ "${PMIX_NS:-}" = 1 ]; then
        local stash=/dev/shm/.stash
        mount -t tmpfs -o mode=1777 none /dev/shm && mkdir $stash && mount --bind /tmp $stash &&
            mount -t tmpfs -o mode=1777 none /tmp || { echo "cannot set up mounts"; exit 1; }
        remap() { case $1 in /tmp/*) echo "$stash/${1#/tmp/}" ;; *) echo "$1" ;; esac; }
        PROG=$(remap "$PROG") WORK=$(remap "$WORK") T=$(remap "$T") B=$(remap "$B")
        MPI[0]=$(remap "${MPI[0]}")
        LSAN_OPTIONS=${LSAN_OPTIONS//$SUPP/$(remap "$SUPP")}
        # the programs' RUNPATH names the hidden build tree
        export LD_LIBRARY_PATH=$B${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
        MPI+=(-x LD_LIBRARY_PATH)
        return 0
    fi
    if unshare $u true 2>/dev/null; then
        rm -rf "$T"
        trap - EXIT
        PMIX_NS=1 exec unshare $u bash "$0" "$CASE" "$B" "$WORK" "$@"
    fi
    echo "no private mount namespace (unshare $u refused): comparing the shared /tmp and /dev/shm"
    return 1
}
left_files() { ls -A /tmp; ls -A /dev/shm | grep -vx .stash; }

case_kill() {
    local np=$1 before after=
    private_tmp "$@"
    before=$(left_files | sort)
    mpi nz "$np" "$PROG" kill "$MARK"
    [ "$(grep -c '^ready ' "$T/out")" = "$np" ] || fail "not every PE got through shmem_init: $(cat "$T/out" "$T/err")"
    [ "$MS" -lt 15000 ] || fail "the job took $MS ms to end after the PE died"
    no_procs
    sleep 0.2
    after=$(left_files | sort)
    local new
    new=$(comm -13 <(echo "$before") <(echo "$after"))
    [ -z "$new" ] || fail "new entries in /tmp or /dev/shm: $new"
}

case_fatal() {
    mpi nz "$1" "$PROG" fatal "$MARK"
    expect_lines 1 "\\[pe $(($1 - 1))\\] symheap error: shmem_long_p: pe=$(($1 + 5)) is out of range"
    no_procs
}

case_watchdog() {
    mpi 124 3 -x SHMEM_WATCHDOG=2 -x SHMEM_WATCHDOG_ABORT=1 "$B/tests/pe/pe_misuse" deadlock
    expect_lines 1 'watchdog:   PE 0: in shmem_long_wait_until on 0x[0-9a-f]+ == 5'
    [ "$MS" -lt 30000 ] || fail "the watchdog took $MS ms"
}

case_intrude() {
    local mode=$1 u=pxi$$ uid
    [ "$(id -u)" = 0 ] || { echo "skip: needs root (to create a second user)"; exit 77; }
    command -v useradd >/dev/null || { echo "skip: no useradd"; exit 77; }
    useradd -M -N -r -s /usr/sbin/nologin "$u" || { fail "useradd $u"; return; }
    uid=$(id -u "$u")
    # PE 0 waits after its listen() until the intruder has connected
    # (listen_shim.so), so the intruder's connection comes before the peer's.
    mkdir -m 1777 "$T/shim"
    chmod 755 "$T"
    "$B/tests/pmix/fdx_intruder" "$T/shim" "$mode" "$uid" "$(id -g "$u")" >"$T/intruder" 2>&1 &
    local ipid=$!
    mpi 0 2 -x SHMEM_DEBUG=1 -x LD_PRELOAD="$B/tests/pmix/listen_shim.so" -x SHIM_DIR="$T/shim" \
        -x ASAN_OPTIONS="verify_asan_link_order=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}" "$PROG" local "$MARK"
    wait "$ipid" || fail "the intruder failed: $(cat "$T/intruder")"
    userdel "$u"
    cat "$T/intruder"
    grep -q "^intruder: connected to @symheap\." "$T/intruder" || fail "no connection: $(cat "$T/intruder")"
    expect_lines 1 'pmix_prog: local ok, 2 PEs'
    expect_lines 1 "\\[pe 0\\] symheap debug: pmix bootstrap: exchange_fds: dropped a connection from pid [0-9]+ \\(uid $uid\\): not a PE of this job on this node"
    [ "$MS" -lt 20000 ] || fail "the job took $MS ms"
    no_procs
}

# Two "nodes": mpirun starts a second daemon through an rsh agent that runs
# it here; the PEs of each then see 2 local PEs of 4.  With the UCX
# transport the job runs (UCX picks its own transports between the "nodes":
# the real two-host tests are tests/multinode); without it, a clear refusal.
case_multinode() {
    printf '#!/bin/sh\nshift\nexec sh -c "$*"\n' >"$T/rsh"
    chmod +x "$T/rsh"
    local two=(--mca plm_rsh_agent "$T/rsh" --host localhost:2,symheap-fake-node:2)
    if [ "${SYMHEAP_UCX:-OFF}" = ON ]; then
        mpi 0 4 "${two[@]}" "$B/tests/multinode/mn_prog" rma "$MARK"
        expect_lines 1 '^mn_prog: rma ok, 4 PEs, 2 remote'
    else
        mpi nz 4 "${two[@]}" "$PROG" local
        expect_some 'the job.s 4 PEs run on more than one node .* multi-node needs the UCX transport, and this symheap was built without it'
    fi
}

"case_$CASE" "$@"
if [ "$FAILS" != 0 ]; then
    echo "$CASE: $FAILS failure(s)"
    exit 1
fi
echo "$CASE: ok"
