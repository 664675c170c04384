/* env.h - every environment variable symheap reads, from one table.
 *
 * The table feeds the parser (shmi_env_load), symheap-info and docs/env.md, so
 * a variable cannot exist in one and be missing from another.  Names are
 * SHMEM_<NAME>; SHMEM_SYMMETRIC_SIZE, SHMEM_DEBUG, SHMEM_INFO and
 * SHMEM_VERSION are the spec's, the others are ours.  Values are parsed once,
 * at shmem_init; a bad value is an error naming the variable, the value and
 * the accepted syntax (never silently replaced by a default).
 *
 * Aliases: the alias column names NVSHMEM's variable of the same meaning
 * (NVSHMEM_SYMMETRIC_SIZE ...), read when the SHMEM_ one is unset, so NVSHMEM
 * programs run unchanged with their usual settings.  NVSHMEM's values that
 * differ from ours (NVSHMEM_DEBUG=INFO, NVSHMEM_BOOTSTRAP=PMI ...) are
 * translated by a small table in env.c; see shmi_env_get. */
#ifndef SHMI_ENV_H
#define SHMI_ENV_H

#include <stddef.h>

/* name, kind, default, smallest and largest value ("" for none; in the
 * kind's syntax), alias (NVSHMEM's name, "" if none), help.  Kinds: size
 * (bytes, k/M/G/T suffixes), count and seconds (whole numbers), addr (an
 * address, 0x hex), bool, str.  Every number has its range (issue 17): a
 * value outside it is refused with the range, never used. */
