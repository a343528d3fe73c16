/*
 * Record assembly: rows from the levels of their leaf columns.
 *
 * Open builds a plan: the selected part of the schema with LIST and MAP
 * interpreted (the backward-compatibility rules live here, decided on the
 * whole schema so that a projection never changes what a group means), in
 * depth-first order so that every subtree, and the leaf columns under it,
 * are contiguous ranges.
 *
 * Reading walks the plan with an explicit stack of open containers. Every
 * decision about an item (null, empty, present) is read from the first leaf
 * column under it; the other leaves are checked against it as their entries
 * are consumed: each entry must start with the repetition level its place
 * implies and a definition level the enclosing present containers allow,
 * and a null or empty item must have the same levels in every leaf under
 * it. That catches columns that disagree without a second pass.
 *
 * Resumability: a step first makes sure every level entry it looks at is
 * buffered (which may read and return UPQ_AGAIN), and only then consumes
 * entries and changes state, so a step interrupted by UPQ_AGAIN is simply
 * done again. A batch is refilled only when all of its entries have been
 * consumed, so nothing buffered is ever lost.
 */
#include "uparquet/record.h"
#include "upq_port.h"
#include "common/upq_internal.h"
#include "reader_int.h"

#if UPQ_WITH_ROWS

enum { RK_ROOT = 0, RK_STRUCT, RK_LIST, RK_MAP, RK_LEAF };

/* RR_FLAT: in a row of top-level columns (upq_rows.flat), read without the
 * plan walk (UPQ_WITH_FLAT_ROWS) */
enum { RR_IDLE = 0, RR_ROW, RR_DONE, RR_FAILED, RR_CLOSED, RR_FLAT };

#if UPQ_WITH_FLAT_ROWS
#define IN_ROW(w) ((w)->stage == RR_ROW || (w)->stage == RR_FLAT)
#else
#define IN_ROW(w) ((w)->stage == RR_ROW)
#endif

/* container frame states */
enum {
    FS_ITEM = 0, /* next: a struct member, a list element, a map key */
    FS_VALUE,    /* next: a map value */
    FS_AFTER,    /* an entry ended: does the list or map go on? */
    FS_END       /* an empty list or map: only its end is left */
};

/* ---- errors -------------------------------------------------------------- */

static upq_status set_err(upq_rows *w, upq_status st, int32_t column, int32_t page, uint64_t off,
                          const char *what)
{
    upq_reader_set_error(w->r, st, off, what, (int32_t)w->rg, column, page);
    w->r->err.schema_element = -1; /* opened over a reader whose open failed */
    w->stage = RR_FAILED;
    w->failed = st;
    return st;
}

static upq_status leaf_fail(upq_rows *w, const upq_rows_leaf *lf, const char *what)
{
    return set_err(w, UPQ_ERR_CORRUPT, (int32_t)lf->col.col, lf->col.page_no, lf->col.page_off,
                   what);
}

/* ---- the plan -------------------------------------------------------------- */

typedef struct build_frame {
    uint32_t plan;     /* plan node being filled */
    uint32_t schema;   /* struct: its group; list: its element; map: its key_value group */
    uint32_t k;        /* children handled so far */
    uint8_t consumed;  /* list: the element is the repeated node itself */
    uint8_t force;     /* take every descendant (a map key under a projection) */
} build_frame;

typedef struct builder {
    const upq_schema *s;
    const uint8_t *mark; /* per schema node: 0 left out, 1 on the way to a selection, 2 taken */
    upq_rows_node *nodes;
    uint32_t n, cap;
    uint32_t leaves;
    build_frame *stack;
    uint32_t depth, stack_cap, max_depth;
} builder;

static upq_status push_build(builder *b, uint32_t plan, uint32_t schema, uint8_t consumed,
                             uint8_t force)
{
    build_frame *f;
    if (b->depth >= b->stack_cap)
        return UPQ_ERR_LIMIT;
    f = &b->stack[b->depth++];
    f->plan = plan;
    f->schema = schema;
    f->k = 0;
    f->consumed = consumed;
    f->force = force;
    if (b->depth > b->max_depth)
        b->max_depth = b->depth;
    return UPQ_OK;
}

/* Appends the plan node for schema node i (consumed: its repetition is
 * already accounted for by the enclosing list). */
static upq_status add_node(builder *b, uint32_t i, uint8_t consumed, uint8_t force)
{
    const upq_schema *s = b->s;
    const upq_schema_node *sn = &s->nodes[i];
    uint32_t idx = b->n, frame_schema = i;
    uint8_t frame_consumed = 0;
    upq_rows_node *p;

    if (b->n >= b->cap)
        return UPQ_ERR_LIMIT;
    p = &b->nodes[b->n++];
    upq_memset(p, 0, sizeof *p);
    p->schema = i;
    p->column = UPQ_NONE;
    p->size = 1;
    p->leaf_first = b->leaves;
    p->def = sn->max_def;
    if (!consumed && sn->repetition == UPQ_REP_REPEATED) {
        /* a repeated field outside LIST/MAP: a list of required elements,
         * present (maybe empty) whenever its parent is */
        p->kind = RK_LIST;
        p->def = (uint16_t)(sn->max_def - 1u);
        p->def_elems = sn->max_def;
        p->rep = sn->max_rep;
        frame_consumed = 1;
    } else if (!sn->is_group) {
        p->kind = RK_LEAF;
        p->column = sn->column;
        p->leaf_count = 1;
        b->leaves++;
        return UPQ_OK;
    } else if (upq_schema_is_list(s, i)) {
        uint32_t r = upq_schema_child(s, i, 0);
        p->kind = RK_LIST;
        p->def_elems = s->nodes[r].max_def;
        p->rep = s->nodes[r].max_rep;
        frame_schema = upq_schema_list_element(s, i, r, &frame_consumed);
    } else if (upq_schema_is_map(s, i)) {
        uint32_t kv = upq_schema_child(s, i, 0);
        p->kind = RK_MAP;
        p->def_elems = s->nodes[kv].max_def;
        p->rep = s->nodes[kv].max_rep;
        p->has_value = (uint8_t)(s->nodes[kv].num_children == 2 &&
                                 (force || b->mark[upq_schema_child(s, kv, 1)] != 0));
        frame_schema = kv;
    } else {
        p->kind = RK_STRUCT;
    }
    return push_build(b, idx, frame_schema, frame_consumed, force);
}

