/* symheap_gpu.c - GPU arrays of the Python module (issue 18, docs/python.md):
 * symheap.GpuArray, memory from the GPU symmetric heap (the same address on
 * every PE, every peer's copy mapped here), exported to PyTorch, CuPy and
 * the rest through DLPack (__dlpack__, __dlpack_device__) and
 * __cuda_array_interface__ (version 3), without a copy.
 *
 * No CUDA header or library is needed to build it: the library loads CUDA
 * at run time, and the operations on GPU memory are its host API (copy
 * engines).  The CPU never reads or writes the memory: a GpuArray's shadow
 * is an ndarray over the GPU address that only carries the data pointer,
 * shape and dtype to the operations of symheap_ops.c.
 *
 * Lifetime: the shadow's base is the Block that owns the symmetric block, so
 * an array, its peer views (whose shadow's base is the array) and every
 * DLPack capsule taken from either (its manager_ctx holds the array) keep the
 * block alive; when all are gone the block is freed at the next collective
 * where every PE has dropped it, as host arrays are. */
#define NO_IMPORT_ARRAY
#include "symheap_py.h"

#include <stdlib.h>
#include <string.h>

/* ---- DLPack's ABI (github:dmlc/dlpack, include/dlpack/dlpack.h: the
 * unversioned DLManagedTensor every consumer takes) -------------------------- */

typedef struct {
    int32_t device_type;
    int32_t device_id;
} DLDevice;

typedef struct {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} DLDataType;

typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides; /* in elements */
    uint64_t byte_offset;
} DLTensor;

typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

enum { kDLCUDA = 2 };
enum { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLComplex = 5, kDLBool = 6 };

/* ---- The GPU heap -------------------------------------------------------------- */

/* What the library publishes once the GPU heap exists: this PE's device. */
static shmemx_gpu_state_t gpu_state;
static int registered;

static void publish(const shmemx_gpu_state_t *st) { gpu_state = *st; }

int sp_gpu_ready(const char *fn)
{
    if (sp_ensure(fn) < 0) return -1;
    if (symheap_py.gpu_epoch != symheap_py.epoch) { /* a new init asks again */
        symheap_py.gpu = 0;
        symheap_py.gpu_epoch = symheap_py.epoch;
    }
    if (symheap_py.gpu == 0 && getenv("SYMHEAP_PY_TEST_FAKE_GPU")) {
        /* Tests on machines without a GPU: "GPU" arrays on host memory, so
         * that everything but the device itself (the DLPack and CAI exports,
         * peer views, staging, lifetimes) runs in CI.  Never for real work. */
        symheap_py.gpu = 2;
    }
    if (symheap_py.gpu == 0) {
        /* The heap appears at the first allocation that wants it: one byte,
         * collective (every PE is in this constructor), gives the answer on
         * every PE alike (the library sets it up only when every PE has a GPU). */
        if (!shmemx_gpu_available()) {
            void *p = shmem_malloc_with_hints(1, SHMEMX_MALLOC_DEVICE);
            if (p) shmem_free(p);
        }
        symheap_py.gpu = shmemx_gpu_available() ? 1 : -1;
        if (symheap_py.gpu == 1 && !registered) {
            registered = 1;
            shmemx_gpu_register(publish, SHMEMX_GPU_STATE_VERSION); /* publishes at once */
        }
    }
    if (symheap_py.gpu > 0) return 0;
    sp_raise(symheap_py_error, fn, "kind='gpu': there is no GPU symmetric heap (it needs a "
             "usable GPU on every PE; PE 0's warning above says what is missing, e.g. the "
             "CUDA driver or SHMEM_GPU=0); use kind='host', or run where every PE sees a GPU");
    return -1;
}

/* ---- GpuArray -------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    PyObject *shadow; /* ndarray over the GPU address (never dereferenced by the CPU) */
    void *sym;        /* the symmetric address (this PE's copy) */
    int pe;           /* -1: this PE's copy; else a view of PE pe's copy */
} GpuArray;

PyObject *sp_gpu_shadow(PyObject *a) { return ((GpuArray *)a)->shadow; }

static PyArrayObject *shadow_of(GpuArray *g) { return (PyArrayObject *)g->shadow; }

