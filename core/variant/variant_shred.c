/*
 * VARIANT columns for the writer: one row's Variant split into the level
 * entries and values of the group's leaf columns (metadata, value and the
 * shredded typed_value columns), as the shredding spec lays them out.
 *
 * The value and typed_value pairs ("slots") are walked with an explicit
 * stack: a frame per open slot, its stage saying whether it is emitting its
 * own columns, its shredded object fields or its array elements.
 */
#include "variant_int.h"

#if UPQ_WITH_VARIANT && UPQ_WITH_WRITER

#include "decode/encoding.h"
#include "uparquet/column.h"
#include "uparquet/writer.h"
#include "upq_port.h"

enum { ST_START = 0, ST_FIELDS, ST_ELEMS, ST_DONE };

static uint32_t child_role(const upq_variant_shredder *sh, uint32_t node, uint8_t role)
{
    const upq_schema *s = sh->s;
    uint32_t k;
    for (k = 0; k < s->nodes[node].num_children; k++) {
        uint32_t c = s->children[s->nodes[node].first_child + k];
        if (sh->nodes[c - sh->root].role == role)
            return c;
    }
    return UPQ_NONE;
}

static uint32_t typed_child(const upq_variant_shredder *sh, uint32_t slot)
{
    uint32_t t = child_role(sh, slot, R_TPRIM);
    if (t == UPQ_NONE)
        t = child_role(sh, slot, R_TOBJ);
    if (t == UPQ_NONE)
        t = child_role(sh, slot, R_TLIST);
    return t;
}

upq_status upq_variant_shredder_init(upq_variant_shredder *sh, const upq_schema *s, uint32_t node,
                                     upq_arena *a, size_t max_levels, size_t scratch_bytes)
{
    uint32_t i, slots = 0, last = 0;
    upq_status st;
    upq_memset(sh, 0, sizeof *sh);
    if (upq_variant_is_column(s, node) && s->nodes[node].max_rep != 0)
        return UPQ_ERR_UNSUPPORTED;
    sh->s = s;
    sh->root = node;
    st = upq_variant_plan(s, node, a, &sh->nodes, &sh->num_nodes, &slots);
    if (st != UPQ_OK)
        return st;
    sh->first_column = UPQ_NONE;
    for (i = 0; i < sh->num_nodes; i++) {
        uint32_t c = s->nodes[node + i].column;
        if (c == UPQ_NONE)
            continue;
        if (sh->first_column == UPQ_NONE)
            sh->first_column = c;
        last = c;
    }
    sh->num_leaves = last - sh->first_column + 1u;
    sh->leaves = (upq_variant_shred_leaf *)upq_arena_alloc_array(a, sh->num_leaves,
                                                                 sizeof *sh->leaves);
    sh->stack = (upq_variant_shred_frame *)upq_arena_alloc_array(a, slots, sizeof *sh->stack);
    sh->scratch = (uint8_t *)upq_arena_alloc(a, scratch_bytes);
    if (!sh->leaves || !sh->stack || !sh->scratch)
        return UPQ_ERR_NOMEM;
    sh->max_depth = slots;
    sh->max_levels = max_levels;
    sh->scratch_cap = scratch_bytes;
    for (i = 0; i < sh->num_leaves; i++) {
        upq_variant_shred_leaf *l = &sh->leaves[i];
        upq_memset(l, 0, sizeof *l);
        l->column = sh->first_column + i;
        l->vsize = upq_value_size(s->columns[l->column].physical_type);
        l->def = (uint16_t *)upq_arena_alloc_array(a, max_levels, sizeof *l->def);
        l->rep = (uint16_t *)upq_arena_alloc_array(a, max_levels, sizeof *l->rep);
        l->vals = (uint8_t *)upq_arena_alloc_array(a, max_levels, l->vsize);
        if (!l->def || !l->rep || !l->vals)
            return UPQ_ERR_NOMEM;
    }
    return UPQ_OK;
}

/* One level entry of leaf node `node`; value NULL for a null. */
static upq_status emit(upq_variant_shredder *sh, uint32_t node, uint16_t def, uint16_t rep,
                       const void *value)
{
    upq_variant_shred_leaf *l = &sh->leaves[sh->s->nodes[node].column - sh->first_column];
    if (l->n >= sh->max_levels)
        return UPQ_ERR_LIMIT;
    l->def[l->n] = def;
    l->rep[l->n] = rep;
    l->n++;
    if (value)
        upq_memcpy(l->vals + l->nv++ * l->vsize, value, l->vsize);
    return UPQ_OK;
}

