/*
 * VARIANT columns through the library's writer and reader: random Variants
 * (nesting, wide objects and arrays, every primitive type, nulls) written
 * with upq_variant_shredder into an unshredded group and under several
 * shredding schemas (a typed primitive; an object with a typed field for
 * every primitive type, a nested object and a list; a list of objects),
 * read back with the record reader and upq_variant_asm, and compared as
 * Variant values with what was written. The typed_value columns must have
 * been used (some values land there), so the shredding is exercised.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uparquet/uparquet.h"
#include "uparquet/variant.h"
#include "util/check.h"
#include "util/files.h"
#include "util/flaky_io.h"
#include "util/variant_cmp.h"
#include "writer_util.h"

#define ROWS 400
#define VCAP (1u << 16)

static uint64_t rs;
static const char *out_dir; /* --out DIR: keep the files (for the DuckDB comparison) */

/* ---- random Variants ------------------------------------------------------------ */

typedef struct gen {
    upq_variant_keys keys;
    uint8_t kb[1 << 14];
    uint32_t ko[1025];
    upq_variant_builder b;
    uint8_t out[VCAP];
    upq_variant_entry ents[4096];
    upq_variant_build_frame frames[16];
} gen;

static gen G;

static uint32_t key(const char *s)
{
    uint32_t id = 0;
    upq_variant_keys_add(&G.keys, s, strlen(s), &id);
    return id;
}

/* A primitive of type t (a type id 0..20). */
static void prim(unsigned t)
{
    uint8_t b[64];
    size_t i;
    for (i = 0; i < sizeof b; i++)
        b[i] = (uint8_t)tu_rand(&rs);
    switch (t) {
    case 0: upq_variant_build_null(&G.b); break;
    case 1:
    case 2: upq_variant_build_bool(&G.b, t == 1); break;
    case 3: upq_variant_build_int(&G.b, UPQ_VARIANT_INT8, (int8_t)tu_rand(&rs)); break;
    case 4: upq_variant_build_int(&G.b, UPQ_VARIANT_INT16, (int16_t)tu_rand(&rs)); break;
    case 5: upq_variant_build_int(&G.b, UPQ_VARIANT_INT32, (int32_t)tu_rand(&rs)); break;
    case 6: upq_variant_build_int(&G.b, UPQ_VARIANT_INT64, (int64_t)tu_rand(&rs)); break;
    case 7: upq_variant_build_double(&G.b, (double)(int64_t)tu_rand(&rs) / 3.0); break;
    case 8: upq_variant_build_decimal(&G.b, UPQ_VARIANT_DECIMAL4, 2, (int32_t)(tu_rand(&rs) % 999999999)); break;
    case 9: upq_variant_build_decimal(&G.b, UPQ_VARIANT_DECIMAL8, 6, (int64_t)(tu_rand(&rs) % 999999999999999999ull)); break;
    case 10:
        b[15] = (uint8_t)(b[15] & 0x0F); /* well within 38 digits */
        upq_variant_build_decimal16(&G.b, 10, b);
        break;
    case 11: upq_variant_build_int(&G.b, UPQ_VARIANT_DATE, (int32_t)(tu_rand(&rs) % 3000000)); break;
    case 12:
    case 13:
    case 18:
    case 19: upq_variant_build_int(&G.b, (upq_variant_kind)t, (int64_t)(tu_rand(&rs) >> 2)); break;
    case 17: upq_variant_build_int(&G.b, UPQ_VARIANT_TIME_NTZ, (int64_t)(tu_rand(&rs) % 86400000000ull)); break;
    case 14: upq_variant_build_float(&G.b, (float)(int32_t)tu_rand(&rs) / 7.0f); break;
    case 15: upq_variant_build_binary(&G.b, b, tu_rand_below(&rs, 64)); break;
    case 16: {
        size_t n = tu_rand_below(&rs, 4) == 0 ? 70 + tu_rand_below(&rs, 60) : tu_rand_below(&rs, 20);
        char s[160];
        for (i = 0; i < n; i++)
            s[i] = (char)('a' + tu_rand_below(&rs, 26));
        upq_variant_build_string(&G.b, s, n);
        break;
    }
    default: upq_variant_build_uuid(&G.b, b); break;
    }
}

