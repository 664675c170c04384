"""The brief's four initialization strategies (section 4.3) on symmetric arrays.

Run: symrun -n 4 python3 examples/python/init_strategies.py
Each strategy fills the same table, value(i) = i * i % 1000 for i in 0..N-1,
and every PE checks its copy; the program exits non-zero on a wrong value."""
import sys

import numpy as np

import symheap as shm

N = 1000
me, npes = shm.my_pe(), shm.n_pes()
want = np.arange(N, dtype=np.int64) ** 2 % 1000
ok = True


def check(name, table):
    global ok
    good = bool((table == want).all())
    ok &= good
    if me == 0:
        print(f"{name:12s} {'ok' if good else 'WRONG'}")


# 1. Local: every PE fills its own copy (no communication; the data is cheap to make).
t = shm.empty(N, np.int64)
t[:] = np.arange(N) ** 2 % 1000
check("local", t)
t.free()

# 2. Root + broadcast: PE 0 makes the data (read a file, ...), every PE receives it.
src = shm.empty(N, np.int64)
t = shm.empty(N, np.int64)
if me == 0:
    src[:] = want
shm.broadcast(t, src, 0)
check("root", t)
src.free()
t.free()

# 3. Distributed: each PE fills only the block it owns, then an all-gather.
q = -(-N // npes)                        # block size (the last block is padded)
mine = shm.zeros(q, np.int64)
lo, hi = me * q, min(N, (me + 1) * q)
mine[:max(0, hi - lo)] = np.arange(lo, max(lo, hi)) ** 2 % 1000
t = shm.zeros(q * npes, np.int64)
shm.fcollect(t, mine)
check("distributed", t[:N])
mine.free()
t.free()

# 4. Lazy: a block is filled by the first PE that touches it (a claim flag on the
# block's owner: 0 empty, 1 being filled, 2 ready); others wait for it.
B = 100                                  # cells per lazy block
nblocks = -(-N // B)
owner = [b % npes for b in range(nblocks)]
t = shm.zeros(N, np.int64)               # block b lives on PE owner[b]
flags = shm.zeros(nblocks, np.int64)
shm.barrier_all()
got = np.empty(N, np.int64)
for b in list(range(me, nblocks)) + list(range(me)):   # PEs start at different blocks
    o, s = owner[b], slice(b * B, min(N, (b + 1) * B))
    flag = flags[b:b + 1]
    if shm.atomic_compare_swap(flag, 0, 1, o) == 0:    # we fill it
        shm.put(t[s], np.arange(s.start, s.stop, dtype=np.int64) ** 2 % 1000, o)
        shm.quiet()
        shm.atomic_set(flag, 2, o)
    while shm.atomic_fetch(flag, o) != 2:
        pass
    shm.get(got[s], t[s], o)
check("lazy", got)
t.free()
flags.free()
sys.exit(0 if ok else 1)
