/* A growable byte string for the host tool (malloc-backed; aborts on OOM). */
#ifndef UPQ_TOOL_STRBUF_H
#define UPQ_TOOL_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

typedef struct strbuf {
    char *p;    /* always NUL-terminated once anything was added */
    size_t len; /* bytes, not counting the NUL */
    size_t cap;
} strbuf;

void sb_init(strbuf *sb);
void sb_free(strbuf *sb);
void sb_reset(strbuf *sb);
void sb_add(strbuf *sb, const void *p, size_t n);
void sb_addc(strbuf *sb, char c);
void sb_adds(strbuf *sb, const char *s);
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void sb_printf(strbuf *sb, const char *fmt, ...);
/* The contents as a C string ("" when empty). Valid until the next change. */
const char *sb_str(strbuf *sb);

#endif
