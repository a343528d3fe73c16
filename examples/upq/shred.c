/*
 * Shredding: one JSON row into per-leaf (definition level, repetition
 * level, value) entries, the inverse of the record reader (core/read/record.c).
 *
 * The plan is the reader's: the schema with LIST and MAP interpreted by
 * the same backward-compatibility rules (2-level lists, "array" and
 * "<name>_tuple" groups, repeated fields outside LIST/MAP as lists of
 * required elements, maps without values), so a row `upq cat --json`
 * prints shreds back into the levels it was read from.
 *
 * No recursion: items (a plan node, its JSON value, the repetition level
 * its first entry starts with and the definition level its container
 * guarantees) go on an explicit stack; a container pushes its members in
 * reverse so every leaf gets its entries in order. Items stay in an array
 * for the row, so an error can name the full path of the offending field.
 */
#include "upq.h"
#include "shred.h"

#include <stdlib.h>
#include <string.h>

enum { WK_ROOT = 0, WK_STRUCT, WK_LIST, WK_MAP, WK_LEAF };

static void *xrealloc(void *p, size_t n, size_t size)
{
    if (size && n > (size_t)-1 / size) {
        fputs("upq: out of memory\n", stderr);
        exit(1);
    }
    p = realloc(p, n && size ? n * size : 1);
    if (!p) {
        fputs("upq: out of memory\n", stderr);
        exit(1);
    }
    return p;
}

/* ---- the plan: the schema read as core/read/record.c reads it (schema.h's shape
 * rules), for the whole schema ----------------------------------------------- */

typedef struct bframe {
    uint32_t plan, schema, k;
    int consumed;
} bframe;

static void add_node(shredder *sh, bframe *stack, uint32_t *depth, uint32_t i, int consumed)
{
    const upq_schema *s = sh->s;
    const upq_schema_node *sn = &s->nodes[i];
    uint32_t idx = sh->num_nodes++, frame_schema = i;
    int frame_consumed = 0;
    shred_node *p = &sh->nodes[idx];

    memset(p, 0, sizeof *p);
    p->schema = i;
    p->column = UPQ_NONE;
    p->size = 1;
    p->leaf_first = sh->num_leaves;
    p->def = sn->max_def;
    if (!consumed && sn->repetition == UPQ_REP_REPEATED) {
        p->kind = WK_LIST;
        p->def = (uint16_t)(sn->max_def - 1u);
        p->def_elems = sn->max_def;
        p->rep = sn->max_rep;
        frame_consumed = 1;
    } else if (!sn->is_group) {
        p->kind = WK_LEAF;
        p->column = sn->column;
        p->leaf_count = 1;
        sh->num_leaves++;
        return;
    } else if (upq_schema_is_list(s, i)) {
        uint32_t r = upq_schema_child(s, i, 0);
        p->kind = WK_LIST;
        p->def_elems = s->nodes[r].max_def;
        p->rep = s->nodes[r].max_rep;
        uint8_t took = 0;
        frame_schema = upq_schema_list_element(s, i, r, &took);
        frame_consumed = took;
    } else if (upq_schema_is_map(s, i)) {
        uint32_t kv = upq_schema_child(s, i, 0);
        p->kind = WK_MAP;
        p->def_elems = s->nodes[kv].max_def;
        p->rep = s->nodes[kv].max_rep;
        p->has_value = s->nodes[kv].num_children == 2;
        frame_schema = kv;
    } else {
        p->kind = WK_STRUCT;
    }
    stack[*depth].plan = idx;
    stack[*depth].schema = frame_schema;
    stack[*depth].k = 0;
    stack[*depth].consumed = frame_consumed;
    (*depth)++;
}

