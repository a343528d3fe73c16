/*
 * Lines of an input stream with a bound on their length: a line longer
 * than the bound is refused once that much of it is read, so memory
 * follows the bound, never the input (getline would hold any line whole).
 */
#ifndef UPQ_TOOL_LINES_H
#define UPQ_TOOL_LINES_H

#include <stddef.h>
#include <stdio.h>

typedef struct line_in {
    FILE *f;
    size_t max;         /* longest line taken, its newline not counted */
    char *line;         /* the line (not NUL-terminated; NUL bytes are kept) */
    size_t len, cap;
    char *rbuf;         /* what was read past the line */
    size_t rpos, rlen;
} line_in;

enum { LINE_END = 0, LINE_OK = 1, LINE_ERR = -1, LINE_LONG = -2 };

void line_init(line_in *r, FILE *f, size_t max);
void line_free(line_in *r);
/* The next line without its '\n' in r->line[0..r->len): LINE_OK; LINE_END
 * at the end of the input; LINE_ERR when reading failed (errno); LINE_LONG
 * when the line has more than r->max bytes (the rest of it is not read). */
int line_next(line_in *r);
/* Gives the line buffer back when it has grown past `keep` bytes. */
void line_shrink(line_in *r, size_t keep);
/* Forgets what was read ahead: after the stream was moved (fseek). */
void line_reset(line_in *r);

#endif
