"""The PEs of test_uid.py: processes that multiprocessing (spawn) started, with
no launcher, joined through a unique ID the parent handed them."""
import os
import sys


def redirect_stderr(path):
    """The library's one-line errors go to fd 2: keep them for the parent."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(fd, 2)
    os.close(fd)
    sys.stderr = os.fdopen(2, "w", buffering=1)


def pe_main(conn, rank, nranks, errfile=None, spelling="uid"):
    """Receive the ID over conn, start as rank of nranks, put + barrier + reduce,
    send back (rank, my_pe, n_pes, left neighbour's value, sum)."""
    if errfile:
        redirect_stderr(errfile)
    import numpy as np
    import symheap as shm
    uid = conn.recv()
    try:
        if spelling == "nvshmem4py":
            shm.init(uid=uid, rank=rank, nranks=nranks, initializer_method="uid")
        else:
            shm.init(uid=uid, rank=rank, nranks=nranks)
    except Exception as e:  # misuse: the parent checks the message
        conn.send(("error", type(e).__name__, str(e)))
        return
    me, npes = shm.my_pe(), shm.n_pes()
    a = shm.zeros(4, dtype=np.int64)
    shm.put(a, np.full(4, me + 1, dtype=np.int64), (me + 1) % npes)
    shm.barrier_all()
    left = int(a[0])
    total = shm.zeros(4, dtype=np.int64)
    shm.reduce(total, a, op="sum")
    result = ("ok", rank, me, npes, left, int(total[0]), bool((total == total[0]).all()))
    a.free()
    total.free()
    shm.finalize()
    conn.send(result)