static const char *const typed_names[21] = {
    "f_null", "f_bool", "f_bool2", "f_i8", "f_i16", "f_i32", "f_i64", "f_double", "f_dec4",
    "f_dec8", "f_dec16", "f_date", "f_ts", "f_tsntz", "f_float", "f_bin", "f_str", "f_time",
    "f_tsn", "f_tsnntz", "f_uuid",
};

static void value(int depth);

static void object(int depth)
{
    unsigned i, n;
    upq_variant_build_begin_object(&G.b);
    /* the typed fields, mostly of their own type */
    for (i = 1; i < 21; i++) {
        if (i == 2 || tu_rand_below(&rs, 3) == 0)
            continue; /* missing */
        upq_variant_build_key(&G.b, key(typed_names[i]));
        if (tu_rand_below(&rs, 5) == 0)
            value(depth + 1); /* anything: goes to value */
        else
            prim(i == 1 ? 1 + (unsigned)tu_rand_below(&rs, 2) : i);
    }
    if (tu_rand_below(&rs, 2)) {
        upq_variant_build_key(&G.b, key("f_obj"));
        if (tu_rand_below(&rs, 4) == 0) {
            value(depth + 1);
        } else {
            upq_variant_build_begin_object(&G.b);
            upq_variant_build_key(&G.b, key("x"));
            if (tu_rand_below(&rs, 3))
                prim(6);
            else
                value(depth + 1);
            if (tu_rand_below(&rs, 2)) {
                upq_variant_build_key(&G.b, key("extra"));
                value(depth + 1);
            }
            upq_variant_build_end(&G.b);
        }
    }
    if (tu_rand_below(&rs, 2)) {
        upq_variant_build_key(&G.b, key("f_arr"));
        if (tu_rand_below(&rs, 4) == 0) {
            value(depth + 1);
        } else {
            n = (unsigned)tu_rand_below(&rs, 5);
            upq_variant_build_begin_array(&G.b);
            for (i = 0; i < n; i++) {
                if (tu_rand_below(&rs, 4))
                    prim(16);
                else
                    value(depth + 1);
            }
            upq_variant_build_end(&G.b);
        }
    }
    /* residual fields */
    n = (unsigned)tu_rand_below(&rs, depth == 0 && tu_rand_below(&rs, 10) == 0 ? 300 : 4);
    for (i = 0; i < n; i++) {
        char k[16];
        snprintf(k, sizeof k, "r%u", i);
        upq_variant_build_key(&G.b, key(k));
        if (depth < 3)
            value(depth + 1);
        else
            prim((unsigned)tu_rand_below(&rs, 21));
    }
    upq_variant_build_end(&G.b);
}

static void value(int depth)
{
    unsigned t = (unsigned)tu_rand_below(&rs, depth < 4 ? 30 : 21);
    unsigned i, n;
    if (t < 21) {
        prim(t);
    } else if (t < 26) {
        object(depth);
    } else {
        n = (unsigned)tu_rand_below(&rs, depth == 0 && tu_rand_below(&rs, 8) == 0 ? 280 : 5);
        upq_variant_build_begin_array(&G.b);
        for (i = 0; i < n; i++)
            value(depth + 1);
        upq_variant_build_end(&G.b);
    }
}

typedef struct row {
    int null;
    uint8_t *m, *v;
    size_t ml, vl;
} row;

