/*
 * Building a schema to write: the flat, depth-first SchemaElement list a
 * footer stores, filled in caller memory by nested calls, plus constructors
 * for the logical type annotations.
 *
 * Each annotated element also gets the legacy ConvertedType equivalent (and
 * DECIMAL's scale and precision), because readers written before LogicalType
 * existed only look at those.
 */
#include "uparquet/writer.h"
#include "upq_port.h"
#include "common/upq_internal.h"

#if UPQ_WITH_WRITER

/* each inner kind right after its outer one */
enum { K_GROUP = 0, K_LIST_OUTER, K_LIST_INNER, K_MAP_OUTER, K_MAP_INNER };

static upq_status sb_fail(upq_schema_builder *b, upq_status st)
{
    if (b->status == UPQ_OK)
        b->status = st;
    return st;
}

/* A refusal with its reason, kept for the caller to show (the first only,
 * as the status is). */
static upq_status sb_refuse_(upq_schema_builder *b, const char *why)
{
    if (b->status == UPQ_OK)
        b->error = why;
    return sb_fail(b, UPQ_ERR_INVAL);
}
/* the texts are "" in a UPQ_NO_ERRSTR build: on a small board they cost
 * more flash than the checks */
#define sb_refuse(b, why) sb_refuse_((b), UPQ_MSG(why))

static upq_bytes name_bytes(const char *s)
{
    upq_bytes v;
    v.ptr = (const uint8_t *)s;
    v.len = s ? (uint32_t)upq_strlen(s) : 0u;
    return v;
}

/* The index just past the subtree rooted at elems[i]: the list is
 * depth-first, so a subtree is its root and then, recursively, its
 * num_children subtrees. */
static uint32_t subtree_end(const upq_schema_builder *b, uint32_t i)
{
    uint32_t pending = 1;
    while (pending > 0 && i < b->n) {
        pending += (uint32_t)(b->elems[i].num_children > 0 ? b->elems[i].num_children : 0);
        pending--;
        i++;
    }
    return i;
}

/* The child of group elems[g] named `name`, or 0 (the root is no child). */
static uint32_t child_named(const upq_schema_builder *b, uint32_t g, const char *name)
{
    uint32_t i = g + 1, k;
    upq_bytes v = name_bytes(name);
    for (k = 0; k < (uint32_t)b->elems[g].num_children && i < b->n; k++) {
        if (b->elems[i].name.len == v.len && upq_memcmp(b->elems[i].name.ptr, v.ptr, v.len) == 0)
            return i;
        i = subtree_end(b, i);
    }
    return 0;
}

/* The name index: slots of (element, parent) in open addressing, element 0
 * (the root, never a child) marking a free slot. */
static uint32_t index_hash(uint32_t parent, upq_bytes v)
{
    uint32_t h = 2166136261u ^ parent, i;
    for (i = 0; i < v.len; i++)
        h = (h ^ v.ptr[i]) * 16777619u;
    return h;
}

/* Whether group elems[g] has a child named `name`, through the index, which
 * then also takes the name (the caller adds it next); -1 once the index is
 * full, and the caller walks the group instead. */
static int index_probe(upq_schema_builder *b, uint32_t g, const char *name)
{
    uint32_t s, e;
    upq_bytes v = name_bytes(name);
    /* one slot stays free, so a probe always ends */
    if (b->index_used + 2u > b->index_slots)
        return -1;
    s = index_hash(g, v) % b->index_slots;
    while ((e = b->index[2u * s]) != 0) {
        if (b->index[2u * s + 1u] == g && b->elems[e].name.len == v.len &&
            upq_memcmp(b->elems[e].name.ptr, v.ptr, v.len) == 0)
            return 1;
        s = s + 1u == b->index_slots ? 0u : s + 1u;
    }
    b->index[2u * s] = b->n;
    b->index[2u * s + 1u] = g;
    b->index_used++;
    return 0;
}

void upq_sb_index(upq_schema_builder *b, uint32_t *words, uint32_t nwords)
{
    uint32_t i;
    if (!words || nwords < 4 || b->n != 1)
        return;
    b->index = words;
    b->index_slots = nwords / 2u;
    b->index_used = 0;
    for (i = 0; i < b->index_slots * 2u; i++)
        words[i] = 0;
    b->index_probe = index_probe;
}

