#!/usr/bin/env python3
"""nvshmem_coverage.py - which NVSHMEM routine names symheap's nvshmem.h + nvshmemx.h lack.

    scripts/nvshmem_coverage.py NVSHMEM_INCLUDE_DIR [--list] [--cuda-include DIR]

NVSHMEM_INCLUDE_DIR is the include directory of an NVSHMEM install (for example
the pip package nvidia-nvshmem-cu13: .../site-packages/nvidia/nvshmem/include) or
src/include of a checkout of github:NVIDIA/nvshmem (its two .h.in templates are
filled in a temporary directory).  NVIDIA's headers are read where they are,
never copied into this repository.

Both sides are preprocessed and every routine name (nvshmem_*, nvshmemx_*)
declared or defined is collected:
  - NVIDIA's nvshmem.h + nvshmemx.h with nvcc -E (host pass, C++17), which keeps
    __device__ as __attribute__((device)): a name with a declaration that is not
    device-only is a host name, except the thread-group forms (_warp, _block);
  - ours as plain C (cc -E -std=c11: what symcc gives a C program on a machine
    without a GPU) and, when nvcc is there, as CUDA (nvcc -E, device API too).
Out of scope (docs/gpu.md says why): queue pairs (nvshmemx_qp_*), tile and tensor
routines, multicast (NVLS) routines other than nvshmemx_mc_ptr.

Prints the names we lack (one per line with --list, else grouped by family) and
the coverage: host names against our C header, and all names against C + CUDA.
Exit status 0; 2 when a header cannot be preprocessed.  Python 3 stdlib only.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OURS = os.path.join(os.path.dirname(HERE), "include")

# Out of scope: (regex on the name, reason).  Kept in step with docs/gpu.md.
OUT_OF_SCOPE = [
    (r"^nvshmemx_qp_", "InfiniBand queue pairs: symheap has no NIC transport of its own"),
    (r"tile|tensor", "tile/tensor routines (Blackwell TMA): not on an H200, no tile layouts"),
    (r"nvls|_mc_(?!ptr$)|multimem|multicast", "multicast (NVLS): not used; nvshmemx_mc_ptr gives NULL"),
]
NAME = re.compile(r"^nvshmemx?_[A-Za-z0-9_]+$")
TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\S")
NOT_A_TYPE = {"return", "case", "else", "do", "sizeof", "throw", "new", "delete", "goto",
              "co_await", "co_return", "typeof", "__typeof__", "decltype", "alignof"}


def preprocess(cmd, src_text, suffix):
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "cov" + suffix)
        with open(src, "w") as f:
            f.write(src_text)
        try:
            r = subprocess.run(cmd + [src], capture_output=True, text=True)
        except FileNotFoundError as e:
            sys.exit("nvshmem_coverage: %s: %s" % (cmd[0], e))
        if r.returncode != 0:
            sys.stderr.write(r.stderr[-4000:])
            sys.stderr.write("nvshmem_coverage: preprocessing failed: %s\n" % " ".join(cmd))
            sys.exit(2)
        return r.stdout


def routine_names(text):
    """{name: is_host} for every name declared or defined (not just called)."""
    text = "\n".join(l for l in text.splitlines() if not l.lstrip().startswith("#"))
    toks = TOKEN.findall(text)
    names = {}
    start = 0  # first token of the current declaration
    for i, t in enumerate(toks):
        if t in (";", "{", "}"):
            start = i + 1
            continue
        if not NAME.match(t) or i + 1 >= len(toks) or toks[i + 1] != "(" or i == 0:
            continue
        prev = toks[i - 1]
        if not (prev == "*" or (re.match(r"[A-Za-z_]", prev) and prev not in NOT_A_TYPE)):
            continue  # a call
        decl = " ".join(toks[start:i])
        device_only = "device" in decl and "host" not in decl and "__attribute__" in decl
        names[t] = names.get(t, False) or not device_only
    return names


def macro_names(cmd, src_text, suffix):
    """Macros named like routines (NVSHMEM's nvshmem_sync is one)."""
    dm = ["-Xcompiler", "-dM"] if os.path.basename(cmd[0]) == "nvcc" else ["-dM"]
    text = preprocess(cmd + dm, src_text, suffix)
    return {m.group(1) for m in re.finditer(r"^#define (nvshmemx?_[a-z0-9_]+)\b", text, re.M)}


def scope(name):
    for pat, why in OUT_OF_SCOPE:
        if re.search(pat, name):
            return why
    return None


TYPES = ("bfloat16 half float double longdouble char schar short int long longlong uchar ushort "
         "uint ulong ulonglong int8 int16 int32 int64 uint8 uint16 uint32 uint64 size ptrdiff "
         "complexd complexf double2").split()
TYPE_RE = re.compile(r"(?<=_)(%s)(?=_)" % "|".join(sorted(TYPES, key=len, reverse=True)))


def family(name):
    f = TYPE_RE.sub("TYPE", name, count=1)
    return re.sub(r"(?<=[a-z])(8|16|32|64|128)(?=_|$)", "BITS", f)


def fill_templates(inc, tmp):
    """src/include of a checkout has .h.in templates; make the two headers."""
    shim = os.path.join(tmp, "non_abi")
    os.makedirs(shim, exist_ok=True)
    for base in ("nvshmem_version.h", "nvshmem_build_options.h"):
        if os.path.exists(os.path.join(inc, "non_abi", base)):
            continue
        tpl = os.path.join(inc, "non_abi", base + ".in")
        if not os.path.exists(tpl):
            continue
        with open(tpl) as f:
            s = f.read()
        s = re.sub(r"#cmakedefine .*", "", s)
        s = re.sub(r"@[A-Z_]+@", "0", s)
        with open(os.path.join(shim, base), "w") as f:
            f.write(s)
    return ["-I" + tmp]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("nvshmem_include", help="NVSHMEM's include dir (has nvshmem.h, nvshmemx.h)")
    ap.add_argument("--list", action="store_true", help="every missing name, one per line")
    ap.add_argument("--cuda-include", default=None, help="CUDA include dir (default: nvcc's)")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    a = ap.parse_args()
    inc = os.path.abspath(a.nvshmem_include)
    if not os.path.exists(os.path.join(inc, "nvshmem.h")):
        sys.exit("nvshmem_coverage: %s has no nvshmem.h" % inc)
    nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc"
                                    if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
    if not nvcc:
        sys.exit("nvshmem_coverage: nvcc not found: NVIDIA's headers need the CUDA toolkit")
    both = "#include <nvshmem.h>\n#include <nvshmemx.h>\n"
    with tempfile.TemporaryDirectory() as tmp:
        extra = fill_templates(inc, tmp)
        if a.cuda_include:
            extra.append("-I" + a.cuda_include)
        nv_cmd = [nvcc, "-E", "-x", "cu", "-std=c++17"] + extra + ["-I" + inc]
        theirs = routine_names(preprocess(nv_cmd, both, ".cu"))
        for m in macro_names(nv_cmd, both, ".cu"):
            theirs.setdefault(m, True)
    ours_inc = ["-I" + OURS, "-I" + os.path.join(OURS, "symheap")]
    c_cmd = [a.cc, "-E", "-std=c11"] + ours_inc
    ours_c = set(routine_names(preprocess(c_cmd, both, ".c"))) | macro_names(c_cmd, both, ".c")
    cu_cmd = [nvcc, "-E", "-x", "cu", "-std=c++17"] + ours_inc
    ours_cu = set(routine_names(preprocess(cu_cmd, both, ".cu"))) | macro_names(cu_cmd, both, ".cu")

    # Thread-group forms (_warp, _block, _warpgroup) are device routines even where
    # NVSHMEM's header also declares them for the host pass.
    group = re.compile(r"_(warp|block|warpgroup)$")
    in_scope = {n: h and not group.search(n) for n, h in theirs.items() if not scope(n)}
    out = len(theirs) - len(in_scope)
    host = {n for n, h in in_scope.items() if h}
    allnames = set(in_scope)
    miss_host = sorted(host - ours_c)
    miss_all = sorted(allnames - (ours_c | ours_cu))
    # host routines that need a CUDA stream, module or launch: the GPU part
    gpu_host = re.compile(r"_on_stream$|collective_launch|cumodule|culibrary")
    cpu_host = {n for n in host if not gpu_host.search(n)}
    miss_cpu = sorted(cpu_host - ours_c)

    def pct(have, total):
        return 100.0 * have / total if total else 100.0

    if a.list:
        for n in miss_all:
            print("%s%s" % (n, "  (host)" if n in host else ""))
    else:
        fams = {}
        for n in miss_all:
            fams.setdefault(family(n), []).append(n)
        print("Missing, by family (TYPE: a type name, BITS: a size; --list for every name):")
        for f in sorted(fams, key=lambda f: (-len(fams[f]), f)):
            print("  %5d  %s%s" % (len(fams[f]), f,
                                   "  [host]" if any(n in host for n in fams[f]) else ""))
    print()
    print("NVSHMEM routine names: %d (%d host), %d out of scope:" % (len(theirs), len(host), out))
    for pat, why in OUT_OF_SCOPE:
        k = sum(1 for n in theirs if re.search(pat, n))
        print("  %-34s %4d  %s" % (pat, k, why))
    print("host, CPU (no stream/launch/module): %d of %d in our C header: %.1f %%"
          % (len(cpu_host) - len(miss_cpu), len(cpu_host), pct(len(cpu_host) - len(miss_cpu),
                                                                len(cpu_host))))
    print("host, all:                           %d of %d in our C header: %.1f %%"
          % (len(host) - len(miss_host), len(host), pct(len(host) - len(miss_host), len(host))))
    print("host and device:                     %d of %d in our C or CUDA header: %.1f %%"
          % (len(allnames) - len(miss_all), len(allnames),
             pct(len(allnames) - len(miss_all), len(allnames))))
    extra_ours = sorted((ours_c | ours_cu) - set(theirs))
    print("ours only (not in NVSHMEM): %d, e.g. %s" % (len(extra_ours), ", ".join(extra_ours if a.list else extra_ours[:6])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
