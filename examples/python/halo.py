"""1-D heat diffusion with halo exchange on symmetric NumPy arrays.

Run: symrun -n 4 python3 examples/python/halo.py
Each PE owns a block of N cells (any N, any PE count: the first N % npes PEs
own one cell more) plus one ghost cell on each side, in one symmetric array of
the same size everywhere.  Each step puts its edge cells into its neighbours'
ghost cells (periodic), then updates its cells.  The result is checked against
the same computation on the whole array, and the program exits non-zero if
they differ."""
import sys

import numpy as np

import symheap as shm

N, STEPS, ALPHA = 1000, 200, 0.25
me, npes = shm.my_pe(), shm.n_pes()


def block(pe):
    """First cell and count of PE pe's block."""
    q, r = divmod(N, npes)
    return pe * q + min(pe, r), q + (pe < r)


start, n = block(me)
nmax = block(0)[1]
left, right = (me - 1) % npes, (me + 1) % npes
n_left = block(left)[1]

x = np.linspace(0.0, 1.0, N, endpoint=False)
initial = np.sin(2 * np.pi * x) + (x > 0.5)

u = shm.zeros(nmax + 2)          # [ghost | my n cells | ghost | unused]
u[1:n + 1] = initial[start:start + n]
new = np.empty(n)

for _ in range(STEPS):
    shm.barrier_all()                                   # neighbours are done reading
    shm.put(u[n_left + 1:n_left + 2], u[1:2], left)     # my first cell: left's right ghost
    shm.put(u[0:1], u[n:n + 1], right)                  # my last cell: right's left ghost
    shm.barrier_all()                                   # my ghosts have arrived
    new[:] = u[1:n + 1] + ALPHA * (u[0:n] - 2 * u[1:n + 1] + u[2:n + 2])
    u[1:n + 1] = new

# Every block to every PE (collect: blocks of different sizes), then check.
mine = shm.zeros(nmax)
mine[:n] = u[1:n + 1]
whole = shm.zeros(N)
shm.collect(whole, mine, size=n)

ref = initial.copy()
for _ in range(STEPS):
    ref = ref + ALPHA * (np.roll(ref, 1) - 2 * ref + np.roll(ref, -1))
err = np.abs(whole - ref).max()
if me == 0:
    print(f"halo: {N} cells on {npes} PEs, {STEPS} steps, max difference from one array {err:.2e}")
with u, mine, whole:
    pass                                                # freed now, collectively
sys.exit(0 if err < 1e-12 else 1)
