#!/usr/bin/env bash
# compare.sh: symheap against Open MPI's OSHMEM and this machine's limits, in one table.
#
#   bench/compare.sh [--quick] [build-dir]      (build-dir defaults to build/ of the repo)
#
# Builds bench.c with oshcc and limits.c with cc in a private temp dir, then per round runs
#   limits                                           machine limits
#   oshrun -np 2 bench;  symrun -n 2 bench_symheap   (symrun and bench_symheap from build-dir)
#   oshrun -np 4 bench;  symrun -n 4 bench_symheap
#   the same with 8 PEs, barrier only
# The libraries alternate so a burst of background load hits both columns alike.  Each
# launch prints per-metric medians over its trials; the table shows, per metric, the median
# of those over the rounds (3 rounds of 9 trials; --quick: 1 round of 7 short trials).
# Launch-to-launch differences are real here (OSHMEM's collectives are bimodal from one
# launch to the next), hence several launches rather than one long one.
#
# A missing OSHMEM or symheap build is reported and its column left empty; the exit status
# is non-zero only when something present fails to build or run.  Installs nothing;
# removes its temp dir and stops what it started, also on Ctrl-C.  Each launch is limited
# to RUN_TIMEOUT seconds (default 120).
set -u -o pipefail

usage() { echo "usage: $0 [--quick] [build-dir]"; }

rounds=3
bargs=(--trials 9)
build=""
for a in "$@"; do
    case "$a" in
    --quick) rounds=1 bargs=(--quick) ;;
    -h | --help) usage; exit 0 ;;
    -*) echo "compare.sh: unknown option '$a'" >&2; usage >&2; exit 2 ;;
    *)
        [ -z "$build" ] || { echo "compare.sh: one build dir only" >&2; exit 2; }
        build=$a
        ;;
    esac
done

here=$(cd "$(dirname "$0")" && pwd)
build=${build:-$here/../build}
run_timeout=${RUN_TIMEOUT:-120}
# Both libraries get the same heap; bench needs ~70 MiB of it.
export SHMEM_SYMMETRIC_SIZE=${SHMEM_SYMMETRIC_SIZE:-256M}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/symheap-compare.XXXXXX") || exit 1
child=""
errors=0
# shellcheck disable=SC2317  # invoked by the EXIT trap
cleanup() {
    if [ -n "$child" ]; then
        kill -TERM "$child" 2>/dev/null
        wait "$child" 2>/dev/null
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'echo "compare.sh: interrupted" >&2; exit 130' INT
trap 'exit 143' TERM

note() { echo "# $*" >&2; }

# run TAG CMD...: runs CMD under timeout in the background (so a signal reaches our trap
# at once) and appends its 'bench' lines, tagged with TAG, to $tmp/results.  timeout puts
# CMD in its own process group and kills that whole group on expiry or when we TERM it.
run() {
    local tag=$1 rc
    shift
    note "running: $*"
    timeout -k 5 "$run_timeout" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null &
    child=$!
    wait "$child"
    rc=$?
    child=""
    awk -v tag="$tag" '$1 == "bench" && NF == 6 { print tag, $2, $3, $4, $5, $6 }' \
        "$tmp/out" >>"$tmp/results"
    if [ "$rc" -ne 0 ]; then
        if [ "$rc" -eq 124 ]; then
            echo "compare.sh: timed out after ${run_timeout}s: $*" >&2
        else
            echo "compare.sh: failed (exit $rc): $*" >&2
        fi
        tail -n 20 "$tmp/err" >&2
        errors=$((errors + 1))
    fi
}
: >"$tmp/results"

# Other busy processes (a parallel build, another benchmark) skew everything on a small VM.
# cpu_busy sets busy (the machine's busy CPU seconds, hypervisor steal included) and ours
# (CPU seconds of our reaped children); the difference over the runs is what others took.
read -r load _ </proc/loadavg 2>/dev/null || load=0
if awk -v l="$load" 'BEGIN { exit !(l > 0.5) }'; then
    note "load average is $load: other processes are running, numbers will be noisy"
fi
hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
cpu_busy() {
    times >"$tmp/times" # in this shell, not a subshell: its children are the runs
    ours=$(awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); s += t[1] * 60 + t[2] }
                          print s }' "$tmp/times")
    busy=$(awk -v hz="$hz" '$1 == "cpu" { print ($2 + $3 + $4 + $7 + $8 + $9) / hz }' /proc/stat)
}
cpu_busy
busy0=$busy ours0=$ours
start=$(date +%s)