static PyObject *gpu_wrap(PyObject *shadow, void *sym, int pe)
{
    GpuArray *g = PyObject_New(GpuArray, &GpuArray_Type);
    if (!g) {
        Py_DECREF(shadow);
        return NULL;
    }
    g->shadow = shadow;
    g->sym = sym;
    g->pe = pe;
    return (PyObject *)g;
}

static void GpuArray_dealloc(GpuArray *g)
{
    Py_XDECREF(g->shadow); /* the last reference: the block becomes pending */
    PyObject_Free(g);
}

/* 0 while the array's block is allocated, else -1 with symheap.Error. */
static int alive(const char *fn, GpuArray *g)
{
    if (sp_block_alive((PyObject *)g)) return 0;
    sp_raise(symheap_py_error, fn, "the GPU array at %p was freed (a.free(), `with`, or "
             "symheap.finalize); make a new one", g->sym);
    return -1;
}

static int device_id(void) { return (int)gpu_state.device; }

PyObject *sp_gpu_array(const char *fn, PyArray_Dims *shape, PyArray_Descr *descr,
                       Py_ssize_t align, long hints, PyObject *fill)
{
    /* Values first (a bad fill raises on this PE before the collective). */
    PyArrayObject *host = NULL;
    size_t n;
    if (sp_shape_bytes(fn, shape, (size_t)PyDataType_ELSIZE(descr), &n) < 0) {
        Py_DECREF(descr);
        return NULL;
    }
    if (fill && fill != Py_None) {
        Py_INCREF(descr);
        host = (PyArrayObject *)PyArray_Empty(shape->len, shape->ptr, descr, 0);
        PyArrayObject *v = host ? (PyArrayObject *)PyArray_FromAny(fill, NULL, 0, 0, 0, NULL) : NULL;
        if (!v || PyArray_CopyInto(host, v) < 0) {
            Py_XDECREF(v);
            Py_XDECREF(host);
            Py_DECREF(descr);
            return NULL;
        }
        Py_DECREF(v);
    }
    void *p;
    PyObject *b = sp_block_new(fn, n, align, hints, fill == NULL, 1, &p);
    if (!b) {
        Py_XDECREF(host);
        Py_DECREF(descr);
        return NULL;
    }
    PyObject *shadow = PyArray_NewFromDescr(&PyArray_Type, descr, shape->len, shape->ptr, NULL,
                                            p, NPY_ARRAY_WRITEABLE | NPY_ARRAY_ALIGNED |
                                            NPY_ARRAY_C_CONTIGUOUS, NULL);
    if (!shadow || PyArray_SetBaseObject((PyArrayObject *)shadow, b) < 0) {
        if (!shadow) Py_DECREF(b);
        Py_XDECREF(shadow);
        Py_XDECREF(host);
        return NULL;
    }
    if (host) {
        /* Into this PE's copy through the copy engines; then every copy is ready. */
        if (n) shmem_putmem(p, PyArray_DATA(host), n, symheap_py.me);
        Py_DECREF(host);
        shmem_barrier_all();
    }
    return gpu_wrap(shadow, p, -1);
}

PyObject *sp_gpu_peer(PyObject *obj, int pe)
{
    GpuArray *g = (GpuArray *)obj;
    if (g->pe >= 0)
        return sp_raise(PyExc_ValueError, "peer", "a is already a view of PE %d's copy; pass "
                        "the array itself", g->pe);
    if (alive("peer", g) < 0) return NULL;
    void *p = shmem_ptr(g->sym, pe);
    if (!p) Py_RETURN_NONE;
    PyArrayObject *s = shadow_of(g);
    PyArray_Descr *d = PyArray_DESCR(s);
    Py_INCREF(d);
    PyObject *v = PyArray_NewFromDescr(&PyArray_Type, d, PyArray_NDIM(s), PyArray_DIMS(s),
                                       PyArray_STRIDES(s), p,
                                       NPY_ARRAY_WRITEABLE | NPY_ARRAY_ALIGNED, NULL);
    if (!v) return NULL;
    Py_INCREF(obj);
    if (PyArray_SetBaseObject((PyArrayObject *)v, obj) < 0) {
        Py_DECREF(v);
        return NULL;
    }
    return gpu_wrap(v, g->sym, pe);
}

/* ---- Attributes -------------------------------------------------------------------- */

