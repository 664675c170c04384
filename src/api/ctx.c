/* ctx.c - communication contexts: create, destroy, query, quiet/fence.
 *
 * An operation on a PE of this node completes before it returns, and those
 * on PEs of other nodes share the one UCX worker that shmi_quiet flushes, so
 * a context carries no queue: it is a team and a PE translation table (see
 * ctx.h).  Options are recorded and checked (PRIVATE: destroyed by its
 * creator) but change nothing else.  Quiet is a full fence (and the flush
 * when the job spans nodes); fence is a release fence.
 *
 * Destroyed contexts wait in a FIFO quarantine before their struct is
 * reused, so a second destroy or a use after destroy finds SHMI_CTX_DEAD and
 * stops with a message, instead of hitting a context created later.  The pool
 * is guarded by a mutex (SHMEM_THREAD_MULTIPLE: threads create contexts). */
#include "api/ctx.h"

#include <stdlib.h>

struct shmem_ctx_s shmi_ctx_default_s = { .magic = SHMI_CTX_LIVE, .team = SHMEM_TEAM_WORLD };

#define QUARANTINE 256 /* destroyed contexts kept dead before reuse */
#define KNOWN_OPTIONS (SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE)

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct shmem_ctx_s *dead_head, *dead_tail;
static size_t ndead;
/* The array of every context struct (ctx.h), SHMI_CTX_MAX long: its pages
 * are touched only as contexts are handed out (calloc of fresh memory).  It
 * stays reachable from here, so a program that never destroys its contexts
 * (allowed) shows no leak to LeakSanitizer. */
struct shmem_ctx_s *_Atomic shmi_ctx_pool;
static size_t pool_used;

_Noreturn void shmi_ctx_bad(const char *fn, shmem_ctx_t ctx, int pe)
{
    if (ctx == SHMEM_CTX_INVALID)
        shmi_fatal("%s: ctx is SHMEM_CTX_INVALID: create it with shmem_ctx_create (and check "
                   "its return value) or use SHMEM_CTX_DEFAULT", fn);
    if (!shmi_ctx_in_pool(ctx))
        shmi_fatal("%s: ctx=%p is not a context handle: pass one from shmem_ctx_create or "
                   "SHMEM_CTX_DEFAULT", fn, (void *)ctx);
    if (ctx->magic == SHMI_CTX_DEAD)
        shmi_fatal("%s: ctx=%p was destroyed by shmem_ctx_destroy: use a live context", fn,
                   (void *)ctx);
    if (ctx->magic != SHMI_CTX_LIVE)
        shmi_fatal("%s: ctx=%p is not a context handle: pass one from shmem_ctx_create or "
                   "SHMEM_CTX_DEFAULT", fn, (void *)ctx);
    shmi_fatal("%s: pe=%d is out of range for ctx=%p, whose team has %d PEs (0..%d): PE "
               "numbers on a team context count within the team", fn, pe, (void *)ctx,
               ctx->npes, ctx->npes - 1);
}

/* The ctx argument of a routine that takes SHMEM_CTX_INVALID as "do nothing":
 * 0 for INVALID, 1 for a live context, fatal otherwise. */
static int ctx_live(const char *fn, shmem_ctx_t ctx)
{
    shmi_check_running(fn);
    if (ctx == SHMEM_CTX_INVALID) return 0;
    if (ctx != SHMEM_CTX_DEFAULT && (!shmi_ctx_in_pool(ctx) || ctx->magic != SHMI_CTX_LIVE))
        shmi_ctx_bad(fn, ctx, 0);
    return 1;
}

static struct shmem_ctx_s *ctx_alloc(void)
{
    struct shmem_ctx_s *c = NULL, *pool;
    pthread_mutex_lock(&pool_lock);
    if (ndead > QUARANTINE) {
        c = dead_head;
        dead_head = c->next;
        if (!dead_head) dead_tail = NULL;
        ndead--;
    }
    pool = atomic_load_explicit(&shmi_ctx_pool, memory_order_relaxed);
    if (!c && !pool && (pool = calloc(SHMI_CTX_MAX, sizeof *pool)))
        atomic_store_explicit(&shmi_ctx_pool, pool, memory_order_release);
    if (!c && pool && pool_used < SHMI_CTX_MAX) c = &pool[pool_used++];
    pthread_mutex_unlock(&pool_lock);
    return c; /* NULL: out of memory or of slots, which the spec lets create report */
}

static void ctx_retire(struct shmem_ctx_s *c)
{
    free((void *)c->world);
    c->world = NULL;
    c->magic = SHMI_CTX_DEAD;
    c->next = NULL;
    pthread_mutex_lock(&pool_lock);
    if (dead_tail) dead_tail->next = c;
    else dead_head = c;
    dead_tail = c;
    ndead++;
    pthread_mutex_unlock(&pool_lock);
}

/* Team PE -> world PE table for team, or NULL when it is the identity (the
 * world team; the shared team when every PE is on this node).  Built once with the teams
 * module's public shmem_team_translate_pe, so an operation's translation is
 * one load.  Sets *ok to 0 when out of memory. */
