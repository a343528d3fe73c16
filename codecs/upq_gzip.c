/*
 * GZIP pages through zlib (built with Z_SOLO: no libc, no default
 * allocator), read through libdeflate's decompressor when the build has it
 * (UPQ_WITH_LIBDEFLATE; see the section on it below).
 *
 * zlib's memory comes from one arena block reserved up front, sized from
 * zlib's own state structures, and carved by the zalloc callback below;
 * zfree does nothing and the block is rewound when the call returns. Sizing
 * the block exactly is what makes upq_arena_needed() tell the whole need
 * after UPQ_ERR_NOMEM, rather than whichever of zlib's allocations failed.
 *
 * Decoding gives inflate the whole page and Z_FINISH, so a stream that ends
 * inside the call never needs inflate's 32 KiB sliding window. inflate asks
 * for the window only when it stops early (input cut short, or output
 * larger than the page), and the block has no room for it: that request
 * fails and the page is reported corrupt, which it is.
 */
#include "upq_codec.h"
#include "upq_port.h"

#if UPQ_WITH_GZIP

#include <limits.h>
#define ZLIB_CONST /* const-correct next_in; declarations only, same ABI */
#include "zlib.h"
/* zlib's internal state layouts, for exact workspace sizes (zutil.h first:
 * the others rely on its definitions) */
#include "zutil.h"
#include "deflate.h"
#include "inftrees.h"
#include "inflate.h"

#if UPQ_WITH_LIBDEFLATE
/*
 * libdeflate 1.14's decompressor, compiled into this file so that its state
 * can live in the caller's arena: libdeflate_alloc_decompressor() would take
 * it from libdeflate's global allocator hook (malloc by default), and all it
 * does besides is zero the struct, which gz_libdeflate() does itself.
 *
 * - Its functions become static (LIBDEFLATEEXPORT), so the allocator
 *   functions, never called, are dropped with their malloc/free references,
 *   and no libdeflate_* symbol leaves this object.
 * - FREESTANDING: no <string.h>; lib_common.h maps memcpy/memset/... to the
 *   compiler builtins, so fixed-size copies (its unaligned loads and stores)
 *   become plain loads and stores. What a builtin would still hand to libc
 *   (a copy or fill of variable size) goes to upq_memcpy/upq_memset here:
 *   the builtins' names are macros that keep the builtin for small sizes
 *   known at compile time only.
 * - x86's decoder dispatch is compiled out by taking its header's include
 *   guard: it would pick a BMI2 decoder at run time through a function
 *   pointer and a CPU-feature cache, both static mutable state, which the
 *   library must not have. The portable decoder is used on every target.
 *   (The gzip wrapper, and with it libdeflate's CRC-32 and its dispatch, are
 *   not compiled at all: gz_member() reads the wrapper and checks the CRC
 *   with upq_crc32_update_with, gz_crc().)
 */
/* (A macro is not expanded inside its own expansion: the builtin named
 * there is the compiler's. Macros, not inline functions, so that
 * __builtin_constant_p sees the size as written, which clang needs.) */
#define __builtin_memcpy(dst, src, n)                                                          \
    (__builtin_constant_p(n) && (n) <= 16u ? __builtin_memcpy(dst, src, n)                     \
                                           : upq_memcpy(dst, src, n))
#define __builtin_memset(dst, c, n)                                                            \
    (__builtin_constant_p(n) && (n) <= 16u ? __builtin_memset(dst, c, n) : upq_memset(dst, c, n))
#define __builtin_memmove(dst, src, n) upq_memmove(dst, src, n)
#define __builtin_memcmp(a, b, n) upq_memcmp(a, b, n)
#define LIBDEFLATEEXPORT static
#define FREESTANDING 1
#define LIB_X86_DECOMPRESS_IMPL_H 1
#include "lib/deflate_decompress.c"
#undef memcpy
#undef memmove
#undef memset
#undef memcmp
#undef __builtin_memcpy
#undef __builtin_memmove
#undef __builtin_memset
#undef __builtin_memcmp
#include "common/crc32.h"
#include "upq_kernels.h"

/* The trailer's CRC-32 of a member's bytes. Where the fast kernel is chosen
 * at run time (x86-64 built for the baseline, port/x86/x86_crc32.c), the
 * choice asks the CPU with CPUID, which in a virtual machine traps to the
 * hypervisor (three of them took about 36 us here, the table's time for
 * some 120 KiB). A reader keeps the answer (its crc_kernel, ask_from 0);
 * without one, a member of GZ_CRC_ASK bytes or more asks, once a page, and
 * a smaller one takes the table. */
#define GZ_CRC_ASK ((size_t)128 << 10)

