/*
 * A program built against µparquet as an installed library (pkg-config, a
 * CMake package) or from its sources (port/cmake): the snippets of
 * docs/reading.md, docs/logging.md and docs/memory.md come from this file.
 *
 *   consumer CORPUS_DIR OUT.parquet
 *
 * 1. Reads parquet-testing's encrypt_columns_and_footer.parquet.encrypted
 *    (encrypted footer and columns; keys from its KEYS.md) through a read_at
 *    callback, sizing the arena with upq_reader_workspace_size, and checks
 *    every value of three columns against the generator those files come
 *    from (parquet-cpp's encryption interop data: row i has int32_field i,
 *    double_field i * 1.1111111, boolean_field i % 2 == 0).
 * 2. Writes OUT.parquet (those rows as int32, double and a string) through a
 *    write/sync sink, sizing the arena with upq_writer_workspace_size, and
 *    reads it back the same way.
 *
 * Prints one line per check and ends with "N passed, N failed"; exit status
 * 0 only when everything passed.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uparquet/uparquet.h"
#include "uparquet/bloom.h"
#include "uparquet/column.h"
#include "uparquet/record.h"
#include "uparquet/variant.h"
#include "uparquet/writer.h"

static int passed, failed;

static void check(int ok, const char *what, long long got, long long want)
{
    if (ok) {
        passed++;
        printf("ok: %s\n", what);
    } else {
        failed++;
        printf("FAIL: %s (got %lld, want %lld)\n", what, got, want);
    }
}

/* ---- reading: the read_at callback over a stdio file ---------------------- */

static upq_status file_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    FILE *f = ctx;
    if (fseek(f, (long)off, SEEK_SET) != 0)
        return UPQ_ERR_IO;
    *got = fread(buf, 1, len, f);          /* short counts are fine; 0 is end of file */
    return ferror(f) ? UPQ_ERR_IO : UPQ_OK;
}

/* KEYS.md: footer key "0123456789012345" (key metadata "kf"), column keys
 * "1234567890123450".."1234567890123457" ("kc1".."kc8"). */
static upq_status get_key(void *ctx, const upq_bytes *md, const upq_bytes_list *path,
                          uint8_t key[UPQ_CRYPTO_MAX_KEY], size_t *key_len)
{
    (void)ctx;
    if (!path || (md->len == 2 && memcmp(md->ptr, "kf", 2) == 0)) {
        memcpy(key, "0123456789012345", 16);
    } else if (md->len == 3 && memcmp(md->ptr, "kc", 2) == 0 && md->ptr[2] >= '1' && md->ptr[2] <= '8') {
        memcpy(key, "123456789012345", 15);
        key[15] = (uint8_t)('0' + (md->ptr[2] - '1'));
    } else {
        return UPQ_ERR_AUTH;
    }
    *key_len = 16;
    return UPQ_OK;
}

#define MAX_ROWS 64

typedef struct column_values {
    int32_t i32[MAX_ROWS];
    double f64[MAX_ROWS];
    uint8_t b[MAX_ROWS];
    upq_bytes s[MAX_ROWS];
    char text[MAX_ROWS][16];    /* the strings, copied out of the page buffer */
    size_t n;
} column_values;

/* Every value of leaf column `col`, all row groups (required columns: no nulls). */
static upq_status read_column(upq_reader *r, uint32_t col, int32_t type, column_values *out)
{
    uint32_t rg;
    out->n = 0;
    for (rg = 0; rg < upq_reader_num_row_groups(r); rg++) {
        upq_column_reader c;
        uint16_t def[MAX_ROWS];
        double v[MAX_ROWS];      /* room for any of the value types read here */
        upq_bytes sv[MAX_ROWS];
        upq_batch b = { def, NULL, type == UPQ_TYPE_BYTE_ARRAY ? (void *)sv : (void *)v, MAX_ROWS, 0, 0 };
        upq_status st;
        /* with on-demand row groups (opts.row_groups) their metadata comes first */
        while ((st = upq_reader_row_group_load(r, rg)) == UPQ_AGAIN)
            ;
        if (st == UPQ_OK)
            st = upq_column_open(&c, r, rg, col);
        if (st != UPQ_OK)
            return st;
        while ((st = upq_column_read(&c, &b)) == UPQ_OK || st == UPQ_AGAIN) {
            size_t i;
            for (i = 0; i < b.values_n && out->n < MAX_ROWS; i++, out->n++) {
                if (type == UPQ_TYPE_INT32)
                    out->i32[out->n] = ((int32_t *)(void *)v)[i];
                else if (type == UPQ_TYPE_DOUBLE)
                    out->f64[out->n] = v[i];
                else if (type == UPQ_TYPE_BOOLEAN)
                    out->b[out->n] = ((uint8_t *)(void *)v)[i];
                else {
                    size_t k = sv[i].len < 15 ? sv[i].len : 15;
                    memcpy(out->text[out->n], sv[i].ptr, k);
                    out->text[out->n][k] = 0;
                }
            }
        }
        upq_column_close(&c);
        if (st != UPQ_DONE)
            return st;
    }
    return UPQ_OK;
}