static void make_row(row *r, int top_object)
{
    size_t vl, ml;
    memset(r, 0, sizeof *r);
    if (tu_rand_below(&rs, 20) == 0) {
        r->null = 1;
        return;
    }
    upq_variant_keys_init(&G.keys, G.kb, sizeof G.kb, G.ko, 1024);
    upq_variant_builder_init(&G.b, &G.keys, G.out, sizeof G.out, G.ents, 4096, G.frames, 16);
    if (top_object == 1 && tu_rand_below(&rs, 5))
        object(0);
    else if (top_object == 2 && tu_rand_below(&rs, 5)) {
        unsigned i, n = (unsigned)tu_rand_below(&rs, 6);
        upq_variant_build_begin_array(&G.b);
        for (i = 0; i < n; i++)
            if (tu_rand_below(&rs, 4))
                object(1);
            else
                value(1);
        upq_variant_build_end(&G.b);
    } else
        value(0);
    if (!TU_CHECK_STATUS(upq_variant_build_finish(&G.b, &vl), UPQ_OK))
        return;
    r->m = malloc(upq_variant_keys_size(&G.keys));
    upq_variant_keys_finish(&G.keys, UPQ_VARIANT_SORTED_AUTO, r->m, upq_variant_keys_size(&G.keys), &ml);
    r->ml = ml;
    r->v = malloc(vl);
    memcpy(r->v, G.out, vl);
    r->vl = vl;
}

/* ---- schemas ------------------------------------------------------------------------ */

static void slot_leaf(upq_schema_builder *b, const char *name, int32_t type, int32_t len,
                      const upq_logical_type *lt)
{
    upq_sb_group(b, name, UPQ_REP_REQUIRED, NULL);
    upq_sb_column(b, "value", UPQ_REP_OPTIONAL, UPQ_TYPE_BYTE_ARRAY, 0, NULL);
    upq_sb_column(b, "typed_value", UPQ_REP_OPTIONAL, type, len, lt);
    upq_sb_end(b);
}

/* The typed object with a field per primitive type, a nested object and a
 * list of strings. */
static void typed_object(upq_schema_builder *b, const char *name)
{
    upq_logical_type lt;
    upq_sb_group(b, name, UPQ_REP_OPTIONAL, NULL);
    slot_leaf(b, "f_bool", UPQ_TYPE_BOOLEAN, 0, NULL);
    upq_lt_int(&lt, 8, 1);
    slot_leaf(b, "f_i8", UPQ_TYPE_INT32, 0, &lt);
    upq_lt_int(&lt, 16, 1);
    slot_leaf(b, "f_i16", UPQ_TYPE_INT32, 0, &lt);
    slot_leaf(b, "f_i32", UPQ_TYPE_INT32, 0, NULL);
    slot_leaf(b, "f_i64", UPQ_TYPE_INT64, 0, NULL);
    slot_leaf(b, "f_double", UPQ_TYPE_DOUBLE, 0, NULL);
    upq_lt_decimal(&lt, 9, 2);
    slot_leaf(b, "f_dec4", UPQ_TYPE_INT32, 0, &lt);
    upq_lt_decimal(&lt, 18, 6);
    slot_leaf(b, "f_dec8", UPQ_TYPE_INT64, 0, &lt);
    upq_lt_decimal(&lt, 38, 10);
    slot_leaf(b, "f_dec16", UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 16, &lt);
    upq_lt_date(&lt);
    slot_leaf(b, "f_date", UPQ_TYPE_INT32, 0, &lt);
    upq_lt_timestamp(&lt, UPQ_TIME_UNIT_MICROS, 1);
    slot_leaf(b, "f_ts", UPQ_TYPE_INT64, 0, &lt);
    upq_lt_timestamp(&lt, UPQ_TIME_UNIT_MICROS, 0);
    slot_leaf(b, "f_tsntz", UPQ_TYPE_INT64, 0, &lt);
    slot_leaf(b, "f_float", UPQ_TYPE_FLOAT, 0, NULL);
    slot_leaf(b, "f_bin", UPQ_TYPE_BYTE_ARRAY, 0, NULL);
    upq_lt_string(&lt);
    slot_leaf(b, "f_str", UPQ_TYPE_BYTE_ARRAY, 0, &lt);
    upq_lt_time(&lt, UPQ_TIME_UNIT_MICROS, 0);
    slot_leaf(b, "f_time", UPQ_TYPE_INT64, 0, &lt);
    upq_lt_timestamp(&lt, UPQ_TIME_UNIT_NANOS, 1);
    slot_leaf(b, "f_tsn", UPQ_TYPE_INT64, 0, &lt);
    upq_lt_timestamp(&lt, UPQ_TIME_UNIT_NANOS, 0);
    slot_leaf(b, "f_tsnntz", UPQ_TYPE_INT64, 0, &lt);
    upq_lt_uuid(&lt);
    slot_leaf(b, "f_uuid", UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 16, &lt);
    /* f_obj: { x: int64 } */
    upq_sb_group(b, "f_obj", UPQ_REP_REQUIRED, NULL);
    upq_sb_column(b, "value", UPQ_REP_OPTIONAL, UPQ_TYPE_BYTE_ARRAY, 0, NULL);
    upq_sb_group(b, "typed_value", UPQ_REP_OPTIONAL, NULL);
    slot_leaf(b, "x", UPQ_TYPE_INT64, 0, NULL);
    upq_sb_end(b);
    upq_sb_end(b);
    /* f_arr: LIST of strings */
    upq_sb_group(b, "f_arr", UPQ_REP_REQUIRED, NULL);
    upq_sb_column(b, "value", UPQ_REP_OPTIONAL, UPQ_TYPE_BYTE_ARRAY, 0, NULL);
    upq_sb_list(b, "typed_value", UPQ_REP_OPTIONAL);
    upq_sb_group(b, "element", UPQ_REP_REQUIRED, NULL);
    upq_sb_column(b, "value", UPQ_REP_OPTIONAL, UPQ_TYPE_BYTE_ARRAY, 0, NULL);
    upq_lt_string(&lt);
    upq_sb_column(b, "typed_value", UPQ_REP_OPTIONAL, UPQ_TYPE_BYTE_ARRAY, 0, &lt);
    upq_sb_end(b);
    upq_sb_end_list(b);
    upq_sb_end(b);
    upq_sb_end(b);
}

