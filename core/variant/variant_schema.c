/*
 * The layout of a VARIANT group: which node is metadata, value, a typed
 * primitive (and its conversion), a typed object or list, a shredded field
 * or array element; checked against what the shredding spec allows.
 */
#include "variant_int.h"

#if UPQ_WITH_VARIANT

#include "upq_port.h"

int upq_variant_is_column(const upq_schema *s, uint32_t node)
{
    const upq_schema_element *e;
    if (node == 0 || node >= s->num_nodes || !s->nodes[node].is_group)
        return 0;
    e = s->nodes[node].elem;
    return UPQ_ISSET(*e, UPQ_SCHEMA_ELEMENT_LOGICAL_TYPE) &&
           upq_logical_type_kind(&e->logical_type) == UPQ_LOGICAL_TYPE_VARIANT;
}

static int name_is(const upq_schema_node *n, const char *s, size_t len)
{
    return n->elem->name.len == len && upq_memcmp(n->elem->name.ptr, s, len) == 0;
}

/* The conversion of a typed_value leaf, or 0 when the spec has none. */
static uint8_t leaf_conv(const upq_column_desc *c, uint8_t *scale)
{
    int lk = c->logical.isset ? upq_logical_type_kind(&c->logical) : 0;
    *scale = 0;
    if (lk == UPQ_LOGICAL_TYPE_DECIMAL) {
        if (c->scale < 0 || c->scale > 38 || c->precision > 38)
            return 0;
        *scale = (uint8_t)c->scale;
        switch (c->physical_type) {
        case UPQ_TYPE_INT32: return C_DEC4;
        case UPQ_TYPE_INT64: return C_DEC8;
        case UPQ_TYPE_BYTE_ARRAY:
        case UPQ_TYPE_FIXED_LEN_BYTE_ARRAY: return C_DEC16;
        default: return 0;
        }
    }
    switch (c->physical_type) {
    case UPQ_TYPE_BOOLEAN: return lk ? 0 : C_BOOL;
    case UPQ_TYPE_FLOAT: return lk ? 0 : C_FLOAT;
    case UPQ_TYPE_DOUBLE: return lk ? 0 : C_DOUBLE;
    case UPQ_TYPE_INT32:
        if (lk == 0)
            return C_INT32;
        if (lk == UPQ_LOGICAL_TYPE_DATE)
            return C_DATE;
        if (lk == UPQ_LOGICAL_TYPE_INTEGER && c->logical.u.integer.is_signed)
            return c->logical.u.integer.bit_width == 8    ? C_INT8
                   : c->logical.u.integer.bit_width == 16 ? C_INT16
                   : c->logical.u.integer.bit_width == 32 ? C_INT32
                                                          : 0;
        return 0;
    case UPQ_TYPE_INT64:
        if (lk == 0)
            return C_INT64;
        if (lk == UPQ_LOGICAL_TYPE_INTEGER)
            return c->logical.u.integer.is_signed && c->logical.u.integer.bit_width == 64 ? C_INT64
                                                                                          : 0;
        if (lk == UPQ_LOGICAL_TYPE_TIME)
            return !c->logical.u.time.is_adjusted_to_utc &&
                           upq_time_unit_kind(&c->logical.u.time.unit) == UPQ_TIME_UNIT_MICROS
                       ? C_TIME
                       : 0;
        if (lk == UPQ_LOGICAL_TYPE_TIMESTAMP) {
            int unit = upq_time_unit_kind(&c->logical.u.timestamp.unit);
            int utc = c->logical.u.timestamp.is_adjusted_to_utc;
            if (unit == UPQ_TIME_UNIT_MICROS)
                return utc ? C_TS : C_TS_NTZ;
            if (unit == UPQ_TIME_UNIT_NANOS)
                return utc ? C_TS_NANOS : C_TS_NTZ_NANOS;
        }
        return 0;
    case UPQ_TYPE_BYTE_ARRAY:
        return lk == 0 ? C_BINARY : lk == UPQ_LOGICAL_TYPE_STRING ? C_STRING : 0;
    case UPQ_TYPE_FIXED_LEN_BYTE_ARRAY:
        return lk == UPQ_LOGICAL_TYPE_UUID && c->type_length == 16 ? C_UUID : 0;
    default: return 0;
    }
}