/* shape, dtype, ndim, size, nbytes, itemsize, strides: the shadow's. */
static PyObject *GpuArray_shadow_attr(GpuArray *g, void *name)
{
    return PyObject_GetAttrString(g->shadow, (const char *)name);
}

static PyObject *GpuArray_ptr(GpuArray *g, void *c)
{
    (void)c;
    return PyLong_FromVoidPtr(PyArray_DATA(shadow_of(g)));
}

static PyObject *GpuArray_device(GpuArray *g, void *c)
{
    (void)g, (void)c;
    return PyLong_FromLong(device_id());
}

static PyObject *GpuArray_pe(GpuArray *g, void *c)
{
    (void)c;
    if (g->pe < 0) Py_RETURN_NONE;
    return PyLong_FromLong(g->pe);
}

/* __cuda_array_interface__, version 3 (Numba's specification): contiguous,
 * so strides None; no stream key: the host calls that wrote the memory have
 * completed when they return. */
static PyObject *GpuArray_cai(GpuArray *g, void *c)
{
    (void)c;
    if (alive("__cuda_array_interface__", g) < 0) return NULL;
    PyArrayObject *s = shadow_of(g);
    PyObject *shape = PyObject_GetAttrString(g->shadow, "shape");
    PyObject *typestr = PyObject_GetAttrString((PyObject *)PyArray_DESCR(s), "str");
    if (!shape || !typestr) {
        Py_XDECREF(shape);
        Py_XDECREF(typestr);
        return NULL;
    }
    PyObject *d = Py_BuildValue("{s:N,s:O,s:[(s,O)],s:(N,O),s:i,s:O}", "shape", shape, "typestr",
                                typestr, "descr", "", typestr, "data",
                                PyLong_FromVoidPtr(PyArray_DATA(s)), Py_False, "version", 3,
                                "strides", Py_None);
    Py_DECREF(typestr);
    return d;
}

/* ---- DLPack ------------------------------------------------------------------------- */

/* A managed tensor with its shape and strides in the same allocation. */
struct dl_holder {
    DLManagedTensor m;
    int64_t dims[2 * NPY_MAXDIMS];
};

static void dl_deleter(DLManagedTensor *m)
{
    /* Called by the consumer, perhaps without the GIL (PyTorch frees tensors
     * from any thread). */
    if (!Py_IsInitialized()) { /* a tensor outliving the interpreter */
        free(m);
        return;
    }
    PyGILState_STATE st = PyGILState_Ensure();
    Py_XDECREF((PyObject *)m->manager_ctx);
    PyGILState_Release(st);
    free(m);
}

/* The capsule dropped unconsumed (still named "dltensor"): free it here. */
static void dl_capsule_destructor(PyObject *cap)
{
    if (!PyCapsule_IsValid(cap, "dltensor")) return; /* "used_dltensor": the consumer's */
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    DLManagedTensor *m = PyCapsule_GetPointer(cap, "dltensor");
    if (m && m->deleter) m->deleter(m);
    PyErr_Restore(type, value, tb);
}

static int dl_dtype(PyArrayObject *s, DLDataType *t)
{
    PyArray_Descr *d = PyArray_DESCR(s);
    int code;
    switch (d->kind) {
    case 'i': code = kDLInt; break;
    case 'u': code = kDLUInt; break;
    case 'f': code = kDLFloat; break;
    case 'c': code = kDLComplex; break;
    case 'b': code = kDLBool; break;
    default: return -1;
    }
    if (!PyArray_ISNBO(d->byteorder) || PyDataType_ELSIZE(d) > 32) return -1;
    *t = (DLDataType){ (uint8_t)code, (uint8_t)(PyDataType_ELSIZE(d) * 8), 1 };
    return 0;
}

/* __dlpack__(stream=None, *, max_version=None, dl_device=None, copy=None)
 * (stream may come by position: older consumers pass it so):
 * a "dltensor" capsule of the unversioned ABI (what the array API allows a
 * producer without the versioned one to give for any max_version).  stream:
 * the memory is complete when the host calls that wrote it return, so there
 * is nothing to order after; any value is accepted. */