enum { S_PLAIN, S_PRIM, S_OBJECT, S_LIST, S_COUNT };
static const char *const schema_names[S_COUNT] = {"unshredded", "typed int64", "typed object",
                                                  "typed list of objects"};

static uint32_t build_schema(int kind, upq_schema_element *e, uint32_t cap)
{
    upq_schema_builder b;
    upq_logical_type lt;
    uint32_t n = 0;
    memset(&lt, 0, sizeof lt);
    UPQ_SET(lt, UPQ_LOGICAL_TYPE_VARIANT);
    upq_sb_init(&b, e, cap, "m");
    upq_sb_column(&b, "id", UPQ_REP_REQUIRED, UPQ_TYPE_INT32, 0, NULL);
    upq_sb_group(&b, "v", UPQ_REP_OPTIONAL, &lt);
    upq_sb_column(&b, "metadata", UPQ_REP_REQUIRED, UPQ_TYPE_BYTE_ARRAY, 0, NULL);
    upq_sb_column(&b, "value", kind == S_PLAIN ? UPQ_REP_REQUIRED : UPQ_REP_OPTIONAL,
                  UPQ_TYPE_BYTE_ARRAY, 0, NULL);
    if (kind == S_PRIM)
        upq_sb_column(&b, "typed_value", UPQ_REP_OPTIONAL, UPQ_TYPE_INT64, 0, NULL);
    else if (kind == S_OBJECT)
        typed_object(&b, "typed_value");
    else if (kind == S_LIST) {
        upq_sb_list(&b, "typed_value", UPQ_REP_OPTIONAL);
        upq_sb_group(&b, "element", UPQ_REP_REQUIRED, NULL);
        upq_sb_column(&b, "value", UPQ_REP_OPTIONAL, UPQ_TYPE_BYTE_ARRAY, 0, NULL);
        typed_object(&b, "typed_value");
        upq_sb_end(&b);
        upq_sb_end_list(&b);
    }
    upq_sb_end(&b);
    if (upq_sb_finish(&b, &n) != UPQ_OK)
        return 0;
    return n;
}

/* ---- one schema ------------------------------------------------------------------- */

