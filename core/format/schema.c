/*
 * Schema tree from the flat, depth-first SchemaElement list.
 *
 * One pass with an explicit stack of open groups (bounded by
 * UPQ_SCHEMA_MAX_DEPTH): a file cannot make this recurse or loop, and a
 * num_children that runs past the end of the list is caught when the list
 * ends with groups still open.
 */
#include "uparquet/schema.h"
#include "upq_port.h"
#include "common/upq_internal.h"

/* A TIME or TIMESTAMP converted type's LogicalType (TimeType and
 * TimestampType have the same fields): adjusted to UTC, in milliseconds or
 * microseconds, as the converted type says. */
static void utc_time(upq_logical_type *lt, int32_t ct)
{
    int stamp = ct == UPQ_CONVERTED_TIMESTAMP_MILLIS || ct == UPQ_CONVERTED_TIMESTAMP_MICROS;
    int millis = ct == UPQ_CONVERTED_TIME_MILLIS || ct == UPQ_CONVERTED_TIMESTAMP_MILLIS;
    uint32_t *isset = stamp ? &lt->u.timestamp.isset : &lt->u.time.isset;
    uint8_t *adjusted = stamp ? &lt->u.timestamp.is_adjusted_to_utc : &lt->u.time.is_adjusted_to_utc;
    upq_time_unit *unit = stamp ? &lt->u.timestamp.unit : &lt->u.time.unit;
    UPQ_SET(*lt, stamp ? UPQ_LOGICAL_TYPE_TIMESTAMP : UPQ_LOGICAL_TYPE_TIME);
    *isset = (1u << UPQ_TIME_TYPE_IS_ADJUSTED_TO_UTC) | (1u << UPQ_TIME_TYPE_UNIT);
    *adjusted = 1;
    UPQ_SET(*unit, millis ? UPQ_TIME_UNIT_MILLIS : UPQ_TIME_UNIT_MICROS);
}
UPQ_STATIC_ASSERT((int)UPQ_TIME_TYPE_IS_ADJUSTED_TO_UTC == (int)UPQ_TIMESTAMP_TYPE_IS_ADJUSTED_TO_UTC &&
                      (int)UPQ_TIME_TYPE_UNIT == (int)UPQ_TIMESTAMP_TYPE_UNIT,
                  time_fields_alike);

/* Legacy ConvertedType -> LogicalType, as LogicalTypes.md's compatibility
 * section specifies, for files that carry only the former. */
static void logical_from_converted(upq_logical_type *lt, int32_t ct, int32_t scale,
                                   int32_t precision)
{
    upq_memset(lt, 0, sizeof *lt);
    switch (ct) {
    case UPQ_CONVERTED_UTF8: UPQ_SET(*lt, UPQ_LOGICAL_TYPE_STRING); break;
    case UPQ_CONVERTED_MAP: UPQ_SET(*lt, UPQ_LOGICAL_TYPE_MAP); break;
    case UPQ_CONVERTED_LIST: UPQ_SET(*lt, UPQ_LOGICAL_TYPE_LIST); break;
    case UPQ_CONVERTED_ENUM: UPQ_SET(*lt, UPQ_LOGICAL_TYPE_ENUM); break;
    case UPQ_CONVERTED_DATE: UPQ_SET(*lt, UPQ_LOGICAL_TYPE_DATE); break;
    case UPQ_CONVERTED_JSON: UPQ_SET(*lt, UPQ_LOGICAL_TYPE_JSON); break;
    case UPQ_CONVERTED_BSON: UPQ_SET(*lt, UPQ_LOGICAL_TYPE_BSON); break;
    case UPQ_CONVERTED_DECIMAL:
        UPQ_SET(*lt, UPQ_LOGICAL_TYPE_DECIMAL);
        lt->u.decimal.isset = (1u << UPQ_DECIMAL_TYPE_SCALE) | (1u << UPQ_DECIMAL_TYPE_PRECISION);
        lt->u.decimal.scale = scale;
        lt->u.decimal.precision = precision;
        break;
    case UPQ_CONVERTED_TIME_MILLIS:
    case UPQ_CONVERTED_TIME_MICROS:
    case UPQ_CONVERTED_TIMESTAMP_MILLIS:
    case UPQ_CONVERTED_TIMESTAMP_MICROS: utc_time(lt, ct); break;
    case UPQ_CONVERTED_UINT_8:
    case UPQ_CONVERTED_UINT_16:
    case UPQ_CONVERTED_UINT_32:
    case UPQ_CONVERTED_UINT_64:
    case UPQ_CONVERTED_INT_8:
    case UPQ_CONVERTED_INT_16:
    case UPQ_CONVERTED_INT_32:
    case UPQ_CONVERTED_INT_64: {
        static const int8_t bits[] = {8, 16, 32, 64, 8, 16, 32, 64};
        int k = ct - UPQ_CONVERTED_UINT_8;
        UPQ_SET(*lt, UPQ_LOGICAL_TYPE_INTEGER);
        lt->u.integer.isset = (1u << UPQ_INT_TYPE_BIT_WIDTH) | (1u << UPQ_INT_TYPE_IS_SIGNED);
        lt->u.integer.bit_width = bits[k];
        lt->u.integer.is_signed = k >= 4;
        break;
    }
    default: break; /* MAP_KEY_VALUE, INTERVAL: no LogicalType equivalent */
    }
}

