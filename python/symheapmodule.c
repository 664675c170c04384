/* symheapmodule.c - the CPython module `symheap`: start-up, symmetric blocks
 * and the NumPy arrays on them, and freeing that survives the garbage
 * collector (docs/python.md).
 *
 * A symmetric array is a symheap.SymmetricArray (an ndarray subclass) whose
 * memory is one block from shmem_malloc; its base is the Block that owns the
 * block, so slices and views keep it alive.  The Block also exports its bytes
 * through the buffer protocol (memoryview(block), symheap.alloc).
 *
 * Freeing: a collective free cannot run when Python's garbage collector
 * drops the last reference, since the collector runs at different times on
 * different PEs.  So a dropped Block only marks its registry entry pending;
 * at the next world-wide collective of this module (allocation, free,
 * barrier_all, sync_all, a collective on the world team, collect_garbage,
 * finalize) every PE contributes its sorted pending list (fcollect) and all
 * free the addresses every PE has pending, in address order, so the heaps
 * stay identical.  a.free() and `with` free at once, collectively.  At
 * finalize the blocks left (live on every PE, or dropped on some only) are
 * freed; the PEs that dropped a block another PE still holds raise
 * symheap.Error naming it. */
#include "symheap_py.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pystate symheap_py;
PyObject *symheap_py_error;

/* ---- Messages -------------------------------------------------------------- */

PyObject *sp_raise(PyObject *exc, const char *fn, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (symheap_py.inited)
        PyErr_Format(exc, "[pe %d] symheap.%s: %s", symheap_py.me, fn, msg);
    else
        PyErr_Format(exc, "[pe ?] symheap.%s: %s", fn, msg);
    return NULL;
}

int sp_check_pe(const char *fn, const char *what, long pe, int npes)
{
    if (pe >= 0 && pe < npes) return 0;
    sp_raise(PyExc_ValueError, fn, "%s=%ld is out of range: this %s has %d PEs (use 0..%d)", what,
             pe, npes == symheap_py.npes ? "job" : "team", npes, npes - 1);
    return -1;
}

/* ---- The registry of this epoch's blocks, sorted by address --------------- */

struct blk {
    uintptr_t addr;
    size_t size;
    int pending; /* dropped by Python here, not freed yet */
};
static struct blk *reg;
static size_t reg_n, reg_cap, reg_pending;
static long *ctl; /* 4 symmetric longs for the garbage round's reduction */