# ---- what can run -------------------------------------------------------------------
limits=()
if ${CC:-cc} -std=c11 -O2 -o "$tmp/limits" "$here/limits.c" "$here/common.c" 2>"$tmp/err"; then
    limits=("$tmp/limits")
elif [ -x "$build/bench/bench_limits" ]; then
    limits=("$build/bench/bench_limits")
else
    echo "compare.sh: cannot build limits.c with ${CC:-cc}:" >&2
    cat "$tmp/err" >&2
    errors=$((errors + 1))
fi

osh=()
if ! command -v oshcc >/dev/null || ! command -v oshrun >/dev/null; then
    note "OSHMEM: oshcc/oshrun not found; skipping the OSHMEM column."
    note "        To compare against Open MPI's OSHMEM: apt-get install openmpi-bin libopenmpi-dev"
elif ! oshcc -std=c11 -O2 -o "$tmp/bench_oshmem" "$here/bench.c" "$here/common.c" 2>"$tmp/err"; then
    echo "compare.sh: building bench.c with oshcc failed:" >&2
    cat "$tmp/err" >&2
    errors=$((errors + 1))
else
    # --mca btl ^openib: without it OSHMEM 4.1 crashes in shmem_finalize.
    osh=(oshrun --allow-run-as-root --oversubscribe --mca btl ^openib)
fi

symrun=$build/tools/symrun
symbench=$build/bench/bench_symheap
sym=0
if [ -x "$symrun" ] && [ -x "$symbench" ]; then
    sym=1
else
    [ -x "$symrun" ] || note "symheap: $symrun not found"
    [ -x "$symbench" ] || note "symheap: $symbench not found"
    note "        build first (cmake -B build && cmake --build build); skipping the symheap column."
fi

