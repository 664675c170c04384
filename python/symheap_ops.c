/* symheap_ops.c - the operations of the Python module on symmetric arrays:
 * RMA (put/get, strided, p/g), atomics, waits, signals, ordering, teams and
 * collectives, with shmem4py's names and signatures (docs/python.md).
 *
 * Every argument is checked here first (NumPy array, dtype, symmetric, in
 * bounds, PE in range), so misuse raises a Python exception instead of
 * stopping the PE; what only the PEs together can see (a size that differs
 * across PEs) is still caught by the library's checked collectives. */
#define NO_IMPORT_ARRAY
#include "symheap_py.h"

#include <stdarg.h>
#include <string.h>

/* ---- Arguments ------------------------------------------------------------- */

PyArrayObject *sp_array(const char *fn, const char *what, PyObject *obj, int write)
{
    if (sp_is_gpu(obj)) obj = sp_gpu_shadow(obj); /* its address, shape and dtype */
    if (!PyArray_Check(obj)) {
        sp_raise(PyExc_TypeError, fn, "%s is a %s, not a NumPy array; pass an array (a "
                 "symmetric one from symheap.zeros/empty/array where the PEs share it)", what,
                 Py_TYPE(obj)->tp_name);
        return NULL;
    }
    PyArrayObject *a = (PyArrayObject *)obj;
    if (write && !PyArray_ISWRITEABLE(a)) {
        sp_raise(PyExc_ValueError, fn, "%s is read-only; pass a writable array", what);
        return NULL;
    }
    return a;
}

enum pyt sp_pyt(PyArrayObject *a)
{
    PyArray_Descr *d = PyArray_DESCR(a);
    if (!PyArray_ISNBO(d->byteorder)) return PYT_NONE;
    int sz = PyDataType_ELSIZE(d);
    switch (d->kind) {
    case 'b': return sz == 1 ? PYT_BOOL : PYT_NONE;
    case 'i': return sz == 1 ? PYT_I8 : sz == 2 ? PYT_I16 : sz == 4 ? PYT_I32 : sz == 8 ? PYT_I64 : PYT_NONE;
    case 'u': return sz == 1 ? PYT_U8 : sz == 2 ? PYT_U16 : sz == 4 ? PYT_U32 : sz == 8 ? PYT_U64 : PYT_NONE;
    case 'f':
        if (d->type_num == NPY_LONGDOUBLE) return PYT_F128;
        return sz == 4 ? PYT_F32 : sz == 8 ? PYT_F64 : PYT_NONE;
    case 'c':
        return d->type_num == NPY_CFLOAT ? PYT_C64 : d->type_num == NPY_CDOUBLE ? PYT_C128 : PYT_NONE;
    }
    return PYT_NONE;
}

const char *sp_dtype_name(PyArrayObject *a)
{
    static char buf[4][64];
    static int k;
    char *b = buf[k++ & 3];
    PyObject *s = PyObject_Str((PyObject *)PyArray_DESCR(a));
    const char *u = s ? PyUnicode_AsUTF8(s) : NULL;
    snprintf(b, 64, "%s", u ? u : "?");
    Py_XDECREF(s);
    PyErr_Clear();
    return b;
}

static int same_dtype(const char *fn, PyArrayObject *t, PyArrayObject *s)
{
    if (PyArray_EquivTypes(PyArray_DESCR(t), PyArray_DESCR(s))) return 0;
    sp_raise(PyExc_TypeError, fn, "target dtype %s and source dtype %s differ; convert one "
             "(e.g. source.astype(target.dtype))", sp_dtype_name(t), sp_dtype_name(s));
    return -1;
}

/* The array's bytes [data, data + n elements) must lie in a symmetric block. */
static int sym_elems(const char *fn, const char *what, PyArrayObject *a, size_t n)
{
    char *lo;
    size_t len;
    if (PyArray_IS_C_CONTIGUOUS(a)) {
        lo = PyArray_DATA(a);
        len = n * (size_t)PyArray_ITEMSIZE(a);
    } else {
        sp_extent(a, &lo, &len);
    }
    return sp_check_sym(fn, what, lo, len);
}

static int ensure_pe(const char *fn, long pe)
{
    if (sp_ensure(fn) < 0) return -1;
    return sp_check_pe(fn, "pe", pe, symheap_py.npes);
}

static int no_ctx(const char *fn, PyObject *ctx)
{
    if (!ctx || ctx == Py_None) return 0;
    sp_raise(PyExc_NotImplementedError, fn, "ctx=%s: contexts are not in the Python module; "
             "leave ctx=None (the default context)", Py_TYPE(ctx)->tp_name);
    return -1;
}

/* size=None or an int in [0, max]; *n set. */
static int parse_size(const char *fn, PyObject *size_o, size_t max, size_t *n)
{
    if (!size_o || size_o == Py_None) {
        *n = max;
        return 0;
    }
    Py_ssize_t v = PyLong_AsSsize_t(size_o);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v < 0 || (size_t)v > max) {
        sp_raise(PyExc_ValueError, fn, "size=%zd is out of range: the arrays hold %zu elements "
                 "(use 0..%zu)", v, max, max);
        return -1;
    }
    *n = (size_t)v;
    return 0;
}

static size_t min_sz(size_t a, size_t b) { return a < b ? a : b; }

/* ---- RMA ------------------------------------------------------------------- */

typedef void (*imove_fn)(void *, const void *, ptrdiff_t, ptrdiff_t, size_t, int);

static imove_fn imove_of(size_t esz, int is_put)
{
    switch (esz) {
    case 1: return is_put ? shmem_iput8 : shmem_iget8;
    case 2: return is_put ? shmem_iput16 : shmem_iget16;
    case 4: return is_put ? shmem_iput32 : shmem_iget32;
    case 8: return is_put ? shmem_iput64 : shmem_iget64;
    case 16: return is_put ? shmem_iput128 : shmem_iget128;
    }
    return NULL;
}

/* 1-D with a positive stride that is a whole number of elements: its stride
 * in elements, else 0. */
static ptrdiff_t elem_stride(PyArrayObject *a)
{
    npy_intp esz = PyArray_ITEMSIZE(a);
    if (PyArray_NDIM(a) == 0) return 1;
    if (PyArray_NDIM(a) != 1) return PyArray_IS_C_CONTIGUOUS(a) ? 1 : 0;
    npy_intp st = PyArray_STRIDE(a, 0);
    if (PyArray_DIM(a, 0) <= 1) return 1;
    return st > 0 && st % esz == 0 ? (ptrdiff_t)(st / esz) : 0;
}

/* The arguments every put/get shares: target (writable) and source arrays of
 * one dtype, pe in range, size (default: what both hold). */
static int rma_args(const char *fn, PyObject *to, PyObject *so, long pe, PyObject *size_o,
                    PyObject *ctx, PyArrayObject **t, PyArrayObject **s, size_t *n)
{
    *t = sp_array(fn, "target", to, 1);
    *s = *t ? sp_array(fn, "source", so, 0) : NULL;
    if (!*s || no_ctx(fn, ctx) < 0 || same_dtype(fn, *t, *s) < 0 || ensure_pe(fn, pe) < 0)
        return -1;
    return parse_size(fn, size_o, min_sz((size_t)PyArray_SIZE(*t), (size_t)PyArray_SIZE(*s)), n);
}

/* stream=: None (0), or a CUDA stream handle (1): an int, or an object with
 * cuda_stream (PyTorch) or ptr (CuPy); -1 with TypeError. */
static int sp_stream(const char *fn, PyObject *o, struct CUstream_st **stream)
{
    *stream = NULL;
    if (!o || o == Py_None) return 0;
    PyObject *h = NULL;
    if (PyLong_Check(o)) h = Py_NewRef(o);
    else if (PyObject_HasAttrString(o, "cuda_stream")) h = PyObject_GetAttrString(o, "cuda_stream");
    else if (PyObject_HasAttrString(o, "ptr")) h = PyObject_GetAttrString(o, "ptr");
    int ok = h && PyLong_Check(h);
    void *p = ok ? PyLong_AsVoidPtr(h) : NULL;
    Py_XDECREF(h);
    if (PyErr_Occurred()) return -1;
    if (!ok) {
        sp_raise(PyExc_TypeError, fn, "stream is a %s; pass a CUDA stream handle (an int, "
                 "torch.cuda.Stream or cupy.cuda.Stream) or None", Py_TYPE(o)->tp_name);
        return -1;
    }
    *stream = p;
    return 1;
}

/* put/get/put_nbi/get_nbi(target, source, pe, size=None, ctx=None, stream=None) */
static PyObject *rma(PyObject *args, PyObject *kw, const char *fn, int is_put, int nbi)
{
    static char *kwlist[] = { "target", "source", "pe", "size", "ctx", "stream", NULL };
    PyObject *to, *so, *size_o = NULL, *ctx = NULL, *stream_o = NULL;
    long pe;
    char fmt[48];
    snprintf(fmt, sizeof fmt, "OOl|OO$O:%s", fn);
    if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, kwlist, &to, &so, &pe, &size_o, &ctx,
                                     &stream_o))
        return NULL;
    PyArrayObject *t, *s;
    size_t n;
    struct CUstream_st *stream;
    int on_stream = sp_stream(fn, stream_o, &stream);
    if (on_stream < 0 || rma_args(fn, to, so, pe, size_o, ctx, &t, &s, &n) < 0) return NULL;
    PyArrayObject *sym = is_put ? t : s, *loc = is_put ? s : t;
    if (sym_elems(fn, is_put ? "target" : "source", sym, n) < 0) return NULL;
    if (n == 0) Py_RETURN_NONE;
    size_t esz = (size_t)PyArray_ITEMSIZE(t);
    void *td = PyArray_DATA(t);
    const void *sd = PyArray_DATA(s);
    if (on_stream) {
        if (!PyArray_IS_C_CONTIGUOUS(t) || !PyArray_IS_C_CONTIGUOUS(s))
            return sp_raise(PyExc_ValueError, fn, "stream=: target and source must be "
                            "contiguous (the stream form moves one run of bytes)");
        if (is_put) shmemx_putmem_on_stream(td, sd, n * esz, (int)pe, stream);
        else shmemx_getmem_on_stream(td, sd, n * esz, (int)pe, stream);
        Py_RETURN_NONE;
    }
    if (PyArray_IS_C_CONTIGUOUS(t) && PyArray_IS_C_CONTIGUOUS(s)) {
        if (is_put) (nbi ? shmem_putmem_nbi : shmem_putmem)(td, sd, n * esz, (int)pe);
        else (nbi ? shmem_getmem_nbi : shmem_getmem)(td, sd, n * esz, (int)pe);
        Py_RETURN_NONE;
    }
    ptrdiff_t tst = elem_stride(t), sst = elem_stride(s);
    imove_fn f = imove_of(esz, is_put);
    if (tst && sst && f) { /* slices with a step: one strided call */
        f(td, sd, tst, sst, n, (int)pe);
        Py_RETURN_NONE;
    }
    if (!PyArray_IS_C_CONTIGUOUS(sym))
        return sp_raise(PyExc_ValueError, fn, "the symmetric %s (shape of %d dimensions, not "
                        "contiguous) cannot be moved in one call; use a contiguous array or "
                        "a 1-D slice with a positive step", is_put ? "target" : "source",
                        PyArray_NDIM(sym));
    if (n != (size_t)PyArray_SIZE(loc))
        return sp_raise(PyExc_ValueError, fn, "size=%zu with a non-contiguous local %s of %zd "
                        "elements; move the whole array or a contiguous one", n,
                        is_put ? "source" : "target", (Py_ssize_t)PyArray_SIZE(loc));
    /* A non-contiguous local side goes through a contiguous copy. */
    PyArrayObject *tmp = (PyArrayObject *)PyArray_NewCopy(loc, NPY_CORDER);
    if (!tmp) return NULL;
    if (is_put) {
        shmem_putmem(td, PyArray_DATA(tmp), n * esz, (int)pe);
    } else {
        shmem_getmem(PyArray_DATA(tmp), sd, n * esz, (int)pe);
        if (PyArray_CopyInto(t, tmp) < 0) {
            Py_DECREF(tmp);
            return NULL;
        }
    }
    Py_DECREF(tmp);
    Py_RETURN_NONE;
}

