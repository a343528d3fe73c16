/*
 * Codec adapters (lz4, zstd, gzip) and the dispatch in upq_codec.c.
 *
 * Independent truth comes from the Debian command-line tools: streams made
 * by `zstd`, `gzip` and `lz4` are decoded by the adapters, and what the
 * adapters compress is decoded by `gzip -dc` and `lz4 -dc` (and by lz4's
 * own block decoder). A missing tool is a failure, not a skip. zlib-wrapped
 * and raw deflate streams are built from gzip's output (same deflate data,
 * other wrapper), so they come from GNU gzip's encoder rather than zlib's.
 *
 * Every codec is also fed wrong lengths, every truncation and byte flips
 * (an error or, where the format has a checksum, the right bytes; never a
 * crash), and arenas one allocation short of its workspace (UPQ_ERR_NOMEM
 * with upq_arena_needed() naming exactly the workspace on top of what was
 * already in use).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "upq_codec.h"
#include "upq_simd.h"
#include "uparquet/meta.h"
#include "util/check.h"

#if UPQ_WITH_LZ4
#include "lz4.h"
#endif

/* ---- inputs ------------------------------------------------------------- */

typedef struct blob {
    uint8_t *p;
    size_t n;
} blob;

#define WITH_PACKAGE (UPQ_WITH_LZ4 || UPQ_WITH_ZSTD || UPQ_WITH_GZIP || UPQ_WITH_BROTLI)

enum { K_RANDOM, K_TEXT, K_ZEROS, K_COUNT };
#if WITH_PACKAGE
static const char *const kind_name[K_COUNT] = {"random", "text", "zeros"};
static const size_t sizes[] = {0, 1, 100, 4096, 65553, 300000};
#define NSIZES (sizeof sizes / sizeof *sizes)
#endif

static blob make_data(int kind, size_t n, uint32_t seed)
{
    static const char *const words[] = {"sensor-7;", "temp=21.5;", "hum=40;", "ok;",
                                        "2024-05-01T12:00:00Z;", "\n"};
    blob b;
    size_t i;
    b.p = (uint8_t *)malloc(n + 1);
    b.n = n;
    for (i = 0; i < n;) {
        seed = seed * 1103515245u + 12345u;
        if (kind == K_RANDOM) {
            b.p[i++] = (uint8_t)(seed >> 16);
        } else if (kind == K_ZEROS) {
            b.p[i++] = 0;
        } else {
            const char *w = words[(seed >> 16) % 6];
            while (*w && i < n)
                b.p[i++] = (uint8_t)*w++;
        }
    }
    return b;
}

#if WITH_PACKAGE
static blob cat(blob a, blob b)
{
    blob r;
    r.n = a.n + b.n;
    r.p = (uint8_t *)malloc(r.n + 1);
    if (a.n)
        memcpy(r.p, a.p, a.n);
    if (b.n)
        memcpy(r.p + a.n, b.p, b.n);
    return r;
}

/* ---- the command-line tools ------------------------------------------- */

/* Runs `cmd < FILE` (or `cmd FILE` when as_arg) through the shell, FILE
 * holding in[0..n), and returns its standard output; p == NULL when the
 * tool is missing or failed. */
static blob run_tool(const char *cmd, const uint8_t *in, size_t n, int as_arg)
{
    char path[] = "/tmp/upq_codec_XXXXXX", line[512];
    blob out = {NULL, 0};
    size_t cap = 0, got;
    uint8_t chunk[65536];
    FILE *f;
    int fd = mkstemp(path);
    if (fd < 0)
        return out;
    close(fd);
    f = fopen(path, "wb");
    if (!f || (n && fwrite(in, 1, n, f) != n) || fclose(f) != 0) {
        remove(path);
        return out;
    }
    snprintf(line, sizeof line, as_arg ? "%s %s" : "%s < %s", cmd, path);
    f = popen(line, "r");
    if (!f) {
        remove(path);
        return out;
    }
    out.p = (uint8_t *)malloc(1);
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (out.n + got > cap) {
            cap = (out.n + got) * 2;
            out.p = (uint8_t *)realloc(out.p, cap);
        }
        memcpy(out.p + out.n, chunk, got);
        out.n += got;
    }
    if (pclose(f) != 0) {
        free(out.p);
        out.p = NULL;
        out.n = 0;
    }
    remove(path);
    return out;
}

/* Like run_tool, counting a missing or failing tool as a failed check. */
static int tool_run(blob *out, const char *cmd, const uint8_t *in, size_t n, int as_arg)
{
    *out = run_tool(cmd, in, n, as_arg);
    return TU_CHECK_MSG(out->p != NULL, "`%s` failed or is not installed", cmd);
}

static int tool(blob *out, const char *cmd, const uint8_t *in, size_t n)
{
    return tool_run(out, cmd, in, n, 0);
}

#endif /* WITH_PACKAGE */

/* ---- helpers ---------------------------------------------------------- */

/* room for brotli at its highest quality on the largest test page */
static uint8_t arena_mem[1u << 22] __attribute__((aligned(8)));

/* Decompresses through the dispatch with a roomy arena; checks the result. */
static int dec(int32_t codec, const blob *c, size_t dst_len, uint8_t *dst)
{
    upq_arena a;
    upq_arena_init(&a, arena_mem, sizeof arena_mem);
    return upq_decompress(codec, c->p, c->n, dst, dst_len, &a);
}

static void expect_decodes(int32_t codec, const blob *c, const blob *want)
{
    uint8_t *out = (uint8_t *)malloc(want->n + 1);
    TU_CHECK_STATUS(dec(codec, c, want->n, out), UPQ_OK);
    TU_CHECK_MEM(out, want->p, want->n);
    free(out);
}

#if WITH_PACKAGE
/* Wrong lengths, truncations and byte flips of a valid stream c of `want`.
 * `checked`: the format has a checksum, so a flip that still decodes must
 * give the right bytes. */