/* Builds the plan into b->nodes (nodes[0]: the row). */
static upq_status build_plan(builder *b)
{
    const upq_schema *s = b->s;
    upq_rows_node *root = &b->nodes[0];
    upq_status st;

    upq_memset(root, 0, sizeof *root);
    root->kind = RK_ROOT;
    root->column = UPQ_NONE;
    b->n = 1;
    st = push_build(b, 0, 0, 0, 0);
    while (st == UPQ_OK && b->depth > 0) {
        build_frame *f = &b->stack[b->depth - 1];
        upq_rows_node *p = &b->nodes[f->plan];
        uint32_t next = UPQ_NONE;
        uint8_t consumed = 0, force = f->force;
        switch (p->kind) {
        case RK_LIST:
            if (f->k++ == 0) {
                next = f->schema;
                consumed = f->consumed;
            }
            break;
        case RK_MAP:
            if (f->k == 0) {
                next = upq_schema_child(s, f->schema, 0);
                force = 1; /* entries need their keys */
            } else if (f->k == 1 && p->has_value) {
                next = upq_schema_child(s, f->schema, 1);
            }
            f->k++;
            break;
        default: /* root, struct */
            while (f->k < s->nodes[f->schema].num_children) {
                uint32_t c = upq_schema_child(s, f->schema, f->k++);
                if (f->force || b->mark[c] != 0) {
                    next = c;
                    break;
                }
            }
            break;
        }
        if (next == UPQ_NONE) {
            p->size = b->n - f->plan;
            p->leaf_count = b->leaves - p->leaf_first;
            b->depth--;
            continue;
        }
        st = add_node(b, next, consumed, force);
    }
    return st;
}

/* Marks the selected nodes (2), their descendants (2) and their ancestors (1). */
static upq_status mark_selection(const upq_schema *s, uint8_t *mark, const uint32_t *sel,
                                 uint32_t n)
{
    uint32_t i;
    upq_memset(mark, 0, s->num_nodes);
    if (!sel) {
        mark[0] = 2;
    } else {
        for (i = 0; i < n; i++) {
            uint32_t up;
            if (sel[i] >= s->num_nodes)
                return UPQ_ERR_INVAL;
            mark[sel[i]] = 2;
            up = s->nodes[sel[i]].parent;
            for (; up != UPQ_NONE && !mark[up]; up = s->nodes[up].parent)
                mark[up] = 1;
        }
    }
    /* parents come before their children in the footer's order */
    for (i = 1; i < s->num_nodes; i++)
        if (mark[s->nodes[i].parent] == 2)
            mark[i] = 2;
    return UPQ_OK;
}

/* ---- open / close ------------------------------------------------------------ */

void upq_rows_close(upq_rows *w)
{
    if (!w->r)
        return;
    while (w->num_open > 0)
        upq_column_close(&w->leaves[--w->num_open].col);
    upq_arena_rewind(&w->r->arena, w->mark);
    w->r = (upq_reader *)0;
    w->stage = RR_CLOSED;
}

static upq_status open_fail(upq_rows *w, upq_status st, const char *what)
{
    if (what)
        set_err(w, st, -1, -1, UINT64_MAX, what);
    upq_rows_close(w);
    w->stage = RR_FAILED;
    w->failed = st;
    return st;
}

/* Plans the selection: nodes first (shrunk to what was used), then the
 * temporary marks and builder stack above them, given back afterwards. */
static upq_status plan(upq_rows *w, const uint32_t *sel, uint32_t n)
{
    const upq_schema *s = &w->r->schema;
    upq_arena *a = &w->r->arena;
    upq_arena_mark start = upq_arena_save(a);
    uint32_t i, max_depth = 0;
    uint8_t *mark;
    builder b;
    upq_status st;

    upq_memset(&b, 0, sizeof b);
    b.s = s;
    /* each schema level gives at most two plan levels (a repeated list
     * wrapper and the node itself), and each node at most two plan nodes */
    for (i = 0; i < s->num_nodes; i++)
        if (s->nodes[i].depth > max_depth)
            max_depth = s->nodes[i].depth;
    b.cap = 2u * s->num_nodes + 1u;
    b.stack_cap = 2u * max_depth + 2u;
    b.nodes = (upq_rows_node *)upq_arena_alloc_array(a, b.cap, sizeof *b.nodes);
    mark = (uint8_t *)upq_arena_alloc(a, s->num_nodes);
    b.stack = (build_frame *)upq_arena_alloc_array(a, b.stack_cap, sizeof *b.stack);
    if (!b.nodes || !mark || !b.stack)
        return open_fail(w, UPQ_ERR_NOMEM, UPQ_MSG("arena too small for the row plan"));
    b.mark = mark;
    st = mark_selection(s, mark, sel, n);
    if (st != UPQ_OK)
        return open_fail(w, st, UPQ_MSG("selected schema node out of range"));
    st = build_plan(&b);
    if (st != UPQ_OK)
        return open_fail(w, st, UPQ_MSG("schema nesting deeper than the row plan allows"));
    /* keep only the nodes: they were allocated first */
    upq_arena_rewind(a, start);
    w->nodes = (upq_rows_node *)upq_arena_alloc_array(a, b.n, sizeof *b.nodes);
    w->num_nodes = b.n;
    w->num_leaves = b.leaves;
    w->stack_cap = b.max_depth;
    return UPQ_OK;
}

