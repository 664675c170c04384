/* nvshmem_host.c - the parts of the NVSHMEM host API (include/symheap/nvshmem.h,
 * nvshmemx.h) that are more than a one-liner: int32 team handles, reducescatter,
 * maxloc, initialization with attributes and unique IDs, buffer registration.
 * Written over the public shmem_* API, like the header's one-liners (and
 * init.c's shmi_init_uniqueid for the unique-ID start-up). */
#include "api/ctx.h" /* shmi_init_uniqueid */
#include "core/mem_device.h" /* shmi_gpu_adopt, shmi_gpu_module */
#include <symheap/nvshmemx.h>

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- Errors -------------------------------------------------------------------------
 * One line on stderr in the library's format, then the job ends (every PE,
 * through shmem_global_exit, once initialized) with status 1. */
static void nv_vmsg(const char *level, const char *fmt, va_list ap)
{
    int initialized = 0;
    shmem_query_initialized(&initialized);
    char buf[1024];
    int n = initialized ? snprintf(buf, sizeof buf, "[pe %d] symheap %s: ", shmem_my_pe(), level)
                        : snprintf(buf, sizeof buf, "[pe ?] symheap %s: ", level);
    vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
    size_t len = strlen(buf);
    buf[len++] = '\n';
    ssize_t w = write(2, buf, len);
    (void)w;
}

/* A returned error (NVSHMEMX_ERROR_*) is also said on stderr, as NVSHMEM does. */
__attribute__((format(printf, 1, 2))) static void nv_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    nv_vmsg("error", fmt, ap);
    va_end(ap);
}

__attribute__((format(printf, 1, 2), noreturn)) static void nv_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    nv_vmsg("error", fmt, ap);
    va_end(ap);
    int initialized = 0;
    shmem_query_initialized(&initialized);
    if (initialized) shmem_global_exit(1);
    exit(1);
}

void nvshmemi_bad_sig_op(const char *fn, int sig_op)
{
    nv_fail("%s: sig_op=%d is not a signal operator: use NVSHMEM_SIGNAL_SET (%d) or "
            "NVSHMEM_SIGNAL_ADD (%d)", fn, sig_op, NVSHMEM_SIGNAL_SET, NVSHMEM_SIGNAL_ADD);
}

/* ---- Teams: index -> OpenSHMEM team ---------------------------------------------- */
shmem_team_t nvshmemi_team_pool[NVSHMEMI_TEAM_SLOTS] = {
    [NVSHMEM_TEAM_WORLD_INDEX] = SHMEM_TEAM_WORLD,
    [NVSHMEM_TEAM_SHARED_INDEX] = SHMEM_TEAM_SHARED,
    [NVSHMEM_TEAM_NODE_INDEX] = SHMEM_TEAM_SHARED, /* one node: the same PEs */
};
static pthread_mutex_t nv_lock = PTHREAD_MUTEX_INITIALIZER;

/* A free index for t (lowest first, so PEs that split alike get the same one). */
static nvshmem_team_t slot_new(shmem_team_t t)
{
    if (t == SHMEM_TEAM_INVALID) return NVSHMEM_TEAM_INVALID;
    pthread_mutex_lock(&nv_lock);
    for (int i = NVSHMEM_TEAMS_MIN; i < NVSHMEMI_TEAM_SLOTS; i++)
        if (nvshmemi_team_pool[i] == SHMEM_TEAM_INVALID) {
            nvshmemi_team_pool[i] = t;
            pthread_mutex_unlock(&nv_lock);
            return i;
        }
    pthread_mutex_unlock(&nv_lock);
    nv_fail("nvshmem_team_split: all %d team indices are in use: destroy teams you no longer "
            "use with nvshmem_team_destroy", NVSHMEMI_TEAM_SLOTS - NVSHMEM_TEAMS_MIN);
}

/* slot_new, and the team in this PE's device team table (collective over t
 * while the GPU heap is up: kernels may use the team once this returns). */
static nvshmem_team_t team_new(const char *fn, shmem_team_t t)
{
    nvshmem_team_t i = slot_new(t);
    if (i != NVSHMEM_TEAM_INVALID) shmi_gpu_team_set(fn, i, t);
    return i;
}
_Static_assert(NVSHMEMI_TEAM_SLOTS == SHMEMX_GPU_TEAMS, "one device table entry per team index");

