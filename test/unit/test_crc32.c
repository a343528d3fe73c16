/* CRC-32 against published check values (the gzip/zlib CRC). */
#include <string.h>

#include "uparquet/crc32.h"
#include "util/check.h"

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
    tu_case("published vectors");
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        TU_CHECK_UINT(upq_crc32(v[i].in, strlen(v[i].in)), v[i].crc);
    TU_CHECK_UINT(upq_crc32(zeros, 32), 0x190A55ADu);
    tu_case("incremental equals one-shot");
    for (size_t cut = 0; cut <= 9; cut++)
        TU_CHECK_UINT(upq_crc32_update(upq_crc32("123456789", cut), &"123456789"[cut], 9 - cut),
                      0xCBF43926u);
    return tu_summary();
}