/* Whether group elems[g] has a child named `name`. */
static int name_taken(upq_schema_builder *b, uint32_t g, const char *name)
{
    int r = b->index_probe ? b->index_probe(b, g, name) : -1;
    if (r < 0) {
        b->index_probe = 0;
        return child_named(b, g, name) != 0;
    }
    return r;
}

void upq_sb_init(upq_schema_builder *b, upq_schema_element *elems, uint32_t cap,
                 const char *root_name)
{
    upq_memset(b, 0, sizeof *b);
    b->elems = elems;
    b->cap = cap;
    if (!elems || cap == 0) {
        b->status = UPQ_ERR_BUFFER;
        return;
    }
    upq_memset(&elems[0], 0, sizeof elems[0]);
    elems[0].name = name_bytes(root_name ? root_name : "schema");
    UPQ_SET(elems[0], UPQ_SCHEMA_ELEMENT_NAME);
    UPQ_SET(elems[0], UPQ_SCHEMA_ELEMENT_NUM_CHILDREN);
    b->n = 1;
    b->open[0] = 0;
}

/* Appends an element under the innermost open group. */
static upq_schema_element *add(upq_schema_builder *b, const char *name, int32_t repetition)
{
    upq_schema_element *e;
    if (b->status != UPQ_OK)
        return (upq_schema_element *)0;
    if (!name || !name[0] || repetition < UPQ_REP_REQUIRED || repetition > UPQ_REP_REPEATED) {
        sb_refuse(b, !name || !name[0] ? "a field without a name" : "a bad repetition");
        return (upq_schema_element *)0;
    }
    if (b->n >= b->cap) {
        sb_fail(b, UPQ_ERR_BUFFER);
        return (upq_schema_element *)0;
    }
    /* columns are found by their path of names: two siblings of one name
     * make one of them unreachable (and a record with the key twice) */
    if (name_taken(b, b->open[b->depth], name)) {
        sb_refuse(b, "two fields of one name in a group");
        return (upq_schema_element *)0;
    }
    e = &b->elems[b->n];
    upq_memset(e, 0, sizeof *e);
    e->name = name_bytes(name);
    e->repetition_type = repetition;
    e->isset = (1u << UPQ_SCHEMA_ELEMENT_NAME) | (1u << UPQ_SCHEMA_ELEMENT_REPETITION_TYPE);
    b->elems[b->open[b->depth]].num_children++;
    b->last = b->n++;
    return e;
}

static upq_status push(upq_schema_builder *b, uint8_t kind)
{
    if (b->depth >= UPQ_SCHEMA_MAX_DEPTH)
        return sb_fail(b, UPQ_ERR_LIMIT);
    b->depth++;
    b->open[b->depth] = b->last;
    b->kind[b->depth] = kind;
    return UPQ_OK;
}

static void set_converted(upq_schema_element *e, int32_t ct)
{
    e->converted_type = ct;
    UPQ_SET(*e, UPQ_SCHEMA_ELEMENT_CONVERTED_TYPE);
}

