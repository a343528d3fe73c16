/*
 * `upq write` and VARIANT columns: each row's JSON value of a VARIANT group
 * is encoded as a Variant (the library's builder) and, when the schema
 * shreds it (a typed_value under the group, as the shredding spec lays it
 * out), split into its value and typed_value columns. The result is the
 * row's JSON in the group's column form ({"metadata": base64, "value":
 * base64, "typed_value": ...}), which the ordinary shredder then writes.
 *
 * JSON to Variant: null, booleans, integers (the smallest of int8..int64
 * that holds them; beyond int64, and -0, a double), other numbers as doubles,
 * strings, arrays, objects (duplicate keys rejected).
 *
 * Shredding follows the value's type: a primitive goes to a typed_value
 * leaf when it is of that leaf's class (integers of any width into an
 * integer column that holds them, strings into STRING; a string into a
 * DATE / TIME / TIMESTAMP / DECIMAL / UUID column when `upq cat` prints the
 * typed value as exactly that string) and elsewhere to `value`; an array
 * to a typed LIST element by element; an object to a typed group field by
 * field, the fields the group does not shred staying in `value` as an
 * object. Host code: recursion is bounded by the JSON depth limit.
 */
#include "upq.h"
#include "json.h"
#include "jsonl.h"
#include "shred.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "uparquet/variant.h"

#define VMAX_KEYS 65536u
#define VKEY_BYTES ((size_t)1 << 20)
#define VVALUE_CAP ((size_t)16 << 20)
#define VMAX_ENTRIES 65536u
#define VMAX_DEPTH 300u

typedef struct vw {
    const upq_schema *s;
    const jv_doc *d;
    strbuf *out;
    char *err;
    size_t errcap;
    /* the Variant of the current group */
    upq_variant_keys keys;
    upq_variant_builder b;
    upq_variant_meta meta;
    uint8_t *meta_bytes;
    size_t meta_len;
    /* residual objects are built here */
    upq_variant_builder rb;
    /* a scratch jv_doc to check typed leaves */
    jv_doc tmp;
} vw;

static uint8_t *g_kbytes, *g_out, *g_rout, *g_meta;
static uint32_t *g_koffs;
static upq_variant_entry *g_ents, *g_rents;
static upq_variant_build_frame *g_frames, *g_rframes;