static void config_in(const nvshmem_team_config_t *config, long mask, shmem_team_config_t *c,
                      long *m)
{
    memset(c, 0, sizeof *c);
    *m = 0;
    if (config && (mask & NVSHMEM_TEAM_CONFIG_MASK_NUM_CONTEXTS)) {
        c->num_contexts = config->num_contexts;
        *m = SHMEM_TEAM_NUM_CONTEXTS;
    }
}

int nvshmem_team_split_strided(nvshmem_team_t parent_team, int PE_start, int PE_stride,
                               int PE_size, const nvshmem_team_config_t *config,
                               long config_mask, nvshmem_team_t *new_team)
{
    shmem_team_config_t c;
    long m;
    config_in(config, config_mask, &c, &m);
    shmem_team_t t = SHMEM_TEAM_INVALID;
    int rc = shmem_team_split_strided(nvshmemi_team(parent_team), PE_start, PE_stride, PE_size,
                                      &c, m, &t);
    if (new_team)
        *new_team = rc == 0 ? team_new("nvshmem_team_split_strided", t) : NVSHMEM_TEAM_INVALID;
    return rc;
}

int nvshmem_team_split_2d(nvshmem_team_t parent_team, int xrange,
                          const nvshmem_team_config_t *xaxis_config, long xaxis_mask,
                          nvshmem_team_t *xaxis_team, const nvshmem_team_config_t *yaxis_config,
                          long yaxis_mask, nvshmem_team_t *yaxis_team)
{
    shmem_team_config_t xc, yc;
    long xm, ym;
    config_in(xaxis_config, xaxis_mask, &xc, &xm);
    config_in(yaxis_config, yaxis_mask, &yc, &ym);
    shmem_team_t x = SHMEM_TEAM_INVALID, y = SHMEM_TEAM_INVALID;
    int rc = shmem_team_split_2d(nvshmemi_team(parent_team), xrange, &xc, xm, &x, &yc, ym, &y);
    /* A team the caller asked not to get back (NULL) is destroyed again; every
     * member of it made the same call, so this is collective over it too. */
    if (xaxis_team)
        *xaxis_team = rc == 0 ? team_new("nvshmem_team_split_2d", x) : NVSHMEM_TEAM_INVALID;
    else if (rc == 0 && x != SHMEM_TEAM_INVALID) shmem_team_destroy(x);
    if (yaxis_team)
        *yaxis_team = rc == 0 ? team_new("nvshmem_team_split_2d", y) : NVSHMEM_TEAM_INVALID;
    else if (rc == 0 && y != SHMEM_TEAM_INVALID) shmem_team_destroy(y);
    return rc;
}

void nvshmem_team_destroy(nvshmem_team_t team)
{
    if (team == NVSHMEM_TEAM_INVALID) return;
    if (team >= 0 && team < NVSHMEM_TEAMS_MIN)
        nv_fail("nvshmem_team_destroy: team %d is a predefined team (NVSHMEM_TEAM_WORLD, "
                "_SHARED, NVSHMEMX_TEAM_NODE ...), which cannot be destroyed", (int)team);
    shmem_team_t t = nvshmemi_team(team);
    if (t == SHMEM_TEAM_INVALID)
        nv_fail("nvshmem_team_destroy: team %d is not a team (destroyed already, or never made "
                "by nvshmem_team_split_strided / _2d)", (int)team);
    shmi_gpu_team_set("nvshmem_team_destroy", team, NULL);
    shmem_team_destroy(t);
    pthread_mutex_lock(&nv_lock);
    nvshmemi_team_pool[team] = SHMEM_TEAM_INVALID;
    pthread_mutex_unlock(&nv_lock);
}

void nvshmem_team_get_config(nvshmem_team_t team, nvshmem_team_config_t *config)
{
    if (!config) return;
    memset(config, 0, sizeof *config);
    config->version = NVSHMEMI_TEAM_CONFIG_VERSION_2_IDENTIFIER;
    config->uniqueid = NVSHMEM_TEAM_UNIQUID_INITIALIZER;
    shmem_team_config_t c = { 0 };
    config->num_contexts =
        shmem_team_get_config(nvshmemi_team(team), SHMEM_TEAM_NUM_CONTEXTS, &c) == 0
            ? c.num_contexts : -1;
}