static upq_status add_group(upq_schema_builder *b, const char *name, int32_t repetition,
                            const upq_logical_type *lt, uint8_t kind)
{
    upq_schema_element *e = add(b, name, repetition);
    int k;
    if (!e)
        return b->status;
    UPQ_SET(*e, UPQ_SCHEMA_ELEMENT_NUM_CHILDREN);
    if (lt && lt->isset) {
        k = upq_logical_type_kind(lt);
        if (k != UPQ_LOGICAL_TYPE_LIST && k != UPQ_LOGICAL_TYPE_MAP &&
            k != UPQ_LOGICAL_TYPE_VARIANT)
            return sb_refuse(b, "a group takes only LIST, MAP or VARIANT");
#if !UPQ_WITH_VARIANT
        /* a build without Variant has not the checks of its shape either */
        if (k == UPQ_LOGICAL_TYPE_VARIANT) {
            if (b->status == UPQ_OK)
                b->error = UPQ_MSG("VARIANT is not in this build (UPQ_WITH_VARIANT 0)");
            return sb_fail(b, UPQ_ERR_UNSUPPORTED);
        }
#endif
        /* version 1 is the only Variant encoding there is: a reader cannot
         * decode values that claim another */
        if (UPQ_WITH_VARIANT && k == UPQ_LOGICAL_TYPE_VARIANT &&
            UPQ_ISSET(lt->u.variant, UPQ_VARIANT_TYPE_SPECIFICATION_VERSION) &&
            lt->u.variant.specification_version != 1)
            return sb_refuse(b, "VARIANT specification version other than 1");
        upq_memcpy(&e->logical_type, lt, sizeof *lt);
        UPQ_SET(*e, UPQ_SCHEMA_ELEMENT_LOGICAL_TYPE);
        if (k != UPQ_LOGICAL_TYPE_VARIANT) /* VARIANT has no ConvertedType */
            set_converted(e, k == UPQ_LOGICAL_TYPE_LIST ? UPQ_CONVERTED_LIST : UPQ_CONVERTED_MAP);
    }
    return push(b, kind);
}

upq_status upq_sb_group(upq_schema_builder *b, const char *name, int32_t repetition,
                        const upq_logical_type *lt)
{
    return add_group(b, name, repetition, lt, K_GROUP);
}

static int is_binary(const upq_schema_element *e)
{
    return e->num_children == 0 && UPQ_ISSET(*e, UPQ_SCHEMA_ELEMENT_TYPE) &&
           e->type == UPQ_TYPE_BYTE_ARRAY;
}

/* What the format asks of an annotated group's children, now that they are
 * all there; NULL when they fit. */
static const char *group_fault(const upq_schema_builder *b, uint32_t g)
{
    const upq_schema_element *e = &b->elems[g];
    int k = UPQ_ISSET(*e, UPQ_SCHEMA_ELEMENT_LOGICAL_TYPE) ? upq_logical_type_kind(&e->logical_type)
                                                           : 0;
    uint32_t m, v;
    /* LIST's one child is the repeated level (a group, or in the legacy
     * two-level form a primitive); a second child has no list to be in */
    if (k == UPQ_LOGICAL_TYPE_LIST ||
        (UPQ_ISSET(*e, UPQ_SCHEMA_ELEMENT_CONVERTED_TYPE) &&
         e->converted_type == UPQ_CONVERTED_LIST)) {
        if (e->num_children != 1 || b->elems[g + 1].repetition_type != UPQ_REP_REPEATED)
            return UPQ_MSG("a LIST group needs exactly one child, a repeated one");
    }
    /* a Variant is rebuilt from its metadata and its value: without
     * metadata there is nothing to decode values against, and without
     * `value` the values are only those shredded into `typed_value` (the
     * shredding spec lets `value` go only then) */
    if (UPQ_WITH_VARIANT && k == UPQ_LOGICAL_TYPE_VARIANT) {
        m = child_named(b, g, "metadata");
        v = child_named(b, g, "value");
        if (!m || !is_binary(&b->elems[m]) || b->elems[m].repetition_type != UPQ_REP_REQUIRED)
            return UPQ_MSG("a VARIANT group needs a required binary 'metadata'");
        if (v ? !is_binary(&b->elems[v]) || b->elems[v].repetition_type == UPQ_REP_REPEATED
              : !child_named(b, g, "typed_value"))
            return UPQ_MSG("a VARIANT group needs a binary 'value' (or, shredded, a 'typed_value')");
    }
    return (const char *)0;
}

/* Closes the innermost group, which must be of `kind` and not empty. */
static upq_status pop(upq_schema_builder *b, uint8_t kind)
{
    const char *fault;
    if (b->status != UPQ_OK)
        return b->status;
    if (b->depth == 0 || b->kind[b->depth] != kind)
        return sb_refuse(b, "no group of that kind open");
    if (b->elems[b->open[b->depth]].num_children == 0)
        return sb_refuse(b, "an empty group"); /* many readers reject empty groups */
    fault = group_fault(b, b->open[b->depth]);
    if (fault)
        return sb_refuse(b, fault);
    b->depth--;
    return UPQ_OK;
}

