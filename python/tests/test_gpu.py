"""GPU arrays (kind='gpu') with 1, 2 and 4 PEs on one GPU or several: the
exports (DLPack, __cuda_array_interface__) share the memory, the operations
take GPU arrays, peer views show the other PEs' copies.  Skipped where there is
no GPU heap (test_misuse.py checks the error there)."""
import gc

import numpy as np
import pytest

import symheap as shm

me, npes = shm.my_pe(), shm.n_pes()
try:
    shm.zeros(1, kind="gpu").free()
except shm.Error:
    pytest.skip("no GPU symmetric heap here", allow_module_level=True)


def sync_gpu():
    try:
        import torch
        torch.cuda.synchronize()
    except ImportError:
        pass


def test_constructors_and_attributes():
    z = shm.zeros((3, 4), np.float32, kind="gpu")
    assert isinstance(z, shm.GpuArray) and z.shape == (3, 4) and z.dtype == np.float32
    assert z.size == 12 and z.nbytes == 48 and z.ndim == 2 and len(z) == 3 and z.pe is None
    assert (z.to_numpy() == 0).all()
    f = shm.full(5, me + 0.5, np.float64, kind="gpu")
    assert (f.to_numpy() == me + 0.5).all()
    o = shm.ones(2, np.int32, kind="gpu")
    assert list(o.to_numpy()) == [1, 1]
    a = shm.array(np.arange(6, dtype=np.int64).reshape(2, 3) * (me + 1), kind="gpu")
    assert (a.to_numpy() == np.arange(6).reshape(2, 3) * (me + 1)).all()
    like = shm.like(a)  # a GPU array's like is a GPU array
    assert isinstance(like, shm.GpuArray) and like.shape == (2, 3) and (like.to_numpy() == 0).all()
    host = shm.array(a, kind="host")
    assert (host == a.to_numpy()).all()
    # the same address on every PE
    ptrs = shm.zeros(npes, np.uint64)
    shm.fcollect(ptrs, shm.full(1, z.ptr, np.uint64))
    assert (ptrs == z.ptr).all()
    cai = z.__cuda_array_interface__
    assert cai["version"] == 3 and cai["shape"] == (3, 4) and cai["typestr"] == "<f4"
    assert cai["data"] == (z.ptr, False) and cai["strides"] is None
    assert z.__dlpack_device__() == (2, z.device)
    with pytest.raises(TypeError):
        memoryview(z)  # the CPU cannot read it
    for x in (z, f, o, a, like, host, ptrs):
        x.free()


def test_torch_from_dlpack_shares_memory():
    torch = pytest.importorskip("torch")
    a = shm.zeros(1000, np.float32, kind="gpu")
    t = torch.from_dlpack(a)
    assert t.is_cuda and t.data_ptr() == a.ptr and t.device.index == a.device
    assert t.shape == (1000,) and t.dtype == torch.float32
    t.fill_(me + 1)
    torch.cuda.synchronize()
    assert (a.to_numpy() == me + 1).all()  # written by torch, read by symheap
    shm.put(a, np.full(1000, 7, np.float32), me)
    assert bool((t == 7).all())  # written by symheap, read by torch
    # the tensor keeps the block alive after the array is dropped
    ptr = a.ptr
    del a
    gc.collect()
    assert ptr not in shm.pending_frees()
    del t
    gc.collect()
    assert ptr in shm.pending_frees()
    shm.collect_garbage()
    assert ptr not in shm.pending_frees()


def test_cupy_asarray_zero_copy():
    cp = pytest.importorskip("cupy")
    a = shm.full(64, me, np.int32, kind="gpu")
    c = cp.asarray(a)
    assert c.data.ptr == a.ptr and c.shape == (64,) and c.dtype == np.int32
    c += 10
    cp.cuda.runtime.deviceSynchronize()
    assert (a.to_numpy() == me + 10).all()
    c2 = cp.from_dlpack(a)
    assert c2.data.ptr == a.ptr
    del c, c2
    a.free()


def test_put_get_on_gpu_arrays():
    n = 257
    a = shm.zeros(n, np.float64, kind="gpu")
    b = shm.full(n, me * 2.0, np.float64, kind="gpu")
    right, left = (me + 1) % npes, (me - 1) % npes
    shm.put(a, np.full(n, float(me)), right)           # host -> remote GPU
    shm.barrier_all()
    assert (a.to_numpy() == left).all()
    got = np.zeros(n)
    shm.get(got, b, right)                              # remote GPU -> host
    assert (got == right * 2.0).all()
    shm.barrier_all()
    shm.put(a, b, right)                                # GPU -> remote GPU
    shm.barrier_all()
    assert (a.to_numpy() == left * 2.0).all()
    h = shm.zeros(n, np.float64)
    shm.get(h, a, left)                                 # into a host symmetric array
    shm.barrier_all()
    assert (h == ((left - 1) % npes) * 2.0).all()
    shm.p(a, me + 0.25, right)                          # element 0 of the GPU array
    shm.barrier_all()
    assert shm.g(a, me) == left + 0.25
    for x in (a, b, h):
        x.free()


