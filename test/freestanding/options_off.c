/*
 * A build with UPQ_WITH_CRYPTO, UPQ_WITH_BLOOM, UPQ_WITH_VARIANT,
 * UPQ_WITH_PAGE_INDEX, UPQ_WITH_DATA_PAGE_V2, UPQ_WITH_STATISTICS and
 * UPQ_WITH_DIRECT, UPQ_WITH_RG_BYTES and UPQ_WITH_SORTING off (the -min sets
 * of make size, on the host): encryption, bloom filters, room for a page
 * index, DATA_PAGE_V2, statistics' bound length, direct mode,
 * row_group_bytes, sorting columns and (of the schema builder) a VARIANT
 * group asked of such a build at run time give UPQ_ERR_UNSUPPORTED, and
 * what it can still do works (a plaintext-footer file's unencrypted columns;
 * a file written without page index and statistics, read back).
 *
 *   options_off PARQUET_TESTING_DIR
 *
 * The encrypted files are parquet-testing's (data/README.md: double_field and
 * float_field encrypted with their own keys, the other columns plaintext in
 * encrypt_columns_plaintext_footer).
 */
#include <stdio.h>
#include <string.h>

#include "uparquet/uparquet.h"
#include "uparquet/column.h"
#include "uparquet/writer.h"
#include "uparquet/posix.h"

#if UPQ_WITH_CRYPTO || UPQ_WITH_BLOOM || UPQ_WITH_VARIANT || UPQ_WITH_PAGE_INDEX || \
    UPQ_WITH_DATA_PAGE_V2 || UPQ_WITH_STATISTICS || UPQ_WITH_DIRECT || UPQ_WITH_RG_BYTES || \
    UPQ_WITH_SORTING
#error "options_off is built with the -min sets' options off"
#endif

static unsigned passed, failed;

static void check(int ok, const char *what, int got)
{
    if (ok) {
        passed++;
        printf("ok %s\n", what);
    } else {
        failed++;
        printf("FAIL %s (got status %d)\n", what, got);
    }
}

static uint64_t arena[1 << 15];
static upq_reader r;
static upq_column_reader col;

static upq_status open_file(upq_posix_file *f, const char *dir, const char *name)
{
    char path[1024];
    upq_io io;
    upq_status st;
    snprintf(path, sizeof path, "%s/data/%s", dir, name);
    st = upq_posix_open(f, path);
    if (st != UPQ_OK) {
        printf("cannot open %s\n", path);
        return st;
    }
    upq_posix_io(f, &io);
    upq_reader_init(&r, &io, arena, sizeof arena, (const upq_reader_opts *)0);
    return upq_reader_open(&r);
}

static void reading(const char *dir)
{
    upq_posix_file f;
    upq_status st = open_file(&f, dir, "encrypt_columns_and_footer.parquet.encrypted");
    uint32_t c, n, enc = 0, plain = 0;
    check(st == UPQ_ERR_UNSUPPORTED, "encrypted footer (PARE): UPQ_ERR_UNSUPPORTED", st);
    upq_posix_close(&f);

    st = open_file(&f, dir, "encrypt_columns_plaintext_footer.parquet.encrypted");
    check(st == UPQ_OK, "plaintext footer of an encrypted file opens (legacy reading)", st);
    if (st != UPQ_OK) {
        upq_posix_close(&f);
        return;
    }
    n = upq_reader_schema(&r)->num_columns;
    for (c = 0; c < n; c++) {
        const upq_column_chunk *ch = upq_reader_chunk(&r, 0, c);
        int encrypted = ch && UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_CRYPTO_METADATA);
        st = upq_column_open(&col, &r, 0, c);
        if (encrypted) {
            enc++;
            check(st == UPQ_ERR_UNSUPPORTED, "encrypted column chunk: UPQ_ERR_UNSUPPORTED", st);
        } else {
            plain++;
            check(st == UPQ_OK, "plaintext column chunk of that file opens", st);
        }
        upq_column_close(&col);
    }
    /* the file's two encrypted columns are still seen as such */
    check(enc == 2 && plain == n - 2, "crypto_metadata seen on exactly the two encrypted columns",
          (int)enc);
    upq_posix_close(&f);
}

static upq_status dummy_random(void *ctx, uint8_t *buf, size_t len)
{
    (void)ctx;
    memset(buf, 7, len);
    return UPQ_OK;
}