upq_status upq_sb_end(upq_schema_builder *b)
{
    return pop(b, K_GROUP);
}

/* Largest DECIMAL precision n bytes of two's complement hold. */
static int32_t flba_max_precision(int32_t n)
{
    /* floor(log10(2^(8n-1) - 1)) computed on a float-free digit count: each
     * byte adds log10(256) ~ 2.408 digits */
    if (n <= 0)
        return 0;
    if (n > 32)
        n = 32;
    return ((8 * n - 1) * 30103 - 1) / 100000; /* < 2^31 for n <= 32 */
}

/* What an annotation of each kind asks of a leaf, where it is only its
 * physical type (and FIXED_LEN_BYTE_ARRAY length): that type plus one (0:
 * any type; A_GROUP: none, groups only), the length (0: any) and its
 * ConvertedType twin plus one (0: none). Kinds not listed take any type
 * here; those with more to check are checked in annotate. A table, not a
 * switch: it is smaller. */
#define A_T(t) ((uint8_t)((t) + 1))
#define A_GROUP 0xFFu
static const uint8_t simple_kinds[][3] = {
    [UPQ_LOGICAL_TYPE_STRING] = { A_T(UPQ_TYPE_BYTE_ARRAY), 0, A_T(UPQ_CONVERTED_UTF8) },
    [UPQ_LOGICAL_TYPE_MAP] = { A_GROUP, 0, 0 },
    [UPQ_LOGICAL_TYPE_LIST] = { A_GROUP, 0, 0 },
    [UPQ_LOGICAL_TYPE_ENUM] = { A_T(UPQ_TYPE_BYTE_ARRAY), 0, A_T(UPQ_CONVERTED_ENUM) },
    [UPQ_LOGICAL_TYPE_DATE] = { A_T(UPQ_TYPE_INT32), 0, A_T(UPQ_CONVERTED_DATE) },
    [UPQ_LOGICAL_TYPE_JSON] = { A_T(UPQ_TYPE_BYTE_ARRAY), 0, A_T(UPQ_CONVERTED_JSON) },
    [UPQ_LOGICAL_TYPE_BSON] = { A_T(UPQ_TYPE_BYTE_ARRAY), 0, A_T(UPQ_CONVERTED_BSON) },
    [UPQ_LOGICAL_TYPE_UUID] = { A_T(UPQ_TYPE_FIXED_LEN_BYTE_ARRAY), 16, 0 },
    [UPQ_LOGICAL_TYPE_FLOAT16] = { A_T(UPQ_TYPE_FIXED_LEN_BYTE_ARRAY), 2, 0 },
    [UPQ_LOGICAL_TYPE_VARIANT] = { A_GROUP, 0, 0 },
    /* WKB, of any length */
    [UPQ_LOGICAL_TYPE_GEOMETRY] = { A_T(UPQ_TYPE_BYTE_ARRAY), 0, 0 },
    [UPQ_LOGICAL_TYPE_GEOGRAPHY] = { A_T(UPQ_TYPE_BYTE_ARRAY), 0, 0 },
};

