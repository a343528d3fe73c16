/*
 * Internal: the layout of a VARIANT group (variant_schema.c), shared by the
 * reader's reconstruction and the writer's shredding.
 */
#ifndef UPQ_VARIANT_INT_H
#define UPQ_VARIANT_INT_H

#include "uparquet/variant.h"

#if UPQ_WITH_VARIANT

enum {
    R_NONE = 0,
    R_TOP,    /* the VARIANT group (a slot) */
    R_META,   /* metadata */
    R_VALUE,  /* value of a slot */
    R_TPRIM,  /* typed_value leaf */
    R_TOBJ,   /* typed_value group: shredded object fields */
    R_TLIST,  /* typed_value LIST */
    R_LREP,   /* the LIST's repeated group */
    R_FIELD,  /* a shredded object field (a slot) */
    R_ELEM    /* a shredded array element (a slot) */
};

/* How a typed_value leaf becomes a Variant primitive. */
enum {
    C_BOOL = 1,
    C_INT8,
    C_INT16,
    C_INT32,
    C_INT64,
    C_FLOAT,
    C_DOUBLE,
    C_DEC4,
    C_DEC8,
    C_DEC16,
    C_DATE,
    C_TIME,
    C_TS,
    C_TS_NTZ,
    C_TS_NANOS,
    C_TS_NTZ_NANOS,
    C_BINARY,
    C_STRING,
    C_UUID
};


/* Schema nodes in the subtree of `node` (itself included; preorder). */
uint32_t upq_variant_subtree(const upq_schema *s, uint32_t node);

/*
 * Takes *nodes, *n of them (n = upq_variant_subtree), from the arena and
 * fills them with the role of each node of VARIANT group `node`, checking
 * the layout the spec allows; *slots gets the number of value/typed_value
 * pairs. Returns UPQ_OK, UPQ_ERR_INVAL (not a VARIANT group),
 * UPQ_ERR_NOMEM, UPQ_ERR_CORRUPT or UPQ_ERR_UNSUPPORTED.
 */
upq_status upq_variant_plan(const upq_schema *s, uint32_t node, upq_arena *a,
                            upq_variant_node **nodes, uint32_t *n, uint32_t *slots);

/* The Variant type a typed_value conversion produces. */
uint8_t upq_variant_conv_kind(uint8_t conv);

#endif
#endif
