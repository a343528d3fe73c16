/*
 * Stored forms (codecs/upq_stored.c): literal-only pages made without a
 * compressor, streamed one piece at a time.
 *
 * For every codec with a stored form and many lengths (the edges of LZ4's
 * length bytes, snappy's tag sizes, the 64 KiB frames and 65535-byte
 * deflate blocks, random ones), the form is built the way recovery builds
 * it: framing pieces from the cursor, the plain bytes copied through from
 * a "file" read in pieces of random size that never line up with the runs.
 * Its length must be upq_stored_size(), and it must decompress through
 * upq_decompress() (the adapters over the real lz4 and zlib packages, our
 * snappy decoder) to exactly the plain bytes, and to nothing else (one
 * byte more or less is refused). Independently of our adapters: lz4's
 * LZ4_decompress_safe() on every block, and GNU `gzip -dc` and `lz4 -dc`
 * on a selection of lengths (a missing tool is a failure). Small forms
 * are also compared byte for byte with hand-built ones from the formats'
 * descriptions.
 *
 * Then the edges of the API: every length 0..2100, the largest length each
 * codec takes (streamed without materialising it), codecs without a stored
 * form, a cursor copied mid-way, and GZIP ignoring the CRC argument until
 * the trailer.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "upq_codec.h"
#include "uparquet/meta.h"
#include "common/crc32.h"
#include "uparquet/arena.h"
#include "util/check.h"

#if UPQ_WITH_LZ4
#include "lz4.h"
#endif

typedef struct blob {
    uint8_t *p;
    size_t n;
} blob;

/* ---- random numbers (xorshift64*) ------------------------------------- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}

/* Uniform in [lo, hi]. */
static size_t rnd_in(size_t lo, size_t hi)
{
    return lo + (size_t)(rnd() % (uint64_t)(hi - lo + 1));
}

static blob make_plain(size_t n)
{
    blob b;
    size_t i;
    b.p = (uint8_t *)malloc(n + 1);
    b.n = n;
    /* mostly random, with stretches of one byte (0xFF too, the byte LZ4's
     * length extension uses) */
    for (i = 0; i < n;) {
        size_t run = rnd_in(1, 300), k;
        uint8_t fill = (uint8_t)rnd();
        int same = (rnd() & 3) == 0;
        for (k = 0; k < run && i < n; k++, i++)
            b.p[i] = same ? fill : (uint8_t)rnd();
    }
    return b;
}

static void append(blob *b, size_t *cap, const uint8_t *p, size_t n)
{
    if (b->n + n > *cap) {
        *cap = (b->n + n) * 2 + 64;
        b->p = (uint8_t *)realloc(b->p, *cap);
    }
    if (n)
        memcpy(b->p + b->n, p, n);
    b->n += n;
}

static const char *codec_name(int32_t codec)
{
    switch (codec) {
    case UPQ_CODEC_UNCOMPRESSED: return "UNCOMPRESSED";
    case UPQ_CODEC_SNAPPY: return "SNAPPY";
    case UPQ_CODEC_GZIP: return "GZIP";
    case UPQ_CODEC_LZ4: return "LZ4";
    case UPQ_CODEC_LZ4_RAW: return "LZ4_RAW";
    case UPQ_CODEC_ZSTD: return "ZSTD";
    default: return "other";
    }
}

/* The codecs that must have a stored form in this build: the ones it writes. */
static int want_stored(int32_t codec)
{
    switch (codec) {
    case UPQ_CODEC_UNCOMPRESSED: return 1;
    case UPQ_CODEC_SNAPPY: return UPQ_WITH_SNAPPY;
    case UPQ_CODEC_LZ4:
    case UPQ_CODEC_LZ4_RAW: return UPQ_WITH_LZ4;
    case UPQ_CODEC_GZIP: return UPQ_WITH_GZIP;
    default: return 0;
    }
}

static const int32_t codecs[] = {UPQ_CODEC_UNCOMPRESSED, UPQ_CODEC_SNAPPY, UPQ_CODEC_LZ4_RAW,
                                 UPQ_CODEC_LZ4, UPQ_CODEC_GZIP};
#define NCODECS (sizeof codecs / sizeof *codecs)

/* ---- building a form the way recovery does ------------------------------ */

enum { CRC_RIGHT, CRC_ONLY_AT_END };

