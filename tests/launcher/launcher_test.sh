#!/usr/bin/env bash
# launcher_test.sh - the launcher tests: one case per ctest test.
#
#   launcher_test.sh CASE SYMRUN BOOT_PROG WORKDIR
#
# Every run of symrun gets a unique marker argument, so "no PE left behind"
# is "pgrep -f MARKER finds nothing".  Files of the test itself go under
# WORKDIR (the build tree), never /tmp, so the noleak case can demand that
# /tmp and /dev/shm are unchanged.  Time limits are generous for a loaded
# 2-core machine: symrun's own budget is ~1 s (SIGTERM, SIGKILL 400 ms later);
# the checks allow LIMIT_MS (default 2500 ms).  Exit 0 pass, 1 fail, 77 skip.
set -u
CASE=$1 SYMRUN=$2 PROG=$3 WORK=$4
LIMIT_MS=${LIMIT_MS:-2500}
mkdir -p "$WORK"
T=$(mktemp -d "$WORK/$CASE.XXXXXX")
BG=()
cleanup() {
    for p in "${BG[@]}"; do kill -9 "$p" 2>/dev/null; done
    rm -rf "$T"
}
trap cleanup EXIT
FAILS=0
SEQ=0
MARK=
fail() { echo "FAIL [$CASE]: $*"; FAILS=$((FAILS + 1)); }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
new_mark() { SEQ=$((SEQ + 1)); MARK="symrun-test-$CASE-$$-$SEQ-$RANDOM"; }

# run EXPECTED_RC SYMRUN_ARGS... : run symrun in the foreground (the PE
# program's arguments should end with "$MARK"); sets RC and MS.
run() {
    local want=$1 t0 t1 tf
    shift
    t0=$(now_ms)
    "$SYMRUN" "$@" >"$T/out" 2>"$T/err"
    RC=$?
    t1=$(now_ms)
    MS=$((t1 - t0))
    # a PE that fails on purpose prints when (boot_prog's failing_now): time
    # the ending of the job from there, without the start-up
    tf=$(awk '$1 == "failing" { print $2; exit }' "$T/out")
    [ -z "$tf" ] || MS=$((t1 - tf))
    if [ "$RC" != "$want" ]; then
        fail "symrun $* exited $RC, expected $want"
        sed 's/^/    stderr: /' "$T/err" | head -20
    fi
    no_leftovers
}

# The stderr of the last run has exactly one "symrun:" line and it matches.
expect_line() {
    local n
    n=$(grep -c '^symrun:' "$T/err")
    [ "$n" = 1 ] || fail "expected one 'symrun:' line, got $n: $(cat "$T/err")"
    grep -q -- "$1" "$T/err" || fail "stderr lacks '$1': $(cat "$T/err")"
}
expect_quiet() {
    if grep -q '^symrun:' "$T/err"; then fail "unexpected: $(cat "$T/err")"; fi
}

# No process with the current marker in its command line, within LIMIT_MS.
no_leftovers() {
    local t0 left
    [ -n "$MARK" ] || return 0
    t0=$(now_ms)
    while left=$(pgrep -f -- "$MARK"); do
        if [ $(($(now_ms) - t0)) -gt "$LIMIT_MS" ]; then
            fail "processes left behind after ${LIMIT_MS} ms: $(ps -o pid,stat,args -p "$(echo $left | tr ' ' ,)" 2>/dev/null | tail -n +2)"
            kill -9 $left 2>/dev/null
            return
        fi
        sleep 0.05
    done
}