#define SHMI_ENV_VARS(X)                                                         \
    X(SYMMETRIC_SIZE, size, "4G", "1M", "64T",   "NVSHMEM_SYMMETRIC_SIZE",                    \
      "Symmetric heap size per PE: a number with an optional k/K/m/M/g/G/t/T "   \
      "suffix (powers of 1024), e.g. 512M, 64G. Only reserved: memory is used "  \
      "only for pages that are touched.")                                        \
    X(DEBUG, bool, "0", "", "",    "NVSHMEM_DEBUG",                             \
      "Print debugging messages from the library on stderr.")                    \
    X(INFO, bool, "0", "", "",    "NVSHMEM_INFO",                              \
      "Print the library's version and every setting at shmem_init (PE 0).")    \
    X(VERSION, bool, "0", "", "",    "NVSHMEM_VERSION",                           \
      "Print the library's version at shmem_init (PE 0).")                      \
    X(BARRIER, str, "auto", "", "", "",                                          \
      "Barrier algorithm: auto (central when a team has more PEs than online "  \
      "CPUs, else dissemination), central, or dissemination. Every PE must use " \
      "the same value.")                                                         \
    X(WAIT_SPIN, count, "200", "0", "1000000",  "",                                          \
      "Polls of a wait (barrier, wait_until) before the PE yields the CPU and "  \
      "then sleeps in the kernel. When unset and this node's PEs outnumber its "\
      "CPUs, 0: spinning would only delay the PE being waited for. Independently, a "  \
      "yield that returns at once (no other process wanted the CPU) is "        \
      "followed by about 1 us of polling before the next one.")                  \
    X(WAIT_SPIN_US, count, "5000", "0", "1000000",  "",                                      \
      "Microseconds a wait goes on polling after its SHMEM_WAIT_SPIN polls, "   \
      "before it yields and sleeps. Longer than a scheduler tick (4 ms at "     \
      "HZ=250), so that a PE sharing its CPU with another process keeps its "   \
      "turn instead of handing the rest of the tick to that process. When "     \
      "unset and this node's PEs outnumber the CPUs they may use (or two PEs "  \
      "are bound to one CPU), 0. A wait_until, test or signal wait that a "     \
      "write woke without ending it polls this long again before it sleeps "    \
      "again.")                                                                  \
    X(GLOBALS, bool, "1", "", "",    "",                                          \
      "Make the program's global and static variables symmetric (remote "       \
      "access to them) by moving the executable's data and bss onto shared "    \
      "memory at shmem_init. 0 turns it off; RMA on globals then fails clearly.") \
    X(HEAP_BASE, addr, "0", "0", "0x7fffc0000000",    "",                                          \
      "Virtual address where the symmetric heap should start (hex 0x..., a "    \
      "multiple of 1 GiB, 0x40000000, the largest alignment shmem_align gives, " \
      "with the whole heap below 128 TiB), or 0 to let the PEs agree on one. "  \
      "For debugging address conflicts.")                                        \
    X(CHECKS, str, "cheap", "", "", "",                                         \
      "Debug checks: off; cheap (default: every collective's call, arguments "  \
      "and call site are compared across PEs, collective buffers must lie "      \
      "inside one block, guard zones around every block are checked at "         \
      "free/realloc/finalize, leaks reported at finalize); full (also poisons "  \
      "freed memory and detects writes after free).")                            \
    X(WATCHDOG, seconds, "60", "0", "604800",   "",                                          \
      "Seconds a PE may wait in a barrier, collective or wait_until before it "  \
      "prints what every PE is blocked in (0 turns the watchdog off).")          \
    X(NET_TIMEOUT, seconds, "20", "0", "604800", "",                                      \
      "Across nodes: seconds without an answer from another node before the "   \
      "job ends, naming it (the link is down or its PEs are stopped); each PE "  \
      "asks one PE of every other node once a second, and a blocking "           \
      "operation on another node not completed 5 s after that ends the job "    \
      "naming its PE. 0: never (e.g. to keep a "                                 \
      "PE stopped in a debugger for longer).")                                   \
    X(WATCHDOG_ABORT, bool, "0", "", "",    "",                                          \
      "After the watchdog's report, end the job (exit status 124) instead of "   \
      "waiting on.")                                                             \
    X(HEAP_REPORT, str, "", "", "",     "",                                          \
      "At shmem_finalize write a heap report per PE to <value>.<pe>.txt and "    \
      "<value>.<pe>.html (blocks, free space, fragmentation, peak, call sites). " \
      "SIGUSR1 writes one at any time.")                                         \
    X(SELFTEST, bool, "0", "", "",    "",                                          \
      "Run the brief's manual checks automatically at init and at every "        \
      "allocation: same address on every PE, write-then-read through put/get "   \
      "and shmem_ptr, guard zones intact (symrun --check sets it).")             \
    X(GPU, bool, "1", "", "",    "",                                          \
      "Use a GPU when symheap was built with CUDA and one is present (docs/"     \
      "gpu.md): the GPU heap is set up at shmem_init in programs with CUDA code " \
      "that includes nvshmem.h, else at the first GPU allocation. 0: never "     \
      "touch the GPU; nvshmem_malloc then gives host memory.")                   \
    X(GPU_HEAP_SIZE, size, "16G", "2M", "64T",  "",                                          \
      "GPU symmetric heap size per PE: GPU addresses reserved at one address on " \
      "every PE (and one slot per peer). GPU memory is only taken, in chunks, "  \
      "as allocations need it.")                                                 \
    X(GPU_CHUNK, size, "256M", "2M", "64T", "NVSHMEM_CUMEM_GRANULARITY",                 \
      "Smallest step by which the GPU heap takes GPU memory (one allocation per " \
      "PE, mapped by every peer); kept until exit.")                             \
    X(MALLOC_GPU, bool, "0", "", "",    "",                                          \
      "1: shmem_malloc, shmem_calloc and shmem_align give GPU memory (as the "   \
      "SHMEMX_MALLOC_DEVICE hint does), and so does nvshmem_malloc in programs " \
      "without CUDA code.") \
    X(BOOTSTRAP, str, "auto", "", "", "NVSHMEM_BOOTSTRAP",                         \
      "How PEs find each other (docs/cluster.md): auto (symrun when started by " \
      "symrun, pmix when started by mpirun or srun --mpi=pmix, i.e. PMIX_RANK " \
      "or PMIX_NAMESPACE is set, else single), or force symrun, pmix or single " \
      "(every process a job of one PE). Programs that start with a unique ID "   \
      "(shmemx_init_uniqueid, nvshmemx_init_attr) use it whatever this says, "  \
      "except under symrun.")                                                    \
    X(BOOTSTRAP_TIMEOUT, seconds, "120", "1", "86400", "",                        \
      "Start-up with a unique ID: how long the PEs try to reach the process "   \
      "that made the ID, and how long it waits for every rank to come before "  \
      "it ends the job naming the missing ranks.")                               \
    X(BOOTSTRAP_UID_SOCK_IFNAME, str, "", "", "", "NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME", \
      "Network interface whose address shmemx_get_uniqueid puts into the ID "   \
      "(e.g. eth0). Unset: the first interface that is up and not loopback, "   \
      "else loopback (a job on one host).")

