/* Bounded lines of a stream (see lines.h). */
#include "lines.h"

#include <stdlib.h>
#include <string.h>

#define READ_AHEAD ((size_t)1 << 16)

void line_init(line_in *r, FILE *f, size_t max)
{
    memset(r, 0, sizeof *r);
    r->f = f;
    r->max = max;
}

void line_free(line_in *r)
{
    free(r->line);
    free(r->rbuf);
    line_init(r, r->f, r->max);
}

void line_reset(line_in *r)
{
    r->rpos = r->rlen = 0;
}

void line_shrink(line_in *r, size_t keep)
{
    if (r->cap > keep) {
        free(r->line);
        r->line = NULL;
        r->cap = 0;
    }
}

/* Appends p[0..n) to the line; -1 when memory runs out. */
static int take(line_in *r, const char *p, size_t n)
{
    if (n == 0)
        return 0; /* the line may have no buffer yet */
    if (r->len + n > r->cap) {
        size_t cap = r->cap ? r->cap : 256;
        char *q;
        while (cap < r->len + n)
            cap *= 2;
        if (cap > r->max + 1 && r->len + n <= r->max + 1)
            cap = r->max + 1;
        q = realloc(r->line, cap);
        if (!q)
            return -1;
        r->line = q;
        r->cap = cap;
    }
    memcpy(r->line + r->len, p, n);
    r->len += n;
    return 0;
}

int line_next(line_in *r)
{
    int any = 0;
    r->len = 0;
    if (!r->rbuf && !(r->rbuf = malloc(READ_AHEAD)))
        return LINE_ERR;
    for (;;) {
        const char *p, *nl;
        size_t n;
        if (r->rpos == r->rlen) {
            r->rpos = 0;
            r->rlen = fread(r->rbuf, 1, READ_AHEAD, r->f);
            if (r->rlen == 0)
                return ferror(r->f) ? LINE_ERR : any ? LINE_OK : LINE_END;
        }
        any = 1;
        p = r->rbuf + r->rpos;
        n = r->rlen - r->rpos;
        nl = memchr(p, '\n', n);
        if (nl)
            n = (size_t)(nl - p);
        if (n > r->max - r->len)
            return LINE_LONG;
        if (take(r, p, n))
            return LINE_ERR;
        r->rpos += n + (nl != NULL);
        if (nl)
            return LINE_OK;
    }
}
