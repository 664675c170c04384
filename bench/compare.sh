#!/usr/bin/env bash
# compare.sh: symheap against Open MPI's OSHMEM and this machine's limits, in one table,
# with the targets of issue 6 and a plot.
#
#   bench/compare.sh [--quick] [--md FILE] [--plot FILE.svg] [build-dir]
#
# Builds bench.c and startup.c with oshcc and limits.c with cc in a private temp dir, then
# per round runs
#   limits                                           machine limits
#   oshrun -np N bench;  symrun -n N bench_symheap   N = 2, 4, 8 (8: collectives only)
#   symheap with SHMEM_CHECKS=off, cheap, full       barrier and malloc (issue 3)
# and once: message-size sweeps at 2 PEs (for the plot), start-up time of an
# init/finalize-only program with 4 PEs (5 launches each), symheap's barrier at
# 2..64 PEs (scale), and bench/waits.sh (writes into waiting PEs, OSU-shaped broadcast;
# 5 launches per library and PE count, 2 with --quick).  The libraries alternate so a burst of background load hits both
# columns alike.  Each launch prints per-metric medians over its trials; the table shows,
# per metric, the median of those over the rounds (3 rounds of 9 trials; --quick: 1 round
# of 7 short trials).  --md FILE also writes the table (markdown) to FILE; --plot FILE
# writes latency and bandwidth against message size (SVG, gnuplot; skipped with a note
# when gnuplot is missing: apt-get install gnuplot-nox).
#
# A missing OSHMEM or symheap build is reported and its column left empty; the exit status
# is non-zero only when something present fails to build or run.  Installs nothing;
# removes its temp dir and stops what it started, also on Ctrl-C.  Each launch is limited
# to RUN_TIMEOUT seconds (default 120).
set -u -o pipefail

usage() { echo "usage: $0 [--quick] [--md FILE] [--plot FILE.svg] [build-dir]"; }

rounds=3
bargs=(--trials 9)
build=""
md=""
plot=""
while [ $# -gt 0 ]; do
    a=$1
    shift
    case "$a" in
    --quick) rounds=1 bargs=(--quick) ;;
    --md) md=${1:?--md needs a file}; shift ;;
    --plot) plot=${1:?--plot needs a file}; shift ;;
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
elif ! oshcc -std=c11 -O2 -o "$tmp/bench_oshmem" "$here/bench.c" "$here/common.c" 2>"$tmp/err" ||
    ! oshcc -std=c11 -O2 -o "$tmp/startup_oshmem" "$here/startup.c" 2>>"$tmp/err"; then
    echo "compare.sh: building bench.c with oshcc failed:" >&2
    cat "$tmp/err" >&2
    errors=$((errors + 1))
else
    # --mca btl ^openib: without it OSHMEM 4.1 crashes in shmem_finalize.
    osh=(oshrun --allow-run-as-root --oversubscribe --mca btl ^openib)
fi

symrun=$build/tools/symrun
symbench=$build/bench/bench_symheap
symstart=$build/bench/bench_startup
sym=0
if [ -x "$symrun" ] && [ -x "$symbench" ] && [ -x "$symstart" ]; then
    sym=1
else
    [ -x "$symrun" ] || note "symheap: $symrun not found"
    [ -x "$symbench" ] || note "symheap: $symbench not found"
    note "        build first (cmake -B build && cmake --build build); skipping the symheap column."
fi