typedef struct open_group {
    uint32_t node;
    uint32_t left; /* children still to come */
} open_group;

static upq_status fail(uint32_t *bad, uint32_t i, upq_status st)
{
    if (bad)
        *bad = i;
    return st;
}

/* Pass 1 for element i: its node (parent, depth, levels), its parent's
 * child count, and the groups still open. Returns UPQ_OK or the error. */
static upq_status add_node(upq_schema *s, const upq_schema_element *elems, uint32_t n, uint32_t i,
                           open_group *stack, uint32_t *depth, uint32_t *leaves)
{
    const upq_schema_element *e = &elems[i];
    upq_schema_node *nd = &s->nodes[i];
    int has_kids = UPQ_ISSET(*e, UPQ_SCHEMA_ELEMENT_NUM_CHILDREN) != 0;
    upq_memset(nd, 0, sizeof *nd);
    nd->elem = e;
    nd->column = UPQ_NONE;
    if (i > 0 && *depth == 0)
        return UPQ_ERR_CORRUPT; /* elements after the root closed */
    if (has_kids && (e->num_children < 0 || (uint32_t)e->num_children > n - 1 - i))
        return UPQ_ERR_CORRUPT; /* children past the end */
    /* A group is an element with children (or with neither children nor
     * a type: an empty group); the root is always a group. */
    nd->is_group = (uint8_t)(i == 0 || (has_kids && e->num_children > 0) ||
                             !UPQ_ISSET(*e, UPQ_SCHEMA_ELEMENT_TYPE));
    if (i == 0) {
        nd->parent = UPQ_NONE;
        nd->repetition = UPQ_REP_REQUIRED;
    } else {
        open_group *top = &stack[*depth - 1];
        const upq_schema_node *p = &s->nodes[top->node];
        int32_t rep = e->repetition_type;
        if (!UPQ_ISSET(*e, UPQ_SCHEMA_ELEMENT_REPETITION_TYPE) || rep < UPQ_REP_REQUIRED ||
            rep > UPQ_REP_VECTOR)
            return UPQ_ERR_CORRUPT;
        nd->parent = top->node;
        nd->depth = (uint16_t)(p->depth + 1);
        nd->repetition = (uint8_t)rep;
        nd->max_def = (uint16_t)(p->max_def + (rep == UPQ_REP_OPTIONAL || rep == UPQ_REP_REPEATED));
        nd->max_rep = (uint16_t)(p->max_rep + (rep == UPQ_REP_REPEATED));
        if (nd->max_def > 255 || nd->max_rep > 255)
            return UPQ_ERR_LIMIT;
        s->nodes[top->node].num_children++;
        top->left--;
    }
    if (!nd->is_group) {
        if (!UPQ_ISSET(*e, UPQ_SCHEMA_ELEMENT_TYPE) || e->type < UPQ_TYPE_BOOLEAN ||
            e->type > UPQ_TYPE_FIXED_LEN_BYTE_ARRAY ||
            (e->type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY &&
             (!UPQ_ISSET(*e, UPQ_SCHEMA_ELEMENT_TYPE_LENGTH) || e->type_length < 0)))
            return UPQ_ERR_CORRUPT;
        nd->column = (*leaves)++;
    } else {
        uint32_t kids = has_kids ? (uint32_t)e->num_children : 0;
        if (i == 0 && !has_kids)
            kids = n - 1; /* a root without num_children: everything below it */
        if (kids > 0) {
            if (*depth >= UPQ_SCHEMA_MAX_DEPTH + 1)
                return UPQ_ERR_LIMIT;
            stack[*depth].node = i;
            stack[*depth].left = kids;
            (*depth)++;
        }
    }
    /* close every group whose last child this was */
    while (*depth > 0 && stack[*depth - 1].left == 0)
        (*depth)--;
    return UPQ_OK;
}