static upq_status emit_bytes(upq_variant_shredder *sh, uint32_t node, uint16_t rep,
                             const uint8_t *p, size_t len)
{
    upq_bytes b;
    if (len > 0xFFFFFFFFu)
        return UPQ_ERR_LIMIT;
    b.ptr = p;
    b.len = (uint32_t)len;
    return emit(sh, node, sh->s->nodes[node].max_def, rep, &b);
}

/* Every leaf under `node` (itself included) gets a null at `def`. */
static upq_status null_subtree(upq_variant_shredder *sh, uint32_t node, uint16_t def, uint16_t rep)
{
    uint32_t end = node + upq_variant_subtree(sh->s, node), i;
    for (i = node; i < end; i++) {
        if (sh->s->nodes[i].column != UPQ_NONE) {
            upq_status st = emit(sh, i, def, rep, NULL);
            if (st != UPQ_OK)
                return st;
        }
    }
    return UPQ_OK;
}

/* Level of an optional node being null (its parent present). */
static upq_status null_node(upq_variant_shredder *sh, uint32_t node, uint16_t rep)
{
    const upq_schema_node *n = &sh->s->nodes[node];
    if (n->repetition == UPQ_REP_REQUIRED)
        return UPQ_ERR_INVAL;
    return null_subtree(sh, node, (uint16_t)(n->max_def - 1u), rep);
}

static unsigned uint_size(uint32_t v)
{
    return v < 0x100u ? 1u : v < 0x10000u ? 2u : v < 0x1000000u ? 3u : 4u;
}

static void store_uint(uint8_t *p, uint32_t v, unsigned size)
{
    unsigned i;
    for (i = 0; i < size; i++, v >>= 8)
        p[i] = (uint8_t)v;
}

static int is_shredded_name(const upq_variant_shredder *sh, uint32_t tobj, const uint8_t *k,
                            size_t kl)
{
    const upq_schema *s = sh->s;
    uint32_t j;
    for (j = 0; j < s->nodes[tobj].num_children; j++) {
        const upq_bytes *nm = &s->nodes[s->children[s->nodes[tobj].first_child + j]].elem->name;
        if (nm->len == kl && (kl == 0 || upq_memcmp(nm->ptr, k, kl) == 0))
            return 1;
    }
    return 0;
}

/* The fields of object v that typed group tobj does not shred, as an
 * object in scratch (*out.p NULL when there are none). Fields keep their
 * key order, so ids and offsets are written in one pass. */
static upq_status residual(upq_variant_shredder *sh, upq_variant v, uint32_t count, uint32_t tobj,
                           upq_variant *out)
{
    uint32_t i, n = 0, max_id = 0, pass;
    size_t data = 0, hdr, pos = 0;
    unsigned is, os, ns;
    uint8_t *p = NULL;
    out->p = NULL;
    out->len = 0;
    for (pass = 0; pass < 2; pass++) {
        uint32_t k = 0;
        size_t off = 0;
        for (i = 0; i < count; i++) {
            upq_variant c;
            uint32_t id;
            const uint8_t *kp;
            size_t kl;
            if (upq_variant_child(v, i, &c, &id) != UPQ_OK ||
                upq_variant_meta_key(&sh->meta, id, &kp, &kl) != UPQ_OK)
                return UPQ_ERR_CORRUPT;
            if (is_shredded_name(sh, tobj, kp, kl))
                continue;
            if (pass == 0) {
                n++;
                data += c.len;
                if (id > max_id)
                    max_id = id;
                continue;
            }
            store_uint(p + 1 + ns + (size_t)k * is, id, is);
            store_uint(p + 1 + ns + (size_t)n * is + (size_t)k * os, (uint32_t)off, os);
            upq_memcpy(p + hdr + off, c.p, c.len);
            off += c.len;
            k++;
        }
        if (pass == 0) {
            if (n == 0)
                return UPQ_OK;
            if (data > 0xFFFFFFFFu)
                return UPQ_ERR_LIMIT;
            is = uint_size(max_id);
            os = uint_size((uint32_t)data);
            ns = n > 255u ? 4u : 1u;
            hdr = 1u + ns + (size_t)n * is + ((size_t)n + 1u) * os;
            if (hdr + data > sh->scratch_cap - sh->scratch_len)
                return UPQ_ERR_BUFFER;
            pos = sh->scratch_len;
            p = sh->scratch + pos;
            p[0] = (uint8_t)(2u | ((ns == 4u ? 1u : 0u) << 6) | ((is - 1u) << 4) | ((os - 1u) << 2));
            store_uint(p + 1, n, ns);
            store_uint(p + 1 + ns + (size_t)n * is + (size_t)n * os, (uint32_t)data, os);
        }
    }
    sh->scratch_len = pos + hdr + data;
    out->p = p;
    out->len = hdr + data;
    return UPQ_OK;
}

