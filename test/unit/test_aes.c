/*
 * The AES-GCM / AES-CTR adapter against published vectors:
 *  - NIST CAVP GCM vectors (gcmEncryptExtIV / gcmDecrypt, AES-128/192/256,
 *    IVs of 8..1024 bits, AAD and text of many lengths, tags of 32..128 bits,
 *    forgeries that must fail), as mbedtls ships them in
 *    tests/suites/test_suite_gcm.aes{128,192,256}_{en,de}.data of the
 *    fetched package (MBEDTLS_SRC or codecs/.deps/mbedtls);
 *  - NIST SP 800-38A F.5.1/F.5.3/F.5.5 CTR-AES vectors;
 *  - the pieces API (AAD and text fed in odd chunks, CTR from any offset)
 *    agreeing with the one-shot calls on the same vectors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/check.h"
#include "upq_aes.h"

static uint8_t keymem[4096] __attribute__((aligned(16)));

static size_t unhex(const char *s, size_t n, uint8_t *out)
{
    size_t i;
    for (i = 0; i + 1 < n + 1 && i * 2 < n; i++) {
        unsigned v;
        sscanf(s + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
    return n / 2;
}

/* Splits `line` after the first ':' into up to 10 fields ("..." or numbers). */
static int fields(char *line, char **f, size_t *len, int max)
{
    int n = 0;
    char *p = strchr(line, ':');
    if (!p)
        return 0;
    p++;
    while (*p && n < max) {
        char *q;
        if (*p == '"') {
            q = strchr(p + 1, '"');
            if (!q)
                return n;
            f[n] = p + 1;
            len[n] = (size_t)(q - p - 1);
            p = q + 1;
        } else {
            q = p;
            while (*q && *q != ':' && *q != '\n')
                q++;
            f[n] = p;
            len[n] = (size_t)(q - p);
            p = q;
        }
        n++;
        if (*p == ':')
            p++;
        else
            break;
    }
    return n;
}

static uint8_t key[32], pt[256], ct[256], iv[256], aad[256], tag[16], out[256], mytag[16];

/* The same message through the pieces API with chunk size `chunk`. */
static void pieces(const upq_aes_key *k, size_t ivl, size_t al, size_t tl, size_t chunk,
                   uint8_t t[16])
{
    upq_gcm g;
    size_t i;
    upq_gcm_start(&g, k, iv, ivl);
    for (i = 0; i < al; i += chunk)
        upq_gcm_aad(&g, k, aad + i, al - i < chunk ? al - i : chunk);
    for (i = 0; i < tl; i += chunk)
        upq_gcm_text(&g, k, ct + i, tl - i < chunk ? tl - i : chunk);
    upq_gcm_finish(&g, k, t);
}

static void run_file(const char *dir, const char *name, int encrypt, unsigned *cases)
{
    char path[1024], line[4096];
    FILE *f;
    upq_aes_key *k = (upq_aes_key *)keymem;
    snprintf(path, sizeof path, "%s/tests/suites/%s", dir, name);
    f = fopen(path, "r");
    if (!TU_CHECK_MSG(f != NULL, "cannot open %s", path))
        return;
    tu_case("GCM %s", name);
    while (fgets(line, sizeof line, f)) {
        char *fl[10];
        size_t ln[10];
        size_t kl, ivl, al, tl, tagl;
        int n;
        if (strncmp(line, encrypt ? "gcm_encrypt_and_tag:" : "gcm_decrypt_and_verify:",
                    encrypt ? 20 : 23) != 0)
            continue;
        n = fields(line, fl, ln, 10);
        if (!TU_CHECK_MSG(n >= 9, "bad vector line %s", line))
            continue;
        if (strncmp(fl[0], "MBEDTLS_CIPHER_ID_AES", 21) != 0)
            continue;
        kl = unhex(fl[1], ln[1], key);
        TU_CHECK_STATUS(upq_aes_setkey(k, key, kl), UPQ_OK);
        if (encrypt) { /* key pt iv add ct tagbits tag init */
            size_t ctl;
            tl = unhex(fl[2], ln[2], pt);
            ivl = unhex(fl[3], ln[3], iv);
            al = unhex(fl[4], ln[4], aad);
            ctl = unhex(fl[5], ln[5], ct);
            tagl = (size_t)atoi(fl[6]) / 8;
            unhex(fl[7], ln[7], tag);
            TU_CHECK_UINT(ctl, tl);
            upq_gcm_encrypt(k, iv, ivl, aad, al, pt, out, tl, mytag);
            TU_CHECK_MEM(out, ct, tl);
            TU_CHECK_MEM(mytag, tag, tagl);
            pieces(k, ivl, al, tl, 1 + (*cases % 23), mytag);
            TU_CHECK_MEM(mytag, tag, tagl);
        } else { /* key ct iv add tagbits tag result pt init */
            int fail;
            tl = unhex(fl[2], ln[2], ct);
            ivl = unhex(fl[3], ln[3], iv);
            al = unhex(fl[4], ln[4], aad);
            tagl = (size_t)atoi(fl[5]) / 8;
            unhex(fl[6], ln[6], tag);
            fail = ln[7] == 4 && strncmp(fl[7], "FAIL", 4) == 0;
            unhex(fl[8], ln[8], pt);
            memset(out, 0xa5, sizeof out);
            if (fail) {
                uint8_t fill[256];
                memset(fill, 0xa5, sizeof fill);
                TU_CHECK_STATUS(upq_gcm_decrypt(k, iv, ivl, aad, al, ct, out, tl, tag, tagl),
                                UPQ_ERR_AUTH);
                TU_CHECK_MEM(out, fill, tl); /* nothing released */
            } else {
                TU_CHECK_STATUS(upq_gcm_decrypt(k, iv, ivl, aad, al, ct, out, tl, tag, tagl),
                                UPQ_OK);
                TU_CHECK_MEM(out, pt, tl);
                /* in place, too */
                memcpy(out, ct, tl);
                TU_CHECK_STATUS(upq_gcm_decrypt(k, iv, ivl, aad, al, out, out, tl, tag, tagl),
                                UPQ_OK);
                TU_CHECK_MEM(out, pt, tl);
            }
        }
        (*cases)++;
    }
    fclose(f);
}