/* Checks that `lt` fits the physical type and sets the ConvertedType twin. */
static upq_status annotate(upq_schema_element *e, const upq_logical_type *lt)
{
    int32_t t = e->type;
    int k = upq_logical_type_kind(lt);
    if (k > 0 && (size_t)k < UPQ_COUNTOF(simple_kinds)) {
        const uint8_t *a = simple_kinds[k];
        if (a[0] == A_GROUP)
            return UPQ_ERR_INVAL; /* groups only */
        if (a[0] && (t != a[0] - 1 || (a[1] && e->type_length != a[1])))
            return UPQ_ERR_INVAL;
        if (a[2])
            set_converted(e, a[2] - 1);
    }
    switch (k) {
    case UPQ_LOGICAL_TYPE_DECIMAL: {
        int32_t p = lt->u.decimal.precision, s = lt->u.decimal.scale;
        int32_t maxp = t == UPQ_TYPE_INT32 ? 9
                     : t == UPQ_TYPE_INT64 ? 18
                     : t == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY ? flba_max_precision(e->type_length)
                     : t == UPQ_TYPE_BYTE_ARRAY ? INT32_MAX : 0;
        if (p < 1 || p > maxp || s < 0 || s > p)
            return UPQ_ERR_INVAL;
        set_converted(e, UPQ_CONVERTED_DECIMAL);
        e->scale = s;
        e->precision = p;
        UPQ_SET(*e, UPQ_SCHEMA_ELEMENT_SCALE);
        UPQ_SET(*e, UPQ_SCHEMA_ELEMENT_PRECISION);
        break;
    }
    case UPQ_LOGICAL_TYPE_TIME:
    case UPQ_LOGICAL_TYPE_TIMESTAMP: {
        int time = k == UPQ_LOGICAL_TYPE_TIME;
        int u = upq_time_unit_kind(time ? &lt->u.time.unit : &lt->u.timestamp.unit);
        if (u == 0 ||
            t != (time && u == UPQ_TIME_UNIT_MILLIS ? UPQ_TYPE_INT32 : UPQ_TYPE_INT64))
            return UPQ_ERR_INVAL;
        /* the legacy types only ever meant UTC-adjusted values, in millis or
         * micros */
        if ((time ? lt->u.time.is_adjusted_to_utc : lt->u.timestamp.is_adjusted_to_utc) &&
            u != UPQ_TIME_UNIT_NANOS)
            set_converted(e, (time ? UPQ_CONVERTED_TIME_MILLIS : UPQ_CONVERTED_TIMESTAMP_MILLIS) +
                                 (u - UPQ_TIME_UNIT_MILLIS));
        break;
    }
    case UPQ_LOGICAL_TYPE_INTEGER: {
        int bw = lt->u.integer.bit_width, sg = lt->u.integer.is_signed != 0;
        /* 8, 16, 32 or 64 bits: a power of two, its twin's offset log2(bw) - 3 */
        if (bw < 8 || bw > 64 || (bw & (bw - 1)) != 0)
            return UPQ_ERR_INVAL;
        if (t != (bw == 64 ? UPQ_TYPE_INT64 : UPQ_TYPE_INT32))
            return UPQ_ERR_INVAL;
        set_converted(e, (sg ? UPQ_CONVERTED_INT_8 : UPQ_CONVERTED_UINT_8) +
                             (int32_t)upq_bit_width32((uint32_t)bw) - 4);
        break;
    }
    case UPQ_LOGICAL_TYPE_GEOGRAPHY:
        /* an edge algorithm a reader does not know leaves it no way to
         * tell which points lie on an edge */
        if (UPQ_ISSET(lt->u.geography, UPQ_GEOGRAPHY_TYPE_ALGORITHM) &&
            (lt->u.geography.algorithm < UPQ_EDGE_SPHERICAL ||
             lt->u.geography.algorithm > UPQ_EDGE_KARNEY))
            return UPQ_ERR_INVAL;
        break;
    default: break; /* UNKNOWN and kinds without a legacy twin */
    }
    upq_memcpy(&e->logical_type, lt, sizeof *lt);
    UPQ_SET(*e, UPQ_SCHEMA_ELEMENT_LOGICAL_TYPE);
    return UPQ_OK;
}

upq_status upq_sb_column(upq_schema_builder *b, const char *name, int32_t repetition,
                         int32_t physical_type, int32_t type_length, const upq_logical_type *lt)
{
    upq_schema_element *e;
    if (b->status == UPQ_OK &&
        (physical_type < UPQ_TYPE_BOOLEAN || physical_type > UPQ_TYPE_FIXED_LEN_BYTE_ARRAY ||
         (physical_type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY && type_length <= 0)))
        return sb_refuse(b, "a bad physical type or length");
    e = add(b, name, repetition);
    if (!e)
        return b->status;
    e->type = physical_type;
    UPQ_SET(*e, UPQ_SCHEMA_ELEMENT_TYPE);
    if (physical_type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY) {
        e->type_length = type_length;
        UPQ_SET(*e, UPQ_SCHEMA_ELEMENT_TYPE_LENGTH);
    }
    if (lt && lt->isset && annotate(e, lt) != UPQ_OK)
        return sb_refuse(b, "the annotation does not fit the column's type");
    return UPQ_OK;
}

