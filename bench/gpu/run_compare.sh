#!/usr/bin/env bash
# run_compare.sh BUILD_DIR [NPES] - symheap vs NVIDIA NVSHMEM on this GPU,
# same benchmark source (bench_gpu.cu), same PE count, both under one MPS
# daemon when the PEs share a GPU.  Needs NVSHMEM's headers and libraries:
# NVSHMEM_HOME, or the pip package nvidia-nvshmem-cu13 of python3.  Prints
# both result sets and a side-by-side table (the one in docs/gpu.md).
set -euo pipefail
build=$(cd "$1" && pwd)
npes=${2:-2}
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT_DIR:-$(mktemp -d)}
mkdir -p "$out"
export NVSHMEM_DISABLE_NVLS=1 # never NVLink multicast (shared machines)

nv=${NVSHMEM_HOME:-$(python3 -c 'import nvidia.nvshmem as m; print(m.__path__[0])' 2>/dev/null || true)}
if [ -z "$nv" ] || [ ! -d "$nv/include" ]; then
    echo "run_compare: NVSHMEM not found: set NVSHMEM_HOME or pip install nvidia-nvshmem-cu13" >&2
    exit 2
fi
hostlib=$(ls "$nv"/lib/libnvshmem_host.so* | head -1)
echo "# NVSHMEM from $nv ($(basename "$hostlib"))"
# BENCH_NVSHMEM_BIN: an NVSHMEM build of bench_gpu.cu to reuse (no recompile)
nvbin=${BENCH_NVSHMEM_BIN:-$out/bench_nvshmem}
if [ -z "${BENCH_NVSHMEM_BIN:-}" ]; then
    gcc -O2 -c "$here/../common.c" -o "$out/common.o"
    nvcc -O3 -rdc=true -arch=sm_90 --extended-lambda -DBENCH_NVSHMEM -I"$nv/include" \
        "$here/bench_gpu.cu" "$out/common.o" -o "$nvbin" \
        -L"$nv/lib" -Xlinker "$hostlib" "$nv/lib/libnvshmem_device.a" -lcuda -Xlinker -rpath -Xlinker "$nv/lib"
fi

# BENCH_ONLY: benchmark names for --only (all when unset); BENCH_TIMEOUT: seconds per library
args=(--trials "${BENCH_TRIALS:-5}" --target-ms "${BENCH_TARGET_MS:-20}" ${BENCH_ONLY:+--only "$BENCH_ONLY"})
tmo=${BENCH_TIMEOUT:-300}
"$build/tools/symrun" -n "$npes" --timeout "$tmo" "$build/bench/gpu/bench_gpu" "${args[@]}" \
    | tee "$out/symheap.txt" || echo "# symheap run failed ($?)"

# NVSHMEM forks its own PEs; give them the same MPS conditions as symrun does.
mps=""
if [ "$npes" -gt 1 ] && command -v nvidia-cuda-mps-control >/dev/null; then
    mps=$(mktemp -d)
    mkdir -p "$mps/pipe" "$mps/log"
    export CUDA_MPS_PIPE_DIRECTORY=$mps/pipe CUDA_MPS_LOG_DIRECTORY=$mps/log
    nvidia-cuda-mps-control -d >/dev/null 2>&1 || { echo "# MPS did not start"; mps=""; }
fi
# its host library and bootstrap plugins, and the pip CUDA runtime it may need.
# NVSHMEM_IGNORE_CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=1: NVSHMEM's full multi-process-
# per-GPU mode under MPS without capping each PE's SMs (otherwise its on-stream
# barrier stops with "not supported with limited MPG"); symheap's PEs get the
# whole GPU as well.
libs="$nv/lib"
for d in "$nv"/../*/lib; do [ -d "$d" ] && libs="$libs:$d"; done
LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
NVSHMEM_REMOTE_TRANSPORT=none NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=lo NVSHMEM_IGNORE_CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=1 \
NVSHMEM_SYMMETRIC_SIZE=${NVSHMEM_SYMMETRIC_SIZE:-3G} BENCH_NPES=$npes \
    timeout "$tmo" "$nvbin" "${args[@]}" | tee "$out/nvshmem.txt" || echo "# NVSHMEM run failed ($?)"
[ -n "$mps" ] && { echo quit | nvidia-cuda-mps-control >/dev/null 2>&1 || true; rm -rf "$mps"; }

colls='(barrier|broadcast|fcollect|alltoall|reduce|reducescatter)' forms='(thread|warp|block|stream)'
echo
echo "| benchmark | size | symheap | NVSHMEM 3.4.5 | unit |"
echo "|---|---|---|---|---|"
awk '$1 == "bench" && !(substr($2, index($2, ".") + 1) ~ /^'"$colls"'_'"$forms"'$/) { split($2, a, "."); v[a[2] " " $4, a[1]] = $5; u[a[2] " " $4] = $6;
                     if (!(a[2] " " $4 in seen)) { seen[a[2] " " $4] = 1; order[n++] = a[2] " " $4 } }
     END { for (i = 0; i < n; i++) { k = order[i]; split(k, p, " ");
             printf "| %s | %s | %s | %s | %s |\n", p[1], p[2], (k SUBSEP "symheap") in v ? v[k, "symheap"] : "-",
                    (k SUBSEP "nvshmem") in v ? v[k, "nvshmem"] : "-", u[k] } }' \
    "$out/symheap.txt" "$out/nvshmem.txt"

# Collectives: time per call and size / time (size = the per-PE block), and
# symheap's time over NVSHMEM's; ** marks symheap more than 10% slower.
echo
echo "| collective | form | size | symheap µs | NVSHMEM µs | symheap GB/s | NVSHMEM GB/s | time sym/nv |"
echo "|---|---|---|---|---|---|---|---|"
awk -v re="^$colls"'_'"$forms"'$' '
    function bytes(m,  u, x) { if (m == "-") return 0; u = substr(m, length(m)); x = substr(m, 1, length(m) - 1) + 0;
                               return u == "B" ? x : u == "K" ? x * 1024 : u == "M" ? x * 1048576 : x * 1073741824 }
    function gbs(m, t) { return bytes(m) && t > 0 ? sprintf("%.3g", bytes(m) / t / 1e3) : "-" }
    $1 == "bench" { i = index($2, "."); impl = substr($2, 1, i - 1); nm = substr($2, i + 1);
                    if (nm !~ re) next; k = nm " " $4; v[k, impl] = $5;
                    if (!(k in seen)) { seen[k] = 1; order[n++] = k } }
    END { for (i = 0; i < n; i++) { k = order[i]; split(k, p, " "); j = match(p[1], /_[a-z]+$/);
            c = substr(p[1], 1, j - 1); f = substr(p[1], j + 1);
            s = (k SUBSEP "symheap") in v ? v[k, "symheap"] : ""; m = (k SUBSEP "nvshmem") in v ? v[k, "nvshmem"] : "";
            r = s != "" && m != "" && m > 0 ? s / m : 0;
            printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", c, f, p[2], s == "" ? "-" : s, m == "" ? "-" : m,
                   s == "" ? "-" : gbs(p[2], s), m == "" ? "-" : gbs(p[2], m),
                   r ? sprintf(r > 1.10 ? "**%.2f**" : "%.2f", r) : "-" } }' \
    "$out/symheap.txt" "$out/nvshmem.txt"