struct ctr_vec {
    const char *key, *ct;
};

static void ctr_vectors(void)
{
    static const char *ctr0 = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
    static const char *ptx = "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
                             "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710";
    static const struct ctr_vec v[3] = {
        {"2b7e151628aed2a6abf7158809cf4f3c",
         "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff"
         "5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee"},
        {"8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b",
         "1abc932417521ca24f2b0459fe7e6e0b090339ec0aa6faefd5ccc2c6f4ce8e94"
         "1e36b26bd1ebc670d1bd1d665620abf74f78a7f6d29809585a97daec58c6b050"},
        {"603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
         "601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c5"
         "2b0930daa23de94ce87017ba2d84988ddfc9c58db67aada613c2dd08457941a6"},
    };
    upq_aes_key *k = (upq_aes_key *)keymem;
    uint8_t c0[16];
    int i;
    size_t off;
    unhex(ctr0, 32, c0);
    unhex(ptx, 128, pt);
    for (i = 0; i < 3; i++) {
        size_t kl = unhex(v[i].key, strlen(v[i].key), key);
        tu_case("SP 800-38A F.5.%d CTR-AES%u", 1 + 2 * i, (unsigned)kl * 8);
        unhex(v[i].ct, 128, ct);
        TU_CHECK_STATUS(upq_aes_setkey(k, key, kl), UPQ_OK);
        upq_aes_ctr_xor(k, c0, 0, pt, out, 64);
        TU_CHECK_MEM(out, ct, 64);
        upq_aes_ctr_xor(k, c0, 0, out, out, 64); /* decrypt in place */
        TU_CHECK_MEM(out, pt, 64);
        for (off = 0; off < 64; off += 7) { /* resumed at any offset */
            size_t n = 64 - off < 7 ? 64 - off : 7;
            upq_aes_ctr_xor(k, c0, off, pt + off, out + off, n);
        }
        TU_CHECK_MEM(out, ct, 64);
    }
    tu_case("key lengths");
    TU_CHECK_STATUS(upq_aes_setkey(k, key, 15), UPQ_ERR_INVAL);
    TU_CHECK_STATUS(upq_aes_setkey(k, key, 33), UPQ_ERR_INVAL);
    TU_CHECK(upq_aes_key_size() <= sizeof keymem);
    tu_case("constant-time compare");
    memset(out, 1, 16);
    memset(mytag, 1, 16);
    TU_CHECK(upq_ct_equal(out, mytag, 16));
    mytag[15] ^= 0x80;
    TU_CHECK(!upq_ct_equal(out, mytag, 16));
}

int main(void)
{
    const char *dir = getenv("MBEDTLS_SRC");
    static const char *files[6] = {"test_suite_gcm.aes128_en.data", "test_suite_gcm.aes192_en.data",
                                   "test_suite_gcm.aes256_en.data", "test_suite_gcm.aes128_de.data",
                                   "test_suite_gcm.aes192_de.data", "test_suite_gcm.aes256_de.data"};
    unsigned cases = 0;
    int i;
#if !UPQ_WITH_CRYPTO
    tu_note("skipped: this build has no crypto (UPQ_WITH_CRYPTO=0; run make deps)");
    return tu_summary();
#endif
    if (!dir || !*dir)
        dir = "codecs/.deps/mbedtls";
    ctr_vectors();
    for (i = 0; i < 6; i++)
        run_file(dir, files[i], i < 3, &cases);
    tu_note("%u NIST GCM vectors", cases);
    TU_CHECK(cases > 900);
    return tu_summary();
}