typedef struct gz_crc_kernel {
    uint8_t *kernel;
    size_t ask_from;
} gz_crc_kernel;

static uint32_t gz_crc(const gz_crc_kernel *k, const uint8_t *p, size_t n)
{
    return n >= k->ask_from ? upq_crc32_update_with(k->kernel, 0, p, n)
                            : upq_crc32_update(0, p, n);
}
#endif

/* Writing: a 4 KiB window and 4096 hash chains keep deflate's arena need
 * near 38 KB (a 32 KiB window and memLevel 8 take 256 KiB) for a few
 * percent of ratio on page-sized data. Level 6 is gzip's default. */
#define GZ_WINDOW_BITS 12
#define GZ_MEM_LEVEL 5
#define GZ_LEVEL 6
/* Reading: gzip (16) or zlib (0) wrapper detected per member (32), any window. */
#define GZ_INFLATE_BITS (15 + 32)

/* An arena block handed out front to back. */
typedef struct gz_block {
    uint8_t *next;
    size_t left;
} gz_block;

/* A zlib stream on an arena block, and where the arena stood before it. */
typedef struct gz_job {
    z_stream zs;
    gz_block b;
    upq_arena_mark mark;
} gz_job;

static size_t round_up8(size_t n)
{
    return (n + 7u) & ~(size_t)7u;
}

static voidpf gz_alloc(voidpf opaque, uInt items, uInt size)
{
    gz_block *b = (gz_block *)opaque;
    size_t n = (size_t)items * size, r;
    void *p;
    if (size && n / size != items)
        return Z_NULL;
    r = round_up8(n);
    if (r < n || r > b->left)
        return Z_NULL;
    p = b->next;
    b->next += r;
    b->left -= r;
    return p;
}

static void gz_free(voidpf opaque, voidpf p)
{
    (void)opaque;
    (void)p;
}

/* Reserves `size` bytes and points the stream's allocator at them,
 * noting where the arena stood. */
static upq_status gz_begin(gz_job *j, size_t size, upq_arena *a)
{
    j->mark = upq_arena_save(a);
    j->b.next = (uint8_t *)upq_arena_alloc(a, size);
    if (!j->b.next)
        return UPQ_ERR_NOMEM;
    j->b.left = size;
    upq_memset(&j->zs, 0, sizeof j->zs);
    j->zs.zalloc = gz_alloc;
    j->zs.zfree = gz_free;
    j->zs.opaque = &j->b;
    return UPQ_OK;
}

/* What zlib's inflateInit2 or deflateInit2 (r) on j's stream says; the
 * arena given back when it failed. */
static upq_status gz_init(gz_job *j, int r, upq_arena *a)
{
    if (r == Z_OK)
        return UPQ_OK;
    upq_arena_rewind(a, j->mark);
    return r == Z_MEM_ERROR ? UPQ_ERR_NOMEM : UPQ_ERR_UNSUPPORTED;
}

size_t upq_gzip_decompress_workspace(void)
{
    size_t inflate_need = round_up8(sizeof(struct inflate_state));
#if UPQ_WITH_LIBDEFLATE
    /* either decoder may read a page: gzip members go to libdeflate, a
     * zlib-wrapped page to inflate */
    size_t ld_need = round_up8(sizeof(struct libdeflate_decompressor));
    return ld_need > inflate_need ? ld_need : inflate_need;
#else
    return inflate_need;
#endif
}

size_t upq_gzip_compress_workspace(void)
{
    /* deflateInit2's five allocations: the state, the window (2 bytes per
     * window position), prev (one Pos each), the hash heads (one Pos per
     * chain) and the pending/symbol buffer (4 bytes per symbol) */
    size_t w_size = (size_t)1 << GZ_WINDOW_BITS;
    size_t hash_size = (size_t)1 << (GZ_MEM_LEVEL + 7);
    size_t lit_bufsize = (size_t)1 << (GZ_MEM_LEVEL + 6);
    return round_up8(sizeof(deflate_state)) + round_up8(w_size * 2u) +
           round_up8(w_size * sizeof(Pos)) + round_up8(hash_size * sizeof(Pos)) +
           round_up8(lit_bufsize * 4u);
}

/* src_len > 0; both lengths fit an uInt. One or more gzip or zlib members
 * that together give exactly dst_len bytes. */
