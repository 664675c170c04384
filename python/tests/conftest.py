"""Every PE runs the same tests, making the same collective calls.  A test that
fails on one PE would leave the others waiting in their next collective (or in
a wait for this PE), so the first failure prints its report and ends the whole
job at once (shmem_global_exit), with the failing PE named.  Tests that start
their own PEs (test_uid.py: pytest itself is no PE) just fail."""
import sys

import symheap as shm


def pytest_runtest_logreport(report):
    if report.failed and shm.initialized():
        sys.stderr.write(f"[pe {shm.my_pe()}] FAILED {report.nodeid}:\n{report.longreprtext}\n")
        sys.stderr.flush()
        shm.global_exit(1)