/* Pass 3 for leaf node i: its column descriptor, its path in path_buf. */
static void add_column(upq_schema *s, uint32_t i, uint32_t *path_buf)
{
    const upq_schema_node *nd = &s->nodes[i];
    const upq_schema_element *e = nd->elem;
    upq_column_desc *c = &s->columns[nd->column];
    uint32_t k, up;
    upq_memset(c, 0, sizeof *c);
    c->node = i;
    c->path = path_buf;
    c->path_len = nd->depth;
    for (k = nd->depth, up = i; k > 0; k--, up = s->nodes[up].parent)
        path_buf[k - 1] = up;
    c->max_def = nd->max_def;
    c->max_rep = nd->max_rep;
    c->physical_type = e->type;
    c->type_length = e->type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY ? e->type_length : 0;
    c->converted_type = UPQ_ISSET(*e, UPQ_SCHEMA_ELEMENT_CONVERTED_TYPE) ? e->converted_type : -1;
    c->scale = UPQ_ISSET(*e, UPQ_SCHEMA_ELEMENT_SCALE) ? e->scale : 0;
    c->precision = UPQ_ISSET(*e, UPQ_SCHEMA_ELEMENT_PRECISION) ? e->precision : 0;
    if (UPQ_ISSET(*e, UPQ_SCHEMA_ELEMENT_LOGICAL_TYPE) && e->logical_type.isset) {
        upq_memcpy(&c->logical, &e->logical_type, sizeof c->logical);
        if (UPQ_ISSET(c->logical, UPQ_LOGICAL_TYPE_DECIMAL)) {
            c->scale = c->logical.u.decimal.scale;
            c->precision = c->logical.u.decimal.precision;
        }
    } else if (c->converted_type >= 0) {
        logical_from_converted(&c->logical, c->converted_type, c->scale, c->precision);
    }
}

upq_status upq_schema_build(upq_schema *s, const upq_schema_element *elems, uint32_t n,
                            upq_arena *a, uint32_t *bad_elem)
{
    open_group stack[UPQ_SCHEMA_MAX_DEPTH + 1];
    uint32_t depth = 0, i, leaves = 0, child_fill = 0, *fill_pos;
    uint32_t *path_buf;
    size_t path_total = 0;

    upq_memset(s, 0, sizeof *s);
    if (n == 0)
        return fail(bad_elem, 0, UPQ_ERR_CORRUPT);
    s->nodes = (upq_schema_node *)upq_arena_alloc_array(a, n, sizeof *s->nodes);
    s->children = (uint32_t *)upq_arena_alloc_array(a, n, sizeof *s->children);
    if (!s->nodes || !s->children)
        return fail(bad_elem, 0, UPQ_ERR_NOMEM);
    s->num_nodes = n;

    /* Pass 1: parents, depths, levels; children counted per parent. */
    for (i = 0; i < n; i++) {
        upq_status st = add_node(s, elems, n, i, stack, &depth, &leaves);
        if (st != UPQ_OK)
            return fail(bad_elem, i, st);
    }
    if (depth != 0)
        return fail(bad_elem, n - 1, UPQ_ERR_CORRUPT); /* num_children promised more */

    /* Pass 2: children grouped per parent, in file order. */
    for (i = 0; i < n; i++) {
        s->nodes[i].first_child = child_fill;
        child_fill += s->nodes[i].num_children;
    }
    fill_pos = (uint32_t *)upq_arena_alloc_array(a, n, sizeof *fill_pos);
    if (!fill_pos)
        return fail(bad_elem, 0, UPQ_ERR_NOMEM);
    for (i = 0; i < n; i++)
        fill_pos[i] = s->nodes[i].first_child;
    for (i = 1; i < n; i++)
        s->children[fill_pos[s->nodes[i].parent]++] = i;

    /* Pass 3: leaf columns with their paths (path arrays share one buffer). */
    s->num_columns = leaves;
    s->columns = (upq_column_desc *)upq_arena_alloc_array(a, leaves, sizeof *s->columns);
    for (i = 0; i < n; i++)
        if (!s->nodes[i].is_group)
            path_total += s->nodes[i].depth;
    path_buf = (uint32_t *)upq_arena_alloc_array(a, path_total, sizeof *path_buf);
    if ((leaves && !s->columns) || !path_buf)
        return fail(bad_elem, 0, UPQ_ERR_NOMEM);
    for (i = 0; i < n; i++) {
        if (s->nodes[i].is_group)
            continue;
        add_column(s, i, path_buf);
        path_buf += s->nodes[i].depth;
    }
    return UPQ_OK;
}