/* The typed leaf value of item `it`, or UPQ_DONE when it does not fit. */
static upq_status typed_leaf(upq_variant_shredder *sh, uint32_t tnode, const upq_variant_item *it,
                             uint16_t rep)
{
    const upq_variant_node *vn = &sh->nodes[tnode - sh->root];
    const upq_column_desc *cd = &sh->s->columns[sh->s->nodes[tnode].column];
    uint16_t def = sh->s->nodes[tnode].max_def;
    uint8_t want = upq_variant_conv_kind(vn->conv);
    int32_t i32;
    int64_t i64;
    if (it->type != want && !(want == UPQ_VARIANT_TRUE && it->type == UPQ_VARIANT_FALSE))
        return UPQ_DONE;
    if ((want == UPQ_VARIANT_DECIMAL4 || want == UPQ_VARIANT_DECIMAL8 ||
         want == UPQ_VARIANT_DECIMAL16) && it->scale != vn->scale)
        return UPQ_DONE;
    switch (cd->physical_type) {
    case UPQ_TYPE_BOOLEAN: {
        uint8_t b = it->type == UPQ_VARIANT_TRUE;
        return emit(sh, tnode, def, rep, &b);
    }
    case UPQ_TYPE_INT32:
        i32 = (int32_t)it->i;
        return emit(sh, tnode, def, rep, &i32);
    case UPQ_TYPE_INT64:
        i64 = it->i;
        return emit(sh, tnode, def, rep, &i64);
    case UPQ_TYPE_FLOAT: return emit(sh, tnode, def, rep, &it->f);
    case UPQ_TYPE_DOUBLE: return emit(sh, tnode, def, rep, &it->d);
    default: break;
    }
    if (want == UPQ_VARIANT_DECIMAL16) {
        /* 16 little-endian bytes to the column's big-endian width */
        size_t w = cd->physical_type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY ? (size_t)cd->type_length
                                                                       : 16u;
        uint8_t fill = (it->bytes[15] & 0x80u) ? 0xFFu : 0x00u, *p;
        size_t k;
        if (w == 0 || w > 64u)
            return UPQ_DONE;
        for (k = w; k < 16u; k++)
            if (it->bytes[k] != fill)
                return UPQ_DONE; /* does not fit the column's width */
        if (w < 16u && ((it->bytes[w - 1u] ^ fill) & 0x80u))
            return UPQ_DONE;
        if (w > sh->scratch_cap - sh->scratch_len)
            return UPQ_ERR_BUFFER;
        p = sh->scratch + sh->scratch_len;
        for (k = 0; k < w; k++)
            p[w - 1u - k] = k < 16u ? it->bytes[k] : fill;
        sh->scratch_len += w;
        return emit_bytes(sh, tnode, rep, p, w);
    }
    return emit_bytes(sh, tnode, rep, it->bytes, it->len);
}

static upq_status push(upq_variant_shredder *sh, uint32_t node, upq_variant v, uint16_t rep)
{
    upq_variant_shred_frame *f;
    if (sh->depth >= sh->max_depth)
        return UPQ_ERR_LIMIT;
    f = &sh->stack[sh->depth++];
    f->v = v;
    f->node = node;
    f->idx = 0;
    f->rep = rep;
    f->stage = ST_START;
    return UPQ_OK;
}

/* A slot's own columns; sets the stage that follows. */
static upq_status slot_start(upq_variant_shredder *sh, upq_variant_shred_frame *f)
{
    uint32_t vnode = child_role(sh, f->node, R_VALUE), tnode = typed_child(sh, f->node);
    upq_variant value = f->v;
    upq_variant_item it;
    upq_status st = UPQ_OK;
    uint8_t trole = tnode == UPQ_NONE ? R_NONE : sh->nodes[tnode - sh->root].role;
    int typed = 0; /* 1: typed_value present */
    f->stage = ST_DONE;
    if (f->v.p) {
        st = upq_variant_item_read(f->v.p, f->v.len, &it);
        if (st != UPQ_OK)
            return UPQ_ERR_CORRUPT;
        if (trole == R_TPRIM && it.type != UPQ_VARIANT_OBJECT && it.type != UPQ_VARIANT_ARRAY) {
            st = typed_leaf(sh, tnode, &it, f->rep);
            if (st == UPQ_OK) {
                typed = 1;
                value.p = NULL;
            } else if (st != UPQ_DONE) {
                return st;
            }
            st = UPQ_OK; /* does not fit: the value column takes it */
        } else if (trole == R_TLIST && it.type == UPQ_VARIANT_ARRAY) {
            typed = 1;
            value.p = NULL;
            f->stage = ST_ELEMS;
            f->idx = 0;
            if (it.count == 0) {
                /* the list is there and empty */
                st = null_subtree(sh, tnode, sh->s->nodes[tnode].max_def, f->rep);
                f->stage = ST_DONE;
            }
        } else if (trole == R_TOBJ && it.type == UPQ_VARIANT_OBJECT) {
            typed = 1;
            st = residual(sh, f->v, it.count, tnode, &value);
            f->stage = ST_FIELDS;
        }
        if (st != UPQ_OK)
            return st;
    }
    if (vnode != UPQ_NONE) {
        if (value.p)
            st = emit_bytes(sh, vnode, f->rep, value.p, value.len);
        else
            st = null_node(sh, vnode, f->rep);
    } else if (value.p) {
        st = UPQ_ERR_INVAL; /* no `value` column for what typed_value cannot hold */
    }
    if (st == UPQ_OK && tnode != UPQ_NONE && !typed)
        st = null_node(sh, tnode, f->rep);
    return st;
}

