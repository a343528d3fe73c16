/*
 * XXH64 against the xxHash project's published sanity vectors: XXH64 of the
 * first `len` bytes of its test buffer (byte i = top byte of PRIME32 *
 * PRIME64^i), with seed 0 and seed PRIME32. The entries for lengths 0, 1,
 * 4, 14 and 222 are the table in xxHash's cli/xsum_sanity_check.c; the
 * others are rows of its tests/sanity_test_vectors.h (XSUM_XXH64_testdata).
 */
#include <stdlib.h>
#include <string.h>

#include "uparquet/bloom.h"
#include "util/check.h"

#define PRIME32 UINT64_C(2654435761)
#define PRIME64 UINT64_C(11400714785074694797)

static void fill_test_buffer(uint8_t *buf, size_t len)
{
    uint64_t gen = PRIME32;
    size_t i;
    for (i = 0; i < len; i++) {
        buf[i] = (uint8_t)(gen >> 56);
        gen *= PRIME64;
    }
}

int main(void)
{
    static const struct {
        size_t len;
        uint64_t seed;
        uint64_t hash;
    } v[] = {
        /* cli/xsum_sanity_check.c */
        {0, 0, UINT64_C(0xEF46DB3751D8E999)},
        {0, PRIME32, UINT64_C(0xAC75FDA2929B17EF)},
        {1, 0, UINT64_C(0xE934A84ADB052768)},
        {1, PRIME32, UINT64_C(0x5014607643A9B4C3)},
        {4, 0, UINT64_C(0x9136A0DCA57457EE)},
        {14, 0, UINT64_C(0x8282DCC4994E35C8)},
        {14, PRIME32, UINT64_C(0xC3BD6BF63DEB6DF0)},
        {222, 0, UINT64_C(0xB641AE8CB691C174)},
        {222, PRIME32, UINT64_C(0x20CB8AB7AE10C14A)},
        /* tests/sanity_test_vectors.h */
        {2, 0, UINT64_C(0x5D48CD60A77E23FF)},
        {3, 0, UINT64_C(0xFF7E1959CB50794A)},
        {4, PRIME32, UINT64_C(0xCAAB286BD8E9FDB5)},
        {8, 0, UINT64_C(0xCDBCF538E71D1348)},
        {8, PRIME32, UINT64_C(0xFE0C047A5353CDAC)},
        {9, 0, UINT64_C(0x554B1AE991EDA6B6)},
        {16, 0, UINT64_C(0x98C90B57FDFCB55C)},
        {16, PRIME32, UINT64_C(0xC900AD2D536B607E)},
        {17, 0, UINT64_C(0x0D39A2D051A30C2C)},
        {31, 0, UINT64_C(0x299B39A290E6D783)},
        {32, 0, UINT64_C(0x18B216492BB44B70)},
        {32, PRIME32, UINT64_C(0xB3F33BDF93ADE409)},
        {33, 0, UINT64_C(0x55C8DC3E578F5B59)},
        {33, PRIME32, UINT64_C(0xE92C292F64BC3071)},
        {64, 0, UINT64_C(0xEF558F8ACAC2B5CD)},
        {100, 0, UINT64_C(0x4BFE019CD91D9EA4)},
        {100, PRIME32, UINT64_C(0x4853706DC9625CAE)},
        {128, 0, UINT64_C(0x90CA021457D96DC5)},
        {129, 0, UINT64_C(0x41C280132D697ABA)},
        {256, 0, UINT64_C(0x5E3F5BF94D574981)},
        {4096, 0, UINT64_C(0xAB77F4AF85F4E70B)},
        {4160, 0, UINT64_C(0xEEE6A4E2AC952A5E)},
        {4160, PRIME32, UINT64_C(0xA4CB59E19D6A35F9)},
    };
    size_t i, n = 4160 + 8;
    uint8_t *buf = (uint8_t *)malloc(n), *shifted = (uint8_t *)malloc(n + 7);
    fill_test_buffer(buf, n);

    tu_case("published sanity vectors");
    for (i = 0; i < sizeof v / sizeof v[0]; i++)
        TU_CHECK_MSG(upq_xxh64(buf, v[i].len, v[i].seed) == v[i].hash,
                     "XXH64(len %zu, seed 0x%llx) = 0x%016llx, want 0x%016llx", v[i].len,
                     (unsigned long long)v[i].seed,
                     (unsigned long long)upq_xxh64(buf, v[i].len, v[i].seed),
                     (unsigned long long)v[i].hash);

    tu_case("no input pointer when empty");
    TU_CHECK_UINT(upq_xxh64(NULL, 0, 0), UINT64_C(0xEF46DB3751D8E999));

    tu_case("any alignment of the input");
    for (size_t shift = 1; shift < 8; shift++) {
        memcpy(shifted + shift, buf, n);
        for (i = 0; i < sizeof v / sizeof v[0]; i++)
            TU_CHECK_UINT(upq_xxh64(shifted + shift, v[i].len, v[i].seed), v[i].hash);
    }
    free(buf);
    free(shifted);
    return tu_summary();
}