int nvshmemx_team_get_uniqueid(nvshmemx_team_uniqueid_t *uniqueid)
{
    (void)uniqueid;
    nv_fail("nvshmemx_team_get_uniqueid: teams from a unique ID are not supported by symheap "
            "yet; make the team with nvshmem_team_split_strided or nvshmem_team_split_2d");
}

int nvshmemx_team_init(nvshmem_team_t *team, nvshmem_team_config_t *config, long config_mask,
                       int npes, int pe_idx_in_team)
{
    (void)team, (void)config, (void)config_mask, (void)npes, (void)pe_idx_in_team;
    nv_fail("nvshmemx_team_init: teams from a unique ID are not supported by symheap yet; "
            "make the team with nvshmem_team_split_strided or nvshmem_team_split_2d");
}

/* ---- reducescatter: one team reduction per block, each PE keeps its own ---------------
 * Round i reduces block i of every member's source into dest on every member;
 * member i copies it aside and puts it back at the end.  n rounds of nreduce
 * elements cost what one reduction of n * nreduce does, plus n - 1 latencies,
 * and the result is bit-identical to the reduction's. */
typedef int (*nv_reduce_fn)(shmem_team_t team, void *dest, const void *source, size_t n);

static int overlaps(const void *a, size_t alen, const void *b, size_t blen)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return alen && blen && x < y + blen && y < x + alen;
}

static int reducescatter(const char *fn, nvshmem_team_t team, void *dest, const void *source,
                         size_t nreduce, size_t esize, nv_reduce_fn reduce)
{
    shmem_team_t t = nvshmemi_team(team);
    int n = shmem_team_n_pes(t), me = shmem_team_my_pe(t);
    if (t == SHMEM_TEAM_INVALID || n < 1) return -1;
    if (nreduce > SIZE_MAX / esize / (size_t)n)
        nv_fail("%s: nreduce=%zu blocks of %d team members overflow size_t", fn, nreduce, n);
    size_t bytes = nreduce * esize;
    if (overlaps(dest, bytes, source, bytes * (size_t)n))
        nv_fail("%s: dest=%p (%zu bytes) overlaps source=%p (%zu bytes: %d blocks of %zu): "
                "give dest a buffer of its own", fn, dest, bytes, source, bytes * (size_t)n, n,
                bytes);
    void *mine = bytes ? malloc(bytes) : NULL;
    if (bytes && !mine) nv_fail("%s: out of private memory for %zu bytes", fn, bytes);
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        rc = reduce(t, dest, (const char *)source + (size_t)i * bytes, nreduce);
        if (i == me && bytes) memcpy(mine, dest, bytes);
    }
    if (rc == 0 && bytes) memcpy(dest, mine, bytes);
    free(mine);
    return rc;
}

