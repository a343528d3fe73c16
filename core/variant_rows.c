/*
 * VARIANT columns: the Variant of each row rebuilt from the record events
 * of its group (metadata, value and the shredded typed_value columns), as
 * the shredding spec's reconstruction describes, without recursion: each
 * open value/typed_value pair ("slot") is a frame on an explicit stack.
 *
 * A slot's `value` may come before or after its `typed_value` (columns are
 * matched by name, not position), so its bytes are saved in scratch memory
 * until the slot ends; what typed_value produces goes straight into the
 * builder, and the slot's end decides what the pair means.
 */
#include "uparquet/variant.h"

#if UPQ_WITH_VARIANT && UPQ_WITH_READER

#include "uparquet/record.h"
#include "upq_port.h"

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
static upq_status classify(upq_variant_asm *va, uint32_t i)
{
    const upq_schema *s = va->s;
    const upq_schema_node *n = &s->nodes[va->root + i];
    upq_variant_node *vn = &va->nodes[i];
    uint32_t p = n->parent - va->root;
    uint8_t pr = va->nodes[p].role;
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
            } else if (upq_schema_is_list(s, va->root + i)) {
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
        /* shredded fields are required groups */
        if (!n->is_group || n->repetition != UPQ_REP_REQUIRED)
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

upq_status upq_variant_asm_init(upq_variant_asm *va, const upq_schema *s, uint32_t node,
                                upq_arena *a, size_t value_cap, uint32_t max_keys,
                                size_t key_bytes, uint32_t max_entries)
{
    uint32_t n = 1, i, slots = 0;
    uint8_t *out, *kb;
    uint32_t *ko;
    upq_variant_entry *ents;
    upq_variant_build_frame *frames;
    upq_status st;
    upq_memset(va, 0, sizeof *va);
    if (!upq_variant_is_column(s, node))
        return UPQ_ERR_INVAL;
    while (node + n < s->num_nodes && s->nodes[node + n].depth > s->nodes[node].depth)
        n++;
    va->s = s;
    va->root = node;
    va->num_nodes = n;
    va->nodes = (upq_variant_node *)upq_arena_alloc_array(a, n, sizeof *va->nodes);
    if (!va->nodes)
        return UPQ_ERR_NOMEM;
    upq_memset(va->nodes, 0, n * sizeof *va->nodes);
    va->nodes[0].role = R_TOP;
    for (i = 1; i < n; i++) {
        st = classify(va, i);
        if (st != UPQ_OK)
            return st;
    }
    /* every slot: metadata (top only) and at least one of value/typed_value */
    for (i = 0; i < n; i++) {
        uint8_t r = va->nodes[i].role;
        uint32_t k, meta = 0, val = 0, typed = 0;
        const upq_schema_node *sn = &s->nodes[node + i];
        if (r != R_TOP && r != R_FIELD && r != R_ELEM)
            continue;
        slots++;
        for (k = 0; k < sn->num_children; k++) {
            uint8_t cr = va->nodes[s->children[sn->first_child + k] - node].role;
            meta += cr == R_META;
            val += cr == R_VALUE;
            typed += cr == R_TPRIM || cr == R_TOBJ || cr == R_TLIST;
        }
        if (meta != (r == R_TOP ? 1u : 0u) || val > 1 || typed > 1 || val + typed == 0)
            return UPQ_ERR_CORRUPT;
    }
    va->max_slots = slots;
    va->slots = (upq_variant_slot *)upq_arena_alloc_array(a, slots, sizeof *va->slots);
    va->scratch = (uint8_t *)upq_arena_alloc(a, value_cap);
    va->scratch_cap = value_cap;
    out = (uint8_t *)upq_arena_alloc(a, value_cap);
    kb = (uint8_t *)upq_arena_alloc(a, key_bytes);
    ko = (uint32_t *)upq_arena_alloc_array(a, (size_t)max_keys + 1u, sizeof *ko);
    ents = (upq_variant_entry *)upq_arena_alloc_array(a, max_entries, sizeof *ents);
    frames = (upq_variant_build_frame *)upq_arena_alloc_array(a, slots + 1u, sizeof *frames);
    va->meta_out_cap = 1u + 4u + ((size_t)max_keys + 1u) * 4u + key_bytes;
    va->meta_out = (uint8_t *)upq_arena_alloc(a, va->meta_out_cap);
    if (!va->slots || !va->scratch || !out || !kb || !ko || !ents || !frames || !va->meta_out)
        return UPQ_ERR_NOMEM;
    upq_variant_keys_init(&va->keys, kb, key_bytes, ko, max_keys);
    upq_variant_builder_init(&va->b, &va->keys, out, value_cap, ents, max_entries, frames,
                             slots + 1u);
    return UPQ_OK;
}

/* Builder errors: misuse can only come from the data (a duplicate key). */
static upq_status bst(upq_status st)
{
    return st == UPQ_ERR_INVAL ? UPQ_ERR_CORRUPT : st;
}

static upq_status save(upq_variant_asm *va, const upq_bytes *b, size_t *off)
{
    if (b->len > va->scratch_cap - va->scratch_len)
        return UPQ_ERR_BUFFER;
    *off = va->scratch_len;
    if (b->len)
        upq_memcpy(va->scratch + va->scratch_len, b->ptr, b->len);
    va->scratch_len += b->len;
    return UPQ_OK;
}

/* The key of a field slot before its first output. */
static upq_status put_key(upq_variant_asm *va, upq_variant_slot *sl)
{
    const upq_bytes *name;
    uint32_t id;
    upq_status st;
    if (!sl->field)
        return UPQ_OK;
    sl->field = 2; /* emitted */
    name = &va->s->nodes[sl->node].elem->name;
    st = upq_variant_keys_add(&va->keys, name->ptr, name->len, &id);
    if (st != UPQ_OK)
        return st;
    return bst(upq_variant_build_key(&va->b, id));
}

static upq_status put_primitive(upq_variant_asm *va, const upq_variant_node *vn,
                                const upq_event *ev)
{
    upq_variant_builder *b = &va->b;
    int32_t i32 = 0;
    int64_t i64 = 0;
    const upq_bytes *by = (const upq_bytes *)ev->value;
    switch (vn->conv) {
    case C_INT8:
    case C_INT16:
    case C_INT32:
    case C_DATE:
    case C_DEC4: upq_memcpy(&i32, ev->value, sizeof i32); break;
    case C_INT64:
    case C_TIME:
    case C_TS:
    case C_TS_NTZ:
    case C_TS_NANOS:
    case C_TS_NTZ_NANOS:
    case C_DEC8: upq_memcpy(&i64, ev->value, sizeof i64); break;
    default: break;
    }
    switch (vn->conv) {
    case C_BOOL: return upq_variant_build_bool(b, *(const uint8_t *)ev->value != 0);
    case C_INT8:
        if (i32 < -128 || i32 > 127)
            return UPQ_ERR_CORRUPT;
        return upq_variant_build_int(b, UPQ_VARIANT_INT8, i32);
    case C_INT16:
        if (i32 < -32768 || i32 > 32767)
            return UPQ_ERR_CORRUPT;
        return upq_variant_build_int(b, UPQ_VARIANT_INT16, i32);
    case C_INT32: return upq_variant_build_int(b, UPQ_VARIANT_INT32, i32);
    case C_DATE: return upq_variant_build_int(b, UPQ_VARIANT_DATE, i32);
    case C_INT64: return upq_variant_build_int(b, UPQ_VARIANT_INT64, i64);
    case C_TIME: return upq_variant_build_int(b, UPQ_VARIANT_TIME_NTZ, i64);
    case C_TS: return upq_variant_build_int(b, UPQ_VARIANT_TIMESTAMP, i64);
    case C_TS_NTZ: return upq_variant_build_int(b, UPQ_VARIANT_TIMESTAMP_NTZ, i64);
    case C_TS_NANOS: return upq_variant_build_int(b, UPQ_VARIANT_TIMESTAMP_NANOS, i64);
    case C_TS_NTZ_NANOS: return upq_variant_build_int(b, UPQ_VARIANT_TIMESTAMP_NTZ_NANOS, i64);
    case C_DEC4: return upq_variant_build_decimal(b, UPQ_VARIANT_DECIMAL4, vn->scale, i32);
    case C_DEC8: return upq_variant_build_decimal(b, UPQ_VARIANT_DECIMAL8, vn->scale, i64);
    case C_FLOAT: {
        float f;
        upq_memcpy(&f, ev->value, sizeof f);
        return upq_variant_build_float(b, f);
    }
    case C_DOUBLE: {
        double d;
        upq_memcpy(&d, ev->value, sizeof d);
        return upq_variant_build_double(b, d);
    }
    case C_DEC16: {
        /* big-endian two's complement of any width, to 16 little-endian bytes */
        uint8_t le[16], fill;
        uint32_t k;
        if (by->len == 0)
            return UPQ_ERR_CORRUPT;
        fill = (by->ptr[0] & 0x80u) ? 0xFFu : 0x00u;
        for (k = 0; k + 16u < by->len; k++)
            if (by->ptr[k] != fill)
                return UPQ_ERR_CORRUPT; /* beyond 128 bits */
        upq_memset(le, fill, sizeof le);
        for (k = 0; k < by->len && k < 16u; k++)
            le[k] = by->ptr[by->len - 1u - k];
        return upq_variant_build_decimal16(b, vn->scale, le);
    }
    case C_BINARY: return upq_variant_build_binary(b, by->ptr, by->len);
    case C_STRING: {
        /* a Variant string must be UTF-8: the decoder judges what was written */
        upq_variant_item it;
        size_t at = b->len;
        upq_status st = upq_variant_build_string(b, by->ptr, by->len);
        if (st != UPQ_OK)
            return st;
        return upq_variant_item_read(b->out + at, b->len - at, &it) == UPQ_OK ? UPQ_OK
                                                                           : UPQ_ERR_CORRUPT;
    }
    case C_UUID:
        if (by->len != 16)
            return UPQ_ERR_CORRUPT;
        return upq_variant_build_uuid(b, by->ptr);
    default: return UPQ_ERR_CORRUPT;
    }
}

/* Is `key` one of the shredded field names of typed object group tnode? */
static int shredded_name(const upq_variant_asm *va, uint32_t tnode, const uint8_t *key, size_t len)
{
    const upq_schema *s = va->s;
    const upq_schema_node *t = &s->nodes[tnode];
    uint32_t k;
    for (k = 0; k < t->num_children; k++) {
        const upq_bytes *nm = &s->nodes[s->children[t->first_child + k]].elem->name;
        if (nm->len == len && (len == 0 || upq_memcmp(nm->ptr, key, len) == 0))
            return 1;
    }
    return 0;
}

/* A slot ends: what its value and typed_value say together. */
static upq_status end_slot(upq_variant_asm *va, upq_variant_slot *sl, uint8_t role)
{
    upq_status st;
    const uint8_t *vp = va->scratch + sl->value_off;
    switch (sl->typed) {
    case 1: /* primitive */
    case 3: /* array */
        return sl->has_value ? UPQ_ERR_CORRUPT : UPQ_OK;
    case 2: { /* object: shredded fields written, residual fields from value */
        if (sl->has_value) {
            upq_variant v;
            upq_variant_item it;
            uint32_t i;
            v.p = vp;
            v.len = sl->value_len;
            st = upq_variant_item_read(vp, sl->value_len, &it);
            if (st != UPQ_OK || it.type != UPQ_VARIANT_OBJECT)
                return UPQ_ERR_CORRUPT; /* a non-object value with shredded fields */
            for (i = 0; i < it.count; i++) {
                upq_variant c;
                uint32_t id;
                const uint8_t *k;
                size_t kl;
                st = upq_variant_child(v, i, &c, &id);
                if (st == UPQ_OK)
                    st = upq_variant_meta_key(&va->meta, id, &k, &kl);
                if (st != UPQ_OK)
                    return UPQ_ERR_CORRUPT;
                if (shredded_name(va, sl->typed_node, k, kl))
                    return UPQ_ERR_CORRUPT; /* value repeats a shredded field */
                st = upq_variant_build_key(&va->b, id);
                if (st == UPQ_OK)
                    st = upq_variant_build_raw(&va->b, c.p, c.len);
                if (st != UPQ_OK)
                    return bst(st);
            }
        }
        return bst(upq_variant_build_end(&va->b));
    }
    case 0:
        if (sl->has_value) {
            st = put_key(va, sl);
            if (st == UPQ_OK)
                st = bst(upq_variant_build_raw(&va->b, vp, sl->value_len));
            return st;
        }
        if (role == R_FIELD)
            return UPQ_OK; /* missing: the object has no such field */
        /* arrays cannot hold a missing element, and a missing Variant where
         * one is required reads as null (as the reference reader does) */
        return bst(upq_variant_build_null(&va->b));
    default: return UPQ_ERR_CORRUPT; /* a list left open */
    }
}

static upq_status finish(upq_variant_asm *va)
{
    size_t len;
    upq_status st = bst(upq_variant_build_finish(&va->b, &len));
    if (st != UPQ_OK)
        return st;
    if (va->keys.count != va->meta.count) {
        /* shredded field names the row's metadata lacked */
        st = upq_variant_keys_finish(&va->keys, UPQ_VARIANT_SORTED_AUTO, va->meta_out,
                                     va->meta_out_cap, &va->meta_out_len);
        if (st != UPQ_OK)
            return st;
    }
    va->done = 1;
    return UPQ_DONE;
}

upq_status upq_variant_asm_feed(upq_variant_asm *va, const upq_event *ev)
{
    uint32_t i;
    const upq_variant_node *vn;
    upq_variant_slot *sl;
    upq_status st;
    if (va->depth == 0) {
        upq_variant_slot *top;
        if (ev->type != UPQ_EV_BEGIN_STRUCT || ev->node != va->root)
            return UPQ_ERR_STATE;
        va->scratch_len = 0;
        va->has_meta = 0;
        va->done = 0;
        va->meta_out_len = 0;
        upq_variant_keys_init(&va->keys, va->keys.bytes, va->keys.bytes_cap, va->keys.offs,
                              va->keys.cap);
        upq_variant_builder_init(&va->b, &va->keys, va->b.out, va->b.cap, va->b.ents,
                                 va->b.ents_cap, va->b.frames, va->b.frames_cap);
        top = &va->slots[va->depth++];
        upq_memset(top, 0, sizeof *top);
        top->node = va->root;
        return UPQ_OK;
    }
    if (ev->node < va->root || ev->node - va->root >= va->num_nodes)
        return UPQ_ERR_STATE;
    i = ev->node - va->root;
    vn = &va->nodes[i];
    sl = &va->slots[va->depth - 1];
    if (vn->role != R_META && vn->role != R_FIELD && vn->role != R_ELEM && vn->role != R_TOP &&
        !va->has_meta)
        return UPQ_ERR_UNSUPPORTED; /* metadata must come first */
    switch (vn->role) {
    case R_META: {
        const upq_bytes *b = (const upq_bytes *)ev->value;
        if (ev->type != UPQ_EV_VALUE || va->has_meta)
            return UPQ_ERR_CORRUPT;
        st = save(va, b, &va->meta_off);
        if (st != UPQ_OK)
            return st;
        va->meta_len = b->len;
        st = upq_variant_meta_parse(&va->meta, va->scratch + va->meta_off, b->len);
        if (st != UPQ_OK)
            return UPQ_ERR_CORRUPT;
        if (upq_variant_keys_seed(&va->keys, &va->meta) != UPQ_OK)
            return UPQ_ERR_BUFFER;
        va->has_meta = 1;
        return UPQ_OK;
    }
    case R_VALUE:
        if (ev->type == UPQ_EV_NULL)
            return UPQ_OK;
        if (ev->type != UPQ_EV_VALUE)
            return UPQ_ERR_CORRUPT;
        st = save(va, (const upq_bytes *)ev->value, &sl->value_off);
        if (st != UPQ_OK)
            return st;
        sl->value_len = ((const upq_bytes *)ev->value)->len;
        sl->has_value = 1;
        st = upq_variant_validate(&va->meta, va->scratch + sl->value_off, sl->value_len);
        return st == UPQ_OK ? UPQ_OK : UPQ_ERR_CORRUPT;
    case R_TPRIM:
        if (ev->type == UPQ_EV_NULL)
            return UPQ_OK;
        if (ev->type != UPQ_EV_VALUE)
            return UPQ_ERR_CORRUPT;
        st = put_key(va, sl);
        if (st == UPQ_OK)
            st = bst(put_primitive(va, vn, ev));
        sl->typed = 1;
        return st;
    case R_TOBJ:
        if (ev->type == UPQ_EV_NULL || ev->type == UPQ_EV_END_STRUCT)
            return UPQ_OK;
        if (ev->type != UPQ_EV_BEGIN_STRUCT)
            return UPQ_ERR_CORRUPT;
        st = put_key(va, sl);
        if (st == UPQ_OK)
            st = bst(upq_variant_build_begin_object(&va->b));
        sl->typed = 2;
        sl->typed_node = ev->node;
        return st;
    case R_TLIST:
        if (ev->type == UPQ_EV_NULL)
            return UPQ_OK;
        if (ev->type == UPQ_EV_BEGIN_LIST) {
            st = put_key(va, sl);
            if (st == UPQ_OK)
                st = bst(upq_variant_build_begin_array(&va->b));
            sl->typed = 4;
            return st;
        }
        if (ev->type == UPQ_EV_END_LIST && sl->typed == 4) {
            sl->typed = 3;
            return bst(upq_variant_build_end(&va->b));
        }
        return UPQ_ERR_CORRUPT;
    case R_FIELD:
    case R_ELEM:
    case R_TOP:
        if (ev->type == UPQ_EV_BEGIN_STRUCT && vn->role != R_TOP) {
            upq_variant_slot *n;
            if (va->depth >= va->max_slots)
                return UPQ_ERR_LIMIT;
            n = &va->slots[va->depth++];
            upq_memset(n, 0, sizeof *n);
            n->node = ev->node;
            n->field = vn->role == R_FIELD;
            n->scratch_mark = va->scratch_len;
            return UPQ_OK;
        }
        if (ev->type != UPQ_EV_END_STRUCT || sl->node != ev->node)
            return UPQ_ERR_CORRUPT;
        if (!va->has_meta)
            return UPQ_ERR_UNSUPPORTED; /* metadata not selected */
        st = end_slot(va, sl, vn->role);
        if (st != UPQ_OK)
            return st;
        va->depth--;
        if (vn->role == R_TOP)
            return finish(va);
        va->scratch_len = sl->scratch_mark;
        return UPQ_OK;
    default: return UPQ_ERR_CORRUPT;
    }
}

void upq_variant_asm_result(const upq_variant_asm *va, const uint8_t **meta, size_t *meta_len,
                            const uint8_t **value, size_t *value_len)
{
    if (va->meta_out_len) {
        *meta = va->meta_out;
        *meta_len = va->meta_out_len;
    } else {
        *meta = va->scratch + va->meta_off;
        *meta_len = va->meta_len;
    }
    *value = va->b.out;
    *value_len = va->b.len;
}

#endif /* UPQ_WITH_VARIANT && UPQ_WITH_READER */
