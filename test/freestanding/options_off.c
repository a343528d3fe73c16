/*
 * A build with UPQ_WITH_CRYPTO, UPQ_WITH_BLOOM and UPQ_WITH_VARIANT off (the
 * -min sets of make size, on the host): encryption and bloom filters asked of
 * such a build at run time give UPQ_ERR_UNSUPPORTED, and what it can still do
 * works (a plaintext-footer file's unencrypted columns).
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
#include "posix/io_posix.h"

#if UPQ_WITH_CRYPTO || UPQ_WITH_BLOOM || UPQ_WITH_VARIANT
#error "options_off is built with the three options off"
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
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: options_off PARQUET_TESTING_DIR\n");
        return 2;
    }
    reading(argv[1]);
    writing();
    printf("%u passed, %u failed\n", passed, failed);
    return failed ? 1 : 0;
}