/* Index of the first entry with addr > p. */
static size_t reg_upper(uintptr_t p)
{
    size_t lo = 0, hi = reg_n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (reg[mid].addr <= p) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Index of the entry holding p, or -1. */
static long reg_find(uintptr_t p)
{
    size_t i = reg_upper(p);
    if (i == 0) return -1;
    struct blk *b = &reg[i - 1];
    return p < b->addr + (b->size ? b->size : 1) ? (long)(i - 1) : -1;
}

static int reg_insert(uintptr_t addr, size_t size)
{
    if (reg_n == reg_cap) {
        size_t cap = reg_cap ? 2 * reg_cap : 64;
        struct blk *r = realloc(reg, cap * sizeof *r);
        if (!r) return -1;
        reg = r;
        reg_cap = cap;
    }
    size_t i = reg_upper(addr);
    memmove(&reg[i + 1], &reg[i], (reg_n - i) * sizeof *reg);
    reg[i] = (struct blk){ addr, size, 0 };
    reg_n++;
    return 0;
}

static void reg_remove(size_t i)
{
    if (reg[i].pending) reg_pending--;
    memmove(&reg[i], &reg[i + 1], (reg_n - i - 1) * sizeof *reg);
    reg_n--;
}

int sp_check_sym(const char *fn, const char *what, const void *p, size_t n)
{
    if (n == 0) return 0;
    long i = reg_find((uintptr_t)p);
    if (i < 0) {
        if (shmem_addr_accessible(p, symheap_py.me))
            sp_raise(PyExc_ValueError, fn, "%s at %p is in the symmetric heap but in no live "
                     "symmetric array (freed with a.free()?); use an array from "
                     "symheap.zeros/empty/array that is still alive", what, p);
        else
            sp_raise(PyExc_ValueError, fn, "%s at %p is not symmetric: its memory is this "
                     "PE's alone (a NumPy array, or a copy such as a + 1); make it with "
                     "symheap.zeros/empty/array", what, p);
        return -1;
    }
    const struct blk *b = &reg[i];
    uintptr_t end = (uintptr_t)p + n;
    if (end > b->addr + b->size) {
        sp_raise(PyExc_ValueError, fn, "%s (%zu bytes at %p) runs %zu bytes past the end of "
                 "its symmetric block (%zu bytes at %p); use fewer elements or a bigger array",
                 what, n, p, (size_t)(end - (b->addr + b->size)), b->size, (void *)b->addr);
        return -1;
    }
    return 0;
}

void sp_extent(PyArrayObject *a, char **lo, size_t *len)
{
    char *base = PyArray_DATA(a);
    npy_intp size = PyArray_SIZE(a);
    if (size == 0) {
        *lo = base;
        *len = 0;
        return;
    }
    npy_intp l = 0, h = 0;
    for (int d = 0; d < PyArray_NDIM(a); d++) {
        npy_intp span = PyArray_STRIDE(a, d) * (PyArray_DIM(a, d) - 1);
        if (span < 0) l += span;
        else h += span;
    }
    *lo = base + l;
    *len = (size_t)(h - l) + (size_t)PyArray_ITEMSIZE(a);
}

/* ---- Start-up and shutdown --------------------------------------------------- */

/* The unique ID's text, "symheap-uid1 <address> <port> <32 hex digits>"
 * (src/bootstrap/boot_uid.c): checked here so that a bad ID raises instead
 * of stopping the process. */
static int uid_valid(const char *text)
{
    char tag[16], host[64], hex[40];
    int port;
    if (sscanf(text, "%15s %63s %d %39s", tag, host, &port, hex) != 4 ||
        strcmp(tag, "symheap-uid1") != 0 || port <= 0 || port > 65535 || strlen(hex) != 32)
        return 0;
    return strspn(hex, "0123456789abcdefABCDEF") == 32;
}

/* uid: NULL (shmem_init: symrun, PMIx, or a singleton) or an ID to start
 * with as rank of nranks (checked by py_init). */
static int start(const shmemx_uniqueid_t *uid, int rank, int nranks)
{
    if (uid) {
        /* The rendezvous waits for the other ranks: let other threads run. */
        Py_BEGIN_ALLOW_THREADS
        shmemx_init_uniqueid(uid, rank, nranks);
        Py_END_ALLOW_THREADS
    } else {
        shmem_init();
    }
    symheap_py.me = shmem_my_pe();
    symheap_py.npes = shmem_n_pes();
    symheap_py.inited = 1;
    symheap_py.finalized = 0;
    ctl = shmem_malloc(4 * sizeof *ctl);
    if (!ctl) {
        sp_raise(PyExc_MemoryError, "init", "no room for 32 bytes in the symmetric heap; "
                 "set SHMEM_SYMMETRIC_SIZE larger");
        return -1;
    }
    return 0;
}

int sp_ensure(const char *fn)
{
    if (symheap_py.inited) return 0;
    if (symheap_py.finalized) {
        sp_raise(symheap_py_error, fn, "called after symheap.finalize(); call symheap.init() "
                 "first to start again");
        return -1;
    }
    return start(NULL, 0, 0);
}

/* get_uniqueid(empty=False) -> bytes: an ID for init(uid=...) (NVSHMEM4Py's
 * get_unique_id).  This process serves the rendezvous from a thread until
 * every PE has finalized, so it must live that long; it need not be a PE. */
static PyObject *py_get_uniqueid(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = { "empty", NULL };
    int empty = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|p:get_uniqueid", kwlist, &empty)) return NULL;
    shmemx_uniqueid_t id;
    memset(&id, 0, sizeof id);
    if (empty) return PyBytes_FromStringAndSize(id.internal, sizeof id.internal);
    shmemx_get_uniqueid(&id);
    return PyBytes_FromStringAndSize(id.internal, (Py_ssize_t)strnlen(id.internal,
                                                                       sizeof id.internal));
}

/* init(uid=None, rank=None, nranks=None, initializer_method=None, device=None):
 * without uid as before (symrun, PMIx or one PE); with uid, as rank of nranks
 * (NVSHMEM4Py's keywords; initializer_method "uid" or "" or None). */
static PyObject *py_init(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = { "uid", "rank", "nranks", "initializer_method", "device", NULL };
    PyObject *uid_o = Py_None, *rank_o = Py_None, *nranks_o = Py_None, *device = Py_None;
    const char *method = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$OOOzO:init", kwlist, &uid_o, &rank_o,
                                     &nranks_o, &method, &device))
        return NULL;
    (void)device; /* symheap picks each PE's GPU itself (docs/gpu.md) */
    int want_uid = uid_o != Py_None || (method && strcmp(method, "uid") == 0);
    if (method && *method && strcmp(method, "uid") != 0 && strcmp(method, "default") != 0)
        return sp_raise(PyExc_ValueError, "init", "initializer_method='%s' is not known; use "
                        "'uid' (with uid=, rank=, nranks=) or leave it out (symrun, PMIx)",
                        method);
    if (!want_uid) {
        if (rank_o != Py_None || nranks_o != Py_None)
            return sp_raise(PyExc_ValueError, "init", "rank= and nranks= go with uid=: pass "
                            "uid=symheap.get_uniqueid() made by one process, or leave all "
                            "three out under symrun");
        if (!symheap_py.inited && start(NULL, 0, 0) < 0) return NULL;
        Py_RETURN_NONE;
    }
    if (uid_o == Py_None || rank_o == Py_None || nranks_o == Py_None)
        return sp_raise(PyExc_ValueError, "init", "initializer_method='uid' needs uid=, rank= "
                        "and nranks=: uid from symheap.get_uniqueid() in one process, handed "
                        "to every rank");
    long rank = PyLong_AsLong(rank_o), nranks = PyLong_AsLong(nranks_o);
    if (PyErr_Occurred()) return NULL;
    if (nranks < 1 || nranks > (1 << 24) || rank < 0 || rank >= nranks)
        return sp_raise(PyExc_ValueError, "init", "rank=%ld, nranks=%ld: need 0 <= rank < "
                        "nranks (give each process its own rank and all the same nranks)",
                        rank, nranks);
    shmemx_uniqueid_t id;
    memset(&id, 0, sizeof id);
    Py_buffer view;
    if (PyUnicode_Check(uid_o)) {
        Py_ssize_t n;
        const char *t = PyUnicode_AsUTF8AndSize(uid_o, &n);
        if (!t) return NULL;
        memcpy(id.internal, t, (size_t)(n < (Py_ssize_t)sizeof id.internal - 1 ? n
                                        : (Py_ssize_t)sizeof id.internal - 1));
    } else if (PyObject_GetBuffer(uid_o, &view, PyBUF_SIMPLE) == 0) {
        size_t n = (size_t)view.len < sizeof id.internal - 1 ? (size_t)view.len
                                                             : sizeof id.internal - 1;
        memcpy(id.internal, view.buf, n);
        PyBuffer_Release(&view);
    } else {
        PyErr_Clear();
        return sp_raise(PyExc_TypeError, "init", "uid is a %s: pass the bytes that "
                        "symheap.get_uniqueid() returned in one process",
                        Py_TYPE(uid_o)->tp_name);
    }
    if (!uid_valid(id.internal))
        return sp_raise(PyExc_ValueError, "init", "the unique ID was not made by "
                        "shmemx_get_uniqueid or nvshmemx_get_uniqueid (or was damaged on the "
                        "way): '%.40s'; hand every process the bytes one process got from "
                        "symheap.get_uniqueid()", id.internal);
    if (symheap_py.inited) {
        if (symheap_py.me == rank && symheap_py.npes == nranks) Py_RETURN_NONE;
        return sp_raise(symheap_py_error, "init", "already started as PE %d of %d, not rank %ld "
                        "of %ld: call init once per process, before any other symheap call",
                        symheap_py.me, symheap_py.npes, rank, nranks);
    }
    if (getenv("SYMRUN_FD")) {
        /* symrun's PEs are the job: check rank and nranks against them. */
        if (start(NULL, 0, 0) < 0) return NULL;
        if (symheap_py.me == rank && symheap_py.npes == nranks) Py_RETURN_NONE;
        return sp_raise(symheap_py_error, "init", "rank %ld of %ld, but this process is PE %d "
                        "of %d (started by symrun): give each process its PE number as rank "
                        "and the PE count as nranks, or start the processes without symrun",
                        rank, nranks, symheap_py.me, symheap_py.npes);
    }
    if (start(&id, (int)rank, (int)nranks) < 0) return NULL;
    Py_RETURN_NONE;
}

