/*
 * Variant throughput, all in memory:
 *  - build: objects of 8 fields (ints, a double, strings, a nested array)
 *    encoded with the builder, values/s and MB/s of output;
 *  - validate: the same values checked by upq_variant_validate, MB/s;
 *  - shred + write: rows through upq_variant_shredder into a VARIANT column
 *    shredding three of the fields, rows/s;
 *  - read + rebuild: the rows read back with the record reader and
 *    upq_variant_asm, rows/s.
 *
 *   bench_variant [SECONDS]
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "uparquet/uparquet.h"
#include "uparquet/variant.h"
#include "util/flaky_io.h"

#define NVAL 4096
#define ROWS 20000

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); /* CPU time: other load on the machine does not count */
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint8_t kb[4096], out[1 << 12], meta[1 << 12];
static uint32_t ko[65];
static upq_variant_entry ents[64];
static upq_variant_build_frame frames[8];
static const char *const names[] = {"id", "name", "score", "tags", "ts", "note", "x", "y"};

/* One object; returns its length in out (metadata in meta, *ml). */
static size_t build_one(uint32_t i, size_t *ml)
{
    upq_variant_keys k;
    upq_variant_builder b;
    uint32_t ids[8], j;
    size_t len = 0;
    char s[48];
    upq_variant_keys_init(&k, kb, sizeof kb, ko, 64);
    for (j = 0; j < 8; j++)
        upq_variant_keys_add(&k, names[j], strlen(names[j]), &ids[j]);
    upq_variant_builder_init(&b, &k, out, sizeof out, ents, 64, frames, 8);
    upq_variant_build_begin_object(&b);
    upq_variant_build_key(&b, ids[0]);
    upq_variant_build_int(&b, UPQ_VARIANT_INT64, (int64_t)i * 7919);
    upq_variant_build_key(&b, ids[1]);
    snprintf(s, sizeof s, "sensor-%u", i % 97);
    upq_variant_build_string(&b, s, strlen(s));
    upq_variant_build_key(&b, ids[2]);
    upq_variant_build_double(&b, i * 0.25);
    upq_variant_build_key(&b, ids[3]);
    upq_variant_build_begin_array(&b);
    for (j = 0; j < i % 4; j++)
        upq_variant_build_string(&b, "tag", 3);
    upq_variant_build_end(&b);
    upq_variant_build_key(&b, ids[4]);
    upq_variant_build_int(&b, UPQ_VARIANT_TIMESTAMP, 1700000000000000LL + i);
    upq_variant_build_key(&b, ids[5]);
    upq_variant_build_string(&b, "a note that is long enough to need the long string form ok", 58);
    upq_variant_build_key(&b, ids[6]);
    upq_variant_build_int(&b, UPQ_VARIANT_INT8, (int8_t)i);
    upq_variant_build_key(&b, ids[7]);
    upq_variant_build_null(&b);
    upq_variant_build_end(&b);
    if (upq_variant_build_finish(&b, &len) != UPQ_OK ||
        upq_variant_keys_finish(&k, UPQ_VARIANT_SORTED_AUTO, meta, sizeof meta, ml) != UPQ_OK)
        return 0;
    return len;
}

typedef struct memsink {
    uint8_t *p;
    size_t *used, cap;
} memsink;

static upq_status sink_write(void *ctx, const void *buf, size_t len, size_t *wr)
{
    memsink *m = (memsink *)ctx;
    if (*m->used + len > m->cap)
        return UPQ_ERR_IO;
    memcpy(m->p + *m->used, buf, len);
    *m->used += len;
    *wr = len;
    return UPQ_OK;
}