upq_status upq_rows_open(upq_rows *w, upq_reader *r, uint32_t rg, const uint32_t *sel,
                         uint32_t n, size_t batch)
{
    upq_arena *a = &r->arena;
    const upq_row_group *g;
    uint32_t i;
    upq_status st;

    upq_memset(w, 0, sizeof *w);
    w->r = r;
    w->rg = rg;
    w->mark = upq_arena_save(a);
    if (batch == 0)
        batch = UPQ_ROWS_DEFAULT_BATCH;
    g = upq_reader_row_group(r, rg);
    if (!r->schema.nodes || !g)
        return open_fail(w, UPQ_ERR_INVAL,
                         UPQ_MSG("reader not open, no such row group, or row group not loaded"));
    if (g->num_rows < 0)
        return open_fail(w, UPQ_ERR_CORRUPT, UPQ_MSG("negative row count"));
    w->num_rows = (uint64_t)g->num_rows;
    st = plan(w, sel, n);
    if (st != UPQ_OK)
        return st;

    w->leaves = (upq_rows_leaf *)upq_arena_alloc_array(a, w->num_leaves, sizeof *w->leaves);
    w->stack = (upq_rows_frame *)upq_arena_alloc_array(a, w->stack_cap, sizeof *w->stack);
    if ((w->num_leaves && !w->leaves) || !w->stack)
        return open_fail(w, UPQ_ERR_NOMEM, UPQ_MSG("arena too small for the row reader"));
    for (i = 0; i < w->num_nodes; i++) {
        const upq_rows_node *p = &w->nodes[i];
        const upq_column_desc *cd;
        upq_rows_leaf *lf;
        if (p->kind != RK_LEAF)
            continue;
        lf = &w->leaves[p->leaf_first];
        upq_memset(lf, 0, sizeof *lf);
        cd = &r->schema.columns[p->column];
        lf->max_def = cd->max_def;
        lf->max_rep = cd->max_rep;
        lf->vsize = upq_value_size(cd->physical_type);
        lf->b.cap = batch;
        if (lf->max_def)
            lf->b.def = (uint16_t *)upq_arena_alloc_array(a, batch, sizeof(uint16_t));
        if (lf->max_rep)
            lf->b.rep = (uint16_t *)upq_arena_alloc_array(a, batch, sizeof(uint16_t));
        lf->b.values = upq_arena_alloc_array(a, batch, lf->vsize);
        if ((lf->max_def && !lf->b.def) || (lf->max_rep && !lf->b.rep) || !lf->b.values)
            return open_fail(w, UPQ_ERR_NOMEM, UPQ_MSG("arena too small for the column batches"));
    }
    /* column readers last: their page buffers grow at the top of the arena;
     * leaves are numbered in plan order */
    for (i = 0; i < w->num_nodes; i++) {
        if (w->nodes[i].kind != RK_LEAF)
            continue;
        st = upq_column_open(&w->leaves[w->num_open].col, r, rg, w->nodes[i].column);
        if (st != UPQ_OK)
            return open_fail(w, st, (const char *)0); /* the column reader described it */
        /* a batch without nulls is marked full, and its levels are not read */
        upq_column_def_if_nulls(&w->leaves[w->num_open].col, 1);
        w->num_open++;
    }
#if UPQ_WITH_FLAT_ROWS
    /* every plan node but the row a leaf: the fields are top-level columns,
     * one entry each per row, and plan node i + 1 reads leaf i */
    w->flat = (uint8_t)(w->num_nodes == w->num_leaves + 1u);
#endif
    w->stage = RR_IDLE;
    return UPQ_OK;
}

uint64_t upq_rows_count(const upq_rows *w)
{
    return w->num_rows;
}

uint64_t upq_rows_position(const upq_rows *w)
{
    return w->row;
}

/* ---- level entries ----------------------------------------------------------- */

static uint16_t def_at(const upq_rows_leaf *lf)
{
    return lf->max_def && !lf->full ? lf->b.def[lf->pos] : lf->max_def;
}

static uint16_t rep_at(const upq_rows_leaf *lf)
{
    return lf->max_rep ? lf->b.rep[lf->pos] : 0;
}

/* Makes the leaf's next entry available. UPQ_OK, UPQ_DONE (the chunk has
 * no more), UPQ_AGAIN, or a column error (the rows fail with it). */