# ---- the runs ---------------------------------------------------------------------------
p2p=put,get,fadd,pingpong
colls=barrier,bcast,bcast14,fcollect,alltoall,reduce
# launch TAG NP ARGS...: one launch of TAG's library (oshmem, symheap; sym_off, sym_cheap
# and sym_full are symheap with that SHMEM_CHECKS)
launch() {
    local tag=$1 np=$2
    shift 2
    case $tag in
    oshmem) [ ${#osh[@]} -eq 0 ] || run oshmem "${osh[@]}" -np "$np" "$tmp/bench_oshmem" "$@" ;;
    symheap) [ "$sym" -eq 0 ] || run symheap "$symrun" -n "$np" "$symbench" "$@" ;;
    sym_*) [ "$sym" -eq 0 ] || run "$tag" env SHMEM_CHECKS="${tag#sym_}" "$symrun" -n "$np" "$symbench" "$@" ;;
    esac
}
for ((r = 1; r <= rounds; r++)); do
    [ ${#limits[@]} -eq 0 ] || run limit "${limits[@]}" "${bargs[@]}"
    for np in 2 4 8; do
        only=$p2p,$colls,malloc
        [ "$np" -eq 2 ] && only=$only,mlive  # 10^5 live blocks: 2 PEs are enough
        [ "$np" -eq 8 ] && only=$colls       # 8 PEs on a small node: collectives only
        for tag in oshmem symheap; do launch $tag "$np" "${bargs[@]}" --only "$only"; done
    done
    for np in 2 4; do
        for tag in sym_off sym_cheap sym_full; do
            launch $tag "$np" "${bargs[@]}" --only barrier,malloc
        done
    done
done
# Message-size sweeps for the plot (2 PEs, one launch each).
for tag in oshmem symheap; do launch $tag 2 "${bargs[@]}" --only putsize,bcastsize; done

# Start-up: wall time of whole launches of an init/finalize-only program, 4 PEs.
# startup TAG CMD...: 5 launches, each line "TAG startup 4 init_fini <ms> ms".
startup() {
    local tag=$1 i t0 t1
    shift
    note "timing 5 launches: $*"
    for i in 1 2 3 4 5; do
        t0=$(date +%s%N)
        if ! timeout -k 5 "$run_timeout" "$@" >/dev/null 2>"$tmp/err" </dev/null; then
            echo "compare.sh: failed: $*" >&2
            tail -n 5 "$tmp/err" >&2
            errors=$((errors + 1))
            return
        fi
        t1=$(date +%s%N)
        echo "$tag startup 4 init_fini $(((t1 - t0) / 1000))e-3 ms" >>"$tmp/results"
    done
}
[ ${#osh[@]} -eq 0 ] || startup oshmem "${osh[@]}" -np 4 "$tmp/startup_oshmem"
[ "$sym" -eq 0 ] || startup symheap "$symrun" -n 4 "$symstart"

# Scale: symheap's barrier (and its start, allocations and finalize) from 16 to 64 PEs,
# oversubscribed; OSHMEM up to 16 PEs.  A smaller heap: every PE maps every peer's.
for np in 16 32 64; do
    [ "$np" -gt 16 ] || SHMEM_SYMMETRIC_SIZE=64M launch oshmem "$np" --quick --only barrier
    SHMEM_SYMMETRIC_SIZE=64M launch symheap "$np" --quick --only barrier
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
# Targets (issue 6): the ratio a row is judged by in "target", "met" says yes/no.
echo
{
echo "$(date -u +%Y-%m-%d), $(nproc 2>/dev/null || echo '?') CPUs ($(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n1)), $rounds round(s)"
echo
awk -v rounds="$rounds" '
function limkey(name, metric) {
    if (name == "pingpong" && metric == "oneway_8B") return "cacheline oneway"
    if ((name == "put" || name == "get") && metric ~ /^bw_/) return "memcpy " metric
    return ""
}
# median of the values collected under key k (insertion sort; a handful of values)
function medv(k,    n, i, j, x, v) {
    n = cnt[k]
    if (!n) return ""
    for (i = 1; i <= n; i++) {
        x = vals[k, i] + 0
        for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]
        v[j + 1] = x
    }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
function f3(x) { return x == "" ? "-" : sprintf(x >= 100 ? "%.1f" : x >= 1 ? "%.3f" : "%.4f", x) }
function ratio(a, b) { return (a == "" || b == "" || b + 0 == 0) ? "" : a / b }
function r2(x) { return x == "" ? "-" : sprintf("%.2f", x) }
# target of a row: sets tk (which ratio: "osh" or "lim"), tcmp ("<=" or ">="), tv
function target(name, metric, pes) {
    tk = ""
    if (name ~ /^(put|get|fadd)$/ && metric == "lat_8B") { tk = "osh"; tcmp = "<="; tv = 1.0 }
    else if (name == "pingpong") { tk = "lim"; tcmp = "<="; tv = 1.3 }
    else if (name == "barrier" && pes == 2) { tk = "osh"; tcmp = "<="; tv = 0.3 }
    else if (name == "barrier" && pes <= 8) { tk = "osh"; tcmp = "<="; tv = 0.5 }
    else if (name ~ /^(put|get)$/ && metric ~ /^bw_/) { tk = "lim"; tcmp = ">="; tv = 0.9 }
    else if (name ~ /^(bcast|bcast14|fcollect|alltoall|reduce|malloc)$/) { tk = "osh"; tcmp = "<="; tv = 0.5 }
    else if (name == "startup") { tk = "osh"; tcmp = "<="; tv = 0.1 }
}
{
    m = $2 " " $4
    k = $1 SUBSEP m SUBSEP $3
    vals[k, ++cnt[k]] = $5
    if ($1 == "limit") { lim[m] = 1; next }
    if ($1 ~ /^sym_/) {
        if (!((m, $3) in cseen)) { cseen[m, $3] = 1; crows[++ncr] = m SUBSEP $3; cunit[m] = $6 }
        next
    }
    if ($2 ~ /size$/) next      # plot only
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
    printf "| metric | PEs | symheap | OSHMEM | sym/OSH | limit | sym/lim | target | met |\n"
    printf "|---|--:|--:|--:|--:|--:|--:|---|---|\n"
    met = 0; missed = 0
    for (i = 1; i <= nr; i++) {
        split(rows[i], a, SUBSEP); m = a[1]
        name = substr(m, 1, index(m, " ") - 1); metric = substr(m, index(m, " ") + 1)
        s = medv("symheap" SUBSEP rows[i]); o = medv("oshmem" SUBSEP rows[i])
        lk = limkey(name, metric)
        l = ""
        if (lk in lim) l = medv("limit" SUBSEP lk SUBSEP (lk ~ /^memcpy/ ? 1 : 2))
        so = ratio(s, o); sl = ratio(s, l)
        if (unit[m] == "GB/s" && so != "") so = 1 / so   # as a time ratio: < 1 is faster
        target(name, metric, a[2] + 0)
        tt = "-"; ok = "-"
        if (tk != "") {
            tt = (tk == "osh" ? "sym/OSH " : "sym/lim ") tcmp " " tv
            x = tk == "osh" ? so : sl
            if (x != "") {
                ok = (tcmp == "<=" ? x <= tv : x >= tv) ? "yes" : "**no**"
                if (ok == "yes") met++; else missed++
            }
        }
        printf "| %s (%s) | %d | %s | %s | %s | %s | %s | %s | %s |\n", m, unit[m], a[2], f3(s), f3(o), r2(so), f3(l), r2(sl), tt, ok
    }
    if (nr == 0) print "(no library results)"
    print ""
    printf "Targets met: %d of %d.  Cells: median over %d launch(es) of each launch'"'"'s median over its trials; startup: median of 5 launches.\n", met, met + missed, rounds
    print "sym/OSH: symheap time / OSHMEM time (inverted for GB/s rows, so < 1 always means symheap is faster)."
    print "sym/lim: for GB/s the fraction of single-thread memcpy (1 = hardware speed); for us the"
    print "multiple of the cache-line one-way latency between two cores (1 = hardware floor)."
    split("memcpy bw_1MiB 1,memcpy bw_64MiB 1,cacheline oneway 2", ord, ",")
    out = ""
    for (i = 1; i <= 3; i++) {
        split(ord[i], p, " ")
        x = medv("limit" SUBSEP p[1] " " p[2] SUBSEP p[3])
        if (x != "") out = out "  " p[1] " " p[2] " " f3(x)
    }
    if (out != "") print "Machine limits:" out
    for (t = 1; t <= 2; t++) {
        lib = t == 1 ? "symheap" : "oshmem"
        a10 = medv(lib SUBSEP "mlive live10" SUBSEP 2); a5 = medv(lib SUBSEP "mlive live100000" SUBSEP 2)
        if (a10 != "" && a5 != "")
            printf "Allocator with live blocks (%s, 2 PEs): malloc+free of 4 KiB with 10^5 live blocks costs %.2fx the cost with 10 (logarithmic growth allows %.0fx).\n", lib, a5 / a10, log(1e5) / log(10)
    }
    if (ncr) {
        print ""
        print "Debug checks (issue 3), symheap, same run: SHMEM_CHECKS=off / cheap / full"
        print ""
        print "| metric | PEs | off | cheap | full | cheap/off | full/off |"
        print "|---|--:|--:|--:|--:|--:|--:|"
        for (i = 1; i <= ncr; i++) {
            split(crows[i], a, SUBSEP)
            x0 = medv("sym_off" SUBSEP crows[i]); x1 = medv("sym_cheap" SUBSEP crows[i]); x2 = medv("sym_full" SUBSEP crows[i])
            printf "| %s (%s) | %d | %s | %s | %s | %s | %s |\n", a[1], cunit[a[1]], a[2], f3(x0), f3(x1), f3(x2), r2(ratio(x1, x0)), r2(ratio(x2, x0))
        }
    }
}' "$tmp/results" || errors=$((errors + 1))
} | tee "$tmp/table.md"
[ -z "$md" ] || cp "$tmp/table.md" "$md"

# ---- the plot ---------------------------------------------------------------------------
# Latency and bandwidth against message size at 2 PEs: put + quiet, broadcast + barrier.
if [ -n "$plot" ]; then
    awk '$2 ~ /size$/ && ($1 == "symheap" || $1 == "oshmem") {
        s = $4; sub(/^lat_/, "", s); n = s + 0
        if (s ~ /KiB$/) n *= 1024; else if (s ~ /MiB$/) n *= 1048576
        v[n, $1 " " $2] = $5; sz[n] = 1
    } END {
        for (n in sz) printf "%d %s %s %s %s\n", n, v[n, "symheap putsize"], v[n, "oshmem putsize"],
            v[n, "symheap bcastsize"], v[n, "oshmem bcastsize"]
    }' "$tmp/results" | sort -n |
        awk '{ for (i = 2; i <= 5; i++) if ($i == "") $i = "NaN"; print }' >"$tmp/plot.dat"
    if ! command -v gnuplot >/dev/null; then
        note "gnuplot not found: no plot (apt-get install gnuplot-nox)"
    elif [ ! -s "$tmp/plot.dat" ]; then
        note "no size-sweep results: no plot"
    else
        cat >"$tmp/plot.gp" <<GP
set terminal svg size 960,400 font "sans,11" background "white"
set output "$plot"
set multiplot layout 1,2 title "symheap vs Open MPI OSHMEM, 2 PEs, $(date -u +%Y-%m-%d), $(nproc) CPUs"
set logscale xy
set grid
set xlabel "message size (bytes)"
set format x "%.0s%cB"
set ylabel "latency (us)"
set key top left
plot "$tmp/plot.dat" u 1:2 w lp pt 7 lc rgb "#1f77b4" t "symheap put+quiet", \
     "" u 1:3 w lp pt 5 lc rgb "#d62728" t "OSHMEM put+quiet", \
     "" u 1:4 w lp pt 6 dt 2 lc rgb "#1f77b4" t "symheap broadcast+barrier", \
     "" u 1:5 w lp pt 4 dt 2 lc rgb "#d62728" t "OSHMEM broadcast+barrier"
set ylabel "bandwidth (GB/s)"
set key bottom right
plot "$tmp/plot.dat" u 1:(\$1/\$2/1000) w lp pt 7 lc rgb "#1f77b4" t "symheap put", \
     "" u 1:(\$1/\$3/1000) w lp pt 5 lc rgb "#d62728" t "OSHMEM put", \
     "" u 1:(\$1/\$4/1000) w lp pt 6 dt 2 lc rgb "#1f77b4" t "symheap broadcast", \
     "" u 1:(\$1/\$5/1000) w lp pt 4 dt 2 lc rgb "#d62728" t "OSHMEM broadcast"
unset multiplot
GP
        if gnuplot "$tmp/plot.gp" 2>"$tmp/err"; then
            note "plot written to $plot"
        else
            echo "compare.sh: gnuplot failed:" >&2
            cat "$tmp/err" >&2
            errors=$((errors + 1))
        fi
    fi
fi

# What waiting PEs cost their writers, and the OSU-shaped broadcast (issues 15, 19):
# bench/waits.sh, its own table (median and slowest launch), appended to --md FILE.
if [ -x "$here/waits.sh" ]; then
    note "waits.sh: put/fetch-add/put-signal into waiting PEs, osubcast"
    wl=5
    [ "$rounds" -eq 1 ] && wl=2
    if ! "$here/waits.sh" --launches "$wl" "$build" > "$tmp/waits.md"; then
        errors=$((errors + 1))
    fi
    echo
    cat "$tmp/waits.md"
    [ -z "$md" ] || { echo; cat "$tmp/waits.md"; } >> "$md"
fi

[ "$errors" -eq 0 ] || { echo "compare.sh: $errors launch(es) failed, see above" >&2; exit 1; }
exit 0
