/* Small helpers shared by library sources; not part of the public API. */
#ifndef UPQ_INTERNAL_H
#define UPQ_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "uparquet/config.h"
#include "uparquet/status.h"

/* Compile-time check that works in C99 (no _Static_assert): a false `cond`
 * declares an array of negative size. `tag` makes the typedef name unique. */
#define UPQ_STATIC_ASSERT(cond, tag) typedef char upq_static_assert_##tag[(cond) ? 1 : -1]

/* Elements in a true array (not a pointer). */
#define UPQ_COUNTOF(a) (sizeof(a) / sizeof((a)[0]))

/* An error detail text (upq_error_info.what, in_struct, field). A build with
 * UPQ_NO_ERRSTR keeps the status, offset and location of every error but
 * none of the texts: on a small target they cost more flash than the code
 * that detects the errors. The argument is not evaluated then, so it must
 * have no side effects. */
#if UPQ_NO_ERRSTR
#define UPQ_MSG(text) ""
#else
#define UPQ_MSG(text) (text)
#endif

/* A size for upq_error_info.needed: UINT32_MAX stands for that much or more. */
static inline uint32_t upq_sat32(size_t n)
{
    return n > (size_t)0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)n;
}
/* upq_error_info.needed after status st of a call on arena a. */
#define UPQ_ERR_NEEDED(st, a) ((st) == UPQ_ERR_NOMEM ? upq_sat32((a)->needed) : 0u)

/* n / d of 64-bit unsigned values without the compiler's runtime division
 * routine on 32-bit cores (core/common/div64.c); d == 0 gives UINT64_MAX.
 * For planning arithmetic, not per-value paths. */
uint64_t upq_div64(uint64_t n, uint64_t d);

/* Thrift compact pieces: a varint, a zigzag, a varint's length, a list
 * header (the encoder, and the writer's footer stream and page indexes,
 * which it emits by hand). */
static inline size_t upq_tc_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80u) {
        p[n++] = (uint8_t)(v | 0x80u);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

static inline uint64_t upq_tc_zz(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline size_t upq_tc_varint_len(uint64_t v)
{
    size_t n = 1;
    for (; v >= 0x80u; v >>= 7)
        n++;
    return n;
}

/* A list header of n elements of wire type ct (at most 6 bytes). */
static inline size_t upq_tc_list_hdr(uint8_t *p, uint32_t n, unsigned ct)
{
    if (n < 15) {
        p[0] = (uint8_t)((n << 4) | ct);
        return 1;
    }
    p[0] = (uint8_t)(0xF0u | ct);
    return 1 + upq_tc_varint(p + 1, n);
}

/* One read through the caller's read_at with its contract checked: UPQ_OK
 * with 1..want bytes in *got, UPQ_AGAIN, or an error (UPQ_ERR_IO,
 * UPQ_ERR_TRUNCATED for an early end of file) described by *what. */
struct upq_io;
upq_status upq_io_read(const struct upq_io *io, uint64_t off, void *buf, size_t want,
                       size_t *got, const char **what);
/* Refills a window of win_len bytes with the file's bytes from *pos, at
 * most want of them: on UPQ_OK *fill says how many (1..) and *pos is past
 * them; otherwise as upq_io_read, with *pos unchanged. Inline: each
 * reader's image keeps the one copy it had. */
static inline upq_status upq_io_fill(const struct upq_io *io, uint64_t *pos, uint8_t *win,
                                     uint32_t win_len, uint64_t want, uint32_t *fill,
                                     const char **what)
{
    size_t got = 0;
    upq_status st = upq_io_read(io, *pos, win, (size_t)(want < win_len ? want : win_len), &got, what);
    if (st == UPQ_OK) {
        *fill = (uint32_t)got;
        *pos += got;
    }
    return st;
}

/* Is created_by "<app> version a.b.c..." with that exact application name
 * and a version below major.minor.patch? A file of that application with no
 * readable version counts as older, as other readers take it. Versions are
 * compared by their first three numbers; "1.5.1-SNAPSHOT" is 1.5.1
 * (core/read/created_by.c). */
struct upq_file_metadata;
int upq_created_by_older(const struct upq_file_metadata *m, const char *app, size_t app_len,
                         unsigned major, unsigned minor, unsigned patch);

#endif