static PyObject *GpuArray_dlpack(GpuArray *g, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "stream", "max_version", "dl_device", "copy", NULL };
    PyObject *stream = Py_None, *maxv = Py_None, *dev = Py_None, *copy = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O$OOO:__dlpack__", kwlist, &stream, &maxv, &dev,
                                     &copy))
        return NULL;
    if (alive("__dlpack__", g) < 0) return NULL;
    if (copy == Py_True)
        return sp_raise(PyExc_BufferError, "__dlpack__", "copy=True: a GpuArray exports its "
                        "own memory only; copy on the consumer's side (torch.from_dlpack(a)"
                        ".clone())");
    if (dev != Py_None) {
        int t = -1, id = -1;
        if (!PyArg_ParseTuple(dev, "ii", &t, &id)) return NULL;
        if (t != kDLCUDA || id != device_id())
            return sp_raise(PyExc_BufferError, "__dlpack__", "dl_device=(%d, %d): the array "
                            "is on (%d, %d) (kDLCUDA, GPU %d) and is not copied", t, id,
                            kDLCUDA, device_id(), device_id());
    }
    PyArrayObject *s = shadow_of(g);
    DLDataType dt;
    if (dl_dtype(s, &dt) < 0)
        return sp_raise(PyExc_BufferError, "__dlpack__", "dtype %s has no DLPack type; use "
                        "integers, floats, complex or bool", sp_dtype_name(s));
    struct dl_holder *h = calloc(1, sizeof *h);
    if (!h) return PyErr_NoMemory();
    int nd = PyArray_NDIM(s);
    int64_t *shape = h->dims, *strides = h->dims + NPY_MAXDIMS;
    for (int i = 0; i < nd; i++) {
        shape[i] = PyArray_DIM(s, i);
        strides[i] = PyArray_STRIDE(s, i) / PyArray_ITEMSIZE(s);
    }
    h->m.dl_tensor = (DLTensor){ PyArray_DATA(s), { kDLCUDA, device_id() }, nd, dt, shape,
                                 strides, 0 };
    h->m.manager_ctx = g;
    h->m.deleter = dl_deleter;
    Py_INCREF(g); /* the consumer's tensor keeps the block alive */
    PyObject *cap = PyCapsule_New(&h->m, "dltensor", dl_capsule_destructor);
    if (!cap) {
        Py_DECREF(g);
        free(h);
    }
    return cap;
}

static PyObject *GpuArray_dlpack_device(GpuArray *g, PyObject *noargs)
{
    (void)g, (void)noargs;
    return Py_BuildValue("(ii)", kDLCUDA, device_id());
}

/* ---- Methods ------------------------------------------------------------------------ */

/* A host copy (NumPy), through the copy engines. */
static PyObject *GpuArray_to_numpy(GpuArray *g, PyObject *noargs)
{
    (void)noargs;
    if (alive("GpuArray.to_numpy", g) < 0) return NULL;
    PyArrayObject *s = shadow_of(g);
    PyArray_Descr *d = PyArray_DESCR(s);
    Py_INCREF(d);
    PyObject *h = PyArray_Empty(PyArray_NDIM(s), PyArray_DIMS(s), d, 0);
    size_t n = (size_t)PyArray_NBYTES(s);
    if (h && n)
        shmem_getmem(PyArray_DATA((PyArrayObject *)h), g->sym, n,
                     g->pe < 0 ? symheap_py.me : g->pe);
    return h;
}

static PyObject *GpuArray_free(GpuArray *g, PyObject *noargs)
{
    (void)noargs;
    if (g->pe >= 0)
        return sp_raise(PyExc_ValueError, "GpuArray.free", "this is a view of PE %d's copy; "
                        "free the array itself (collectively, on every PE)", g->pe);
    if (sp_block_free("GpuArray.free", (PyObject *)g) < 0) return NULL;
    Py_RETURN_NONE;
}

static PyObject *GpuArray_exit(GpuArray *g, PyObject *args)
{
    (void)args;
    if (g->pe < 0 && sp_block_alive((PyObject *)g) &&
        sp_block_free("GpuArray.__exit__", (PyObject *)g) < 0)
        return NULL;
    Py_RETURN_FALSE;
}

