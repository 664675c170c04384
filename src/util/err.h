/* err.h - the one list of internal error codes.
 *
 * Internal functions return 0 or a negative code from this enum; names and
 * short texts come from the one X-macro list below (libuv's errno map).  Only
 * public entry points turn a code into a message for the user and decide to
 * abort (see log.h). */
#ifndef SHMI_ERR_H
#define SHMI_ERR_H

/*        name       value  text */
#define SHMI_ERRORS(X)                                              \
    X(OK,        0,  "success")                                     \
    X(EINVAL,   -1,  "invalid argument")                            \
    X(ENOMEM,   -2,  "out of memory")                               \
    X(ESYS,     -3,  "system call failed (see errno)")              \
    X(EBOOT,    -4,  "bootstrap failed: a peer is gone or the launcher died") \
    X(ENOTSUP,  -5,  "not supported")                               \
    X(ERANGE,   -6,  "value out of range")                          \
    X(EAGAIN,   -7,  "try again")                                   \
    X(ECORRUPT, -8,  "internal state corrupted")                    \
    X(ENET,     -9,  "network operation failed: the peer or its node is gone or unreachable")

enum shmi_err {
#define SHMI_ERR_ENUM(name, val, text) SHMI_##name = (val),
    SHMI_ERRORS(SHMI_ERR_ENUM)
#undef SHMI_ERR_ENUM
};

const char *shmi_strerror(int err);

#endif
