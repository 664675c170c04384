/* shmemx_fp16.h - NVSHMEM's 16-bit floating types, half and bfloat16, on the
 * OpenSHMEM side of symheap (part of shmemx.h; issue 14).
 *
 * OpenSHMEM has no 16-bit floating type; NVSHMEM has half (IEEE binary16)
 * and bfloat16 in its RMA, put-with-signal, collective and reduction
 * families.  Their rows are below, in the columns of SHMEM_TYPE_TABLE and
 * SHMEM_REDUCE_TABLE: nvshmem.h appends them to the OpenSHMEM tables
 * (NVSHMEM_TYPE_TABLE, NVSHMEM_REDUCE_TABLE), and the library's generators
 * expand the same rows, so the families cannot drift.  The routines behind
 * them are OpenSHMEM-shaped (shmem_half_put, shmem_ctx_bfloat16_get,
 * shmem_half_sum_reduce ...): symheap extensions, not in the spec.
 *
 * Types: in C++ with the CUDA toolkit's headers (CUDA code, and host C++
 * files when they are on the include path, as nvshmem.h) CUDA's __half and
 * __nv_bfloat16, as NVSHMEM; elsewhere (C, or no toolkit) a 16-bit struct of
 * the same layout (cuda_fp16.h's __half_raw, cuda_bf16.h's
 * __nv_bfloat16_raw: the bits in .x), which the routines move as is.
 * Reductions convert each element to float, combine there and round back
 * to nearest, ties to even (NaN stays NaN); sum, prod, min and max only, as
 * NVSHMEM (no bitwise operators).  shmemx_half_from_float and friends below
 * convert the same way, for C programs. */
#ifndef SYMHEAP_SHMEMX_FP16_H
#define SYMHEAP_SHMEMX_FP16_H

#include <shmem.h>
#include <stdint.h>
#include <string.h>

#if defined(__cplusplus) && defined(__CUDACC__)
#define SYMHEAP_FP16_CUDA 1
#elif defined(__cplusplus) && !defined(SYMHEAP_NVSHMEM_NO_CUDA) && defined(__has_include)
#if __has_include(<cuda_fp16.h>) && __has_include(<cuda_bf16.h>)
#define SYMHEAP_FP16_CUDA 1
#endif
#endif
#ifdef SYMHEAP_FP16_CUDA
extern "C++" { /* shmemx.h may include this inside extern "C" */
#include <cuda_fp16.h>
#include <cuda_bf16.h>
}
typedef __half shmemx_half_t;
typedef __nv_bfloat16 shmemx_bfloat16_t;
#else
typedef struct shmemx_half {
    uint16_t x; /* IEEE binary16 bits */
} __attribute__((aligned(2))) shmemx_half_t;
typedef struct shmemx_bfloat16 {
    uint16_t x; /* the upper 16 bits of a float */
} __attribute__((aligned(2))) shmemx_bfloat16_t;
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* X(NAME, TYPE, AMO, BIT, SYNC, GEN): SHMEM_TYPE_TABLE's columns (RMA,
 * signals, broadcast/collect/fcollect/alltoall(s); no AMOs, no waits). */
#define SHMEMX_FP16_TYPE_ROWS(X)                                  \
    X(half,     shmemx_half_t,     NONE, NONE, NONE, NOGEN)       \
    X(bfloat16, shmemx_bfloat16_t, NONE, NONE, NONE, NOGEN)
/* X(NAME, TYPE, BIT, ORD, GEN): SHMEM_REDUCE_TABLE's columns. */
#define SHMEMX_FP16_REDUCE_ROWS(X)                                \
    X(half,     shmemx_half_t,     NONE, ORD,  NOGEN)             \
    X(bfloat16, shmemx_bfloat16_t, NONE, ORD,  NOGEN)

SHMEMX_FP16_TYPE_ROWS(SHMI_DECL_RMA)
SHMEMX_FP16_TYPE_ROWS(SHMI_DECL_CTX_RMA)
SHMEMX_FP16_TYPE_ROWS(SHMI_DECL_SIGNAL)
SHMEMX_FP16_TYPE_ROWS(SHMI_DECL_TEAMCOLL)
SHMEMX_FP16_REDUCE_ROWS(SHMI_DECL_REDUCE)

/* ---- Conversions (round to nearest, ties to even) ------------------------- */
static inline float shmi_fp16_bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
static inline uint32_t shmi_fp16_float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}
/* binary16 bits -> float (exact). */
static inline float shmemx_half_bits_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0x1f) return shmi_fp16_bits_float(sign | 0x7f800000u | m << 13);
    if (e == 0) { /* zero or subnormal: m * 2^-24 */
        float v = (float)m * 5.9604644775390625e-8f;
        return sign ? -v : v;
    }
    return shmi_fp16_bits_float(sign | (e + 112) << 23 | m << 13);
}
/* float -> binary16 bits, to nearest even; overflow gives infinity. */
static inline uint16_t shmemx_float_to_half_bits(float f)
{
    uint32_t u = shmi_fp16_float_bits(f), sign = (u >> 16) & 0x8000u;
    uint32_t a = u & 0x7fffffffu;
    if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u | (a >> 13 & 0x3ffu)); /* NaN */
    if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* >= 65520: infinity */
    if (a < 0x38800000u) { /* below 2^-14: subnormal, in units of 2^-24 */
        float v = shmi_fp16_bits_float(a) * 16777216.0f; /* exact */
        uint32_t q = (uint32_t)v;
        float r = v - (float)q;
        if (r > 0.5f || (r == 0.5f && (q & 1))) q++;
        return (uint16_t)(sign | q);
    }
    uint32_t rest = a & 0x1fffu, h = ((a >> 13) - (112u << 10));
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1))) h++;
    return (uint16_t)(sign | h);
}
static inline float shmemx_bfloat16_bits_to_float(uint16_t b)
{
    return shmi_fp16_bits_float((uint32_t)b << 16);
}
static inline uint16_t shmemx_float_to_bfloat16_bits(float f)
{
    uint32_t u = shmi_fp16_float_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)(u >> 16 | 0x40u); /* quiet NaN */
    return (uint16_t)((u + 0x7fffu + (u >> 16 & 1)) >> 16);
}
/* The typed forms (bits through memcpy: the CUDA types too). */
#define SHMI_FP16_CONV(N, T, B, O, G)                                                     \
    static inline float shmemx_##N##_to_float(T v)                                        \
    {                                                                                     \
        uint16_t b;                                                                       \
        memcpy(&b, &v, 2);                                                                \
        return shmemx_##N##_bits_to_float(b);                                             \
    }                                                                                     \
    static inline T shmemx_##N##_from_float(float f)                                      \
    {                                                                                     \
        uint16_t b = shmemx_float_to_##N##_bits(f);                                       \
        T v;                                                                              \
        memcpy((void *)&v, &b, 2); /* (void *): CUDA types have a private member */    \
        return v;                                                                         \
    }
SHMEMX_FP16_REDUCE_ROWS(SHMI_FP16_CONV)
#undef SHMI_FP16_CONV

#ifdef __cplusplus
}
#endif
#endif /* SYMHEAP_SHMEMX_FP16_H */