# start_sleepers N [SYMRUN_OPTS...]: symrun -n N boot_prog sleep in the
# background; waits until every PE printed "ready RANK PID". Sets SPID.
start_sleepers() {
    local n=$1 i
    shift
    new_mark
    # Empty the files here: the background job's own redirection truncates
    # them only once it runs, and until then the wait below would count the
    # previous job's "ready" lines and signal a symrun that has no handlers
    # yet (seen once under TSan and load: symrun died of SIGHUP, no line).
    : >"$T/out"
    : >"$T/err"
    "${DEFSIG[@]}" "$SYMRUN" -n "$n" "$@" "$PROG" sleep 0 "$MARK" >"$T/out" 2>"$T/err" &
    SPID=$!
    BG+=("$SPID")
    for i in $(seq 600); do
        [ "$(grep -c '^ready' "$T/out")" = "$n" ] && return 0
        kill -0 "$SPID" 2>/dev/null || break
        sleep 0.05
    done
    fail "PEs did not start: $(cat "$T/out" "$T/err")"
    return 1
}
# A script's background jobs ignore SIGINT, and symrun keeps an ignored
# SIGINT/SIGHUP/SIGTERM ignored (as nohup wants): give them their default.
DEFSIG=(env --default-signal=INT,HUP,TERM)
"${DEFSIG[@]}" true 2>/dev/null || DEFSIG=(env) # coreutils < 8.31

pe_pid() { awk -v r="$1" '$1 == "ready" && $2 == r { print $3 }' "$T/out"; }

# wait_symrun: wait for SPID to exit (at most 20 s); sets RC and MS (from T0).
wait_symrun() {
    local i
    for i in $(seq 400); do
        kill -0 "$SPID" 2>/dev/null || break
        sleep 0.05
    done
    if kill -0 "$SPID" 2>/dev/null; then
        fail "symrun still running after 20 s"
        kill -9 "$SPID"
    fi
    wait "$SPID"
    RC=$?
    MS=$(($(now_ms) - T0))
}
expect_fast() { [ "$MS" -le "$LIMIT_MS" ] || fail "$1 took $MS ms (limit $LIMIT_MS)"; }

# ---- cases ------------------------------------------------------------------

case_usage() {
    local a
    for a in "-n 0 true" "-n abc true" "-n -1 true" "-n 4097 true" "-n 2" "true" "-n" \
        "--bogus -n 2 true" "-n 2 --timeout 0 true" "-n 2 --timeout x true"; do
        "$SYMRUN" $a >"$T/out" 2>"$T/err"
        RC=$?
        [ "$RC" = 2 ] || fail "symrun $a exited $RC, expected 2"
        grep -q '^usage: symrun -n N' "$T/err" || fail "symrun $a printed no usage line"
    done
    "$SYMRUN" --help >"$T/out" 2>&1 || fail "--help failed"
    grep -q '^usage:' "$T/out" || fail "--help printed no usage"
    "$SYMRUN" --version >"$T/out" 2>&1 || fail "--version failed"
    grep -q '^symrun (symheap) ' "$T/out" || fail "--version: $(cat "$T/out")"
    for a in "-n 3" "-np 3" "--np 3" "--np=3" "-n3"; do
        new_mark
        run 0 $a -- "$PROG" plain 0 "$MARK"
        [ "$(grep -c '^plain' "$T/out")" = 3 ] || fail "symrun $a did not start 3 PEs"
    done
    # options after the program belong to the program
    new_mark
    run 0 -n 1 "$PROG" plain 0 -n 5 "$MARK"
}

case_exec_fail() {
    new_mark
    run 127 -n 2 "no-such-program-$MARK"
    expect_line "cannot run 'no-such-program-.*': no such program in PATH="
    run 127 -n 2 "$T/no-such-file" "$MARK"
    expect_line "No such file or directory"
    printf 'not a program\n' >"$T/noexec"
    chmod 644 "$T/noexec"
    run 126 -n 2 "$T/noexec" "$MARK"
    expect_line "cannot run '.*noexec': Permission denied"
    # a directory is said before any PE starts (once, not per PE)
    run 126 -n 2 "$T" "$MARK"
    expect_line "cannot run '$T': it is a directory, not a program"
    run 126 -n 2 "$T/" "$MARK"
    expect_line "it is a directory, not a program"
}