/* ---- Garbage rounds -------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* One round: returns the number of blocks freed, or -1 with an exception. */
static long gc_round(const char *fn)
{
    /* One reduction gives the longest list and the shortest (as -max(-n)): a
     * PE with nothing pending means nothing can be freed everywhere. */
    ctl[0] = (long)reg_pending;
    ctl[1] = -(long)reg_pending;
    shmem_long_max_reduce(SHMEM_TEAM_WORLD, &ctl[2], &ctl[0], 2);
    size_t r = (size_t)ctl[2];
    if (r == 0 || ctl[3] == 0) return 0;
    size_t np = (size_t)symheap_py.npes;
    uint64_t *buf = shmem_malloc((np + 1) * r * sizeof *buf);
    if (!buf) {
        sp_raise(PyExc_MemoryError, fn, "no room for the %zu bytes that freeing %zu dropped "
                 "arrays needs; set SHMEM_SYMMETRIC_SIZE larger", (np + 1) * r * 8, r);
        return -1;
    }
    size_t k = 0;
    for (size_t i = 0; i < reg_n; i++)
        if (reg[i].pending) buf[k++] = reg[i].addr;
    while (k < r) buf[k++] = UINT64_MAX; /* keeps each list sorted */
    uint64_t *all = buf + r;
    shmem_uint64_fcollect(SHMEM_TEAM_WORLD, all, buf, r);
    /* The same data on every PE: every PE frees the same blocks in the same order. */
    long freed = 0;
    for (size_t j = 0; j < r && all[j] != UINT64_MAX; j++) {
        int everywhere = 1;
        for (size_t pe = 1; pe < np && everywhere; pe++)
            everywhere = bsearch(&all[j], all + pe * r, r, sizeof *all, cmp_u64) != NULL;
        if (!everywhere) continue;
        long i = reg_find((uintptr_t)all[j]);
        shmem_free((void *)(uintptr_t)all[j]);
        if (i >= 0) reg_remove((size_t)i);
        freed++;
    }
    shmem_free(buf);
    return freed;
}

int sp_gc_point(const char *fn)
{
    if (sp_ensure(fn) < 0) return -1;
    return gc_round(fn) < 0 ? -1 : 0;
}

static PyObject *py_collect_garbage(PyObject *self, PyObject *noargs)
{
    (void)self, (void)noargs;
    if (sp_ensure("collect_garbage") < 0) return NULL;
    long n = gc_round("collect_garbage");
    return n < 0 ? NULL : PyLong_FromLong(n);
}

static PyObject *py_pending_frees(PyObject *self, PyObject *noargs)
{
    (void)self, (void)noargs;
    PyObject *l = PyList_New(0);
    for (size_t i = 0; l && i < reg_n; i++) {
        if (!reg[i].pending) continue;
        PyObject *v = PyLong_FromSize_t(reg[i].addr);
        if (!v || PyList_Append(l, v) < 0) Py_CLEAR(l);
        Py_XDECREF(v);
    }
    return l;
}

static PyObject *py_finalize(PyObject *self, PyObject *noargs)
{
    (void)self, (void)noargs;
    if (!symheap_py.inited) Py_RETURN_NONE;
    long rc = gc_round("finalize");
    /* What is left is allocated on every PE (allocation and free are
     * collective): free it all in address order.  A block dropped here but
     * not freed was still held on another PE. */
    char names[512] = "";
    size_t left = 0, len = 0;
    for (size_t i = 0; i < reg_n; i++) {
        if (!reg[i].pending) continue;
        if (left++ < 6 && len < sizeof names)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%p (%zu bytes)",
                                    left > 1 ? ", " : "", (void *)reg[i].addr, reg[i].size);
    }
    while (reg_n) {
        shmem_free((void *)reg[0].addr);
        reg_remove(0);
    }
    shmem_free(ctl);
    ctl = NULL;
    shmem_finalize();
    symheap_py.inited = 0;
    symheap_py.finalized = 1;
    symheap_py.epoch++;
    if (rc < 0) return NULL;
    if (left) {
        int me = symheap_py.me;
        PyErr_Format(symheap_py_error, "[pe %d] symheap.finalize: %zu block%s dropped on this "
                     "PE but still referenced on another PE until finalize, so never freed "
                     "collectively: %s%s; drop every reference on every PE (or call a.free() "
                     "on every PE) before finalize", me, left, left > 1 ? "s" : "", names,
                     left > 6 ? ", ..." : "");
        return NULL;
    }
    Py_RETURN_NONE;
}

/* ---- Blocks ------------------------------------------------------------------ */

typedef struct {
    PyObject_HEAD
    void *ptr;
    size_t nbytes;
    unsigned epoch;
    int freed;
    int gpu; /* GPU memory: no buffer protocol (the CPU cannot reach it) */
} Block;

static void Block_dealloc(Block *b)
{
    if (!b->freed && symheap_py.inited && b->epoch == symheap_py.epoch) {
        long i = reg_find((uintptr_t)b->ptr);
        if (i >= 0 && !reg[i].pending) {
            reg[i].pending = 1;
            reg_pending++;
        }
    }
    Py_TYPE(b)->tp_free((PyObject *)b);
}

static int Block_getbuffer(Block *b, Py_buffer *view, int flags)
{
    if (b->freed || b->epoch != symheap_py.epoch || !symheap_py.inited) {
        sp_raise(PyExc_BufferError, "Block", "the block at %p was freed", b->ptr);
        view->obj = NULL;
        return -1;
    }
    if (b->gpu) {
        sp_raise(PyExc_BufferError, "Block", "the block at %p is GPU memory, which the CPU "
                 "cannot read; use DLPack (torch.from_dlpack(a)) or __cuda_array_interface__ "
                 "(cupy.asarray(a)), or a.to_numpy() for a host copy", b->ptr);
        view->obj = NULL;
        return -1;
    }
    return PyBuffer_FillInfo(view, (PyObject *)b, b->ptr, (Py_ssize_t)b->nbytes, 0, flags);
}