static PyObject *py_put(PyObject *s, PyObject *a, PyObject *k) { (void)s; return rma(a, k, "put", 1, 0); }
static PyObject *py_get(PyObject *s, PyObject *a, PyObject *k) { (void)s; return rma(a, k, "get", 0, 0); }
static PyObject *py_put_nbi(PyObject *s, PyObject *a, PyObject *k) { (void)s; return rma(a, k, "put_nbi", 1, 1); }
static PyObject *py_get_nbi(PyObject *s, PyObject *a, PyObject *k) { (void)s; return rma(a, k, "get_nbi", 0, 1); }

static size_t ceildiv(size_t p, size_t q) { return (p + q - 1) / q; }

/* iput/iget(target, source, pe, tst=1, sst=1, size=None, ctx=None): strides in
 * elements of contiguous 1-D arrays, as shmem4py. */
static PyObject *irma(PyObject *args, PyObject *kw, const char *fn, int is_put)
{
    static char *kwlist[] = { "target", "source", "pe", "tst", "sst", "size", "ctx", NULL };
    PyObject *to, *so, *size_o = NULL, *ctx = NULL;
    long pe;
    Py_ssize_t tst = 1, sst = 1;
    char fmt[48];
    snprintf(fmt, sizeof fmt, "OOl|nnOO:%s", fn);
    if (!PyArg_ParseTupleAndKeywords(args, kw, fmt, kwlist, &to, &so, &pe, &tst, &sst, &size_o,
                                     &ctx))
        return NULL;
    PyArrayObject *t = sp_array(fn, "target", to, 1), *s = t ? sp_array(fn, "source", so, 0) : NULL;
    if (!s || no_ctx(fn, ctx) < 0 || same_dtype(fn, t, s) < 0 || ensure_pe(fn, pe) < 0)
        return NULL;
    if (tst < 1 || sst < 1)
        return sp_raise(PyExc_ValueError, fn, "tst=%zd, sst=%zd: strides must be >= 1", tst, sst);
    if (!PyArray_IS_C_CONTIGUOUS(t) || !PyArray_IS_C_CONTIGUOUS(s))
        return sp_raise(PyExc_ValueError, fn, "target and source must be contiguous (the "
                        "strides are tst and sst); pass np.ascontiguousarray(...)");
    size_t n;
    size_t tn = (size_t)PyArray_SIZE(t), sn = (size_t)PyArray_SIZE(s);
    if (parse_size(fn, size_o, min_sz(ceildiv(tn, (size_t)tst), ceildiv(sn, (size_t)sst)), &n) < 0)
        return NULL;
    if (n == 0) Py_RETURN_NONE;
    size_t esz = (size_t)PyArray_ITEMSIZE(t);
    size_t symst = (size_t)(is_put ? tst : sst);
    if (sp_check_sym(fn, is_put ? "target" : "source", PyArray_DATA(is_put ? t : s),
                     ((n - 1) * symst + 1) * esz) < 0)
        return NULL;
    imove_fn f = imove_of(esz, is_put);
    if (!f)
        return sp_raise(PyExc_TypeError, fn, "dtype %s (%zu bytes) has no strided form; use "
                        "1, 2, 4, 8 or 16-byte elements", sp_dtype_name(t), esz);
    f(PyArray_DATA(t), PyArray_DATA(s), tst, sst, n, (int)pe);
    Py_RETURN_NONE;
}

static PyObject *py_iput(PyObject *s, PyObject *a, PyObject *k) { (void)s; return irma(a, k, "iput", 1); }
static PyObject *py_iget(PyObject *s, PyObject *a, PyObject *k) { (void)s; return irma(a, k, "iget", 0); }

/* One element: target/source must hold at least one; element 0 is used. */
static PyArrayObject *one_elem(const char *fn, const char *what, PyObject *obj, int write, int exact)
{
    if (exact && sp_is_gpu(obj)) { /* the library would stop the PE */
        sp_raise(PyExc_TypeError, fn, "%s is a GPU array: host atomics, waits, signals and "
                 "locks cannot reach GPU memory (the CPU cannot load or store it); use a host "
                 "array (kind='host'), or NVSHMEM's device API in a kernel", what);
        return NULL;
    }
    PyArrayObject *a = sp_array(fn, what, obj, write);
    if (!a) return NULL;
    if (exact ? PyArray_SIZE(a) != 1 : PyArray_SIZE(a) < 1) {
        sp_raise(PyExc_ValueError, fn, "%s has %zd elements; this call works on one: pass "
                 "a[i:i+1] (or a 1-element array)", what, (Py_ssize_t)PyArray_SIZE(a));
        return NULL;
    }
    if (sp_check_sym(fn, what, PyArray_DATA(a), (size_t)PyArray_ITEMSIZE(a)) < 0) return NULL;
    return a;
}

/* value converted to a's dtype into buf (at least 32 bytes). */
static int value_as(const char *fn, PyObject *value, PyArrayObject *a, void *buf)
{
    PyArray_Descr *d = PyArray_DESCR(a);
    Py_INCREF(d);
    PyArrayObject *v = (PyArrayObject *)PyArray_FromAny(value, d, 0, 0,
                                                        NPY_ARRAY_FORCECAST | NPY_ARRAY_CARRAY, NULL);
    if (!v) return -1;
    if (PyArray_SIZE(v) != 1) {
        Py_DECREF(v);
        sp_raise(PyExc_ValueError, fn, "value must be one number, not %zd of them",
                 (Py_ssize_t)PyArray_SIZE(v));
        return -1;
    }
    memcpy(buf, PyArray_DATA(v), (size_t)PyArray_ITEMSIZE(a));
    Py_DECREF(v);
    return 0;
}

/* p(target, value, pe), g(source, pe) */
static PyObject *py_p(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = { "target", "value", "pe", "ctx", NULL };
    PyObject *to, *value, *ctx = NULL;
    long pe;
    _Alignas(16) char buf[32];
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOl|O:p", kwlist, &to, &value, &pe, &ctx) ||
        no_ctx("p", ctx) < 0 || ensure_pe("p", pe) < 0)
        return NULL;
    PyArrayObject *t = one_elem("p", "target", to, 1, 0);
    if (!t || value_as("p", value, t, buf) < 0) return NULL;
    shmem_putmem(PyArray_DATA(t), buf, (size_t)PyArray_ITEMSIZE(t), (int)pe);
    Py_RETURN_NONE;
}

static PyObject *py_g(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = { "source", "pe", "ctx", NULL };
    PyObject *so, *ctx = NULL;
    long pe;
    _Alignas(16) char buf[32];
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Ol|O:g", kwlist, &so, &pe, &ctx) ||
        no_ctx("g", ctx) < 0 || ensure_pe("g", pe) < 0)
        return NULL;
    PyArrayObject *s = one_elem("g", "source", so, 0, 0);
    if (!s) return NULL;
    shmem_getmem(buf, PyArray_DATA(s), (size_t)PyArray_ITEMSIZE(s), (int)pe);
    return PyArray_Scalar(buf, PyArray_DESCR(s), NULL);
}

/* ---- Atomics ------------------------------------------------------------------ */

enum amo { A_FETCH, A_SET, A_SWAP, A_CSWAP, A_FINC, A_INC, A_FADD, A_ADD,
           A_FAND, A_AND, A_FOR, A_OR, A_FXOR, A_XOR };
static const char *const amo_names[] = { "fetch", "set", "swap", "compare_swap", "fetch_inc",
    "inc", "fetch_add", "add", "fetch_and", "and", "fetch_or", "or", "fetch_xor", "xor" };