upq_status upq_variant_shred(upq_variant_shredder *sh, const uint8_t *meta, size_t meta_len,
                             const uint8_t *value, size_t value_len)
{
    const upq_schema *s = sh->s;
    upq_variant root;
    upq_status st;
    uint32_t i;
    for (i = 0; i < sh->num_leaves; i++) {
        sh->leaves[i].n = 0;
        sh->leaves[i].nv = 0;
        sh->leaves[i].written = 0;
    }
    sh->scratch_len = 0;
    sh->depth = 0;
    if (!meta)
        return null_node(sh, sh->root, 0);
    if (upq_variant_meta_parse(&sh->meta, meta, meta_len) != UPQ_OK ||
        upq_variant_validate(&sh->meta, value, value_len) != UPQ_OK)
        return UPQ_ERR_CORRUPT;
    st = emit_bytes(sh, child_role(sh, sh->root, R_META), 0, meta, meta_len);
    root.p = value;
    root.len = value_len;
    if (st == UPQ_OK)
        st = push(sh, sh->root, root, 0);
    while (st == UPQ_OK && sh->depth > 0) {
        upq_variant_shred_frame *f = &sh->stack[sh->depth - 1];
        uint32_t tnode;
        upq_variant c;
        upq_variant_item it;
        switch (f->stage) {
        case ST_START: st = slot_start(sh, f); break;
        case ST_FIELDS:
            tnode = child_role(sh, f->node, R_TOBJ);
            if (f->idx >= s->nodes[tnode].num_children) {
                f->stage = ST_DONE;
                break;
            } else {
                uint32_t fnode = s->children[s->nodes[tnode].first_child + f->idx++];
                const upq_bytes *nm = &s->nodes[fnode].elem->name;
                st = upq_variant_find(&sh->meta, f->v, nm->ptr, nm->len, &c);
                if (st == UPQ_DONE)
                    c.p = NULL; /* missing: both columns null */
                if (st == UPQ_OK || st == UPQ_DONE)
                    st = push(sh, fnode, c, f->rep);
            }
            break;
        case ST_ELEMS: {
            uint32_t rep_node, elem;
            tnode = child_role(sh, f->node, R_TLIST);
            rep_node = s->children[s->nodes[tnode].first_child];
            elem = s->children[s->nodes[rep_node].first_child];
            if (upq_variant_item_read(f->v.p, f->v.len, &it) != UPQ_OK)
                return UPQ_ERR_CORRUPT;
            if (f->idx >= it.count) {
                f->stage = ST_DONE;
                break;
            }
            st = upq_variant_child(f->v, f->idx, &c, NULL);
            if (st == UPQ_OK)
                st = push(sh, elem, c, f->idx == 0 ? f->rep : s->nodes[rep_node].max_rep);
            f->idx++;
            break;
        }
        default: sh->depth--; break;
        }
    }
    return st;
}

upq_status upq_variant_shred_write(upq_variant_shredder *sh, upq_writer *w)
{
    uint32_t i;
    int waiting = 0;
    for (i = 0; i < sh->num_leaves; i++) {
        upq_variant_shred_leaf *l = &sh->leaves[i];
        size_t took = 0;
        upq_status st;
        if (l->written >= l->n)
            continue;
        /* one row: taken whole or not at all */
        st = upq_writer_write_column(w, l->column, l->def, l->rep, l->vals, l->n, &took);
        if (took)
            l->written = l->n;
        if (st == UPQ_DONE && !took) {
            waiting = 1;
            continue;
        }
        if (st != UPQ_OK && st != UPQ_DONE)
            return st;
    }
    return waiting ? UPQ_DONE : UPQ_OK;
}

#endif /* UPQ_WITH_VARIANT && UPQ_WITH_WRITER */
