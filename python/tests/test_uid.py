"""Start-up from a unique ID, without symrun (issue 18): pytest itself is no PE;
it makes the ID (symheap.get_uniqueid), starts 1, 2 and 4 PEs with
multiprocessing's spawn context and hands them the ID through a Pipe, as a
torchrun or multiprocessing program would.  Misuse raises a Python exception
with symheap's message, and nothing is left behind: no process, no /dev/shm
object."""
import multiprocessing as mp
import os
import time

import pytest

import symheap as shm
import uid_worker

ctx = mp.get_context("spawn")
TIMEOUT = 60


def shm_entries():
    try:
        return {n for n in os.listdir("/dev/shm") if "symheap" in n or "shmi" in n}
    except FileNotFoundError:
        return set()


def threads():
    return len(os.listdir("/proc/self/task"))


def nothing_left(before_shm, before_threads):
    """No PE process, no /dev/shm object, and the rendezvous thread this
    process ran for the ID has ended."""
    assert mp.active_children() == []
    assert shm_entries() <= before_shm
    for _ in range(50):
        if threads() <= before_threads:
            break
        time.sleep(0.1)
    assert threads() <= before_threads, "the rendezvous thread is still running"


def start(nranks, ranks=None, uid=None, spelling="uid", errdir=None):
    """Start one process per rank, hand each the ID; return [(proc, conn)]."""
    uid = shm.get_uniqueid() if uid is None else uid
    procs = []
    for rank in (range(nranks) if ranks is None else ranks):
        mine, theirs = ctx.Pipe()
        err = os.path.join(errdir, f"err{rank}") if errdir else None
        p = ctx.Process(target=uid_worker.pe_main, args=(theirs, rank, nranks, err, spelling))
        p.start()
        theirs.close()
        mine.send(uid)
        procs.append((p, mine))
    return procs


def finish(procs):
    """Every process's answer (None if it sent none), each process ended."""
    out = []
    for p, conn in procs:
        try:
            out.append(conn.recv() if conn.poll(TIMEOUT) else None)
        except EOFError:  # the process ended without an answer
            out.append(None)
    for p, _ in procs:
        p.join(TIMEOUT)
        if p.is_alive():
            p.kill()
            p.join()
            pytest.fail(f"rank process pid {p.pid} still ran {TIMEOUT} s after its answer")
    return out


def test_uniqueid_is_bytes():
    uid = shm.get_unique_id()  # NVSHMEM4Py's spelling
    assert isinstance(uid, bytes) and uid.startswith(b"symheap-uid1 ")
    assert shm.get_uniqueid(empty=True) == bytes(124)
    assert not shm.initialized()  # making an ID does not start symheap


@pytest.mark.parametrize("nranks", [1, 2, 4])
@pytest.mark.parametrize("spelling", ["uid", "nvshmem4py"])
def test_put_barrier_reduce(nranks, spelling):
    before, nthreads = shm_entries(), threads()
    out = finish(start(nranks, spelling=spelling))
    expect_sum = nranks * (nranks + 1) // 2
    for rank, r in enumerate(out):
        assert r is not None and r[0] == "ok", f"rank {rank}: {r}"
        _, rk, me, npes, left, total, same = r
        assert (rk, me, npes) == (rank, rank, nranks)
        assert left == (rank - 1) % nranks + 1
        assert total == expect_sum and same
    nothing_left(before, nthreads)


def test_torchrun_variables_not_read(monkeypatch):
    """RANK/WORLD_SIZE (torchrun's) are the program's to pass, not read by symheap."""
    monkeypatch.setenv("RANK", "7")
    monkeypatch.setenv("WORLD_SIZE", "9")
    out = finish(start(2))
    assert [r[:4] for r in out] == [("ok", 0, 0, 2), ("ok", 1, 1, 2)]


# Well formed, but no process serves it: for misuse that raises before connecting.
UNSERVED = b"symheap-uid1 127.0.0.1 9 " + b"0" * 32


def test_rank_out_of_range():
    out = finish(start(2, ranks=[2], uid=UNSERVED))
    kind, exc, msg = out[0]
    assert (kind, exc) == ("error", "ValueError")
    assert msg.startswith("[pe ?] symheap.init: rank=2, nranks=2: need 0 <= rank < nranks"), msg


def test_bad_uid():
    bad = b"symheap-uid1 127.0.0.1 notaport 00"
    for uid, exc, text in ((bad, "ValueError", "the unique ID was not made by shmemx_get_uniqueid"),
                           (b"\x00" * 124, "ValueError", "the unique ID was not made by"),
                           (12345, "TypeError", "uid is a int: pass the bytes")):
        out = finish(start(1, uid=uid))
        kind, e, msg = out[0]
        assert (kind, e) == ("error", exc), out
        assert msg.startswith("[pe ?] symheap.init: " + text), msg


def test_init_argument_errors():
    with pytest.raises(ValueError, match=r"^\[pe \?\] symheap.init: initializer_method='uid' needs uid=, rank= and nranks="):
        shm.init(initializer_method="uid")
    with pytest.raises(ValueError, match="rank= and nranks= go with uid="):
        shm.init(rank=0, nranks=2)
    with pytest.raises(ValueError, match="initializer_method='mpi' is not known"):
        shm.init(initializer_method="mpi")
    assert not shm.initialized()


def test_nranks_mismatch(tmp_path):
    """Rank 0 says 2 PEs, rank 1 says 3: the rendezvous ends both processes with
    one line (the PEs already waiting cannot be told apart from the wrong one),
    and neither hangs."""
    before, nthreads = shm_entries(), threads()
    uid = shm.get_uniqueid()
    procs = start(2, ranks=[0], uid=uid, errdir=str(tmp_path))
    procs += start(3, ranks=[1], uid=uid, errdir=str(tmp_path))
    out = finish(procs)
    assert out == [None, None]
    assert all(p.exitcode not in (0, None) for p, _ in procs)
    errs = "".join((tmp_path / f"err{r}").read_text() for r in (0, 1))
    assert "but the PEs before it said" in errs and "give every PE the same nranks" in errs, errs
    nothing_left(before, nthreads)