static void expect_robust(int32_t codec, const blob *c, const blob *want, int checked)
{
    size_t n = want->n, k, step, bad = 0, wrong = 0;
    uint8_t *out = (uint8_t *)malloc(n + 2);
    blob t = *c;

    TU_CHECK_STATUS(dec(codec, c, n + 1, out), UPQ_ERR_CORRUPT);
    if (n)
        TU_CHECK_STATUS(dec(codec, c, n - 1, out), UPQ_ERR_CORRUPT);
    /* every truncation for small streams, a spread of them for large ones */
    step = c->n < 4096 ? 1 : c->n / 509;
    for (k = 0; k < c->n; k += step) {
        t.n = k;
        if (dec(codec, &t, n, out) != UPQ_ERR_CORRUPT)
            bad++;
    }
    TU_CHECK_MSG(bad == 0, "%zu truncations of a %zu-byte stream were not UPQ_ERR_CORRUPT", bad,
                 c->n);
    /* flip each byte (a spread of them for large streams) */
    bad = 0;
    t.p = (uint8_t *)malloc(c->n + 1);
    t.n = c->n;
    memcpy(t.p, c->p, c->n);
    for (k = 0; k < c->n; k += step) {
        int st;
        t.p[k] ^= 0x5A;
        st = dec(codec, &t, n, out);
        if (st != UPQ_OK && st != UPQ_ERR_CORRUPT)
            bad++;
        if (checked && st == UPQ_OK && n && memcmp(out, want->p, n) != 0)
            wrong++;
        t.p[k] ^= 0x5A;
    }
    TU_CHECK_MSG(bad == 0, "%zu byte flips gave neither UPQ_OK nor UPQ_ERR_CORRUPT", bad);
    TU_CHECK_MSG(wrong == 0, "%zu byte flips decoded to wrong bytes despite the checksum", wrong);
    free(t.p);
    free(out);
}

/* The arena tells exactly what decompression needs: an arena with `used`
 * bytes taken and room for one allocation less than the workspace fails
 * with UPQ_ERR_NOMEM naming used + workspace; with the workspace it works
 * and its peak is exactly that. */
static void expect_decompress_arena(int32_t codec, const blob *c, const blob *want)
{
    size_t ws = upq_decompress_workspace(codec), used = 24;
    uint8_t *out = (uint8_t *)malloc(want->n + 1);
    upq_arena a;

    TU_CHECK(ws % 8 == 0 && ws > 8);
    upq_arena_init(&a, arena_mem, used + ws - 8);
    TU_CHECK(upq_arena_alloc(&a, used) != NULL);
    TU_CHECK_STATUS(upq_decompress(codec, c->p, c->n, out, want->n, &a), UPQ_ERR_NOMEM);
    TU_CHECK_UINT(upq_arena_needed(&a), used + ws);
    TU_CHECK_UINT(a.used, used);

    upq_arena_init(&a, arena_mem, used + ws);
    TU_CHECK(upq_arena_alloc(&a, used) != NULL);
    TU_CHECK_STATUS(upq_decompress(codec, c->p, c->n, out, want->n, &a), UPQ_OK);
    TU_CHECK_MEM(out, want->p, want->n);
    TU_CHECK_UINT(upq_arena_high_water(&a), used + ws);
    TU_CHECK_UINT(a.used, used); /* released before returning */
    free(out);
}

#endif /* WITH_PACKAGE */

/* Compresses through the dispatch with exactly the advertised workspace and
 * bound, checking the arena accounting on the way. */
static int comp(int32_t codec, const blob *in, blob *out)
{
    size_t ws = upq_compress_workspace(codec), used = 16;
    size_t cap = upq_compress_bound(codec, in->n);
    upq_arena a;
    int st;

    out->p = (uint8_t *)malloc(cap + 1);
    out->n = 0;
    upq_arena_init(&a, arena_mem, sizeof arena_mem);
    if (cap)
        TU_CHECK_STATUS(upq_compress(codec, in->p, in->n, out->p, cap - 1, &out->n, &a),
                        UPQ_ERR_BUFFER);
    if (ws >= 8) {
        upq_arena_init(&a, arena_mem, used + ws - 8);
        TU_CHECK(upq_arena_alloc(&a, used) != NULL);
        TU_CHECK_STATUS(upq_compress(codec, in->p, in->n, out->p, cap, &out->n, &a),
                        UPQ_ERR_NOMEM);
        TU_CHECK_UINT(upq_arena_needed(&a), used + ws);
    }
    upq_arena_init(&a, arena_mem, used + ws);
    TU_CHECK(upq_arena_alloc(&a, used) != NULL);
    st = upq_compress(codec, in->p, in->n, out->p, cap, &out->n, &a);
    TU_CHECK_STATUS(st, UPQ_OK);
    TU_CHECK(out->n <= cap);
    TU_CHECK_UINT(upq_arena_high_water(&a), used + ws);
    TU_CHECK_UINT(a.used, used);
    return st;
}

/* ---- dispatch ----------------------------------------------------------- */

