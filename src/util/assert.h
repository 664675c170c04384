/* assert.h - internal assertions at two levels (mimalloc's mi_assert_internal
 * and mi_assert_expensive).
 *
 * For our own invariants only, never for user mistakes (those get a message
 * naming the call and the fix, log.h):
 *   SHMI_ASSERT(e)            cheap: a compare or two on a path that runs anyway
 *   SHMI_ASSERT_EXPENSIVE(e)  walks a whole structure (the allocator's
 *                             invariant checker after every operation)
 * SHMI_ASSERT_LEVEL, a compile definition set by CMake (never read from the
 * environment), picks what is compiled in: 0 nothing (release builds), 1 the
 * cheap ones, 2 both (Debug, SYMHEAP_SANITIZE and SYMHEAP_TSAN builds).
 * Disabled assertions do not evaluate e, but still type-check it, so a
 * variable used only in an assertion raises no warning in release builds.
 *
 * A failed assertion prints one line, "[pe N] symheap: internal assertion
 * failed: heap/alloc.c:123: expr (in function)", and calls abort(), so a core
 * dump or a debugger holds the state that broke it. */
#ifndef SHMI_ASSERT_H
#define SHMI_ASSERT_H

#ifndef SHMI_ASSERT_LEVEL
#define SHMI_ASSERT_LEVEL 0
#endif

/* Print the line described above and abort() (log.c). */
_Noreturn void shmi_assert_fail(const char *expr, const char *file, int line, const char *func);

#define SHMI_ASSERT_CHECK_(e) \
    ((e) ? (void)0 : shmi_assert_fail(#e, __FILE__, __LINE__, __func__))
#define SHMI_ASSERT_SKIP_(e) ((void)sizeof((e) ? 1 : 0))

#if SHMI_ASSERT_LEVEL >= 1
#define SHMI_ASSERT(e) SHMI_ASSERT_CHECK_(e)
#else
#define SHMI_ASSERT(e) SHMI_ASSERT_SKIP_(e)
#endif

#if SHMI_ASSERT_LEVEL >= 2
#define SHMI_ASSERT_EXPENSIVE(e) SHMI_ASSERT_CHECK_(e)
#else
#define SHMI_ASSERT_EXPENSIVE(e) SHMI_ASSERT_SKIP_(e)
#endif

#endif