static int vfail(vw *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->err, w->errcap, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- JSON as it came (parts of the row without Variants) ------------------------ */

static void copy_json(vw *w, const jv *v)
{
    const jv *c;
    uint32_t k;
    int first = 1;
    switch (v->type) {
    case JV_NULL: sb_adds(w->out, "null"); return;
    case JV_FALSE: sb_adds(w->out, "false"); return;
    case JV_TRUE: sb_adds(w->out, "true"); return;
    case JV_NUMBER: sb_add(w->out, jv_bytes(w->d, v), v->len); return;
    case JV_STRING: json_append_string(w->out, jv_bytes(w->d, v), v->len); return;
    default: break;
    }
    sb_addc(w->out, v->type == JV_ARRAY ? '[' : '{');
    for (k = v->first; k != JV_NONE; k = c->next) {
        c = &w->d->v[k];
        if (!first)
            sb_addc(w->out, ',');
        first = 0;
        if (v->type == JV_OBJECT) {
            json_append_string(w->out, jv_key(w->d, c), c->key_len);
            sb_addc(w->out, ':');
        }
        copy_json(w, c);
    }
    sb_addc(w->out, v->type == JV_ARRAY ? ']' : '}');
}

/* ---- JSON to Variant ------------------------------------------------------------ */

static int add_key(vw *w, const uint8_t *k, size_t n, uint32_t *id)
{
    if (upq_variant_keys_add(&w->keys, k, n, id) != UPQ_OK)
        return vfail(w, "Variant has too many keys");
    return 0;
}

/* Every key of the value first, so the dictionary is complete before any
 * object is built (ids never change afterwards). */
static int collect_keys(vw *w, const jv *v)
{
    uint32_t k, id;
    const jv *c;
    if (v->type != JV_ARRAY && v->type != JV_OBJECT)
        return 0;
    for (k = v->first; k != JV_NONE; k = c->next) {
        c = &w->d->v[k];
        if (v->type == JV_OBJECT && add_key(w, jv_key(w->d, c), c->key_len, &id))
            return -1;
        if (collect_keys(w, c))
            return -1;
    }
    return 0;
}

static int build_number(vw *w, const jv *v)
{
    const char *t = (const char *)jv_bytes(w->d, v);
    char buf[512];
    char *end;
    size_t i;
    int integral = 1;
    if (v->len >= sizeof buf)
        return vfail(w, "number too long");
    memcpy(buf, t, v->len);
    buf[v->len] = 0;
    for (i = 0; i < v->len; i++)
        if (buf[i] == '.' || buf[i] == 'e' || buf[i] == 'E')
            integral = 0;
    if (integral) {
        long long x;
        errno = 0;
        x = strtoll(buf, &end, 10);
        if (errno == 0 && *end == 0 && !(x == 0 && buf[0] == '-')) { /* -0 stays a double */
            upq_variant_kind k = x >= -128 && x <= 127           ? UPQ_VARIANT_INT8
                                 : x >= -32768 && x <= 32767     ? UPQ_VARIANT_INT16
                                 : x >= INT32_MIN && x <= INT32_MAX ? UPQ_VARIANT_INT32
                                                                 : UPQ_VARIANT_INT64;
            upq_variant_build_int(&w->b, k, x);
            return 0;
        }
    }
    upq_variant_build_double(&w->b, strtod(buf, NULL));
    return 0;
}

static int build_json(vw *w, const jv *v)
{
    uint32_t k, id;
    const jv *c;
    switch (v->type) {
    case JV_NULL: upq_variant_build_null(&w->b); return 0;
    case JV_FALSE:
    case JV_TRUE: upq_variant_build_bool(&w->b, v->type == JV_TRUE); return 0;
    case JV_NUMBER: return build_number(w, v);
    case JV_STRING: upq_variant_build_string(&w->b, jv_bytes(w->d, v), v->len); return 0;
    case JV_ARRAY:
        upq_variant_build_begin_array(&w->b);
        for (k = v->first; k != JV_NONE; k = c->next) {
            c = &w->d->v[k];
            if (build_json(w, c))
                return -1;
        }
        upq_variant_build_end(&w->b);
        return 0;
    default:
        upq_variant_build_begin_object(&w->b);
        for (k = v->first; k != JV_NONE; k = c->next) {
            c = &w->d->v[k];
            if (add_key(w, jv_key(w->d, c), c->key_len, &id))
                return -1;
            upq_variant_build_key(&w->b, id);
            if (build_json(w, c))
                return -1;
        }
        if (upq_variant_build_end(&w->b) == UPQ_ERR_INVAL)
            return vfail(w, "duplicate key in an object");
        return 0;
    }
}

/* ---- shredding ------------------------------------------------------------------ */

static uint32_t child_named(const upq_schema *s, uint32_t node, const char *name)
{
    uint32_t k;
    size_t n = strlen(name);
    for (k = 0; k < s->nodes[node].num_children; k++) {
        uint32_t c = s->children[s->nodes[node].first_child + k];
        if (s->nodes[c].elem->name.len == n && memcmp(s->nodes[c].elem->name.ptr, name, n) == 0)
            return c;
    }
    return UPQ_NONE;
}

/* Integer class and range of a typed column, or 0 when it is not one. */
static int int_column(const upq_column_desc *cd, int64_t *lo, int64_t *hi)
{
    int lk = cd->logical.isset ? upq_logical_type_kind(&cd->logical) : 0;
    int bw;
    if (cd->physical_type != UPQ_TYPE_INT32 && cd->physical_type != UPQ_TYPE_INT64)
        return 0;
    if (lk != 0 && lk != UPQ_LOGICAL_TYPE_INTEGER)
        return 0;
    bw = cd->physical_type == UPQ_TYPE_INT32 ? 32 : 64;
    if (lk == UPQ_LOGICAL_TYPE_INTEGER) {
        if (!cd->logical.u.integer.is_signed)
            return 0;
        bw = cd->logical.u.integer.bit_width;
    }
    *hi = bw >= 64 ? INT64_MAX : (INT64_C(1) << (bw - 1)) - 1;
    *lo = -*hi - 1;
    return 1;
}

/* Can Variant item `it` (rendered as JSON `text`) go into typed leaf col? */
static int fits_leaf(vw *w, uint32_t col, const upq_variant_item *it, const strbuf *text)
{
    const upq_column_desc *cd = &w->s->columns[col];
    int lk = cd->logical.isset ? upq_logical_type_kind(&cd->logical) : 0;
    int64_t lo, hi;
    uint8_t out[16];
    strbuf bytes, again;
    size_t off = 0;
    char err[128];
    int ok;
    switch (it->type) {
    case UPQ_VARIANT_INT8:
    case UPQ_VARIANT_INT16:
    case UPQ_VARIANT_INT32:
    case UPQ_VARIANT_INT64: return int_column(cd, &lo, &hi) && it->i >= lo && it->i <= hi;
    case UPQ_VARIANT_TRUE:
    case UPQ_VARIANT_FALSE: return cd->physical_type == UPQ_TYPE_BOOLEAN;
    case UPQ_VARIANT_DOUBLE: return cd->physical_type == UPQ_TYPE_DOUBLE && lk == 0;
    case UPQ_VARIANT_FLOAT: return cd->physical_type == UPQ_TYPE_FLOAT && lk == 0;
    case UPQ_VARIANT_STRING:
        if (cd->physical_type == UPQ_TYPE_BYTE_ARRAY && lk == UPQ_LOGICAL_TYPE_STRING)
            return 1;
        if (lk != UPQ_LOGICAL_TYPE_DATE && lk != UPQ_LOGICAL_TYPE_TIME &&
            lk != UPQ_LOGICAL_TYPE_TIMESTAMP && lk != UPQ_LOGICAL_TYPE_DECIMAL &&
            lk != UPQ_LOGICAL_TYPE_UUID)
            return 0;
        break; /* a typed value when it prints as the same string */
    default: return 0;
    }
    if (jv_parse(&w->tmp, text->p, text->len, 4))
        return 0;
    sb_init(&bytes);
    sb_init(&again);
    ok = value_parse(w->s, col, &w->tmp, &w->tmp.v[0], out, &bytes, &off, err, sizeof err) == 0;
    if (ok) {
        if (cd->physical_type == UPQ_TYPE_BYTE_ARRAY ||
            cd->physical_type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY) {
            upq_bytes *b = (upq_bytes *)out;
            b->ptr = (const uint8_t *)bytes.p + off;
        }
        value_json(&again, w->s, col, out);
        ok = again.len == text->len && memcmp(again.p, text->p, text->len) == 0;
    }
    sb_free(&bytes);
    sb_free(&again);
    return ok;
}

/* Writes the members "value": ..., "typed_value": ... of slot `slot` for
 * Variant v (v.p NULL: missing). */
static int shred_slot(vw *w, uint32_t slot, upq_variant v);

static int emit_value(vw *w, uint32_t vnode, upq_variant v, int *first)
{
    if (vnode == UPQ_NONE)
        return v.p ? vfail(w, "a value has no column to go to (no \"value\" field)") : 0;
    if (!*first)
        sb_addc(w->out, ',');
    *first = 0;
    sb_adds(w->out, "\"value\":");
    if (v.p)
        json_append_base64(w->out, v.p, v.len);
    else
        sb_adds(w->out, "null");
    return 0;
}

static int shred_slot(vw *w, uint32_t slot, upq_variant v)
{
    const upq_schema *s = w->s;
    uint32_t vnode = child_named(s, slot, "value"), tnode = child_named(s, slot, "typed_value");
    upq_variant none = {NULL, 0};
    upq_variant_item it;
    int first = 1;
    if (!v.p || tnode == UPQ_NONE)
        return emit_value(w, vnode, v, &first) ||
               (tnode != UPQ_NONE && (sb_adds(w->out, first ? "\"typed_value\":null"
                                                            : ",\"typed_value\":null"),
                                      0));
    if (upq_variant_item_read(v.p, v.len, &it) != UPQ_OK)
        return vfail(w, "invalid Variant");
    if (!s->nodes[tnode].is_group) {
        strbuf text;
        int fits;
        sb_init(&text);
        variant_json(&text, w->meta_bytes, w->meta_len, v.p, v.len);
        fits = it.type != UPQ_VARIANT_OBJECT && it.type != UPQ_VARIANT_ARRAY &&
               fits_leaf(w, s->nodes[tnode].column, &it, &text);
        if (emit_value(w, vnode, fits ? none : v, &first)) {
            sb_free(&text);
            return -1;
        }
        sb_adds(w->out, first ? "\"typed_value\":" : ",\"typed_value\":");
        if (fits)
            sb_add(w->out, text.p, text.len);
        else
            sb_adds(w->out, "null");
        sb_free(&text);
        return 0;
    }
    if (upq_schema_is_list(s, tnode)) {
        uint32_t rep = s->children[s->nodes[tnode].first_child];
        uint32_t elem = s->children[s->nodes[rep].first_child];
        uint32_t i;
        if (it.type != UPQ_VARIANT_ARRAY)
            return emit_value(w, vnode, v, &first) ||
                   (sb_adds(w->out, first ? "\"typed_value\":null" : ",\"typed_value\":null"), 0);
        if (emit_value(w, vnode, none, &first))
            return -1;
        sb_adds(w->out, first ? "\"typed_value\":[" : ",\"typed_value\":[");
        for (i = 0; i < it.count; i++) {
            upq_variant c;
            if (upq_variant_child(v, i, &c, NULL) != UPQ_OK)
                return vfail(w, "invalid Variant");
            sb_adds(w->out, i ? ",{" : "{");
            if (shred_slot(w, elem, c))
                return -1;
            sb_addc(w->out, '}');
        }
        sb_addc(w->out, ']');
        return 0;
    }
    /* a shredded object */
    if (it.type != UPQ_VARIANT_OBJECT)
        return emit_value(w, vnode, v, &first) ||
               (sb_adds(w->out, first ? "\"typed_value\":null" : ",\"typed_value\":null"), 0);
    {
        const upq_schema_node *tn = &s->nodes[tnode];
        uint32_t k, i, residual = 0;
        size_t rlen;
        /* fields the group does not shred stay in value */
        upq_variant_builder_init(&w->rb, &w->keys, g_rout, VVALUE_CAP, g_rents, VMAX_ENTRIES,
                                 g_rframes, 4);
        upq_variant_build_begin_object(&w->rb);
        for (i = 0; i < it.count; i++) {
            upq_variant c;
            uint32_t id;
            const uint8_t *kp;
            size_t kl;
            char name[4096];
            if (upq_variant_child(v, i, &c, &id) != UPQ_OK ||
                upq_variant_meta_key(&w->meta, id, &kp, &kl) != UPQ_OK || kl >= sizeof name)
                return vfail(w, "invalid Variant");
            memcpy(name, kp, kl);
            name[kl] = 0;
            if (child_named(s, tnode, name) != UPQ_NONE && strlen(name) == kl)
                continue;
            upq_variant_build_key(&w->rb, id);
            upq_variant_build_raw(&w->rb, c.p, c.len);
            residual++;
        }
        upq_variant_build_end(&w->rb);
        if (upq_variant_build_finish(&w->rb, &rlen) != UPQ_OK)
            return vfail(w, "Variant too large");
        if (residual) {
            upq_variant r = {g_rout, rlen};
            /* emit_value copies the bytes into the text before rb is reused */
            if (emit_value(w, vnode, r, &first))
                return -1;
        } else if (emit_value(w, vnode, none, &first)) {
            return -1;
        }
        sb_adds(w->out, first ? "\"typed_value\":{" : ",\"typed_value\":{");
        for (k = 0; k < tn->num_children; k++) {
            uint32_t f = s->children[tn->first_child + k];
            const upq_bytes *nm = &s->nodes[f].elem->name;
            upq_variant c = {NULL, 0};
            if (k)
                sb_addc(w->out, ',');
            json_append_string(w->out, nm->ptr, nm->len);
            sb_adds(w->out, ":{");
            if (upq_variant_find(&w->meta, v, nm->ptr, nm->len, &c) != UPQ_OK)
                c.p = NULL;
            if (shred_slot(w, f, c))
                return -1;
            sb_addc(w->out, '}');
        }
        sb_addc(w->out, '}');
        return 0;
    }
}

/* The JSON value of VARIANT group g in its column form. */
static int emit_variant(vw *w, uint32_t g, const jv *v)
{
    size_t vlen;
    upq_variant root;
    if (v->type == JV_NULL && w->s->nodes[g].repetition != UPQ_REP_REQUIRED) {
        sb_adds(w->out, "null"); /* the column is null; a Variant null needs a required group */
        return 0;
    }
    upq_variant_keys_init(&w->keys, g_kbytes, VKEY_BYTES, g_koffs, VMAX_KEYS);
    upq_variant_builder_init(&w->b, &w->keys, g_out, VVALUE_CAP, g_ents, VMAX_ENTRIES, g_frames,
                             VMAX_DEPTH);
    if (collect_keys(w, v) || build_json(w, v))
        return -1;
    if (upq_variant_build_finish(&w->b, &vlen) != UPQ_OK ||
        upq_variant_keys_finish(&w->keys, UPQ_VARIANT_SORTED_AUTO, g_meta,
                                upq_variant_keys_size(&w->keys) + 8, &w->meta_len) != UPQ_OK)
        return vfail(w, "cannot encode the Variant (too large or too deep)");
    w->meta_bytes = g_meta;
    if (upq_variant_meta_parse(&w->meta, g_meta, w->meta_len) != UPQ_OK)
        return vfail(w, "cannot encode the Variant");
    sb_adds(w->out, "{\"metadata\":");
    json_append_base64(w->out, g_meta, w->meta_len);
    sb_addc(w->out, ',');
    root.p = g_out;
    root.len = vlen;
    if (shred_slot(w, g, root))
        return -1;
    sb_addc(w->out, '}');
    return 0;
}

static int has_variant(const upq_schema *s, uint32_t node)
{
    uint32_t end = node + 1;
    while (end < s->num_nodes && s->nodes[end].depth > s->nodes[node].depth)
        end++;
    for (; node < end; node++)
        if (upq_variant_is_column(s, node))
            return 1;
    return 0;
}

/* Field `node` with JSON value v. */
static int emit_field(vw *w, uint32_t node, const jv *v)
{
    const upq_schema *s = w->s;
    const jv *c;
    uint32_t k;
    int first = 1;
    if (upq_variant_is_column(s, node))
        return emit_variant(w, node, v); /* a null decides there: null group or Variant null */
    if (!has_variant(s, node) || v->type == JV_NULL) {
        copy_json(w, v);
        return 0;
    }
    if (upq_schema_is_list(s, node) && v->type == JV_ARRAY) {
        uint32_t rep = s->children[s->nodes[node].first_child];
        uint8_t consumed = 0;
        uint32_t elem = upq_schema_list_element(s, node, rep, &consumed);
        sb_addc(w->out, '[');
        for (k = v->first; k != JV_NONE; k = c->next) {
            c = &w->d->v[k];
            if (!first)
                sb_addc(w->out, ',');
            first = 0;
            if (emit_field(w, elem, c))
                return -1;
        }
        sb_addc(w->out, ']');
        return 0;
    }
    if (s->nodes[node].is_group && !upq_schema_is_map(s, node) && v->type == JV_OBJECT) {
        sb_addc(w->out, '{');
        for (k = v->first; k != JV_NONE; k = c->next) {
            uint32_t f, j;
            c = &w->d->v[k];
            if (!first)
                sb_addc(w->out, ',');
            first = 0;
            json_append_string(w->out, jv_key(w->d, c), c->key_len);
            sb_addc(w->out, ':');
            f = UPQ_NONE;
            for (j = 0; j < s->nodes[node].num_children; j++) {
                uint32_t ch = s->children[s->nodes[node].first_child + j];
                if (s->nodes[ch].elem->name.len == c->key_len &&
                    memcmp(s->nodes[ch].elem->name.ptr, jv_key(w->d, c), c->key_len) == 0)
                    f = ch;
            }
            if (f == UPQ_NONE)
                copy_json(w, c);
            else if (emit_field(w, f, c))
                return -1;
        }
        sb_addc(w->out, '}');
        return 0;
    }
    copy_json(w, v); /* maps and shapes that do not fit: the shredder reports them */
    return 0;
}

int variant_rewrite_needed(const upq_schema *s)
{
    return s->num_nodes > 1 && has_variant(s, 0);
}

int variant_rewrite(const upq_schema *s, const jv_doc *d, strbuf *out, char *err, size_t errcap)
{
    vw w;
    int rc;
    if (!g_kbytes) {
        g_kbytes = malloc(VKEY_BYTES);
        g_koffs = malloc((VMAX_KEYS + 1) * sizeof *g_koffs);
        g_out = malloc(VVALUE_CAP);
        g_rout = malloc(VVALUE_CAP);
        g_meta = malloc(VKEY_BYTES + (VMAX_KEYS + 2) * 4 + 8);
        g_ents = malloc(VMAX_ENTRIES * sizeof *g_ents);
        g_rents = malloc(VMAX_ENTRIES * sizeof *g_rents);
        g_frames = malloc(VMAX_DEPTH * sizeof *g_frames);
        g_rframes = malloc(4 * sizeof *g_rframes);
        if (!g_kbytes || !g_koffs || !g_out || !g_rout || !g_meta || !g_ents || !g_rents ||
            !g_frames || !g_rframes) {
            snprintf(err, errcap, "out of memory");
            return -1;
        }
    }
    memset(&w, 0, sizeof w);
    w.s = s;
    w.d = d;
    w.out = out;
    w.err = err;
    w.errcap = errcap;
    jv_init(&w.tmp);
    sb_reset(out);
    if (d->v[0].type != JV_OBJECT) {
        copy_json(&w, &d->v[0]);
        jv_free(&w.tmp);
        return 0;
    }
    rc = emit_field(&w, 0, &d->v[0]);
    jv_free(&w.tmp);
    return rc;
}

/* ---- --shred COL=SPEC: a shredding schema in short form ------------------------------ */

/*
 * SPEC is a type: a primitive name (boolean, int8, int16, int32, int64,
 * float, double, decimal(P,S), date, time, timestamp, timestamp_ntz,
 * timestamp_nanos, timestamp_ntz_nanos, string, binary, uuid), [TYPE] for a
 * list of it, or {name:TYPE,...} for an object with those shredded fields.
 * It becomes the group's typed_value in message syntax.
 */
typedef struct spec_parser {
    const char *p, *end, *start;
    strbuf *out;
    int depth; /* groups open, the VARIANT group's own ancestors included */
    char *err;
    size_t errcap;
} spec_parser;

static void sp_ws(spec_parser *sp)
{
    while (sp->p < sp->end && (*sp->p == ' ' || *sp->p == '\t'))
        sp->p++;
}

static int sp_fail(spec_parser *sp, const char *what)
{
    snprintf(sp->err, sp->errcap, "--shred: %s at '%.*s'", what, (int)(sp->end - sp->p), sp->p);
    return -1;
}

/* Checked before a level is generated, so a spec nested deeper than the schema
 * may be is refused at its first excess level: the recursion stays within
 * UPQ_SCHEMA_MAX_DEPTH / 2 calls and the text within a small factor of the
 * spec's length. */
static int sp_enter(spec_parser *sp, int groups)
{
    if (sp->depth + groups > UPQ_SCHEMA_MAX_DEPTH) {
        snprintf(sp->err, sp->errcap,
                 "--shred: nested deeper than %d groups at offset %u of the spec ('%.20s...')",
                 UPQ_SCHEMA_MAX_DEPTH, (unsigned)(sp->p - sp->start), sp->p);
        return -1;
    }
    sp->depth += groups;
    return 0;
}

static void indent(strbuf *sb, int n)
{
    while (n-- > 0)
        sb_adds(sb, "  ");
}

static int sp_type(spec_parser *sp, int ind);

static int sp_primitive(spec_parser *sp, int ind)
{
    static const struct {
        const char *name, *text;
    } prims[] = {
        {"boolean", "boolean typed_value"},
        {"int8", "int32 typed_value (INTEGER(8,true))"},
        {"int16", "int32 typed_value (INTEGER(16,true))"},
        {"int32", "int32 typed_value"},
        {"int64", "int64 typed_value"},
        {"float", "float typed_value"},
        {"double", "double typed_value"},
        {"date", "int32 typed_value (DATE)"},
        {"timestamp_ntz_nanos", "int64 typed_value (TIMESTAMP(NANOS,false))"},
        {"timestamp_nanos", "int64 typed_value (TIMESTAMP(NANOS,true))"},
        {"timestamp_ntz", "int64 typed_value (TIMESTAMP(MICROS,false))"},
        {"timestamp", "int64 typed_value (TIMESTAMP(MICROS,true))"},
        {"time", "int64 typed_value (TIME(MICROS,false))"},
        {"string", "binary typed_value (STRING)"},
        {"binary", "binary typed_value"},
        {"uuid", "fixed_len_byte_array(16) typed_value (UUID)"},
    };
    size_t i, n = 0;
    while (sp->p + n < sp->end && ((sp->p[n] >= 'a' && sp->p[n] <= 'z') || sp->p[n] == '_' ||
                                   (sp->p[n] >= '0' && sp->p[n] <= '9')))
        n++;
    if (n == 7 && memcmp(sp->p, "decimal", 7) == 0) {
        int prec, scale, used = 0;
        if (sscanf(sp->p + 7, "(%d,%d)%n", &prec, &scale, &used) != 2 || used == 0 || prec < 1 ||
            prec > 38 || scale < 0 || scale > prec)
            return sp_fail(sp, "bad decimal(P,S)");
        sp->p += 7 + (size_t)used;
        indent(sp->out, ind);
        sb_printf(sp->out, "optional %s typed_value (DECIMAL(%d,%d));\n",
                  prec <= 9 ? "int32" : prec <= 18 ? "int64" : "fixed_len_byte_array(16)", prec,
                  scale);
        return 0;
    }
    for (i = 0; i < sizeof prims / sizeof prims[0]; i++) {
        if (strlen(prims[i].name) == n && memcmp(sp->p, prims[i].name, n) == 0) {
            sp->p += n;
            indent(sp->out, ind);
            sb_printf(sp->out, "optional %s;\n", prims[i].text);
            return 0;
        }
    }
    return sp_fail(sp, "unknown type");
}

static int sp_type(spec_parser *sp, int ind)
{
    sp_ws(sp);
    if (sp->p < sp->end && *sp->p == '[') {
        if (sp_enter(sp, 3))
            return -1;
        sp->p++;
        indent(sp->out, ind);
        sb_adds(sp->out, "optional group typed_value (LIST) {\n");
        indent(sp->out, ind + 1);
        sb_adds(sp->out, "repeated group list {\n");
        indent(sp->out, ind + 2);
        sb_adds(sp->out, "required group element {\n");
        indent(sp->out, ind + 3);
        sb_adds(sp->out, "optional binary value;\n");
        if (sp_type(sp, ind + 3))
            return -1;
        sp_ws(sp);
        if (sp->p >= sp->end || *sp->p != ']')
            return sp_fail(sp, "expected ']'");
        sp->p++;
        indent(sp->out, ind + 2);
        sb_adds(sp->out, "}\n");
        indent(sp->out, ind + 1);
        sb_adds(sp->out, "}\n");
        indent(sp->out, ind);
        sb_adds(sp->out, "}\n");
        sp->depth -= 3;
        return 0;
    }
    if (sp->p < sp->end && *sp->p == '{') {
        int first = 1;
        if (sp_enter(sp, 2))
            return -1;
        sp->p++;
        indent(sp->out, ind);
        sb_adds(sp->out, "optional group typed_value {\n");
        for (;;) {
            const char *name;
            size_t n = 0;
            sp_ws(sp);
            if (sp->p < sp->end && *sp->p == '}' && !first)
                break;
            if (!first) {
                if (sp->p >= sp->end || *sp->p != ',')
                    return sp_fail(sp, "expected ',' or '}'");
                sp->p++;
                sp_ws(sp);
            }
            first = 0;
            name = sp->p;
            while (sp->p + n < sp->end && sp->p[n] != ':' && sp->p[n] != ',' && sp->p[n] != '}')
                n++;
            while (n && (name[n - 1] == ' ' || name[n - 1] == '\t'))
                n--;
            if (n == 0 || sp->p + n >= sp->end)
                return sp_fail(sp, "expected a field name");
            sp->p += n;
            sp_ws(sp);
            if (sp->p >= sp->end || *sp->p != ':')
                return sp_fail(sp, "expected ':'");
            sp->p++;
            indent(sp->out, ind + 1);
            sb_printf(sp->out, "required group %.*s {\n", (int)n, name);
            indent(sp->out, ind + 2);
            sb_adds(sp->out, "optional binary value;\n");
            if (sp_type(sp, ind + 2))
                return -1;
            indent(sp->out, ind + 1);
            sb_adds(sp->out, "}\n");
        }
        sp->p++;
        indent(sp->out, ind);
        sb_adds(sp->out, "}\n");
        sp->depth -= 2;
        return 0;
    }
    return sp_primitive(sp, ind);
}

/* Applies one COL=SPEC to the schema text in sb. */
static int shred_one(strbuf *sb, const char *opt, char *err, size_t errcap)
{
    const char *eq = strchr(opt, '=');
    char pat[512];
    const char *text = sb_str(sb), *at, *line_end, *q;
    size_t head, close = 0, cur;
    int depth = 0;
    strbuf typed, res;
    spec_parser sp;
    if (!eq || eq == opt || (size_t)(eq - opt) > 400) {
        snprintf(err, errcap, "--shred wants COL=SPEC, got '%s'", opt);
        return -1;
    }
    snprintf(pat, sizeof pat, "group %.*s (VARIANT", (int)(eq - opt), opt);
    at = strstr(text, pat);
    if (!at) {
        snprintf(err, errcap, "--shred: no VARIANT group named '%.*s' in the schema", (int)(eq - opt),
                 opt);
        return -1;
    }
    line_end = strchr(at, '\n');
    head = (size_t)((line_end ? line_end + 1 : text + sb->len) - text);
    /* the group's closing brace; `required binary value;` becomes optional */
    for (q = at; *q; q++) {
        if (*q == '{')
            depth++;
        else if (*q == '}' && --depth == 0) {
            close = (size_t)(q - text);
            break;
        }
    }
    if (!close) {
        snprintf(err, errcap, "--shred: the group '%.*s' does not end", (int)(eq - opt), opt);
        return -1;
    }
    sb_init(&typed);
    memset(&sp, 0, sizeof sp);
    sp.p = sp.start = eq + 1;
    sp.end = eq + 1 + strlen(eq + 1);
    /* the VARIANT group's depth: the braces open before it, the message's
     * own standing for the group itself */
    for (q = text; q < at; q++)
        sp.depth += *q == '{' ? 1 : *q == '}' ? -1 : 0;
    sp.out = &typed;
    sp.err = err;
    sp.errcap = errcap;
    if (sp_type(&sp, 2)) {
        sb_free(&typed);
        return -1;
    }
    sp_ws(&sp);
    if (sp.p != sp.end) {
        sb_free(&typed);
        return sp_fail(&sp, "unexpected text");
    }
    /* back to the start of the closing brace's line */
    cur = close;
    while (cur > head && text[cur - 1] != '\n')
        cur--;
    sb_init(&res);
    {
        /* the group's own lines, with the value made optional */
        size_t i = head;
        sb_add(&res, text, head);
        while (i < cur) {
            const char *nl = memchr(text + i, '\n', cur - i);
            size_t ll = nl ? (size_t)(nl - (text + i)) + 1 : cur - i;
            const char *r = strstr(text + i, "required binary value;");
            if (strstr(text + i, "typed_value") && strstr(text + i, "typed_value") < text + i + ll) {
                snprintf(err, errcap, "--shred: '%.*s' is shredded in the schema already",
                         (int)(eq - opt), opt);
                sb_free(&typed);
                sb_free(&res);
                return -1;
            }
            if (r && r < text + i + ll) {
                sb_add(&res, text + i, (size_t)(r - (text + i)));
                sb_adds(&res, "optional binary value;");
                sb_add(&res, r + 22, ll - (size_t)(r + 22 - (text + i)));
            } else {
                sb_add(&res, text + i, ll);
            }
            i += ll;
        }
    }
    sb_add(&res, typed.p, typed.len);
    sb_add(&res, text + cur, sb->len - cur);
    sb_reset(sb);
    sb_add(sb, res.p, res.len);
    sb_free(&typed);
    sb_free(&res);
    return 0;
}

int variant_shred_schema(strbuf *schema, const tool_args *a, char *err, size_t errcap)
{
    int i;
    for (i = 0; i < a->nopts; i++)
        if (strcmp(a->opt_name[i], "shred") == 0 && shred_one(schema, a->opt_value[i], err, errcap))
            return -1;
    return 0;
}
