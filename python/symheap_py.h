/* symheap_py.h - what the two halves of the Python module share.
 *
 * symheapmodule.c: start-up, symmetric blocks and arrays, the registry of
 * blocks and the collective garbage collection (docs/python.md).
 * symheap_ops.c: RMA, atomics, waits, signals, collectives, teams.
 *
 * Misuse is caught here, before a call into the library would stop the PE:
 * each check raises a Python exception whose message is one line naming the
 * PE, the call, the values and the fix, like the library's own lines. */
#ifndef SYMHEAP_PY_H
#define SYMHEAP_PY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL symheap_py_ARRAY_API
#include <numpy/arrayobject.h>
/* NumPy 2 hides the descriptor's fields behind accessors (inline functions);
 * NumPy 1 has no accessor. */
#if NPY_ABI_VERSION < 0x02000000
#define PyDataType_ELSIZE(d) ((d)->elsize)
#endif

#include <shmem.h>
#include <shmemx.h>

#include <stddef.h>
#include <stdint.h>

/* The element types the module moves, from a NumPy dtype (pyt_of). */
enum pyt {
    PYT_NONE = -1,
    PYT_I8, PYT_I16, PYT_I32, PYT_I64,
    PYT_U8, PYT_U16, PYT_U32, PYT_U64,
    PYT_F32, PYT_F64, PYT_F128, PYT_C64, PYT_C128, PYT_BOOL,
    PYT_COUNT
};

/* Module state (one interpreter). */
struct pystate {
    int inited;        /* between init and finalize */
    int finalized;     /* finalize ran (an op then says so instead of starting again) */
    unsigned epoch;    /* bumped by finalize: blocks of an earlier epoch are gone */
    int me, npes;
    int gpu;           /* GPU heap: 0 not asked yet, 1 up, -1 none (this epoch);
                          2: SYMHEAP_PY_TEST_FAKE_GPU, "GPU" arrays on host memory */
    unsigned gpu_epoch;
};
extern struct pystate symheap_py;

extern PyTypeObject SymArray_Type; /* symheap.SymmetricArray, an ndarray subclass */
extern PyTypeObject Team_Type;     /* symheap.Team */
extern PyObject *symheap_py_error; /* symheap.Error (RuntimeError) */

/* Start the library on first use; 0, or -1 with an exception (after finalize). */
int sp_ensure(const char *fn);
/* Raise exc with "[pe N] symheap.FN: MESSAGE". Returns NULL. */
PyObject *sp_raise(PyObject *exc, const char *fn, const char *fmt, ...);
/* 0 if 0 <= pe < npes, else -1 with ValueError. */
int sp_check_pe(const char *fn, const char *what, long pe, int npes);

/* A NumPy array argument: obj must be an ndarray (writable when write). */
PyArrayObject *sp_array(const char *fn, const char *what, PyObject *obj, int write);
enum pyt sp_pyt(PyArrayObject *a);
const char *sp_dtype_name(PyArrayObject *a);
/* The symmetric block holding [p, p + n): 0, or -1 with ValueError naming
 * what the memory is instead (and how to get a symmetric array). */
int sp_check_sym(const char *fn, const char *what, const void *p, size_t n);
/* Byte extent of a (first to last byte touched), whatever its strides. */
void sp_extent(PyArrayObject *a, char **lo, size_t *len);

/* A garbage-collection point: every PE is in a world-wide collective.  Frees
 * the blocks every PE has dropped; -1 with an exception only when the
 * library cannot be reached. */
int sp_gc_point(const char *fn);
/* Team argument: None or a Team; *world set when it is the world team. */
int sp_team(const char *fn, PyObject *obj, shmem_team_t *team, int *world);

/* __enter__ of the objects that free themselves on __exit__: returns self. */
PyObject *sp_return_self(PyObject *self, PyObject *noargs);

/* A method-table row of a function taking (args, kwargs). */
#define SP_KW(name, fn, doc) { name, (PyCFunction)(void (*)(void))fn, METH_VARARGS | METH_KEYWORDS, doc }

/* A new symmetric block (collective; GPU memory when gpu): the Block object
 * that owns it, *ptr its address; NULL with an exception. */
PyObject *sp_block_new(const char *fn, size_t nbytes, Py_ssize_t align, long hints, int clear,
                       int gpu, void **ptr);
/* Free the block under obj now (collective); 0, or -1 with an exception. */
int sp_block_free(const char *fn, PyObject *obj);
/* Whether the block under obj (an array, view, GpuArray...) is still allocated. */
int sp_block_alive(PyObject *obj);
/* Bytes of shape x elsize: 0, or -1 with ValueError (negative, overflow). */
int sp_shape_bytes(const char *fn, PyArray_Dims *shape, size_t elsize, size_t *bytes);

/* ---- GPU arrays (symheap_gpu.c) ----
 * symheap.GpuArray: GPU memory from the GPU symmetric heap, exported through
 * DLPack and __cuda_array_interface__.  Its shadow is an ndarray over the
 * same (GPU) address, giving the operations its data pointer, shape and
 * dtype; the CPU never reads or writes through it. */
extern PyTypeObject GpuArray_Type;
int symheap_gpu_init(PyObject *m);
/* 0 when every PE has a GPU heap (set up on first use, collective), else -1
 * with symheap.Error saying so. */
int sp_gpu_ready(const char *fn);
/* A GPU array of shape/descr (descr stolen): fill NULL zeros, Py_None
 * uninitialized, else values broadcast to the shape (then a barrier). */
PyObject *sp_gpu_array(const char *fn, PyArray_Dims *shape, PyArray_Descr *descr,
                       Py_ssize_t align, long hints, PyObject *fill);
/* Borrowed: the shadow ndarray of a GpuArray. */
PyObject *sp_gpu_shadow(PyObject *a);
/* A GpuArray viewing PE pe's copy of a where mapped, else None. */
PyObject *sp_gpu_peer(PyObject *a, int pe);
/* Whether obj is GPU memory of the module (a GpuArray). */
static inline int sp_is_gpu(PyObject *obj) { return Py_IS_TYPE(obj, &GpuArray_Type); }

/* Method tables of symheap_ops.c, appended to the module's. */
extern PyMethodDef symheap_ops_methods[];
int symheap_ops_init(PyObject *m);

#endif
