/*
 * The CRC-32 port seam (UPQ_CRC32_PORT, upq_port.h) with a test double for a
 * board's CRC unit: built with core/common/crc32.c compiled with the seam on
 * (and each UPQ_CRC32_TABLE form: the table finishes what a unit leaves),
 * linked before the host library so that every checksum of the reader and
 * the writer goes through it (test/freestanding/size.mk, check-crc-port).
 *
 * The double computes each CRC bit by bit, as a CRC unit does, counts its
 * calls and bytes, and checks every result against the library's software
 * CRC (upq_crc32_update_scalar). Then:
 *   - the published check values through upq_crc32;
 *   - the corpus files whose pages carry CRCs (parquet-mr's) read whole:
 *     every page checked through the double, none failing, and the two
 *     files with a corrupt page refused with UPQ_ERR_CRC;
 *   - a file written with page CRCs, through the double, and read back
 *     through it with every page checked.
 *
 *   crc_port PARQUET_TESTING_DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uparquet/uparquet.h"
#include "uparquet/column.h"
#include "common/crc32.h"
#include "upq_kernels.h"
#include "upq_port.h"
#include "util/check.h"
#include "util/files.h"
#include "util/flaky_io.h"
#include "util/crc_ref.h" /* crc_bitwise: one bit at a time, as a CRC unit shifts them */
#include "unit/writer_util.h"

#if !UPQ_CRC32_PORT
#error "build with -DUPQ_CRC32_PORT=1"
#endif

static unsigned long calls, bytes, wrong;


uint32_t upq_port_crc32_update(uint32_t crc, const void *data, size_t len)
{
    uint32_t r = crc_bitwise(crc, (const uint8_t *)data, len);
    calls++;
    bytes += len;
    if (r != upq_crc32_update_scalar(crc, data, len))
        wrong++;
    return r;
}

static uint8_t arena[8u << 20];

/* Reads every column of every row group; returns the first failure. */
static upq_status read_all(const uint8_t *data, size_t len, unsigned long *pages)
{
    static uint16_t def[4096], rep[4096];
    static uint64_t vals[4096 * 2];
    tu_mem_src src;
    upq_io io;
    upq_reader r;
    upq_status st;
    tu_mem_src_init(&src, data, len);
    memset(&io, 0, sizeof io);
    io.ctx = &src;
    io.read_at = tu_mem_read_at;
    io.size = len;
    upq_reader_init(&r, &io, arena, sizeof arena, NULL);
    st = upq_reader_open(&r);
    if (st != UPQ_OK)
        return st;
    *pages = 0;
    for (uint32_t g = 0; g < upq_reader_num_row_groups(&r); g++)
        for (uint32_t c = 0; c < upq_reader_schema(&r)->num_columns; c++) {
            upq_column_reader col;
            st = upq_column_open(&col, &r, g, c);
            while (st == UPQ_OK) {
                upq_batch b = {def, rep, vals, 4096, 0, 0};
                st = upq_column_read(&col, &b);
            }
            *pages += (unsigned long)col.page_no + 1u;
            upq_column_close(&col);
            if (st != UPQ_DONE)
                return st;
        }
    return UPQ_OK;
}

static void corpus(const char *dir)
{
    static const struct {
        const char *name;
        upq_status want;
    } files[] = {
        {"datapage_v1-uncompressed-checksum.parquet", UPQ_OK},
        {"datapage_v1-snappy-compressed-checksum.parquet", UPQ_OK},
        {"plain-dict-uncompressed-checksum.parquet", UPQ_OK},
        {"rle-dict-snappy-checksum.parquet", UPQ_OK},
        {"datapage_v1-corrupt-checksum.parquet", UPQ_ERR_CRC},
        {"rle-dict-uncompressed-corrupt-checksum.parquet", UPQ_ERR_CRC},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[4096];
        uint8_t *data;
        size_t len;
        unsigned long pages = 0;
        upq_status st;
        tu_case("%s through the double", files[i].name);
        snprintf(path, sizeof path, "%s/data/%s", dir, files[i].name);
        if (!TU_CHECK_MSG(tu_read_file(path, &data, &len) == 0, "cannot read %s", path))
            continue;
        calls = bytes = wrong = 0;
        st = read_all(data, len, &pages);
        TU_CHECK_STATUS(st, files[i].want);
        TU_CHECK_UINT(wrong, 0);
        if (files[i].want == UPQ_OK) {
            /* the pages with a CRC (some writers leave dictionary pages
             * without) were checked through the double, once each */
            TU_CHECK(calls > 0 && calls <= pages);
        } else {
            TU_CHECK(calls > 0);
        }
        free(data);
    }
}

