"""GPU arrays (kind='gpu') with 1, 2 and 4 PEs on one GPU or several: the
exports (DLPack, __cuda_array_interface__) share the memory, the operations
take GPU arrays, peer views show the other PEs' copies.  Skipped where there is
no GPU heap (test_misuse.py checks the error there).

With SYMHEAP_PY_TEST_FAKE_GPU=1 (ctest python_test_gpu_fake_*) the "GPU"
arrays are host memory: everything but the device runs on CPU machines too
(exports, capsule lifetimes, peer views, the staged collectives); the tests
that hand the memory to PyTorch or CuPy are skipped then."""
import ctypes
import gc
import os

import numpy as np
import pytest

import symheap as shm

me, npes = shm.my_pe(), shm.n_pes()
FAKE = bool(os.environ.get("SYMHEAP_PY_TEST_FAKE_GPU"))
try:
    shm.zeros(1, kind="gpu").free()
except shm.Error:
    pytest.skip("no GPU symmetric heap here", allow_module_level=True)


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


def real_gpu_module(name):
    if FAKE:
        pytest.skip("host stand-in for GPU memory: not for " + name)
    return pytest.importorskip(name)


# DLPack's ABI, as a consumer sees it (github:dmlc/dlpack, dlpack.h).
class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                            ("deleter", ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor)))]
_get = ctypes.pythonapi.PyCapsule_GetPointer
_get.restype, _get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
_rename = ctypes.pythonapi.PyCapsule_SetName
_rename.restype, _rename.argtypes = ctypes.c_int, [ctypes.py_object, ctypes.c_char_p]


def test_dlpack_capsule():
    a = shm.zeros((3, 5), np.int16, kind="gpu")
    cap = a.__dlpack__(stream=None, max_version=(1, 0))
    m = DLManagedTensor.from_address(_get(cap, b"dltensor"))
    t = m.dl_tensor
    assert t.data == a.ptr and (t.device.device_type, t.device.device_id) == (2, a.device)
    assert t.ndim == 2 and (t.dtype.code, t.dtype.bits, t.dtype.lanes) == (0, 16, 1)
    assert [t.shape[0], t.shape[1]] == [3, 5] and [t.strides[0], t.strides[1]] == [5, 1]
    assert t.byte_offset == 0
    f = shm.zeros(2, np.complex64, kind="gpu")
    fcap = f.__dlpack__(None)  # held: dropping it frees the tensor ft points into
    ft = DLManagedTensor.from_address(_get(fcap, b"dltensor")).dl_tensor
    assert (ft.dtype.code, ft.dtype.bits) == (5, 64)
    del ft, fcap
    with pytest.raises(BufferError, match=r"dl_device=\(1, 0\)"):
        a.__dlpack__(dl_device=(1, 0))
    # an unconsumed capsule holds the block until it goes
    ptr = a.ptr
    del a, t, m
    gc.collect()
    assert ptr not in shm.pending_frees()
    del cap
    assert ptr in shm.pending_frees()
    # a consumed one ("used_dltensor") until the consumer calls the deleter
    b = shm.zeros(4, np.float32, kind="gpu")
    cap = b.__dlpack__()
    m = DLManagedTensor.from_address(_get(cap, b"dltensor"))
    assert _rename(cap, b"used_dltensor") == 0
    ptr = b.ptr
    del b, cap
    gc.collect()
    assert ptr not in shm.pending_frees()
    m.deleter(ctypes.pointer(m))
    assert ptr in shm.pending_frees()
    f.free()
    shm.collect_garbage()
    assert not shm.pending_frees()


def test_torch_from_dlpack_shares_memory():
    torch = real_gpu_module("torch")
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
    cp = real_gpu_module("cupy")
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
    torch = real_gpu_module("torch")
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
        except ImportError:
            torch = None
        if torch and not FAKE:
            t = torch.from_dlpack(v)
            assert t.data_ptr() == v.ptr and int(t.sum()) == 16 * pe * 3
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
