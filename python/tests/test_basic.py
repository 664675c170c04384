"""Start-up, symmetric arrays and their constructors, peer views, teams.
Run on every PE by symrun (python/CMakeLists.txt): each test makes the same
collective calls on every PE."""
import numpy as np
import pytest

import symheap as shm

me, npes = shm.my_pe(), shm.n_pes()


def test_query():
    assert shm.initialized()
    assert 0 <= me < npes
    assert shm.info_get_version() == (1, 6)
    assert isinstance(shm.info_get_name(), str)


@pytest.mark.parametrize("ctor", ["empty", "zeros", "ones"])
@pytest.mark.parametrize("dtype", ["i1", "i4", "u8", "f4", "f8", "c16", "?"])
def test_constructors(ctor, dtype):
    a = getattr(shm, ctor)((3, 4), dtype)
    assert isinstance(a, shm.SymmetricArray) and isinstance(a, np.ndarray)
    assert a.shape == (3, 4) and a.dtype == np.dtype(dtype)
    assert a.flags.c_contiguous and a.flags.writeable
    if ctor == "zeros":
        assert not a.any()
    if ctor == "ones":
        assert (a == 1).all()
    a.free()


def test_same_address_on_every_pe():
    a = shm.zeros(5, np.int64)
    addrs = shm.zeros(npes, np.uint64)
    mine = shm.array([a.ctypes.data], np.uint64)
    shm.fcollect(addrs, mine)
    assert (addrs == a.ctypes.data).all()
    for x in (a, addrs, mine):
        x.free()


def test_full_array_like():
    f = shm.full((2, 2), 7, np.int32)
    assert f.dtype == np.int32 and (f == 7).all()
    g = shm.full(3, 2.5)
    assert g.dtype == np.float64 and (g == 2.5).all()
    src = np.arange(6.0).reshape(2, 3)
    a = shm.array(src)
    assert (a == src).all() and a.dtype == src.dtype
    lk = shm.like(src)
    assert lk.shape == src.shape and lk.dtype == src.dtype and not lk.any()
    fo = shm.zeros((2, 3), order="F")
    assert fo.flags.f_contiguous
    for x in (f, g, a, lk, fo):
        x.free()


def test_alloc_memoryview():
    m = shm.alloc(16, 4)
    assert isinstance(m, memoryview) and m.nbytes == 64
    arr = np.frombuffer(m, np.int32)
    arr[:] = me
    shm.free(m)


def test_views_keep_block_and_results_are_plain():
    a = shm.zeros(10)
    v = a[2:5]
    assert isinstance(v, shm.SymmetricArray)
    b = a + 1
    assert type(b) is np.ndarray
    del v, b
    a.free()


def test_with_frees_at_once():
    before = shm.heap_info()["live_blocks"]
    with shm.zeros(100) as a:
        a[:] = 1
        assert shm.heap_info()["live_blocks"] == before + 1
    assert shm.heap_info()["live_blocks"] == before


def test_peer_views():
    a = shm.zeros(4, np.int64)
    a[:] = me
    shm.barrier_all()
    for pe in range(npes):
        v = shm.peer(a, pe)
        assert v is not None  # one node: every PE is mapped
        assert (v == pe).all() and type(v) is np.ndarray
        assert shm.ptr(a, pe) is not None
    shm.barrier_all()
    right = shm.peer(a, (me + 1) % npes)
    right[0] = 100 + me
    del right
    shm.barrier_all()
    assert a[0] == 100 + (me - 1) % npes
    a.free()


def test_kind():
    # kind='gpu': test_gpu.py, and test_misuse.py without a GPU
    with pytest.raises(ValueError, match="kind='tpu'"):
        shm.zeros(4, kind="tpu")
    a = shm.zeros(4, kind="host")
    a.free()


def test_teams():
    w = shm.TEAM_WORLD
    assert w.my_pe() == me and w.n_pes() == npes
    assert bool(w) and not bool(shm.TEAM_INVALID)
    even = w.split_strided(0, 2)
    if me % 2 == 0:
        assert even.n_pes() == (npes + 1) // 2 and even.my_pe() == me // 2
        assert even.translate_pe(even.my_pe()) == me
        assert even.translate_pe(0, shm.TEAM_WORLD) == 0
        assert even.get_config()["num_contexts"] >= 0
        x = shm.zeros(1, np.int64)
        src = shm.full(1, me, np.int64)
    else:
        assert not even and even.my_pe() == -1
        x = shm.zeros(1, np.int64)
        src = shm.full(1, me, np.int64)
    if even:
        shm.sum_reduce(x, src, team=even)
        assert x[0] == sum(range(0, npes, 2))
        even.sync()
    even.destroy()
    xr = 2 if npes >= 2 else 1
    xt, yt = w.split_2d(xr)
    assert xt.n_pes() == min(xr, npes - (me // xr) * xr)
    assert xt.my_pe() == me % xr and yt.my_pe() == me // xr
    xt.destroy()
    yt.destroy()
    with w.split_strided(0, 1, npes) as t:
        assert t.n_pes() == npes
    x.free()
    src.free()
