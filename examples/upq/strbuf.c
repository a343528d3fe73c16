/* Growable strings for building one output value or line at a time. */
#include "strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sb_init(strbuf *sb)
{
    sb->p = NULL;
    sb->len = 0;
    sb->cap = 0;
}

void sb_free(strbuf *sb)
{
    free(sb->p);
    sb_init(sb);
}

void sb_reset(strbuf *sb)
{
    sb->len = 0;
    if (sb->p)
        sb->p[0] = '\0';
}

static void reserve(strbuf *sb, size_t extra)
{
    size_t need, cap;
    if (extra >= (size_t)-1 / 2 - sb->len) {
        fputs("upq: string too large\n", stderr);
        exit(1);
    }
    need = sb->len + extra + 1;
    if (need <= sb->cap)
        return;
    cap = sb->cap ? sb->cap : 64;
    while (cap < need)
        cap *= 2;
    sb->p = realloc(sb->p, cap);
    if (!sb->p) {
        fputs("upq: out of memory\n", stderr);
        exit(1);
    }
    sb->cap = cap;
}

void sb_add(strbuf *sb, const void *p, size_t n)
{
    reserve(sb, n);
    if (n)
        memcpy(sb->p + sb->len, p, n);
    sb->len += n;
    sb->p[sb->len] = '\0';
}

void sb_addc(strbuf *sb, char c)
{
    sb_add(sb, &c, 1);
}

void sb_adds(strbuf *sb, const char *s)
{
    sb_add(sb, s, strlen(s));
}

void sb_printf(strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    int n;
    char small[128];

    va_start(ap, fmt);
    n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        sb_add(sb, small, (size_t)n);
        return;
    }
    reserve(sb, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(sb->p + sb->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb->len += (size_t)n;
}

const char *sb_str(strbuf *sb)
{
    return sb->p ? sb->p : "";
}
