#!/usr/bin/env bash
# waits.sh: what waiting PEs cost the PEs that write to them (bench/waits.c), over many
# launches, symheap against Open MPI's OSHMEM taking turns launch by launch.
#
#   bench/waits.sh [--launches N] [--pes "2 4 8"] [--md FILE] [--old DIR] [build-dir]
#
# Per PE count and launch: OSHMEM (bench_waits built with oshcc), symheap, and with
# --old DIR a second symheap build (DIR/tools/symrun, DIR/bench/bench_waits or, when it
# has none, waits.c built with DIR/tools/symcc: "before" numbers in the same run).
# Prints, per row, the median over the launches and the slowest launch, and for the
# 'barrier' and 'other' states the ratio to 'compute' and to 'nap' of the same launch
# (issue 15's goal: within 1.2x in every launch; the worst launch's ratio is shown).
# The OSU-shaped rows (osubcast, osucollect, osufcollect, osureduce, osualltoall: each
# collective timed alone, 8 B and 1 KiB) with the OSHMEM ratio launch by launch.
# The halo row (halo exchange + stencil, 'halo iter' in us per iteration) with the OSHMEM
# ratio launch by launch, and its MFlop/s per launch.  --load: one busy process per
# CPU runs beside the whole measurement (issue 15: under load, symheap within 1.5x of
# OSHMEM in every launch); --only NAMES passes bench_waits --only (e.g. halo).
# Each launch is limited to RUN_TIMEOUT seconds (default 120); --quick-ish trials:
# WAITS_ARGS (default "--trials 7 --target-ms 10").
set -u -o pipefail

launches=5
pes="2 4 8"
md=""
old=""
build=""
load=0
only=()
while [ $# -gt 0 ]; do
    a=$1
    shift
    case "$a" in
    --launches) launches=${1:?}; shift ;;
    --pes) pes=${1:?}; shift ;;
    --md) md=${1:?}; shift ;;
    --old) old=${1:?}; shift ;;
    --load) load=1 ;;
    --only) only=(--only "${1:?}"); shift ;;
    -h | --help) sed -n '2,21p' "$0"; exit 0 ;;
    -*) echo "waits.sh: unknown option '$a'" >&2; exit 2 ;;
    *) build=$a ;;
    esac
done
here=$(cd "$(dirname "$0")" && pwd)
build=${build:-$here/../build}
run_timeout=${RUN_TIMEOUT:-120}
read -r -a wargs <<< "${WAITS_ARGS:---trials 7 --target-ms 10}"
export SHMEM_SYMMETRIC_SIZE=${SHMEM_SYMMETRIC_SIZE:-256M}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/symheap-waits.XXXXXX") || exit 1
busy=()
trap 'for p in ${busy[@]+"${busy[@]}"}; do kill "$p" 2> /dev/null; done; rm -rf "$tmp"' EXIT
out=$tmp/results   # lines: lib launch <bench line fields>
: > "$out"

libs=()
if [ -x "$build/tools/symrun" ] && [ -x "$build/bench/bench_waits" ]; then
    libs+=(symheap)
else
    echo "# waits.sh: no symrun/bench_waits in $build: symheap column skipped" >&2
fi
if [ -n "$old" ]; then
    oldbin=$old/bench/bench_waits
    if [ ! -x "$oldbin" ]; then
        oldbin=$tmp/bench_waits_old
        "$old/tools/symcc" -std=c11 -O2 -o "$oldbin" "$here/waits.c" "$here/common.c" ||
            { echo "waits.sh: cannot build waits.c with $old/tools/symcc" >&2; exit 1; }
    fi
    libs+=(old)
fi
if command -v oshcc > /dev/null && command -v oshrun > /dev/null &&
    oshcc -std=c11 -O2 -o "$tmp/bench_waits_osh" "$here/waits.c" "$here/common.c" 2> "$tmp/oshcc.log"; then
    libs+=(oshmem)
else
    echo "# waits.sh: no oshcc/oshrun (or the build failed): OSHMEM column skipped" >&2
fi

one() { # lib np launch
    local lib=$1 np=$2 k=$3 cmd
    case $lib in
    symheap) cmd=("$build/tools/symrun" -n "$np" "$build/bench/bench_waits") ;;
    old) cmd=("$old/tools/symrun" -n "$np" "$oldbin") ;;
    oshmem) cmd=(oshrun --allow-run-as-root --oversubscribe --mca btl ^openib -np "$np" "$tmp/bench_waits_osh") ;;
    esac
    timeout "$run_timeout" "${cmd[@]}" "${wargs[@]}" ${only[@]+"${only[@]}"} 2> "$tmp/err" | awk -v l="$lib" -v k="$k" '$1 == "bench" { print l, k, $2, $3, $4, $5 }' >> "$out" ||
        { echo "waits.sh: $lib -n $np failed:" >&2; tail -5 "$tmp/err" >&2; }
}