case_single() {
    local m
    for m in "gather 24" "fds 3" "init" "print 2"; do
        env -u SYMRUN_FD -u SYMRUN_RANK -u SYMRUN_SIZE -u SYMRUN_PID "$PROG" $m >"$T/out" 2>"$T/err" ||
            fail "boot_prog $m without symrun: $(cat "$T/err")"
    done
    # SYMRUN_FD inherited by a process symrun did not start: a clear error
    SYMRUN_FD=200 SYMRUN_RANK=0 SYMRUN_SIZE=2 "$PROG" init >"$T/out" 2>"$T/err"
    [ $? = 3 ] || fail "a stale SYMRUN_FD was accepted"
    grep -q "SYMRUN_FD=200 is not symrun's socket" "$T/err" || fail "stale SYMRUN_FD: $(cat "$T/err")"
    SYMRUN_FD=x SYMRUN_RANK=0 SYMRUN_SIZE=2 "$PROG" init >"$T/out" 2>"$T/err"
    grep -q "SYMRUN_FD='x' is not a number" "$T/err" || fail "bad SYMRUN_FD: $(cat "$T/err")"
    # a PE's child sees the variables, but not the (close-on-exec) socket
    new_mark
    run 0 -n 2 "$PROG" nested "$MARK"
    grep -q "SYMRUN_FD=[0-9]* is not symrun's socket" "$T/err" || fail "nested init: $(cat "$T/err")"
}

case_gather() {
    new_mark
    run 0 -n "$1" "$PROG" gather 40 "$MARK"
    expect_quiet
    run 0 -n "$1" "$PROG" gatherintr 24 "$MARK"
    expect_quiet
}
case_fds() {
    local k
    new_mark
    run 0 -n "$1" "$PROG" fds 3 "$MARK"
    expect_quiet
    for k in 0 1 100; do # 100: several messages each way (64 per message)
        run 0 -n "$1" "$PROG" fdsmany $k "$MARK"
        expect_quiet
    done
}

case_scale_np256() {
    new_mark
    # 256 PEs x 4 fds is 1024 received descriptors per PE: more than the usual
    # soft limit of 1024, which the bootstrap must raise (within the hard one)
    local hard
    hard=$(ulimit -Hn)
    if [ "$hard" = unlimited ] || [ "$hard" -ge 4096 ]; then
        ulimit -Sn 1024
    else
        echo "hard open-file limit $hard: not testing the raise of the soft limit"
    fi
    run 0 -n 256 "$PROG" fds 2 "$MARK"
    expect_quiet
    run 0 -n 256 "$PROG" gathersmall 6 "$MARK"
    expect_quiet
}

case_exit_codes() {
    new_mark
    run 0 -n 4 "$PROG" plain 0 "$MARK"
    expect_quiet
    [ "$(grep -c '^plain' "$T/out")" = 4 ] || fail "expected 4 plain PEs: $(cat "$T/out")"
    run 3 -n 2 sh -c 'exit 3' "$MARK"
    expect_line "PE [01] (pid [0-9]*) exited with status 3"
    run 5 -n 4 "$PROG" exit 5 "$MARK"
    expect_line "PE 3 (pid [0-9]*) exited with status 5"
    run 0 -n 4 "$PROG" init "$MARK"
    expect_quiet
}

case_abort() {
    local n
    for n in 1 4; do
        new_mark
        run 7 -n $n "$PROG" abort 7 "$MARK"
        expect_line "PE $((n - 1)) (pid [0-9]*) aborted the job with status 7: \[pe $((n - 1))\] boot_prog: aborting on purpose"
        expect_fast "abort"
    done
    grep -q "ending the other 3 PEs" "$T/err" || fail "abort did not end the others: $(cat "$T/err")"
}

case_crash() {
    new_mark
    # a sanitizer build must let the SIGSEGV kill the PE, as it would without
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0 \
    TSAN_OPTIONS=${TSAN_OPTIONS:+$TSAN_OPTIONS:}handle_segv=0 run 139 -n 4 "$PROG" segv "$MARK"
    expect_line "PE 3 (pid [0-9]*) was killed by signal 11 (SIGSEGV, Segmentation fault.*); ending the other 3 PEs"
    expect_fast "segv"
    new_mark
    run 137 -n 8 "$PROG" kill "$MARK"
    expect_line "PE 7 (pid [0-9]*) was killed by signal 9 (SIGKILL, Killed); ending the other 7 PEs"
    expect_fast "kill"
}