static size_t round8(size_t n)
{
    return (n + 7u) & ~(size_t)7u;
}

size_t upq_schema_size(const upq_schema_element *elems, uint32_t n, uint32_t *leaves)
{
    struct {
        uint32_t left;
        uint16_t depth;
    } stack[UPQ_SCHEMA_MAX_DEPTH + 1];
    uint32_t i, depth = 0, nleaves = 0;
    size_t path_total = 0;
    if (leaves)
        *leaves = 0;
    for (i = 0; i < n; i++) {
        const upq_schema_element *e = &elems[i];
        int has_kids = UPQ_ISSET(*e, UPQ_SCHEMA_ELEMENT_NUM_CHILDREN) != 0;
        uint32_t kids = has_kids && e->num_children > 0 ? (uint32_t)e->num_children : 0;
        uint16_t d = depth ? (uint16_t)(stack[depth - 1].depth + 1) : 0;
        if ((i > 0 && depth == 0) || (has_kids && e->num_children < 0) || kids > n - 1 - i)
            return 0;
        if (depth)
            stack[depth - 1].left--;
        if (i == 0 && !has_kids)
            kids = n - 1;
        if (i > 0 && kids == 0 && UPQ_ISSET(*e, UPQ_SCHEMA_ELEMENT_TYPE)) {
            nleaves++;
            path_total += d;
        } else if (kids > 0) {
            if (depth >= UPQ_SCHEMA_MAX_DEPTH + 1)
                return 0;
            stack[depth].left = kids;
            stack[depth].depth = d;
            depth++;
        }
        while (depth > 0 && stack[depth - 1].left == 0)
            depth--;
    }
    if (leaves)
        *leaves = nleaves;
    /* nodes, children, fill_pos, columns, paths: as upq_schema_build takes them */
    return round8((size_t)n * sizeof(upq_schema_node)) + 2u * round8((size_t)n * sizeof(uint32_t)) +
           round8((size_t)nleaves * sizeof(upq_column_desc)) + round8(path_total * sizeof(uint32_t));
}

/* Does node's name equal p[0..len)? */
static int name_is(const upq_schema_node *nd, const char *p, size_t len)
{
    return nd->elem->name.len == len && upq_memcmp(nd->elem->name.ptr, p, len) == 0;
}

uint32_t upq_schema_find_column(const upq_schema *s, const char *path, size_t len)
{
    uint32_t c;
    /* Compare whole dotted paths per leaf: names may themselves contain dots,
     * so splitting the query first would be ambiguous. */
    for (c = 0; c < s->num_columns; c++) {
        const upq_column_desc *cd = &s->columns[c];
        size_t pos = 0;
        uint16_t k;
        for (k = 0; k < cd->path_len; k++) {
            const upq_schema_node *nd = &s->nodes[cd->path[k]];
            size_t nl = nd->elem->name.len;
            if (k > 0) {
                if (pos >= len || path[pos] != '.')
                    break;
                pos++;
            }
            if (nl > len - pos || !name_is(nd, path + pos, nl))
                break;
            pos += nl;
        }
        if (k == cd->path_len && pos == len)
            return c;
    }
    return UPQ_NONE;
}