static PyBufferProcs Block_as_buffer = { (getbufferproc)Block_getbuffer, NULL };

static PyObject *Block_repr(Block *b)
{
    return PyUnicode_FromFormat("<symheap.Block %zu bytes at %p%s>", b->nbytes, b->ptr,
                                b->freed ? " (freed)" : "");
}

static PyTypeObject Block_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "symheap.Block",
    .tp_basicsize = sizeof(Block),
    .tp_dealloc = (destructor)Block_dealloc,
    .tp_repr = (reprfunc)Block_repr,
    .tp_as_buffer = &Block_as_buffer,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One symmetric block (same address on every PE); the base of symmetric arrays.",
};

/* kind= of the constructors: 0 for "host" (default), 1 for "gpu" (after
 * checking that every PE has a GPU heap), -1 with an exception. */
static int parse_kind(const char *fn, const char *kind)
{
    if (!kind || strcmp(kind, "host") == 0) return 0;
    if (strcmp(kind, "gpu") == 0) return sp_gpu_ready(fn) < 0 ? -1 : 1;
    sp_raise(PyExc_ValueError, fn, "kind='%s' is not a memory kind; use 'host' or 'gpu'", kind);
    return -1;
}

/* A new block of nbytes (collective); NULL with an exception. */
static Block *block_new(const char *fn, size_t nbytes, Py_ssize_t align, long hints, int clear,
                        int gpu)
{
    if (align > 0 && (align & (align - 1))) {
        sp_raise(PyExc_ValueError, fn, "align=%zd is not a power of two; use 8, 64, 4096...",
                 align);
        return NULL;
    }
    if (hints < 0) {
        sp_raise(PyExc_ValueError, fn, "hints=%ld is negative; use symheap.MALLOC_* flags", hints);
        return NULL;
    }
    if (sp_gc_point(fn) < 0) return NULL;
    size_t n = nbytes ? nbytes : 1; /* a zero-size array still has a symmetric address */
    void *p;
    if (gpu && symheap_py.gpu != 2) hints |= SHMEMX_MALLOC_DEVICE; /* 2: tests' host stand-in */
    if (align > 0) {
        p = shmemx_align_with_hints((size_t)align, n, hints);
        if (p && clear && gpu) {
            void *z = calloc(1, n);
            if (z) shmem_putmem(p, z, n, symheap_py.me); /* through the copy engines */
            free(z);
        } else if (p && clear) {
            memset(p, 0, n);
        }
    } else if (clear) {
        p = hints ? shmemx_calloc_with_hints(1, n, hints) : shmem_calloc(1, n);
    } else {
        p = hints ? shmem_malloc_with_hints(n, hints) : shmem_malloc(n);
    }
    if (!p) {
        shmemx_heap_info_t hi;
        if (gpu ? shmemx_gpu_heap_info(&hi) : (shmemx_heap_info(&hi), 0)) memset(&hi, 0, sizeof hi);
        sp_raise(PyExc_MemoryError, fn, "no room for %zu bytes in the %s symmetric heap (%zu "
                 "bytes free, largest free block %zu); free arrays or set %s larger", n,
                 gpu ? "GPU" : "host", hi.free, hi.largest_free,
                 gpu ? "SHMEM_GPU_HEAP_SIZE" : "SHMEM_SYMMETRIC_SIZE");
        return NULL;
    }
    Block *b = PyObject_New(Block, &Block_Type);
    if (b) {
        b->ptr = p;
        b->nbytes = n;
        b->epoch = symheap_py.epoch;
        b->gpu = gpu;
        b->freed = 1; /* until registered: its dealloc must not mark it pending */
    }
    if (!b || reg_insert((uintptr_t)p, n) < 0) {
        /* Out of Python memory on this PE only: the block stays allocated (a
         * leak finalize cannot see) rather than freed by one PE alone. */
        Py_XDECREF(b);
        PyErr_NoMemory();
        return NULL;
    }
    b->freed = 0;
    return b;
}

PyObject *sp_block_new(const char *fn, size_t nbytes, Py_ssize_t align, long hints, int clear,
                       int gpu, void **ptr)
{
    Block *b = block_new(fn, nbytes, align, hints, clear, gpu);
    if (b) *ptr = b->ptr;
    return (PyObject *)b;
}

/* The Block under an array, memoryview or Block; NULL (no exception) if none. */
static Block *block_of(PyObject *obj)
{
    for (int depth = 0; obj && depth < 64; depth++) {
        if (Py_IS_TYPE(obj, &Block_Type)) return (Block *)obj;
        if (Py_IS_TYPE(obj, &GpuArray_Type)) obj = sp_gpu_shadow(obj);
        else if (PyArray_Check(obj)) obj = PyArray_BASE((PyArrayObject *)obj);
        else if (PyMemoryView_Check(obj)) obj = PyMemoryView_GET_BUFFER(obj)->obj;
        else return NULL;
    }
    return NULL;
}

int sp_block_free(const char *fn, PyObject *obj)
{
    Block *b = block_of(obj);
    if (!b) {
        sp_raise(PyExc_ValueError, fn, "the argument (%s) is not a symmetric array: its memory "
                 "is not from symheap; only arrays from symheap.zeros/empty/array/alloc are "
                 "freed", Py_TYPE(obj)->tp_name);
        return -1;
    }
    if (b->freed || b->epoch != symheap_py.epoch || !symheap_py.inited) {
        sp_raise(symheap_py_error, fn, "the block at %p (%zu bytes) was already freed%s", b->ptr,
                 b->nbytes, b->freed ? "" : " (by symheap.finalize)");
        return -1;
    }
    if (sp_gc_point(fn) < 0) return -1;
    shmem_free(b->ptr);
    long i = reg_find((uintptr_t)b->ptr);
    if (i >= 0) reg_remove((size_t)i);
    b->freed = 1;
    return 0;
}

static PyObject *py_free(PyObject *self, PyObject *obj)
{
    (void)self;
    if (sp_block_free("free", obj) < 0) return NULL;
    Py_RETURN_NONE;
}

