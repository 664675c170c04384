"""PE 1 raises while the others go on to a barrier: the job must end at once
with one line naming PE 1 (python_uncaught_exception_np3), not hang."""
import symheap as shm

a = shm.zeros(4)
if shm.my_pe() == 1:
    raise RuntimeError("an error on PE 1 only")
shm.barrier_all()