static upq_status gz_inflate(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len,
                             upq_arena *a)
{
    gz_job j;
    z_stream *zs = &j.zs;
    uint8_t none = 0;
    upq_status st = gz_begin(&j, upq_gzip_decompress_workspace(), a);
    if (st == UPQ_OK)
        st = gz_init(&j, inflateInit2(zs, GZ_INFLATE_BITS), a);
    if (st != UPQ_OK)
        return st;
    zs->next_in = src;
    zs->avail_in = (uInt)src_len;
    zs->next_out = dst ? dst : &none; /* zlib refuses a NULL output even when empty */
    zs->avail_out = (uInt)dst_len;
    for (;;) {
        if (inflate(zs, Z_FINISH) != Z_STREAM_END) {
            st = UPQ_ERR_CORRUPT;
            break;
        }
        if (zs->avail_in == 0) {
            st = zs->avail_out == 0 ? UPQ_OK : UPQ_ERR_CORRUPT;
            break;
        }
        /* more input: the next member of a concatenated stream */
        if (inflateReset(zs) != Z_OK) {
            st = UPQ_ERR_CORRUPT;
            break;
        }
    }
    upq_arena_rewind(a, j.mark);
    return st;
}

#if UPQ_WITH_LIBDEFLATE
/* ---- libdeflate --------------------------------------------------------- */

/* RFC 1952 member layout */
#define GZ_HEAD 10u /* ID1 ID2 CM FLG MTIME(4) XFL OS */
#define GZ_TAIL 8u  /* CRC32, ISIZE */
#define GZ_FHCRC 0x02u
#define GZ_FEXTRA 0x04u
#define GZ_FNAME 0x08u
#define GZ_FCOMMENT 0x10u
#define GZ_FRESERVED 0xE0u

static int gz_is_gzip(const uint8_t *src, size_t src_len)
{
    return src_len >= 3 && src[0] == 0x1Fu && src[1] == 0x8Bu && src[2] == 8u;
}

static uint32_t gz_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Skips a zero-terminated header field; 0 when it runs off the input. */
static int gz_skip_string(const uint8_t *src, size_t src_len, size_t *pos)
{
    while (*pos < src_len)
        if (src[(*pos)++] == 0)
            return 1;
    return 0;
}

/* Decodes the gzip member at the start of src into dst (at most dst_cap
 * bytes): the bytes it took (*used) and gave (*out). Every length is checked
 * against what is left before it is used; libdeflate never reads past the
 * deflate bytes it is given nor writes past dst_cap, and stops with an error
 * when the output would not fit. */
static upq_status gz_member(struct libdeflate_decompressor *d, const gz_crc_kernel *kernel,
                            const uint8_t *src,
                            size_t src_len, uint8_t *dst, size_t dst_cap, size_t *used, size_t *out)
{
    size_t pos = GZ_HEAD, in_n = 0, out_n = 0;
    uint8_t flg;
    if (src_len < GZ_HEAD + GZ_TAIL || !gz_is_gzip(src, src_len))
        return UPQ_ERR_CORRUPT;
    flg = src[3];
    if (flg & GZ_FRESERVED)
        return UPQ_ERR_CORRUPT;
    if (flg & GZ_FEXTRA) {
        size_t xlen;
        if (src_len - pos < 2u)
            return UPQ_ERR_CORRUPT;
        xlen = (size_t)src[pos] | (size_t)src[pos + 1] << 8;
        pos += 2u;
        if (src_len - pos < xlen)
            return UPQ_ERR_CORRUPT;
        pos += xlen;
    }
    if ((flg & GZ_FNAME) && !gz_skip_string(src, src_len, &pos))
        return UPQ_ERR_CORRUPT;
    if ((flg & GZ_FCOMMENT) && !gz_skip_string(src, src_len, &pos))
        return UPQ_ERR_CORRUPT;
    if (flg & GZ_FHCRC) {
        if (src_len - pos < 2u)
            return UPQ_ERR_CORRUPT;
        pos += 2u;
    }
    if (src_len - pos < GZ_TAIL)
        return UPQ_ERR_CORRUPT;
    if (libdeflate_deflate_decompress_ex(d, src + pos, src_len - pos - GZ_TAIL, dst, dst_cap,
                                         &in_n, &out_n) != LIBDEFLATE_SUCCESS)
        return UPQ_ERR_CORRUPT;
    pos += in_n; /* in_n <= the deflate bytes given, so the trailer is there */
    if (gz_crc(kernel, dst, out_n) != gz_le32(src + pos) ||
        (uint32_t)out_n != gz_le32(src + pos + 4))
        return UPQ_ERR_CORRUPT;
    *used = pos + GZ_TAIL;
    *out = out_n;
    return UPQ_OK;
}

/* A page of one or more gzip members (parquet-testing's
 * concatenated_gzip_members.parquet has two), which together must give
 * exactly dst_len bytes. */