/* ---- Symmetric arrays -------------------------------------------------------- */

static PyObject *SymArray_free(PyObject *self, PyObject *noargs)
{
    (void)noargs;
    if (sp_block_free("SymmetricArray.free", self) < 0) return NULL;
    Py_RETURN_NONE;
}

PyObject *sp_return_self(PyObject *self, PyObject *noargs)
{
    (void)noargs;
    Py_INCREF(self);
    return self;
}

int sp_block_alive(PyObject *obj)
{
    Block *b = block_of(obj);
    return b && !b->freed && b->epoch == symheap_py.epoch && symheap_py.inited;
}

static PyObject *SymArray_exit(PyObject *self, PyObject *args)
{
    (void)args;
    if (sp_block_alive(self) && sp_block_free("SymmetricArray.__exit__", self) < 0)
        return NULL;
    Py_RETURN_FALSE;
}

/* Results NumPy computes from a symmetric array (a + 1, a.copy()) are plain
 * arrays: only views of the block stay SymmetricArray. */
static PyObject *SymArray_array_wrap(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = { "array", "context", "return_scalar", NULL };
    PyObject *arr, *context = Py_None;
    int scalar = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!|Op:__array_wrap__", kwlist, &PyArray_Type, &arr,
                                     &context, &scalar))
        return NULL;
    PyObject *r;
    if (block_of(arr)) {
        Py_INCREF(arr);
        r = arr;
    } else {
        r = PyArray_View((PyArrayObject *)arr, NULL, &PyArray_Type);
    }
    /* NumPy 2 asks for a scalar where a ufunc gave one (return_scalar). */
    return r && scalar && PyArray_NDIM((PyArrayObject *)r) == 0 ? PyArray_Return((PyArrayObject *)r) : r;
}

static PyMethodDef SymArray_methods[] = {
    { "free", SymArray_free, METH_NOARGS,
      "Free the symmetric block now (collective: every PE calls it)." },
    { "__enter__", sp_return_self, METH_NOARGS, NULL },
    { "__exit__", SymArray_exit, METH_VARARGS, "Free the block (collective)." },
    { "__array_wrap__", (PyCFunction)(void (*)(void))SymArray_array_wrap,
      METH_VARARGS | METH_KEYWORDS, NULL },
    { NULL, NULL, 0, NULL }
};

PyTypeObject SymArray_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "symheap.SymmetricArray",
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_methods = SymArray_methods,
    .tp_doc = "A NumPy array whose memory is a symmetric block (same address on every PE).\n"
              "Views keep the block alive; a.free() or `with` frees it at once (collective);\n"
              "dropping the last reference frees it at the next collective where every PE\n"
              "has dropped it.",
};

int sp_shape_bytes(const char *fn, PyArray_Dims *shape, size_t elsize, size_t *bytes)
{
    size_t n = elsize;
    for (int d = 0; d < shape->len; d++) {
        if (shape->ptr[d] < 0) {
            sp_raise(PyExc_ValueError, fn, "shape has a negative dimension (%zd); use sizes >= 0",
                     (Py_ssize_t)shape->ptr[d]);
            return -1;
        }
        if (shape->ptr[d] && n > SIZE_MAX / (size_t)shape->ptr[d]) {
            sp_raise(PyExc_ValueError, fn, "shape is too big: its size overflows size_t");
            return -1;
        }
        n *= (size_t)shape->ptr[d];
    }
    *bytes = n;
    return 0;
}

/* A symmetric array of shape/descr (descr stolen); NULL with an exception. */
static PyObject *new_array(const char *fn, PyArray_Dims *shape, PyArray_Descr *descr,
                           NPY_ORDER order, Py_ssize_t align, long hints, int clear)
{
    size_t n;
    if (sp_shape_bytes(fn, shape, (size_t)PyDataType_ELSIZE(descr), &n) < 0) {
        Py_DECREF(descr);
        return NULL;
    }
    Block *b = block_new(fn, n, align, hints, clear, 0);
    if (!b) {
        Py_DECREF(descr);
        return NULL;
    }
    int flags = NPY_ARRAY_WRITEABLE | NPY_ARRAY_ALIGNED |
                (order == NPY_FORTRANORDER ? NPY_ARRAY_F_CONTIGUOUS : NPY_ARRAY_C_CONTIGUOUS);
    PyObject *a = PyArray_NewFromDescr(&SymArray_Type, descr, shape->len, shape->ptr, NULL, b->ptr,
                                       flags, NULL);
    if (!a) {
        Py_DECREF(b); /* becomes garbage: freed at the next round */
        return NULL;
    }
    if (PyArray_SetBaseObject((PyArrayObject *)a, (PyObject *)b) < 0) {
        Py_DECREF(a);
        return NULL;
    }
    return a;
}

/* Keyword arguments every constructor takes: align, hints, kind. */
#define SP_CTOR_KW "align", "hints", "kind"

static int parse_order(PyObject *o, NPY_ORDER *order)
{
    if (!PyArray_OrderConverter(o, order)) return 0;
    if (*order != NPY_CORDER && *order != NPY_FORTRANORDER) *order = NPY_CORDER;
    return 1;
}

/* empty, zeros, ones: (shape, dtype=float, order='C', *, align, hints, kind) */
static PyObject *shaped(PyObject *args, PyObject *kw, const char *fn, int clear, int one)
{
    static char *kwlist[] = { "shape", "dtype", "order", SP_CTOR_KW, NULL };
    PyArray_Dims shape = { NULL, 0 };
    PyArray_Descr *descr = NULL;
    NPY_ORDER order = NPY_CORDER;
    Py_ssize_t align = 0;
    long hints = 0;
    const char *kind = NULL;
    char fmt[64];
    snprintf(fmt, sizeof fmt, "O&|O&O&$nlz:%s", fn);
    if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, kwlist, PyArray_IntpConverter, &shape,
                                     PyArray_DescrConverter2, &descr, parse_order, &order, &align,
                                     &hints, &kind))
        goto fail;
    int gpu = parse_kind(fn, kind);
    if (gpu < 0) goto fail;
    if (!descr) descr = PyArray_DescrFromType(NPY_DOUBLE);
    if (gpu) {
        PyObject *v1 = one ? PyLong_FromLong(1) : NULL;
        PyObject *a = one && !v1 ? NULL
                      : sp_gpu_array(fn, &shape, descr, align, hints, one ? v1 : clear ? NULL : Py_None);
        Py_XDECREF(v1);
        PyDimMem_FREE(shape.ptr);
        return a;
    }
    PyObject *a = new_array(fn, &shape, descr, order, align, hints, clear);
    descr = NULL;
    PyDimMem_FREE(shape.ptr);
    if (a && one) {
        PyObject *v = PyLong_FromLong(1);
        int rc = v ? PyArray_FillWithScalar((PyArrayObject *)a, v) : -1;
        Py_XDECREF(v);
        if (rc < 0) Py_CLEAR(a);
        else shmem_barrier_all();
    }
    return a;