int main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 0.5, t0, t;
    static uint8_t *vals[NVAL];
    static size_t vlen[NVAL];
    size_t ml = 0, total = 0, i;
    long long n;
    upq_variant_meta m;

    /* build */
    t0 = now();
    n = 0;
    do {
        for (i = 0; i < NVAL; i++)
            total += build_one((uint32_t)i, &ml);
        n += NVAL;
    } while ((t = now() - t0) < secs);
    printf("variant build:    %8.0f values/s  %7.1f MB/s\n", n / t, total / t / 1e6);
    for (i = 0; i < NVAL; i++) {
        vlen[i] = build_one((uint32_t)i, &ml);
        vals[i] = malloc(vlen[i]);
        memcpy(vals[i], out, vlen[i]);
    }
    if (upq_variant_meta_parse(&m, meta, ml) != UPQ_OK)
        return 1;
    /* validate */
    t0 = now();
    n = 0;
    total = 0;
    do {
        for (i = 0; i < NVAL; i++) {
            if (upq_variant_validate(&m, vals[i], vlen[i]) != UPQ_OK)
                return 1;
            total += vlen[i];
        }
        n += NVAL;
    } while ((t = now() - t0) < secs);
    printf("variant validate: %8.0f values/s  %7.1f MB/s\n", n / t, total / t / 1e6);

    /* shred + write, read + rebuild */
    {
        static upq_schema_element e[32];
        static uint8_t smem[1 << 15];
        upq_schema_builder sb;
        upq_logical_type lt, st;
        upq_schema s;
        upq_arena a;
        upq_writer_opts o;
        upq_writer *w = malloc(sizeof *w);
        upq_variant_shredder sh;
        uint32_t ne = 0, vnode = 0, j;
        size_t need = 0, cap = 64u << 20, used = 0;
        uint8_t *file = malloc(cap), *wmem, *vmem = malloc(8u << 20), *rmem = malloc(16u << 20);
        memset(&lt, 0, sizeof lt);
        UPQ_SET(lt, UPQ_LOGICAL_TYPE_VARIANT);
        upq_lt_string(&st);
        upq_sb_init(&sb, e, 32, "m");
        upq_sb_group(&sb, "v", UPQ_REP_OPTIONAL, &lt);
        upq_sb_column(&sb, "metadata", UPQ_REP_REQUIRED, UPQ_TYPE_BYTE_ARRAY, 0, NULL);
        upq_sb_column(&sb, "value", UPQ_REP_OPTIONAL, UPQ_TYPE_BYTE_ARRAY, 0, NULL);
        upq_sb_group(&sb, "typed_value", UPQ_REP_OPTIONAL, NULL);
        upq_sb_group(&sb, "id", UPQ_REP_REQUIRED, NULL);
        upq_sb_column(&sb, "value", UPQ_REP_OPTIONAL, UPQ_TYPE_BYTE_ARRAY, 0, NULL);
        upq_sb_column(&sb, "typed_value", UPQ_REP_OPTIONAL, UPQ_TYPE_INT64, 0, NULL);
        upq_sb_end(&sb);
        upq_sb_group(&sb, "name", UPQ_REP_REQUIRED, NULL);
        upq_sb_column(&sb, "value", UPQ_REP_OPTIONAL, UPQ_TYPE_BYTE_ARRAY, 0, NULL);
        upq_sb_column(&sb, "typed_value", UPQ_REP_OPTIONAL, UPQ_TYPE_BYTE_ARRAY, 0, &st);
        upq_sb_end(&sb);
        upq_sb_group(&sb, "score", UPQ_REP_REQUIRED, NULL);
        upq_sb_column(&sb, "value", UPQ_REP_OPTIONAL, UPQ_TYPE_BYTE_ARRAY, 0, NULL);
        upq_sb_column(&sb, "typed_value", UPQ_REP_OPTIONAL, UPQ_TYPE_DOUBLE, 0, NULL);
        upq_sb_end(&sb);
        upq_sb_end(&sb);
        upq_sb_end(&sb);
        if (upq_sb_finish(&sb, &ne) != UPQ_OK)
            return 1;
        upq_arena_init(&a, smem, sizeof smem);
        upq_schema_build(&s, e, ne, &a, NULL);
        for (j = 1; j < s.num_nodes; j++)
            if (upq_variant_is_column(&s, j))
                vnode = j;
        memset(&o, 0, sizeof o);
        o.page_size = 1u << 20;
        upq_writer_workspace_size(e, ne, &o, 64, &need);
        wmem = malloc(need);
        {
            /* a sink into memory */
            upq_sink k;
            memsink ms = {file, &used, cap};
            k.ctx = &ms;
            k.write = sink_write;
            k.sync = NULL;
            k.read_at = NULL;
            if (upq_writer_init(w, &k, e, ne, wmem, need, &o) != UPQ_OK)
                return 1;
            upq_arena_init(&a, vmem, 8u << 20);
            if (upq_variant_shredder_init(&sh, &s, vnode, &a, 256, 1u << 16) != UPQ_OK)
                return 1;
            t0 = now();
            for (j = 0; j < ROWS; j++) {
                upq_status r;
                if (upq_variant_shred(&sh, meta, ml, vals[j % NVAL], vlen[j % NVAL]) != UPQ_OK)
                    return 1;
                while ((r = upq_variant_shred_write(&sh, w)) == UPQ_DONE || r == UPQ_AGAIN)
                    ;
                if (r != UPQ_OK)
                    return 1;
            }
            while (upq_writer_close(w) == UPQ_AGAIN)
                ;
            t = now() - t0;
            printf("variant shred+write: %8.0f rows/s  (%d rows, %zu bytes)\n", ROWS / t, ROWS, used);
        }
        {
            tu_mem_src src;
            upq_io io = {0};
            upq_reader r;
            upq_variant_asm va;
            upq_rows rows;
            upq_event ev;
            long long got = 0;
            tu_mem_src_init(&src, file, used);
            io.ctx = &src;
            io.read_at = tu_mem_read_at;
            io.size = used;
            upq_reader_init(&r, &io, rmem, 16u << 20, NULL);
            if (upq_reader_open(&r) != UPQ_OK)
                return 1;
            upq_arena_init(&a, vmem, 8u << 20);
            if (upq_variant_asm_init(&va, upq_reader_schema(&r), vnode, &a, 1u << 16, 256, 1u << 12,
                                     256) != UPQ_OK)
                return 1;
            t0 = now();
            for (j = 0; j < upq_reader_metadata(&r)->row_groups.n; j++) {
                if (upq_rows_open(&rows, &r, j, NULL, 0, 1024) != UPQ_OK)
                    return 1;
                while (upq_rows_next(&rows) == UPQ_OK)
                    while (upq_rows_event(&rows, &ev) == UPQ_OK)
                        if (upq_variant_asm_feed(&va, &ev) == UPQ_DONE)
                            got++;
                upq_rows_close(&rows);
            }
            t = now() - t0;
            printf("variant read+rebuild: %8.0f rows/s  (%lld rows)\n", got / t, got);
            if (got != ROWS)
                return 1;
        }
        free(file);
        free(wmem);
        free(vmem);
        free(rmem);
        free(w);
    }
    for (i = 0; i < NVAL; i++)
        free(vals[i]);
    return 0;
}

