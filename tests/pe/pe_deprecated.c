/* pe_deprecated.c - the deprecated names of shmem_deprecated.h: start_pes,
 * _my_pe, shmalloc..., old AMO names (typed and C11), shmem_wait, and the
 * active-set collectives over several sets at once: all PEs, the even and
 * the odd PEs (strided), a set of 3 (not a power of two), a single PE;
 * non-members skip.  Every result is checked on every member, pSync is
 * checked to be back to SHMEM_SYNC_VALUE, and dest of the broadcast root
 * must stay unchanged.  Any PE count. */
#include "pe_test.h"
#include <complex.h>
#include <string.h>

#define NE 5 /* elements per PE */
#define MAXPE 64

static long psync[SHMEM_SYNC_SIZE];
static long psync2[SHMEM_SYNC_SIZE];
static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + NE];
static int64_t src64[MAXPE * NE], dst64[MAXPE * NE * 3];
static int32_t src32[MAXPE * NE * 3], dst32[MAXPE * NE * 3];
static int isrc[NE], idst[NE];
static long lsrc[NE], ldst[NE];
static short ssrc[NE], sdst[NE];
static long long qsrc[NE], qdst[NE];
static float fsrc[NE], fdst[NE];
static double dsrc[NE], ddst[NE];
static long double xsrc[NE], xdst[NE];
static double _Complex csrc[NE], cdst[NE];
static long counter, flag;
static int iflag;
static long long qv;
static double dv;
static float fv;

struct set { int start, log, size; };

static int pe_of(struct set s, int r) { return s.start + (r << s.log); }
static int rank_in(struct set s, int pe)
{
    int d = pe - s.start;
    if (d < 0 || d % (1 << s.log) || (d >> s.log) >= s.size) return -1;
    return d >> s.log;
}

static void check_psync(void)
{
    for (int i = 0; i < SHMEM_SYNC_SIZE; i++)
        CHECKF(psync[i] == SHMEM_SYNC_VALUE && psync2[i] == SHMEM_SYNC_VALUE,
               "pSync[%d] = %ld / %ld after the collectives, not SHMEM_SYNC_VALUE", i,
               psync[i], psync2[i]);
}