fail:
    Py_XDECREF(descr);
    PyDimMem_FREE(shape.ptr);
    return NULL;
}

static PyObject *py_empty(PyObject *s, PyObject *a, PyObject *k) { (void)s; return shaped(a, k, "empty", 0, 0); }
static PyObject *py_zeros(PyObject *s, PyObject *a, PyObject *k) { (void)s; return shaped(a, k, "zeros", 1, 0); }
static PyObject *py_ones(PyObject *s, PyObject *a, PyObject *k) { (void)s; return shaped(a, k, "ones", 0, 1); }

/* A symmetric copy of src's shape and dtype, filled from src (NULL: zeros);
 * ends with a barrier so every PE's copy is ready. */
static PyObject *copy_of(const char *fn, PyArrayObject *src, PyArray_Descr *descr, int fill,
                         Py_ssize_t align, long hints)
{
    PyArray_Dims shape = { PyArray_DIMS(src), PyArray_NDIM(src) };
    NPY_ORDER order = PyArray_IS_F_CONTIGUOUS(src) && !PyArray_IS_C_CONTIGUOUS(src)
                      ? NPY_FORTRANORDER : NPY_CORDER;
    PyObject *a = new_array(fn, &shape, descr, order, align, hints, !fill);
    if (a && fill) {
        if (PyArray_CopyInto((PyArrayObject *)a, src) < 0) Py_CLEAR(a);
        else shmem_barrier_all();
    }
    return a;
}

/* array and like: a symmetric array shaped like obj, with obj's values (fill)
 * or zeros; dtype (stolen) defaults to obj's. */
static PyObject *shaped_like(const char *fn, PyObject *obj, PyArray_Descr *descr, int fill,
                             Py_ssize_t align, long hints, const char *kind)
{
    /* A GPU array's shape and dtype are its shadow's; its values need a host copy. */
    int from_gpu = Py_IS_TYPE(obj, &GpuArray_Type);
    int gpu = parse_kind(fn, kind ? kind : from_gpu ? "gpu" : "host");
    PyObject *host = NULL;
    if (gpu >= 0 && from_gpu)
        host = fill ? PyObject_CallMethod(obj, "to_numpy", NULL) : Py_NewRef(sp_gpu_shadow(obj));
    if (gpu < 0 || (from_gpu && !host)) {
        Py_XDECREF(descr);
        return NULL;
    }
    PyArrayObject *src = (PyArrayObject *)PyArray_FromAny(host ? host : obj, fill ? descr : NULL,
                                                          0, 0, 0, NULL);
    Py_XDECREF(host);
    if (!src) {
        if (!fill) Py_XDECREF(descr);
        return NULL;
    }
    if (fill || !descr) {
        descr = PyArray_DESCR(src);
        Py_INCREF(descr);
    }
    PyObject *a;
    if (gpu) {
        PyArray_Dims shape = { PyArray_DIMS(src), PyArray_NDIM(src) };
        a = sp_gpu_array(fn, &shape, descr, align, hints, fill ? (PyObject *)src : NULL);
    } else {
        a = copy_of(fn, src, descr, fill, align, hints);
    }
    Py_DECREF(src);
    return a;
}

/* array(obj, dtype=None, *, order='K', align, hints, kind): like numpy.array. */
static PyObject *py_array(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = { "obj", "dtype", "order", SP_CTOR_KW, NULL };
    PyObject *obj, *order_o = NULL;
    PyArray_Descr *descr = NULL;
    Py_ssize_t align = 0;
    long hints = 0;
    const char *kind = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O&$Onlz:array", kwlist, &obj,
                                     PyArray_DescrConverter2, &descr, &order_o, &align, &hints,
                                     &kind))
        return NULL;
    return shaped_like("array", obj, descr, 1, align, hints, kind);
}

/* full(shape, fill_value, dtype=None, order='C', *, align, hints, kind) */
static PyObject *py_full(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = { "shape", "fill_value", "dtype", "order", SP_CTOR_KW, NULL };
    PyArray_Dims shape = { NULL, 0 };
    PyObject *fill;
    PyArray_Descr *descr = NULL;
    NPY_ORDER order = NPY_CORDER;
    Py_ssize_t align = 0;
    long hints = 0;
    const char *kind = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&O|O&O&$nlz:full", kwlist, PyArray_IntpConverter,
                                     &shape, &fill, PyArray_DescrConverter2, &descr, parse_order,
                                     &order, &align, &hints, &kind))
        goto fail;
    int gpu = parse_kind("full", kind);
    if (gpu < 0) goto fail;
    if (!descr) {
        PyArrayObject *v = (PyArrayObject *)PyArray_FromAny(fill, NULL, 0, 0, 0, NULL);
        if (!v) goto fail;
        descr = PyArray_DESCR(v);
        Py_INCREF(descr);
        Py_DECREF(v);
    }
    if (gpu) {
        PyObject *a = sp_gpu_array("full", &shape, descr, align, hints, fill);
        PyDimMem_FREE(shape.ptr);
        return a;
    }
    PyObject *a = new_array("full", &shape, descr, order, align, hints, 0);
    PyDimMem_FREE(shape.ptr);
    if (a) {
        PyArrayObject *v = (PyArrayObject *)PyArray_FromAny(fill, NULL, 0, 0, 0, NULL);
        if (!v || PyArray_CopyInto((PyArrayObject *)a, v) < 0) Py_CLEAR(a);
        else shmem_barrier_all();
        Py_XDECREF(v);
    }
    return a;