case_nofini() {
    new_mark
    run 1 -n 4 "$PROG" nofini "$MARK"
    expect_line "PE 3 (pid [0-9]*) exited without calling shmem_finalize; ending the other 3 PEs"
}

case_stuck() {
    new_mark
    run 1 -n 4 "$PROG" finiearly "$MARK"
    expect_line "waits in barrier, but PE 3 (pid [0-9]*) has .*called shmem_finalize.*, so it can never complete"
    new_mark
    run 1 -n 3 "$PROG" mismatch "$MARK"
    expect_line "allgather of [0-9]* bytes while PE [0-9] called allgather of [0-9]* bytes"
    # a PE that never calls shmem_init while the others wait in a barrier
    new_mark
    run 1 -n 2 sh -c 'if [ "$SYMRUN_RANK" = 0 ]; then exec "$1" barrier; fi' sh "$PROG" "$MARK"
    expect_line "has exited without calling shmem_init"
    # two SHMEM programs one after the other in one PE slot are refused
    new_mark
    run 1 -n 1 sh -c '"$1" init; "$1" init' sh "$PROG" "$MARK"
    expect_line "called shmem_init a second time"
}

case_kill_pe() {
    local n victim
    for n in 2 4 8; do
        start_sleepers $n || return
        victim=$(pe_pid 1)
        T0=$(now_ms)
        kill -9 "$victim"
        wait_symrun
        [ "$RC" = 137 ] || fail "-n $n: symrun exited $RC after SIGKILL of PE 1, expected 137"
        expect_line "PE 1 (pid $victim) was killed by signal 9 (SIGKILL, Killed); ending the other $((n - 1)) PE"
        expect_fast "-n $n: ending the job after SIGKILL of a PE"
        no_leftovers
    done
}

# The blame rule: the last PE dies by SIGKILL and the others exit 1 in
# consequence; symrun (stopped meanwhile, so it finds them all dead at once,
# PE 0 first) names the killed PE and exits 137.
case_blame() {
    local n
    for n in 2 4; do
        new_mark
        run 137 -n $n "$PROG" blame "$MARK"
        expect_line "PE $((n - 1)) (pid [0-9]*) was killed by signal 9 (SIGKILL, Killed)"
        no_leftovers
    done
}