/* A LIST or MAP (outer: K_LIST_OUTER or K_MAP_OUTER): the group its
 * logical type annotates, and the repeated group inside. */
static upq_status add_nest(upq_schema_builder *b, const char *name, int32_t repetition, uint8_t outer)
{
    upq_logical_type lt;
    upq_memset(&lt, 0, sizeof lt);
    UPQ_SET(lt, outer == K_LIST_OUTER ? UPQ_LOGICAL_TYPE_LIST : UPQ_LOGICAL_TYPE_MAP);
    if (add_group(b, name, repetition, &lt, outer) != UPQ_OK)
        return b->status;
    return add_group(b, outer == K_LIST_OUTER ? "list" : "key_value", UPQ_REP_REPEATED,
                     (const upq_logical_type *)0, (uint8_t)(outer + 1u));
}

upq_status upq_sb_list(upq_schema_builder *b, const char *name, int32_t repetition)
{
    return add_nest(b, name, repetition, K_LIST_OUTER);
}

upq_status upq_sb_end_list(upq_schema_builder *b)
{
    if (b->status == UPQ_OK && b->depth > 0 && b->kind[b->depth] == K_LIST_INNER &&
        b->elems[b->open[b->depth]].num_children != 1)
        return sb_refuse(b, "a list element needs exactly one field");
    if (pop(b, K_LIST_INNER) != UPQ_OK)
        return b->status;
    return pop(b, K_LIST_OUTER);
}

upq_status upq_sb_map(upq_schema_builder *b, const char *name, int32_t repetition)
{
    return add_nest(b, name, repetition, K_MAP_OUTER);
}

upq_status upq_sb_end_map(upq_schema_builder *b)
{
    if (b->status == UPQ_OK && b->depth > 0 && b->kind[b->depth] == K_MAP_INNER) {
        uint32_t kv = b->open[b->depth];
        const upq_schema_element *key = &b->elems[kv + 1];
        if (b->elems[kv].num_children < 1 || b->elems[kv].num_children > 2 ||
            key->repetition_type != UPQ_REP_REQUIRED)
            return sb_refuse(b, "a map needs a required key, and at most a value");
    }
    if (pop(b, K_MAP_INNER) != UPQ_OK)
        return b->status;
    return pop(b, K_MAP_OUTER);
}

upq_status upq_sb_field_id(upq_schema_builder *b, int32_t id)
{
    if (b->status != UPQ_OK)
        return b->status;
    if (b->last == 0)
        return sb_refuse(b, "a field id on the root"); /* the root has no field id */
    b->elems[b->last].field_id = id;
    UPQ_SET(b->elems[b->last], UPQ_SCHEMA_ELEMENT_FIELD_ID);
    return UPQ_OK;
}

upq_status upq_sb_converted(upq_schema_builder *b, int32_t converted_type)
{
    upq_schema_element *e;
    int group;
    if (b->status != UPQ_OK)
        return b->status;
    if (b->last == 0)
        return sb_refuse(b, "a ConvertedType on the root");
    e = &b->elems[b->last];
    group = UPQ_ISSET(*e, UPQ_SCHEMA_ELEMENT_NUM_CHILDREN);
    if (converted_type < 0 || converted_type == UPQ_CONVERTED_DECIMAL)
        return sb_refuse(b, "not a ConvertedType that stands alone");
    if (group != (converted_type == UPQ_CONVERTED_LIST || converted_type == UPQ_CONVERTED_MAP ||
                  converted_type == UPQ_CONVERTED_MAP_KEY_VALUE))
        return sb_refuse(b, group ? "a ConvertedType a group cannot carry"
                                  : "a ConvertedType only groups carry");
    /* months, days and milliseconds: three little-endian uint32s */
    if (converted_type == UPQ_CONVERTED_INTERVAL &&
        (e->type != UPQ_TYPE_FIXED_LEN_BYTE_ARRAY || e->type_length != 12))
        return sb_refuse(b, "INTERVAL off fixed_len_byte_array(12)");
    e->converted_type = converted_type;
    UPQ_SET(*e, UPQ_SCHEMA_ELEMENT_CONVERTED_TYPE);
    return UPQ_OK;
}

