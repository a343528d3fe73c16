/*
 * One JSON row (jsonl.h) into per-leaf-column level entries and values for
 * upq_writer_write_column() (shred.c). Memory is reused from row to row:
 * it follows the largest row, never the number of rows.
 */
#ifndef UPQ_TOOL_SHRED_H
#define UPQ_TOOL_SHRED_H

#include <stddef.h>
#include <stdint.h>

#include "uparquet/uparquet.h"
#include "jsonl.h"
#include "strbuf.h"

/* A node of the row plan (the reader's view of the schema). */
typedef struct shred_node {
    uint32_t schema;     /* schema node */
    uint32_t column;     /* leaf column, else UPQ_NONE */
    uint32_t size;       /* plan nodes in the subtree, itself included */
    uint32_t leaf_first, leaf_count;
    uint16_t def;        /* definition level when present */
    uint16_t def_elems;  /* list/map: level of an entry */
    uint16_t rep;        /* list/map: repetition level of entries after the first */
    uint8_t kind;
    uint8_t has_value;   /* map: its entries have a value field */
} shred_node;

/* One leaf column's entries for the current row. */
typedef struct shred_leaf {
    uint16_t *def, *rep;
    size_t n, cap;       /* level entries */
    uint8_t *vals;       /* packed non-null values (column.h's representation) */
    size_t *offs;        /* byte arrays until the row ends: offset << 1 | 1 into the
                          * document's bytes, offset << 1 into shredder.bytes */
    size_t nv, vcap, vsize;
    uint8_t is_bytes, unknown;
} shred_leaf;

typedef struct shred_item {
    uint32_t node, val;  /* plan node; JSON value or JV_NONE (missing) */
    uint32_t parent;     /* item of the enclosing container, UPQ_NONE at the top */
    uint32_t index;      /* list element / map entry number */
    uint16_t r, floor;   /* repetition level of the first entry; level the container guarantees */
    uint8_t role;        /* upq_event_role */
} shred_item;

typedef struct shredder {
    const upq_schema *s;
    shred_node *nodes;
    uint32_t num_nodes, num_leaves;
    shred_leaf *leaves;  /* per leaf column */
    strbuf bytes;        /* the row's byte-array values */
    shred_item *items;
    uint32_t nitems, items_cap;
    uint32_t *todo;
    uint32_t ntodo, todo_cap;
    uint8_t *used;       /* per JSON value: object member already matched */
    uint32_t used_cap;
    uint32_t *slots;     /* the members of one large object by key (shred.c) */
    uint32_t nslots, slots_cap;
    /* after a failure: the field's path ("a.b[2].c") and what was wrong */
    strbuf err_path;
    char err[256];
} shredder;

/* Plans schema `s` (which must outlive the shredder). Returns 0, or -1 when
 * the schema has a shape the plan cannot take. */
int shred_init(shredder *sh, const upq_schema *s);
void shred_free(shredder *sh);

/*
 * Shreds the row d->v[0] (a JSON object of the top-level fields; missing
 * optional fields are null). On success each leaf holds the row's entries,
 * byte arrays pointing into sh->bytes (valid until the next row) or, for
 * text, into d's bytes (valid while d and the text it was parsed from are
 * left alone). Returns
 * 0, or -1 with sh->err_path and sh->err set.
 */
int shred_row(shredder *sh, const jv_doc *d);

/* The inverse of value_json(): JSON value v as one value of leaf column
 * `col`, written to out in column.h's representation. Byte arrays append
 * their bytes to `bytes` and get ptr NULL, their offset in *byte_off.
 * Returns 0, or -1 with a message in err. (value_parse.c) */
int value_parse(const upq_schema *s, uint32_t col, const jv_doc *d, const jv *v, void *out,
                strbuf *bytes, size_t *byte_off, char *err, size_t errcap);

/* [+-]YYYY-MM-DD at s[*i]: days since 1970-01-01, *i moved past it; 0 when
 * it is not a valid date. (value_parse.c) */
int value_date_text(const char *s, size_t n, size_t *i, int64_t *days);

#endif