static void test_dispatch(void)
{
    static const int32_t unknown[] = {UPQ_CODEC_LZO, 8, -1, 1000};
    uint8_t buf[16] = "abcdefgh", out[16];
    blob in = {buf, 8}, c;
    size_t i, n = 99;
    upq_arena a;

    tu_case("dispatch: unknown codecs");
    upq_arena_init(&a, arena_mem, sizeof arena_mem);
    for (i = 0; i < sizeof unknown / sizeof *unknown; i++) {
        TU_CHECK_INT(upq_codec_can_decompress(unknown[i]), 0);
        TU_CHECK_STATUS(upq_decompress(unknown[i], buf, 8, out, 8, &a), UPQ_ERR_UNSUPPORTED);
        TU_CHECK_STATUS(upq_compress(unknown[i], buf, 8, out, 16, &n, &a), UPQ_ERR_UNSUPPORTED);
        TU_CHECK_UINT(upq_decompress_workspace(unknown[i]), 0);
        TU_CHECK_UINT(upq_compress_workspace(unknown[i]), 0);
        TU_CHECK_UINT(upq_compress_bound(unknown[i], 8), 0);
    }

    tu_case("dispatch: uncompressed");
    TU_CHECK_INT(upq_codec_can_decompress(UPQ_CODEC_UNCOMPRESSED), 1);
    TU_CHECK_UINT(upq_compress_bound(UPQ_CODEC_UNCOMPRESSED, 8), 8);
    TU_CHECK_UINT(upq_compress_workspace(UPQ_CODEC_UNCOMPRESSED), 0);
    TU_CHECK_UINT(upq_decompress_workspace(UPQ_CODEC_UNCOMPRESSED), 0);
    TU_CHECK_STATUS(comp(UPQ_CODEC_UNCOMPRESSED, &in, &c), UPQ_OK);
    TU_CHECK_UINT(c.n, 8);
    expect_decodes(UPQ_CODEC_UNCOMPRESSED, &c, &in);
    TU_CHECK_STATUS(dec(UPQ_CODEC_UNCOMPRESSED, &c, 7, out), UPQ_ERR_CORRUPT);
    free(c.p);

    tu_case("dispatch: snappy workspace and bound");
    TU_CHECK_UINT(upq_compress_workspace(UPQ_CODEC_SNAPPY), 8192);
    TU_CHECK_UINT(upq_decompress_workspace(UPQ_CODEC_SNAPPY), 0);
    {
        blob d = make_data(K_TEXT, 70000, 5);
        TU_CHECK_STATUS(comp(UPQ_CODEC_SNAPPY, &d, &c), UPQ_OK);
        expect_decodes(UPQ_CODEC_SNAPPY, &c, &d);
        free(c.p);
        free(d.p);
    }

    tu_case("dispatch: codecs in this build");
    TU_CHECK_INT(upq_codec_can_decompress(UPQ_CODEC_LZ4), UPQ_WITH_LZ4);
    TU_CHECK_INT(upq_codec_can_decompress(UPQ_CODEC_LZ4_RAW), UPQ_WITH_LZ4);
    TU_CHECK_INT(upq_codec_can_decompress(UPQ_CODEC_ZSTD), UPQ_WITH_ZSTD);
    TU_CHECK_INT(upq_codec_can_decompress(UPQ_CODEC_GZIP), UPQ_WITH_GZIP);
    TU_CHECK_INT(upq_codec_can_decompress(UPQ_CODEC_BROTLI), UPQ_WITH_BROTLI);
    {
        /* a codec whose package was not fetched is reported, not attempted */
        static const struct {
            int32_t codec;
            int with;
        } pk[] = {{UPQ_CODEC_LZ4, UPQ_WITH_LZ4},
                  {UPQ_CODEC_LZ4_RAW, UPQ_WITH_LZ4},
                  {UPQ_CODEC_ZSTD, UPQ_WITH_ZSTD},
                  {UPQ_CODEC_GZIP, UPQ_WITH_GZIP},
                  {UPQ_CODEC_BROTLI, UPQ_WITH_BROTLI}};
        for (i = 0; i < sizeof pk / sizeof *pk; i++) {
            if (pk[i].with)
                continue;
            tu_note("codec %d is not in this build (run `make deps`)", (int)pk[i].codec);
            TU_CHECK_STATUS(upq_decompress(pk[i].codec, buf, 8, out, 8, &a), UPQ_ERR_UNSUPPORTED);
            TU_CHECK_STATUS(upq_compress(pk[i].codec, buf, 8, out, 16, &n, &a),
                            UPQ_ERR_UNSUPPORTED);
            TU_CHECK_UINT(upq_decompress_workspace(pk[i].codec), 0);
            TU_CHECK_UINT(upq_compress_bound(pk[i].codec, 8), 0);
        }
    }
}

/* ---- zstd --------------------------------------------------------------- */