static void run(int kind)
{
    static upq_schema_element elems[256];
    uint32_t n = build_schema(kind, elems, 256), i, vnode = UPQ_NONE;
    row *rows = calloc(ROWS, sizeof *rows);
    upq_schema s;
    upq_arena sa, va;
    static uint8_t smem[1 << 16];
    uint8_t *wmem, *vmem = malloc(16u << 20), *rmem;
    upq_writer w;
    upq_writer_opts o;
    sink_buf sink;
    upq_sink k;
    size_t need = 0, typed_entries = 0;
    upq_status st;
    upq_variant_shredder sh;
    int r, bad = 0;

    tu_case("%s: write %d rows", schema_names[kind], ROWS);
    if (!TU_CHECK(n > 0))
        return;
    upq_arena_init(&sa, smem, sizeof smem);
    TU_CHECK_STATUS(upq_schema_build(&s, elems, n, &sa, NULL), UPQ_OK);
    for (i = 1; i < s.num_nodes; i++)
        if (upq_variant_is_column(&s, i))
            vnode = i;
    memset(&o, 0, sizeof o);
    o.row_group_rows = ROWS / 3; /* several row groups */
    o.page_size = 1u << 20;     /* a wide row's values fit a page */
    TU_CHECK_STATUS(upq_writer_workspace_size(elems, n, &o, 16, &need), UPQ_OK);
    wmem = malloc(need);
    sink_init(&sink, SINK_WHOLE, 1);
    k = sink_of(&sink, 0);
    TU_CHECK_STATUS(upq_writer_init(&w, &k, elems, n, wmem, need, &o), UPQ_OK);
    upq_arena_init(&va, vmem, 16u << 20);
    TU_CHECK_STATUS(upq_variant_shredder_init(&sh, &s, vnode, &va, 4096, 1u << 20), UPQ_OK);
    for (r = 0; r < ROWS; r++) {
        int32_t id = r;
        uint16_t zero = 0;
        size_t took;
        int tries = 0;
        make_row(&rows[r], kind == S_OBJECT ? 1 : kind == S_LIST ? 2 : 0);
        st = upq_variant_shred(&sh, rows[r].null ? NULL : rows[r].m, rows[r].ml, rows[r].v,
                               rows[r].vl);
        if (!TU_CHECK_MSG(st == UPQ_OK, "row %d: shred %s", r, upq_strerror(st)))
            break;
        for (i = 2; i < sh.num_leaves; i++) /* leaves after metadata, value */
            typed_entries += sh.leaves[i].nv;
        WU_RETRY(st, upq_writer_write_column(&w, 0, &zero, &zero, &id, 1, &took));
        do {
            WU_RETRY(st, upq_variant_shred_write(&sh, &w));
        } while (st == UPQ_DONE && ++tries < 4);
        if (!TU_CHECK_MSG(st == UPQ_OK, "row %d: write %s", r, upq_strerror(st)))
            break;
    }
    WU_RETRY(st, upq_writer_close(&w));
    TU_CHECK_STATUS(st, UPQ_OK);
    if (kind != S_PLAIN)
        TU_CHECK_MSG(typed_entries > (kind == S_PRIM ? 2u : ROWS / 4u),
                     "only %zu typed values written", typed_entries);
    tu_note("%s: %zu bytes, %zu typed values", schema_names[kind], sink.n, typed_entries);
    if (out_dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/roundtrip_%d.parquet", out_dir, kind);
        TU_CHECK_MSG(tu_write_file(path, sink.p, sink.n) == 0, "cannot write %s", path);
    }

    tu_case("%s: read back", schema_names[kind]);
    rmem = malloc(8u << 20);
    {
        tu_mem_src src;
        upq_io io = {0};
        upq_reader rd;
        upq_variant_asm as;
        upq_arena aa;
        uint32_t rg, rnode = UPQ_NONE;
        int got = 0;
        tu_mem_src_init(&src, sink.p, sink.n);
        io.ctx = &src;
        io.read_at = tu_mem_read_at;
        io.size = sink.n;
        upq_reader_init(&rd, &io, rmem, 8u << 20, NULL);
        while ((st = upq_reader_open(&rd)) == UPQ_AGAIN)
            ;
        TU_CHECK_STATUS(st, UPQ_OK);
        for (i = 1; st == UPQ_OK && i < upq_reader_schema(&rd)->num_nodes; i++)
            if (upq_variant_is_column(upq_reader_schema(&rd), i))
                rnode = i;
        upq_arena_init(&aa, vmem, 16u << 20);
        if (st == UPQ_OK)
            st = upq_variant_asm_init(&as, upq_reader_schema(&rd), rnode, &aa, 1u << 20, 4096,
                                      1u << 16, 8192);
        TU_CHECK_STATUS(st, UPQ_OK);
        for (rg = 0; st == UPQ_OK && rg < upq_reader_metadata(&rd)->row_groups.n; rg++) {
            upq_rows rows_it;
            st = upq_rows_open(&rows_it, &rd, rg, &rnode, 1, 0);
            while (st == UPQ_OK && (st = upq_rows_next(&rows_it)) == UPQ_OK) {
                upq_event ev;
                int isnull = 0, done = 0;
                while ((st = upq_rows_event(&rows_it, &ev)) == UPQ_OK) {
                    upq_status fs;
                    if (ev.node == rnode && ev.type == UPQ_EV_NULL) {
                        isnull = 1;
                        continue;
                    }
                    fs = upq_variant_asm_feed(&as, &ev);
                    if (fs == UPQ_DONE) {
                        const uint8_t *m, *v;
                        size_t ml, vl;
                        char why[200];
                        upq_variant_asm_result(&as, &m, &ml, &v, &vl);
                        done = 1;
                        if (got < ROWS && !rows[got].null &&
                            tu_variant_equal(m, ml, v, vl, rows[got].m, rows[got].ml, rows[got].v,
                                             rows[got].vl, why, sizeof why) != 1 &&
                            bad++ < 3) {
                            char a[300], b[300];
                            tu_variant_describe(m, ml, v, vl, a, sizeof a);
                            tu_variant_describe(rows[got].m, rows[got].ml, rows[got].v,
                                                rows[got].vl, b, sizeof b);
                            TU_CHECK_MSG(0, "row %d: %s\n got  %s\n want %s", got, why, a, b);
                        }
                    } else if (fs != UPQ_OK) {
                        TU_CHECK_MSG(0, "row %d: %s", got, upq_strerror(fs));
                        bad++;
                        break;
                    }
                }
                if (got < ROWS && rows[got].null != isnull) {
                    TU_CHECK_MSG(0, "row %d: null %d, want %d", got, isnull, rows[got].null);
                    bad++;
                }
                (void)done;
                got++;
                if (st == UPQ_DONE)
                    st = UPQ_OK;
            }
            upq_rows_close(&rows_it);
            if (st == UPQ_DONE)
                st = UPQ_OK;
        }
        TU_CHECK_STATUS(st, UPQ_OK);
        TU_CHECK_INT(got, ROWS);
        TU_CHECK_INT(bad, 0);
    }
    for (r = 0; r < ROWS; r++) {
        free(rows[r].m);
        free(rows[r].v);
    }
    free(rows);
    free(rmem);
    free(wmem);
    free(vmem);
    sink_free(&sink);
}