#define SHMI_NV_RS1(N, T, OP)                                                                 \
    static int nv_rs_##N##_##OP(shmem_team_t team, void *d, const void *s, size_t n)       \
    { return shmem_##N##_##OP##_reduce(team, (T *)d, (const T *)s, n); }                    \
    int nvshmem_##N##_##OP##_reducescatter(nvshmem_team_t team, T *dest, const T *source,  \
                                           size_t nreduce)                                  \
    {                                                                                       \
        return reducescatter("nvshmem_" #N "_" #OP "_reducescatter", team, dest, source,    \
                             nreduce, sizeof(T), nv_rs_##N##_##OP);                         \
    }                                                                                       \
    /* the host side of CUDA code's __host__ __device__ nvshmem_ form */                   \
    int nvshmemi_##N##_##OP##_reducescatter(nvshmem_team_t team, T *dest, const T *source, \
                                            size_t nreduce)                                 \
    {                                                                                       \
        return reducescatter("nvshmem_" #N "_" #OP "_reducescatter", team, dest, source,    \
                             nreduce, sizeof(T), nv_rs_##N##_##OP);                         \
    }
#define SHMI_NV_RS(N, T, B, O, G)                                                           \
    SHMI_WHEN_##B##_BIT(SHMI_NV_RS1(N, T, and) SHMI_NV_RS1(N, T, or) SHMI_NV_RS1(N, T, xor)) \
    SHMI_WHEN_##O##_ORD(SHMI_NV_RS1(N, T, max) SHMI_NV_RS1(N, T, min))                      \
    SHMI_NV_RS1(N, T, sum) SHMI_NV_RS1(N, T, prod)
NVSHMEM_REDUCE_TABLE(SHMI_NV_RS)

/* ---- maxloc: every member reads every member's pairs, in team rank order -------------- */
int nvshmemx_double2_maxloc_reduce_block(nvshmem_team_t team, double2 *dest, const double2 *src,
                                         size_t nreduce)
{
    return nvshmemi_double2_maxloc_reduce_host(team, dest, src, nreduce);
}

int nvshmemi_double2_maxloc_reduce_host(nvshmem_team_t team, double2 *dest, const double2 *src,
                                        size_t nreduce)
{
    shmem_team_t t = nvshmemi_team(team);
    int n = shmem_team_n_pes(t);
    if (t == SHMEM_TEAM_INVALID || n < 1) return -1;
    if (nreduce > SIZE_MAX / sizeof(double2))
        nv_fail("nvshmemx_double2_maxloc_reduce_block: nreduce=%zu overflows size_t", nreduce);
    size_t bytes = nreduce * sizeof(double2);
    double2 *acc = malloc(bytes ? bytes : 1), *in = malloc(bytes ? bytes : 1);
    if (!acc || !in)
        nv_fail("nvshmemx_double2_maxloc_reduce_block: out of private memory for %zu bytes",
                2 * bytes);
    shmem_team_sync(t); /* every member's src is ready */
    for (int r = 0; r < n; r++) {
        shmem_getmem(r ? in : acc, src, bytes, shmem_team_translate_pe(t, r, SHMEM_TEAM_WORLD));
        for (size_t i = 0; r && i < nreduce; i++)
            if (in[i].x > acc[i].x || (in[i].x == acc[i].x && in[i].y < acc[i].y)) acc[i] = in[i];
    }
    shmem_team_sync(t); /* nobody overwrites src (dest may be src) before all have read it */
    if (bytes) memcpy(dest, acc, bytes);
    free(acc);
    free(in);
    return 0;
}

/* ---- Initialization with attributes, unique IDs ----------------------------------------- */
/* The ID is shmemx_get_uniqueid's (init.c: the rendezvous of boot_uid.c). */
_Static_assert(sizeof(((nvshmemx_uniqueid_t *)0)->internal) ==
                   sizeof(((shmemx_uniqueid_t *)0)->internal),
               "nvshmemx_uniqueid_t carries a shmemx_uniqueid_t");

int nvshmemx_get_uniqueid(nvshmemx_uniqueid_t *uniqueid)
{
    if (!uniqueid) return NVSHMEMX_ERROR_INVALID_VALUE;
    shmemx_uniqueid_t id;
    shmemx_get_uniqueid(&id);
    memset(uniqueid, 0, sizeof *uniqueid);
    uniqueid->version = (1 << 16) + (int)sizeof(nvshmemx_uniqueid_t);
    memcpy(uniqueid->internal, id.internal, sizeof id.internal);
    return NVSHMEMX_SUCCESS;
}

int nvshmemx_set_attr_uniqueid_args(const int myrank, const int nranks,
                                    const nvshmemx_uniqueid_t *uniqueid,
                                    nvshmemx_init_attr_t *attr)
{
    if (!attr) return NVSHMEMX_ERROR_INVALID_VALUE;
    attr->version = NVSHMEM_INIT_ATTR_V2_IDENTIFIER;
    attr->args.version = NVSHMEM_INIT_ARGS_V2_IDENTIFIER;
    attr->args.uid_args.version = (1 << 16) + (int)sizeof(nvshmemx_uniqueid_args_t);
    attr->args.uid_args.id = (nvshmemx_uniqueid_t *)(uintptr_t)uniqueid;
    attr->args.uid_args.myrank = myrank;
    attr->args.uid_args.nranks = nranks;
    return NVSHMEMX_SUCCESS;
}

int nvshmemx_set_attr_mpi_comm_args(void *mpi_comm, nvshmemx_init_attr_t *nvshmem_attr)
{
    if (!nvshmem_attr) return NVSHMEMX_ERROR_INVALID_VALUE;
    nvshmem_attr->mpi_comm = mpi_comm;
    return NVSHMEMX_SUCCESS;
}

int nvshmemx_hostlib_init_attr(unsigned int flags, nvshmemx_init_attr_t *attr)
{
    const char *fn = "nvshmemx_init_attr";
    if (flags & NVSHMEMX_INIT_WITH_MPI_COMM) {
        if (flags & ~(unsigned)NVSHMEMX_INIT_WITH_MPI_COMM)
            nv_fail("%s: NVSHMEMX_INIT_WITH_MPI_COMM with other flags (0x%x): pass it alone",
                    fn, flags);
        if (!attr)
            nv_fail("%s(NVSHMEMX_INIT_WITH_MPI_COMM): attr is NULL: fill one with "
                    "nvshmemx_set_attr_mpi_comm_args", fn);
        shmi_init_mpi_comm("nvshmemx_init_attr(NVSHMEMX_INIT_WITH_MPI_COMM)", attr->mpi_comm);
        return NVSHMEMX_SUCCESS;
    }
    if (flags & NVSHMEMX_INIT_THREAD_PES)
        nv_fail("%s: NVSHMEMX_INIT_THREAD_PES is not supported: start one process per PE "
                "with symrun -n N and call nvshmem_init()", fn);
    if (flags & ~(unsigned)(NVSHMEMX_INIT_WITH_SHMEM | NVSHMEMX_INIT_WITH_UNIQUEID))
        nv_fail("%s: flags=0x%x has bits that are no NVSHMEMX_INIT_* flag", fn, flags);
    if ((flags & NVSHMEMX_INIT_WITH_SHMEM) && (flags & NVSHMEMX_INIT_WITH_UNIQUEID))
        nv_fail("%s: NVSHMEMX_INIT_WITH_SHMEM and NVSHMEMX_INIT_WITH_UNIQUEID together: "
                "pass one of them", fn);
    if (!(flags & NVSHMEMX_INIT_WITH_UNIQUEID)) {
        shmem_init(); /* 0 and WITH_SHMEM: OpenSHMEM is symheap itself */
        return NVSHMEMX_SUCCESS;
    }
    if (!attr)
        nv_fail("%s(NVSHMEMX_INIT_WITH_UNIQUEID): attr is NULL: fill one with "
                "nvshmemx_set_attr_uniqueid_args", fn);
    const nvshmemx_uniqueid_args_t *u = &attr->args.uid_args;
    if (!u->id)
        nv_fail("%s(NVSHMEMX_INIT_WITH_UNIQUEID): attr has no unique ID: fill it with "
                "nvshmemx_set_attr_uniqueid_args", fn);
    shmi_init_uniqueid("nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID)", u->id->internal,
                       u->myrank, u->nranks);
    return NVSHMEMX_SUCCESS;
}

/* ---- Buffer registration: a sorted list of ranges ------------------------------------ */
struct nv_range {
    uintptr_t addr;
    size_t len;
};
static struct nv_range *ranges;
static size_t nranges, cap;

int nvshmemx_buffer_register(void *addr, size_t length)
{
    if (!addr || !length) {
        nv_error("nvshmemx_buffer_register(%p, %zu): NULL address or zero length", addr, length);
        return NVSHMEMX_ERROR_INVALID_VALUE;
    }
    uintptr_t a = (uintptr_t)addr;
    int rc = NVSHMEMX_SUCCESS;
    pthread_mutex_lock(&nv_lock);
    size_t i = 0;
    while (i < nranges && ranges[i].addr < a) i++;
    if ((i > 0 && ranges[i - 1].addr + ranges[i - 1].len > a) ||
        (i < nranges && ranges[i].addr < a + length)) {
        const struct nv_range *r = i > 0 && ranges[i - 1].addr + ranges[i - 1].len > a
                                       ? &ranges[i - 1] : &ranges[i];
        nv_error("nvshmemx_buffer_register(%p, %zu): overlaps the registered buffer %p (%zu "
                 "bytes); unregister it first", addr, length, (void *)r->addr, r->len);
        rc = NVSHMEMX_ERROR_INVALID_VALUE;
    } else if (nranges == cap && !(ranges = realloc(ranges, (cap = cap ? 2 * cap : 16) *
                                                                sizeof *ranges))) {
        rc = NVSHMEMX_ERROR_OUT_OF_MEMORY;
        nranges = cap = 0;
    } else {
        memmove(&ranges[i + 1], &ranges[i], (nranges - i) * sizeof *ranges);
        ranges[i] = (struct nv_range){ a, length };
        nranges++;
    }
    pthread_mutex_unlock(&nv_lock);
    return rc;
}

int nvshmemx_buffer_unregister(void *addr)
{
    int rc = NVSHMEMX_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&nv_lock);
    for (size_t i = 0; i < nranges; i++)
        if (ranges[i].addr == (uintptr_t)addr) {
            memmove(&ranges[i], &ranges[i + 1], (nranges - i - 1) * sizeof *ranges);
            nranges--;
            rc = NVSHMEMX_SUCCESS;
            break;
        }
    pthread_mutex_unlock(&nv_lock);
    if (rc)
        nv_error("nvshmemx_buffer_unregister(%p): no registered buffer starts there", addr);
    return rc;
}

