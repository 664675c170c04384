#!/usr/bin/env bash
# compare.sh: symheap against Open MPI's OSHMEM and this machine's limits, in one table.
#
#   bench/compare.sh [--quick] [build-dir]      (build-dir defaults to ./build of the repo)
#
# Builds bench.c with oshcc and limits.c with cc in a private temp dir, runs
#   limits                                    machine limits (memcpy, cache-line ping-pong)
#   oshrun  -np 2 / 4 bench, -np 8 --only barrier
#   symrun  -n  2 / 4 bench_symheap, -n 8 --only barrier   (from build-dir)
# and prints medians side by side.  A missing OSHMEM or symheap build is reported and its
# column left empty; the exit status is non-zero only when something that is present fails
# to build or run.  Installs nothing; removes its temp dir and stops what it started, also
# on Ctrl-C.  Each run is limited to RUN_TIMEOUT seconds (default 150).
set -u -o pipefail

usage() { echo "usage: $0 [--quick] [build-dir]"; }

quick=()
build=""
for a in "$@"; do
    case "$a" in
    --quick) quick=(--quick) ;;
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
run_timeout=${RUN_TIMEOUT:-150}
# Both libraries get the same heap; bench needs ~70 MiB of it.
export SHMEM_SYMMETRIC_SIZE=${SHMEM_SYMMETRIC_SIZE:-256M}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/symheap-compare.XXXXXX") || exit 1
child=""
errors=0
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
# at once), keeps its 'bench' lines tagged with TAG in $tmp/results.  timeout puts CMD in
# its own process group and kills that whole group on expiry or when we TERM it.
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
        [ "$rc" -eq 124 ] && echo "compare.sh: timed out after ${run_timeout}s: $*" >&2 ||
            echo "compare.sh: failed (exit $rc): $*" >&2
        tail -n 20 "$tmp/err" >&2
        errors=$((errors + 1))
    fi
}
: >"$tmp/results"

# Other busy processes (a parallel build, another benchmark) skew everything on a small VM.
read -r load _ </proc/loadavg 2>/dev/null || load=0
if awk -v l="$load" 'BEGIN { exit !(l > 0.5) }'; then
    note "load average is $load: other processes are running, numbers will be noisy"
fi

# ---- machine limits -------------------------------------------------------------------
if ${CC:-cc} -std=c11 -O2 -o "$tmp/limits" "$here/limits.c" "$here/common.c" 2>"$tmp/err"; then
    run limit "$tmp/limits" "${quick[@]}"
elif [ -x "$build/bench/bench_limits" ]; then
    run limit "$build/bench/bench_limits" "${quick[@]}"
else
    echo "compare.sh: cannot build limits.c with ${CC:-cc}:" >&2
    cat "$tmp/err" >&2
    errors=$((errors + 1))
fi

# ---- OSHMEM -----------------------------------------------------------------------------
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
    run oshmem "${osh[@]}" -np 2 "$tmp/bench_oshmem" "${quick[@]}"
    run oshmem "${osh[@]}" -np 4 "$tmp/bench_oshmem" "${quick[@]}"
    run oshmem "${osh[@]}" -np 8 "$tmp/bench_oshmem" "${quick[@]}" --only barrier
fi

# ---- symheap ----------------------------------------------------------------------------
symrun=$build/tools/symrun
symbench=$build/bench/bench_symheap
if [ ! -x "$symrun" ] || [ ! -x "$symbench" ]; then
    [ -x "$symrun" ] || note "symheap: $symrun not found"
    [ -x "$symbench" ] || note "symheap: $symbench not found"
    note "        build first (cmake -B build && cmake --build build); skipping the symheap column."
else
    run symheap "$symrun" -n 2 "$symbench" "${quick[@]}"
    run symheap "$symrun" -n 4 "$symbench" "${quick[@]}"
    run symheap "$symrun" -n 8 "$symbench" "${quick[@]}" --only barrier
fi

# ---- the table --------------------------------------------------------------------------
# Rows in first-seen order of name+metric, then by PE count.  Limit pairing:
#   pingpong oneway_8B   <-> cacheline oneway   (library latency as a multiple of hardware)
#   put/get bw_<size>    <-> memcpy bw_<size>   (library bandwidth as a fraction of memcpy)
echo
awk '
function limkey(name, metric) {
    if (name == "pingpong" && metric == "oneway_8B") return "cacheline oneway"
    if ((name == "put" || name == "get") && metric ~ /^bw_/) return "memcpy " metric
    return ""
}
function fmt(v) { return v == "" ? "-" : v }
function ratio(a, b) { return (a == "" || b == "" || b + 0 == 0) ? "-" : sprintf("%.2f", a / b) }
$1 == "limit" { lim[$2 " " $4] = $5; next }
{
    m = $2 " " $4
    if (!(m in order)) { order[m] = ++nm; unit[m] = $6 }
    k = m SUBSEP $3
    if (!(k in seen)) { seen[k] = 1; rows[++nr] = k }
    val[$1, k] = $5
}
END {
    # insertion sort by (metric order, PEs); there are only a few dozen rows
    for (i = 2; i <= nr; i++) {
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
        split(rows[i], a, SUBSEP); m = a[1]; k = rows[i]
        s = val["symheap", k]; o = val["oshmem", k]
        lk = limkey(substr(m, 1, index(m, " ") - 1), substr(m, index(m, " ") + 1))
        l = (lk in lim) ? lim[lk] : ""
        printf h, m " (" unit[m] ")", a[2], fmt(s), fmt(o), ratio(s, o), fmt(l), ratio(s, l), ratio(o, l)
    }
    if (nr == 0) print "(no library results)"
    print ""
    print "Medians over trials.  sym/OSH > 1: symheap is slower for us, faster for GB/s."
    print "x/lim: for GB/s the fraction of single-thread memcpy (1 = hardware speed); for us the"
    print "multiple of the cache-line one-way latency between two cores (1 = hardware floor)."
    split("memcpy bw_1MiB,memcpy bw_64MiB,cacheline oneway", ord, ",")
    out = ""
    for (i = 1; i <= 3; i++) if (ord[i] in lim) out = out "  " ord[i] " " lim[ord[i]]
    if (out != "") print "Machine limits:" out
}' "$tmp/results" || errors=$((errors + 1))

[ "$errors" -eq 0 ] || { echo "compare.sh: $errors run(s) failed, see above" >&2; exit 1; }
exit 0