/* ---- data the spec forbids, read back as errors ----------------------------------- */

/* The leaf of schema node path a.b.c under v. */
static upq_variant_shred_leaf *leaf_at(upq_variant_shredder *sh, const upq_schema *s,
                                       const char *path)
{
    uint32_t i;
    for (i = 0; i < sh->num_leaves; i++) {
        char buf[256];
        size_t n = upq_schema_node_path(s, s->columns[sh->leaves[i].column].node, buf, sizeof buf);
        if (n == strlen(path) && memcmp(buf, path, n) == 0) /* not NUL-terminated */
            return &sh->leaves[i];
    }
    return NULL;
}

/* Builds {key: int32 5, ...} (keys given) or a bare int8 (no keys). */
static void small_value(row *r, const char *const *keys, int nkeys)
{
    size_t vl, ml;
    int i;
    upq_variant_keys_init(&G.keys, G.kb, sizeof G.kb, G.ko, 1024);
    upq_variant_builder_init(&G.b, &G.keys, G.out, sizeof G.out, G.ents, 4096, G.frames, 16);
    if (nkeys) {
        upq_variant_build_begin_object(&G.b);
        for (i = 0; i < nkeys; i++) {
            upq_variant_build_key(&G.b, key(keys[i]));
            upq_variant_build_int(&G.b, UPQ_VARIANT_INT32, 5); /* f_i32's type */
        }
        upq_variant_build_end(&G.b);
    } else {
        upq_variant_build_int(&G.b, UPQ_VARIANT_INT8, 5);
    }
    upq_variant_build_finish(&G.b, &vl);
    r->m = malloc(upq_variant_keys_size(&G.keys));
    upq_variant_keys_finish(&G.keys, UPQ_VARIANT_SORTED_AUTO, r->m, upq_variant_keys_size(&G.keys), &ml);
    r->ml = ml;
    r->v = malloc(vl);
    memcpy(r->v, G.out, vl);
    r->vl = vl;
    r->null = 0;
}