static upq_status ensure(upq_rows *w, upq_rows_leaf *lf)
{
    upq_status st;
    if (lf->pos < lf->b.levels)
        return UPQ_OK;
    if (lf->done)
        return UPQ_DONE;
    lf->pos = lf->vpos = 0;
    /* fixed-width values lent where they lie in the page, not copied */
    st = upq_column_read_lent(&lf->col, &lf->b, &lf->vals);
    lf->full = (uint8_t)(lf->b.values_n == lf->b.levels);
    if (st == UPQ_DONE) {
        lf->done = 1;
        return UPQ_DONE;
    }
    if (st == UPQ_OK && lf->b.levels == 0)
        return set_err(w, UPQ_ERR_STATE, (int32_t)lf->col.col, lf->col.page_no, lf->col.page_off,
                       UPQ_MSG("column read made no progress"));
    if (st < 0) {
        w->stage = RR_FAILED;
        w->failed = st;
    }
    return st;
}

/* Consumes the leaf's current entry; its value when it has one. */
static const void *consume(upq_rows_leaf *lf)
{
    const void *v = (const void *)0;
    if (def_at(lf) == lf->max_def && lf->vpos < lf->b.values_n)
        v = (const uint8_t *)lf->vals + lf->vpos++ * lf->vsize;
    lf->pos++;
    return v;
}

/* ---- events ---------------------------------------------------------------------- */

static upq_status open_container(upq_rows *w, uint32_t ni, uint8_t role, uint16_t er,
                                 uint8_t state, upq_event *ev)
{
    const upq_rows_node *n = &w->nodes[ni];
    upq_rows_frame *f;
    if (w->depth >= w->stack_cap)
        return set_err(w, UPQ_ERR_STATE, -1, -1, UINT64_MAX, UPQ_MSG("row nesting deeper than planned"));
    f = &w->stack[w->depth++];
    f->node = ni;
    f->next = ni + 1;
    f->er = er;
    f->state = state;
    f->role = role;
    ev->type = n->kind == RK_LIST  ? UPQ_EV_BEGIN_LIST
               : n->kind == RK_MAP ? UPQ_EV_BEGIN_MAP
                                   : UPQ_EV_BEGIN_STRUCT;
    return UPQ_OK;
}

/*
 * Starts item `ni` whose entries begin with repetition level `er` inside
 * containers that make every definition level below `floor` impossible.
 * Emits its first event; containers stay open on the stack.
 */
static upq_status visit(upq_rows *w, uint32_t ni, uint8_t role, uint16_t er, uint16_t floor,
                        upq_event *ev)
{
    const upq_rows_node *n = &w->nodes[ni];
    upq_rows_leaf *lf;
    uint16_t d, present;
    uint32_t k;
    upq_status st;

    ev->role = role;
    ev->node = n->schema;
    ev->column = UPQ_NONE;
    ev->value = (const void *)0;
    if (n->leaf_count == 0) /* a group without leaves: nothing says it is null */
        return open_container(w, ni, role, er, n->kind == RK_STRUCT ? FS_ITEM : FS_END, ev);

    lf = &w->leaves[n->leaf_first];
    st = ensure(w, lf);
    if (st == UPQ_DONE)
        return leaf_fail(w, lf, UPQ_MSG("a column ends inside a row"));
    if (st != UPQ_OK)
        return st;
    d = def_at(lf);
    if (rep_at(lf) != er)
        return leaf_fail(w, lf, UPQ_MSG("repetition levels disagree with the schema or other columns"));
    if (d < floor)
        return leaf_fail(w, lf, UPQ_MSG("definition levels disagree between columns"));

    if (n->kind == RK_LEAF) {
        ev->column = n->column;
        if (d < n->def) {
            ev->type = UPQ_EV_NULL;
            consume(lf);
            return UPQ_OK;
        }
        ev->type = UPQ_EV_VALUE;
        ev->value = consume(lf);
        if (!ev->value)
            return leaf_fail(w, lf, UPQ_MSG("fewer values than definition levels say"));
        return UPQ_OK;
    }

    present = n->kind == RK_LIST || n->kind == RK_MAP ? n->def_elems : n->def;
    if (d >= present)
        return open_container(w, ni, role, er, FS_ITEM, ev);

    /* null, or an empty list or map: one entry in every leaf, all alike */
    for (k = 1; k < n->leaf_count; k++) {
        upq_rows_leaf *m = &w->leaves[n->leaf_first + k];
        st = ensure(w, m);
        if (st == UPQ_DONE)
            return leaf_fail(w, m, UPQ_MSG("a column ends inside a row"));
        if (st != UPQ_OK)
            return st;
        if (rep_at(m) != er || def_at(m) != d)
            return leaf_fail(w, m, UPQ_MSG("levels disagree between the columns of one field"));
    }
    for (k = 0; k < n->leaf_count; k++)
        w->leaves[n->leaf_first + k].pos++; /* below every leaf's max_def: no values */
    if (d < n->def) {
        ev->type = UPQ_EV_NULL;
        return UPQ_OK;
    }
    return open_container(w, ni, role, er, FS_END, ev);
}

static upq_status end_event(upq_event *ev, const upq_rows_node *n, uint8_t role, uint8_t type)
{
    ev->type = type;
    ev->role = role;
    ev->node = n->schema;
    ev->column = UPQ_NONE;
    ev->value = (const void *)0;
    return UPQ_OK;
}

#if UPQ_WITH_FLAT_ROWS
/* The events of everything but a row of top-level columns (kept a call, so
 * that upq_rows_event's fast path saves no registers). */