size_t upq_schema_node_path(const upq_schema *s, uint32_t node, char *buf, size_t cap)
{
    size_t total = 0, pos;
    uint32_t up;
    if (node >= s->num_nodes)
        return 0;
    /* length first, then fill from the end so no recursion or stack is needed */
    for (up = node; up != 0 && up != UPQ_NONE; up = s->nodes[up].parent)
        total += s->nodes[up].elem->name.len + (total ? 1u : 0u);
    pos = total;
    for (up = node; up != 0 && up != UPQ_NONE; up = s->nodes[up].parent) {
        const upq_bytes *nm = &s->nodes[up].elem->name;
        size_t k;
        if (pos != total) {
            pos--;
            if (pos < cap)
                buf[pos] = '.';
        }
        pos -= nm->len;
        for (k = 0; k < nm->len; k++)
            if (pos + k < cap)
                buf[pos + k] = (char)nm->ptr[k];
    }
    return total;
}

uint32_t upq_schema_child(const upq_schema *s, uint32_t node, uint32_t k)
{
    return s->children[s->nodes[node].first_child + k];
}

static int name_equals(const upq_schema_node *nd, const char *name)
{
    size_t len = upq_strlen(name);
    return nd->elem->name.len == len && upq_memcmp(nd->elem->name.ptr, name, len) == 0;
}

/* Is a group annotated LIST (want_map 0) or MAP / MAP_KEY_VALUE (1)? A
 * LogicalType this version knows decides; else the ConvertedType. */
static int annotated(const upq_schema_element *e, int want_map)
{
    if (UPQ_ISSET(*e, UPQ_SCHEMA_ELEMENT_LOGICAL_TYPE)) {
        int kind = upq_logical_type_kind(&e->logical_type);
        if (kind != 0)
            return kind == (want_map ? UPQ_LOGICAL_TYPE_MAP : UPQ_LOGICAL_TYPE_LIST);
    }
    if (!UPQ_ISSET(*e, UPQ_SCHEMA_ELEMENT_CONVERTED_TYPE))
        return 0;
    if (want_map)
        return e->converted_type == UPQ_CONVERTED_MAP ||
               e->converted_type == UPQ_CONVERTED_MAP_KEY_VALUE;
    return e->converted_type == UPQ_CONVERTED_LIST;
}

int upq_schema_is_list(const upq_schema *s, uint32_t g)
{
    const upq_schema_node *nd = &s->nodes[g];
    return nd->is_group && annotated(nd->elem, 0) && nd->num_children == 1 &&
           s->nodes[upq_schema_child(s, g, 0)].repetition == UPQ_REP_REPEATED;
}

int upq_schema_is_map(const upq_schema *s, uint32_t g)
{
    const upq_schema_node *nd = &s->nodes[g], *kv;
    if (!nd->is_group || !annotated(nd->elem, 1) || nd->num_children != 1)
        return 0;
    kv = &s->nodes[upq_schema_child(s, g, 0)];
    return kv->repetition == UPQ_REP_REPEATED && kv->is_group &&
           (kv->num_children == 1 || kv->num_children == 2);
}

uint32_t upq_schema_list_element(const upq_schema *s, uint32_t g, uint32_t r, uint8_t *consumed)
{
    const upq_schema_node *rn = &s->nodes[r], *gn = &s->nodes[g];
    uint32_t only;
    *consumed = 1;
    if (!rn->is_group || rn->num_children != 1)
        return r; /* a repeated primitive, or a tuple of several fields */
    only = upq_schema_child(s, r, 0);
    if (s->nodes[only].repetition == UPQ_REP_REPEATED)
        return r; /* a synthetic middle level could not be repeated itself */
    if (name_equals(rn, "array"))
        return r;
    /* "<list name>_tuple" */
    if (rn->elem->name.len == gn->elem->name.len + 6 &&
        upq_memcmp(rn->elem->name.ptr, gn->elem->name.ptr, gn->elem->name.len) == 0 &&
        upq_memcmp(rn->elem->name.ptr + gn->elem->name.len, "_tuple", 6) == 0)
        return r;
    *consumed = 0;
    return only;
}
