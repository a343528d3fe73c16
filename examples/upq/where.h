/*
 * `upq cat --where EXPR`: SQL's WHERE condition text into a library
 * predicate (uparquet/predicate.h), through the library's expression
 * builder. Syntax and semantics: docs/cli.md, "upq cat --where".
 */
#ifndef UPQ_TOOL_WHERE_H
#define UPQ_TOOL_WHERE_H

#include <stddef.h>
#include "uparquet/uparquet.h"
#include "strbuf.h"

/* Longest expression text, predicates, IN values and nesting accepted. */
#define WHERE_MAX_TEXT 65536u
#define WHERE_MAX_PREDS 1024u
#define WHERE_MAX_VALUES 65536u
#define WHERE_MAX_DEPTH 64u

typedef struct where_expr {
    upq_pred pred;
    upq_pred_node *nodes; /* malloc'd, postfix */
    upq_value *values;    /* malloc'd */
    uint8_t *bytes;       /* malloc'd: literals' bytes (never moves once parsed) */
    size_t *node_at;      /* malloc'd: the text offset each node came from */
} where_expr;

/*
 * Parses `text` against schema `s` into *w. Returns 0, or -1 with a message
 * "offset N: what" in err. Free with where_free() either way.
 */
int where_parse(const upq_schema *s, const char *text, where_expr *w, char *err, size_t errcap);
void where_free(where_expr *w);

#endif