case_signals() {
    local s code
    local sigs="TERM:143 INT:130 HUP:129"
    if [ "${#DEFSIG[@]}" = 1 ]; then
        echo "env --default-signal unsupported: testing SIGTERM only"
        sigs=TERM:143
    fi
    for s in $sigs; do
        code=${s#*:} s=${s%:*}
        start_sleepers 4 || return
        T0=$(now_ms)
        kill -s "$s" "$SPID"
        wait_symrun
        [ "$RC" = "$code" ] || fail "SIG$s to symrun: exit $RC, expected $code"
        expect_line "got SIG$s (.*); ending the 4 PEs"
        expect_fast "SIG$s to symrun"
        no_leftovers
    done
}

case_kill_symrun() {
    local n
    for n in 1 4; do
        start_sleepers $n || return
        kill -9 "$SPID"
        wait "$SPID" 2>/dev/null
        no_leftovers # PR_SET_PDEATHSIG: the PEs get SIGKILL with symrun
    done
}

case_timeout() {
    new_mark
    run 124 -n 4 --timeout 1 "$PROG" sleep 0 "$MARK"
    expect_line "the job is still running after --timeout 1 s; ending the 4 PEs"
    [ "$MS" -le $((1000 + LIMIT_MS)) ] || fail "--timeout 1 took $MS ms"
    run 0 -n 2 --timeout 30 "$PROG" init "$MARK"
}

case_prefix() {
    local r bad
    new_mark
    run 0 -n 4 -l "$PROG" print 3 "$MARK"
    [ "$(wc -l <"$T/out")" = 12 ] || fail "expected 12 lines: $(cat "$T/out")"
    bad=$(grep -v '^\[pe \([0-3]\)\] line [0-2] of pe \1$' "$T/out")
    [ -z "$bad" ] || fail "badly prefixed stdout: $bad"
    for r in 0 1 2 3; do
        grep -qx "\[pe $r\] partial of pe $r" "$T/err" || fail "partial line of PE $r lost: $(cat "$T/err")"
    done
    # long lines are split, never lost; a last line without newline is kept
    run 0 --prefix -n 1 sh -c 'head -c 100000 /dev/zero | tr "\0" x; printf "\nend"' "$MARK"
    [ "$(tr -d '\n' <"$T/out" | sed 's/\[pe 0\] //g' | wc -c)" = 100003 ] ||
        fail "long line mangled: $(head -c 200 "$T/out")"
    tail -n 1 "$T/out" | grep -qx '\[pe 0\] end' || fail "last partial line: $(tail -c 100 "$T/out")"
    # without -l output is not touched
    run 0 -n 2 "$PROG" print 1 "$MARK"
    grep -q '^\[pe' "$T/out" && fail "output prefixed without -l"
}

case_aslr() {
    setarch -R true 2>/dev/null || { echo "personality(ADDR_NO_RANDOMIZE) not permitted here"; exit 77; }
    new_mark
    run 0 -n 4 "$PROG" addr "$MARK"
    grep -qx 'layout same' "$T/out" || fail "PEs got different layouts: $(cat "$T/out")"
    if [ "$(cat /proc/sys/kernel/randomize_va_space)" != 0 ]; then
        run 0 -n 4 --aslr "$PROG" addr "$MARK"
        grep -qx 'layout differs' "$T/out" || fail "--aslr kept one layout: $(cat "$T/out")"
    fi
}

# --bind-to: PEs that fit the CPUs get one each (distinct), one PE or more PEs
# than CPUs stay unbound, --bind-to none / SYMRUN_BIND_TO=none leave them all
# unbound, a bad value is a usage error.  The PEs report their allowed CPUs.
case_bind() {
    local mask ncpu list
    mask=$(awk '/^Cpus_allowed_list/ {print $2}' /proc/self/status)
    ncpu=$(nproc)
    new_mark
    bind_run() { # EXPECTED_RC SYMRUN_ARGS...: PEs print their allowed CPUs
        run "$@" sh -c 'awk "/^Cpus_allowed_list/ {print \$2}" /proc/self/status' "$MARK"
    }
    if [ "$ncpu" -ge 2 ]; then
        bind_run 0 -n 2
        list=$(sort "$T/out" | tr '\n' ' ')
        [ "$(sort -u "$T/out" | wc -l)" = 2 ] || fail "-n 2: PEs not on two CPUs: $list"
        grep -q '[-,]' "$T/out" && fail "-n 2: a PE not bound to one CPU: $list"
        bind_run 0 -n "$ncpu"
        [ "$(sort -u "$T/out" | wc -l)" = "$ncpu" ] || fail "-n $ncpu: PEs not on distinct CPUs: $(sort "$T/out" | tr '\n' ' ')"
    fi
    bind_run 0 -n 1
    [ "$(cat "$T/out")" = "$mask" ] || fail "-n 1: PE bound ($(cat "$T/out"), mask $mask)"
    bind_run 0 -n $((ncpu + 1))
    [ "$(sort -u "$T/out")" = "$mask" ] || fail "-n $((ncpu + 1)) > CPUs: PEs bound: $(sort "$T/out" | tr '\n' ' ')"
    bind_run 0 -n 2 --bind-to none
    [ "$(sort -u "$T/out")" = "$mask" ] || fail "--bind-to none: PEs bound: $(sort "$T/out" | tr '\n' ' ')"
    SYMRUN_BIND_TO=none bind_run 0 -n 2
    [ "$(sort -u "$T/out")" = "$mask" ] || fail "SYMRUN_BIND_TO=none: PEs bound: $(sort "$T/out" | tr '\n' ' ')"
    bind_run 0 -n $((ncpu + 1)) --bind-to core
    [ "$(sort -u "$T/out" | wc -l)" = "$ncpu" ] || fail "--bind-to core, -n $((ncpu + 1)): not round robin: $(sort "$T/out" | tr '\n' ' ')"
    bind_run 2 -n 2 --bind-to sideways
    grep -q -- "--bind-to needs core or none, got 'sideways'" "$T/err" || fail "bad --bind-to: $(cat "$T/err")"
    SYMRUN_BIND_TO=bogus bind_run 2 -n 2
    grep -q -- "SYMRUN_BIND_TO needs core or none, got 'bogus'" "$T/err" || fail "bad SYMRUN_BIND_TO: $(cat "$T/err")"
}

# symrun makes no files: nothing new in /tmp or /dev/shm after every kind of
# ending (normal, abort, crash, timeout, SIGTERM, SIGKILL of symrun).  Other
# programs on the machine may create files there meanwhile, so when we may,
# we run in a private mount namespace with empty /tmp and /dev/shm, where any
# entry is ours; else we compare the shared directories (RUN_SERIAL keeps at
# least our other tests away).
noleak_battery() {
    case_gather 4
    case_fds 4
    case_abort
    case_crash
    case_timeout
    start_sleepers 4 && { T0=$(now_ms); kill -TERM "$SPID"; wait_symrun; }
    case_kill_symrun
    case_prefix
}

# In the namespace: fresh tmpfs on /dev/shm and /tmp; the old /tmp (which may
# hold the build tree) stays reachable under /dev/shm/.stash.
noleak_private() {
    local stash=/dev/shm/.stash left
    mount -t tmpfs -o mode=1777 none /dev/shm && mkdir $stash && mount --bind /tmp $stash &&
        mount -t tmpfs -o mode=1777 none /tmp || { fail "cannot set up mounts"; return; }
    remap() { case $1 in /tmp/*) echo "$stash/${1#/tmp/}" ;; *) echo "$1" ;; esac; }
    SYMRUN=$(remap "$SYMRUN") PROG=$(remap "$PROG") WORK=$(remap "$WORK") T=$(remap "$T")
    noleak_battery
    left=$(ls -A /tmp; ls -A /dev/shm | grep -vx .stash)
    [ -z "$left" ] || fail "new entries in /tmp or /dev/shm: $left"
}

case_noleak() {
    local u=-Urm before after new
    [ "$(id -u)" = 0 ] && u=-m
    if [ "${NOLEAK_NS:-}" = 1 ]; then
        noleak_private
        return
    fi
    if unshare $u true 2>/dev/null; then
        rm -rf "$T"
        NOLEAK_NS=1 exec unshare $u bash "$0" "$CASE" "$SYMRUN" "$PROG" "$WORK"
    fi
    echo "no private mount namespace (unshare $u refused): comparing the shared /tmp and /dev/shm"
    before=$(ls -A /tmp /dev/shm 2>/dev/null | sort)
    noleak_battery
    after=$(ls -A /tmp /dev/shm 2>/dev/null | sort)
    new=$(comm -13 <(echo "$before") <(echo "$after"))
    [ -z "$new" ] || fail "new entries in /tmp or /dev/shm: $new"
}

case "$CASE" in
gather_np*) case_gather "${CASE#gather_np}" ;;
fds_np*) case_fds "${CASE#fds_np}" ;;
*)
    if ! declare -F "case_$CASE" >/dev/null; then
        echo "launcher_test.sh: no case '$CASE'"
        exit 2
    fi
    "case_$CASE"
    ;;
esac
if [ "$FAILS" != 0 ]; then
    echo "$CASE: $FAILS failure(s)"
    exit 1
fi
echo "$CASE: ok"