/* The plan in depth-first order: every subtree and its leaves contiguous. */
static int build_plan(shredder *sh)
{
    const upq_schema *s = sh->s;
    uint32_t depth = 0, i, max_depth = 0;
    bframe *stack;

    for (i = 0; i < s->num_nodes; i++)
        if (s->nodes[i].depth > max_depth)
            max_depth = s->nodes[i].depth;
    /* each schema node gives at most two plan nodes, each level two frames */
    sh->nodes = xrealloc(NULL, 2u * (size_t)s->num_nodes + 1u, sizeof *sh->nodes);
    stack = xrealloc(NULL, 2u * (size_t)max_depth + 2u, sizeof *stack);
    memset(&sh->nodes[0], 0, sizeof sh->nodes[0]);
    sh->nodes[0].kind = WK_ROOT;
    sh->nodes[0].column = UPQ_NONE;
    sh->num_nodes = 1;
    stack[0].plan = 0;
    stack[0].schema = 0;
    stack[0].k = 0;
    stack[0].consumed = 0;
    depth = 1;
    while (depth > 0) {
        bframe *f = &stack[depth - 1];
        shred_node *p = &sh->nodes[f->plan];
        uint32_t next = UPQ_NONE;
        int consumed = 0;
        switch (p->kind) {
        case WK_LIST:
            if (f->k++ == 0) {
                next = f->schema;
                consumed = f->consumed;
            }
            break;
        case WK_MAP:
            if (f->k < s->nodes[f->schema].num_children)
                next = upq_schema_child(s, f->schema, f->k);
            f->k++;
            break;
        default:
            if (f->k < s->nodes[f->schema].num_children)
                next = upq_schema_child(s, f->schema, f->k++);
            break;
        }
        if (next == UPQ_NONE) {
            p->size = sh->num_nodes - f->plan;
            p->leaf_count = sh->num_leaves - p->leaf_first;
            depth--;
            continue;
        }
        add_node(sh, stack, &depth, next, consumed);
    }
    free(stack);
    /* leaves come in schema order, so leaf k is column k */
    for (i = 0; i < sh->num_nodes; i++)
        if (sh->nodes[i].kind == WK_LEAF && sh->nodes[i].column != sh->nodes[i].leaf_first)
            return -1;
    return 0;
}

int shred_init(shredder *sh, const upq_schema *s)
{
    uint32_t i;
    memset(sh, 0, sizeof *sh);
    sh->s = s;
    if (build_plan(sh))
        return -1;
    sh->leaves = xrealloc(NULL, s->num_columns ? s->num_columns : 1, sizeof *sh->leaves);
    memset(sh->leaves, 0, (s->num_columns ? s->num_columns : 1) * sizeof *sh->leaves);
    for (i = 0; i < s->num_columns; i++) {
        const upq_column_desc *cd = &s->columns[i];
        shred_leaf *lf = &sh->leaves[i];
        lf->vsize = upq_value_size(cd->physical_type);
        lf->is_bytes = cd->physical_type == UPQ_TYPE_BYTE_ARRAY ||
                       cd->physical_type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY;
        lf->unknown = cd->logical.isset &&
                      upq_logical_type_kind(&cd->logical) == UPQ_LOGICAL_TYPE_UNKNOWN;
    }
    sb_init(&sh->bytes);
    sb_addc(&sh->bytes, 0); /* never NULL: empty values point somewhere */
    sb_reset(&sh->bytes);
    sb_init(&sh->err_path);
    return 0;
}

void shred_free(shredder *sh)
{
    uint32_t i;
    for (i = 0; sh->leaves && i < sh->s->num_columns; i++) {
        free(sh->leaves[i].def);
        free(sh->leaves[i].rep);
        free(sh->leaves[i].vals);
        free(sh->leaves[i].offs);
    }
    free(sh->leaves);
    free(sh->nodes);
    free(sh->items);
    free(sh->todo);
    free(sh->used);
    free(sh->slots);
    sb_free(&sh->bytes);
    sb_free(&sh->err_path);
    memset(sh, 0, sizeof *sh);
}

/* ---- entries ------------------------------------------------------------------ */

static shred_leaf *entry(shredder *sh, uint32_t col, uint16_t def, uint16_t rep)
{
    shred_leaf *lf = &sh->leaves[col];
    if (lf->n == lf->cap) {
        lf->cap = lf->cap ? lf->cap * 2 : 16;
        lf->def = xrealloc(lf->def, lf->cap, sizeof *lf->def);
        lf->rep = xrealloc(lf->rep, lf->cap, sizeof *lf->rep);
    }
    lf->def[lf->n] = def;
    lf->rep[lf->n] = rep;
    lf->n++;
    return lf;
}