#define AMO_CASE(OPC, CALL) case OPC: r = CALL; break;
#define AMO_VOID(OPC, CALL) case OPC: CALL; break;
/* Integer rows: every operation; returns 0, or -1 for an operation the row lacks. */
#define AMO_INT(E, N, T)                                                                    \
    case E: {                                                                               \
        T *d = dest, v, c, r = 0;                                                           \
        memcpy(&v, val, sizeof v);                                                          \
        memcpy(&c, cond, sizeof c);                                                         \
        switch (op) {                                                                       \
        AMO_CASE(A_FETCH, shmem_##N##_atomic_fetch(d, pe))                                  \
        AMO_VOID(A_SET, shmem_##N##_atomic_set(d, v, pe))                                   \
        AMO_CASE(A_SWAP, shmem_##N##_atomic_swap(d, v, pe))                                 \
        AMO_CASE(A_CSWAP, shmem_##N##_atomic_compare_swap(d, c, v, pe))                     \
        AMO_CASE(A_FINC, shmem_##N##_atomic_fetch_inc(d, pe))                               \
        AMO_VOID(A_INC, shmem_##N##_atomic_inc(d, pe))                                      \
        AMO_CASE(A_FADD, shmem_##N##_atomic_fetch_add(d, v, pe))                            \
        AMO_VOID(A_ADD, shmem_##N##_atomic_add(d, v, pe))                                   \
        AMO_CASE(A_FAND, shmem_##N##_atomic_fetch_and(d, v, pe))                            \
        AMO_VOID(A_AND, shmem_##N##_atomic_and(d, v, pe))                                   \
        AMO_CASE(A_FOR, shmem_##N##_atomic_fetch_or(d, v, pe))                              \
        AMO_VOID(A_OR, shmem_##N##_atomic_or(d, v, pe))                                     \
        AMO_CASE(A_FXOR, shmem_##N##_atomic_fetch_xor(d, v, pe))                            \
        AMO_VOID(A_XOR, shmem_##N##_atomic_xor(d, v, pe))                                   \
        }                                                                                   \
        memcpy(out, &r, sizeof r);                                                          \
        return 0;                                                                           \
    }
/* Floating rows: fetch, set, swap only. */
#define AMO_EXT(E, N, T)                                                                    \
    case E: {                                                                               \
        T *d = dest, v, r = 0;                                                              \
        memcpy(&v, val, sizeof v);                                                          \
        switch (op) {                                                                       \
        AMO_CASE(A_FETCH, shmem_##N##_atomic_fetch(d, pe))                                  \
        AMO_VOID(A_SET, shmem_##N##_atomic_set(d, v, pe))                                   \
        AMO_CASE(A_SWAP, shmem_##N##_atomic_swap(d, v, pe))                                 \
        default: return -1;                                                                 \
        }                                                                                   \
        memcpy(out, &r, sizeof r);                                                          \
        return 0;                                                                           \
    }

static int amo_do(enum pyt t, enum amo op, void *dest, const void *val, const void *cond,
                  void *out, int pe)
{
    switch (t) {
    AMO_INT(PYT_I32, int32, int32_t)
    AMO_INT(PYT_I64, int64, int64_t)
    AMO_INT(PYT_U32, uint32, uint32_t)
    AMO_INT(PYT_U64, uint64, uint64_t)
    AMO_EXT(PYT_F32, float, float)
    AMO_EXT(PYT_F64, double, double)
    default: return -1;
    }
}

/* The call's arguments by operation: (target, [cond,] [value,] pe, ctx=None). */
static PyObject *amo(PyObject *args, PyObject *kw, enum amo op)
{
    static char *kw_v[] = { "target", "value", "pe", "ctx", NULL };
    static char *kw_n[] = { "target", "pe", "ctx", NULL };
    static char *kw_c[] = { "target", "cond", "value", "pe", "ctx", NULL };
    char fn[40];
    snprintf(fn, sizeof fn, "atomic_%s", amo_names[op]);
    PyObject *to, *value = NULL, *cond = NULL, *ctx = NULL;
    long pe;
    int ok;
    char fmt[64];
    if (op == A_CSWAP) {
        snprintf(fmt, sizeof fmt, "OOOl|O:%s", fn);
        ok = PyArg_ParseTupleAndKeywords(args, kw, fmt, kw_c, &to, &cond, &value, &pe, &ctx);
    } else if (op == A_FETCH || op == A_FINC || op == A_INC) {
        snprintf(fmt, sizeof fmt, "Ol|O:%s", fn);
        ok = PyArg_ParseTupleAndKeywords(args, kw, fmt, kw_n, &to, &pe, &ctx);
    } else {
        snprintf(fmt, sizeof fmt, "OOl|O:%s", fn);
        ok = PyArg_ParseTupleAndKeywords(args, kw, fmt, kw_v, &to, &value, &pe, &ctx);
    }
    if (!ok || no_ctx(fn, ctx) < 0 || ensure_pe(fn, pe) < 0) return NULL;
    PyArrayObject *t = one_elem(fn, "target", to, op != A_FETCH, 1);
    if (!t) return NULL;
    _Alignas(16) char v[32] = { 0 }, c[32] = { 0 }, r[32] = { 0 };
    if ((value && value_as(fn, value, t, v) < 0) || (cond && value_as(fn, cond, t, c) < 0))
        return NULL;
    if (amo_do(sp_pyt(t), op, PyArray_DATA(t), v, c, r, (int)pe) < 0)
        return sp_raise(PyExc_TypeError, fn, "dtype %s has no atomic %s; use int32, int64, "
                        "uint32 or uint64 (float32 and float64: fetch, set, swap only)",
                        sp_dtype_name(t), amo_names[op]);
    if (op == A_SET || op == A_INC || op == A_ADD || op == A_AND || op == A_OR || op == A_XOR)
        Py_RETURN_NONE;
    return PyArray_Scalar(r, PyArray_DESCR(t), NULL);
}

#define AMO_PY(NAME, OP) \
    static PyObject *py_atomic_##NAME(PyObject *s, PyObject *a, PyObject *k) { (void)s; return amo(a, k, OP); }
AMO_PY(fetch, A_FETCH) AMO_PY(set, A_SET) AMO_PY(swap, A_SWAP) AMO_PY(compare_swap, A_CSWAP)
AMO_PY(fetch_inc, A_FINC) AMO_PY(inc, A_INC) AMO_PY(fetch_add, A_FADD) AMO_PY(add, A_ADD)
AMO_PY(fetch_and, A_FAND) AMO_PY(and, A_AND) AMO_PY(fetch_or, A_FOR) AMO_PY(or, A_OR)
AMO_PY(fetch_xor, A_FXOR) AMO_PY(xor, A_XOR)

/* atomic_op(target, value, op, pe) / atomic_fetch_op: op by name ('set', 'inc', 'add', 'and', 'or', 'xor'). */
static PyObject *amo_by_name(PyObject *args, PyObject *kw, int fetch)
{
    static char *kwlist[] = { "target", "value", "op", "pe", "ctx", NULL };
    PyObject *to, *value, *ctx = Py_None;
    const char *name;
    long pe;
    const char *fn = fetch ? "atomic_fetch_op" : "atomic_op";
    if (!PyArg_ParseTupleAndKeywords(args, kw, fetch ? "OOsl|O:atomic_fetch_op" : "OOsl|O:atomic_op",
                                     kwlist, &to, &value, &name, &pe, &ctx))
        return NULL;
    char full[32];
    snprintf(full, sizeof full, "%s%s", fetch ? "fetch_" : "", name);
    if (fetch && strcmp(name, "set") == 0) snprintf(full, sizeof full, "swap");
    for (int op = 0; op <= A_XOR; op++) {
        if (strcmp(amo_names[op], full) != 0 || op == A_FETCH || op == A_CSWAP) continue;
        PyObject *a = op == A_INC || op == A_FINC ? Py_BuildValue("(OlO)", to, pe, ctx)
                                                  : Py_BuildValue("(OOlO)", to, value, pe, ctx);
        PyObject *r = a ? amo(a, NULL, (enum amo)op) : NULL;
        Py_XDECREF(a);
        return r;
    }
    return sp_raise(PyExc_ValueError, fn, "op='%s' is not an atomic operation; use 'set', "
                    "'inc', 'add', 'and', 'or' or 'xor'", name);
}

static PyObject *py_atomic_op(PyObject *s, PyObject *a, PyObject *k) { (void)s; return amo_by_name(a, k, 0); }
static PyObject *py_atomic_fetch_op(PyObject *s, PyObject *a, PyObject *k) { (void)s; return amo_by_name(a, k, 1); }

/* ---- Waits -------------------------------------------------------------------- */

static int parse_cmp(const char *fn, PyObject *o, int *cmp)
{
    static const char *const names[] = { "eq", "ne", "gt", "ge", "lt", "le" };
    if (PyUnicode_Check(o)) {
        const char *s = PyUnicode_AsUTF8(o);
        for (int i = 0; s && i < 6; i++)
            if (strcasecmp(s, names[i]) == 0 || (s[0] == '=' && i == 0 && s[1] == '=')) {
                *cmp = i;
                return 0;
            }
    } else {
        long v = PyLong_AsLong(o);
        if (!(v == -1 && PyErr_Occurred()) && v >= SHMEM_CMP_EQ && v <= SHMEM_CMP_LE) {
            *cmp = (int)v;
            return 0;
        }
        PyErr_Clear();
    }
    sp_raise(PyExc_ValueError, fn, "cmp is not a comparison; use symheap.CMP_EQ/NE/GT/GE/LT/LE "
             "or 'eq', 'ne', 'gt', 'ge', 'lt', 'le'");
    return -1;
}

#define WAIT_CASE(E, N, T)                                                              \
    case E: {                                                                           \
        T v;                                                                            \
        memcpy(&v, val, sizeof v);                                                      \
        if (test) return shmem_##N##_test((T *)ivar, cmp, v);                           \
        Py_BEGIN_ALLOW_THREADS shmem_##N##_wait_until((T *)ivar, cmp, v);               \
        Py_END_ALLOW_THREADS return 1;                                                  \
    }
static int wait_do(enum pyt t, void *ivar, int cmp, const void *val, int test)
{
    switch (t) {
    WAIT_CASE(PYT_I16, short, short)
    WAIT_CASE(PYT_I32, int32, int32_t)
    WAIT_CASE(PYT_I64, int64, int64_t)
    WAIT_CASE(PYT_U16, ushort, unsigned short)
    WAIT_CASE(PYT_U32, uint32, uint32_t)
    WAIT_CASE(PYT_U64, uint64, uint64_t)
    default: return -1;
    }
}

/* wait_until(ivar, cmp, value) / test(ivar, cmp, value) */
static PyObject *wait_or_test(PyObject *args, PyObject *kw, int test)
{
    static char *kwlist[] = { "ivar", "cmp", "value", NULL };
    const char *fn = test ? "test" : "wait_until";
    PyObject *io, *cmp_o, *value;
    int cmp;
    _Alignas(16) char v[32];
    if (!PyArg_ParseTupleAndKeywords(args, kw, test ? "OOO:test" : "OOO:wait_until", kwlist, &io,
                                     &cmp_o, &value) ||
        sp_ensure(fn) < 0 || parse_cmp(fn, cmp_o, &cmp) < 0)
        return NULL;
    PyArrayObject *a = one_elem(fn, "ivar", io, 0, 1);
    if (!a || value_as(fn, value, a, v) < 0) return NULL;
    int r = wait_do(sp_pyt(a), PyArray_DATA(a), cmp, v, test);
    if (r < 0)
        return sp_raise(PyExc_TypeError, fn, "dtype %s cannot be waited on; use int16, int32, "
                        "int64, uint16, uint32 or uint64", sp_dtype_name(a));
    if (test) return PyBool_FromLong(r);
    Py_RETURN_NONE;
}

static PyObject *py_wait_until(PyObject *s, PyObject *a, PyObject *k) { (void)s; return wait_or_test(a, k, 0); }
static PyObject *py_test(PyObject *s, PyObject *a, PyObject *k) { (void)s; return wait_or_test(a, k, 1); }

/* ---- Signals (a signal is a symmetric uint64 array of one element) ------------- */

/* A one-element symmetric word of dtype kind/size: a signal (uint64) or a lock
 * (int64, C long); its data, or NULL with an exception. */
static void *word_arg(const char *fn, const char *what, PyObject *o, char kind, const char *dtype,
                      const char *ctor)
{
    if (sp_ensure(fn) < 0) return NULL;
    PyArrayObject *a = one_elem(fn, what, o, 1, 1);
    if (!a) return NULL;
    if (PyArray_ITEMSIZE(a) != 8 || PyArray_DESCR(a)->kind != kind) {
        sp_raise(PyExc_TypeError, fn, "%s has dtype %s; a %s is a %s array of one element "
                 "(symheap.%s())", what, sp_dtype_name(a), what, dtype, ctor);
        return NULL;
    }
    return PyArray_DATA(a);
}

static uint64_t *signal_arg(const char *fn, PyObject *o)
{
    return word_arg(fn, "signal", o, 'u', "uint64", "new_signal");
}

/* symheap.NAME(*args) of the module itself (zeros, free). */
static PyObject *call_module(const char *name, const char *fmt, ...)
{
    PyObject *m = PyImport_ImportModule("symheap");
    PyObject *f = m ? PyObject_GetAttrString(m, name) : NULL;
    va_list ap;
    va_start(ap, fmt);
    PyObject *args = f ? Py_VaBuildValue(fmt, ap) : NULL;
    va_end(ap);
    PyObject *r = args ? PyObject_CallObject(f, args) : NULL;
    Py_XDECREF(args);
    Py_XDECREF(f);
    Py_XDECREF(m);
    return r;
}

static PyObject *py_new_signal(PyObject *self, PyObject *noargs)
{
    (void)self, (void)noargs;
    return call_module("zeros", "(is)", 1, "uint64");
}

/* del_signal and del_lock: free the word (collective). */
static PyObject *py_del_word(PyObject *self, PyObject *word)
{
    (void)self;
    return call_module("free", "(O)", word);
}

static PyObject *put_signal(PyObject *args, PyObject *kw, int nbi)
{
    static char *kwlist[] = { "target", "source", "pe", "signal", "value", "sigop", "size", "ctx", NULL };
    const char *fn = nbi ? "put_signal_nbi" : "put_signal";
    PyObject *to, *so, *sig_o, *size_o = NULL, *ctx = NULL;
    long pe;
    unsigned long long value;
    int sigop;
    if (!PyArg_ParseTupleAndKeywords(args, kw, nbi ? "OOlOKi|OO:put_signal_nbi" : "OOlOKi|OO:put_signal",
                                     kwlist, &to, &so, &pe, &sig_o, &value, &sigop, &size_o, &ctx))
        return NULL;
    PyArrayObject *t, *s;
    size_t n;
    if (rma_args(fn, to, so, pe, size_o, ctx, &t, &s, &n) < 0) return NULL;
    uint64_t *sig = signal_arg(fn, sig_o);
    if (!sig) return NULL;
    if (sigop != SHMEM_SIGNAL_SET && sigop != SHMEM_SIGNAL_ADD)
        return sp_raise(PyExc_ValueError, fn, "sigop=%d; use symheap.SIGNAL_SET or SIGNAL_ADD", sigop);
    if (!PyArray_IS_C_CONTIGUOUS(t) || !PyArray_IS_C_CONTIGUOUS(s))
        return sp_raise(PyExc_ValueError, fn, "target and source must be contiguous; pass "
                        "np.ascontiguousarray(...)");
    if (sym_elems(fn, "target", t, n) < 0) return NULL;
    (nbi ? shmem_putmem_signal_nbi : shmem_putmem_signal)(PyArray_DATA(t), PyArray_DATA(s),
        n * (size_t)PyArray_ITEMSIZE(t), sig, (uint64_t)value, sigop, (int)pe);
    Py_RETURN_NONE;
}

static PyObject *py_put_signal(PyObject *s, PyObject *a, PyObject *k) { (void)s; return put_signal(a, k, 0); }
static PyObject *py_put_signal_nbi(PyObject *s, PyObject *a, PyObject *k) { (void)s; return put_signal(a, k, 1); }

static PyObject *py_signal_fetch(PyObject *self, PyObject *sig_o)
{
    (void)self;
    uint64_t *sig = sp_ensure("signal_fetch") < 0 ? NULL : signal_arg("signal_fetch", sig_o);
    return sig ? PyLong_FromUnsignedLongLong(shmem_signal_fetch(sig)) : NULL;
}

static PyObject *signal_update(PyObject *args, const char *fn, int add)
{
    PyObject *sig_o;
    unsigned long long value;
    long pe;
    if (!PyArg_ParseTuple(args, add ? "OKl:signal_add" : "OKl:signal_set", &sig_o, &value, &pe) ||
        ensure_pe(fn, pe) < 0)
        return NULL;
    uint64_t *sig = signal_arg(fn, sig_o);
    if (!sig) return NULL;
    (add ? shmem_signal_add : shmem_signal_set)(sig, (uint64_t)value, (int)pe);
    Py_RETURN_NONE;
}

static PyObject *py_signal_add(PyObject *s, PyObject *a) { (void)s; return signal_update(a, "signal_add", 1); }
static PyObject *py_signal_set(PyObject *s, PyObject *a) { (void)s; return signal_update(a, "signal_set", 0); }

static PyObject *py_signal_wait_until(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = { "signal", "cmp", "value", NULL };
    PyObject *sig_o, *cmp_o;
    unsigned long long value;
    int cmp;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOK:signal_wait_until", kwlist, &sig_o, &cmp_o,
                                     &value) ||
        sp_ensure("signal_wait_until") < 0 || parse_cmp("signal_wait_until", cmp_o, &cmp) < 0)
        return NULL;
    uint64_t *sig = signal_arg("signal_wait_until", sig_o);
    if (!sig) return NULL;
    uint64_t r;
    Py_BEGIN_ALLOW_THREADS r = shmem_signal_wait_until(sig, cmp, (uint64_t)value);
    Py_END_ALLOW_THREADS
    return PyLong_FromUnsignedLongLong(r);
}

/* ---- Ordering and synchronization ----------------------------------------- */

/* fence(ctx=None), quiet(ctx=None) */
static PyObject *ordering(PyObject *args, const char *fn, void (*call)(void))
{
    PyObject *ctx = NULL;
    if (!PyArg_UnpackTuple(args, fn, 0, 1, &ctx) || no_ctx(fn, ctx) < 0 || sp_ensure(fn) < 0)
        return NULL;
    call();
    Py_RETURN_NONE;
}

static PyObject *py_fence(PyObject *s, PyObject *a) { (void)s; return ordering(a, "fence", shmem_fence); }
static PyObject *py_quiet(PyObject *s, PyObject *a) { (void)s; return ordering(a, "quiet", shmem_quiet); }

/* barrier_all, sync_all: a garbage round, then the world-wide call (GIL released). */
static PyObject *world_sync(const char *fn, void (*call)(void))
{
    if (sp_gc_point(fn) < 0) return NULL;
    Py_BEGIN_ALLOW_THREADS call();
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}

/* barrier_all(stream=None): with a stream, the library waits for the stream
 * first (shmemx_barrier_all_on_stream's host form). */
static PyObject *py_barrier_all(PyObject *s, PyObject *args, PyObject *kw)
{
    (void)s;
    static char *kwlist[] = { "stream", NULL };
    PyObject *stream_o = NULL;
    struct CUstream_st *stream;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:barrier_all", kwlist, &stream_o)) return NULL;
    int on = sp_stream("barrier_all", stream_o, &stream);
    if (on <= 0) return on < 0 ? NULL : world_sync("barrier_all", shmem_barrier_all);
    if (sp_gc_point("barrier_all") < 0) return NULL;
    Py_BEGIN_ALLOW_THREADS shmemx_barrier_all_on_stream(stream);
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}
static PyObject *py_sync_all(PyObject *s, PyObject *n) { (void)s, (void)n; return world_sync("sync_all", shmem_sync_all); }

/* ---- Teams ----------------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD
    shmem_team_t team;
} Team;

static PyObject *team_new_obj(shmem_team_t t)
{
    Team *o = PyObject_New(Team, &Team_Type);
    if (o) o->team = t;
    return (PyObject *)o;
}

int sp_team(const char *fn, PyObject *obj, shmem_team_t *team, int *world)
{
    if (!obj || obj == Py_None) {
        *team = SHMEM_TEAM_WORLD;
    } else if (PyObject_TypeCheck(obj, &Team_Type)) {
        *team = ((Team *)obj)->team;
    } else {
        sp_raise(PyExc_TypeError, fn, "team is a %s; pass a symheap.Team or None (the world)",
                 Py_TYPE(obj)->tp_name);
        return -1;
    }
    if (*team == SHMEM_TEAM_INVALID) {
        sp_raise(PyExc_ValueError, fn, "team is TEAM_INVALID (this PE is not in the team, or "
                 "it was destroyed); call it only on the team's members");
        return -1;
    }
    *world = *team == SHMEM_TEAM_WORLD;
    return (*world ? sp_gc_point(fn) : sp_ensure(fn)) < 0 ? -1 : 0;
}

static PyObject *Team_tp_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    (void)type;
    static char *kwlist[] = { "team", NULL };
    PyObject *o = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:Team", kwlist, &o)) return NULL;
    if (o == Py_None) return team_new_obj(SHMEM_TEAM_INVALID);
    if (!PyObject_TypeCheck(o, &Team_Type))
        return sp_raise(PyExc_TypeError, "Team", "team is a %s; pass a Team or None",
                        Py_TYPE(o)->tp_name);
    return team_new_obj(((Team *)o)->team);
}

static int predefined(shmem_team_t t)
{
    return t == SHMEM_TEAM_WORLD || t == SHMEM_TEAM_SHARED || t == SHMEM_TEAM_INVALID;
}

static PyObject *Team_destroy(Team *self, PyObject *n)
{
    (void)n;
    if (!predefined(self->team)) {
        if (sp_ensure("Team.destroy") < 0) return NULL;
        shmem_team_destroy(self->team);
    }
    if (!predefined(self->team)) self->team = SHMEM_TEAM_INVALID;
    Py_RETURN_NONE;
}

static int team_config(PyObject *config, shmem_team_config_t *c, long *mask)
{
    *mask = 0;
    c->num_contexts = 0;
    if (!config || config == Py_None) return 0;
    PyObject *v = PyMapping_GetItemString(config, "num_contexts");
    if (!v) {
        PyErr_Clear();
        return 0;
    }
    c->num_contexts = (int)PyLong_AsLong(v);
    Py_DECREF(v);
    if (PyErr_Occurred()) return -1;
    *mask = SHMEM_TEAM_NUM_CONTEXTS;
    return 0;
}

static PyObject *Team_split_strided(Team *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "start", "stride", "size", "config", NULL };
    int start = 0, stride = 1;
    PyObject *size_o = Py_None, *config = Py_None;
    const char *fn = "Team.split_strided";
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|iiOO:split_strided", kwlist, &start, &stride,
                                     &size_o, &config))
        return NULL;
    shmem_team_t parent;
    int world;
    if (sp_team(fn, (PyObject *)self, &parent, &world) < 0) return NULL;
    int np = shmem_team_n_pes(parent), size;
    if (size_o == Py_None) {
        /* len(range(start, np, stride)), as shmem4py */
        size = stride > 0 && start < np ? (np - start + stride - 1) / stride : 0;
    } else {
        size = (int)PyLong_AsLong(size_o);
        if (PyErr_Occurred()) return NULL;
    }
    if (start < 0 || size < 1 || stride < 1 || (long)start + (long)(size - 1) * stride >= np)
        return sp_raise(PyExc_ValueError, fn, "start=%d, stride=%d, size=%d does not fit a team "
                        "of %d PEs; use 0 <= start, stride >= 1, size >= 1 and "
                        "start + (size-1)*stride < %d", start, stride, size, np, np);
    shmem_team_config_t c;
    long mask;
    if (team_config(config, &c, &mask) < 0) return NULL;
    shmem_team_t t = SHMEM_TEAM_INVALID;
    if (shmem_team_split_strided(parent, start, stride, size, &c, mask, &t) != 0)
        return sp_raise(symheap_py_error, fn, "shmem_team_split_strided(start=%d, stride=%d, "
                        "size=%d) failed (no team left: a PE holds at most 128; destroy teams "
                        "no longer used)", start, stride, size);
    return team_new_obj(t);
}

static PyObject *Team_split_2d(Team *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "xrange", "xaxis_config", "yaxis_config", NULL };
    int xrange;
    PyObject *xc_o = Py_None, *yc_o = Py_None;
    const char *fn = "Team.split_2d";
    if (!PyArg_ParseTupleAndKeywords(args, kw, "i|OO:split_2d", kwlist, &xrange, &xc_o, &yc_o))
        return NULL;
    shmem_team_t parent;
    int world;
    if (sp_team(fn, (PyObject *)self, &parent, &world) < 0) return NULL;
    if (xrange < 1)
        return sp_raise(PyExc_ValueError, fn, "xrange=%d; use xrange >= 1", xrange);
    shmem_team_config_t xc, yc;
    long xm, ym;
    if (team_config(xc_o, &xc, &xm) < 0 || team_config(yc_o, &yc, &ym) < 0) return NULL;
    shmem_team_t x = SHMEM_TEAM_INVALID, y = SHMEM_TEAM_INVALID;
    if (shmem_team_split_2d(parent, xrange, &xc, xm, &x, &yc, ym, &y) != 0)
        return sp_raise(symheap_py_error, fn, "shmem_team_split_2d(xrange=%d) failed (no team "
                        "left: a PE holds at most 128; destroy teams no longer used)", xrange);
    PyObject *xo = team_new_obj(x), *yo = team_new_obj(y);
    PyObject *r = xo && yo ? PyTuple_Pack(2, xo, yo) : NULL;
    Py_XDECREF(xo);
    Py_XDECREF(yo);
    return r;
}

static PyObject *Team_my_pe(Team *self, PyObject *n)
{
    (void)n;
    return sp_ensure("Team.my_pe") < 0 ? NULL : PyLong_FromLong(shmem_team_my_pe(self->team));
}

static PyObject *Team_n_pes(Team *self, PyObject *n)
{
    (void)n;
    return sp_ensure("Team.n_pes") < 0 ? NULL : PyLong_FromLong(shmem_team_n_pes(self->team));
}

static PyObject *Team_translate_pe(Team *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "pe", "team", NULL };
    PyObject *pe_o = Py_None, *dest = Py_None;
    const char *fn = "Team.translate_pe";
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO:translate_pe", kwlist, &pe_o, &dest) ||
        sp_ensure(fn) < 0)
        return NULL;
    shmem_team_t dt = SHMEM_TEAM_WORLD;
    if (dest != Py_None) {
        if (!PyObject_TypeCheck(dest, &Team_Type))
            return sp_raise(PyExc_TypeError, fn, "team is a %s; pass a Team or None (the world)",
                            Py_TYPE(dest)->tp_name);
        dt = ((Team *)dest)->team;
    }
    int pe = shmem_team_my_pe(self->team);
    if (pe_o != Py_None) {
        long v = PyLong_AsLong(pe_o);
        if (PyErr_Occurred()) return NULL;
        if (sp_check_pe(fn, "pe", v, shmem_team_n_pes(self->team)) < 0) return NULL;
        pe = (int)v;
    }
    return PyLong_FromLong(shmem_team_translate_pe(self->team, pe, dt));
}

static PyObject *Team_get_config(Team *self, PyObject *n)
{
    (void)n;
    shmem_team_config_t c = { 0 };
    if (sp_ensure("Team.get_config") < 0) return NULL;
    shmem_team_get_config(self->team, SHMEM_TEAM_NUM_CONTEXTS, &c);
    return Py_BuildValue("{s:i}", "num_contexts", c.num_contexts);
}

static PyObject *Team_sync(Team *self, PyObject *n)
{
    (void)n;
    shmem_team_t t;
    int world;
    if (sp_team("Team.sync", (PyObject *)self, &t, &world) < 0) return NULL;
    int rc;
    Py_BEGIN_ALLOW_THREADS rc = shmem_team_sync(t);
    Py_END_ALLOW_THREADS
    if (rc != 0) return sp_raise(symheap_py_error, "Team.sync", "shmem_team_sync returned %d", rc);
    Py_RETURN_NONE;
}

/* r's error, or ret (r's value dropped). */
static PyObject *discard(PyObject *r, PyObject *ret)
{
    if (!r) return NULL;
    Py_DECREF(r);
    return Py_NewRef(ret);
}

static PyObject *Team_exit(Team *self, PyObject *args)
{
    (void)args;
    return discard(Team_destroy(self, NULL), Py_False);
}

static int Team_bool(Team *self) { return self->team != SHMEM_TEAM_INVALID; }

static PyObject *Team_richcompare(PyObject *a, PyObject *b, int op)
{
    if (!PyObject_TypeCheck(b, &Team_Type) || (op != Py_EQ && op != Py_NE))
        Py_RETURN_NOTIMPLEMENTED;
    int eq = ((Team *)a)->team == ((Team *)b)->team;
    return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static Py_hash_t Team_hash(Team *self) { return _Py_HashPointer((void *)self->team); }

static PyObject *Team_repr(Team *self)
{
    const char *name = self->team == SHMEM_TEAM_WORLD ? "TEAM_WORLD"
                       : self->team == SHMEM_TEAM_SHARED ? "TEAM_SHARED"
                       : self->team == SHMEM_TEAM_INVALID ? "TEAM_INVALID" : NULL;
    if (name) return PyUnicode_FromFormat("<symheap.Team %s>", name);
    return PyUnicode_FromFormat("<symheap.Team of %d PEs>", shmem_team_n_pes(self->team));
}

static PyMethodDef Team_methods[] = {
    { "destroy", (PyCFunction)Team_destroy, METH_NOARGS, "Destroy the team (collective over it)." },
    { "split_strided", (PyCFunction)(void (*)(void))Team_split_strided, METH_VARARGS | METH_KEYWORDS,
      "split_strided(start=0, stride=1, size=None, config=None) -> Team" },
    { "split_2d", (PyCFunction)(void (*)(void))Team_split_2d, METH_VARARGS | METH_KEYWORDS,
      "split_2d(xrange, xaxis_config=None, yaxis_config=None) -> (xteam, yteam)" },
    { "my_pe", (PyCFunction)Team_my_pe, METH_NOARGS, "This PE's number in the team (-1: not in it)." },
    { "n_pes", (PyCFunction)Team_n_pes, METH_NOARGS, "The team's size." },
    { "translate_pe", (PyCFunction)(void (*)(void))Team_translate_pe, METH_VARARGS | METH_KEYWORDS,
      "translate_pe(pe=None, team=None): pe's number in team (default the world)." },
    { "get_config", (PyCFunction)Team_get_config, METH_NOARGS, "{'num_contexts': n}" },
    { "sync", (PyCFunction)Team_sync, METH_NOARGS, "Synchronize the team's PEs." },
    { "__enter__", sp_return_self, METH_NOARGS, NULL },
    { "__exit__", (PyCFunction)Team_exit, METH_VARARGS, NULL },
    { NULL, NULL, 0, NULL }
};

static PyNumberMethods Team_as_number = { .nb_bool = (inquiry)Team_bool };

PyTypeObject Team_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "symheap.Team",
    .tp_basicsize = sizeof(Team),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = Team_tp_new,
    .tp_methods = Team_methods,
    .tp_as_number = &Team_as_number,
    .tp_richcompare = Team_richcompare,
    .tp_hash = (hashfunc)Team_hash,
    .tp_repr = (reprfunc)Team_repr,
    .tp_doc = "A team of PEs (shmem_team_t): TEAM_WORLD, TEAM_SHARED, or from split_strided/split_2d.",
};

static PyObject *py_sync(PyObject *s, PyObject *args, PyObject *kw)
{
    (void)s;
    static char *kwlist[] = { "team", NULL };
    PyObject *t = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:sync", kwlist, &t)) return NULL;
    if (t == Py_None) return py_sync_all(NULL, NULL);
    if (!PyObject_TypeCheck(t, &Team_Type))
        return sp_raise(PyExc_TypeError, "sync", "team is a %s; pass a Team or None",
                        Py_TYPE(t)->tp_name);
    return Team_sync((Team *)t, NULL);
}

/* ---- Collectives -------------------------------------------------------------- */

/* target and source of a collective: arrays of one dtype, contiguous, symmetric. */
static int coll_args(const char *fn, PyObject *to, PyObject *so, PyArrayObject **t,
                     PyArrayObject **s)
{
    *t = sp_array(fn, "target", to, 1);
    *s = *t ? sp_array(fn, "source", so, 0) : NULL;
    if (!*s || same_dtype(fn, *t, *s) < 0) return -1;
    if (!PyArray_IS_C_CONTIGUOUS(*t) || !PyArray_IS_C_CONTIGUOUS(*s)) {
        sp_raise(PyExc_ValueError, fn, "target and source must be contiguous symmetric arrays; "
                 "make them with symheap.zeros/empty/array");
        return -1;
    }
    return 0;
}

static int coll_sym(const char *fn, PyArrayObject *t, size_t tn, PyArrayObject *s, size_t sn)
{
    return sym_elems(fn, "target", t, tn) < 0 || sym_elems(fn, "source", s, sn) < 0 ? -1 : 0;
}

/* GPU arrays in collectives: the library's host collectives other than
 * broadcast take host memory only, so the GPU side goes through a symmetric
 * host copy: the source copied in, the collective, the target copied out
 * (copy engines).  Collective (every PE passes the same kinds).  keep: the
 * target's bytes are copied in too (collect writes only part of it). */
struct stage {
    char *buf;     /* the host copies: target's, then source's; NULL: none */
    void *t;       /* what the collective writes */
    const void *s; /* what it reads */
    size_t tb;     /* target bytes to copy out */
};

static int stage_in(const char *fn, PyObject *to, PyArrayObject *t, size_t tb, PyObject *so,
                    PyArrayObject *s, size_t sb, int keep, struct stage *st)
{
    int tg = sp_is_gpu(to), sg = sp_is_gpu(so);
    *st = (struct stage){ NULL, PyArray_DATA(t), PyArray_DATA(s), tg ? tb : 0 };
    if (!tg && !sg) return 0;
    size_t toff = tg ? (tb + 63) & ~(size_t)63 : 0, total = toff + (sg ? sb : 0);
    st->buf = shmem_malloc(total ? total : 1);
    if (!st->buf) {
        sp_raise(PyExc_MemoryError, fn, "no room for the %zu bytes of host copies that a "
                 "collective on GPU arrays needs; set SHMEM_SYMMETRIC_SIZE larger", total);
        return -1;
    }
    if (tg) {
        st->t = st->buf;
        if (keep && tb) shmem_getmem(st->buf, PyArray_DATA(t), tb, symheap_py.me);
    }
    if (sg) {
        st->s = st->buf + toff;
        if (sb) shmem_getmem(st->buf + toff, PyArray_DATA(s), sb, symheap_py.me);
    }
    return 0;
}

static void stage_out(PyArrayObject *t, struct stage *st)
{
    if (!st->buf) return;
    if (st->tb) shmem_putmem(PyArray_DATA(t), st->buf, st->tb, symheap_py.me);
    shmem_free(st->buf);
}

static PyObject *coll_rc(const char *fn, int rc)
{
    if (rc != 0) return sp_raise(symheap_py_error, fn, "the collective returned %d", rc);
    Py_RETURN_NONE;
}

/* broadcast(target, source, root, size=None, team=None) */
static PyObject *py_broadcast(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = { "target", "source", "root", "size", "team", NULL };
    const char *fn = "broadcast";
    PyObject *to, *so, *size_o = NULL, *team_o = NULL;
    long root;
    PyArrayObject *t, *s;
    size_t n;
    shmem_team_t team;
    int world;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOl|OO:broadcast", kwlist, &to, &so, &root,
                                     &size_o, &team_o) ||
        coll_args(fn, to, so, &t, &s) < 0 ||
        parse_size(fn, size_o, min_sz((size_t)PyArray_SIZE(t), (size_t)PyArray_SIZE(s)), &n) < 0)
        return NULL;
    if (sp_ensure(fn) < 0 || coll_sym(fn, t, n, s, n) < 0) return NULL;
    if (team_o && team_o != Py_None && PyObject_TypeCheck(team_o, &Team_Type) &&
        ((Team *)team_o)->team != SHMEM_TEAM_INVALID &&
        sp_check_pe(fn, "root", root, shmem_team_n_pes(((Team *)team_o)->team)) < 0)
        return NULL;
    if ((!team_o || team_o == Py_None) && sp_check_pe(fn, "root", root, symheap_py.npes) < 0)
        return NULL;
    if (sp_team(fn, team_o, &team, &world) < 0) return NULL;
    size_t esz = (size_t)PyArray_ITEMSIZE(t);
    /* GPU to GPU: the library's broadcast pulls through the copy engines. */
    if (sp_is_gpu(to) == sp_is_gpu(so))
        return coll_rc(fn, shmem_broadcastmem(team, PyArray_DATA(t), PyArray_DATA(s), n * esz,
                                              (int)root));
    struct stage st;
    if (stage_in(fn, to, t, n * esz, so, s, n * esz, 0, &st) < 0) return NULL;
    int rc = shmem_broadcastmem(team, st.t, st.s, n * esz, (int)root);
    stage_out(t, &st);
    return coll_rc(fn, rc);
}

/* collect / fcollect(target, source, size=None, team=None) */
static PyObject *gather(PyObject *args, PyObject *kw, int fixed)
{
    static char *kwlist[] = { "target", "source", "size", "team", NULL };
    const char *fn = fixed ? "fcollect" : "collect";
    PyObject *to, *so, *size_o = NULL, *team_o = NULL;
    PyArrayObject *t, *s;
    size_t n;
    shmem_team_t team;
    int world;
    if (!PyArg_ParseTupleAndKeywords(args, kw, fixed ? "OO|OO:fcollect" : "OO|OO:collect", kwlist,
                                     &to, &so, &size_o, &team_o) ||
        coll_args(fn, to, so, &t, &s) < 0 || parse_size(fn, size_o, (size_t)PyArray_SIZE(s), &n) < 0 ||
        sp_ensure(fn) < 0)
        return NULL;
    shmem_team_t tt = team_o && team_o != Py_None && PyObject_TypeCheck(team_o, &Team_Type)
                      ? ((Team *)team_o)->team : SHMEM_TEAM_WORLD;
    size_t np = tt == SHMEM_TEAM_INVALID ? 1 : (size_t)shmem_team_n_pes(tt);
    if (fixed && n * np > (size_t)PyArray_SIZE(t))
        return sp_raise(PyExc_ValueError, fn, "target holds %zd elements but %zu PEs x size=%zu "
                        "= %zu arrive; make target at least %zu elements",
                        (Py_ssize_t)PyArray_SIZE(t), np, n, n * np, n * np);
    if (coll_sym(fn, t, fixed ? n * np : (size_t)PyArray_SIZE(t), s, n) < 0 ||
        sp_team(fn, team_o, &team, &world) < 0)
        return NULL;
    size_t esz = (size_t)PyArray_ITEMSIZE(t);
    struct stage st;
    if (stage_in(fn, to, t, fixed ? n * np * esz : (size_t)PyArray_NBYTES(t), so, s, n * esz,
                 !fixed, &st) < 0)
        return NULL;
    int rc = fixed ? shmem_fcollectmem(team, st.t, st.s, n * esz)
                   : shmem_collectmem(team, st.t, st.s, n * esz);
    stage_out(t, &st);
    return coll_rc(fn, rc);
}

static PyObject *py_collect(PyObject *s, PyObject *a, PyObject *k) { (void)s; return gather(a, k, 0); }
static PyObject *py_fcollect(PyObject *s, PyObject *a, PyObject *k) { (void)s; return gather(a, k, 1); }

/* alltoall(target, source, size=None, team=None) */
static PyObject *py_alltoall(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = { "target", "source", "size", "team", NULL };
    const char *fn = "alltoall";
    PyObject *to, *so, *size_o = Py_None, *team_o = NULL;
    PyArrayObject *t, *s;
    shmem_team_t team;
    int world;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|OO:alltoall", kwlist, &to, &so, &size_o,
                                     &team_o) ||
        coll_args(fn, to, so, &t, &s) < 0 || sp_ensure(fn) < 0)
        return NULL;
    shmem_team_t tt = team_o && team_o != Py_None && PyObject_TypeCheck(team_o, &Team_Type)
                      ? ((Team *)team_o)->team : SHMEM_TEAM_WORLD;
    size_t np = tt == SHMEM_TEAM_INVALID ? 1 : (size_t)shmem_team_n_pes(tt);
    size_t m = min_sz((size_t)PyArray_SIZE(t), (size_t)PyArray_SIZE(s)), n;
    if (size_o == Py_None) {
        if (m % np)
            return sp_raise(PyExc_ValueError, fn, "the arrays hold %zu elements, not a multiple "
                            "of the %zu PEs; give size= (elements per PE)", m, np);
        n = m / np;
    } else if (parse_size(fn, size_o, m / np, &n) < 0) {
        return NULL;
    }
    if (coll_sym(fn, t, n * np, s, n * np) < 0 || sp_team(fn, team_o, &team, &world) < 0)
        return NULL;
    size_t esz = (size_t)PyArray_ITEMSIZE(t);
    struct stage st;
    if (stage_in(fn, to, t, n * np * esz, so, s, n * np * esz, 0, &st) < 0) return NULL;
    int rc = shmem_alltoallmem(team, st.t, st.s, n * esz);
    stage_out(t, &st);
    return coll_rc(fn, rc);
}

/* Reductions: one wrapper per (type, operation) of the reduction table. */
typedef int (*red_fn)(shmem_team_t, void *, const void *, size_t);
#define RED_W(N, T, OP)                                                                   \
    static int red_##N##_##OP(shmem_team_t t, void *d, const void *s, size_t n)           \
    { return shmem_##N##_##OP##_reduce(t, (T *)d, (const T *)s, n); }
#define RED_ARITH(N, T) RED_W(N, T, sum) RED_W(N, T, prod)
#define RED_ORD(N, T) RED_ARITH(N, T) RED_W(N, T, min) RED_W(N, T, max)
#define RED_INT(N, T) RED_ORD(N, T) RED_W(N, T, and) RED_W(N, T, or) RED_W(N, T, xor)
RED_INT(int8, int8_t) RED_INT(int16, int16_t) RED_INT(int32, int32_t) RED_INT(int64, int64_t)
RED_INT(uint8, uint8_t) RED_INT(uint16, uint16_t) RED_INT(uint32, uint32_t) RED_INT(uint64, uint64_t)
RED_ORD(float, float) RED_ORD(double, double) RED_ORD(longdouble, long double)
RED_ARITH(complexf, float _Complex) RED_ARITH(complexd, double _Complex)

static const char *const red_names[] = { "sum", "prod", "min", "max", "and", "or", "xor" };
#define RED_ROW_INT(N) { red_##N##_sum, red_##N##_prod, red_##N##_min, red_##N##_max, \
                         red_##N##_and, red_##N##_or, red_##N##_xor }
#define RED_ROW_ORD(N) { red_##N##_sum, red_##N##_prod, red_##N##_min, red_##N##_max, 0, 0, 0 }
static const red_fn red_table[PYT_COUNT][7] = {
    [PYT_I8] = RED_ROW_INT(int8), [PYT_I16] = RED_ROW_INT(int16),
    [PYT_I32] = RED_ROW_INT(int32), [PYT_I64] = RED_ROW_INT(int64),
    [PYT_U8] = RED_ROW_INT(uint8), [PYT_U16] = RED_ROW_INT(uint16),
    [PYT_U32] = RED_ROW_INT(uint32), [PYT_U64] = RED_ROW_INT(uint64),
    [PYT_F32] = RED_ROW_ORD(float), [PYT_F64] = RED_ROW_ORD(double),
    [PYT_F128] = RED_ROW_ORD(longdouble),
    [PYT_C64] = { red_complexf_sum, red_complexf_prod, 0, 0, 0, 0, 0 },
    [PYT_C128] = { red_complexd_sum, red_complexd_prod, 0, 0, 0, 0, 0 },
};

static PyObject *reduce_op(PyObject *args, PyObject *kw, int fixed_op)
{
    static char *kw_op[] = { "target", "source", "op", "size", "team", NULL };
    static char *kw_fixed[] = { "target", "source", "size", "team", NULL };
    char fn[24];
    PyObject *to, *so, *size_o = NULL, *team_o = NULL;
    const char *opname = fixed_op >= 0 ? red_names[fixed_op] : "sum";
    int ok = fixed_op >= 0
        ? PyArg_ParseTupleAndKeywords(args, kw, "OO|OO:reduce", kw_fixed, &to, &so, &size_o, &team_o)
        : PyArg_ParseTupleAndKeywords(args, kw, "OO|sOO:reduce", kw_op, &to, &so, &opname, &size_o,
                                      &team_o);
    if (!ok) return NULL;
    snprintf(fn, sizeof fn, fixed_op >= 0 ? "%s_reduce" : "reduce", opname);
    int op = -1;
    for (int i = 0; i < 7; i++)
        if (strcasecmp(opname, red_names[i]) == 0) op = i;
    if (op < 0)
        return sp_raise(PyExc_ValueError, fn, "op='%s' is not a reduction; use 'sum', 'prod', "
                        "'min', 'max', 'and', 'or' or 'xor'", opname);
    PyArrayObject *t, *s;
    size_t n;
    shmem_team_t team;
    int world;
    if (coll_args(fn, to, so, &t, &s) < 0 ||
        parse_size(fn, size_o, min_sz((size_t)PyArray_SIZE(t), (size_t)PyArray_SIZE(s)), &n) < 0)
        return NULL;
    enum pyt ty = sp_pyt(t);
    red_fn f = ty == PYT_NONE ? NULL : red_table[ty][op];
    if (!f)
        return sp_raise(PyExc_TypeError, fn, "dtype %s has no '%s' reduction; sum/prod take "
                        "integers, floats and complex; min/max integers and floats; and/or/xor "
                        "integers", sp_dtype_name(t), red_names[op]);
    if (sp_ensure(fn) < 0 || coll_sym(fn, t, n, s, n) < 0 || sp_team(fn, team_o, &team, &world) < 0)
        return NULL;
    size_t esz = (size_t)PyArray_ITEMSIZE(t);
    struct stage st;
    if (stage_in(fn, to, t, n * esz, so, s, n * esz, 0, &st) < 0) return NULL;
    int rc = f(team, st.t, st.s, n);
    stage_out(t, &st);
    return coll_rc(fn, rc);
}

static PyObject *py_reduce(PyObject *s, PyObject *a, PyObject *k) { (void)s; return reduce_op(a, k, -1); }
#define RED_PY(OP, I) \
    static PyObject *py_##OP##_reduce(PyObject *s, PyObject *a, PyObject *k) { (void)s; return reduce_op(a, k, I); }
RED_PY(sum, 0) RED_PY(prod, 1) RED_PY(min, 2) RED_PY(max, 3) RED_PY(and, 4) RED_PY(or, 5) RED_PY(xor, 6)

/* ---- Locks (a lock is a symmetric one-element int64 array, shmem4py's handle) ---- */

static long *lock_arg(const char *fn, PyObject *o)
{
    _Static_assert(sizeof(long) == 8, "a lock word is a C long of 8 bytes");
    return word_arg(fn, "lock", o, 'i', "int64", "new_lock");
}

static PyObject *py_new_lock(PyObject *self, PyObject *noargs)
{
    (void)self, (void)noargs;
    return call_module("zeros", "(is)", 1, "int64");
}

static PyObject *py_set_lock(PyObject *self, PyObject *o)
{
    (void)self;
    long *l = lock_arg("set_lock", o);
    if (!l) return NULL;
    Py_BEGIN_ALLOW_THREADS shmem_set_lock(l);
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}

/* True when the lock was set already (not acquired), as shmem4py. */
static PyObject *py_test_lock(PyObject *self, PyObject *o)
{
    (void)self;
    long *l = lock_arg("test_lock", o);
    return l ? PyBool_FromLong(shmem_test_lock(l)) : NULL;
}

static PyObject *py_clear_lock(PyObject *self, PyObject *o)
{
    (void)self;
    long *l = lock_arg("clear_lock", o);
    if (!l) return NULL;
    shmem_clear_lock(l);
    Py_RETURN_NONE;
}

/* Lock(): shmem4py's lock object (acquire, release, destroy, `with lock:`). */
typedef struct {
    PyObject_HEAD
    PyObject *lock; /* the symmetric lock word; None after destroy */
} LockObj;

static int Lock_init(LockObj *self, PyObject *args, PyObject *kw)
{
    if (!PyArg_ParseTuple(args, ":Lock") || (kw && PyDict_Size(kw))) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "Lock() takes no arguments");
        return -1;
    }
    PyObject *l = py_new_lock(NULL, NULL);
    if (!l) return -1;
    Py_XSETREF(self->lock, l);
    return 0;
}

static void Lock_dealloc(LockObj *self)
{
    Py_XDECREF(self->lock); /* dropped: freed at the next collective where every PE agrees */
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Lock_word(LockObj *self)
{
    if (self->lock && self->lock != Py_None) return self->lock;
    return sp_raise(symheap_py_error, "Lock", "the lock was destroyed");
}

static PyObject *Lock_destroy(LockObj *self, PyObject *n)
{
    (void)n;
    if (!self->lock || self->lock == Py_None) Py_RETURN_NONE;
    PyObject *l = self->lock;
    self->lock = Py_NewRef(Py_None);
    PyObject *r = py_del_word(NULL, l);
    Py_DECREF(l);
    return r;
}

static PyObject *Lock_acquire(LockObj *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = { "blocking", NULL };
    int blocking = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|p:acquire", kwlist, &blocking)) return NULL;
    PyObject *l = Lock_word(self);
    if (!l) return NULL;
    if (blocking) {
        PyObject *r = py_set_lock(NULL, l);
        if (!r) return NULL;
        Py_DECREF(r);
        Py_RETURN_TRUE;
    }
    PyObject *was_set = py_test_lock(NULL, l);
    if (!was_set) return NULL;
    int acquired = was_set == Py_False;
    Py_DECREF(was_set);
    return PyBool_FromLong(acquired);
}

static PyObject *Lock_release(LockObj *self, PyObject *n)
{
    (void)n;
    PyObject *l = Lock_word(self);
    return l ? py_clear_lock(NULL, l) : NULL;
}

static PyObject *Lock_enter(LockObj *self, PyObject *n)
{
    (void)n;
    PyObject *l = Lock_word(self);
    return l ? discard(py_set_lock(NULL, l), Py_None) : NULL;
}

static PyObject *Lock_exit(LockObj *self, PyObject *args)
{
    (void)args;
    return discard(Lock_release(self, NULL), Py_False);
}

static PyMethodDef Lock_methods[] = {
    { "acquire", (PyCFunction)(void (*)(void))Lock_acquire, METH_VARARGS | METH_KEYWORDS,
      "acquire(blocking=True) -> True when acquired" },
    { "release", (PyCFunction)Lock_release, METH_NOARGS, "Release the lock." },
    { "destroy", (PyCFunction)Lock_destroy, METH_NOARGS, "Free the lock word (collective)." },
    { "__enter__", (PyCFunction)Lock_enter, METH_NOARGS, NULL },
    { "__exit__", (PyCFunction)Lock_exit, METH_VARARGS, NULL },
    { NULL, NULL, 0, NULL }
};

static PyTypeObject Lock_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "symheap.Lock",
    .tp_basicsize = sizeof(LockObj),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Lock_init,
    .tp_dealloc = (destructor)Lock_dealloc,
    .tp_methods = Lock_methods,
    .tp_doc = "A distributed lock (collective to create): acquire, release, destroy, `with lock:`.",
};

static PyObject *py_pe_accessible(PyObject *self, PyObject *args)
{
    (void)self;
    int pe;
    if (!PyArg_ParseTuple(args, "i:pe_accessible", &pe) || sp_ensure("pe_accessible") < 0)
        return NULL;
    return PyBool_FromLong(shmem_pe_accessible(pe));
}

static PyObject *py_addr_accessible(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *o;
    int pe;
    if (!PyArg_ParseTuple(args, "Oi:addr_accessible", &o, &pe) || sp_ensure("addr_accessible") < 0)
        return NULL;
    PyArrayObject *a = sp_array("addr_accessible", "addr", o, 0);
    return a ? PyBool_FromLong(shmem_addr_accessible(PyArray_DATA(a), pe)) : NULL;
}

/* ---- Method table and constants -------------------------------------------------- */

PyMethodDef symheap_ops_methods[] = {
    SP_KW("put", py_put, "put(target, source, pe, size=None): copy local source to symmetric target on pe."),
    SP_KW("get", py_get, "get(target, source, pe, size=None): copy symmetric source on pe to local target."),
    SP_KW("put_nbi", py_put_nbi, "put, completed by quiet()."),
    SP_KW("get_nbi", py_get_nbi, "get, completed by quiet()."),
    SP_KW("iput", py_iput, "iput(target, source, pe, tst=1, sst=1, size=None): strided put."),
    SP_KW("iget", py_iget, "iget(target, source, pe, tst=1, sst=1, size=None): strided get."),
    SP_KW("p", py_p, "p(target, value, pe): store value into target[0] on pe."),
    SP_KW("g", py_g, "g(source, pe): source[0] on pe."),
    SP_KW("atomic_fetch", py_atomic_fetch, "atomic_fetch(source, pe)"),
    SP_KW("atomic_set", py_atomic_set, "atomic_set(target, value, pe)"),
    SP_KW("atomic_swap", py_atomic_swap, "atomic_swap(target, value, pe) -> old"),
    SP_KW("atomic_compare_swap", py_atomic_compare_swap, "atomic_compare_swap(target, cond, value, pe) -> old"),
    SP_KW("atomic_fetch_inc", py_atomic_fetch_inc, "atomic_fetch_inc(target, pe) -> old"),
    SP_KW("atomic_inc", py_atomic_inc, "atomic_inc(target, pe)"),
    SP_KW("atomic_fetch_add", py_atomic_fetch_add, "atomic_fetch_add(target, value, pe) -> old"),
    SP_KW("atomic_add", py_atomic_add, "atomic_add(target, value, pe)"),
    SP_KW("atomic_fetch_and", py_atomic_fetch_and, "atomic_fetch_and(target, value, pe) -> old"),
    SP_KW("atomic_and", py_atomic_and, "atomic_and(target, value, pe)"),
    SP_KW("atomic_fetch_or", py_atomic_fetch_or, "atomic_fetch_or(target, value, pe) -> old"),
    SP_KW("atomic_or", py_atomic_or, "atomic_or(target, value, pe)"),
    SP_KW("atomic_fetch_xor", py_atomic_fetch_xor, "atomic_fetch_xor(target, value, pe) -> old"),
    SP_KW("atomic_xor", py_atomic_xor, "atomic_xor(target, value, pe)"),
    SP_KW("atomic_op", py_atomic_op, "atomic_op(target, value, op, pe)"),
    SP_KW("atomic_fetch_op", py_atomic_fetch_op, "atomic_fetch_op(target, value, op, pe) -> old"),
    SP_KW("wait_until", py_wait_until, "wait_until(ivar, cmp, value): block until ivar[0] cmp value."),
    SP_KW("test", py_test, "test(ivar, cmp, value) -> bool"),
    { "new_signal", py_new_signal, METH_NOARGS, "A symmetric uint64 signal word (collective)." },
    { "del_signal", py_del_word, METH_O, "Free a signal (collective)." },
    SP_KW("put_signal", py_put_signal, "put_signal(target, source, pe, signal, value, sigop, size=None)"),
    SP_KW("put_signal_nbi", py_put_signal_nbi, "put_signal, completed by quiet()."),
    { "signal_fetch", py_signal_fetch, METH_O, "signal_fetch(signal) -> int" },
    { "signal_add", py_signal_add, METH_VARARGS, "signal_add(signal, value, pe)" },
    { "signal_set", py_signal_set, METH_VARARGS, "signal_set(signal, value, pe)" },
    SP_KW("signal_wait_until", py_signal_wait_until, "signal_wait_until(signal, cmp, value) -> int"),
    { "new_lock", py_new_lock, METH_NOARGS, "A symmetric lock word (collective; free with del_lock)." },
    { "del_lock", py_del_word, METH_O, "Free a lock (collective)." },
    { "set_lock", py_set_lock, METH_O, "Acquire the lock, waiting for it." },
    { "test_lock", py_test_lock, METH_O, "Acquire the lock if free; True when it was set already." },
    { "clear_lock", py_clear_lock, METH_O, "Release the lock (after a quiet)." },
    { "pe_accessible", py_pe_accessible, METH_VARARGS, "pe_accessible(pe) -> bool" },
    { "addr_accessible", py_addr_accessible, METH_VARARGS, "addr_accessible(array, pe) -> bool" },
    { "fence", py_fence, METH_VARARGS, "Order puts to each PE." },
    { "quiet", py_quiet, METH_VARARGS, "Complete every put, get and AMO issued." },
    SP_KW("barrier_all", py_barrier_all, "barrier_all(stream=None): barrier of every PE (and quiet); with a CUDA stream, after the stream's work."),
    { "sync_all", py_sync_all, METH_NOARGS, "Synchronize every PE." },
    SP_KW("sync", py_sync, "sync(team=None)"),
    SP_KW("broadcast", py_broadcast, "broadcast(target, source, root, size=None, team=None)"),
    SP_KW("collect", py_collect, "collect(target, source, size=None, team=None)"),
    SP_KW("fcollect", py_fcollect, "fcollect(target, source, size=None, team=None)"),
    SP_KW("alltoall", py_alltoall, "alltoall(target, source, size=None, team=None)"),
    SP_KW("reduce", py_reduce, "reduce(target, source, op='sum', size=None, team=None)"),
    SP_KW("sum_reduce", py_sum_reduce, "sum_reduce(target, source, size=None, team=None)"),
    SP_KW("prod_reduce", py_prod_reduce, "prod_reduce(target, source, size=None, team=None)"),
    SP_KW("min_reduce", py_min_reduce, "min_reduce(target, source, size=None, team=None)"),
    SP_KW("max_reduce", py_max_reduce, "max_reduce(target, source, size=None, team=None)"),
    SP_KW("and_reduce", py_and_reduce, "and_reduce(target, source, size=None, team=None)"),
    SP_KW("or_reduce", py_or_reduce, "or_reduce(target, source, size=None, team=None)"),
    SP_KW("xor_reduce", py_xor_reduce, "xor_reduce(target, source, size=None, team=None)"),
    { NULL, NULL, 0, NULL }
};

int symheap_ops_init(PyObject *m)
{
    if (PyType_Ready(&Team_Type) < 0 || PyModule_AddObjectRef(m, "Team", (PyObject *)&Team_Type) < 0 ||
        PyType_Ready(&Lock_Type) < 0 || PyModule_AddObjectRef(m, "Lock", (PyObject *)&Lock_Type) < 0)
        return -1;
    struct { const char *name; shmem_team_t t; } teams[] = {
        { "TEAM_WORLD", SHMEM_TEAM_WORLD }, { "TEAM_SHARED", SHMEM_TEAM_SHARED },
        { "TEAM_INVALID", SHMEM_TEAM_INVALID },
    };
    for (size_t i = 0; i < sizeof teams / sizeof *teams; i++) {
        PyObject *t = team_new_obj(teams[i].t);
        if (!t || PyModule_AddObject(m, teams[i].name, t) < 0) {
            Py_XDECREF(t);
            return -1;
        }
    }
    struct { const char *name; long v; } ints[] = {
        { "CMP_EQ", SHMEM_CMP_EQ }, { "CMP_NE", SHMEM_CMP_NE }, { "CMP_GT", SHMEM_CMP_GT },
        { "CMP_GE", SHMEM_CMP_GE }, { "CMP_LT", SHMEM_CMP_LT }, { "CMP_LE", SHMEM_CMP_LE },
        { "SIGNAL_SET", SHMEM_SIGNAL_SET }, { "SIGNAL_ADD", SHMEM_SIGNAL_ADD },
    };
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++)
        if (PyModule_AddIntConstant(m, ints[i].name, ints[i].v) < 0) return -1;
    static const char *const strs[][2] = {
        { "OP_SUM", "sum" }, { "OP_PROD", "prod" }, { "OP_MIN", "min" }, { "OP_MAX", "max" },
        { "OP_AND", "and" }, { "OP_OR", "or" }, { "OP_XOR", "xor" },
        { "AMO_SET", "set" }, { "AMO_INC", "inc" }, { "AMO_ADD", "add" },
        { "AMO_AND", "and" }, { "AMO_OR", "or" }, { "AMO_XOR", "xor" },
    };
    for (size_t i = 0; i < sizeof strs / sizeof *strs; i++)
        if (PyModule_AddStringConstant(m, strs[i][0], strs[i][1]) < 0) return -1;
    /* shmem4py's enum-like names: CMP.EQ, SIGNAL.SET, AMO.ADD, OP.SUM, MALLOC.ATOMICS_REMOTE */
    static const char *const groups[] = { "CMP", "SIGNAL", "AMO", "OP", "MALLOC" };
    PyObject *types = PyImport_ImportModule("types");
    PyObject *ns_type = types ? PyObject_GetAttrString(types, "SimpleNamespace") : NULL;
    Py_XDECREF(types);
    if (!ns_type) return -1;
    PyObject *dict = PyModule_GetDict(m);
    for (size_t g = 0; g < sizeof groups / sizeof *groups; g++) {
        PyObject *kw = PyDict_New(), *key, *val;
        Py_ssize_t pos = 0;
        size_t len = strlen(groups[g]);
        while (kw && PyDict_Next(dict, &pos, &key, &val)) {
            const char *k = PyUnicode_AsUTF8(key);
            if (k && strncmp(k, groups[g], len) == 0 && k[len] == '_' &&
                PyDict_SetItemString(kw, k + len + 1, val) < 0)
                Py_CLEAR(kw);
        }
        PyObject *empty = PyTuple_New(0);
        PyObject *ns = kw && empty ? PyObject_Call(ns_type, empty, kw) : NULL;
        Py_XDECREF(empty);
        Py_XDECREF(kw);
        if (!ns || PyModule_AddObject(m, groups[g], ns) < 0) {
            Py_XDECREF(ns);
            Py_DECREF(ns_type);
            return -1;
        }
    }
    Py_DECREF(ns_type);
    return 0;
}
