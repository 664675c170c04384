"""put/get (whole, slices, strided), p/g, atomics, waits, signals, fence/quiet."""
import numpy as np
import pytest

import symheap as shm

me, npes = shm.my_pe(), shm.n_pes()
right, left = (me + 1) % npes, (me - 1) % npes


@pytest.mark.parametrize("dtype", ["i1", "i2", "i4", "i8", "u4", "f4", "f8", "c8", "c16", "g"])
def test_put_get_ring(dtype):
    a = shm.zeros(8, dtype)
    shm.put(a, np.arange(8).astype(dtype) + me, right)
    shm.barrier_all()
    assert (a == np.arange(8).astype(dtype) + left).all()
    got = np.zeros(8, dtype)
    shm.get(got, a, right)
    assert (got == np.arange(8).astype(dtype) + me).all()
    shm.barrier_all()
    a.free()


def test_put_size_and_slices():
    a = shm.zeros(10, np.int64)
    shm.put(a[2:6], np.full(4, me + 1), right)        # a contiguous slice of the target
    shm.put(a, np.full(10, 9), right, size=2)          # the first two elements only
    shm.barrier_all()
    assert list(a) == [9, 9] + [left + 1] * 4 + [0] * 4
    shm.barrier_all()
    a.free()


def test_strided_slices():
    a = shm.zeros(12, np.int32)
    src = np.arange(100, 112, dtype=np.int32)
    shm.put(a[::3], src[::2][:4], right)               # 1-D strided on both sides
    shm.barrier_all()
    assert list(a[::3]) == [100, 102, 104, 106] and not a[1::3].any()
    out = np.zeros(4, np.int32)
    shm.get(out, a[::3], right)
    assert list(out) == [100, 102, 104, 106]
    shm.barrier_all()
    a.free()


def test_noncontiguous_local_2d():
    a = shm.zeros((3, 4), np.float64)
    local = np.arange(24.0).reshape(4, 6)[::1, ::2].T  # (3, 4), not contiguous
    shm.put(a, local, right)
    shm.barrier_all()
    assert (a == local).all()
    back = np.zeros((4, 3)).T
    shm.get(back, a, right)
    assert (back == local).all()
    shm.barrier_all()
    a.free()


def test_iput_iget():
    a = shm.zeros(10, np.int64)
    src = np.arange(5, dtype=np.int64) + 10 * me
    shm.iput(a, src, right, tst=2, sst=1)
    shm.barrier_all()
    assert list(a[::2]) == list(np.arange(5) + 10 * left) and not a[1::2].any()
    got = np.zeros(5, np.int64)
    shm.iget(got, a, right, tst=1, sst=2)
    assert list(got) == list(src)
    shm.barrier_all()
    a.free()


def test_nbi_and_quiet():
    a = shm.zeros(4, np.int64)
    shm.put_nbi(a, np.full(4, me), right)
    shm.quiet()
    shm.barrier_all()
    assert (a == left).all()
    got = np.zeros(4, np.int64)
    shm.get_nbi(got, a, right)
    shm.quiet()
    assert (got == me).all()
    shm.barrier_all()
    a.free()


def test_p_g():
    a = shm.zeros(3, np.float64)
    shm.p(a[1:], me + 0.5, right)
    shm.barrier_all()
    assert a[1] == left + 0.5
    assert shm.g(a[1:2], right) == me + 0.5
    shm.barrier_all()
    a.free()


@pytest.mark.parametrize("dtype", ["i4", "i8", "u4", "u8"])
def test_atomics_int(dtype):
    c = shm.zeros(1, dtype)
    shm.barrier_all()
    for pe in range(npes):
        shm.atomic_inc(c, pe)
        shm.atomic_add(c, 2, pe)
    shm.barrier_all()
    ok = c[0] == 3 * npes
    shm.barrier_all()                         # before anyone adds again
    assert ok
    old = shm.atomic_fetch_add(c, 1, 0)
    assert 3 * npes <= old < 4 * npes
    shm.barrier_all()
    assert shm.atomic_fetch(c, 0) == 4 * npes
    shm.barrier_all()
    if me == 0:
        assert shm.atomic_swap(c, 5, 0) == 4 * npes
        assert shm.atomic_compare_swap(c, 5, 6, 0) == 5
        assert shm.atomic_compare_swap(c, 5, 7, 0) == 6
        shm.atomic_set(c, 0b1100, 0)
        assert shm.atomic_fetch_and(c, 0b0110, 0) == 0b1100
        shm.atomic_or(c, 0b0001, 0)
        shm.atomic_xor(c, 0b0101, 0)
        assert shm.atomic_fetch_inc(c, 0) == 0b0000
        assert shm.atomic_fetch_op(c, 3, "add", 0) == 1
        shm.atomic_op(c, 0, "set", 0)
        assert shm.atomic_fetch_or(c, 2, 0) == 0 and shm.atomic_fetch_xor(c, 2, 0) == 2
    shm.barrier_all()
    assert shm.atomic_fetch(c, 0) == 0
    shm.barrier_all()
    c.free()


def test_atomics_float():
    c = shm.zeros(1, np.float64)
    if me == 0:
        shm.atomic_set(c, 1.5, right)
    shm.barrier_all()
    assert shm.atomic_fetch(c, 1 % npes) == 1.5
    shm.barrier_all()
    c.free()


def test_wait_until_and_test():
    flag = shm.zeros(1, np.int64)
    ok = not shm.test(flag, shm.CMP_EQ, 1)  # before the barrier: nobody has set it
    shm.barrier_all()
    assert ok
    shm.atomic_set(flag, 1, right)
    shm.wait_until(flag, shm.CMP_EQ, 1)
    assert shm.test(flag, "ge", 1)
    shm.barrier_all()
    flag.free()


def test_signals():
    sig = shm.new_signal()
    data = shm.zeros(4, np.int32)
    shm.put_signal(data, np.full(4, me, np.int32), right, sig, 1, shm.SIGNAL_SET)
    assert shm.signal_wait_until(sig, shm.CMP_EQ, 1) == 1
    assert (data == left).all()
    shm.barrier_all()
    shm.signal_add(sig, 2, right)
    shm.wait_until(sig, "eq", 3)
    assert shm.signal_fetch(sig) == 3
    shm.barrier_all()
    shm.signal_set(sig, 0, right)
    shm.fence()
    shm.barrier_all()
    assert shm.signal_fetch(sig) == 0
    data.free()
    shm.del_signal(sig)


def test_locks_and_shmem4py_names():
    assert shm.pe_accessible(right) and shm.addr_accessible(shm.zeros(1), right) is True
    count = shm.zeros(1, np.int64)
    lock = shm.Lock()
    for _ in range(5):
        with lock:
            v = shm.g(count, 0)
            shm.p(count, v + 1, 0)
    lk = shm.new_lock()
    while shm.test_lock(lk):               # True: someone else holds it
        pass
    shm.atomic_add(count, 10, 0)
    shm.clear_lock(lk)
    shm.barrier_all()
    assert shm.atomic_fetch(count, 0) == 15 * npes
    assert lock.acquire(blocking=True) is True
    lock.release()
    shm.barrier_all()
    lock.destroy()
    shm.del_lock(lk)
    assert shm.CMP.NE == shm.CMP_NE and shm.SIGNAL.ADD == shm.SIGNAL_ADD
    assert shm.OP.SUM == "sum" and shm.AMO.ADD == "add" and shm.MALLOC.SIGNAL_REMOTE >= 0
    count.free()
