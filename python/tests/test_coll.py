"""broadcast, collect, fcollect, alltoall, reductions (every op, NumPy dtypes), on
the world and on a team."""
import numpy as np
import pytest

import symheap as shm

me, npes = shm.my_pe(), shm.n_pes()


def test_broadcast():
    for root in range(npes):
        src = shm.full(5, me * 10, np.int64)
        dst = shm.zeros(5, np.int64)
        shm.broadcast(dst, src, root)
        assert (dst == root * 10).all()
        src.free()
        dst.free()


def test_fcollect_collect():
    src = shm.full(3, me, np.float32)
    dst = shm.zeros(3 * npes, np.float32)
    shm.fcollect(dst, src)
    assert list(dst) == [pe for pe in range(npes) for _ in range(3)]
    # collect: PE i contributes i + 1 elements
    total = npes * (npes + 1) // 2
    out = shm.zeros(total, np.int32)
    mine = shm.full(npes, me, np.int32)
    shm.collect(out, mine, size=me + 1)
    assert list(out) == [pe for pe in range(npes) for _ in range(pe + 1)]
    for x in (src, dst, out, mine):
        x.free()


def test_alltoall():
    src = shm.array(np.arange(2 * npes, dtype=np.int64) + 100 * me)
    dst = shm.zeros(2 * npes, np.int64)
    shm.alltoall(dst, src)
    expect = [100 * pe + 2 * me + k for pe in range(npes) for k in range(2)]
    assert list(dst) == expect
    src.free()
    dst.free()


INTS = ["i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8"]


@pytest.mark.parametrize("dtype", INTS + ["f4", "f8", "g"])
@pytest.mark.parametrize("op", ["sum", "prod", "min", "max"])
def test_reduce_arith(dtype, op):
    vals = np.array([me + 1, 2 * me + 1, 1], dtype=dtype)
    src = shm.array(vals)
    dst = shm.zeros(3, dtype)
    shm.reduce(dst, src, op)
    every = np.array([[pe + 1, 2 * pe + 1, 1] for pe in range(npes)], dtype=dtype)
    expect = {"sum": every.sum(0), "prod": every.prod(0), "min": every.min(0),
              "max": every.max(0)}[op].astype(dtype)
    assert (dst == expect).all(), (dst, expect)
    getattr(shm, op + "_reduce")(dst, src)
    assert (dst == expect).all()
    src.free()
    dst.free()


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("op", ["and", "or", "xor"])
def test_reduce_bitwise(dtype, op):
    src = shm.full(2, 1 << (me % 7), dtype)
    dst = shm.zeros(2, dtype)
    shm.reduce(dst, src, op)
    acc = None
    for pe in range(npes):
        v = 1 << (pe % 7)
        acc = v if acc is None else {"and": acc & v, "or": acc | v, "xor": acc ^ v}[op]
    assert (dst == acc).all()
    src.free()
    dst.free()


def test_reduce_complex():
    src = shm.full(2, complex(me, 1), np.complex128)
    dst = shm.zeros(2, np.complex128)
    shm.reduce(dst, src, shm.OP_SUM)
    assert (dst == complex(sum(range(npes)), npes)).all()
    src.free()
    dst.free()


def test_team_collectives():
    odd = shm.TEAM_WORLD.split_strided(1, 2) if npes > 1 else shm.TEAM_WORLD.split_strided(0, 1)
    src = shm.full(2, me, np.int64)
    dst = shm.zeros(2 * npes, np.int64)
    if odd:
        n = odd.n_pes()
        shm.broadcast(dst, src, 0, size=2, team=odd)
        assert (dst[:2] == odd.translate_pe(0)).all()
        shm.fcollect(dst, src, team=odd)
        assert list(dst[: 2 * n]) == [odd.translate_pe(i) for i in range(n) for _ in range(2)]
        shm.reduce(dst, src, "max", size=2, team=odd)
        assert (dst[:2] == odd.translate_pe(n - 1)).all()
    odd.destroy()
    src.free()
    dst.free()