static void writing(void)
{
    static const uint8_t key[16] = { 1 };
    upq_schema_element el[2];
    upq_schema_builder b;
    upq_writer_opts o;
    upq_encrypt_opts e;
    upq_column_opts co;
    uint32_t n = 0;
    size_t need = 0;
    upq_status st;
    upq_sb_init(&b, el, 2, "m");
    upq_sb_column(&b, "x", UPQ_REP_REQUIRED, UPQ_TYPE_INT32, 0, (const upq_logical_type *)0);
    upq_sb_finish(&b, &n);

    memset(&o, 0, sizeof o);
    st = upq_writer_workspace_size(el, n, &o, 4, &need);
    check(st == UPQ_OK && need > 0, "a plain writer is planned", st);

    memset(&e, 0, sizeof e);
    e.footer_key = key;
    e.footer_key_len = sizeof key;
    e.random = dummy_random;
    o.encrypt = &e;
    st = upq_writer_workspace_size(el, n, &o, 4, &need);
    check(st == UPQ_ERR_UNSUPPORTED, "encryption asked of the writer: UPQ_ERR_UNSUPPORTED", st);

    memset(&o, 0, sizeof o);
    memset(&co, 0, sizeof co);
    co.encoding = -1;
    co.dictionary = -1;
    co.bloom = 1;
    o.columns = &co;
    o.ncolumns = 1;
    st = upq_writer_workspace_size(el, n, &o, 4, &need);
    check(st == UPQ_ERR_UNSUPPORTED, "a bloom filter asked of the writer: UPQ_ERR_UNSUPPORTED", st);

    memset(&o, 0, sizeof o);
    o.stats_max_binary = 16;
    st = upq_writer_workspace_size(el, n, &o, 4, &need);
    check(st == UPQ_ERR_UNSUPPORTED,
          "statistics' bound length asked of the writer: UPQ_ERR_UNSUPPORTED", st);
    o.no_statistics = 1;
    st = upq_writer_workspace_size(el, n, &o, 4, &need);
    check(st == UPQ_OK, "stats_max_binary with no_statistics is accepted", st);

    memset(&o, 0, sizeof o);
    o.data_page_v2 = 1;
    st = upq_writer_workspace_size(el, n, &o, 4, &need);
    check(st == UPQ_ERR_UNSUPPORTED, "DATA_PAGE_V2 asked of the writer: UPQ_ERR_UNSUPPORTED", st);

    memset(&o, 0, sizeof o);
    o.direct = 1;
    st = upq_writer_workspace_size(el, n, &o, 4, &need);
    check(st == UPQ_ERR_UNSUPPORTED, "direct mode asked of the writer: UPQ_ERR_UNSUPPORTED", st);

    memset(&o, 0, sizeof o);
    o.row_group_bytes = 1u << 20;
    st = upq_writer_workspace_size(el, n, &o, 4, &need);
    check(st == UPQ_ERR_UNSUPPORTED,
          "row groups ended by their bytes asked of the writer: UPQ_ERR_UNSUPPORTED", st);
    o.row_group_bytes = 0;
    o.row_group_rows = 1000;
    st = upq_writer_workspace_size(el, n, &o, 4, &need);
    check(st == UPQ_OK, "row groups ended by their rows are planned", st);

    memset(&o, 0, sizeof o);
    {
        upq_sorting_column sc;
        memset(&sc, 0, sizeof sc);
        sc.isset = 0xEu; /* column_idx, descending, nulls_first */
        o.sorting = &sc;
        o.nsorting = 1;
        st = upq_writer_workspace_size(el, n, &o, 4, &need);
        check(st == UPQ_ERR_UNSUPPORTED, "sorting columns asked of the writer: UPQ_ERR_UNSUPPORTED",
              st);
    }

    {
        /* a VARIANT group: refused by the schema builder, which then keeps
         * its status; a LIST group still builds */
        upq_schema_element ev[6];
        upq_logical_type lt;
        memset(&lt, 0, sizeof lt);
        lt.isset = 1u << UPQ_LOGICAL_TYPE_VARIANT;
        upq_sb_init(&b, ev, 6, "m");
        st = upq_sb_group(&b, "v", UPQ_REP_OPTIONAL, &lt);
        check(st == UPQ_ERR_UNSUPPORTED, "a VARIANT group asked of the builder: UPQ_ERR_UNSUPPORTED",
              st);
        st = upq_sb_finish(&b, &n);
        check(st == UPQ_ERR_UNSUPPORTED, "the builder keeps the VARIANT group's status", st);
        memset(&lt, 0, sizeof lt);
        lt.isset = 1u << UPQ_LOGICAL_TYPE_LIST;
        upq_sb_init(&b, ev, 6, "m");
        upq_sb_group(&b, "l", UPQ_REP_OPTIONAL, &lt);
        upq_sb_group(&b, "list", UPQ_REP_REPEATED, (const upq_logical_type *)0);
        upq_sb_column(&b, "element", UPQ_REP_OPTIONAL, UPQ_TYPE_INT32, 0,
                      (const upq_logical_type *)0);
        upq_sb_end(&b);
        upq_sb_end(&b);
        st = upq_sb_finish(&b, &n);
        check(st == UPQ_OK && n == 4, "a LIST group builds", st);
    }
}

/* ---- a file in memory ---- */

static uint8_t file[1 << 16];
static size_t file_len;

static upq_status mem_write(void *ctx, const void *buf, size_t len, size_t *written)
{
    (void)ctx;
    if (len > sizeof file - file_len)
        return UPQ_ERR_IO;
    memcpy(file + file_len, buf, len);
    file_len += len;
    *written = len;
    return UPQ_OK;
}

