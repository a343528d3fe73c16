/* CRC-32 against published check values (the gzip/zlib CRC), and the
 * selected form (slicing tables, CRC instructions) against a bitwise
 * reference at every length, alignment and split. */
#include <string.h>

#include "common/crc32.h"
#include "util/check.h"
#include "util/crc_ref.h" /* crc_bitwise: the definition, no table */

#include "upq_simd.h" /* upq_crc32_update_scalar, the x86 kernels */


int main(void)
{
    static const struct {
        const char *in;
        uint32_t crc;
    } v[] = {
        {"", 0x00000000u},
        {"a", 0xE8B7BE43u},
        {"abc", 0x352441C2u},
        {"123456789", 0xCBF43926u}, /* the CRC catalogue's check value */
        {"The quick brown fox jumps over the lazy dog", 0x414FA339u},
    };
    unsigned char zeros[32] = {0};
    static uint8_t buf[4096 + 16];
    uint32_t x = 0x12345678u;
    tu_case("published vectors");
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        TU_CHECK_UINT(upq_crc32(v[i].in, strlen(v[i].in)), v[i].crc);
        TU_CHECK_UINT(upq_crc32_update_scalar(0, v[i].in, strlen(v[i].in)), v[i].crc);
    }
    TU_CHECK_UINT(upq_crc32(zeros, 32), 0x190A55ADu);
    tu_case("incremental equals one-shot");
    for (size_t cut = 0; cut <= 9; cut++)
        TU_CHECK_UINT(upq_crc32_update(upq_crc32("123456789", cut), &"123456789"[cut], 9 - cut),
                      0xCBF43926u);
    tu_case("selected and scalar forms equal the bitwise CRC");
    for (size_t i = 0; i < sizeof buf; i++) {
        x = x * 1664525u + 1013904223u;
        buf[i] = (uint8_t)(x >> 24);
    }
    for (size_t align = 0; align < 8; align++)
        for (size_t len = 0; len <= 300; len++) {
            uint32_t want = crc_bitwise(0, buf + align, len);
            size_t cut = len / 3;
            TU_CHECK_UINT(upq_crc32(buf + align, len), want);
            TU_CHECK_UINT(upq_crc32_update_scalar(0, buf + align, len), want);
            TU_CHECK_UINT(upq_crc32_update(upq_crc32(buf + align, cut), buf + align + cut, len - cut),
                          want);
        }
    /* the wide kernels' step sizes (64 and 128 bytes) and their remainders:
     * one to several steps, each tail length of 16-byte blocks and bytes */
    for (size_t len = 300; len <= 1200; len += 5) {
        uint32_t want = crc_bitwise(0, buf + 1, len);
        TU_CHECK_UINT(upq_crc32(buf + 1, len), want);
        TU_CHECK_UINT(upq_crc32_update(upq_crc32(buf + 1, 7), buf + 8, len - 7), want);
    }
    TU_CHECK_UINT(upq_crc32(buf + 3, 4096), crc_bitwise(0, buf + 3, 4096));
#if UPQ_CRC32_X86
    {
        /* every kernel this CPU has, each held as a context holds it, and
         * the choice a context starts with (0) */
        static const char *const names[] = {"", "the table", "PCLMULQDQ", "VPCLMULQDQ"};
        unsigned best = upq_x86_crc32_choose(), k;
        uint8_t first = 0;
        tu_case("x86-64: the kernels chosen at run time (this CPU: %s)", names[best]);
        TU_CHECK(best >= UPQ_CRC32_K_TABLE && best <= UPQ_CRC32_K_VCLMUL);
        TU_CHECK_UINT(upq_crc32_update_with(&first, 0, buf, 63), crc_bitwise(0, buf, 63));
        TU_CHECK_UINT(first, 0); /* too short to ask */
        TU_CHECK_UINT(upq_crc32_update_with(&first, 0, buf, 64), crc_bitwise(0, buf, 64));
        TU_CHECK_UINT(first, best);
        for (k = UPQ_CRC32_K_TABLE; k <= best; k++) {
            for (size_t align = 0; align < 4; align++)
                for (size_t len = 0; len <= 1200; len += len < 300 ? 1 : 7) {
                    uint8_t held = (uint8_t)k;
                    uint32_t want = crc_bitwise(0x12345678u, buf + align, len);
                    TU_CHECK_UINT(upq_crc32_update_with(&held, 0x12345678u, buf + align, len), want);
                    TU_CHECK_UINT(held, k);
                }
            {
                uint8_t held = (uint8_t)k;
                TU_CHECK_UINT(upq_crc32_update_with(&held, 0, buf + 5, 4096),
                              crc_bitwise(0, buf + 5, 4096));
            }
        }
    }
#endif
    TU_CHECK_UINT(upq_crc32_update_scalar(0x9E3779B9u, buf + 5, 4000),
                  crc_bitwise(0x9E3779B9u, buf + 5, 4000));
    return tu_summary();
}