#if UPQ_WITH_ZSTD
static void test_zstd(void)
{
    size_t s;
    int k;
    blob c, d;

    tu_case("zstd: workspace");
    TU_CHECK(upq_decompress_workspace(UPQ_CODEC_ZSTD) == upq_zstd_workspace());
    tu_note("zstd decompress workspace: %zu bytes", upq_zstd_workspace());
    TU_CHECK_STATUS(upq_compress(UPQ_CODEC_ZSTD, (const uint8_t *)"ab", 2, (uint8_t *)arena_mem,
                                 64, &s, NULL),
                    UPQ_ERR_UNSUPPORTED);
    TU_CHECK_UINT(upq_compress_bound(UPQ_CODEC_ZSTD, 100), 0);
    TU_CHECK_UINT(upq_compress_workspace(UPQ_CODEC_ZSTD), 0);

    for (k = 0; k < K_COUNT; k++)
        for (s = 0; s < NSIZES; s++) {
            d = make_data(k, sizes[s], (uint32_t)(s * 7 + (size_t)k));
            /* from a pipe zstd cannot know the size (no content size in the
             * header); from a file it writes it */
            tu_case("zstd: `zstd -c` output, %s, %zu bytes (size unknown)", kind_name[k], d.n);
            if (tool(&c, "zstd -q -c", d.p, d.n)) {
                expect_decodes(UPQ_CODEC_ZSTD, &c, &d);
                if (d.n <= 65553)
                    expect_robust(UPQ_CODEC_ZSTD, &c, &d, 1);
                if (k == K_TEXT && d.n == 65553)
                    expect_decompress_arena(UPQ_CODEC_ZSTD, &c, &d);
                free(c.p);
            }
            tu_case("zstd: `zstd -19` output, %s, %zu bytes (size in header)", kind_name[k], d.n);
            if (tool_run(&c, "zstd -q -19 -c", d.p, d.n, 1)) {
                expect_decodes(UPQ_CODEC_ZSTD, &c, &d);
                if (d.n <= 4096)
                    expect_robust(UPQ_CODEC_ZSTD, &c, &d, 1);
                free(c.p);
            }
            free(d.p);
        }

    tu_case("zstd: several frames and a skippable frame in one page");
    {
        blob a = make_data(K_TEXT, 5000, 1), b = make_data(K_RANDOM, 3000, 2), ca, cb;
        static const uint8_t skip[] = {0x50, 0x2A, 0x4D, 0x18, 3, 0, 0, 0, 'x', 'y', 'z'};
        blob sk = {(uint8_t *)skip, sizeof skip};
        if (tool(&ca, "zstd -q -c", a.p, a.n) && tool(&cb, "zstd -q --no-check -c", b.p, b.n)) {
            blob ab = cat(a, b), cab = cat(ca, cb), t = cat(ca, sk), cskb = cat(t, cb);
            expect_decodes(UPQ_CODEC_ZSTD, &cab, &ab);
            expect_decodes(UPQ_CODEC_ZSTD, &cskb, &ab);
            /* only the first frame's bytes, or a frame missing */
            TU_CHECK_STATUS(dec(UPQ_CODEC_ZSTD, &cab, a.n, ab.p), UPQ_ERR_CORRUPT);
            TU_CHECK_STATUS(dec(UPQ_CODEC_ZSTD, &ca, ab.n, ab.p), UPQ_ERR_CORRUPT);
            expect_robust(UPQ_CODEC_ZSTD, &cab, &ab, 0);
            free(ab.p);
            free(cab.p);
            free(t.p);
            free(cskb.p);
            free(ca.p);
            free(cb.p);
        }
        free(a.p);
        free(b.p);
    }

    tu_case("zstd: malformed input");
    {
        uint8_t out[64];
        static const uint8_t junk[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
        static const uint8_t magic_only[] = {0x28, 0xB5, 0x2F, 0xFD};
        blob j = {(uint8_t *)junk, sizeof junk}, m = {(uint8_t *)magic_only, 4}, e = {NULL, 0};
        TU_CHECK_STATUS(dec(UPQ_CODEC_ZSTD, &j, 12, out), UPQ_ERR_CORRUPT);
        TU_CHECK_STATUS(dec(UPQ_CODEC_ZSTD, &m, 0, out), UPQ_ERR_CORRUPT);
        TU_CHECK_STATUS(dec(UPQ_CODEC_ZSTD, &e, 0, out), UPQ_ERR_CORRUPT);
        TU_CHECK_STATUS(dec(UPQ_CODEC_ZSTD, &e, 0, NULL), UPQ_ERR_CORRUPT);
    }
}
#endif

/* ---- brotli ------------------------------------------------------------- */

#if UPQ_WITH_BROTLI
/* Decompresses c with an arena of `len` bytes, 24 of them taken first;
 * checks the arena is given back and returns the status. */
static int dec_in(const blob *c, size_t len, uint8_t *out, size_t n, upq_arena *a)
{
    int st;
    upq_arena_init(a, arena_mem, len);
    TU_CHECK(upq_arena_alloc(a, 24) != NULL);
    st = upq_decompress(UPQ_CODEC_BROTLI, c->p, c->n, out, n, a);
    TU_CHECK_UINT(a->used, 24);
    return st;
}

/* The need brotli reports is what it takes: starting from a 64-byte arena
 * and growing to what UPQ_ERR_NOMEM names each time reaches a decoding in a
 * few steps, each asking for more; the arena's peak is then within it. */
static void expect_brotli_grows(const blob *c, const blob *want)
{
    uint8_t *out = (uint8_t *)malloc(want->n + 1);
    size_t len = 64, steps = 0;
    upq_arena a;
    int st;
    while ((st = dec_in(c, len, out, want->n, &a)) == UPQ_ERR_NOMEM && steps < 32) {
        TU_CHECK(upq_arena_needed(&a) > len);
        if (upq_arena_needed(&a) <= len || upq_arena_needed(&a) > sizeof arena_mem)
            break;
        len = upq_arena_needed(&a);
        steps++;
    }
    TU_CHECK_STATUS(st, UPQ_OK);
    TU_CHECK_MEM(out, want->p, want->n);
    TU_CHECK(upq_arena_high_water(&a) <= len);
    tu_note("brotli, %zu-byte page: %zu arena bytes after %zu NOMEM steps (planned for one tree "
            "of each kind: %zu)", want->n, len, steps, 24 + upq_brotli_workspace(want->n));
    free(out);
}

static void test_brotli(void)
{
    size_t s;
    int k;
    blob c, d;

    tu_case("brotli: workspace figures");
    TU_CHECK(upq_decompress_workspace(UPQ_CODEC_BROTLI) == upq_brotli_workspace(65536));
    TU_CHECK(upq_decompress_page_workspace(UPQ_CODEC_BROTLI, 65536) == upq_brotli_workspace(65536));
    TU_CHECK(upq_brotli_workspace(1u << 20) > upq_brotli_workspace(1000));
    TU_CHECK(upq_brotli_workspace(1000) == upq_brotli_workspace(0)); /* the ring's least, 1 KiB */
    TU_CHECK(upq_brotli_workspace(1000) % 8 == 0);
    TU_CHECK(upq_brotli_max_workspace(1000) > (size_t)2700000);
    /* the ring stops at brotli's largest window, 16 MiB */
    TU_CHECK(upq_brotli_workspace((size_t)1 << 30) == upq_brotli_workspace((size_t)1 << 24));
    TU_CHECK(upq_decompress_page_workspace(UPQ_CODEC_SNAPPY, 1u << 20) == 0);
    tu_note("brotli workspace: %zu bytes for a 64 KiB page", upq_brotli_workspace(65536));
    TU_CHECK_STATUS(upq_compress(UPQ_CODEC_BROTLI, (const uint8_t *)"ab", 2, (uint8_t *)arena_mem,
                                 64, &s, NULL),
                    UPQ_ERR_UNSUPPORTED);
    TU_CHECK_UINT(upq_compress_bound(UPQ_CODEC_BROTLI, 100), 0);

    for (k = 0; k < K_COUNT; k++)
        for (s = 0; s < NSIZES; s++) {
            d = make_data(k, sizes[s], (uint32_t)(s * 11 + (size_t)k));
            tu_case("brotli: `brotli -c` (quality 11) output, %s, %zu bytes", kind_name[k], d.n);
            if (tool(&c, "brotli -c", d.p, d.n)) {
                expect_decodes(UPQ_CODEC_BROTLI, &c, &d);
                if (d.n <= 4096)
                    expect_robust(UPQ_CODEC_BROTLI, &c, &d, 0);
                if (k == K_TEXT && d.n >= 65553)
                    expect_brotli_grows(&c, &d);
                free(c.p);
            }
            tu_case("brotli: `brotli -q 1 -w 10` output, %s, %zu bytes", kind_name[k], d.n);
            if (tool(&c, "brotli -q 1 -w 10 -c", d.p, d.n)) {
                expect_decodes(UPQ_CODEC_BROTLI, &c, &d);
                if (d.n <= 65553)
                    expect_robust(UPQ_CODEC_BROTLI, &c, &d, 0);
                if (k != K_RANDOM && d.n >= 4096) {
                    /* one tree of each kind: the planned figure is enough */
                    uint8_t *out = (uint8_t *)malloc(d.n);
                    upq_arena a;
                    TU_CHECK_STATUS(dec_in(&c, 24 + upq_brotli_workspace(d.n), out, d.n, &a), UPQ_OK);
                    TU_CHECK_MEM(out, d.p, d.n);
                    free(out);
                }
                free(c.p);
            }
            free(d.p);
        }

    tu_case("brotli: malformed input and wrong lengths");
    {
        uint8_t out[64];
        static const uint8_t junk[] = {0xFF, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
        blob j = {(uint8_t *)junk, sizeof junk}, e = {NULL, 0};
        blob t = make_data(K_TEXT, 2000, 3), ct;
        TU_CHECK_STATUS(dec(UPQ_CODEC_BROTLI, &j, 12, out), UPQ_ERR_CORRUPT);
        TU_CHECK_STATUS(dec(UPQ_CODEC_BROTLI, &e, 0, out), UPQ_ERR_CORRUPT);
        TU_CHECK_STATUS(dec(UPQ_CODEC_BROTLI, &e, 0, NULL), UPQ_ERR_CORRUPT);
        if (tool(&ct, "brotli -c", t.p, t.n)) {
            uint8_t *big = (uint8_t *)malloc(t.n + 1);
            blob longer = {(uint8_t *)malloc(ct.n + 1), ct.n + 1};
            memcpy(longer.p, ct.p, ct.n);
            longer.p[ct.n] = 0; /* a byte past the end of the stream */
            TU_CHECK_STATUS(dec(UPQ_CODEC_BROTLI, &longer, t.n, big), UPQ_ERR_CORRUPT);
            TU_CHECK_STATUS(dec(UPQ_CODEC_BROTLI, &ct, t.n, big), UPQ_OK);
            /* a page that says it is shorter than the stream's output */
            TU_CHECK_STATUS(dec(UPQ_CODEC_BROTLI, &ct, 64, out), UPQ_ERR_CORRUPT);
            free(longer.p);
            free(big);
            free(ct.p);
        }
        free(t.p);
    }

    tu_case("brotli: an empty page, as brotli encodes nothing");
    {
        blob z = {(uint8_t *)"", 0}, cz;
        uint8_t none;
        if (tool(&cz, "brotli -c", z.p, 0)) {
            TU_CHECK(cz.n > 0);
            TU_CHECK_STATUS(dec(UPQ_CODEC_BROTLI, &cz, 0, NULL), UPQ_OK);
            TU_CHECK_STATUS(dec(UPQ_CODEC_BROTLI, &cz, 1, &none), UPQ_ERR_CORRUPT);
            free(cz.p);
        }
    }
}
#endif

/* ---- gzip --------------------------------------------------------------- */

#if UPQ_WITH_GZIP
static uint32_t adler32_of(const uint8_t *p, size_t n)
{
    uint32_t a = 1, b = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        a = (a + p[i]) % 65521u;
        b = (b + a) % 65521u;
    }
    return (b << 16) | a;
}

/* The deflate data inside a one-member gzip stream (RFC 1952 header). */
static int gzip_body(const blob *gz, blob *raw)
{
    size_t h = 10;
    uint8_t flg;
    if (gz->n < 18 || gz->p[0] != 0x1f || gz->p[1] != 0x8b || gz->p[2] != 8)
        return 0;
    flg = gz->p[3];
    if (flg & 4) /* FEXTRA */
        h += 2u + (size_t)(gz->p[h] | gz->p[h + 1] << 8);
    if (flg & 8) /* FNAME */
        while (h < gz->n && gz->p[h++])
            ;
    if (flg & 16) /* FCOMMENT */
        while (h < gz->n && gz->p[h++])
            ;
    if (flg & 2) /* FHCRC */
        h += 2;
    if (h + 8 > gz->n)
        return 0;
    raw->p = gz->p + h;
    raw->n = gz->n - h - 8;
    return 1;
}

/* The same deflate data in a zlib wrapper (RFC 1950). */
static blob zlib_wrap(const blob *raw, const blob *plain)
{
    blob z;
    uint32_t ad = adler32_of(plain->p, plain->n);
    z.n = raw->n + 6;
    z.p = (uint8_t *)malloc(z.n);
    z.p[0] = 0x78;
    z.p[1] = 0x9C;
    memcpy(z.p + 2, raw->p, raw->n);
    z.p[z.n - 4] = (uint8_t)(ad >> 24);
    z.p[z.n - 3] = (uint8_t)(ad >> 16);
    z.p[z.n - 2] = (uint8_t)(ad >> 8);
    z.p[z.n - 1] = (uint8_t)ad;
    return z;
}

static void test_gzip(void)
{
    size_t s;
    int k;
    blob c, d, back;

    tu_case("gzip: workspaces");
    TU_CHECK(upq_decompress_workspace(UPQ_CODEC_GZIP) == upq_gzip_decompress_workspace());
    TU_CHECK(upq_compress_workspace(UPQ_CODEC_GZIP) == upq_gzip_compress_workspace());
    tu_note("gzip decompress workspace: %zu bytes, compress workspace: %zu bytes",
            upq_gzip_decompress_workspace(), upq_gzip_compress_workspace());

    for (k = 0; k < K_COUNT; k++)
        for (s = 0; s < NSIZES; s++) {
            d = make_data(k, sizes[s], (uint32_t)(s * 11 + (size_t)k));
            tu_case("gzip: `gzip -c` output, %s, %zu bytes", kind_name[k], d.n);
            if (tool(&c, "gzip -c", d.p, d.n)) {
                blob raw, z;
                expect_decodes(UPQ_CODEC_GZIP, &c, &d);
                if (d.n <= 65553)
                    expect_robust(UPQ_CODEC_GZIP, &c, &d, 1);
                if (k == K_TEXT && d.n == 65553)
                    expect_decompress_arena(UPQ_CODEC_GZIP, &c, &d);
                tu_case("gzip: zlib-wrapped and raw deflate, %s, %zu bytes", kind_name[k], d.n);
                if (TU_CHECK(gzip_body(&c, &raw))) {
                    z = zlib_wrap(&raw, &d);
                    expect_decodes(UPQ_CODEC_GZIP, &z, &d);
                    if (d.n <= 4096)
                        expect_robust(UPQ_CODEC_GZIP, &z, &d, 1);
                    /* like Arrow: a gzip or zlib wrapper, never bare deflate */
                    if (raw.n)
                        TU_CHECK_STATUS(dec(UPQ_CODEC_GZIP, &raw, d.n, z.p), UPQ_ERR_CORRUPT);
                    free(z.p);
                }
                free(c.p);
            }
            tu_case("gzip: `gzip -9` output, %s, %zu bytes", kind_name[k], d.n);
            if (tool(&c, "gzip -9 -c", d.p, d.n)) {
                expect_decodes(UPQ_CODEC_GZIP, &c, &d);
                free(c.p);
            }
            tu_case("gzip: ours, read back by `gzip -dc`, %s, %zu bytes", kind_name[k], d.n);
            if (comp(UPQ_CODEC_GZIP, &d, &c) == UPQ_OK) {
                expect_decodes(UPQ_CODEC_GZIP, &c, &d);
                if (tool(&back, "gzip -dc", c.p, c.n)) {
                    TU_CHECK_UINT(back.n, d.n);
                    if (back.n == d.n)
                        TU_CHECK_MEM(back.p, d.p, d.n);
                    free(back.p);
                }
                if (k != K_RANDOM && d.n >= 4096)
                    TU_CHECK_MSG(c.n < d.n / 3, "%zu bytes compressed to %zu", d.n, c.n);
                if (k == K_RANDOM)
                    TU_CHECK(c.n <= upq_gzip_bound(d.n));
            }
            free(c.p);
            free(d.p);
        }

    tu_case("gzip: concatenated members");
    {
        blob a = make_data(K_TEXT, 7000, 3), b = make_data(K_RANDOM, 2000, 4);
        blob e = {(uint8_t *)"", 0};
        blob ga, gb, ge;
        if (tool(&ga, "gzip -c", a.p, a.n) && tool(&gb, "gzip -c", b.p, b.n) &&
            tool(&ge, "gzip -c", NULL, 0)) {
            blob ab = cat(a, b), gab = cat(ga, gb), t = cat(ga, ge), gaeb = cat(t, gb), raw;
            blob junk = cat(gab, ga), za, gza;
            expect_decodes(UPQ_CODEC_GZIP, &gab, &ab);
            expect_decodes(UPQ_CODEC_GZIP, &gaeb, &ab); /* an empty member between */
            expect_decodes(UPQ_CODEC_GZIP, &ge, &e);
            TU_CHECK_STATUS(dec(UPQ_CODEC_GZIP, &gab, a.n, ab.p), UPQ_ERR_CORRUPT);
            TU_CHECK_STATUS(dec(UPQ_CODEC_GZIP, &ga, ab.n, ab.p), UPQ_ERR_CORRUPT);
            /* trailing bytes that are not a member */
            junk.n = gab.n + 5;
            TU_CHECK_STATUS(dec(UPQ_CODEC_GZIP, &junk, ab.n, ab.p), UPQ_ERR_CORRUPT);
            memset(junk.p + gab.n, 0, 5);
            TU_CHECK_STATUS(dec(UPQ_CODEC_GZIP, &junk, ab.n, ab.p), UPQ_ERR_CORRUPT);
            /* a zlib stream after a gzip member */
            if (TU_CHECK(gzip_body(&gb, &raw))) {
                za = zlib_wrap(&raw, &b);
                gza = cat(ga, za);
                expect_decodes(UPQ_CODEC_GZIP, &gza, &ab);
                expect_robust(UPQ_CODEC_GZIP, &gza, &ab, 1);
                free(za.p);
                free(gza.p);
            }
            expect_robust(UPQ_CODEC_GZIP, &gab, &ab, 1);
            free(ab.p);
            free(gab.p);
            free(t.p);
            free(gaeb.p);
            free(junk.p);
        }
        free(ga.p);
        free(gb.p);
        free(ge.p);
        free(a.p);
        free(b.p);
    }

    tu_case("gzip: a member's CRC through a reader's kernel byte and without one");
    {
        /* 300,000 bytes: over the size from which a call without the
         * reader's byte asks the CPU for its CRC kernel (upq_gzip.c) */
        blob a = make_data(K_TEXT, 300000, 6), ga;
        if (tool(&ga, "gzip -c", a.p, a.n)) {
            static const uint8_t start[] = {0, UPQ_CRC32_K_TABLE};
            uint8_t *out = (uint8_t *)malloc(a.n);
            size_t i;
            int bad;
            for (bad = 0; bad < 2; bad++) {
                for (i = 0; i < sizeof start; i++) {
                    uint8_t k = start[i];
                    upq_arena ar;
                    upq_arena_init(&ar, arena_mem, sizeof arena_mem);
                    TU_CHECK_STATUS(upq_decompress_with(&k, UPQ_CODEC_GZIP, ga.p, ga.n, out, a.n, &ar),
                                    bad ? UPQ_ERR_CORRUPT : UPQ_OK);
                    if (!bad)
                        TU_CHECK_MEM(out, a.p, a.n);
                    /* the byte keeps a choice made; a first page makes one */
                    TU_CHECK(i ? k == UPQ_CRC32_K_TABLE : (k != 0) == UPQ_CRC32_X86);
                }
                TU_CHECK_STATUS(dec(UPQ_CODEC_GZIP, &ga, a.n, out), bad ? UPQ_ERR_CORRUPT : UPQ_OK);
                ga.p[ga.n - 8] ^= 0x10u; /* the trailer's CRC-32 */
            }
            free(out);
            free(ga.p);
        }
        free(a.p);
    }

    tu_case("gzip: every optional header field (FEXTRA, FNAME, FCOMMENT, FHCRC)");
    {
        blob a = make_data(K_TEXT, 5000, 5), ga, raw;
        if (tool(&ga, "gzip -c", a.p, a.n) && TU_CHECK(gzip_body(&ga, &raw))) {
            /* header 10 + extra 2+3 + name 4 + comment 3 + header CRC 2, then
             * the deflate data and the trailer of `gzip -c` */
            static const uint8_t fields[] = {3, 0, 'a', 'b', 'c', 'n', 'a', 'm', 0,
                                             'c', 'o', 0, 0x12, 0x34};
            size_t tail = raw.n + 8, k, hn = 10 + sizeof fields;
            uint8_t *out = (uint8_t *)malloc(a.n);
            blob h;
            h.n = hn + tail;
            h.p = (uint8_t *)malloc(h.n);
            memcpy(h.p, ga.p, 10);
            h.p[3] = 2 | 4 | 8 | 16;
            memcpy(h.p + 10, fields, sizeof fields);
            memcpy(h.p + hn, raw.p, tail);
            expect_decodes(UPQ_CODEC_GZIP, &h, &a);
            /* the header cut anywhere: corrupt, never a read past the end */
            for (k = 0; k < hn + 8; k++) {
                blob t = {h.p, k};
                TU_CHECK_STATUS(dec(UPQ_CODEC_GZIP, &t, a.n, out), UPQ_ERR_CORRUPT);
            }
            /* a name without its terminator runs to the end of the page */
            h.p[3] = 8;
            memset(h.p + 10, 'x', h.n - 10);
            TU_CHECK_STATUS(dec(UPQ_CODEC_GZIP, &h, a.n, out), UPQ_ERR_CORRUPT);
            /* a reserved flag bit */
            memcpy(h.p, ga.p, ga.n);
            h.n = ga.n;
            h.p[3] = 0x20;
            TU_CHECK_STATUS(dec(UPQ_CODEC_GZIP, &h, a.n, out), UPQ_ERR_CORRUPT);
            /* a wrong ISIZE with the right CRC */
            h.p[3] = ga.p[3];
            h.p[h.n - 1] ^= 1;
            TU_CHECK_STATUS(dec(UPQ_CODEC_GZIP, &h, a.n, out), UPQ_ERR_CORRUPT);
            free(out);
            free(h.p);
            free(ga.p);
        }
        free(a.p);
    }

    tu_case("gzip: malformed input");
    {
        uint8_t out[64];
        static const uint8_t junk[] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff, 0xff};
        static const uint8_t bad_method[] = {0x1f, 0x8b, 7, 0, 0, 0, 0, 0, 0, 3, 3, 0,
                                             0,    0,    0, 0, 0, 0, 0, 0};
        blob j = {(uint8_t *)junk, sizeof junk}, m = {(uint8_t *)bad_method, sizeof bad_method};
        blob e = {NULL, 0};
        TU_CHECK_STATUS(dec(UPQ_CODEC_GZIP, &j, 12, out), UPQ_ERR_CORRUPT);
        TU_CHECK_STATUS(dec(UPQ_CODEC_GZIP, &m, 0, out), UPQ_ERR_CORRUPT);
        TU_CHECK_STATUS(dec(UPQ_CODEC_GZIP, &e, 0, NULL), UPQ_ERR_CORRUPT);
    }
}
#endif