/* Room for one more value; returns where it goes. */
static void *value_slot(shred_leaf *lf)
{
    if (lf->nv == lf->vcap) {
        lf->vcap = lf->vcap ? lf->vcap * 2 : 16;
        lf->vals = xrealloc(lf->vals, lf->vcap, lf->vsize);
        if (lf->is_bytes)
            lf->offs = xrealloc(lf->offs, lf->vcap, sizeof *lf->offs);
    }
    return lf->vals + lf->nv * lf->vsize;
}

/* A null (or empty container) at definition level d in every leaf of node. */
static void emit_empty(shredder *sh, const shred_node *n, uint16_t d, uint16_t r)
{
    uint32_t k;
    for (k = 0; k < n->leaf_count; k++)
        entry(sh, n->leaf_first + k, d, r);
}

/* ---- errors ------------------------------------------------------------------- */

static void path_of(shredder *sh, uint32_t item, strbuf *out)
{
    /* collect from the item up, then write from the top down */
    uint32_t chain[3 * 256 + 8], n = 0, i;
    for (i = item; i != UPQ_NONE && n < sizeof chain / sizeof chain[0]; i = sh->items[i].parent)
        chain[n++] = i;
    while (n-- > 0) {
        const shred_item *it = &sh->items[chain[n]];
        const upq_schema_node *sn = &sh->s->nodes[sh->nodes[it->node].schema];
        switch (it->role) {
        case UPQ_ROLE_FIELD:
            if (out->len)
                sb_addc(out, '.');
            sb_add(out, sn->elem->name.ptr, sn->elem->name.len);
            break;
        case UPQ_ROLE_ELEMENT:
            sb_printf(out, "[%u]", it->index);
            break;
        case UPQ_ROLE_KEY:
            sb_printf(out, "[%u].key", it->index);
            break;
        default:
            sb_printf(out, "[%u].value", it->index);
            break;
        }
    }
}

static int shred_fail(shredder *sh, uint32_t item, const char *extra_key, size_t extra_len,
                const char *what)
{
    sb_reset(&sh->err_path);
    path_of(sh, item, &sh->err_path);
    if (extra_key) {
        if (sh->err_path.len)
            sb_addc(&sh->err_path, '.');
        sb_add(&sh->err_path, extra_key, extra_len);
    }
    snprintf(sh->err, sizeof sh->err, "%s", what);
    return -1;
}

/* ---- one row ------------------------------------------------------------------- */

static uint32_t push(shredder *sh, uint32_t node, uint32_t val, uint16_t r, uint16_t floor,
                     uint32_t parent, uint8_t role, uint32_t index)
{
    shred_item *it;
    if (sh->nitems == sh->items_cap) {
        sh->items_cap = sh->items_cap ? sh->items_cap * 2 : 64;
        sh->items = xrealloc(sh->items, sh->items_cap, sizeof *sh->items);
    }
    if (sh->ntodo == sh->todo_cap) {
        sh->todo_cap = sh->todo_cap ? sh->todo_cap * 2 : 64;
        sh->todo = xrealloc(sh->todo, sh->todo_cap, sizeof *sh->todo);
    }
    it = &sh->items[sh->nitems];
    it->node = node;
    it->val = val;
    it->r = r;
    it->floor = floor;
    it->parent = parent;
    it->role = role;
    it->index = index;
    sh->todo[sh->ntodo++] = sh->nitems;
    return sh->nitems++;
}

static int key_is(const jv_doc *d, const jv *m, const char *k)
{
    size_t n = strlen(k);
    return m->key_len == n && memcmp(jv_key(d, m), k, n) == 0;
}

/* An object with more members than this is looked up through a hash of
 * its keys; a smaller one by walking them. */
#define HASH_MEMBERS 8u