static upq_status gz_libdeflate(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len,
                                upq_arena *a, uint8_t *crc_kernel)
{
    upq_arena_mark mark = upq_arena_save(a);
    struct libdeflate_decompressor *d;
    size_t in = 0, done = 0;
    upq_status st = UPQ_OK;
    uint8_t none = 0, own = 0;
    gz_crc_kernel kernel;

    d = (struct libdeflate_decompressor *)upq_arena_alloc(a, upq_gzip_decompress_workspace());
    if (!d)
        return UPQ_ERR_NOMEM;
    kernel.kernel = crc_kernel ? crc_kernel : &own;
    kernel.ask_from = crc_kernel ? 0 : GZ_CRC_ASK;
    /* what libdeflate_alloc_decompressor() does after its malloc */
    upq_memset(d, 0, sizeof *d);
    while (in < src_len) {
        size_t used = 0, out = 0;
        if (!gz_is_gzip(src + in, src_len - in)) {
            /* inflate reads a zlib stream after gzip members too: the rest
             * of the page goes to it */
            upq_arena_rewind(a, mark);
            return gz_inflate(src + in, src_len - in, dst ? dst + done : dst, dst_len - done, a);
        }
        st = gz_member(d, &kernel, src + in, src_len - in, dst ? dst + done : &none, dst_len - done,
                       &used, &out);
        if (st != UPQ_OK)
            break;
        in += used;
        done += out;
    }
    if (st == UPQ_OK && done != dst_len)
        st = UPQ_ERR_CORRUPT;
    upq_arena_rewind(a, mark);
    return st;
}
#endif /* UPQ_WITH_LIBDEFLATE */

upq_status upq_gzip_decompress(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len,
                               upq_arena *a, uint8_t *crc_kernel)
{
    if ((!src && src_len) || (!dst && dst_len))
        return UPQ_ERR_INVAL;
    if (src_len > UINT_MAX || dst_len > UINT_MAX)
        return UPQ_ERR_LIMIT;
    if (src_len == 0)
        return UPQ_ERR_CORRUPT;
#if UPQ_WITH_LIBDEFLATE
    /* gzip members to libdeflate; a zlib-wrapped page, which inflate also
     * reads (windowBits 15 + 32), stays with inflate */
    if (gz_is_gzip(src, src_len))
        return gz_libdeflate(src, src_len, dst, dst_len, a, crc_kernel);
#else
    (void)crc_kernel;
#endif
    return gz_inflate(src, src_len, dst, dst_len, a);
}

/* ---- compressor --------------------------------------------------------- */

size_t upq_gzip_bound(size_t src_len)
{
    /* deflateBound's two conservative bounds (fixed-code and stored
     * blocks), whichever is larger, plus the 18-byte gzip wrapper; kept in
     * size_t, since uLong is 32 bits on the targets */
    size_t fixed = src_len + (src_len >> 3) + (src_len >> 8) + (src_len >> 9) + 4u;
    size_t stored = src_len + (src_len >> 5) + (src_len >> 7) + (src_len >> 11) + 7u;
    if (src_len > UINT_MAX / 2u)
        return 0;
    return (fixed > stored ? fixed : stored) + 18u;
}

upq_status upq_gzip_compress(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_cap,
                             size_t *dst_len, upq_arena *a)
{
    gz_job j;
    uint8_t none = 0;
    upq_status st;
    int r;

    if ((!src && src_len) || !dst || !dst_len)
        return UPQ_ERR_INVAL;
    if (src_len > UINT_MAX / 2u)
        return UPQ_ERR_LIMIT;
    if (dst_cap < upq_gzip_bound(src_len))
        return UPQ_ERR_BUFFER;
    st = gz_begin(&j, upq_gzip_compress_workspace(), a);
    if (st == UPQ_OK)
        st = gz_init(&j, deflateInit2(&j.zs, GZ_LEVEL, Z_DEFLATED, 16 + GZ_WINDOW_BITS, GZ_MEM_LEVEL,
                                      Z_DEFAULT_STRATEGY), a);
    if (st != UPQ_OK)
        return st;
    j.zs.next_in = src ? src : &none;
    j.zs.avail_in = (uInt)src_len;
    j.zs.next_out = dst;
    j.zs.avail_out = dst_cap > UINT_MAX ? UINT_MAX : (uInt)dst_cap;
    /* one call finishes: the output has room for deflateBound's worst case */
    r = deflate(&j.zs, Z_FINISH);
    upq_arena_rewind(a, j.mark);
    if (r != Z_STREAM_END)
        return UPQ_ERR_BUFFER;
    *dst_len = (size_t)(j.zs.next_out - dst);
    return UPQ_OK;
}

#if UPQ_WITH_LIBDEFLATE
/* The public functions of libdeflate.h this file does not compile
 * (compression, its wrappers, the allocator hook) are static declarations
 * without a body, which gcc reports at the end of the file, outside any
 * push/pop around the #include; nothing calls them. */
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

#endif /* UPQ_WITH_GZIP */