typedef struct stream_opts {
    size_t read_max; /* plain bytes come from "file reads" of 1..read_max bytes */
    size_t copy_at;  /* at this call the cursor is saved as bytes and reloaded (0: never) */
    int crc_mode;
} stream_opts;

/*
 * Streams the stored form of plain[0..n) into *out. Checks the protocol as
 * it goes: at most UPQ_STORED_PIECE framing bytes a call and nothing written
 * past them, runs that never pass the end, progress on every call, and
 * nothing more once the form is complete. Returns 0 when it had to stop.
 */
static int stream(int32_t codec, const blob *plain, const stream_opts *o, blob *out)
{
    upq_stored st;
    size_t cap = 0, consumed = 0, calls = 0, have = 0, at = 0, read = 0;
    size_t limit = upq_stored_size(codec, plain->n) + 16;
    uint8_t *rbuf = (uint8_t *)malloc(o->read_max);
    uint32_t crc = 0;
    int ok = 1;

    out->p = NULL;
    out->n = 0;
    if (!TU_CHECK_STATUS(upq_stored_begin(&st, codec, plain->n), UPQ_OK)) {
        free(rbuf);
        return 0;
    }
    for (;;) {
        uint8_t frame[UPQ_STORED_PIECE + 8];
        size_t k, run = 12345;
        memset(frame, 0xA5, sizeof frame);
        if (o->copy_at && calls == o->copy_at) {
            unsigned char saved[sizeof st];
            memcpy(saved, &st, sizeof st);
            memset(&st, 0x5A, sizeof st);
            memcpy(&st, saved, sizeof st);
        }
        k = upq_stored_next(&st,
                            o->crc_mode == CRC_ONLY_AT_END && st.pos < plain->n ? 0xDEADBEEFu
                                                                                 : crc,
                            frame, &run);
        calls++;
        if (!TU_CHECK_MSG(k <= UPQ_STORED_PIECE, "piece of %zu framing bytes", k) ||
            !TU_CHECK_MSG(frame[UPQ_STORED_PIECE] == 0xA5 && frame[UPQ_STORED_PIECE + 7] == 0xA5,
                          "framing written past UPQ_STORED_PIECE")) {
            ok = 0;
            break;
        }
        if (k == 0 && run == 0)
            break;
        append(out, &cap, frame, k);
        if (!TU_CHECK_MSG(run <= plain->n - consumed, "run %zu with %zu plain bytes left", run,
                          plain->n - consumed) ||
            !TU_CHECK_MSG(out->n + run <= limit, "form passes upq_stored_size() = %zu",
                          limit - 16) ||
            !TU_CHECK_MSG(calls <= limit + 2, "no end after %zu calls", calls)) {
            ok = 0;
            break;
        }
        /* the run, from reads that do not line up with it */
        while (run) {
            size_t m;
            if (at == have) {
                size_t want = rnd_in(1, o->read_max);
                if (want > plain->n - read)
                    want = plain->n - read;
                memcpy(rbuf, plain->p + read, want);
                read += want;
                have = want;
                at = 0;
            }
            m = have - at < run ? have - at : run;
            append(out, &cap, rbuf + at, m);
            crc = upq_crc32_update(crc, rbuf + at, m);
            at += m;
            run -= m;
            consumed += m;
        }
        TU_CHECK_UINT(st.pos, consumed);
    }
    if (ok) {
        uint8_t frame[UPQ_STORED_PIECE];
        size_t run = 1;
        TU_CHECK_UINT(consumed, plain->n);
        /* done stays done */
        TU_CHECK_UINT(upq_stored_next(&st, crc, frame, &run), 0);
        TU_CHECK_UINT(run, 0);
        run = 1;
        TU_CHECK_UINT(upq_stored_next(&st, crc, frame, &run), 0);
        TU_CHECK_UINT(run, 0);
    }
    free(rbuf);
    return ok;
}

/* ---- checking a form -------------------------------------------------------- */

static uint8_t *arena_mem;
static size_t arena_len;

static upq_status decode(int32_t codec, const blob *c, uint8_t *dst, size_t dst_len)
{
    upq_arena a;
    upq_arena_init(&a, arena_mem, arena_len);
    return upq_decompress(codec, c->p, c->n, dst, dst_len, &a);
}

