/* Host benchmark for issue 14: GZIP page decompression with zlib (built as codecs/codecs.mk
 * builds it for the host, -O2) against libdeflate 1.14's libdeflate_gzip_decompress. Not
 * part of the library (uses libc). Both decoders get the same whole-page buffers with the
 * uncompressed size known, as a Parquet page reader has them; CPU time per call from
 * CLOCK_PROCESS_CPUTIME_ID, best of N runs. Outside test/bench/*.c on purpose: `make bench`
 * links those against the library, and libdeflate is not one of its packages yet.
 * Build and run: test/bench/libs/gzip_libs.sh [PAGE-BYTES] [RUNS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>
#include "libdeflate.h"

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Representative page payloads: PLAIN int64 with small deltas, dictionary-ish strings,
 * and random-ish doubles (what Parquet GZIP pages mostly carry). */
static void make_page(unsigned char *p, size_t n, int kind, unsigned seed)
{
    size_t i;
    unsigned x = seed;
    long long v = 1000000;
    static const char *words[] = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta",
                                  "eta", "theta", "iota", "kappa", "lambda", "mu"};
    if (kind == 0) {
        for (i = 0; i + 8 <= n; i += 8) {
            x = x * 1103515245u + 12345u;
            v += (x >> 16) % 100;
            memcpy(p + i, &v, 8);
        }
    } else if (kind == 1) {
        for (i = 0; i < n;) {
            x = x * 1103515245u + 12345u;
            const char *w = words[(x >> 16) % 12];
            unsigned len = (unsigned)strlen(w);
            for (unsigned k = 0; k < 4 && i < n; k++) p[i++] = k == 0 ? (unsigned char)len : 0;
            for (unsigned k = 0; k < len && i < n; k++) p[i++] = (unsigned char)w[k];
        }
    } else {
        for (i = 0; i + 8 <= n; i += 8) {
            x = x * 1103515245u + 12345u;
            double d = 20.0 + ((x >> 8) % 10000) / 100.0;
            memcpy(p + i, &d, 8);
        }
    }
}

static size_t gz(const unsigned char *in, size_t n, unsigned char *out, size_t cap)
{
    z_stream s;
    memset(&s, 0, sizeof s);
    if (deflateInit2(&s, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK) exit(1);
    s.next_in = (unsigned char *)in; s.avail_in = (uInt)n;
    s.next_out = out; s.avail_out = (uInt)cap;
    if (deflate(&s, Z_FINISH) != Z_STREAM_END) exit(1);
    size_t r = s.total_out;
    deflateEnd(&s);
    return r;
}

static int zlib_dec(const unsigned char *in, size_t n, unsigned char *out, size_t cap)
{
    z_stream s;
    memset(&s, 0, sizeof s);
    if (inflateInit2(&s, 31) != Z_OK) return -1;
    s.next_in = (unsigned char *)in; s.avail_in = (uInt)n;
    s.next_out = out; s.avail_out = (uInt)cap;
    int r = inflate(&s, Z_FINISH);
    size_t got = s.total_out;
    inflateEnd(&s);
    return r == Z_STREAM_END && got == cap ? 0 : -1;
}

int main(int argc, char **argv)
{
    size_t page = argc > 1 ? (size_t)atol(argv[1]) : 1 << 20;
    int pages = 16, runs = argc > 2 ? atoi(argv[2]) : 7;
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    unsigned char *raw = malloc(page), *out = malloc(page);
    for (int kind = 0; kind < 3; kind++) {
        unsigned char *c[16]; size_t clen[16];
        for (int i = 0; i < pages; i++) {
            make_page(raw, page, kind, 7u + (unsigned)i * 977u);
            c[i] = malloc(page + 1024);
            clen[i] = gz(raw, page, c[i], page + 1024);
        }
        double bz = 1e9, bl = 1e9;
        for (int r = 0; r < runs; r++) {
            double t = cpu_now();
            for (int i = 0; i < pages; i++)
                if (zlib_dec(c[i], clen[i], out, page)) { puts("zlib fail"); return 1; }
            t = cpu_now() - t; if (t < bz) bz = t;
            t = cpu_now();
            for (int i = 0; i < pages; i++) {
                size_t got;
                if (libdeflate_gzip_decompress(d, c[i], clen[i], out, page, &got) !=
                        LIBDEFLATE_SUCCESS || got != page) { puts("libdeflate fail"); return 1; }
            }
            t = cpu_now() - t; if (t < bl) bl = t;
        }
        double mb = (double)page * pages / 1e6;
        static const char *names[] = {"int64-delta", "dict-strings", "doubles"};
        printf("%-13s ratio %.2f  zlib %7.1f MB/s  libdeflate %7.1f MB/s  x%.2f\n", names[kind],
               (double)page / clen[0], mb / bz, mb / bl, bz / bl);
        for (int i = 0; i < pages; i++) free(c[i]);
    }
    return 0;
}