/* Opens a reader in an arena sized by the library: a first open in a
 * generous arena (grown while UPQ_ERR_NOMEM says how much the footer needs)
 * lets upq_reader_workspace_size scan the page headers; the reader then
 * opens again in exactly what reading one column at a time needs, and the
 * reads below run in that. */
static uint8_t *open_sized(upq_reader *r, upq_io *io, const upq_reader_opts *opts)
{
    size_t len = 64 * 1024;
    uint8_t *arena = malloc(len);
    upq_workspace ws;
    upq_status st;
    int tries;
    upq_reader_init(r, io, arena, len, opts);
    while ((st = upq_reader_open(r)) == UPQ_AGAIN)
        ;
    for (tries = 0; st == UPQ_ERR_NOMEM && tries < 16; tries++) { /* the footer needs more */
        len = upq_arena_needed(&r->arena);
        arena = realloc(arena, len);
        upq_reader_init(r, io, arena, len, opts);
        while ((st = upq_reader_open(r)) == UPQ_AGAIN)
            ;
    }
    if (st != UPQ_OK)
        goto fail;
    upq_workspace_init(&ws);
    while ((st = upq_reader_workspace_size(r, &ws)) == UPQ_AGAIN)
        ;
    if (st != UPQ_OK)
        goto fail;
    printf("arena: footer %zu bytes, one column at a time %zu, a row group at once %zu\n",
           ws.footer, ws.sequential, ws.concurrent);
    len = ws.sequential;
    free(arena);
    arena = malloc(len);
    upq_reader_init(r, io, arena, len, opts);
    while ((st = upq_reader_open(r)) == UPQ_AGAIN)
        ;
    if (st == UPQ_OK)
        return arena;
fail:
    printf("open: %s\n", upq_strerror(st));
    free(arena);
    return NULL;
}

static void read_corpus(const char *dir)
{
    char path[4096];
    FILE *f;
    upq_io io = {0};
    upq_reader r;
    upq_decrypt_opts keys = { get_key, NULL, NULL, 0, 0 };
    upq_reader_opts opts;
    column_values cv = { 0 };
    uint8_t *arena;
    size_t i;
    int bad;

    snprintf(path, sizeof path, "%s/data/encrypt_columns_and_footer.parquet.encrypted", dir);
    f = fopen(path, "rb");
    check(f != NULL, "corpus file opens", 0, 0);
    if (!f)
        return;
    fseek(f, 0, SEEK_END);
    upq_io_init(&io, f, file_read_at, (uint64_t)ftell(f));
    memset(&opts, 0, sizeof opts);
    opts.decrypt = &keys;
    arena = open_sized(&r, &io, &opts);
    check(arena != NULL, "encrypted corpus file: footer decrypted, arena sized", 0, 0);
    if (arena) {
        const upq_schema *s = upq_reader_schema(&r);
        uint32_t ci = upq_schema_find_column(s, "int32_field", 11);
        uint32_t cd = upq_schema_find_column(s, "double_field", 12);
        uint32_t cb = upq_schema_find_column(s, "boolean_field", 13);
        check(upq_reader_metadata(&r)->num_rows == 50, "corpus file: 50 rows",
              (long long)upq_reader_metadata(&r)->num_rows, 50);
        check(read_column(&r, ci, UPQ_TYPE_INT32, &cv) == UPQ_OK && cv.n == 50, "int32_field read",
              (long long)cv.n, 50);
        for (i = 0, bad = 0; i < cv.n; i++)
            bad += cv.i32[i] != (int32_t)i;
        check(!bad, "int32_field: row i holds i", bad, 0);
        check(read_column(&r, cd, UPQ_TYPE_DOUBLE, &cv) == UPQ_OK && cv.n == 50, "double_field read",
              (long long)cv.n, 50);
        for (i = 0, bad = 0; i < cv.n; i++)
            bad += cv.f64[i] != (double)i * 1.1111111;
        check(!bad, "double_field: row i holds i * 1.1111111", bad, 0);
        check(read_column(&r, cb, UPQ_TYPE_BOOLEAN, &cv) == UPQ_OK && cv.n == 50, "boolean_field read",
              (long long)cv.n, 50);
        for (i = 0, bad = 0; i < cv.n; i++)
            bad += cv.b[i] != (i % 2 == 0);
        check(!bad, "boolean_field: row i holds i % 2 == 0", bad, 0);
    }
    free(arena);
    fclose(f);
}

