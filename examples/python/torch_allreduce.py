"""One-shot all-reduce of PyTorch GPU tensors through symheap's peer views
(the peer-pointer model of PyTorch's SymmetricMemory), checked and timed.

Each PE's input is a tensor on symmetric GPU memory (symheap.empty(...,
kind='gpu') seen through torch.from_dlpack, no copy).  The all-reduce: every
PE reads every peer's tensor directly through symheap.peer(buf, pe) (the peer's
copy mapped into this PE's GPU address space) and sums them in one pass, PE
order 0, 1, ...  The result is checked on every PE against a reference that PE
0 computes from every PE's input (gathered to the host with symheap.fcollect)
and broadcasts; then the same all-reduce is done with symheap's C collective
(symheap.reduce, op='sum') on the same tensors, checked too, and both are
timed (median of ITERS runs, each between two barriers, as seen by PE 0).

    symrun -n 2 python3 examples/python/torch_allreduce.py [elements]
"""
import sys
import time

import numpy as np

import symheap as shm

N = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 20
ITERS = 20
me, npes = shm.my_pe(), shm.n_pes()

try:
    import torch
    buf = shm.empty(N, np.float32, kind="gpu")  # symmetric: same address on every PE
except (ImportError, shm.Error) as e:           # the same on every PE
    print(f"[pe {me}] SKIP: no GPU or no PyTorch here ({e})")
    sys.exit(0)
torch.cuda.set_device(buf.device)
x = torch.from_dlpack(buf)                      # the same memory, as a torch tensor
gen = torch.Generator(device="cuda").manual_seed(1234 + me)
x.copy_(torch.randn(N, device="cuda", generator=gen))
torch.cuda.synchronize()
shm.barrier_all()

peers = [shm.peer(buf, pe) for pe in range(npes)]
if any(v is None for v in peers):
    sys.exit(f"[pe {me}] torch_allreduce: some PE's copy is not mapped here (another node); "
             "the one-shot all-reduce through peer views needs every PE on this node")
peer_tensors = [torch.from_dlpack(v) for v in peers]


def one_shot(out):
    """out = sum over PEs of their x, reading each peer's copy directly."""
    shm.barrier_all()                      # every input is ready
    out.copy_(peer_tensors[0])
    for t in peer_tensors[1:]:
        out.add_(t)
    torch.cuda.synchronize()
    shm.barrier_all()                      # nobody changes its input while others read it


# The reference: every PE's input on the host of PE 0, summed there in PE
# order (float32, so the same additions as above, bit for bit).
everything = shm.zeros(N * npes, np.float32)
shm.fcollect(everything, buf)             # GPU source, host target
ref = shm.zeros(N, np.float32)
if me == 0:
    rows = everything.reshape(npes, N)
    acc = rows[0].copy()
    for r in rows[1:]:
        acc += r
    ref[:] = acc
shm.broadcast(ref, ref, 0)

out = torch.empty(N, device="cuda", dtype=torch.float32)
one_shot(out)
got = out.cpu().numpy()
if not np.array_equal(got, ref):
    bad = int(np.flatnonzero(got != ref)[0])
    sys.exit(f"[pe {me}] torch_allreduce: one-shot result differs from PE 0's reference at "
             f"element {bad}: {got[bad]} != {ref[bad]}")

res = shm.empty(N, np.float32, kind="gpu")
shm.reduce(res, buf, op="sum")
res_t = torch.from_dlpack(res)
if not torch.allclose(res_t, torch.from_numpy(np.asarray(ref)).cuda(), rtol=1e-5, atol=1e-5):
    sys.exit(f"[pe {me}] torch_allreduce: symheap.reduce's result differs from the reference")


def timed(fn):
    ts = []
    for i in range(ITERS + 3):
        shm.barrier_all()
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        shm.barrier_all()
        if i >= 3:
            ts.append(time.perf_counter() - t0)
    return sorted(ts)[len(ts) // 2] * 1e3


t_peer = timed(lambda: one_shot(out))
t_c = timed(lambda: shm.reduce(res, buf, op="sum"))
if me == 0:
    mb = N * 4 / 1e6
    print(f"torch_allreduce: {npes} PEs, {N} float32 ({mb:.1f} MB) per PE, GPU {buf.device} "
          f"({torch.cuda.get_device_name(buf.device)}): results equal PE 0's reference")
    print(f"  one-shot through peer views (torch): {t_peer:8.3f} ms (median of {ITERS})")
    print(f"  symheap.reduce (C collective):       {t_c:8.3f} ms (median of {ITERS})")
del peer_tensors, x, res_t
for a in (res, buf, everything, ref):
    a.free()
print(f"[pe {me}] torch_allreduce: ok")