upq_status upq_sb_finish(upq_schema_builder *b, uint32_t *n)
{
    if (b->status != UPQ_OK)
        return b->status;
    if (b->depth != 0 || b->n < 2)
        return sb_refuse(b, b->depth != 0 ? "groups left open" : "no column");
    *n = b->n;
    return UPQ_OK;
}

/* ---- logical types -------------------------------------------------------- */

static void lt_only(upq_logical_type *lt, int kind)
{
    upq_memset(lt, 0, sizeof *lt);
    lt->isset = 1u << kind;
}

void upq_lt_string(upq_logical_type *lt) { lt_only(lt, UPQ_LOGICAL_TYPE_STRING); }
void upq_lt_enum(upq_logical_type *lt) { lt_only(lt, UPQ_LOGICAL_TYPE_ENUM); }
void upq_lt_json(upq_logical_type *lt) { lt_only(lt, UPQ_LOGICAL_TYPE_JSON); }
void upq_lt_bson(upq_logical_type *lt) { lt_only(lt, UPQ_LOGICAL_TYPE_BSON); }
void upq_lt_uuid(upq_logical_type *lt) { lt_only(lt, UPQ_LOGICAL_TYPE_UUID); }
void upq_lt_float16(upq_logical_type *lt) { lt_only(lt, UPQ_LOGICAL_TYPE_FLOAT16); }
void upq_lt_date(upq_logical_type *lt) { lt_only(lt, UPQ_LOGICAL_TYPE_DATE); }
void upq_lt_unknown(upq_logical_type *lt) { lt_only(lt, UPQ_LOGICAL_TYPE_UNKNOWN); }

void upq_lt_decimal(upq_logical_type *lt, int32_t precision, int32_t scale)
{
    lt_only(lt, UPQ_LOGICAL_TYPE_DECIMAL);
    lt->u.decimal.isset = (1u << UPQ_DECIMAL_TYPE_SCALE) | (1u << UPQ_DECIMAL_TYPE_PRECISION);
    lt->u.decimal.precision = precision;
    lt->u.decimal.scale = scale;
}

void upq_lt_int(upq_logical_type *lt, int bit_width, int is_signed)
{
    lt_only(lt, UPQ_LOGICAL_TYPE_INTEGER);
    lt->u.integer.isset = (1u << UPQ_INT_TYPE_BIT_WIDTH) | (1u << UPQ_INT_TYPE_IS_SIGNED);
    lt->u.integer.bit_width = (int8_t)bit_width;
    lt->u.integer.is_signed = (uint8_t)(is_signed != 0);
}

static void set_unit(upq_time_unit *u, int unit)
{
    upq_memset(u, 0, sizeof *u);
    if (unit >= UPQ_TIME_UNIT_MILLIS && unit <= UPQ_TIME_UNIT_NANOS)
        u->isset = 1u << unit;
}

void upq_lt_time(upq_logical_type *lt, int unit, int adjusted_to_utc)
{
    lt_only(lt, UPQ_LOGICAL_TYPE_TIME);
    lt->u.time.isset = (1u << UPQ_TIME_TYPE_IS_ADJUSTED_TO_UTC) | (1u << UPQ_TIME_TYPE_UNIT);
    lt->u.time.is_adjusted_to_utc = (uint8_t)(adjusted_to_utc != 0);
    set_unit(&lt->u.time.unit, unit);
}

void upq_lt_timestamp(upq_logical_type *lt, int unit, int adjusted_to_utc)
{
    lt_only(lt, UPQ_LOGICAL_TYPE_TIMESTAMP);
    lt->u.timestamp.isset =
        (1u << UPQ_TIMESTAMP_TYPE_IS_ADJUSTED_TO_UTC) | (1u << UPQ_TIMESTAMP_TYPE_UNIT);
    lt->u.timestamp.is_adjusted_to_utc = (uint8_t)(adjusted_to_utc != 0);
    set_unit(&lt->u.timestamp.unit, unit);
}

#endif /* UPQ_WITH_WRITER */