/* ---- lz4 ---------------------------------------------------------------- */

#if UPQ_WITH_LZ4
static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* lz4 frames with 4 MiB independent blocks and no checksums, so that the
 * frame is a header around bare blocks. */
#define LZ4_CLI "lz4 -q -c -B7 -BI --no-frame-crc"

/* The single compressed block of a frame the lz4 tool made; 0 when it
 * stored the data uncompressed (or the frame is not that shape). */
static int lz4_frame_block(const blob *f, blob *block)
{
    size_t h = 7, bs;
    if (f->n < 7 + 8 || le32(f->p) != 0x184D2204u)
        return 0;
    if (f->p[4] & 0x08) /* content size */
        h += 8;
    if (f->p[4] & 0x01) /* dictionary id */
        h += 4;
    bs = le32(f->p + h);
    if (bs & 0x80000000u || h + 4 + bs + 4 != f->n || le32(f->p + h + 4 + bs) != 0)
        return 0;
    block->p = f->p + h + 4;
    block->n = bs;
    return 1;
}

/* A Hadoop frame around a bare block. */
static blob hadoop_wrap(const blob *block, size_t ulen)
{
    blob h;
    h.n = block->n + 8;
    h.p = (uint8_t *)malloc(h.n);
    put_be32(h.p, (uint32_t)ulen);
    put_be32(h.p + 4, (uint32_t)block->n);
    memcpy(h.p + 8, block->p, block->n);
    return h;
}