static uint32_t key_hash(const uint8_t *p, size_t n)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    size_t i;
    for (i = 0; i < n; i++)
        h = (h ^ p[i]) * 16777619u;
    return h;
}

/* Indexes the members of object o by key (open addressing, in member
 * order, so of two members of one name the first is found first). */
static void index_members(shredder *sh, const jv_doc *d, const jv *o)
{
    uint32_t mi, want = 16;
    while (want < 2u * o->len)
        want *= 2;
    if (want > sh->slots_cap) {
        sh->slots_cap = want;
        sh->slots = xrealloc(sh->slots, want, sizeof *sh->slots);
    }
    sh->nslots = want;
    memset(sh->slots, 0xFF, (size_t)want * sizeof *sh->slots);
    for (mi = o->first; mi != JV_NONE; mi = d->v[mi].next) {
        const jv *m = &d->v[mi];
        uint32_t k = key_hash(jv_key(d, m), m->key_len) & (want - 1u);
        while (sh->slots[k] != JV_NONE)
            k = (k + 1u) & (want - 1u);
        sh->slots[k] = mi;
    }
}

/* Finds the unused member of object o named like schema node sn (through
 * the index when `hashed`). */
static uint32_t member(shredder *sh, const jv_doc *d, const jv *o, const upq_schema_node *sn,
                       int hashed)
{
    const uint8_t *name = sn->elem->name.ptr;
    uint32_t len = sn->elem->name.len, mi, k = 0;
    if (hashed)
        k = key_hash(name, len) & (sh->nslots - 1u);
    for (mi = hashed ? sh->slots[k] : o->first; mi != JV_NONE;
         mi = hashed ? sh->slots[k = (k + 1u) & (sh->nslots - 1u)] : d->v[mi].next) {
        const jv *m = &d->v[mi];
        if (!sh->used[mi] && m->key_len == len && memcmp(jv_key(d, m), name, len) == 0) {
            sh->used[mi] = 1;
            return mi;
        }
    }
    return JV_NONE;
}

/* Struct members (or the row's fields), pushed in reverse order. */
static int push_members(shredder *sh, const jv_doc *d, uint32_t item, uint32_t ni, const jv *o,
                        uint16_t r)
{
    const shred_node *n = &sh->nodes[ni];
    uint32_t c, count = 0, k, first = sh->ntodo, mi;
    int hashed = o->len > HASH_MEMBERS && n->size > HASH_MEMBERS + 1u;
    if (hashed)
        index_members(sh, d, o);
    for (c = ni + 1; c < ni + n->size; c += sh->nodes[c].size) {
        const upq_schema_node *sn = &sh->s->nodes[sh->nodes[c].schema];
        push(sh, c, member(sh, d, o, sn, hashed), r, n->def, item, UPQ_ROLE_FIELD, 0);
        count++;
    }
    /* reverse what was just pushed so the first member comes off first */
    for (k = 0; k < count / 2; k++) {
        uint32_t t = sh->todo[first + k];
        sh->todo[first + k] = sh->todo[first + count - 1 - k];
        sh->todo[first + count - 1 - k] = t;
    }
    for (mi = o->first; mi != JV_NONE; mi = d->v[mi].next) {
        if (!sh->used[mi]) {
            const jv *m = &d->v[mi];
            int dup = 0;
            for (c = ni + 1; c < ni + n->size && !dup; c += sh->nodes[c].size) {
                const upq_schema_node *sn = &sh->s->nodes[sh->nodes[c].schema];
                dup = m->key_len == sn->elem->name.len &&
                      memcmp(jv_key(d, m), sn->elem->name.ptr, m->key_len) == 0;
            }
            return shred_fail(sh, item, (const char *)jv_key(d, m), m->key_len,
                        dup ? "given twice" : "not in the schema");
        }
    }
    return 0;
}

