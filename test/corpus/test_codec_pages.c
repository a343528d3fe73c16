/*
 * Every LZ4, LZ4_RAW, ZSTD and GZIP page of the corpus, decompressed by the
 * codec adapters alone (no column reader): each must give exactly its
 * uncompressed size (UPQ_ERR_UNSUPPORTED in a build without the package), and GZIP and ZSTD pages the same bytes as `gzip -dc`
 * and `zstd -dc` (a missing tool is a failure). Each page is also decoded
 * again cut one byte short, which must fail.
 *
 * Pages are found by walking each column chunk's page headers from its
 * first page over total_compressed_size bytes.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uparquet/uparquet.h"
#include "upq_codec.h"
#include "uparquet/posix.h"
#include "format/meta_desc.h"
#include "util/check.h"
#include "util/files.h"

#define META_ARENA (64u << 20)
#define WORK_ARENA (1u << 20)

/* Runs `cmd < FILE`, FILE holding in[0..n); its output, or NULL on failure. */
static uint8_t *run_tool(const char *cmd, const uint8_t *in, size_t n, size_t *out_n)
{
    char path[] = "/tmp/upq_pages_XXXXXX", line[256];
    uint8_t *out = NULL, chunk[65536];
    size_t cap = 0, got;
    FILE *f;
    int fd = mkstemp(path);
    *out_n = 0;
    if (fd < 0)
        return NULL;
    close(fd);
    f = fopen(path, "wb");
    if (!f || (n && fwrite(in, 1, n, f) != n) || fclose(f) != 0) {
        remove(path);
        return NULL;
    }
    snprintf(line, sizeof line, "%s < %s", cmd, path);
    f = popen(line, "r");
    if (f) {
        out = (uint8_t *)malloc(1);
        while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
            if (*out_n + got > cap) {
                cap = (*out_n + got) * 2;
                out = (uint8_t *)realloc(out, cap);
            }
            memcpy(out + *out_n, chunk, got);
            *out_n += got;
        }
        if (pclose(f) != 0) {
            free(out);
            out = NULL;
        }
    }
    remove(path);
    return out;
}

static const char *codec_tool(int32_t codec)
{
    switch (codec) {
    case UPQ_CODEC_GZIP: return "gzip -dc";
    case UPQ_CODEC_ZSTD: return "zstd -q -dc";
    default: return NULL;
    }
}

static uint8_t work_mem[WORK_ARENA] __attribute__((aligned(8)));

/* One compressed region of a page: decode it and compare. */
static void check_region(int32_t codec, const uint8_t *src, size_t n, size_t ulen,
                         const char *where)
{
    uint8_t *out = (uint8_t *)malloc(ulen + 1);
    const char *cmd = codec_tool(codec);
    upq_arena a;
    int st;

    upq_arena_init(&a, work_mem, sizeof work_mem);
    st = upq_decompress(codec, src, n, out, ulen, &a);
    if (!upq_codec_can_decompress(codec)) { /* its package was not fetched */
        TU_CHECK_STATUS(st, UPQ_ERR_UNSUPPORTED);
        free(out);
        return;
    }
    TU_CHECK_MSG(st == UPQ_OK, "%s: %s (%zu bytes to %zu)", where, upq_strerror(st), n, ulen);
    TU_CHECK_UINT(a.used, 0);
    if (st == UPQ_OK && cmd) {
        size_t tn;
        uint8_t *t = run_tool(cmd, src, n, &tn);
        if (TU_CHECK_MSG(t != NULL, "%s: `%s` failed or is not installed", where, cmd)) {
            TU_CHECK_MSG(tn == ulen && memcmp(t, out, ulen) == 0, "%s: differs from `%s`", where,
                         cmd);
            free(t);
        }
    }
    if (n > 1) {
        st = upq_decompress(codec, src, n - 1, out, ulen, &a);
        TU_CHECK_MSG(st == UPQ_ERR_CORRUPT, "%s: cut one byte short gave %s", where,
                     upq_strerror(st));
    }
    free(out);
}

