#!/usr/bin/env python3
"""A PMI-1 client for the test of bench/gpu/pmi1run.py (tools_pmi1run).

Does what NVSHMEM's PMI bootstrap does: init, get_maxes, put its key, barrier,
get every rank's key, finalize.  With argument "fail", rank 1 exits 3 after
that; with "hang", rank 1 sleeps (the launcher's timeout must end it).
"""
import os
import socket
import sys
import time

s = socket.socket(fileno=int(os.environ["PMI_FD"]))
f = s.makefile("rw")


def cmd(text, want):
    f.write(text + "\n")
    f.flush()
    got = f.readline().split()
    if not got or got[0] != "cmd=" + want:
        sys.exit("rank %s: sent %r, wanted cmd=%s, got %r" % (os.environ["PMI_RANK"], text, want, got))
    return dict(t.partition("=")[::2] for t in got)


rank, size = int(os.environ["PMI_RANK"]), int(os.environ["PMI_SIZE"])
assert cmd("cmd=init pmi_version=1 pmi_subversion=1", "response_to_init")["rc"] == "0"
assert int(cmd("cmd=get_maxes", "maxes")["vallen_max"]) >= 256
kvs = cmd("cmd=get_my_kvsname", "my_kvsname")["kvsname"]
cmd("cmd=put kvsname=%s key=addr%d value=v%d" % (kvs, rank, rank * 7), "put_result")
cmd("cmd=barrier_in", "barrier_out")
for r in range(size):
    got = cmd("cmd=get kvsname=%s key=addr%d" % (kvs, r), "get_result")
    assert got["rc"] == "0" and got["value"] == "v%d" % (r * 7), (r, got)
assert cmd("cmd=get kvsname=%s key=nosuch" % kvs, "get_result")["rc"] != "0"
cmd("cmd=barrier_in", "barrier_out")
cmd("cmd=finalize", "finalize_ack")
mode = sys.argv[1] if len(sys.argv) > 1 else ""
if rank == 1 and mode == "fail":
    sys.exit(3)
if rank == 1 and mode == "hang":
    time.sleep(60)
print("rank %d of %d: ok" % (rank, size))
