"""Freeing that survives the garbage collector: PEs drop arrays in different
orders and at different times (plain references, reference cycles collected by
gc.collect() on some PEs only); every block ends freed and nothing hangs.  The
last test finalizes."""
import gc
import random

import numpy as np

import symheap as shm

me, npes = shm.my_pe(), shm.n_pes()


def live():
    return shm.heap_info()["live_blocks"]


def settle():
    # Every PE has dropped everything: one round frees what all have pending.
    gc.collect()
    shm.collect_garbage()
    assert shm.pending_frees() == []


def test_drop_in_different_orders():
    settle()
    base = live()
    arrs = [shm.zeros(16 * (i + 1), np.int64) for i in range(12)]
    assert live() == base + 12
    order = list(range(12))
    random.Random(1000 + me).shuffle(order)    # another order on every PE
    for k, i in enumerate(order):
        arrs[i] = None                         # dropped here, freed later
        if k % 3 == 2:
            shm.barrier_all()                  # a collective: frees what all dropped
    shm.collect_garbage()
    assert shm.pending_frees() == []
    assert live() == base


def test_drop_at_different_times():
    settle()
    base = live()
    a = shm.zeros(100, np.int32)
    b = shm.zeros(100, np.int32)
    if me == 0:
        del a                                  # PE 0 drops early
    shm.barrier_all()
    if me != 0:
        # a is still alive here: PE 0's copy was not freed under us.
        shm.put(a, np.full(100, me, np.int32), 0)
        a[:] = 7
        del a
    shm.barrier_all()                          # now every PE dropped a
    assert shm.pending_frees() == []
    assert live() == base + 1
    del b
    n = shm.collect_garbage()
    assert n == 1 and live() == base


class Node:
    pass


def test_cycles_collected_at_different_times():
    settle()
    base = live()
    for i in range(6):
        n = Node()
        n.self = n                             # a cycle: only gc.collect() drops it
        n.arr = shm.zeros(8 * (i + 1))
        del n
        if (i + me) % 2 == 0:
            gc.collect()                       # on half of the PEs at each step
        shm.sync_all()
    gc.collect()
    shm.collect_garbage()
    assert live() == base and shm.pending_frees() == []


def test_explicit_free_mixed_with_garbage():
    settle()
    base = live()
    keep = [shm.zeros(10) for _ in range(4)]
    drop = [shm.zeros(10) for _ in range(4)]
    random.Random(me).shuffle(drop)
    drop.pop()                                 # a different one on each PE
    keep[1].free()                             # collective, at once
    with shm.ones(3) as tmp:
        assert tmp.sum() == 3
    drop.clear()
    shm.barrier_all()
    keep.clear()
    shm.collect_garbage()
    assert live() == base


def test_signals_and_views_keep_blocks_alive():
    settle()
    base = live()
    a = shm.zeros(10)
    v = a[3:7]
    del a
    shm.collect_garbage()
    assert live() == base + 1                  # the view holds the block
    v[:] = 1
    del v
    shm.collect_garbage()
    assert live() == base


def test_random_drops_keep_live_arrays_intact():
    """Many rounds: all PEs allocate, each drops its own random choice; an array
    still held anywhere keeps its memory (a wrong free would let a new array
    reuse it and overwrite the pattern)."""
    settle()
    base = live()
    rng = random.Random(7 + 31 * me)
    held = {}
    for step in range(40):
        a = shm.empty(1 + step % 7 * 9, np.int64)   # the same size on every PE
        a[:] = step * 1000 + me
        held[step] = a
        for k in [k for k in held if rng.random() < 0.3]:
            del held[k]
        if step % 5 == 0:
            gc.collect()
        shm.barrier_all()
        arr = None
        for k, arr in held.items():
            assert (arr == k * 1000 + me).all(), (step, k)
    held.clear()
    del a, arr                                 # the loop's names hold arrays too
    shm.collect_garbage()
    assert live() == base and shm.pending_frees() == []


def test_finalize_frees_everything_last():
    """Last test: arrays left alive are freed by finalize; one dropped on some PEs
    only is named in the error those PEs raise."""
    held = shm.zeros(32)                       # alive everywhere: freed silently
    odd = shm.zeros(64)
    if npes > 1 and me != 0:
        del odd                                # dropped here, still held on PE 0
    gc.collect()
    shm.barrier_all()
    try:
        shm.finalize()
        err = None
    except shm.Error as e:
        err = str(e)
    if npes > 1 and me != 0:
        assert err is not None and "still referenced on another PE" in err, err
        assert "(512 bytes)" in err
    else:
        assert err is None
    assert not shm.initialized()
    try:
        shm.zeros(3)
        raise AssertionError("no error after finalize")
    except shm.Error as e:
        assert "called after symheap.finalize()" in str(e)
    del held