fail:
    Py_XDECREF(descr);
    PyDimMem_FREE(shape.ptr);
    return NULL;
}

/* like(a, dtype=None, *, align, hints, kind): zeros of a's shape (and dtype). */
static PyObject *py_like(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = { "a", "dtype", SP_CTOR_KW, NULL };
    PyObject *obj;
    PyArray_Descr *descr = NULL;
    Py_ssize_t align = 0;
    long hints = 0;
    const char *kind = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O&$nlz:like", kwlist, &obj,
                                     PyArray_DescrConverter2, &descr, &align, &hints, &kind))
        return NULL;
    return shaped_like("like", obj, descr, 0, align, hints, kind);
}

/* alloc(count, size=1, align=None, hints=None, clear=True) -> memoryview (shmem4py) */
static PyObject *py_alloc(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = { "count", "size", "align", "hints", "clear", NULL };
    Py_ssize_t count, size = 1;
    PyObject *align_o = Py_None, *hints_o = Py_None;
    int clear = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "n|nOOp:alloc", kwlist, &count, &size, &align_o,
                                     &hints_o, &clear))
        return NULL;
    Py_ssize_t align = align_o == Py_None ? 0 : PyLong_AsSsize_t(align_o);
    long hints = hints_o == Py_None ? 0 : PyLong_AsLong(hints_o);
    if (PyErr_Occurred()) return NULL;
    if (count < 0 || size < 0 || (size && (size_t)count > SIZE_MAX / (size_t)size))
        return sp_raise(PyExc_ValueError, "alloc", "count=%zd, size=%zd: use sizes >= 0 whose "
                        "product fits in size_t", count, size);
    Block *b = block_new("alloc", (size_t)count * (size_t)size, align, hints, clear, 0);
    if (!b) return NULL;
    PyObject *mv = PyMemoryView_FromObject((PyObject *)b);
    Py_DECREF(b);
    return mv;
}

/* ---- Views of other PEs' copies -------------------------------------------- */

static PyObject *py_peer(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = { "a", "pe", NULL };
    PyObject *obj;
    long pe;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Ol:peer", kwlist, &obj, &pe)) return NULL;
    if (sp_ensure("peer") < 0) return NULL;
    if (Py_IS_TYPE(obj, &GpuArray_Type)) {
        if (sp_check_pe("peer", "pe", pe, symheap_py.npes) < 0) return NULL;
        return sp_gpu_peer(obj, (int)pe);
    }
    PyArrayObject *a = sp_array("peer", "a", obj, 0);
    if (!a || sp_check_pe("peer", "pe", pe, symheap_py.npes) < 0) return NULL;
    char *lo;
    size_t len;
    sp_extent(a, &lo, &len);
    if (sp_check_sym("peer", "a", lo, len) < 0) return NULL;
    void *p = shmem_ptr(PyArray_DATA(a), (int)pe);
    if (!p) Py_RETURN_NONE;
    PyArray_Descr *d = PyArray_DESCR(a);
    Py_INCREF(d);
    PyObject *v = PyArray_NewFromDescr(&PyArray_Type, d, PyArray_NDIM(a), PyArray_DIMS(a),
                                       PyArray_STRIDES(a), p,
                                       PyArray_FLAGS(a) & (NPY_ARRAY_WRITEABLE | NPY_ARRAY_ALIGNED),
                                       NULL);
    if (!v) return NULL;
    Py_INCREF(obj);
    if (PyArray_SetBaseObject((PyArrayObject *)v, obj) < 0) {
        Py_DECREF(v);
        return NULL;
    }
    return v;
}

/* ---- Queries ------------------------------------------------------------------ */

static PyObject *py_my_pe(PyObject *s, PyObject *n)
{
    (void)s, (void)n;
    return sp_ensure("my_pe") < 0 ? NULL : PyLong_FromLong(symheap_py.me);
}

static PyObject *py_n_pes(PyObject *s, PyObject *n)
{
    (void)s, (void)n;
    return sp_ensure("n_pes") < 0 ? NULL : PyLong_FromLong(symheap_py.npes);
}

static PyObject *py_heap_info(PyObject *s, PyObject *n)
{
    (void)s, (void)n;
    if (sp_ensure("heap_info") < 0) return NULL;
    shmemx_heap_info_t hi;
    shmemx_heap_info(&hi);
    return Py_BuildValue("{s:n,s:n,s:n,s:n,s:n,s:n,s:n,s:n}", "base", (Py_ssize_t)hi.base,
                         "size", (Py_ssize_t)hi.size, "used", (Py_ssize_t)hi.used, "free",
                         (Py_ssize_t)hi.free, "largest_free", (Py_ssize_t)hi.largest_free,
                         "peak_used", (Py_ssize_t)hi.peak_used, "live_blocks",
                         (Py_ssize_t)hi.live_blocks, "module_blocks", (Py_ssize_t)1);
}

static PyObject *py_heap_report(PyObject *s, PyObject *args)
{
    (void)s;
    const char *prefix = NULL;
    if (!PyArg_ParseTuple(args, "|z:heap_report", &prefix) || sp_ensure("heap_report") < 0)
        return NULL;
    if (shmemx_heap_report(prefix) != 0)
        return sp_raise(symheap_py_error, "heap_report", "could not write the report (the "
                        "line above says why); give a prefix in a writable directory");
    Py_RETURN_NONE;
}

static PyObject *py_info_get_version(PyObject *s, PyObject *n)
{
    (void)s, (void)n;
    int major, minor;
    shmem_info_get_version(&major, &minor);
    return Py_BuildValue("(ii)", major, minor);
}

static PyObject *py_info_get_name(PyObject *s, PyObject *n)
{
    (void)s, (void)n;
    char name[SHMEM_MAX_NAME_LEN + 1];
    shmem_info_get_name(name);
    return PyUnicode_FromString(name);
}

static PyObject *py_global_exit(PyObject *s, PyObject *args)
{
    (void)s;
    int status = 0;
    if (!PyArg_ParseTuple(args, "|i:global_exit", &status) || sp_ensure("global_exit") < 0)
        return NULL;
    fflush(NULL);
    shmem_global_exit(status);
    Py_RETURN_NONE;
}

