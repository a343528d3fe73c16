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
#include "variant_int.h"

#if UPQ_WITH_VARIANT && UPQ_WITH_READER

#include "uparquet/record.h"
#include "upq_port.h"

upq_status upq_variant_asm_init(upq_variant_asm *va, const upq_schema *s, uint32_t node,
                                upq_arena *a, size_t value_cap, uint32_t max_keys,
                                size_t key_bytes, uint32_t max_entries)
{
    uint32_t slots = 0;
    uint8_t *out, *kb;
    uint32_t *ko;
    upq_variant_entry *ents;
    upq_variant_build_frame *frames;
    upq_status st;
    upq_memset(va, 0, sizeof *va);
    va->s = s;
    va->root = node;
    st = upq_variant_plan(s, node, a, &va->nodes, &va->num_nodes, &slots);
    if (st != UPQ_OK)
        return st;
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

/* The role of slot node's typed_value (R_NONE without one). */
static uint8_t typed_role(const upq_variant_asm *va, uint32_t slot)
{
    const upq_schema *s = va->s;
    uint32_t k;
    for (k = 0; k < s->nodes[slot].num_children; k++) {
        uint8_t r = va->nodes[s->children[s->nodes[slot].first_child + k] - va->root].role;
        if (r == R_TPRIM || r == R_TOBJ || r == R_TLIST)
            return r;
    }
    return R_NONE;
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
            /* an object belongs in a typed object, an array in a typed list */
            uint8_t tr = typed_role(va, sl->node);
            if (vp[0] != 0 && (((vp[0] & 3u) == 2u && tr == R_TOBJ) ||
                               ((vp[0] & 3u) == 3u && tr == R_TLIST)))
                return UPQ_ERR_CORRUPT;
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

/* The group's BEGIN_STRUCT: a new row. */
static upq_status feed_begin(upq_variant_asm *va, const upq_event *ev)
{
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

static upq_status feed_meta(upq_variant_asm *va, const upq_event *ev)
{
    const upq_bytes *b = (const upq_bytes *)ev->value;
    upq_status st;
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

/* A slot's value: kept until the slot ends. */
static upq_status feed_value(upq_variant_asm *va, upq_variant_slot *sl, const upq_event *ev)
{
    upq_status st;
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
}

/* A slot's typed_value: a primitive, or the start or end of an object or
 * a list, straight into the builder. */
static upq_status feed_typed(upq_variant_asm *va, const upq_variant_node *vn,
                             upq_variant_slot *sl, const upq_event *ev)
{
    upq_status st;
    if (ev->type == UPQ_EV_NULL || (vn->role == R_TOBJ && ev->type == UPQ_EV_END_STRUCT))
        return UPQ_OK;
    if (vn->role == R_TLIST && ev->type == UPQ_EV_END_LIST && sl->typed == 4) {
        sl->typed = 3;
        return bst(upq_variant_build_end(&va->b));
    }
    if ((vn->role == R_TPRIM && ev->type != UPQ_EV_VALUE) ||
        (vn->role == R_TOBJ && ev->type != UPQ_EV_BEGIN_STRUCT) ||
        (vn->role == R_TLIST && ev->type != UPQ_EV_BEGIN_LIST))
        return UPQ_ERR_CORRUPT;
    st = put_key(va, sl);
    if (st != UPQ_OK)
        return st;
    switch (vn->role) {
    case R_TPRIM:
        sl->typed = 1;
        return bst(put_primitive(va, vn, ev));
    case R_TOBJ:
        sl->typed = 2;
        sl->typed_node = ev->node;
        return bst(upq_variant_build_begin_object(&va->b));
    default:
        sl->typed = 4;
        return bst(upq_variant_build_begin_array(&va->b));
    }
}

/* A slot (the group itself, a shredded field, a list element) begins or
 * ends. A shredded field is a required group in the spec; other writers
 * make it optional (hyparquet-writer), and readers take a null one as the
 * field missing, as a present one whose value and typed_value are null. */
static upq_status feed_slot(upq_variant_asm *va, const upq_variant_node *vn,
                            upq_variant_slot *sl, const upq_event *ev)
{
    upq_status st;
    if (ev->type == UPQ_EV_NULL && vn->role == R_FIELD)
        return UPQ_OK;
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
}

upq_status upq_variant_asm_feed(upq_variant_asm *va, const upq_event *ev)
{
    const upq_variant_node *vn;
    upq_variant_slot *sl;
    if (va->depth == 0)
        return feed_begin(va, ev);
    if (ev->node < va->root || ev->node - va->root >= va->num_nodes)
        return UPQ_ERR_STATE;
    vn = &va->nodes[ev->node - va->root];
    sl = &va->slots[va->depth - 1];
    switch (vn->role) {
    case R_META: return feed_meta(va, ev);
    case R_FIELD:
    case R_ELEM:
    case R_TOP: return feed_slot(va, vn, sl, ev);
    default: break;
    }
    if (!va->has_meta)
        return UPQ_ERR_UNSUPPORTED; /* metadata must come first */
    switch (vn->role) {
    case R_VALUE: return feed_value(va, sl, ev);
    case R_TPRIM:
    case R_TOBJ:
    case R_TLIST: return feed_typed(va, vn, sl, ev);
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
