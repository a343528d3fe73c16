/* Small helpers shared by library sources; not part of the public API. */
#ifndef UPQ_INTERNAL_H
#define UPQ_INTERNAL_H

#include <stddef.h>

/* Compile-time check that works in C99 (no _Static_assert): a false `cond`
 * declares an array of negative size. `tag` makes the typedef name unique. */
#define UPQ_STATIC_ASSERT(cond, tag) typedef char upq_static_assert_##tag[(cond) ? 1 : -1]

/* Elements in a true array (not a pointer). */
#define UPQ_COUNTOF(a) (sizeof(a) / sizeof((a)[0]))

#endif