#if UPQ_WITH_LZ4
static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* lz4's own block decoder on a block of `want` bytes. */
static void lz4_block_check(const uint8_t *block, size_t len, const uint8_t *want, size_t n)
{
    uint8_t *out = (uint8_t *)malloc(n + 1);
    TU_CHECK_INT(LZ4_decompress_safe((const char *)block, (char *)out, (int)len, (int)n), (int)n);
    TU_CHECK_MEM(out, want, n);
    free(out);
}

/* Every frame of a Hadoop LZ4 form: at most 64 KiB of plain bytes, a block
 * lz4 decodes to them. */
static void hadoop_check(const blob *c, const blob *plain)
{
    size_t at = 0, out = 0, frames = 0;
    while (c->n - at >= 8) {
        uint32_t ul = be32(c->p + at), cl = be32(c->p + at + 4);
        at += 8;
        if (!TU_CHECK(cl <= c->n - at && ul <= plain->n - out && ul <= 65536))
            return;
        lz4_block_check(c->p + at, cl, plain->p + out, ul);
        at += cl;
        out += ul;
        frames++;
    }
    TU_CHECK_UINT(at, c->n);
    TU_CHECK_UINT(out, plain->n);
    TU_CHECK_UINT(frames, plain->n ? (plain->n + 65535) / 65536 : 1);
}
#endif

static void check_form(int32_t codec, const blob *c, const blob *plain)
{
    uint8_t *out = (uint8_t *)malloc(plain->n + 2);
    TU_CHECK_UINT(c->n, upq_stored_size(codec, plain->n));
    if (TU_CHECK_STATUS(decode(codec, c, out, plain->n), UPQ_OK))
        TU_CHECK_MEM(out, plain->p, plain->n);
    /* the lengths in the framing are read: one byte more or less is refused */
    TU_CHECK(decode(codec, c, out, plain->n + 1) != UPQ_OK);
    if (plain->n)
        TU_CHECK(decode(codec, c, out, plain->n - 1) != UPQ_OK);
    free(out);
#if UPQ_WITH_LZ4
    if (codec == UPQ_CODEC_LZ4_RAW)
        lz4_block_check(c->p, c->n, plain->p, plain->n);
    if (codec == UPQ_CODEC_LZ4)
        hadoop_check(c, plain);
#endif
}

/* ---- the command-line tools ------------------------------------------------ */

/* Runs `cmd < FILE`, FILE holding in[0..n), and returns its standard output;
 * p == NULL when the tool is missing or failed. */
static blob run_tool(const char *cmd, const uint8_t *in, size_t n)
{
    char path[] = "/tmp/upq_stored_XXXXXX", line[512];
    blob out = {NULL, 0};
    size_t cap = 0, got;
    static uint8_t chunk[65536];
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
    snprintf(line, sizeof line, "%s < %s", cmd, path);
    f = popen(line, "r");
    if (!f) {
        remove(path);
        return out;
    }
    out.p = (uint8_t *)malloc(1);
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
        append(&out, &cap, chunk, got);
    if (pclose(f) != 0) {
        free(out.p);
        out.p = NULL;
        out.n = 0;
    }
    remove(path);
    return out;
}

static void tool_check(const char *cmd, const blob *in, const blob *plain)
{
    blob back = run_tool(cmd, in->p, in->n);
    if (!TU_CHECK_MSG(back.p != NULL, "`%s` failed or is not installed", cmd))
        return;
    TU_CHECK_UINT(back.n, plain->n);
    if (back.n == plain->n)
        TU_CHECK_MEM(back.p, plain->p, plain->n);
    free(back.p);
}

