/* Status codes shared by every µparquet call. */
#ifndef UPARQUET_STATUS_H
#define UPARQUET_STATUS_H

#include "config.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * 0 is success, positive values report progress, negative values are errors.
 * An error leaves the object it was reported on unusable except for reading
 * its error details; UPQ_AGAIN leaves it exactly where it stopped.
 */
typedef enum upq_status {
    UPQ_OK = 0,
    UPQ_AGAIN = 1,          /* an I/O callback would block or needs more input: call again */
    UPQ_DONE = 2,           /* nothing more to produce (end of column, end of file) */

    UPQ_ERR_IO = -1,        /* an I/O callback reported failure */
    UPQ_ERR_CORRUPT = -2,   /* the input violates the format */
    UPQ_ERR_CRC = -3,       /* a page checksum does not match */
    UPQ_ERR_AUTH = -4,      /* authentication failed or a needed key is missing */
    UPQ_ERR_NOMEM = -5,     /* the arena is too small; see upq_arena_needed() */
    UPQ_ERR_UNSUPPORTED = -6, /* valid input using a feature this build lacks */
    UPQ_ERR_INVAL = -7,     /* the caller passed an invalid argument */
    UPQ_ERR_STATE = -8,     /* call not allowed in the object's current state */
    UPQ_ERR_LIMIT = -9,     /* input exceeds a configured limit (depth, length, count) */
    UPQ_ERR_TRUNCATED = -10, /* the input ended before the structure did */
    UPQ_ERR_BUFFER = -11    /* the caller's output buffer is too small (size reported) */
} upq_status;

/* Short English name of a status ("corrupt input"); "" when UPQ_NO_ERRSTR. */
const char *upq_strerror(int status);

#ifdef __cplusplus
}
#endif

#endif