/* ---- writing ----------------------------------------------------------------- */

static void writing(void)
{
    static upq_schema_element elems[3];
    static int64_t v[20000];
    static uint16_t def[20000];
    upq_schema_builder b;
    upq_writer_opts o;
    upq_writer w;
    upq_sink sink;
    sink_buf ms;
    uint32_t n = 0;
    size_t need = 0, done;
    unsigned long pages = 0, wcalls;
    upq_status st;
    tu_case("a file written with page CRCs, read back");
    upq_sb_init(&b, elems, 3, "m");
    upq_sb_column(&b, "i", UPQ_REP_REQUIRED, UPQ_TYPE_INT64, 0, NULL);
    upq_sb_column(&b, "o", UPQ_REP_OPTIONAL, UPQ_TYPE_INT64, 0, NULL);
    if (!TU_CHECK_STATUS(upq_sb_finish(&b, &n), UPQ_OK))
        return;
    for (size_t i = 0; i < 20000; i++) {
        v[i] = (int64_t)(i * 2654435761u % 1000003u);
        def[i] = (uint16_t)(i % 7 != 0);
    }
    memset(&o, 0, sizeof o);
    o.page_size = 4096;
    sink_init(&ms, SINK_WHOLE, 1);
    sink = sink_of(&ms, 0);
    if (!TU_CHECK_STATUS(upq_writer_workspace_size(elems, n, &o, 4, &need), UPQ_OK) ||
        !TU_CHECK(need <= sizeof arena))
        return;
    calls = bytes = wrong = 0;
    st = upq_writer_init(&w, &sink, elems, n, arena, need, &o);
    if (!TU_CHECK_STATUS(st, UPQ_OK))
        return;
    /* 250 rows of each column in turn: within what a page's staging holds */
    for (size_t at = 0; at < 20000; at += 250) {
        TU_CHECK_STATUS(upq_writer_write_column(&w, 0, NULL, NULL, v + at, 250, &done), UPQ_OK);
        TU_CHECK_UINT(done, 250);
        TU_CHECK_STATUS(upq_writer_write_column(&w, 1, def + at, NULL, v, 250, &done), UPQ_OK);
        TU_CHECK_UINT(done, 250);
    }
    TU_CHECK_STATUS(upq_writer_close(&w), UPQ_OK);
    wcalls = calls;
    TU_CHECK_UINT(wrong, 0);
    calls = bytes = wrong = 0;
    TU_CHECK_STATUS(read_all(ms.p, ms.n, &pages), UPQ_OK);
    TU_CHECK_UINT(wrong, 0);
    /* the reader checked each page; the writer checksummed each page it
     * wrote, and the dictionary-encoded pages it gave up for PLAIN once the
     * values outgrew the dictionary */
    TU_CHECK(pages > 2);
    TU_CHECK_UINT(calls, pages);
    TU_CHECK(wcalls >= pages);
    sink_free(&ms);
}

int main(int argc, char **argv)
{
    tu_note("CRC-32 through the port seam, UPQ_CRC32_TABLE %d for what a unit leaves",
            UPQ_CRC32_TABLE);
    tu_case("published check values");
    calls = wrong = 0;
    TU_CHECK_UINT(upq_crc32("123456789", 9), 0xCBF43926u);
    TU_CHECK_UINT(upq_crc32("The quick brown fox jumps over the lazy dog", 43), 0x414FA339u);
    TU_CHECK_UINT(upq_crc32_update(upq_crc32("1234", 4), "56789", 5), 0xCBF43926u);
    TU_CHECK_UINT(calls, 4);
    tu_case("the software CRC at every length and alignment");
    {
        static uint8_t buf[1100];
        uint32_t x = 1;
        for (size_t i = 0; i < sizeof buf; i++) {
            x = x * 1664525u + 1013904223u;
            buf[i] = (uint8_t)(x >> 24);
        }
        for (size_t a = 0; a < 8; a++)
            for (size_t len = 0; len <= 1090; len += len < 80 ? 1 : 13)
                TU_CHECK_UINT(upq_crc32_update_scalar(0x5A5A5A5Au, buf + a, len),
                              crc_bitwise(0x5A5A5A5Au, buf + a, len));
    }
    corpus(argc > 1 ? argv[1] : tu_corpus_dir());
    writing();
    return tu_summary();
}