/* Role of subtree node i from its parent's role (preorder: parents first). */
static upq_status classify(const upq_schema *s, uint32_t root, upq_variant_node *nodes, uint32_t i)
{
    const upq_schema_node *n = &s->nodes[root + i];
    upq_variant_node *vn = &nodes[i];
    uint32_t p = n->parent - root;
    uint8_t pr = nodes[p].role;
    const upq_schema_node *pn = &s->nodes[n->parent];
    if (pr == R_TOP || pr == R_FIELD || pr == R_ELEM) {
        if (n->repetition == UPQ_REP_REPEATED)
            return UPQ_ERR_CORRUPT;
        if (pr == R_TOP && name_is(n, "metadata", 8)) {
            if (n->is_group || s->columns[n->column].physical_type != UPQ_TYPE_BYTE_ARRAY ||
                n->repetition != UPQ_REP_REQUIRED)
                return UPQ_ERR_CORRUPT;
            vn->role = R_META;
        } else if (name_is(n, "value", 5)) {
            if (n->is_group || s->columns[n->column].physical_type != UPQ_TYPE_BYTE_ARRAY)
                return UPQ_ERR_CORRUPT;
            vn->role = R_VALUE;
        } else if (name_is(n, "typed_value", 11)) {
            if (!n->is_group) {
                vn->conv = leaf_conv(&s->columns[n->column], &vn->scale);
                if (!vn->conv)
                    return UPQ_ERR_UNSUPPORTED;
                vn->role = R_TPRIM;
            } else if (upq_schema_is_list(s, root + i)) {
                vn->role = R_TLIST;
            } else if (UPQ_ISSET(*n->elem, UPQ_SCHEMA_ELEMENT_LOGICAL_TYPE) ||
                       n->num_children == 0) {
                return UPQ_ERR_UNSUPPORTED; /* a MAP or other annotated group */
            } else {
                vn->role = R_TOBJ;
            }
        } else {
            return UPQ_ERR_CORRUPT;
        }
        return UPQ_OK;
    }
    if (pr == R_TOBJ) {
        /* shredded fields are required groups; an optional one (as
         * hyparquet-writer makes them) is read as DuckDB, arrow-rs and
         * hyparquet read it: null is the field missing */
        if (!n->is_group || n->repetition == UPQ_REP_REPEATED)
            return UPQ_ERR_CORRUPT;
        vn->role = R_FIELD;
        return UPQ_OK;
    }
    if (pr == R_TLIST) {
        if (pn->num_children != 1 || !n->is_group || n->repetition != UPQ_REP_REPEATED ||
            n->num_children != 1)
            return UPQ_ERR_CORRUPT;
        vn->role = R_LREP;
        return UPQ_OK;
    }
    if (pr == R_LREP) {
        if (!n->is_group || n->repetition != UPQ_REP_REQUIRED)
            return UPQ_ERR_CORRUPT;
        vn->role = R_ELEM;
        return UPQ_OK;
    }
    return UPQ_ERR_CORRUPT;
}

uint32_t upq_variant_subtree(const upq_schema *s, uint32_t node)
{
    uint32_t n = 1;
    while (node + n < s->num_nodes && s->nodes[node + n].depth > s->nodes[node].depth)
        n++;
    return n;
}

upq_status upq_variant_plan(const upq_schema *s, uint32_t node, upq_arena *a,
                            upq_variant_node **nodes_out, uint32_t *n_out, uint32_t *slots_out)
{
    uint32_t n, i, slots = 0;
    upq_variant_node *nodes;
    upq_status st;
    if (!upq_variant_is_column(s, node))
        return UPQ_ERR_INVAL;
    n = upq_variant_subtree(s, node);
    *n_out = n;
    *nodes_out = nodes = (upq_variant_node *)upq_arena_alloc_array(a, n, sizeof *nodes);
    if (!nodes)
        return UPQ_ERR_NOMEM;
    upq_memset(nodes, 0, n * sizeof *nodes);
    nodes[0].role = R_TOP;
    for (i = 1; i < n; i++) {
        st = classify(s, node, nodes, i);
        if (st != UPQ_OK)
            return st;
    }
    /* every slot: metadata (top only) and at least one of value/typed_value */
    for (i = 0; i < n; i++) {
        uint8_t r = nodes[i].role;
        uint32_t k, meta = 0, val = 0, typed = 0;
        const upq_schema_node *sn = &s->nodes[node + i];
        if (r != R_TOP && r != R_FIELD && r != R_ELEM)
            continue;
        slots++;
        for (k = 0; k < sn->num_children; k++) {
            uint8_t cr = nodes[s->children[sn->first_child + k] - node].role;
            meta += cr == R_META;
            val += cr == R_VALUE;
            typed += cr == R_TPRIM || cr == R_TOBJ || cr == R_TLIST;
        }
        if (meta != (r == R_TOP ? 1u : 0u) || val > 1 || typed > 1 || val + typed == 0)
            return UPQ_ERR_CORRUPT;
    }
    *slots_out = slots;
    return UPQ_OK;
}

uint8_t upq_variant_conv_kind(uint8_t conv)
{
    static const uint8_t kind[] = {
        0, UPQ_VARIANT_TRUE, UPQ_VARIANT_INT8, UPQ_VARIANT_INT16, UPQ_VARIANT_INT32,
        UPQ_VARIANT_INT64, UPQ_VARIANT_FLOAT, UPQ_VARIANT_DOUBLE, UPQ_VARIANT_DECIMAL4,
        UPQ_VARIANT_DECIMAL8, UPQ_VARIANT_DECIMAL16, UPQ_VARIANT_DATE, UPQ_VARIANT_TIME_NTZ,
        UPQ_VARIANT_TIMESTAMP, UPQ_VARIANT_TIMESTAMP_NTZ, UPQ_VARIANT_TIMESTAMP_NANOS,
        UPQ_VARIANT_TIMESTAMP_NTZ_NANOS, UPQ_VARIANT_BINARY, UPQ_VARIANT_STRING, UPQ_VARIANT_UUID,
    };
    return conv < sizeof kind ? kind[conv] : 0;
}

#endif /* UPQ_WITH_VARIANT */