/* Every active-set routine over set s, called by its members only. */
static void run_set(struct set s, long *ps)
{
    int me = _my_pe(), r = rank_in(s, me), n = s.size;
    if (r < 0) return;
    for (int k = 0; k < 5; k++) shmem_barrier(s.start, s.log, s.size, ps); /* same pSync at once */

    /* broadcast64 from the last member; the root's dest must stay as it was */
    int root = n - 1;
    for (int i = 0; i < NE; i++) { src64[i] = me * 1000 + i; dst64[i] = -7; }
    shmem_broadcast64(dst64, src64, NE, root, s.start, s.log, s.size, ps);
    for (int i = 0; i < NE; i++)
        CHECKF(dst64[i] == (r == root ? -7 : pe_of(s, root) * 1000 + i),
               "broadcast64 set (%d,%d,%d): dst[%d]=%lld", s.start, s.log, s.size, i,
               (long long)dst64[i]);
    /* broadcast32 from member 0 */
    for (int i = 0; i < NE; i++) { src32[i] = me * 7 + i; dst32[i] = -1; }
    shmem_broadcast32(dst32, src32, NE, 0, s.start, s.log, s.size, ps);
    for (int i = 0; i < NE; i++)
        CHECK(dst32[i] == (r == 0 ? -1 : pe_of(s, 0) * 7 + i));

    /* fcollect64: NE elements each, in set order */
    for (int i = 0; i < NE; i++) src64[i] = me * 100 + i;
    memset(dst64, 0, sizeof dst64);
    shmem_fcollect64(dst64, src64, NE, s.start, s.log, s.size, ps);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < NE; i++)
            CHECKF(dst64[j * NE + i] == pe_of(s, j) * 100 + i, "fcollect64 [%d][%d]=%lld", j, i,
                   (long long)dst64[j * NE + i]);

    /* collect32: member j gives j + 1 elements */
    for (int i = 0; i <= r; i++) src32[i] = me * 10 + i;
    memset(dst32, 0, sizeof dst32);
    shmem_collect32(dst32, src32, (size_t)r + 1, s.start, s.log, s.size, ps);
    for (int j = 0, off = 0; j < n; off += j + 1, j++)
        for (int i = 0; i <= j; i++)
            CHECKF(dst32[off + i] == pe_of(s, j) * 10 + i, "collect32 block %d [%d]=%d", j, i,
                   dst32[off + i]);

    /* alltoall64: block j of source goes to member j */
    for (int j = 0; j < n; j++)
        for (int i = 0; i < 2; i++) src64[j * 2 + i] = me * 100 + j * 10 + i;
    shmem_alltoall64(dst64, src64, 2, s.start, s.log, s.size, ps);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < 2; i++)
            CHECKF(dst64[j * 2 + i] == pe_of(s, j) * 100 + r * 10 + i, "alltoall64 [%d][%d]=%lld",
                   j, i, (long long)dst64[j * 2 + i]);

    /* alltoalls32: dst stride 2, source stride 3 (in elements) */
    for (int j = 0; j < n; j++)
        for (int i = 0; i < 2; i++) src32[(j * 2 + i) * 3] = me * 100 + j * 10 + i;
    memset(dst32, 0, sizeof dst32);
    shmem_alltoalls32(dst32, src32, 2, 3, 2, s.start, s.log, s.size, ps);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < 2; i++)
            CHECKF(dst32[(j * 2 + i) * 2] == pe_of(s, j) * 100 + r * 10 + i &&
                       dst32[(j * 2 + i) * 2 + 1] == 0,
                   "alltoalls32 [%d][%d]=%d", j, i, dst32[(j * 2 + i) * 2]);

    /* to_all reductions; expected values from the members' PE numbers */
    long sum = 0, maxpe = 0;
    long long prod = 1;
    int xr = 0, orr = 0, andd = ~0;
    for (int j = 0; j < n; j++) {
        int p = pe_of(s, j);
        sum += p;
        if (p > maxpe) maxpe = p;
        prod *= p + 1;
        xr ^= p;
        orr |= 1 << (p % 15);
        andd &= ~(1 << (p % 15));
    }
    for (int i = 0; i < NE; i++) {
        isrc[i] = me + i; lsrc[i] = me * (i + 1); ssrc[i] = (short)(1 << (me % 15));
        qsrc[i] = me + 1; fsrc[i] = (float)(me - i); dsrc[i] = me + 0.5;
        xsrc[i] = me * 2.0L; csrc[i] = me + 1.0 * I;
    }
    shmem_int_sum_to_all(idst, isrc, NE, s.start, s.log, s.size, (int *)pwrk, ps);
    shmem_long_max_to_all(ldst, lsrc, NE, s.start, s.log, s.size, pwrk, ps);
    shmem_short_or_to_all(sdst, ssrc, NE, s.start, s.log, s.size, (short *)pwrk, ps);
    shmem_longlong_prod_to_all(qdst, qsrc, NE, s.start, s.log, s.size, (long long *)pwrk, ps);
    shmem_float_min_to_all(fdst, fsrc, NE, s.start, s.log, s.size, (float *)pwrk, ps);
    shmem_double_sum_to_all(ddst, dsrc, NE, s.start, s.log, s.size, (double *)pwrk, ps);
    shmem_longdouble_max_to_all(xdst, xsrc, NE, s.start, s.log, s.size, (long double *)pwrk, ps);
    shmem_complexd_sum_to_all(cdst, csrc, NE, s.start, s.log, s.size, (double _Complex *)pwrk, ps);
    for (int i = 0; i < NE; i++) {
        CHECKF(idst[i] == sum + n * i, "int_sum_to_all [%d]=%d, want %ld", i, idst[i], sum + n * i);
        CHECKF(ldst[i] == maxpe * (i + 1), "long_max_to_all [%d]=%ld", i, ldst[i]);
        CHECKF(sdst[i] == (short)orr, "short_or_to_all [%d]=%d, want %d", i, sdst[i], orr);
        CHECKF(qdst[i] == prod, "longlong_prod_to_all [%d]=%lld, want %lld", i, qdst[i], prod);
        CHECKF(fdst[i] == (float)(s.start - i), "float_min_to_all [%d]=%g", i, fdst[i]);
        CHECKF(ddst[i] == sum + 0.5 * n, "double_sum_to_all [%d]=%g", i, ddst[i]);
        CHECKF(xdst[i] == maxpe * 2.0L, "longdouble_max_to_all [%d]=%Lg", i, xdst[i]);
        CHECKF(creal(cdst[i]) == sum && cimag(cdst[i]) == n, "complexd_sum_to_all [%d]", i);
    }
    /* in place, and the bitwise ones on int */
    for (int i = 0; i < NE; i++) isrc[i] = me;
    shmem_int_xor_to_all(isrc, isrc, NE, s.start, s.log, s.size, (int *)pwrk, ps);
    for (int i = 0; i < NE; i++) CHECKF(isrc[i] == xr, "int_xor_to_all in place: %d != %d", isrc[i], xr);
    for (int i = 0; i < NE; i++) isrc[i] = ~(1 << (me % 15));
    shmem_int_and_to_all(idst, isrc, NE, s.start, s.log, s.size, (int *)pwrk, ps);
    for (int i = 0; i < NE; i++) CHECKF(idst[i] == andd, "int_and_to_all: %#x != %#x", idst[i], andd);

    shmem_sync(s.start, s.log, s.size, ps);
}