static UPQ_NOINLINE upq_status next_event(upq_rows *w, upq_event *ev)
#else
upq_status upq_rows_event(upq_rows *w, upq_event *ev)
#endif
{
    if (w->stage == RR_FAILED)
        return w->failed;
    if (w->stage == RR_CLOSED)
        return UPQ_ERR_STATE;
    if (w->stage != RR_ROW)
        return UPQ_DONE;
    for (;;) {
        upq_rows_frame *f = &w->stack[w->depth - 1];
        const upq_rows_node *n = &w->nodes[f->node];
        uint32_t first = f->node + 1;
        upq_status st;

        if (n->kind == RK_ROOT || n->kind == RK_STRUCT) {
            if (f->next < f->node + n->size) {
                uint32_t c = f->next;
                st = visit(w, c, UPQ_ROLE_FIELD, f->er, n->def, ev);
                if (st == UPQ_OK)
                    f->next = c + w->nodes[c].size;
                return st;
            }
            w->depth--;
            if (n->kind == RK_ROOT) {
                w->stage = RR_IDLE;
                return UPQ_DONE;
            }
            return end_event(ev, n, f->role, UPQ_EV_END_STRUCT);
        }

        switch (f->state) {
        case FS_ITEM:
            st = visit(w, first, n->kind == RK_LIST ? UPQ_ROLE_ELEMENT : UPQ_ROLE_KEY, f->er,
                       n->def_elems, ev);
            if (st == UPQ_OK)
                f->state = n->kind == RK_LIST ? FS_AFTER : FS_VALUE;
            return st;
        case FS_VALUE:
            if (n->has_value) {
                st = visit(w, first + w->nodes[first].size, UPQ_ROLE_VALUE, f->er, n->def_elems,
                           ev);
                if (st != UPQ_OK)
                    return st;
            } else {
                ev->type = UPQ_EV_NULL;
                ev->role = UPQ_ROLE_VALUE;
                ev->node = UPQ_NONE;
                ev->column = UPQ_NONE;
                ev->value = (const void *)0;
            }
            f->state = FS_AFTER;
            return UPQ_OK;
        case FS_AFTER: {
            upq_rows_leaf *lf = &w->leaves[n->leaf_first];
            st = ensure(w, lf);
            if (st == UPQ_OK && rep_at(lf) == n->rep) {
                f->er = n->rep; /* one more entry */
                f->state = FS_ITEM;
                continue;
            }
            if (st == UPQ_OK && rep_at(lf) > n->rep)
                return leaf_fail(w, lf, UPQ_MSG("repetition level deeper than the schema allows here"));
            if (st != UPQ_OK && st != UPQ_DONE)
                return st;
            break; /* the next entry belongs to an enclosing level: this one ends */
        }
        default:
            break;
        }
        w->depth--;
        return end_event(ev, n, f->role, n->kind == RK_LIST ? UPQ_EV_END_LIST : UPQ_EV_END_MAP);
    }
}

#if UPQ_WITH_FLAT_ROWS
/*
 * A row of top-level columns (flat) takes the fast path: upq_rows_next made
 * sure every leaf has the row's entry buffered, and each field is that one
 * entry: what visit() makes of a leaf with floor 0 and repetition level 0,
 * without the checks that cannot fail there.
 */
upq_status upq_rows_event(upq_rows *w, upq_event *ev)
{
    if (w->stage == RR_FLAT) {
        uint32_t c = w->field;
        upq_rows_leaf *lf;
        size_t pos, vpos;
        if (c >= w->num_leaves) {
            w->stage = RR_IDLE;
            return UPQ_DONE;
        }
        w->field = c + 1u;
        lf = &w->leaves[c];
        pos = lf->pos++;
        ev->role = UPQ_ROLE_FIELD;
        ev->node = w->nodes[c + 1u].schema;
        ev->column = lf->col.col;
        if (lf->max_def && !lf->full && lf->b.def[pos] != lf->max_def) {
            ev->type = UPQ_EV_NULL;
            ev->value = (const void *)0;
            return UPQ_OK;
        }
        vpos = lf->vpos++;
        if (vpos >= lf->b.values_n)
            return leaf_fail(w, lf, UPQ_MSG("fewer values than definition levels say"));
        ev->type = UPQ_EV_VALUE;
        ev->value = (const uint8_t *)lf->vals + vpos * lf->vsize;
        return UPQ_OK;
    }
    return next_event(w, ev);
}
#endif

/* ---- rows ------------------------------------------------------------------------ */

/* Passes over the rest of the current row. */
static upq_status finish_row(upq_rows *w)
{
    upq_event ev;
    for (;;) {
        upq_status st = upq_rows_event(w, &ev);
        if (st == UPQ_DONE)
            return UPQ_OK;
        if (st != UPQ_OK)
            return st;
    }
}

/* Where a call that moves to another row starts: a failed reader gives its
 * error, a closed one (or one in the middle of a skip, when `busy`) refuses,
 * and the row in progress is passed over. */
static upq_status leave_row(upq_rows *w, int busy)
{
    if (w->stage == RR_FAILED)
        return w->failed;
    if (w->stage == RR_CLOSED || busy)
        return UPQ_ERR_STATE;
    return IN_ROW(w) ? finish_row(w) : UPQ_OK;
}