static const int *world_table(const char *fn, shmem_team_t team, int n, int *ok)
{
    *ok = 1;
    if (team == SHMEM_TEAM_WORLD) return NULL;
    int *w = malloc((size_t)n * sizeof *w), identity = 1;
    if (!w) {
        *ok = 0;
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        w[i] = shmem_team_translate_pe(team, i, SHMEM_TEAM_WORLD);
        if (w[i] < 0 || w[i] >= shmi_g.npes)
            shmi_fatal("%s: team=%p: shmem_team_translate_pe(team, %d, SHMEM_TEAM_WORLD) gave "
                       "%d: the team is not valid on this PE", fn, (void *)team, i, w[i]);
        identity &= w[i] == i;
    }
    if (identity && n == shmi_g.npes) {
        free(w);
        return NULL;
    }
    return w;
}

static int create(const char *fn, shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    shmi_check_running(fn);
    if (!ctx) shmi_fatal("%s: ctx is NULL: pass the address of a shmem_ctx_t", fn);
    *ctx = SHMEM_CTX_INVALID;
    if (options & ~KNOWN_OPTIONS)
        shmi_fatal("%s: options=0x%lx has unknown bits 0x%lx: use 0 or an OR of "
                   "SHMEM_CTX_SERIALIZED, SHMEM_CTX_PRIVATE, SHMEM_CTX_NOSTORE", fn, options,
                   options & ~KNOWN_OPTIONS);
    if (team == SHMEM_TEAM_INVALID) return 1;
    int n = shmem_team_n_pes(team);
    if (n <= 0)
        shmi_fatal("%s: team=%p is not a valid team on this PE (shmem_team_n_pes gives %d): "
                   "pass a team this PE belongs to", fn, (void *)team, n);
    int ok;
    const int *world = world_table(fn, team, n, &ok);
    struct shmem_ctx_s *c = ok ? ctx_alloc() : NULL;
    if (!c) {
        free((void *)world);
        return 1; /* out of memory: not an error, per the spec */
    }
    *c = (struct shmem_ctx_s){ .magic = SHMI_CTX_LIVE, .npes = n, .world = world,
                               .options = options, .team = team, .owner = pthread_self() };
    *ctx = c;
    return 0;
}

int shmem_ctx_create(long options, shmem_ctx_t *ctx)
{
    return create(__func__, SHMEM_TEAM_WORLD, options, ctx);
}

int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    return create(__func__, team, options, ctx);
}

void shmem_ctx_destroy(shmem_ctx_t ctx)
{
    if (!ctx_live(__func__, ctx)) return;
    if (ctx == SHMEM_CTX_DEFAULT)
        shmi_fatal("shmem_ctx_destroy: ctx is SHMEM_CTX_DEFAULT, which cannot be destroyed: "
                   "destroy only contexts from shmem_ctx_create");
    if ((ctx->options & SHMEM_CTX_PRIVATE) && !pthread_equal(ctx->owner, pthread_self()))
        shmi_fatal("shmem_ctx_destroy: ctx=%p was created with SHMEM_CTX_PRIVATE by another "
                   "thread: destroy it in the thread that created it", (void *)ctx);
    shmi_quiet();
    ctx_retire(ctx);
}

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)
{
    if (!team) shmi_fatal("shmem_ctx_get_team: team is NULL: pass the address of a shmem_team_t");
    if (!ctx_live(__func__, ctx)) {
        *team = SHMEM_TEAM_INVALID;
        return 1;
    }
    *team = ctx->team;
    return 0;
}

void shmem_ctx_quiet(shmem_ctx_t ctx)
{
    if (ctx_live(__func__, ctx)) shmi_quiet();
}

void shmem_ctx_fence(shmem_ctx_t ctx)
{
    if (ctx_live(__func__, ctx)) shmi_fence();
}

static void pe_quiet(const char *fn, shmem_ctx_t ctx, const int *target_pes, size_t npes)
{
    if (!ctx_live(fn, ctx) || npes == 0) return;
    if (!target_pes)
        shmi_fatal("%s: target_pes is NULL with npes=%zu: pass an array of npes PE numbers "
                   "(or npes=0)", fn, npes);
    for (size_t i = 0; i < npes; i++) shmi_ctx_pe(fn, ctx, target_pes[i]);
    /* Operations to every PE complete alike here: a full quiet. */
    shmi_quiet();
}

void shmem_pe_quiet(const int *target_pes, size_t npes)
{
    pe_quiet(__func__, SHMEM_CTX_DEFAULT, target_pes, npes);
}

void shmem_ctx_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes)
{
    pe_quiet(__func__, ctx, target_pes, npes);
}

void shmem_ctx_session_start(shmem_ctx_t ctx, long options,
                             const shmem_ctx_session_config_t *config, long config_mask)
{
    (void)options, (void)config, (void)config_mask;
    ctx_live(__func__, ctx); /* hints only: nothing to batch when puts complete at once */
}

void shmem_ctx_session_stop(shmem_ctx_t ctx) { ctx_live(__func__, ctx); }

int shmi_ctx_pe_other(const char *fn, shmem_ctx_t ctx, int pe)
{
    shmi_check_running(fn);
    if (!SHMI_LIKELY(shmi_ctx_in_pool(ctx) && ctx->magic == SHMI_CTX_LIVE &&
                     (unsigned)pe < (unsigned)ctx->npes))
        shmi_ctx_bad(fn, ctx, pe);
    return ctx->world ? ctx->world[pe] : pe;
}