if [ "$load" = 1 ]; then
    for _ in $(seq 1 "$(nproc)"); do
        sh -c 'while :; do :; done' &
        busy+=($!)
    done
    sleep 2
fi
load0=$(cut -d' ' -f1 /proc/loadavg)
start=$(date -u '+%Y-%m-%d %H:%M UTC')
for np in $pes; do
    for k in $(seq 1 "$launches"); do
        for lib in "${libs[@]}"; do one "$lib" "$np" "$k"; done
    done
done
load1=$(cut -d' ' -f1 /proc/loadavg)

{
    echo "waits.sh: $start, $(nproc) CPUs, $launches launch(es) per library and PE count, alternating; load average $load0 at the start, $load1 at the end; args: ${wargs[*]} ${only[*]}$([ "$load" = 1 ] && echo "; under load: $(nproc) busy processes beside every launch")"
    echo
    echo "| row | PEs | library | median (us) | slowest launch (us) | x compute (median / worst launch) | x nap (median / worst launch) |"
    echo "|---|--:|---|--:|--:|--:|--:|"
    awk '
    $5 != "mflops" { key = $3 " " $4 " " $5; v[$1, key, $2] = $6; keys[key] = 1; libs[$1] = 1; n[$1, key]++; K[$2] = 1 }
    function med(a, m,   i, j, t) { for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t } return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2 }
    END {
        nk = 0; for (k in K) nk++
        ORDER["symheap"] = 1; ORDER["old"] = 2; ORDER["oshmem"] = 3
        for (key in keys) {
            split(key, f, " ")
            for (lib in libs) {
                m = 0; worst = 0; delete a
                for (k = 1; k <= nk; k++) if ((lib, key, k) in v) { a[++m] = v[lib, key, k]; if (v[lib, key, k] > worst) worst = v[lib, key, k] }
                if (!m) continue
                rc = "-"; rn = "-"
                if (f[1] == "waits_barrier" || f[1] == "waits_other") {
                    for (base = 0; base < 2; base++) {
                        bk = (base ? "waits_nap" : "waits_compute") " " f[2] " " f[3]
                        mm = 0; wr = 0; delete r
                        for (k = 1; k <= nk; k++) if ((lib, key, k) in v && (lib, bk, k) in v) { r[++mm] = v[lib, key, k] / v[lib, bk, k]; if (r[mm] > wr) wr = r[mm] }
                        if (mm) { s = sprintf("%.2f / %.2f", med(r, mm), wr); if (base) rn = s; else rc = s }
                    }
                }
                row = f[1] " " f[3]
                printf "%s\t%d\t%d\t| %s | %s | %s | %.4g | %.4g | %s | %s |\n", f[1], f[2], ORDER[lib], row, f[2], lib, med(a, m), worst, rc, rn
            }
        }
    }' "$out" | sort -t$'\t' -k1,1 -k2,2n -k3,3n | cut -f4
    echo
    # the OSU-shaped rows against OSHMEM, launch by launch
    awk '$3 ~ /^osu/ || ($3 == "halo" && $5 == "iter") { key = $3 " " $5; v[$1, key, $4, $2] = $6; R[key] = 1; P[$4] = 1; K[$2] = 1 }
    END { nk = 0; for (k in K) if (k + 0 > nk) nk = k + 0
          for (key in R) for (p in P) { m = 0; w = 0; s = ""; for (k = 1; k <= nk; k++) if (("symheap", key, p, k) in v && ("oshmem", key, p, k) in v) { r = v["symheap", key, p, k] / v["oshmem", key, p, k]; m++; s = s " " sprintf("%.2f", r); if (r > w) w = r }
          if (m) printf "%s, %d PEs: symheap/OSHMEM per launch:%s (worst %.2f)\n", key, p, s, w } }' "$out" | sort
    awk '$3 == "halo" && $5 == "mflops" { s[$1 " " $4] = s[$1 " " $4] " " $6 }
    END { for (k in s) { split(k, f, " "); printf "halo MFlop/s, %d PEs, %s per launch:%s\n", f[2], f[1], s[k] } }' "$out" | sort
} | tee "${md:-/dev/null}"