void nvshmemx_buffer_unregister_all(void)
{
    pthread_mutex_lock(&nv_lock);
    nranges = 0;
    pthread_mutex_unlock(&nv_lock);
}

void *nvshmemx_buffer_register_symmetric(void *buf_ptr, size_t size, int flags)
{
    char err[600];
    if (flags != 0) {
        nv_error("nvshmemx_buffer_register_symmetric(%p, %zu, flags=%d): flags must be 0 (no "
                 "flag is defined)", buf_ptr, size, flags);
        return NULL;
    }
    void *p = shmi_gpu_adopt("nvshmemx_buffer_register_symmetric", buf_ptr, size, err, sizeof err);
    if (!p) nv_error("nvshmemx_buffer_register_symmetric(%p, %zu): %s", buf_ptr, size, err);
    return p;
}

int nvshmemx_buffer_unregister_symmetric(void *mmap_ptr, size_t size)
{
    char err[600];
    if (shmi_gpu_unadopt("nvshmemx_buffer_unregister_symmetric", mmap_ptr, size, err,
                         sizeof err) == SHMI_OK)
        return NVSHMEMX_SUCCESS;
    nv_error("nvshmemx_buffer_unregister_symmetric(%p, %zu): %s", mmap_ptr, size, err);
    return NVSHMEMX_ERROR_INVALID_VALUE;
}