#if UPQ_WITH_FLAT_ROWS
/* upq_rows_next but for the next row of top-level columns already buffered */
static UPQ_NOINLINE upq_status next_row(upq_rows *w)
#else
upq_status upq_rows_next(upq_rows *w)
#endif
{
    upq_status st = leave_row(w, w->skipping), want;
    uint32_t i;
    if (st != UPQ_OK)
        return st;
    if (w->stage == RR_DONE)
        return UPQ_DONE;
    /* past the last row, every leaf must be out of entries too */
    want = w->row >= w->num_rows ? UPQ_DONE : UPQ_OK;
    for (i = 0; i < w->num_leaves; i++) {
        upq_rows_leaf *lf = &w->leaves[i];
        st = ensure(w, lf);
        if (st == (want == UPQ_OK ? UPQ_DONE : UPQ_OK))
            return leaf_fail(w, lf, want == UPQ_OK ? UPQ_MSG("a column holds fewer rows than its row group")
                                                   : UPQ_MSG("a column holds more rows than its row group"));
        if (st != want)
            return st;
        if (want == UPQ_OK && rep_at(lf) != 0)
            return leaf_fail(w, lf,
                             w->row == 0 ? UPQ_MSG("the first row starts with a nonzero repetition level")
                                         : UPQ_MSG("a row goes on in one column after it ended in another"));
    }
    if (want == UPQ_DONE) {
        w->stage = RR_DONE;
        return UPQ_DONE;
    }
#if UPQ_WITH_FLAT_ROWS
    if (w->flat) {
        /* rows that the next calls can start without looking at the leaves:
         * each row takes one entry of every leaf */
        uint64_t ready = w->num_rows - w->row;
        for (i = 0; i < w->num_leaves; i++)
            if (w->leaves[i].b.levels - w->leaves[i].pos < ready)
                ready = w->leaves[i].b.levels - w->leaves[i].pos;
        w->ready = (size_t)ready - 1u;
        w->field = 0;
    }
    w->stage = w->flat ? RR_FLAT : RR_ROW;
#else
    w->stage = RR_ROW;
#endif
    w->row++;
    w->depth = 1;
    w->stack[0].node = 0;
    w->stack[0].next = 1;
    w->stack[0].er = 0;
    w->stack[0].state = FS_ITEM;
    w->stack[0].role = UPQ_ROLE_FIELD;
    return UPQ_OK;
}

#if UPQ_WITH_FLAT_ROWS
upq_status upq_rows_next(upq_rows *w)
{
    if (w->ready && w->stage == RR_IDLE) {
        w->ready--;
        w->row++;
        w->field = 0;
        w->stage = RR_FLAT;
        return UPQ_OK;
    }
    return next_row(w);
}
#endif

/* Moves one leaf past lf->skip_left row starts (and the rest of the row it
 * is in): buffered entries first, then the column reader. */
static UPQ_NOINLINE upq_status skip_leaf(upq_rows *w, upq_rows_leaf *lf)
{
    upq_status st;
    uint64_t got = 0;
    if (lf->skip_state == 2)
        return UPQ_OK;
    if (lf->skip_state == 0) {
        while (lf->pos < lf->b.levels) {
            if (rep_at(lf) == 0) {
                if (lf->skip_left == 0) {
                    lf->skip_state = 2; /* at the first row not skipped */
                    return UPQ_OK;
                }
                lf->skip_left--;
            }
            consume(lf);
        }
        lf->skip_state = 1;
    }
    if (lf->done) {
        if (lf->skip_left)
            return leaf_fail(w, lf, UPQ_MSG("a column holds fewer rows than its row group"));
        lf->skip_state = 2;
        return UPQ_OK;
    }
    /* also passes the end of a row whose start was in the buffer; a
     * column reader that has read nothing yet seeks through the chunk's
     * OffsetIndex when it has one */
#if UPQ_WITH_PAGE_INDEX
    st = upq_column_seek(&lf->col, lf->skip_left, &got);
#else
    st = upq_column_skip(&lf->col, lf->skip_left, &got);
#endif
    if (st == UPQ_AGAIN)
        return st;
    if (st != UPQ_OK) {
        w->stage = RR_FAILED;
        w->failed = st;
        return st;
    }
    if (got < lf->skip_left)
        return leaf_fail(w, lf, UPQ_MSG("a column holds fewer rows than its row group"));
    lf->skip_left = 0;
    lf->skip_state = 2;
    return UPQ_OK;
}

upq_status upq_rows_skip(upq_rows *w, uint64_t rows, uint64_t *skipped)
{
    upq_status st = leave_row(w, 0);
    uint32_t i;
    *skipped = 0;
    if (st != UPQ_OK)
        return st;
    if (w->stage == RR_DONE)
        return UPQ_OK;
#if UPQ_WITH_FLAT_ROWS
    w->ready = 0; /* the leaves' positions move */
#endif
    if (!w->skipping) {
        if (rows > w->num_rows - w->row)
            rows = w->num_rows - w->row;
        w->skip_rows = rows;
        w->skipping = 1;
        for (i = 0; i < w->num_leaves; i++) {
            w->leaves[i].skip_left = rows;
            w->leaves[i].skip_state = 0;
        }
    }
    for (i = 0; i < w->num_leaves; i++) {
        st = skip_leaf(w, &w->leaves[i]);
        if (st != UPQ_OK)
            return st;
    }
    w->skipping = 0;
    w->row += w->skip_rows;
    *skipped = w->skip_rows;
    return UPQ_OK;
}

#if UPQ_WITH_FLAT_ROWS
/* ---- row-wise binding ------------------------------------------------------------ */

/* A caller's mistake in a binding or a fetch: described, but `w` goes on. */
static upq_status bind_err(upq_rows *w, upq_status st, uint32_t column, const char *what)
{
    upq_reader_set_error(w->r, st, UINT64_MAX, what, (int32_t)w->rg,
                         column == UPQ_NONE ? -1 : (int32_t)column, -1);
    w->r->err.schema_element = -1;
    return st;
}