/* ---- docs/reading.md's snippets, as they stand there, over the written file ---- */

static void *my_ctx;           /* the snippets' names for the file, its size and callback */
static uint64_t file_size;
static long long readme_values, readme_nulls, values_n, fetched_rows, fetched_ids, fetched_nulls;
static double readme_sum, fetched_sum;

static upq_status my_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    return file_read_at(ctx, off, buf, len, got);
}

static void do_other_work(void)
{
}

static void handle(const upq_event *ev)
{
    readme_values += ev->type == UPQ_EV_VALUE;
    readme_nulls += ev->type == UPQ_EV_NULL;
}

static void store(int32_t id, int null, double value)
{
    fetched_rows++;
    fetched_ids += id;
    fetched_nulls += null;
    fetched_sum += value;
}

static void consume(const uint16_t *def, size_t levels, const double *v, size_t n)
{
    size_t i;
    (void)def;
    (void)levels;
    for (i = 0; i < n; i++)
        readme_sum += v[i];
    values_n += (long long)n;
}

static void readme_reading(FILE *f, uint64_t size)
{
    my_ctx = f;
    file_size = size;
    static uint8_t arena[64 * 1024];            /* all the memory µparquet will use */
    upq_io io = { .ctx = my_ctx, .read_at = my_read_at, .size = file_size }; /* .lend: NULL */
    upq_reader r;
    upq_reader_init(&r, &io, arena, sizeof arena, NULL);
    upq_status st;
    while ((st = upq_reader_open(&r)) == UPQ_AGAIN)
        do_other_work();                         /* the read callback said "would block" */
    if (st == UPQ_ERR_NOMEM)
        printf("need %zu bytes\n", upq_arena_needed(&r.arena));
    const upq_file_metadata *m = upq_reader_metadata(&r);
    upq_rows rows;
    upq_event ev;
    upq_rows_open(&rows, &r, 0 /* row group */, NULL /* all fields */, 0, 256 /* batch */);
    while ((st = upq_rows_next(&rows)) != UPQ_DONE && st >= 0) {
        if (st == UPQ_AGAIN)
            continue;                             /* or do other work first */
        while ((st = upq_rows_event(&rows, &ev)) != UPQ_DONE && st >= 0)
            if (st == UPQ_OK)
                handle(&ev);                      /* VALUE, NULL, BEGIN_/END_ STRUCT, LIST, MAP */
        if (st < 0)
            break;                                /* upq_reader_error(&r) says where */
    }
    upq_rows_close(&rows);
    struct reading { int32_t id; double value; uint8_t value_null; } out[16];
    upq_row_binding bind[2] = {
        { 0 /* leaf column */, offsetof(struct reading, id), UPQ_NONE /* no null flag */ },
        { 1, offsetof(struct reading, value), offsetof(struct reading, value_null) },
    };
    size_t got, i;
    upq_rows_open(&rows, &r, 0 /* row group */, NULL /* all fields */, 0, 256 /* batch */);
    upq_rows_bind(&rows, bind, 2);                /* every field a top-level column */
    while ((st = upq_rows_fetch(&rows, out, sizeof out[0], 16, &got)) == UPQ_OK || st == UPQ_AGAIN)
        for (i = 0; i < got; i++)                 /* UPQ_AGAIN: got is 0 */
            store(out[i].id, out[i].value_null, out[i].value);
    upq_rows_close(&rows);                        /* st: UPQ_DONE, or an error */
    check(st == UPQ_DONE && fetched_rows == 50 && fetched_ids == 1225 && fetched_nulls == 0 &&
          fetched_sum == 612.5, "readme: fetch: 50 rows of id 0..49 and reading id * 0.5",
          fetched_rows, 50);
    upq_column_reader c;
    uint16_t def[256];
    double v[256];
    upq_batch b = { def, NULL, v, 256, 0, 0 };
    upq_column_open(&c, &r, 0 /* row group */, 1 /* leaf column: a DOUBLE */);
    while ((st = upq_column_read(&c, &b)) == UPQ_OK || st == UPQ_AGAIN)
        consume(def, b.levels, v, b.values_n);
    upq_column_close(&c);                         /* st: UPQ_DONE, or an error */
    upq_bloom_reader bf;
    double key = 21.0;
    int maybe = 1;
    if (upq_bloom_open(&bf, &r, 0 /* row group */, 1 /* leaf column */) == UPQ_OK) {
        while ((st = upq_bloom_load(&bf)) == UPQ_AGAIN)
            do_other_work();
        if (st == UPQ_OK)
            upq_bloom_might_contain(&bf, &key, &maybe);   /* maybe == 0: skip the row group */
        upq_bloom_close(&bf);
    }                                                 /* UPQ_DONE from open: no filter */
    check(st == UPQ_OK, "readme: the bloom filter of \"reading\" loaded", st, UPQ_OK);
    check(maybe == 1, "readme: 21.0 may be in \"reading\" (it is: row 42)", maybe, 1);
    key = 1000.5;
    if (upq_bloom_open(&bf, &r, 0, 1) == UPQ_OK) {
        while ((st = upq_bloom_load(&bf)) == UPQ_AGAIN)
            do_other_work();
        upq_bloom_might_contain(&bf, &key, &maybe);
        upq_bloom_close(&bf);
    }
    printf("readme: bloom filter says %d for 1000.5 (absent; 1 would be a false positive)\n", maybe);
    upq_column_stats cs;
    upq_stat_value limit = { 0 };
    int cmp, skip = 0;
    limit.kind = UPQ_STAT_FLOAT;
    limit.v.d = 30.0;                              /* WHERE reading > 30 */
    if (upq_reader_column_stats(&r, 0 /* row group */, 1 /* leaf column */, &cs) == UPQ_OK &&
        cs.has_max && upq_stat_cmp(&cs.max, &limit, &cmp) && cmp <= 0)
        skip = 1;                                  /* no value above 30: skip the row group */
    check(skip == 1, "readme: statistics: no \"reading\" above 30", skip, 1);
    check(cs.has_min && cs.min.v.d == 0.0 && cs.max.v.d == 24.5,
          "readme: statistics: \"reading\" within [0, 24.5]", (long long)(cs.max.v.d * 10), 245);
    upq_value lo = { 0 };
    lo.d = 20.0;
    upq_pred_node where[1] = { { UPQ_PRED_GT, 1 /* leaf column */, 1, &lo } };
    upq_pred p = { where, 1, 0 };                  /* WHERE reading > 20 */
    const char *what;
    uint32_t bad;
    upq_scan sc;
    long matched = 0;
    if (upq_pred_check(upq_reader_schema(&r), &p, &what, &bad) == UPQ_OK &&
        upq_scan_open(&sc, &r, &p, 0 /* row group */, NULL, 0, 0, 0, UINT64_MAX, 0, 0) == UPQ_OK) {
        while ((st = upq_scan_next(&sc)) == UPQ_OK || st == UPQ_AGAIN)
            if (st == UPQ_OK)                      /* a matching row: upq_rows_event(upq_scan_rows(&sc), ...) */
                matched++;
        upq_scan_close(&sc);                       /* st: UPQ_DONE, or an error */
    }
    check(matched == 9, "readme: scan: 9 rows with \"reading\" above 20", matched, 9);
    upq_pred_node nodes[8];
    upq_value vals[8];
    upq_pred_builder pb;
    upq_pred cond;
    upq_pred_begin(&pb, upq_reader_schema(&r), nodes, 8, vals, 8, NULL, 0);
    upq_pred_decimal(&pb, 1 /* reading */, UPQ_PRED_GT, "20", 2);    /* reading > 20 */
    upq_pred_int(&pb, 0 /* id */, UPQ_PRED_LT, 1000);                /* AND id < 1000 */
    upq_pred_and(&pb);
    if (upq_pred_end(&pb, &cond) != UPQ_OK)
        printf("condition: %s\n", pb.what);        /* and pb.node: where */
    uint32_t cols[2] = { 0, 1 };                   /* leaf columns, as everywhere */
    upq_scan_opts so = { 0 };                      /* every default is 0 */
    so.where = &cond;
    so.columns = cols;
    so.num_columns = 2;
    size_t hits = 0;
    if (upq_scan_begin(&sc, &r, &so) == UPQ_OK && upq_scan_bind(&sc, bind, 2) == UPQ_OK) {
        while ((st = upq_scan_fetch(&sc, out, sizeof out[0], 16, &got)) == UPQ_OK || st == UPQ_AGAIN)
            hits += got;                           /* out[0..got): every row group's matches */
        upq_scan_close(&sc);                       /* st: UPQ_DONE, or an error */
    }
    check(hits == 9, "readme: one scan of the file, rows bound: 9 with \"reading\" above 20",
          (long long)hits, 9);
    check(m->num_rows == 50, "readme: open, 50 rows", (long long)m->num_rows, 50);
    check(readme_values == 150 && readme_nulls == 0, "readme: rows: 150 VALUE events, no NULL",
          readme_values, 150);
    check(values_n == 50 && readme_sum == 612.5, "readme: column \"reading\" sums to 612.5",
          values_n, 50);
}