static void test_lz4(void)
{
    size_t s;
    int k;
    blob c, d, f, block;

    tu_case("lz4: workspaces");
    TU_CHECK_UINT(upq_decompress_workspace(UPQ_CODEC_LZ4), 0);
    TU_CHECK_UINT(upq_decompress_workspace(UPQ_CODEC_LZ4_RAW), 0);
    TU_CHECK_UINT(upq_compress_workspace(UPQ_CODEC_LZ4_RAW), (size_t)LZ4_sizeofState());
    TU_CHECK_UINT(upq_compress_workspace(UPQ_CODEC_LZ4), (size_t)LZ4_sizeofState());
    tu_note("lz4 compress workspace (LZ4_MEMORY_USAGE %d): %zu bytes", LZ4_MEMORY_USAGE,
            upq_lz4_compress_workspace());
    {
        /* decoding takes no arena at all */
        blob one = make_data(K_TEXT, 1000, 9), cc;
        upq_arena a;
        uint8_t out[1000];
        if (comp(UPQ_CODEC_LZ4_RAW, &one, &cc) == UPQ_OK) {
            upq_arena_init(&a, NULL, 0);
            TU_CHECK_STATUS(upq_decompress(UPQ_CODEC_LZ4_RAW, cc.p, cc.n, out, 1000, &a), UPQ_OK);
            TU_CHECK_UINT(upq_arena_high_water(&a), 0);
        }
        free(cc.p);
        free(one.p);
    }
    for (k = 0; k < K_COUNT; k++)
        for (s = 0; s < NSIZES; s++) {
            d = make_data(k, sizes[s], (uint32_t)(s * 13 + (size_t)k));
            if (k != K_RANDOM && d.n >= 100) {
                tu_case("lz4: blocks from `lz4`, %s, %zu bytes", kind_name[k], d.n);
                if (tool(&f, LZ4_CLI, d.p, d.n)) {
                    if (TU_CHECK_MSG(lz4_frame_block(&f, &block),
                                     "lz4 frame is not one compressed block")) {
                        blob h = hadoop_wrap(&block, d.n);
                        expect_decodes(UPQ_CODEC_LZ4_RAW, &block, &d);
                        expect_decodes(UPQ_CODEC_LZ4, &h, &d);
                        expect_decodes(UPQ_CODEC_LZ4, &block, &d); /* not Hadoop: bare block */
                        if (d.n <= 65553) {
                            expect_robust(UPQ_CODEC_LZ4_RAW, &block, &d, 0);
                            expect_robust(UPQ_CODEC_LZ4, &h, &d, 0);
                        }
                        free(h.p);
                    }
                    free(f.p);
                }
            }
            tu_case("lz4: ours, read back by lz4's decoder and `lz4 -dc`, %s, %zu bytes",
                    kind_name[k], d.n);
            if (comp(UPQ_CODEC_LZ4_RAW, &d, &c) == UPQ_OK) {
                uint8_t *out = (uint8_t *)malloc(d.n + 1);
                TU_CHECK_INT(LZ4_decompress_safe((const char *)c.p, (char *)out, (int)c.n,
                                                 (int)d.n),
                             (int)d.n);
                TU_CHECK_MEM(out, d.p, d.n);
                expect_decodes(UPQ_CODEC_LZ4_RAW, &c, &d);
                /* the header lz4 writes for this input (its block size
                 * fits the input), then our block and the end mark */
                if (tool(&f, LZ4_CLI, d.p, d.n) &&
                    TU_CHECK(f.n >= 7 && le32(f.p) == 0x184D2204u && f.p[4] == 0x60)) {
                    blob fr, back;
                    fr.n = 7 + 4 + c.n + 4;
                    fr.p = (uint8_t *)malloc(fr.n);
                    memcpy(fr.p, f.p, 7);
                    fr.p[7] = (uint8_t)c.n;
                    fr.p[8] = (uint8_t)(c.n >> 8);
                    fr.p[9] = (uint8_t)(c.n >> 16);
                    fr.p[10] = (uint8_t)(c.n >> 24);
                    memcpy(fr.p + 11, c.p, c.n);
                    memset(fr.p + 11 + c.n, 0, 4);
                    if (tool(&back, "lz4 -q -dc", fr.p, fr.n)) {
                        TU_CHECK_UINT(back.n, d.n);
                        if (back.n == d.n)
                            TU_CHECK_MEM(back.p, d.p, d.n);
                        free(back.p);
                    }
                    free(fr.p);
                }
                free(f.p);
                if (k != K_RANDOM && d.n >= 4096)
                    TU_CHECK_MSG(c.n < d.n / 3, "%zu bytes compressed to %zu", d.n, c.n);
                free(out);
            }
            free(c.p);
            tu_case("lz4: ours in Hadoop frames, %s, %zu bytes", kind_name[k], d.n);
            if (comp(UPQ_CODEC_LZ4, &d, &c) == UPQ_OK) {
                size_t frames = 0, at = 0;
                expect_decodes(UPQ_CODEC_LZ4, &c, &d);
                /* frames of at most 64 KiB, each a block lz4 decodes */
                while (at + 8 <= c.n) {
                    uint32_t ul = (uint32_t)c.p[at] << 24 | (uint32_t)c.p[at + 1] << 16 |
                                  (uint32_t)c.p[at + 2] << 8 | c.p[at + 3];
                    uint32_t cl = (uint32_t)c.p[at + 4] << 24 | (uint32_t)c.p[at + 5] << 16 |
                                  (uint32_t)c.p[at + 6] << 8 | c.p[at + 7];
                    TU_CHECK(ul <= 65536);
                    at += 8 + cl;
                    frames++;
                }
                TU_CHECK_UINT(at, c.n);
                TU_CHECK_UINT(frames, d.n ? (d.n + 65535) / 65536 : 1);
                /* not for an empty page: its one-byte prefix is an empty
                 * bare block, which the fallback rightly accepts */
                if (d.n && d.n <= 4096)
                    expect_robust(UPQ_CODEC_LZ4, &c, &d, 0);
            }
            free(c.p);
            free(d.p);
        }

    tu_case("lz4: Hadoop frames that do not add up fall back to a bare block");
    {
        blob a = make_data(K_TEXT, 3000, 5), ca, h, bad;
        if (comp(UPQ_CODEC_LZ4_RAW, &a, &ca) == UPQ_OK) {
            uint8_t *out = (uint8_t *)malloc(a.n);
            h = hadoop_wrap(&ca, a.n);
            bad = hadoop_wrap(&ca, a.n - 1); /* claims one byte less */
            TU_CHECK_STATUS(dec(UPQ_CODEC_LZ4, &bad, a.n - 1, out), UPQ_ERR_CORRUPT);
            TU_CHECK_STATUS(dec(UPQ_CODEC_LZ4, &bad, a.n, out), UPQ_ERR_CORRUPT);
            TU_CHECK_STATUS(dec(UPQ_CODEC_LZ4, &h, a.n - 1, out), UPQ_ERR_CORRUPT);
            /* two frames in one page */
            {
                blob two = cat(h, h), aa = cat(a, a);
                expect_decodes(UPQ_CODEC_LZ4, &two, &aa);
                TU_CHECK_STATUS(dec(UPQ_CODEC_LZ4, &two, a.n, out), UPQ_ERR_CORRUPT);
                free(two.p);
                free(aa.p);
            }
            /* a bare block is not accepted as LZ4_RAW with a Hadoop prefix */
            TU_CHECK_STATUS(dec(UPQ_CODEC_LZ4_RAW, &h, a.n, out), UPQ_ERR_CORRUPT);
            free(out);
            free(h.p);
            free(bad.p);
        }
        free(ca.p);
        free(a.p);
    }

    tu_case("lz4: malformed input");
    {
        uint8_t out[64];
        static const uint8_t far_copy[] = {0x1F, 'a', 0xFF, 0x00, 0x00}; /* offset 255 */
        static const uint8_t zero_off[] = {0x1F, 'a', 0x00, 0x00, 0x00};
        static const uint8_t empty_block[] = {0x00};
        blob fc = {(uint8_t *)far_copy, sizeof far_copy}, zo = {(uint8_t *)zero_off, 5};
        blob eb = {(uint8_t *)empty_block, 1}, e = {NULL, 0};
        TU_CHECK_STATUS(dec(UPQ_CODEC_LZ4_RAW, &fc, 20, out), UPQ_ERR_CORRUPT);
        TU_CHECK_STATUS(dec(UPQ_CODEC_LZ4_RAW, &zo, 20, out), UPQ_ERR_CORRUPT);
        TU_CHECK_STATUS(dec(UPQ_CODEC_LZ4, &fc, 20, out), UPQ_ERR_CORRUPT);
        TU_CHECK_STATUS(dec(UPQ_CODEC_LZ4_RAW, &eb, 0, NULL), UPQ_OK);
        TU_CHECK_STATUS(dec(UPQ_CODEC_LZ4, &eb, 0, NULL), UPQ_OK);
        TU_CHECK_STATUS(dec(UPQ_CODEC_LZ4_RAW, &eb, 1, out), UPQ_ERR_CORRUPT);
        TU_CHECK_STATUS(dec(UPQ_CODEC_LZ4_RAW, &e, 0, NULL), UPQ_ERR_CORRUPT);
        TU_CHECK_STATUS(dec(UPQ_CODEC_LZ4, &e, 0, NULL), UPQ_ERR_CORRUPT);
    }
}
#endif

int main(void)
{
    test_dispatch();
#if UPQ_WITH_ZSTD
    test_zstd();
#endif
#if UPQ_WITH_GZIP
    test_gzip();
#endif
#if UPQ_WITH_BROTLI
    test_brotli();
#endif
#if UPQ_WITH_LZ4
    test_lz4();
#endif
    return tu_summary();
}