/* The leaf reading `column`, or UPQ_NONE: in a flat row the leaves are the
 * top-level columns in schema order, so their column indices increase. */
static uint32_t leaf_of(const upq_rows *w, uint32_t column)
{
    uint32_t lo = 0, hi = w->num_leaves;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2u;
        uint32_t c = w->leaves[mid].col.col;
        if (c == column)
            return mid;
        if (c < column)
            lo = mid + 1u;
        else
            hi = mid;
    }
    return UPQ_NONE;
}

static int is_ptr_type(int32_t pt)
{
    return pt == UPQ_TYPE_BYTE_ARRAY || pt == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY;
}

/* Checks bindings b[0..n); against `stride` too when fetching (not at bind
 * time). *ptrs: some binding holds upq_bytes. */
static upq_status check_bindings(upq_rows *w, const upq_row_binding *b, uint32_t n,
                                 int fetching, size_t stride, int *ptrs)
{
    uint32_t i;
    *ptrs = 0;
    if (!w->flat)
        return bind_err(w, UPQ_ERR_UNSUPPORTED, UPQ_NONE,
                        UPQ_MSG("row binding needs every selected field to be a top-level column"));
    if (n && !b)
        return bind_err(w, UPQ_ERR_INVAL, UPQ_NONE, UPQ_MSG("no bindings given"));
    for (i = 0; i < n; i++) {
        uint32_t leaf = b[i].column < w->r->schema.num_columns ? leaf_of(w, b[i].column) : UPQ_NONE;
        size_t vsize, off = b[i].offset, noff = b[i].null_offset;
        if (leaf == UPQ_NONE)
            return bind_err(w, UPQ_ERR_INVAL, b[i].column,
                            UPQ_MSG("bound column out of range or not selected"));
        vsize = w->leaves[leaf].vsize;
        if (b[i].null_offset != UPQ_NONE && noff >= off && noff - off < vsize)
            return bind_err(w, UPQ_ERR_INVAL, b[i].column,
                            UPQ_MSG("null flag inside the bound value"));
        if (fetching && (off > stride || vsize > stride - off ||
                       (b[i].null_offset != UPQ_NONE && noff >= stride)))
            return bind_err(w, UPQ_ERR_INVAL, b[i].column,
                            UPQ_MSG("bound value or null flag outside the row stride"));
        if (is_ptr_type(w->r->schema.columns[b[i].column].physical_type))
            *ptrs = 1;
    }
    return UPQ_OK;
}

upq_status upq_rows_bind(upq_rows *w, const upq_row_binding *b, uint32_t n)
{
    int ptrs;
    upq_status st;
    if (w->stage == RR_CLOSED || !w->r)
        return UPQ_ERR_STATE;
    if (w->stage == RR_FAILED)
        return w->failed;
    w->bound = 0;
    st = check_bindings(w, b, n, 0, 0, &ptrs);
    if (st != UPQ_OK)
        return st;
    w->bind = b;
    w->num_bind = n;
    w->bound = 1;
    return UPQ_OK;
}

/* Copies one value of vsize bytes (a constant where this is inlined, so
 * the loop becomes a move or two); byte accesses: the caller's struct may
 * place it anywhere. The caller's rows never overlap the reader's batches
 * (restrict: no overlap checks in the loops). */
UPQ_INLINE void put_value(uint8_t *restrict d, const uint8_t *restrict s, size_t vsize)
{
    size_t j;
    for (j = 0; j < vsize; j++)
        d[j] = s[j];
}

/* a null's value: the largest value is a upq_bytes or a upq_int96 */
static const uint8_t zero_value[sizeof(upq_bytes) > 12 ? sizeof(upq_bytes) : 12];

/* n values of a leaf into the rows at d (stride apart), null flags at f
 * unless it is NULL: from s in order when def is NULL (no nulls among
 * them), else one per entry whose level is max_def, zeros for the others.
 * Everything in locals: stores through uint8_t may alias the leaf. */
UPQ_INLINE void put_values(uint8_t *restrict d, uint8_t *restrict f, size_t stride,
                           const uint8_t *restrict s, size_t vsize,
                           const uint16_t *restrict def, uint16_t max_def, size_t n)
{
    size_t k;
    if (!def && f) {
        for (k = 0; k < n; k++, d += stride, f += stride, s += vsize) {
            put_value(d, s, vsize);
            *f = 0;
        }
        return;
    }
    if (!def) {
        for (k = 0; k < n; k++, d += stride, s += vsize)
            put_value(d, s, vsize);
        return;
    }
    /* without branches on the levels: a null copies zeros and stays at s.
     * The next s is worked out from the level alone, before the copy: the
     * value's load must not be part of the chain from one s to the next
     * (with `s += null ? 0 : vsize` after it, gcc reused the loaded value's
     * register for the flag, which tied every step to the previous load). */
    for (k = 0; k < n; k++, d += stride) {
        size_t null = def[k] != max_def;
        const uint8_t *v = null ? zero_value : s;
        s += (null ^ 1u) * vsize;
        put_value(d, v, vsize);
        if (f) {
            *f = (uint8_t)null;
            f += stride;
        }
    }
}

/* On 64-bit hosts one case per value size, so each loop copies a size the
 * compiler knows (a move or two); elsewhere one loop for all: flash. */
