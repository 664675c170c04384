#!/usr/bin/env python3
"""pmi1run.py - start N processes of a program under a minimal PMI-1 server.

    bench/gpu/pmi1run.py -n N [--timeout S] PROGRAM [ARGS...]

For side-by-side runs against NVIDIA's NVSHMEM on a machine that has its pip
package (nvidia-nvshmem-cu13) but not its launcher (nvshmrun, Hydra) or MPI:
NVSHMEM's default bootstrap (NVSHMEM_BOOTSTRAP=PMI, simple PMI-1) finds the
server through PMI_FD, PMI_RANK and PMI_SIZE, which this script sets for each
process it starts.  symheap programs need none of this (symrun starts them).

Speaks the PMI-1 "simple" wire protocol as MPICH's process managers do: lines of
key=value pairs (init, get_maxes, get_appnum, get_my_kvsname, get_universe_size,
put, get, barrier_in, finalize, abort).  One key-value space for the job.

The job ends when every process has exited; when one exits non-zero, dies of a
signal or calls abort, the others are killed (SIGTERM, then SIGKILL after 2 s),
and so they are after --timeout seconds.  Exit status: the first non-zero exit
status of a process (128+signal for a signal), 124 on timeout, else 0.
Python 3 standard library only.
"""
import argparse
import os
import selectors
import signal
import socket
import subprocess
import sys
import time

MAXES = "kvsname_max=256 keylen_max=256 vallen_max=1024"


def parse(line):
    """'cmd=put kvsname=k key=a value=b' -> dict (a value may hold no spaces)."""
    out = {}
    for tok in line.split():
        k, _, v = tok.partition("=")
        out[k] = v
    return out


class Job:
    def __init__(self, n, argv, timeout):
        self.n, self.argv, self.timeout = n, argv, timeout
        self.kvs = {}
        self.barrier = set()
        self.procs = []
        self.socks = {}          # server-side socket -> rank
        self.buf = {}
        self.status = 0
        self.sel = selectors.DefaultSelector()

    def start(self):
        for rank in range(self.n):
            ours, theirs = socket.socketpair()
            env = dict(os.environ, PMI_FD=str(theirs.fileno()), PMI_RANK=str(rank),
                       PMI_SIZE=str(self.n))
            p = subprocess.Popen(self.argv, env=env, pass_fds=(theirs.fileno(),))
            theirs.close()
            self.procs.append(p)
            self.socks[ours] = rank
            self.buf[ours] = b""
            self.sel.register(ours, selectors.EVENT_READ)

    def send(self, s, text):
        try:
            s.sendall((text + "\n").encode())
        except OSError:
            pass

    def handle(self, s, line):
        rank = self.socks[s]
        m = parse(line)
        cmd = m.get("cmd", "")
        if cmd == "init":
            self.send(s, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0")
        elif cmd == "get_maxes":
            self.send(s, "cmd=maxes " + MAXES + " rc=0")
        elif cmd == "get_appnum":
            self.send(s, "cmd=appnum appnum=0 rc=0")
        elif cmd == "get_my_kvsname":
            self.send(s, "cmd=my_kvsname kvsname=kvs_0 rc=0")
        elif cmd == "get_universe_size":
            self.send(s, "cmd=universe_size size=%d rc=0" % self.n)
        elif cmd == "put":
            self.kvs[m.get("key", "")] = m.get("value", "")
            self.send(s, "cmd=put_result rc=0")
        elif cmd == "get":
            key = m.get("key", "")
            if key in self.kvs:
                self.send(s, "cmd=get_result rc=0 value=" + self.kvs[key])
            else:
                self.send(s, "cmd=get_result rc=-1 msg=key_%s_not_found" % key)
        elif cmd == "barrier_in":
            self.barrier.add(rank)
            if len(self.barrier) == self.n:
                self.barrier.clear()
                for t in self.socks:
                    self.send(t, "cmd=barrier_out")
        elif cmd == "finalize":
            self.send(s, "cmd=finalize_ack")
        elif cmd == "abort":
            sys.stderr.write("pmi1run: rank %d called abort (exit code %s)\n"
                             % (rank, m.get("exitcode", "?")))
            self.fail(int(m.get("exitcode", "1") or 1) or 1)
        else:
            sys.stderr.write("pmi1run: rank %d sent an unknown command: %s\n" % (rank, line))
            self.send(s, "cmd=%s rc=-1" % (cmd or "unknown"))

    def fail(self, code):
        if not self.status:
            self.status = code
        for p in self.procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        end = time.time() + 2
        for p in self.procs:
            try:
                p.wait(max(0.0, end - time.time()))
            except subprocess.TimeoutExpired:
                p.kill()

    def run(self):
        self.start()
        deadline = time.time() + self.timeout
        while True:
            for key, _ in self.sel.select(timeout=0.1):
                s = key.fileobj
                try:
                    data = s.recv(65536)
                except OSError:
                    data = b""
                if not data:
                    self.sel.unregister(s)
                    continue
                self.buf[s] += data
                while b"\n" in self.buf[s]:
                    line, _, rest = self.buf[s].partition(b"\n")
                    self.buf[s] = rest
                    self.handle(s, line.decode(errors="replace"))
            done = True
            for rank, p in enumerate(self.procs):
                rc = p.poll()
                if rc is None:
                    done = False
                elif rc != 0 and not self.status:
                    code = rc if rc > 0 else 128 - rc
                    sys.stderr.write("pmi1run: rank %d ended with status %d; ending the others\n"
                                     % (rank, code))
                    self.fail(code)
            if done:
                return self.status
            if time.time() > deadline:
                sys.stderr.write("pmi1run: timeout after %g s; ending the job\n" % self.timeout)
                self.fail(124)
                return 124


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, required=True, help="number of processes")
    ap.add_argument("--timeout", type=float, default=300, help="seconds before the job is ended")
    ap.add_argument("argv", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    if a.n < 1 or not a.argv:
        ap.error("need -n N >= 1 and a program")
    return Job(a.n, a.argv, a.timeout).run()


if __name__ == "__main__":
    sys.exit(main())