static void readme_variant(void)
{
    /* {"temp": 21} as a Variant: metadata holding the one key (sorted, 1-byte
     * offsets), and an object of one field whose value is an INT8 */
    static const uint8_t meta[] = { 0x11, 0x01, 0x00, 0x04, 't', 'e', 'm', 'p' };
    static const uint8_t value[] = { 0x02, 0x01, 0x00, 0x00, 0x02, 0x0c, 0x15 };
    size_t meta_len = sizeof meta, value_len = sizeof value;
    int64_t temp = -1;
    upq_variant_meta m;
    if (upq_variant_meta_parse(&m, meta, meta_len) == UPQ_OK &&
        upq_variant_validate(&m, value, value_len) == UPQ_OK) {  /* every offset, id, key order */
        upq_variant v = { value, value_len }, field;
        if (upq_variant_find(&m, v, "temp", 4, &field) == UPQ_OK) { /* binary search by key */
            upq_variant_item it;
            if (upq_variant_item_read(field.p, field.len, &it) == UPQ_OK)
                temp = it.i;                                       /* it.type says: it.i, it.d, ... */
        }
    }
    /* rows: upq_variant_asm_feed() takes the record events of a VARIANT group and
       gives its metadata and value; upq_variant_shred() + upq_variant_shred_write()
       write one into the group's columns (typed_value included) */
    check(temp == 21, "readme: Variant {\"temp\": 21} read", (long long)temp, 21);
}