# ---- the runs ---------------------------------------------------------------------------
for ((r = 1; r <= rounds; r++)); do
    [ ${#limits[@]} -eq 0 ] || run limit "${limits[@]}" "${bargs[@]}"
    for np in 2 4 8; do
        args=("${bargs[@]}")
        [ "$np" -eq 8 ] && args+=(--only barrier) # 8 PEs on a small node: barrier only
        [ ${#osh[@]} -eq 0 ] || run oshmem "${osh[@]}" -np "$np" "$tmp/bench_oshmem" "${args[@]}"
        [ "$sym" -eq 0 ] || run symheap "$symrun" -n "$np" "$symbench" "${args[@]}"
    done
done

cpu_busy
awk -v b0="$busy0" -v b1="$busy" -v o0="$ours0" -v o1="$ours" \
    -v t="$(($(date +%s) - start))" -v n="$(nproc 2>/dev/null || echo 1)" 'BEGIN {
    other = (b1 - b0) - (o1 - o0); if (other < 0) other = 0
    pct = t > 0 ? 100 * other / (t * n) : 0
    printf "# other processes and steal used %.1f CPU-s during the %d s of runs (%.0f%% of %d CPUs)%s\n",
        other, t, pct, n, (pct > 5 ? ": numbers are noisy, rerun on an idle machine" : "")
}' >&2

# ---- the table --------------------------------------------------------------------------
# Rows in first-seen order of name+metric, then by PE count.  Limit pairing:
#   pingpong oneway_8B   <-> cacheline oneway   (library latency as a multiple of hardware)
#   put/get bw_<size>    <-> memcpy bw_<size>   (library bandwidth as a fraction of memcpy)
echo
awk -v rounds="$rounds" '
function limkey(name, metric) {
    if (name == "pingpong" && metric == "oneway_8B") return "cacheline oneway"
    if ((name == "put" || name == "get") && metric ~ /^bw_/) return "memcpy " metric
    return ""
}
# median of the values collected under key k (insertion sort; a handful of values)
function med(k,    n, i, j, x, v) {
    n = cnt[k]
    if (!n) return ""
    for (i = 1; i <= n; i++) {
        x = vals[k, i] + 0
        for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]
        v[j + 1] = x
    }
    x = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    return sprintf(x >= 100 ? "%.1f" : x >= 1 ? "%.3f" : "%.4f", x)
}
function fmt(v) { return v == "" ? "-" : v }
function ratio(a, b) { return (a == "" || b == "" || b + 0 == 0) ? "-" : sprintf("%.2f", a / b) }
{
    m = $2 " " $4
    k = $1 SUBSEP m SUBSEP $3
    vals[k, ++cnt[k]] = $5
    if ($1 == "limit") { lim[m] = 1; next }
    if (!(m in order)) { order[m] = ++nm; unit[m] = $6 }
    if (!((m, $3) in seen)) { seen[m, $3] = 1; rows[++nr] = m SUBSEP $3 }
}
END {
    for (i = 2; i <= nr; i++) {     # sort rows by (metric order, PEs)
        r = rows[i]; split(r, a, SUBSEP)
        for (j = i - 1; j >= 1; j--) {
            split(rows[j], b, SUBSEP)
            if (order[b[1]] < order[a[1]] || (order[b[1]] == order[a[1]] && b[2] + 0 <= a[2] + 0)) break
            rows[j + 1] = rows[j]
        }
        rows[j + 1] = r
    }
    h = "| %-24s | %3s | %9s | %9s | %9s | %9s | %9s | %9s |\n"
    printf h, "metric", "PEs", "symheap", "OSHMEM", "sym/OSH", "limit", "sym/lim", "OSH/lim"
    printf "|%s|%s|%s|%s|%s|%s|%s|%s|\n", "--------------------------", "-----", "-----------",
        "-----------", "-----------", "-----------", "-----------", "-----------"
    for (i = 1; i <= nr; i++) {
        split(rows[i], a, SUBSEP); m = a[1]
        s = med("symheap" SUBSEP rows[i]); o = med("oshmem" SUBSEP rows[i])
        lk = limkey(substr(m, 1, index(m, " ") - 1), substr(m, index(m, " ") + 1))
        l = ""
        if (lk in lim) l = med("limit" SUBSEP lk SUBSEP (lk ~ /^memcpy/ ? 1 : 2))
        printf h, m " (" unit[m] ")", a[2], fmt(s), fmt(o), ratio(s, o), fmt(l), ratio(s, l), ratio(o, l)
    }
    if (nr == 0) print "(no library results)"
    print ""
    printf "Median over %d launch(es) of each launch'"'"'s median over its trials.\n", rounds
    print "sym/OSH > 1: symheap is slower for us, faster for GB/s."
    print "x/lim: for GB/s the fraction of single-thread memcpy (1 = hardware speed); for us the"
    print "multiple of the cache-line one-way latency between two cores (1 = hardware floor)."
    split("memcpy bw_1MiB 1,memcpy bw_64MiB 1,cacheline oneway 2", ord, ",")
    out = ""
    for (i = 1; i <= 3; i++) {
        split(ord[i], p, " ")
        x = med("limit" SUBSEP p[1] " " p[2] SUBSEP p[3])
        if (x != "") out = out "  " p[1] " " p[2] " " x
    }
    if (out != "") print "Machine limits:" out
}' "$tmp/results" || errors=$((errors + 1))

[ "$errors" -eq 0 ] || { echo "compare.sh: $errors launch(es) failed, see above" >&2; exit 1; }
exit 0