/* ---- Finalize ---------------------------------------------------------------------------- */
void nvshmemi_finalize(void)
{
    shmem_finalize();
    int initialized = 1;
    shmem_query_initialized(&initialized);
    if (initialized) return; /* an inner pair */
    pthread_mutex_lock(&nv_lock);
    for (int i = NVSHMEM_TEAMS_MIN; i < NVSHMEMI_TEAM_SLOTS; i++)
        nvshmemi_team_pool[i] = SHMEM_TEAM_INVALID;
    nranges = 0;
    pthread_mutex_unlock(&nv_lock);
}

/* ---- CUmodules and CUlibraries the program loads itself ---------------------------------
 * The module's own copy of the device state (shmi_dstate) gets the GPU heap's state now or
 * when the heap comes up (attach), or no more (detach): core/mem_device.c. */
static int cuobject(const char *fn, void *obj, int library, int attach)
{
    int initialized = 0;
    shmem_query_initialized(&initialized);
    if (!initialized) {
        nv_error("%s: called before nvshmem_init: initialize first, then hand over the %s", fn,
                 library ? "library" : "module");
        return NVSHMEMX_ERROR_INVALID_VALUE;
    }
    char err[600];
    int rc = shmi_gpu_module(obj, library, attach, err, sizeof err);
    if (rc == SHMI_OK) return NVSHMEMX_SUCCESS;
    nv_error("%s: %s", fn, err);
    return rc == SHMI_EINVAL ? NVSHMEMX_ERROR_INVALID_VALUE : NVSHMEMX_ERROR_INTERNAL;
}
int nvshmemx_cumodule_init(struct CUmod_st *module)
{ return cuobject(__func__, module, 0, 1); }
int nvshmemx_cumodule_finalize(struct CUmod_st *module)
{ return cuobject(__func__, module, 0, 0); }
int nvshmemx_culibrary_init(struct CUlib_st *library)
{ return cuobject(__func__, library, 1, 1); }
int nvshmemx_culibrary_finalize(struct CUlib_st *library)
{ return cuobject(__func__, library, 1, 0); }
