"""Misuse raises a Python exception with one line naming the PE, the call, the
values and the fix, instead of stopping the PE."""
import numpy as np
import pytest

import symheap as shm

me, npes = shm.my_pe(), shm.n_pes()
PE = rf"^\[pe {me}\] symheap\."


def test_not_symmetric():
    local = np.zeros(4)
    with pytest.raises(ValueError, match=PE + r"put: target at 0x[0-9a-f]+ is not symmetric.*symheap.zeros"):
        shm.put(local, np.ones(4), 0)
    with pytest.raises(ValueError, match="source at .* is not symmetric"):
        shm.get(np.zeros(4), local, 0)
    a = shm.zeros(4)
    with pytest.raises(ValueError, match="is not symmetric.*a \\+ 1"):
        shm.put(a + 1, np.ones(4), 0)
    a.free()


def test_freed_array():
    a = shm.zeros(4)
    v = a[:]
    a.free()
    with pytest.raises(ValueError, match="in no live symmetric array"):
        shm.put(v, np.ones(4), 0)
    with pytest.raises(shm.Error, match="already freed"):
        v.free()


def test_pe_out_of_range():
    a = shm.zeros(4)
    with pytest.raises(ValueError, match=PE + rf"put: pe={npes} is out of range: this job has {npes} PEs \(use 0..{npes - 1}\)"):
        shm.put(a, np.ones(4), npes)
    with pytest.raises(ValueError, match="pe=-1 is out of range"):
        shm.atomic_inc(a[:1].view(np.int64), -1)
    with pytest.raises(ValueError, match="root=.* is out of range"):
        shm.broadcast(a, a, npes + 3)
    with pytest.raises(ValueError, match=f"peer: pe={npes + 5} is out of range"):
        shm.peer(a, npes + 5)
    a.free()


def test_dtype_and_size():
    a = shm.zeros(4, np.int64)
    with pytest.raises(TypeError, match="target dtype int64 and source dtype float64 differ"):
        shm.put(a, np.ones(4), 0)
    with pytest.raises(ValueError, match="size=9 is out of range: the arrays hold 4 elements"):
        shm.put(a, np.ones(4, np.int64), 0, size=9)
    with pytest.raises(TypeError, match="not a NumPy array"):
        shm.put([1, 2], np.ones(2), 0)
    f = shm.zeros(1, np.float32)
    with pytest.raises(TypeError, match="dtype float32 has no atomic fetch_add"):
        shm.atomic_fetch_add(f, 1, 0)
    with pytest.raises(ValueError, match="target has 4 elements; this call works on one"):
        shm.atomic_add(a, 1, 0)
    with pytest.raises(TypeError, match="dtype float64 has no 'xor' reduction"):
        shm.reduce(shm.zeros(2), shm.zeros(2), "xor")
    with pytest.raises(ValueError, match="op='mean' is not a reduction"):
        shm.reduce(a, a, "mean")
    small = shm.zeros(npes * 2 - 1, np.int64)
    with pytest.raises(ValueError, match=rf"target holds {npes * 2 - 1} elements but {npes} PEs x size=2"):
        shm.fcollect(small, shm.zeros(2, np.int64))
    with pytest.raises(ValueError, match="runs 8 bytes past the end of its symmetric block"):
        over = np.lib.stride_tricks.as_strided(a, shape=(5,), strides=(8,))  # past the end
        shm.put(over, np.ones(5, np.int64), 0)
    with pytest.raises(TypeError, match="cannot be waited on"):
        shm.wait_until(shm.zeros(1, np.float64), "eq", 1)
    with pytest.raises(ValueError, match="cmp is not a comparison"):
        shm.test(shm.zeros(1, np.int64), "approx", 1)
    with pytest.raises(ValueError, match="align=3 is not a power of two"):
        shm.zeros(4, align=3)
    with pytest.raises(ValueError, match="start=0, stride=1, size=.* does not fit"):
        shm.TEAM_WORLD.split_strided(0, 1, npes + 1)
    with pytest.raises(ValueError, match="not a symmetric array"):
        shm.free(np.zeros(3))
    shm.barrier_all()
    for x in (a, f, small):
        x.free()


def test_gpu_kind_without_gpu():
    """Without a GPU on every PE, kind='gpu' raises (collectively, on every PE
    alike) instead of giving host memory."""
    try:
        g = shm.zeros(4, kind="gpu")
    except shm.Error as e:
        assert str(e).startswith(f"[pe {me}] symheap.zeros: kind='gpu': there is no GPU symmetric heap"), e
        assert "use kind='host'" in str(e)
        with pytest.raises(shm.Error, match=PE + r"full: kind='gpu': there is no GPU"):
            shm.full(3, 1.5, kind="gpu")
        return
    g.free()  # a GPU machine: test_gpu.py tests this kind
    pytest.skip("every PE has a GPU here")


def test_init_uid_when_started():
    """Under symrun the module is started already: init(uid=...) with this PE's
    rank is nothing to do, another rank or size raises."""
    uid = b"symheap-uid1 127.0.0.1 9 " + b"0" * 32
    shm.init(uid=uid, rank=me, nranks=npes)
    with pytest.raises(shm.Error, match=PE + rf"init: already started as PE {me} of {npes}, not rank {me} of {npes + 1}"):
        shm.init(uid=uid, rank=me, nranks=npes + 1)
    with pytest.raises(ValueError, match=r"rank=5, nranks=2: need 0 <= rank < nranks"):
        shm.init(uid=uid, rank=5, nranks=2)