/* ---- writing: the sink's write and sync callbacks over a stdio file -------- */

static upq_status file_write(void *ctx, const void *buf, size_t len, size_t *written)
{
    *written = fwrite(buf, 1, len, ctx);   /* a short count is fine: the rest comes next call */
    return *written ? UPQ_OK : UPQ_ERR_IO;
}

static upq_status file_sync(void *ctx)
{
    return fflush(ctx) == 0 ? UPQ_OK : UPQ_ERR_IO; /* and fsync(fileno(ctx)) for durability */
}

static const char *names[] = { "alpha", "beta", "gamma" };

/* 50 rows (id i, reading i * 0.5, name alpha/beta/gamma in turn) into f. */
static upq_status write_rows(FILE *f)
{
    upq_schema_element elems[4];
    upq_schema_builder sb;
    upq_logical_type str;
    upq_writer_opts o;
    upq_column_opts cols[3];
    upq_writer w;
    upq_sink sink;
    upq_status st;
    size_t need = 0;
    uint32_t n = 0;
    void *arena;
    int32_t i;

    /* appends (write) and sync; checkpoint mode needs write_at and read_at instead */
    upq_sink_init(&sink, f, file_write, NULL, NULL, file_sync, NULL, NULL);

    upq_lt_string(&str);
    upq_sb_init(&sb, elems, 4, "schema");
    upq_sb_column(&sb, "id", UPQ_REP_REQUIRED, UPQ_TYPE_INT32, 0, NULL);
    upq_sb_column(&sb, "reading", UPQ_REP_REQUIRED, UPQ_TYPE_DOUBLE, 0, NULL);
    upq_sb_column(&sb, "name", UPQ_REP_REQUIRED, UPQ_TYPE_BYTE_ARRAY, 0, &str);
    st = upq_sb_finish(&sb, &n);

    memset(&o, 0, sizeof o);                  /* zeros are the defaults */
    o.codec = UPQ_CODEC_SNAPPY;
    o.page_size = 1024;
    memset(cols, 0, sizeof cols);
    for (i = 0; i < 3; i++) {
        cols[i].encoding = -1;                /* the type's default, and a dictionary */
        cols[i].dictionary = -1;
    }
    cols[1].bloom = 1;                        /* a bloom filter of "reading", sized for */
    cols[1].bloom_ndv = 64;                   /* 64 distinct values at 1% false positives */
    o.columns = cols;
    o.ncolumns = 3;
    if (st == UPQ_OK)                         /* the exact arena for this schema and options */
        st = upq_writer_workspace_size(elems, n, &o, 1 /* row groups held for the footer */, &need);
    if (st != UPQ_OK || (arena = malloc(need)) == NULL)  /* or a static buffer of that size */
        return st != UPQ_OK ? st : UPQ_ERR_NOMEM;
    printf("writer arena: %zu bytes\n", need);
    st = upq_writer_init(&w, &sink, elems, n, arena, need, &o);
    for (i = 0; st == UPQ_OK && i < 50; i++) {
        double d = i * 0.5;
        upq_bytes name = { (const uint8_t *)names[i % 3], (uint32_t)strlen(names[i % 3]) };
        upq_writer_set(&w, 0, &i);            /* values are copied */
        upq_writer_set(&w, 1, &d);
        upq_writer_set(&w, 2, &name);
        while ((st = upq_writer_end_row(&w)) == UPQ_AGAIN)
            ;                                 /* the sink said "would block": call again */
    }
    while (st == UPQ_OK && (st = upq_writer_close(&w)) == UPQ_AGAIN)
        ;                                     /* last row group, page indexes, footer, sync */
    free(arena);
    return st;
}