static int push_entries(shredder *sh, const jv_doc *d, uint32_t item, uint32_t ni, const jv *a,
                        uint16_t r)
{
    const shred_node *n = &sh->nodes[ni];
    uint32_t ei, idx = 0, first = sh->ntodo, k, count;
    uint32_t key = ni + 1, value = key + sh->nodes[key].size;
    for (ei = a->first; ei != JV_NONE; ei = d->v[ei].next, idx++) {
        uint16_t er = idx == 0 ? r : n->rep;
        if (n->kind == WK_LIST) {
            push(sh, key, ei, er, n->def_elems, item, UPQ_ROLE_ELEMENT, idx);
            continue;
        } else {
            const jv *e = &d->v[ei];
            uint32_t mi, kv = JV_NONE, vv = JV_NONE, self;
            if (e->type != JV_OBJECT) {
                self = push(sh, key, ei, er, n->def_elems, item, UPQ_ROLE_KEY, idx);
                sh->ntodo--;
                return shred_fail(sh, self, NULL, 0, "expected {\"key\":k,\"value\":v} (a map entry)");
            }
            for (mi = e->first; mi != JV_NONE; mi = d->v[mi].next) {
                const jv *m = &d->v[mi];
                if (key_is(d, m, "key") && kv == JV_NONE)
                    kv = mi;
                else if (key_is(d, m, "value") && vv == JV_NONE)
                    vv = mi;
                else {
                    self = push(sh, key, ei, er, n->def_elems, item, UPQ_ROLE_KEY, idx);
                    sh->ntodo--;
                    return shred_fail(sh, self, NULL, 0,
                                "a map entry has only \"key\" and \"value\"");
                }
            }
            push(sh, key, kv, er, n->def_elems, item, UPQ_ROLE_KEY, idx);
            if (n->has_value) {
                push(sh, value, vv, er, n->def_elems, item, UPQ_ROLE_VALUE, idx);
            } else if (vv != JV_NONE && d->v[vv].type != JV_NULL) {
                self = push(sh, key, ei, er, n->def_elems, item, UPQ_ROLE_VALUE, idx);
                sh->ntodo--;
                return shred_fail(sh, self, NULL, 0, "this map has no values: expected null");
            }
        }
    }
    count = sh->ntodo - first;
    for (k = 0; k < count / 2; k++) {
        uint32_t t = sh->todo[first + k];
        sh->todo[first + k] = sh->todo[first + count - 1 - k];
        sh->todo[first + count - 1 - k] = t;
    }
    return 0;
}

/* A string for a BYTE_ARRAY column of text (STRING, ENUM, JSON): its value
 * is the JSON string's bytes as they are, so the row can point at them
 * (value_parse would copy them). */
static int doc_string(const upq_schema *s, uint32_t col, const jv *v)
{
    const upq_column_desc *cd = &s->columns[col];
    int lk = cd->logical.isset ? upq_logical_type_kind(&cd->logical) : 0;
    return v->type == JV_STRING && cd->physical_type == UPQ_TYPE_BYTE_ARRAY &&
           (lk == UPQ_LOGICAL_TYPE_STRING || lk == UPQ_LOGICAL_TYPE_ENUM ||
            lk == UPQ_LOGICAL_TYPE_JSON);
}

static int do_leaf(shredder *sh, const jv_doc *d, uint32_t item)
{
    const shred_item *it = &sh->items[item];
    const shred_node *n = &sh->nodes[it->node];
    shred_leaf *lf = entry(sh, n->column, n->def, it->r);
    void *slot = value_slot(lf);
    size_t off = 0;
    int in_doc = 0;
    if (it->val == JV_NONE || d->v[it->val].type == JV_NULL) {
        /* UNKNOWN reads as null whatever is stored: a required one stores zeros */
        const upq_column_desc *cd = &sh->s->columns[n->column];
        memset(slot, 0, lf->vsize);
        if (lf->is_bytes) {
            size_t w = cd->physical_type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY
                           ? (size_t)cd->type_length : 0;
            off = sh->bytes.len;
            while (w-- > 0)
                sb_addc(&sh->bytes, 0);
            ((upq_bytes *)slot)->len = (uint32_t)(sh->bytes.len - off);
        }
    } else if (doc_string(sh->s, n->column, &d->v[it->val])) {
        /* the JSON string's bytes are the value: pointed at, not copied */
        upq_bytes *b = (upq_bytes *)slot;
        b->ptr = NULL;
        b->len = d->v[it->val].len;
        off = d->v[it->val].off;
        in_doc = 1;
    } else if (value_parse(sh->s, n->column, d, &d->v[it->val], slot, &sh->bytes, &off, sh->err,
                           sizeof sh->err)) {
        lf->n--;
        sb_reset(&sh->err_path);
        path_of(sh, item, &sh->err_path);
        return -1;
    }
    if (lf->is_bytes)
        lf->offs[lf->nv] = off << 1 | (size_t)in_doc;
    lf->nv++;
    return 0;
}