static void put_column(uint8_t *d, uint8_t *f, size_t stride, const uint8_t *s, size_t vsize,
                       const uint16_t *def, uint16_t max_def, size_t n)
{
#if !UPQ_UNALIGNED_WORDS
    size_t k, j;
    for (k = 0; k < n; k++, d += stride) {
        uint8_t null = (uint8_t)(def && def[k] != max_def);
        const uint8_t *v = null ? zero_value : s;
        for (j = 0; j < vsize && j < sizeof zero_value; j++)
            d[j] = v[j];
        s += null ? 0 : vsize;
        if (f) {
            *f = null;
            f += stride;
        }
    }
#else
    switch (vsize) {
    case 1: put_values(d, f, stride, s, 1, def, max_def, n); break;
    case 4: put_values(d, f, stride, s, 4, def, max_def, n); break;
    case 8: put_values(d, f, stride, s, 8, def, max_def, n); break;
    case 12: put_values(d, f, stride, s, 12, def, max_def, n); break;
    case 16: put_values(d, f, stride, s, 16, def, max_def, n); break;
    default: /* not a size upq_value_size gives */
        if (vsize <= sizeof zero_value)
            put_values(d, f, stride, s, vsize, def, max_def, n);
        break;
    }
#endif
}

/* Values among a leaf's next n entries. */
static size_t values_in(const upq_rows_leaf *lf, size_t n)
{
    const uint16_t *def;
    uint16_t max_def = lf->max_def;
    size_t k, c = 0;
    if (!max_def || lf->full)
        return n; /* no levels kept, or no nulls among them */
    def = lf->b.def + lf->pos;
    for (k = 0; k < n; k++)
        c += def[k] == max_def;
    return c;
}

/* Takes n rows that every leaf has buffered into the structs at out (out of
 * upq_rows_fetch's frame, which lies under every batch read). */
static UPQ_NOINLINE upq_status take_rows(upq_rows *w, uint8_t *out, size_t stride, size_t n)
{
    uint32_t i;
    /* every check before the first copy: a failure then changes nothing */
    for (i = 0; i < w->num_leaves; i++) {
        upq_rows_leaf *lf = &w->leaves[i];
        lf->taking = values_in(lf, n);
        if (lf->taking > lf->b.values_n - lf->vpos)
            return leaf_fail(w, lf, UPQ_MSG("fewer values than definition levels say"));
    }
    for (i = 0; i < w->num_bind; i++) {
        const upq_row_binding *b = &w->bind[i];
        const upq_rows_leaf *lf = &w->leaves[leaf_of(w, b->column)];
        const uint16_t *def = (const uint16_t *)0;
        if (lf->taking < n) /* else no nulls: the plain copy */
            def = lf->b.def + lf->pos;
        put_column(out + b->offset, b->null_offset == UPQ_NONE ? (uint8_t *)0 : out + b->null_offset,
                   stride, (const uint8_t *)lf->vals + lf->vpos * lf->vsize, lf->vsize, def,
                   lf->max_def, n);
    }
    for (i = 0; i < w->num_leaves; i++) {
        upq_rows_leaf *lf = &w->leaves[i];
        lf->vpos += lf->taking;
        lf->pos += n;
    }
    w->row += n;
    return UPQ_OK;
}

upq_status upq_rows_fetch(upq_rows *w, void *rows, size_t stride, size_t max, size_t *got)
{
    uint8_t *out = (uint8_t *)rows;
    size_t done = 0;
    int ptrs;
    upq_status st;

    *got = 0;
    if (w->stage == RR_FAILED)
        return w->failed;
    if (w->stage == RR_CLOSED || w->skipping || !w->bound)
        return UPQ_ERR_STATE;
    if (!rows || max == 0 || (stride && max > SIZE_MAX / stride))
        return bind_err(w, UPQ_ERR_INVAL, UPQ_NONE, UPQ_MSG("no room for rows to fetch"));
    st = check_bindings(w, w->bind, w->num_bind, 1, stride, &ptrs);
    if (st != UPQ_OK)
        return st;
    if (IN_ROW(w)) {
        st = finish_row(w);
        if (st != UPQ_OK)
            return st;
    }
    w->ready = 0; /* the leaves' positions move */
    if (w->stage == RR_DONE)
        return UPQ_DONE;
    while (done < max) {
        size_t n = max - done;
        uint32_t i;
        if (w->row >= w->num_rows) {
            if (done)
                break;
            return next_row(w); /* checks that every column ends here: UPQ_DONE */
        }
        if ((uint64_t)n > w->num_rows - w->row)
            n = (size_t)(w->num_rows - w->row);
        for (i = 0; i < w->num_leaves && n; i++) {
            upq_rows_leaf *lf = &w->leaves[i];
            if (lf->pos >= lf->b.levels) {
                if (done && ptrs) /* a refill may move what the filled rows point to */
                    n = 0;
                else if ((st = ensure(w, lf)) != UPQ_OK)
                    n = 0;
            }
            if (n > lf->b.levels - lf->pos)
                n = lf->b.levels - lf->pos;
        }
        if (n == 0) {
            if (done)
                break;
            if (st == UPQ_DONE)
                return leaf_fail(w, &w->leaves[i - 1u],
                                 UPQ_MSG("a column holds fewer rows than its row group"));
            return st;
        }
        st = take_rows(w, out + done * stride, stride, n);
        if (st != UPQ_OK) {
            if (done) /* the rows filled come first; the failed rows give the error next */
                break;
            return st;
        }
        done += n;
    }
    *got = done;
    return UPQ_OK;
}
#endif
#endif /* UPQ_WITH_ROWS */