int main(void)
{
    for (int i = 0; i < SHMEM_SYNC_SIZE; i++) psync[i] = psync2[i] = SHMEM_SYNC_VALUE;
    start_pes(0);
    int me = _my_pe(), n = _num_pes();
    CHECK(me == shmem_my_pe() && n == shmem_n_pes());
    CHECK(n <= MAXPE);

    /* memory */
    long *a = shmalloc(16 * sizeof(long));
    CHECK(a);
    a[15] = me;
    a = shrealloc(a, 64 * sizeof(long));
    CHECK(a && a[15] == me);
    void *al = shmemalign(4096, 100);
    CHECK(al && (uintptr_t)al % 4096 == 0);
    shfree(al);
    shfree(a);
    shmem_clear_cache_inv();
    shmem_set_cache_inv();
    shmem_clear_cache_line_inv(&counter);
    shmem_set_cache_line_inv(&counter);
    shmem_udcflush();
    shmem_udcflush_line(&counter);

    /* old AMO names, typed and C11 generic, all aimed at PE 0 */
    shmem_barrier_all();
    CHECK(shmem_long_fadd(&counter, 2, 0) >= 0);
    shmem_long_finc(&counter, 0);
    shmem_long_inc(&counter, 0);
    shmem_long_add(&counter, 1, 0);
    shmem_fadd(&counter, 1L, 0);
    shmem_inc(&counter, 0);
    shmem_int_add(&iflag, 3, 0);
    shmem_add(&qv, 5LL, 0);
    shmem_barrier_all();
    if (me == 0) {
        CHECKF(counter == 7L * n, "counter=%ld, want %ld", counter, 7L * n);
        CHECK(iflag == 3 * n && qv == 5LL * n);
        CHECK(shmem_long_fetch(&counter, 0) == 7L * n && shmem_fetch(&counter, 0) == 7L * n);
        CHECK(shmem_long_cswap(&counter, 7L * n, -1, 0) == 7L * n && counter == -1);
        CHECK(shmem_cswap(&counter, -1L, 5L, 0) == -1 && counter == 5);
        CHECK(shmem_long_swap(&counter, 9, 0) == 5 && shmem_swap(&counter, 11L, 0) == 9);
        shmem_double_set(&dv, 2.5, 0);
        CHECK(shmem_double_swap(&dv, 1.5, 0) == 2.5 && shmem_double_fetch(&dv, 0) == 1.5);
        shmem_set(&dv, 4.0, 0);
        CHECK(shmem_fetch((const double *)&dv, 0) == 4.0);
        CHECK(shmem_int_finc(&iflag, 0) == 3 * n && shmem_finc(&iflag, 0) == 3 * n + 1);
        CHECK(shmem_int_fadd(&iflag, 10, 0) == 3 * n + 2 && shmem_longlong_finc(&qv, 0) == 5LL * n);
        CHECK(shmem_int_cswap(&iflag, 0, 1, 0) == 3 * n + 12); /* no swap */
        CHECK(shmem_float_swap(&fv, 1.0f, 0) == 0.0f && shmem_float_fetch(&fv, 0) == 1.0f);
    }
    shmem_barrier_all();

    /* shmem_wait / shmem_TYPE_wait / the long shmem_wait_until routine */
    if (n > 1) {
        if (me == 1) {
            shmem_wait(&flag, 0);
            CHECK(flag == 42 || flag == 43); /* PE 0 may have sent both */
            shmem_int_wait(&iflag, 0);
            (shmem_wait_until)(&flag, SHMEM_CMP_EQ, 43);
        } else if (me == 0) {
            shmem_long_p(&flag, 42, 1);
            shmem_int_p(&iflag, 1, 1);
            shmem_long_p(&flag, 43, 1);
        }
    }
    shmem_barrier_all();

    /* active sets, several at once: members only call */
    struct set all = { 0, 0, n }, evens = { 0, 1, (n + 1) / 2 }, odds = { 1, 1, n / 2 };
    struct set three = { n > 3 ? 1 : 0, 0, 3 }, self = { me, 0, 1 };
    run_set(all, psync);
    shmem_barrier_all();
    run_set(evens, psync);
    if (n > 1) run_set(odds, psync2); /* at the same time as evens: disjoint sets */
    shmem_barrier_all();
    if (n >= 3) run_set(three, psync);
    shmem_barrier_all();
    run_set(self, psync2);
    shmem_barrier_all();
    check_psync();
    if (me == 0) printf("pe_deprecated: %d PEs ok\n", n);
    shmem_finalize();
    return 0;
}