/* Walks one column chunk; returns the number of compressed pages seen. */
static unsigned walk_chunk(const uint8_t *file, size_t file_len, const upq_column_metadata *m,
                           upq_arena *a, const char *name, uint32_t rg, uint32_t col)
{
    int64_t start = m->data_page_offset, end;
    unsigned pages = 0;
    char where[512];

    if (UPQ_ISSET(*m, UPQ_COLUMN_METADATA_DICTIONARY_PAGE_OFFSET) &&
        m->dictionary_page_offset > 0 && m->dictionary_page_offset < start)
        start = m->dictionary_page_offset;
    end = start + m->total_compressed_size;
    if (!TU_CHECK_MSG(start >= 4 && end > start && (uint64_t)end <= file_len,
                      "%s rg %u col %u: chunk outside the file", name, rg, col))
        return 0;
    while (start < end) {
        upq_arena_mark mark = upq_arena_save(a);
        upq_page_header ph;
        size_t used = 0, clen, ulen, skip = 0;
        const uint8_t *body;
        int st = upq_thrift_decode(&upq_page_header_desc, &ph, a, file + start,
                                   (size_t)(end - start), &used, NULL);
        snprintf(where, sizeof where, "%s rg %u col %u page at %lld", name, rg, col,
                 (long long)start);
        if (!TU_CHECK_MSG(st == UPQ_OK, "%s: page header: %s", where, upq_strerror(st)))
            return pages;
        start += (int64_t)used;
        if (!TU_CHECK_MSG(ph.compressed_page_size >= 0 && ph.uncompressed_page_size >= 0 &&
                              ph.compressed_page_size <= end - start,
                          "%s: page sizes", where))
            return pages;
        body = file + start;
        clen = (size_t)ph.compressed_page_size;
        ulen = (size_t)ph.uncompressed_page_size;
        start += ph.compressed_page_size;
        if (ph.type == UPQ_PAGE_DATA_V2 &&
            UPQ_ISSET(ph, UPQ_PAGE_HEADER_DATA_PAGE_HEADER_V2)) {
            /* levels are stored uncompressed in front of the values */
            const upq_data_page_header_v2 *v2 = &ph.data_page_header_v2;
            skip = (size_t)v2->definition_levels_byte_length +
                   (size_t)v2->repetition_levels_byte_length;
            if (UPQ_ISSET(*v2, UPQ_DATA_PAGE_HEADER_V2_IS_COMPRESSED) && !v2->is_compressed) {
                upq_arena_rewind(a, mark);
                continue;
            }
        }
        upq_arena_rewind(a, mark);
        if (!TU_CHECK_MSG(skip <= clen && skip <= ulen, "%s: level lengths", where))
            return pages;
        check_region(m->codec, body + skip, clen - skip, ulen - skip, where);
        pages++;
    }
    return pages;
}

static void check_file(const char *path)
{
    const char *name = tu_basename(path);
    upq_posix_file pf;
    upq_io io = {0};
    upq_reader *r = (upq_reader *)calloc(1, sizeof *r);
    void *mem = malloc(META_ARENA);
    uint8_t *file = NULL;
    size_t file_len = 0;
    const upq_file_metadata *fm;
    uint32_t rg, c;
    int st;
    unsigned pages = 0, chunks = 0;

    if (upq_posix_open(&pf, path) != UPQ_OK || tu_read_file(path, &file, &file_len) != 0) {
        tu_case("codec pages: %s", name);
        TU_CHECK_MSG(0, "%s: cannot read", path);
        goto out;
    }
    upq_posix_io(&pf, &io);
    upq_reader_init(r, &io, mem, META_ARENA, NULL);
    while ((st = upq_reader_open(r)) == UPQ_AGAIN)
        ;
    if (st != UPQ_OK)
        goto out; /* not this test's concern: test_footer covers opening */
    fm = upq_reader_metadata(r);
    for (rg = 0; rg < fm->row_groups.n; rg++) {
        const upq_row_group *g = &fm->row_groups.v[rg];
        for (c = 0; c < g->columns.n; c++) {
            const upq_column_chunk *cc = &g->columns.v[c];
            const upq_column_metadata *m = &cc->meta_data;
            if (!UPQ_ISSET(*cc, UPQ_COLUMN_CHUNK_META_DATA) ||
                UPQ_ISSET(*cc, UPQ_COLUMN_CHUNK_CRYPTO_METADATA))
                continue;
            if (m->codec != UPQ_CODEC_LZ4 && m->codec != UPQ_CODEC_LZ4_RAW &&
                m->codec != UPQ_CODEC_ZSTD && m->codec != UPQ_CODEC_GZIP)
                continue;
            if (!chunks++)
                tu_case("codec pages: %s", name);
            pages += walk_chunk(file, file_len, m, &r->arena, name, rg, c);
        }
    }
    if (chunks)
        tu_note("%s: %u chunks, %u compressed pages", name, chunks, pages);
out:
    upq_posix_close(&pf);
    free(file);
    free(mem);
    free(r);
}

int main(void)
{
    tu_file_list list;
    size_t i;
    if (tu_list_corpus("data", TU_CORPUS_SKIP_PARE, &list) != 0) {
        tu_case("corpus");
        TU_CHECK_MSG(0, "cannot list %s/data", tu_corpus_dir());
        return tu_summary();
    }
    for (i = 0; i < list.n; i++)
        check_file(list.paths[i]);
    tu_file_list_free(&list);
    return tu_summary();
}
