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
gcc -O2 -c "$here/../common.c" -o "$out/common.o"
nvcc -O3 -rdc=true -arch=sm_90 --extended-lambda -DBENCH_NVSHMEM -I"$nv/include" \
    "$here/bench_gpu.cu" "$out/common.o" -o "$out/bench_nvshmem" \
    -L"$nv/lib" -Xlinker "$hostlib" "$nv/lib/libnvshmem_device.a" -lcuda -Xlinker -rpath -Xlinker "$nv/lib"

args=(--trials "${BENCH_TRIALS:-5}" --target-ms "${BENCH_TARGET_MS:-20}")
[ -n "${BENCH_ONLY:-}" ] && args+=(--only "$BENCH_ONLY") # e.g. BENCH_ONLY=barrier,g_lat
"$build/tools/symrun" -n "$npes" --timeout 300 "$build/bench/gpu/bench_gpu" "${args[@]}" \
    | tee "$out/symheap.txt"

# NVSHMEM forks its own PEs; give them the same MPS conditions as symrun does.
mps=""
if [ "$npes" -gt 1 ] && command -v nvidia-cuda-mps-control >/dev/null; then
    mps=$(mktemp -d)
    mkdir -p "$mps/pipe" "$mps/log"
    export CUDA_MPS_PIPE_DIRECTORY=$mps/pipe CUDA_MPS_LOG_DIRECTORY=$mps/log
    nvidia-cuda-mps-control -d >/dev/null 2>&1 || { echo "# MPS did not start"; mps=""; }
fi
# its host library and bootstrap plugins, and the pip CUDA runtime it may need
libs="$nv/lib"
for d in "$nv"/../*/lib; do [ -d "$d" ] && libs="$libs:$d"; done
LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
NVSHMEM_REMOTE_TRANSPORT=none NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=lo \
NVSHMEM_SYMMETRIC_SIZE=${NVSHMEM_SYMMETRIC_SIZE:-3G} BENCH_NPES=$npes \
    timeout 300 "$out/bench_nvshmem" "${args[@]}" | tee "$out/nvshmem.txt" || echo "# NVSHMEM run failed ($?)"
[ -n "$mps" ] && { echo quit | nvidia-cuda-mps-control >/dev/null 2>&1 || true; rm -rf "$mps"; }

echo
echo "| benchmark | size | symheap | NVSHMEM 3.4.5 | unit |"
echo "|---|---|---|---|---|"
awk '$1 == "bench" { split($2, a, "."); v[a[2] " " $4, a[1]] = $5; u[a[2] " " $4] = $6;
                     if (!(a[2] " " $4 in seen)) { seen[a[2] " " $4] = 1; order[n++] = a[2] " " $4 } }
     END { for (i = 0; i < n; i++) { k = order[i]; split(k, p, " ");
             printf "| %s | %s | %s | %s | %s |\n", p[1], p[2], (k SUBSEP "symheap") in v ? v[k, "symheap"] : "-",
                    (k SUBSEP "nvshmem") in v ? v[k, "nvshmem"] : "-", u[k] } }' \
    "$out/symheap.txt" "$out/nvshmem.txt"