static void write_file(const char *out)
{
    FILE *f = fopen(out, "wb");
    upq_status st;

    check(f != NULL, "output file opens", 0, 0);
    if (!f)
        return;
    st = write_rows(f);
    check(st == UPQ_OK, "file written", st, UPQ_OK);
    fclose(f);

    /* read it back */
    f = fopen(out, "rb");
    if (f) {
        upq_io io = {0};
        upq_reader r;
        column_values cv = { 0 };
        uint8_t *ra;
        int bad;
        size_t k;
        fseek(f, 0, SEEK_END);
        io.ctx = f;
        io.read_at = file_read_at;
        io.size = (uint64_t)ftell(f);
        ra = open_sized(&r, &io, NULL);
        check(ra != NULL && upq_reader_metadata(&r)->num_rows == 50, "written file: 50 rows", 0, 0);
        if (ra) {
            check(read_column(&r, 0, UPQ_TYPE_INT32, &cv) == UPQ_OK && cv.n == 50, "id read back",
                  (long long)cv.n, 50);
            for (k = 0, bad = 0; k < cv.n; k++)
                bad += cv.i32[k] != (int32_t)k;
            check(!bad, "id: row i holds i", bad, 0);
            check(read_column(&r, 1, UPQ_TYPE_DOUBLE, &cv) == UPQ_OK && cv.n == 50, "reading read back",
                  (long long)cv.n, 50);
            for (k = 0, bad = 0; k < cv.n; k++)
                bad += cv.f64[k] != (double)k * 0.5;
            check(!bad, "reading: row i holds i * 0.5", bad, 0);
            check(read_column(&r, 2, UPQ_TYPE_BYTE_ARRAY, &cv) == UPQ_OK && cv.n == 50, "name read back",
                  (long long)cv.n, 50);
            for (k = 0, bad = 0; k < cv.n; k++)
                bad += strcmp(cv.text[k], names[k % 3]) != 0;
            check(!bad, "name: row i holds alpha, beta, gamma in turn", bad, 0);
        }
        free(ra);
        fseek(f, 0, SEEK_END);
        readme_reading(f, (uint64_t)ftell(f));
        fclose(f);
    }
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: consumer CORPUS_DIR OUT.parquet\n");
        return 2;
    }
    printf("uparquet %d.%d.%d, encryption %s\n", UPQ_VERSION_MAJOR, UPQ_VERSION_MINOR,
           UPQ_VERSION_PATCH, UPQ_WITH_CRYPTO ? "on" : "off");
    check(UPQ_WITH_CRYPTO == 1, "the library's options came with its headers (encryption on)",
          UPQ_WITH_CRYPTO, 1);
    read_corpus(argv[1]);
    write_file(argv[2]);
    readme_variant();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