def test_put_get_on_stream():
    torch = pytest.importorskip("torch")
    a = shm.zeros(1024, np.int64, kind="gpu")
    src = shm.full(1024, me, np.int64, kind="gpu")
    s = torch.cuda.Stream(device=a.device)
    right = (me + 1) % npes
    shm.put(a, src, right, stream=s)         # torch.cuda.Stream
    shm.barrier_all(stream=s.cuda_stream)    # an int handle: waits for the stream first
    assert (a.to_numpy() == (me - 1) % npes).all()
    got = shm.zeros(1024, np.int64, kind="gpu")
    shm.get(got, a, right, stream=s.cuda_stream)
    s.synchronize()
    assert (got.to_numpy() == me).all()
    with pytest.raises(TypeError, match="stream is a str"):
        shm.put(a, src, right, stream="default")
    shm.barrier_all()
    for x in (a, src, got):
        x.free()


def test_collectives_on_gpu_arrays():
    n = 33
    src = shm.array(np.arange(n, dtype=np.int64) + me, kind="gpu")
    dst = shm.zeros(n, np.int64, kind="gpu")
    shm.reduce(dst, src, op="sum")
    expect = npes * np.arange(n) + npes * (npes - 1) // 2
    assert (dst.to_numpy() == expect).all()
    shm.max_reduce(dst, src)
    assert (dst.to_numpy() == np.arange(n) + npes - 1).all()
    hdst = shm.zeros(n, np.int64)
    shm.reduce(hdst, src)                         # GPU source, host target
    assert (hdst == expect).all()
    shm.reduce(src, src)                          # in place
    assert (src.to_numpy() == expect).all()
    for root in range(npes):
        b = shm.full(n, me * 10, np.int64, kind="gpu")
        shm.broadcast(dst, b, root)               # GPU to GPU: the copy engines
        assert (dst.to_numpy() == root * 10).all()
        b.free()
    g = shm.zeros(3 * npes, np.float32, kind="gpu")
    shm.fcollect(g, shm.full(3, me, np.float32, kind="gpu"))
    assert list(g.to_numpy()) == [pe for pe in range(npes) for _ in range(3)]
    t = shm.zeros(2 * npes, np.int32, kind="gpu")
    shm.alltoall(t, shm.array(np.arange(2 * npes, dtype=np.int32) + 100 * me, kind="gpu"))
    assert list(t.to_numpy()) == [100 * pe + 2 * me + k for pe in range(npes) for k in range(2)]
    for x in (src, dst, hdst, g, t):
        x.free()
    shm.collect_garbage()


def test_peer_views():
    a = shm.full(16, me * 3, np.int32, kind="gpu")
    for pe in range(npes):
        v = shm.peer(a, pe)
        if v is None:  # not mapped here (another node)
            continue
        assert isinstance(v, shm.GpuArray) and v.pe == pe and v.shape == (16,)
        assert (pe == me) == (v.ptr == a.ptr)
        assert (v.to_numpy() == pe * 3).all()
        try:
            import torch
            t = torch.from_dlpack(v)
            assert t.data_ptr() == v.ptr and int(t.sum()) == 16 * pe * 3
        except ImportError:
            pass
        with pytest.raises(ValueError, match=f"this is a view of PE {pe}'s copy"):
            v.free()
        with pytest.raises(ValueError, match="already a view"):
            shm.peer(v, 0)
    shm.barrier_all()
    a.free()


def test_misuse_on_gpu_arrays():
    a = shm.zeros(1, np.int64, kind="gpu")
    with pytest.raises(TypeError, match=rf"^\[pe {me}\] symheap.atomic_add: target is a GPU array: host atomics"):
        shm.atomic_add(a, 1, 0)
    with pytest.raises(TypeError, match="ivar is a GPU array"):
        shm.wait_until(a, "eq", 0)
    with pytest.raises(BufferError, match="copy=True"):
        a.__dlpack__(copy=True)
    a.free()
    with pytest.raises(shm.Error, match="the GPU array at 0x[0-9a-f]+ was freed"):
        a.to_numpy()
    with pytest.raises(shm.Error, match="was freed"):
        a.__dlpack__()