struct shmi_env {
#define SHMI_ENV_FIELD_size(name) size_t name;
#define SHMI_ENV_FIELD_count(name) size_t name;
#define SHMI_ENV_FIELD_seconds(name) size_t name;
#define SHMI_ENV_FIELD_addr(name) size_t name;
#define SHMI_ENV_FIELD_bool(name) int name;
#define SHMI_ENV_FIELD_str(name) const char *name;
#define SHMI_ENV_FIELD(name, kind, def, min, max, alias, help) SHMI_ENV_FIELD_##kind(name)
    SHMI_ENV_VARS(SHMI_ENV_FIELD)
#undef SHMI_ENV_FIELD
};

struct shmi_env_desc {
    const char *name;    /* without the SHMEM_ prefix */
    const char *var;     /* with it: SHMEM_<name> */
    const char *kind;    /* "size", "count", "seconds", "addr", "bool" or "str" */
    const char *def;     /* default, as text */
    const char *min;     /* smallest accepted value, as text ("" for none) */
    const char *max;     /* largest accepted value, as text ("" for none) */
    const char *alias;   /* NVSHMEM's name for it, or "" */
    const char *help;
};
extern const struct shmi_env_desc shmi_env_table[];
extern const int shmi_env_count;

/* Fill *env from the environment (defaults where unset).  On a bad value,
 * returns SHMI_EINVAL and writes "SHMEM_X=value: why; fix" into err. */
int shmi_env_load(struct shmi_env *env, char *err, size_t errlen);

/* The raw value of SHMEM_<name>, else of its alias (NVSHMEM_...) with
 * NVSHMEM's values translated to ours, else NULL.  *from (when not NULL) is
 * set to the name of the variable the value came from, for messages. */
const char *shmi_env_get(const char *name, const char **from);

/* Parse the spec's size syntax: decimal (or 0x hex) number, optional suffix
 * k/K/m/M/g/G/t/T (x1024^n), optional trailing 'b'/'B'.  Rejects empty,
 * negative, junk, and overflow.  Returns 0 or SHMI_EINVAL. */
int shmi_parse_size(const char *s, size_t *out);
/* A whole number (count, seconds): decimal digits, spaces around, nothing
 * else (no sign, suffix or hex); rejects overflow.  0 or SHMI_EINVAL. */
int shmi_parse_count(const char *s, size_t *out);
/* The parser of a numeric kind ("size", "count", "seconds", "addr"): 0 and
 * the value, or SHMI_EINVAL; SHMI_ENOTSUP for a kind that is not numeric. */
int shmi_parse_kind(const char *kind, const char *s, size_t *out);
/* SHMEM_HEAP_BASE: a multiple of this (the heap's largest supported
 * alignment, heap.h's SHMI_HEAP_BASE_ALIGN), and the heap below ADDR_TOP. */
#define SHMI_ENV_HEAP_BASE_ALIGN ((size_t)1 << 30)
#define SHMI_ENV_ADDR_TOP ((size_t)1 << 47)
/* "0/1/yes/no/on/off/true/false" (case-insensitive). */
int shmi_parse_bool(const char *s, int *out);

/* str settings that take one of a fixed set of values: "a|b|c" for name
 * (without SHMEM_), else NULL; and whether v is one of them. */
const char *shmi_env_choices(const char *name);
int shmi_env_is_choice(const char *v, const char *choices);

#endif