static PyObject *py_initialized(PyObject *s, PyObject *n)
{
    (void)s, (void)n;
    return PyBool_FromLong(symheap_py.inited);
}

static PyMethodDef module_methods[] = {
    SP_KW("init", py_init, "init(*, uid=None, rank=None, nranks=None, initializer_method=None, device=None): "
          "start symheap (done on first use anyway); with uid from get_uniqueid(), as rank of nranks."),
    SP_KW("get_uniqueid", py_get_uniqueid, "get_uniqueid(empty=False) -> bytes: an ID for init(uid=...); "
          "this process must live until every PE has finalized."),
    SP_KW("get_unique_id", py_get_uniqueid, "get_unique_id(empty=False): the same as get_uniqueid (NVSHMEM4Py's name)."),
    { "finalize", py_finalize, METH_NOARGS, "Free every block left and stop symheap (collective)." },
    { "initialized", py_initialized, METH_NOARGS, "Whether symheap is started." },
    { "my_pe", py_my_pe, METH_NOARGS, "This PE's number." },
    { "n_pes", py_n_pes, METH_NOARGS, "The number of PEs." },
    { "info_get_version", py_info_get_version, METH_NOARGS, "OpenSHMEM version (major, minor)." },
    { "info_get_name", py_info_get_name, METH_NOARGS, "The library's name." },
    { "global_exit", py_global_exit, METH_VARARGS, "End every PE with status." },
    SP_KW("empty", py_empty, "empty(shape, dtype=float, order='C', *, align=None, hints=None, kind='host')"),
    SP_KW("zeros", py_zeros, "zeros(shape, dtype=float, order='C', *, align=None, hints=None, kind='host')"),
    SP_KW("ones", py_ones, "ones(shape, dtype=float, order='C', *, align=None, hints=None, kind='host')"),
    SP_KW("full", py_full, "full(shape, fill_value, dtype=None, order='C', *, align=None, hints=None, kind='host')"),
    SP_KW("array", py_array, "array(obj, dtype=None, *, order='K', align=None, hints=None, kind='host'): a symmetric copy"),
    SP_KW("like", py_like, "like(a, dtype=None, *, align=None, hints=None, kind='host'): zeros shaped like a"),
    SP_KW("alloc", py_alloc, "alloc(count, size=1, align=None, hints=None, clear=True) -> memoryview of a symmetric block"),
    { "free", py_free, METH_O, "free(a): free a symmetric array or alloc() memoryview now (collective)." },
    { "collect_garbage", py_collect_garbage, METH_NOARGS,
      "Free the blocks every PE has dropped (collective); returns how many." },
    { "pending_frees", py_pending_frees, METH_NOARGS,
      "Addresses of blocks dropped on this PE and not freed yet." },
    SP_KW("peer", py_peer, "peer(a, pe): a view of PE pe's copy of a when mapped here, else None."),
    SP_KW("ptr", py_peer, "ptr(a, pe): the same as peer (shmem4py's name)."),
    { "heap_info", py_heap_info, METH_NOARGS, "This PE's symmetric heap occupancy (dict)." },
    { "heap_report", py_heap_report, METH_VARARGS, "heap_report(prefix=None): write the heap report." },
    { NULL, NULL, 0, NULL }
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "symheap",
    "Symmetric memory for Python: NumPy arrays at the same address on every PE\n"
    "(shmem4py's names; see docs/python.md).  Start with `symrun -n 4 python3 app.py`.",
    -1, module_methods, NULL, NULL, NULL, NULL
};

/* At exit (Python's atexit, before objects go): finalize, collectively.  After
 * an uncaught exception (sys.last_value set, not an interactive session) the
 * other PEs would wait for this one in their next collective: end the job. */
static PyObject *py_atexit(PyObject *self, PyObject *noargs)
{
    if (!symheap_py.inited) Py_RETURN_NONE;
    if (PySys_GetObject("last_value") && !PySys_GetObject("ps1")) {
        fprintf(stderr, "[pe %d] symheap: an uncaught Python exception (above) ended this PE; "
                "ending the job (shmem_global_exit(1)), since the other PEs would wait for it\n",
                symheap_py.me);
        fflush(NULL);
        shmem_global_exit(1);
    }
    return py_finalize(self, noargs);
}

static PyMethodDef atexit_def = { "_atexit", py_atexit, METH_NOARGS, NULL };

static int register_atexit(void)
{
    PyObject *fin = PyCFunction_NewEx(&atexit_def, NULL, NULL);
    PyObject *atexit = PyImport_ImportModule("atexit");
    PyObject *r = fin && atexit ? PyObject_CallMethod(atexit, "register", "O", fin) : NULL;
    Py_XDECREF(fin);
    Py_XDECREF(atexit);
    Py_XDECREF(r);
    return r ? 0 : -1;
}

PyMODINIT_FUNC PyInit_symheap(void)
{
    import_array();
    SymArray_Type.tp_base = &PyArray_Type;
    if (PyType_Ready(&Block_Type) < 0 || PyType_Ready(&SymArray_Type) < 0) return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m) return NULL;
    symheap_py_error = PyErr_NewExceptionWithDoc("symheap.Error",
        "symheap could not do what was asked (the message says why and what to do)",
        PyExc_RuntimeError, NULL);
    if (!symheap_py_error || PyModule_AddObjectRef(m, "Error", symheap_py_error) < 0 ||
        PyModule_AddObjectRef(m, "SymmetricArray", (PyObject *)&SymArray_Type) < 0 ||
        PyModule_AddObjectRef(m, "Block", (PyObject *)&Block_Type) < 0 ||
        symheap_gpu_init(m) < 0 ||
        PyModule_AddIntConstant(m, "MALLOC_ATOMICS_REMOTE", SHMEM_MALLOC_ATOMICS_REMOTE) < 0 ||
        PyModule_AddIntConstant(m, "MALLOC_SIGNAL_REMOTE", SHMEM_MALLOC_SIGNAL_REMOTE) < 0 ||
        PyModule_AddStringConstant(m, "__version__", SYMHEAP_PY_VERSION) < 0 ||
        PyModule_AddFunctions(m, symheap_ops_methods) < 0 || symheap_ops_init(m) < 0 ||
        register_atexit() < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