static void tampered(int which)
{
    static const char *const why[] = {
        "an object in value while the typed object is null",
        "value and a typed primitive both set",
        "a partially shredded value repeating a shredded field",
        "a non-object value with shredded fields",
    };
    static const char *const k1[] = {"f_i32"}, *const k2[] = {"f_i32", "r0"};
    static upq_schema_element elems[256];
    static uint8_t smem[1 << 16], empty_obj[] = {0x02, 0x00, 0x00}, null_v[] = {0x00};
    uint8_t conflict[8];
    uint32_t n = build_schema(S_OBJECT, elems, 256), i, vnode = UPQ_NONE, rnode = UPQ_NONE;
    upq_schema s;
    upq_arena sa, va;
    uint8_t *wmem, *vmem = malloc(16u << 20), *rmem = malloc(8u << 20);
    upq_writer w;
    upq_writer_opts o;
    sink_buf sink;
    upq_sink k;
    size_t need = 0, took;
    upq_status st, fs = UPQ_OK;
    upq_variant_shredder sh;
    upq_variant_shred_leaf *l;
    row r;
    int32_t id = 0;
    uint16_t zero = 0;
    upq_bytes b;

    tu_case("rejected on reading: %s", why[which]);
    upq_arena_init(&sa, smem, sizeof smem);
    upq_schema_build(&s, elems, n, &sa, NULL);
    for (i = 1; i < s.num_nodes; i++)
        if (upq_variant_is_column(&s, i))
            vnode = i;
    memset(&o, 0, sizeof o);
    o.page_size = 1u << 20;
    upq_writer_workspace_size(elems, n, &o, 4, &need);
    wmem = malloc(need);
    sink_init(&sink, SINK_WHOLE, 1);
    k = sink_of(&sink, 0);
    TU_CHECK_STATUS(upq_writer_init(&w, &k, elems, n, wmem, need, &o), UPQ_OK);
    upq_arena_init(&va, vmem, 16u << 20);
    TU_CHECK_STATUS(upq_variant_shredder_init(&sh, &s, vnode, &va, 4096, 1u << 16), UPQ_OK);
    memset(&r, 0, sizeof r);
    switch (which) {
    case 0: /* an int: value holds it; then value becomes {} */
        small_value(&r, NULL, 0);
        TU_CHECK_STATUS(upq_variant_shred(&sh, r.m, r.ml, r.v, r.vl), UPQ_OK);
        l = leaf_at(&sh, &s, "v.value");
        b.ptr = empty_obj;
        b.len = sizeof empty_obj;
        if (TU_CHECK(l && l->nv == 1))
            memcpy(l->vals, &b, sizeof b);
        break;
    case 1: /* {f_i32: 5}: the typed field also gets a value */
        small_value(&r, k1, 1);
        TU_CHECK_STATUS(upq_variant_shred(&sh, r.m, r.ml, r.v, r.vl), UPQ_OK);
        l = leaf_at(&sh, &s, "v.typed_value.f_i32.value");
        b.ptr = null_v;
        b.len = 1;
        if (TU_CHECK(l && l->n == 1 && l->nv == 0)) {
            l->def[0] = s.nodes[s.columns[l->column].node].max_def;
            memcpy(l->vals, &b, sizeof b);
            l->nv = 1;
        }
        break;
    case 2: /* {f_i32: 5, r0: 5}: the residual {r0} becomes {f_i32} */
        small_value(&r, k2, 2);
        TU_CHECK_STATUS(upq_variant_shred(&sh, r.m, r.ml, r.v, r.vl), UPQ_OK);
        l = leaf_at(&sh, &s, "v.value");
        /* object of one field: id of f_i32 (0: added first), offsets 0 and 2, int8 5 */
        conflict[0] = 0x02;
        conflict[1] = 1;
        conflict[2] = 0;
        conflict[3] = 0;
        conflict[4] = 2;
        conflict[5] = 0x0c;
        conflict[6] = 5;
        b.ptr = conflict;
        b.len = 7;
        if (TU_CHECK(l && l->nv == 1))
            memcpy(l->vals, &b, sizeof b);
        break;
    default: /* {f_i32: 5} shredded, and value set to a non-object */
        small_value(&r, k1, 1);
        TU_CHECK_STATUS(upq_variant_shred(&sh, r.m, r.ml, r.v, r.vl), UPQ_OK);
        l = leaf_at(&sh, &s, "v.value");
        b.ptr = null_v;
        b.len = 1;
        if (TU_CHECK(l && l->n == 1 && l->nv == 0)) {
            l->def[0] = s.nodes[s.columns[l->column].node].max_def;
            memcpy(l->vals, &b, sizeof b);
            l->nv = 1;
        }
        break;
    }
    WU_RETRY(st, upq_writer_write_column(&w, 0, &zero, &zero, &id, 1, &took));
    WU_RETRY(st, upq_variant_shred_write(&sh, &w));
    TU_CHECK_STATUS(st, UPQ_OK);
    WU_RETRY(st, upq_writer_close(&w));
    TU_CHECK_STATUS(st, UPQ_OK);
    {
        tu_mem_src src;
        upq_io io = {0};
        upq_reader rd;
        upq_variant_asm as;
        upq_rows it;
        upq_event ev;
        tu_mem_src_init(&src, sink.p, sink.n);
        io.ctx = &src;
        io.read_at = tu_mem_read_at;
        io.size = sink.n;
        upq_reader_init(&rd, &io, rmem, 8u << 20, NULL);
        while ((st = upq_reader_open(&rd)) == UPQ_AGAIN)
            ;
        TU_CHECK_STATUS(st, UPQ_OK);
        for (i = 1; i < upq_reader_schema(&rd)->num_nodes; i++)
            if (upq_variant_is_column(upq_reader_schema(&rd), i))
                rnode = i;
        upq_arena_init(&va, vmem, 16u << 20);
        TU_CHECK_STATUS(upq_variant_asm_init(&as, upq_reader_schema(&rd), rnode, &va, 1u << 16,
                                             256, 4096, 256),
                        UPQ_OK);
        TU_CHECK_STATUS(upq_rows_open(&it, &rd, 0, &rnode, 1, 0), UPQ_OK);
        TU_CHECK_STATUS(upq_rows_next(&it), UPQ_OK);
        while ((st = upq_rows_event(&it, &ev)) == UPQ_OK) {
            fs = upq_variant_asm_feed(&as, &ev);
            if (fs != UPQ_OK)
                break;
        }
        TU_CHECK_STATUS(fs, UPQ_ERR_CORRUPT);
        upq_rows_close(&it);
    }
    free(r.m);
    free(r.v);
    free(wmem);
    free(vmem);
    free(rmem);
    sink_free(&sink);
}

int main(int argc, char **argv)
{
    int kind;
    if (argc == 3 && strcmp(argv[1], "--out") == 0)
        out_dir = argv[2];
    rs = tu_seed();
    tu_note("seed %llu", (unsigned long long)rs);
    for (kind = 0; kind < S_COUNT; kind++)
        run(kind);
    for (kind = 0; kind < 4; kind++)
        tampered(kind);
    return tu_summary();
}