#if UPQ_WITH_LZ4
static void le32_put(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* `lz4 -dc` on an LZ4 frame around the block: the frame header `lz4 -B7 -BI
 * --no-frame-crc` writes for inputs over 1 MiB (magic; FLG version 1,
 * independent blocks; BD 4 MiB blocks; its header checksum), the block as a
 * compressed block, the end mark. (For smaller inputs the tool announces
 * smaller blocks, which a stored block of 64 KiB and more outgrows.) */
static void lz4_tool_check(const blob *block, const blob *plain)
{
    static const uint8_t hdr[7] = {0x04, 0x22, 0x4D, 0x18, 0x60, 0x70, 0x73};
    blob fr;
    fr.n = 7 + 4 + block->n + 4;
    fr.p = (uint8_t *)malloc(fr.n);
    memcpy(fr.p, hdr, 7);
    le32_put(fr.p + 7, (uint32_t)block->n);
    memcpy(fr.p + 11, block->p, block->n);
    le32_put(fr.p + 11 + block->n, 0);
    tool_check("lz4 -q -dc", &fr, plain);
    free(fr.p);
}
#endif

/* ---- the tests ----------------------------------------------------------------- */

static const size_t lengths[] = {0,     1,     2,     14,     15,     16,     59,     60,
                                 61,    62,    254,   255,    256,    257,    269,    270,
                                 271,   524,   525,   1000,   65534,  65535,  65536,  65537,
                                 65551, 65552, 65793, 131070, 131071, 131072, 131073, 196605,
                                 196606, 200000};
#define NLENGTHS (sizeof lengths / sizeof *lengths)

static int tool_length(size_t n)
{
    return n == 0 || n == 1 || n == 15 || n == 270 || n == 65535 || n == 65536 || n == 131071 ||
           n == 200000;
}

static void test_lengths(int32_t codec, size_t n)
{
    static const size_t read_max[] = {7, 700, 100000};
    blob plain = make_plain(n), c[3];
    size_t i;
    tu_case("%s: %zu plain bytes", codec_name(codec), n);
    for (i = 0; i < 3; i++) {
        stream_opts o;
        o.read_max = read_max[i];
        o.copy_at = i == 1 ? rnd_in(1, 40) : 0;
        o.crc_mode = CRC_RIGHT;
        if (!stream(codec, &plain, &o, &c[i])) {
            free(c[i].p);
            while (i--)
                free(c[i].p);
            free(plain.p);
            return;
        }
    }
    check_form(codec, &c[0], &plain);
    /* the pieces of the plain bytes do not change the form */
    TU_CHECK_UINT(c[1].n, c[0].n);
    TU_CHECK_UINT(c[2].n, c[0].n);
    if (c[1].n == c[0].n)
        TU_CHECK_MEM(c[1].p, c[0].p, c[0].n);
    if (c[2].n == c[0].n)
        TU_CHECK_MEM(c[2].p, c[0].p, c[0].n);
    if (tool_length(n)) {
        if (codec == UPQ_CODEC_GZIP)
            tool_check("gzip -dc", &c[0], &plain);
#if UPQ_WITH_LZ4
        if (codec == UPQ_CODEC_LZ4_RAW)
            lz4_tool_check(&c[0], &plain);
#endif
    }
    for (i = 0; i < 3; i++)
        free(c[i].p);
    free(plain.p);
}

/* Every length 0..2100 with one way of reading: all the LZ4 length byte
 * and snappy tag changes in that range. */
static void test_every_length(int32_t codec)
{
    blob plain = make_plain(2100), c;
    size_t n, bad = 0;
    stream_opts o;
    tu_case("%s: every length 0..2100", codec_name(codec));
    o.read_max = 97;
    o.copy_at = 0;
    o.crc_mode = CRC_RIGHT;
    for (n = 0; n <= 2100 && bad < 5; n++) {
        blob p = {plain.p, n};
        unsigned long failed = tu_failed();
        if (stream(codec, &p, &o, &c))
            check_form(codec, &c, &p);
        free(c.p);
        if (tu_failed() != failed) {
            tu_note("first failure at %zu bytes", n);
            bad++;
        }
    }
    free(plain.p);
}

/* The whole form of plain[0..n), with one way of reading. */
static blob form(int32_t codec, const uint8_t *plain, size_t n)
{
    blob p = {(uint8_t *)plain, n}, c;
    stream_opts o = {5, 0, CRC_RIGHT};
    if (!stream(codec, &p, &o, &c)) {
        free(c.p);
        c.p = NULL;
        c.n = 0;
    }
    return c;
}

static void expect_form(int32_t codec, const uint8_t *plain, size_t n, const uint8_t *head,
                        size_t head_len, const uint8_t *trailer, size_t trailer_len)
{
    blob c = form(codec, plain, n);
    if (TU_CHECK_UINT(c.n, head_len + n + trailer_len) && c.n) {
        if (head_len)
            TU_CHECK_MEM(c.p, head, head_len);
        if (n)
            TU_CHECK_MEM(c.p + head_len, plain, n);
        if (trailer_len)
            TU_CHECK_MEM(c.p + head_len + n, trailer, trailer_len);
    }
    free(c.p);
}

/* Forms built by hand from the format descriptions. */
static void test_bytes(void)
{
    static uint8_t plain[70000];
    size_t i;
    for (i = 0; i < sizeof plain; i++)
        plain[i] = (uint8_t)(i * 7 + 3);

    tu_case("UNCOMPRESSED: the bytes themselves");
    expect_form(UPQ_CODEC_UNCOMPRESSED, plain, 0, NULL, 0, NULL, 0);
    expect_form(UPQ_CODEC_UNCOMPRESSED, plain, 1000, NULL, 0, NULL, 0);

#if UPQ_WITH_SNAPPY
    tu_case("SNAPPY: varint length, literal tags");
    {
        static const uint8_t e0[] = {0x00}, e1[] = {0x01, 0x00}, e60[] = {0x3C, 59 << 2},
                             e61[] = {0x3D, 60 << 2, 60}, e256[] = {0x80, 0x02, 60 << 2, 255},
                             e257[] = {0x81, 0x02, 61 << 2, 0x00, 0x01},
                             e65536[] = {0x80, 0x80, 0x04, 61 << 2, 0xFF, 0xFF};
        expect_form(UPQ_CODEC_SNAPPY, plain, 0, e0, 1, NULL, 0);
        expect_form(UPQ_CODEC_SNAPPY, plain, 1, e1, 2, NULL, 0);
        expect_form(UPQ_CODEC_SNAPPY, plain, 60, e60, 2, NULL, 0);
        expect_form(UPQ_CODEC_SNAPPY, plain, 61, e61, 3, NULL, 0);
        expect_form(UPQ_CODEC_SNAPPY, plain, 256, e256, 4, NULL, 0);
        expect_form(UPQ_CODEC_SNAPPY, plain, 257, e257, 5, NULL, 0);
        expect_form(UPQ_CODEC_SNAPPY, plain, 65536, e65536, 6, NULL, 0);
        /* 65537: a second element of one byte */
        {
            blob c = form(UPQ_CODEC_SNAPPY, plain, 65537);
            static const uint8_t h[] = {0x81, 0x80, 0x04, 61 << 2, 0xFF, 0xFF};
            if (TU_CHECK_UINT(c.n, 6 + 65536 + 1 + 1)) {
                TU_CHECK_MEM(c.p, h, 6);
                TU_CHECK_UINT(c.p[6 + 65536], 0x00);
                TU_CHECK_UINT(c.p[6 + 65536 + 1], plain[65536]);
            }
            free(c.p);
        }
    }
#endif

#if UPQ_WITH_LZ4
    tu_case("LZ4_RAW: token, 255-run length bytes, literals");
    {
        static const uint8_t e0[] = {0x00}, e1[] = {0x10}, e14[] = {0xE0}, e15[] = {0xF0, 0x00},
                             e269[] = {0xF0, 0xFE}, e270[] = {0xF0, 0xFF, 0x00},
                             e524[] = {0xF0, 0xFF, 0xFE}, e525[] = {0xF0, 0xFF, 0xFF, 0x00};
        expect_form(UPQ_CODEC_LZ4_RAW, plain, 0, e0, 1, NULL, 0);
        expect_form(UPQ_CODEC_LZ4_RAW, plain, 1, e1, 1, NULL, 0);
        expect_form(UPQ_CODEC_LZ4_RAW, plain, 14, e14, 1, NULL, 0);
        expect_form(UPQ_CODEC_LZ4_RAW, plain, 15, e15, 2, NULL, 0);
        expect_form(UPQ_CODEC_LZ4_RAW, plain, 269, e269, 2, NULL, 0);
        expect_form(UPQ_CODEC_LZ4_RAW, plain, 270, e270, 3, NULL, 0);
        expect_form(UPQ_CODEC_LZ4_RAW, plain, 524, e524, 3, NULL, 0);
        expect_form(UPQ_CODEC_LZ4_RAW, plain, 525, e525, 4, NULL, 0);
    }
    tu_case("LZ4: Hadoop frames");
    {
        static const uint8_t e0[] = {0, 0, 0, 0, 0, 0, 0, 1, 0x00},
                             e3[] = {0, 0, 0, 3, 0, 0, 0, 4, 0x30};
        expect_form(UPQ_CODEC_LZ4, plain, 0, e0, 9, NULL, 0);
        expect_form(UPQ_CODEC_LZ4, plain, 3, e3, 9, NULL, 0);
    }
#endif

#if UPQ_WITH_GZIP
    tu_case("GZIP: member header, stored blocks, CRC-32 and ISIZE");
    {
        static const uint8_t hdr0[] = {0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF,
                                       0x01, 0x00, 0x00, 0xFF, 0xFF},
                             tr0[8] = {0},
                             hdr5[] = {0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF,
                                       0x01, 0x05, 0x00, 0xFA, 0xFF};
        uint8_t tr5[8];
        uint32_t crc = upq_crc32(plain, 5);
        for (i = 0; i < 4; i++)
            tr5[i] = (uint8_t)(crc >> (8 * i));
        tr5[4] = 5;
        tr5[5] = tr5[6] = tr5[7] = 0;
        expect_form(UPQ_CODEC_GZIP, plain, 0, hdr0, sizeof hdr0, tr0, 8);
        expect_form(UPQ_CODEC_GZIP, plain, 5, hdr5, sizeof hdr5, tr5, 8);
        /* 65536: a full non-final block, then a final one of one byte */
        {
            blob c = form(UPQ_CODEC_GZIP, plain, 65536);
            static const uint8_t b1[] = {0x00, 0xFF, 0xFF, 0x00, 0x00},
                                 b2[] = {0x01, 0x01, 0x00, 0xFE, 0xFF};
            if (TU_CHECK_UINT(c.n, 10 + 5 + 65535 + 5 + 1 + 8)) {
                TU_CHECK_MEM(c.p + 10, b1, 5);
                TU_CHECK_MEM(c.p + 10 + 5 + 65535, b2, 5);
            }
            free(c.p);
        }
    }
#endif
}

/* The largest length each codec takes: its form is at most INT32_MAX bytes,
 * and the cursor walks it (counting, not storing) to exactly that size. */
static void test_limits(int32_t codec)
{
    size_t lo = 0, hi = (size_t)0x7FFFFFFF, n, total = 0, plain = 0, calls = 0;
    upq_stored st;
    tu_case("%s: the largest length", codec_name(codec));
    while (lo < hi) { /* the last n with a form */
        size_t mid = lo + (hi - lo + 1) / 2;
        if (upq_stored_size(codec, mid))
            lo = mid;
        else
            hi = mid - 1;
    }
    n = lo;
    tu_note("%s: up to %zu plain bytes, %zu stored", codec_name(codec), n,
            upq_stored_size(codec, n));
    TU_CHECK(upq_stored_size(codec, n) <= 0x7FFFFFFFu);
    TU_CHECK(upq_stored_size(codec, n) >= n);
    TU_CHECK_UINT(upq_stored_size(codec, n + 1), 0);
    TU_CHECK_UINT(upq_stored_size(codec, (size_t)-1), 0);
    if (codec == UPQ_CODEC_UNCOMPRESSED)
        TU_CHECK_UINT(n, 0x7FFFFFFF);
    else
        TU_CHECK(upq_stored_size(codec, n) > 0x7FFFFFFFu - 300000); /* framing is small */
    TU_CHECK_STATUS(upq_stored_begin(&st, codec, n + 1), UPQ_ERR_LIMIT);
    TU_CHECK_STATUS(upq_stored_begin(&st, codec, (size_t)-1), UPQ_ERR_LIMIT);
    if (!TU_CHECK_STATUS(upq_stored_begin(&st, codec, n), UPQ_OK))
        return;
    for (;;) {
        uint8_t frame[UPQ_STORED_PIECE];
        size_t run, k = upq_stored_next(&st, 0, frame, &run);
        if (!k && !run)
            break;
        total += k + run;
        plain += run;
        if (!TU_CHECK(++calls < 100000000))
            break;
    }
    TU_CHECK_UINT(plain, n);
    TU_CHECK_UINT(total, upq_stored_size(codec, n));
}

static void test_api(void)
{
    static const int32_t none[] = {UPQ_CODEC_ZSTD, UPQ_CODEC_LZO, UPQ_CODEC_BROTLI, 8, 99, -1};
    upq_stored st;
    uint8_t frame[UPQ_STORED_PIECE];
    size_t i, run;

    tu_case("codecs without a stored form");
    for (i = 0; i < sizeof none / sizeof *none; i++) {
        TU_CHECK_UINT(upq_stored_size(none[i], 100), 0);
        TU_CHECK_STATUS(upq_stored_begin(&st, none[i], 100), UPQ_ERR_UNSUPPORTED);
        run = 7;
        TU_CHECK_UINT(upq_stored_next(&st, 0, frame, &run), 0);
        TU_CHECK_UINT(run, 0);
    }
    for (i = 0; i < NCODECS; i++)
        if (!want_stored(codecs[i])) {
            tu_note("%s: not in this build", codec_name(codecs[i]));
            TU_CHECK_UINT(upq_stored_size(codecs[i], 100), 0);
            TU_CHECK_STATUS(upq_stored_begin(&st, codecs[i], 100), UPQ_ERR_UNSUPPORTED);
        }

    tu_case("a failed begin leaves a cursor that yields nothing");
    TU_CHECK_STATUS(upq_stored_begin(&st, UPQ_CODEC_UNCOMPRESSED, (size_t)-1), UPQ_ERR_LIMIT);
    run = 7;
    TU_CHECK_UINT(upq_stored_next(&st, 0, frame, &run), 0);
    TU_CHECK_UINT(run, 0);

    tu_case("NULL arguments");
    TU_CHECK_STATUS(upq_stored_begin(NULL, UPQ_CODEC_UNCOMPRESSED, 1), UPQ_ERR_INVAL);
    run = 7;
    TU_CHECK_UINT(upq_stored_next(NULL, 0, frame, &run), 0);
    TU_CHECK_UINT(run, 0);
    TU_CHECK_STATUS(upq_stored_begin(&st, UPQ_CODEC_UNCOMPRESSED, 1), UPQ_OK);
    run = 7;
    TU_CHECK_UINT(upq_stored_next(&st, 0, NULL, &run), 0);
    TU_CHECK_UINT(run, 0);
    TU_CHECK_UINT(upq_stored_next(&st, 0, frame, NULL), 0);

    tu_case("UNCOMPRESSED: no framing, one run");
    TU_CHECK_STATUS(upq_stored_begin(&st, UPQ_CODEC_UNCOMPRESSED, 1000), UPQ_OK);
    TU_CHECK_UINT(upq_stored_next(&st, 0, frame, &run), 0);
    TU_CHECK_UINT(run, 1000);
    TU_CHECK_UINT(upq_stored_next(&st, 0, frame, &run), 0);
    TU_CHECK_UINT(run, 0);
    TU_CHECK_STATUS(upq_stored_begin(&st, UPQ_CODEC_UNCOMPRESSED, 0), UPQ_OK);
    TU_CHECK_UINT(upq_stored_size(UPQ_CODEC_UNCOMPRESSED, 0), 0);
    TU_CHECK_UINT(upq_stored_next(&st, 0, frame, &run), 0);
    TU_CHECK_UINT(run, 0);

#if UPQ_WITH_GZIP
    tu_case("GZIP: the CRC argument is read only for the trailer");
    {
        blob plain = make_plain(150000), c;
        stream_opts o = {4000, 0, CRC_ONLY_AT_END};
        if (stream(UPQ_CODEC_GZIP, &plain, &o, &c))
            check_form(UPQ_CODEC_GZIP, &c, &plain);
        free(c.p);
        free(plain.p);
    }
#endif
}

int main(void)
{
    size_t c, i;
    const char *seed = getenv("UPQ_TEST_SEED");
    if (seed && *seed)
        rng_state = strtoull(seed, NULL, 0) | 1u;
    tu_note("seed 0x%llx (UPQ_TEST_SEED)", (unsigned long long)rng_state);

    arena_len = 8;
    for (c = 0; c < NCODECS; c++)
        if (upq_decompress_workspace(codecs[c]) > arena_len)
            arena_len = upq_decompress_workspace(codecs[c]);
    arena_mem = (uint8_t *)malloc(arena_len);

    test_api();
    test_bytes();
    for (c = 0; c < NCODECS; c++) {
        if (!want_stored(codecs[c]))
            continue;
        for (i = 0; i < NLENGTHS; i++)
            test_lengths(codecs[c], lengths[i]);
        for (i = 0; i < 12; i++)
            test_lengths(codecs[c], rnd_in(0, 300000));
        test_every_length(codecs[c]);
        test_limits(codecs[c]);
    }
    free(arena_mem);
    return tu_summary();
}