static PyObject *GpuArray_repr(GpuArray *g)
{
    PyArrayObject *s = shadow_of(g);
    PyObject *shape = PyObject_GetAttrString(g->shadow, "shape");
    if (!shape) return NULL;
    PyObject *r = g->pe < 0
        ? PyUnicode_FromFormat("<symheap.GpuArray shape=%R dtype=%s at %p on GPU %d>", shape,
                               sp_dtype_name(s), PyArray_DATA(s), device_id())
        : PyUnicode_FromFormat("<symheap.GpuArray shape=%R dtype=%s: PE %d's copy, mapped at %p "
                               "on GPU %d>", shape, sp_dtype_name(s), g->pe, PyArray_DATA(s),
                               device_id());
    Py_DECREF(shape);
    return r;
}

static Py_ssize_t GpuArray_len(GpuArray *g)
{
    PyArrayObject *s = shadow_of(g);
    if (PyArray_NDIM(s) == 0) {
        PyErr_SetString(PyExc_TypeError, "len() of a 0-d GpuArray");
        return -1;
    }
    return PyArray_DIM(s, 0);
}

static PyMethodDef GpuArray_methods[] = {
    { "__dlpack__", (PyCFunction)(void (*)(void))GpuArray_dlpack, METH_VARARGS | METH_KEYWORDS,
      "__dlpack__(stream=None, *, max_version=None, dl_device=None, copy=None): a DLPack capsule "
      "of this memory (no copy)." },
    { "__dlpack_device__", (PyCFunction)GpuArray_dlpack_device, METH_NOARGS,
      "(kDLCUDA=2, device id)" },
    { "to_numpy", (PyCFunction)GpuArray_to_numpy, METH_NOARGS, "A host copy as a NumPy array." },
    { "free", (PyCFunction)GpuArray_free, METH_NOARGS,
      "Free the symmetric block now (collective: every PE calls it)." },
    { "__enter__", sp_return_self, METH_NOARGS, NULL },
    { "__exit__", (PyCFunction)GpuArray_exit, METH_VARARGS, "Free the block (collective)." },
    { NULL, NULL, 0, NULL }
};

#define SHADOW_ATTR(name, doc) { name, (getter)GpuArray_shadow_attr, NULL, doc, name }
static PyGetSetDef GpuArray_getset[] = {
    SHADOW_ATTR("shape", "tuple of dimensions"),
    SHADOW_ATTR("dtype", "NumPy dtype of the elements"),
    SHADOW_ATTR("ndim", "number of dimensions"),
    SHADOW_ATTR("size", "number of elements"),
    SHADOW_ATTR("nbytes", "bytes"),
    SHADOW_ATTR("itemsize", "bytes of one element"),
    SHADOW_ATTR("strides", "bytes between elements, per dimension"),
    { "ptr", (getter)GpuArray_ptr, NULL, "the GPU address (the same on every PE; a peer view: "
      "where PE pe's copy is mapped here)", NULL },
    { "device", (getter)GpuArray_device, NULL, "CUDA device ordinal of this PE", NULL },
    { "pe", (getter)GpuArray_pe, NULL, "None, or the PE whose copy this view shows", NULL },
    { "__cuda_array_interface__", (getter)GpuArray_cai, NULL, "CUDA Array Interface v3", NULL },
    { NULL, NULL, NULL, NULL, NULL }
};

static PySequenceMethods GpuArray_as_sequence = { .sq_length = (lenfunc)GpuArray_len };

PyTypeObject GpuArray_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "symheap.GpuArray",
    .tp_basicsize = sizeof(GpuArray),
    .tp_dealloc = (destructor)GpuArray_dealloc,
    .tp_repr = (reprfunc)GpuArray_repr,
    .tp_as_sequence = &GpuArray_as_sequence,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = GpuArray_methods,
    .tp_getset = GpuArray_getset,
    .tp_doc = "GPU memory from the GPU symmetric heap (same address on every PE), made by\n"
              "symheap.zeros/empty/ones/full/array/like(..., kind='gpu').  torch.from_dlpack(a)\n"
              "and cupy.asarray(a) use it without a copy; symheap's put/get/broadcast/reduce...\n"
              "take it; symheap.peer(a, pe) views PE pe's copy.",
};

int symheap_gpu_init(PyObject *m)
{
    if (PyType_Ready(&GpuArray_Type) < 0) return -1;
    return PyModule_AddObjectRef(m, "GpuArray", (PyObject *)&GpuArray_Type);
}