static upq_status mem_read(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    (void)ctx;
    if (off > file_len)
        return UPQ_ERR_IO;
    if (len > file_len - off)
        len = file_len - (size_t)off;
    memcpy(buf, file + off, len);
    *got = len;
    return UPQ_OK;
}

/* Checkpoint mode writes at offsets (column chunks fill reserved regions). */
static upq_status mem_write_at(void *ctx, uint64_t off, const void *buf, size_t len,
                               size_t *written)
{
    (void)ctx;
    if (off > sizeof file || len > sizeof file - off)
        return UPQ_ERR_IO;
    memcpy(file + off, buf, len);
    if (off + len > file_len)
        file_len = (size_t)(off + len);
    *written = len;
    return UPQ_OK;
}

/* Without UPQ_WITH_PAGE_INDEX and UPQ_WITH_STATISTICS: room for a page index
 * is refused; by default the file has neither (like no_page_index and
 * no_statistics) and reads back, and checkpoints still work. */
static void page_index(void)
{
    static uint64_t warena[1 << 13];
    static upq_writer w;
    upq_schema_element el[2];
    upq_schema_builder b;
    upq_writer_opts o;
    upq_sink sink;
    upq_io io;
    upq_batch bt;
    int32_t v, got[64];
    uint32_t n = 0, c, rg;
    size_t need = 0, total = 0;
    int indexed = 0, stats = 0;
    upq_status st;

    upq_sb_init(&b, el, 2, "m");
    upq_sb_column(&b, "x", UPQ_REP_REQUIRED, UPQ_TYPE_INT32, 0, (const upq_logical_type *)0);
    upq_sb_finish(&b, &n);
    memset(&o, 0, sizeof o);
    o.max_pages = 8;
    st = upq_writer_workspace_size(el, n, &o, 4, &need);
    check(st == UPQ_ERR_UNSUPPORTED,
          "room for a page index asked of the writer: UPQ_ERR_UNSUPPORTED", st);
    o.no_page_index = 1;
    st = upq_writer_workspace_size(el, n, &o, 4, &need);
    check(st == UPQ_OK, "max_pages with no_page_index is accepted", st);

    memset(&o, 0, sizeof o);
    o.page_size = 64;
    o.row_group_rows = 20;
    /* checkpoint mode where the build has it (size-options-off's first
     * build); writer-min as it is ships without it and writes buffered */
    o.checkpoint = UPQ_WITH_CHECKPOINT;
    memset(&sink, 0, sizeof sink);
    sink.write = mem_write;
    sink.write_at = mem_write_at;
    sink.read_at = mem_read;
    file_len = 0;
    st = upq_writer_init(&w, &sink, el, n, warena, sizeof warena, &o);
    check(st == UPQ_OK, "a default writer starts", st);
    if (st != UPQ_OK)
        return;
    for (v = 0; v < 50 && st == UPQ_OK; v++) {
        st = upq_writer_set(&w, 0, &v);
        if (st == UPQ_OK)
            st = upq_writer_end_row(&w);
    }
    if (st == UPQ_OK)
        st = upq_writer_close(&w);
    check(st == UPQ_OK, UPQ_WITH_CHECKPOINT ? "50 rows written in three row groups with checkpoints"
                                            : "50 rows written in three row groups, buffered", st);
    if (st != UPQ_OK)
        return;

    memset(&io, 0, sizeof io); /* lend (where built) NULL too */
    io.read_at = mem_read;
    io.size = file_len;
    upq_reader_init(&r, &io, arena, sizeof arena, (const upq_reader_opts *)0);
    st = upq_reader_open(&r);
    check(st == UPQ_OK, "the file opens", st);
    if (st != UPQ_OK)
        return;
    check(upq_reader_metadata(&r)->row_groups.n == 3, "three row groups",
          (int)upq_reader_metadata(&r)->row_groups.n);
    for (rg = 0; rg < upq_reader_metadata(&r)->row_groups.n; rg++) {
        const upq_column_chunk *ch = upq_reader_chunk(&r, rg, 0);
        if (!ch || UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_OFFSET_INDEX_OFFSET) ||
            UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_COLUMN_INDEX_OFFSET))
            indexed++;
        if (!ch || UPQ_ISSET(ch->meta_data, UPQ_COLUMN_METADATA_STATISTICS))
            stats++;
        st = upq_column_open(&col, &r, rg, 0);
        for (c = 0; st == UPQ_OK;) {
            memset(&bt, 0, sizeof bt);
            bt.values = got;
            bt.cap = 64;
            st = upq_column_read(&col, &bt);
            for (c = 0; c < bt.values_n; c++)
                if (got[c] != (int32_t)(total + c))
                    indexed += 100;
            total += bt.values_n;
            if (st == UPQ_OK && bt.levels == 0)
                break;
        }
        upq_column_close(&col);
    }
    check(indexed == 0 && total == 50, "no chunk has a page index, and the values read back",
          indexed);
    check(stats == 0, "no chunk has statistics", stats);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: options_off PARQUET_TESTING_DIR\n");
        return 2;
    }
    reading(argv[1]);
    writing();
    page_index();
    printf("%u passed, %u failed\n", passed, failed);
    return failed ? 1 : 0;
}