static int do_item(shredder *sh, const jv_doc *d, uint32_t item)
{
    shred_item it = sh->items[item];
    const shred_node *n = &sh->nodes[it.node];
    const jv *v = it.val == JV_NONE ? NULL : &d->v[it.val];

    if (!v || v->type == JV_NULL) {
        if (n->def > it.floor) {
            emit_empty(sh, n, it.floor, it.r);
            return 0;
        }
        if (n->kind == WK_LEAF && sh->leaves[n->column].unknown)
            return do_leaf(sh, d, item);
        if (n->kind == WK_LIST)
            return shred_fail(sh, item, NULL, 0, v ? "expected an array, not null (a repeated field)"
                                             : "missing (a repeated field: give [] when empty)");
        return shred_fail(sh, item, NULL, 0, v ? "null in a required field" : "missing (required)");
    }
    switch (n->kind) {
    case WK_LEAF:
        return do_leaf(sh, d, item);
    case WK_STRUCT:
        if (v->type != JV_OBJECT)
            return shred_fail(sh, item, NULL, 0, "expected an object (a group)");
        if (n->leaf_count == 0)
            return 0;
        return push_members(sh, d, item, it.node, v, it.r);
    case WK_LIST:
    case WK_MAP:
        if (v->type != JV_ARRAY)
            return shred_fail(sh, item, NULL, 0,
                        n->kind == WK_LIST ? "expected an array (a list)"
                                           : "expected an array of {\"key\":k,\"value\":v} (a map)");
        if (v->len == 0) {
            emit_empty(sh, n, n->def, it.r);
            return 0;
        }
        return push_entries(sh, d, item, it.node, v, it.r);
    default:
        return shred_fail(sh, item, NULL, 0, "unexpected plan node");
    }
}

int shred_row(shredder *sh, const jv_doc *d)
{
    const jv *row = &d->v[0];
    uint32_t i;
    for (i = 0; i < sh->s->num_columns; i++)
        sh->leaves[i].n = sh->leaves[i].nv = 0;
    sb_reset(&sh->bytes);
    sb_reset(&sh->err_path);
    sh->err[0] = '\0';
    sh->nitems = sh->ntodo = 0;
    if (d->n > sh->used_cap) {
        sh->used_cap = d->n;
        sh->used = xrealloc(sh->used, sh->used_cap, 1);
    }
    memset(sh->used, 0, d->n);
    if (row->type != JV_OBJECT) {
        snprintf(sh->err, sizeof sh->err, "a row must be a JSON object");
        return -1;
    }
    if (push_members(sh, d, UPQ_NONE, 0, row, 0))
        return -1;
    while (sh->ntodo > 0) {
        uint32_t item = sh->todo[--sh->ntodo];
        if (do_item(sh, d, item))
            return -1;
    }
    /* byte arrays point into sh->bytes, which has stopped moving, or into
     * the document's own bytes (offs: offset << 1 | in the document) */
    for (i = 0; i < sh->s->num_columns; i++) {
        shred_leaf *lf = &sh->leaves[i];
        size_t k;
        if (!lf->is_bytes)
            continue;
        for (k = 0; k < lf->nv; k++)
            ((upq_bytes *)(void *)(lf->vals + k * lf->vsize))->ptr =
                ((lf->offs[k] & 1u) ? d->bytes : (const uint8_t *)sh->bytes.p) +
                (lf->offs[k] >> 1);
    }
    return 0;
}
