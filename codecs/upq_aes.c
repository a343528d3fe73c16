/*
 * AES-GCM / AES-CTR adapter (see upq_aes.h): mbedtls supplies the AES block
 * function; counter mode and GHASH are here so every byte of state lives in
 * caller memory.
 *
 * GHASH uses Shoup's 4-bit tables (16 multiples of H, 256 bytes per key).
 * Its table lookups depend on the data being authenticated, as in mbedtls's
 * own software GCM; tag comparison is constant-time.
 */
#include "upq_aes.h"
#include "upq_port.h"

#if UPQ_WITH_CRYPTO

#include "mbedtls/aes.h"

struct upq_aes_key {
    mbedtls_aes_context aes;
    uint64_t hl[16], hh[16]; /* multiples of H: low and high halves */
};

size_t upq_aes_key_size(void)
{
    return (sizeof(upq_aes_key) + 7u) & ~(size_t)7u;
}

static void block(const upq_aes_key *k, const uint8_t in[16], uint8_t out[16])
{
    /* cannot fail for an encrypt-keyed context */
    (void)mbedtls_aes_crypt_ecb((mbedtls_aes_context *)&k->aes, MBEDTLS_AES_ENCRYPT, in, out);
}

static uint64_t load_be64(const uint8_t *p)
{
    uint64_t v = 0;
    unsigned i;
    for (i = 0; i < 8; i++)
        v = (v << 8) | p[i];
    return v;
}

static void store_be64(uint8_t *p, uint64_t v)
{
    unsigned i;
    for (i = 0; i < 8; i++)
        p[7 - i] = (uint8_t)(v >> (8u * i));
}

upq_status upq_aes_setkey(upq_aes_key *k, const uint8_t *key, size_t key_len)
{
    uint8_t h[16];
    uint64_t vh, vl;
    unsigned i, j;
    if (key_len != 16 && key_len != 24 && key_len != 32)
        return UPQ_ERR_INVAL;
    upq_memset(k, 0, sizeof *k);
    mbedtls_aes_init(&k->aes);
    if (mbedtls_aes_setkey_enc(&k->aes, key, (unsigned)(key_len * 8u)) != 0)
        return UPQ_ERR_INVAL;
    upq_memset(h, 0, sizeof h);
    block(k, h, h);
    vh = load_be64(h);
    vl = load_be64(h + 8);
    /* index 8 is H itself (bit order is reflected); 4, 2, 1 are H times
     * x, x^2, x^3; the rest are sums */
    k->hh[8] = vh;
    k->hl[8] = vl;
    for (i = 4; i > 0; i >>= 1) {
        uint64_t carry = (vl & 1u) ? (uint64_t)0xe1000000u << 32 : 0;
        vl = (vh << 63) | (vl >> 1);
        vh = (vh >> 1) ^ carry;
        k->hh[i] = vh;
        k->hl[i] = vl;
    }
    for (i = 2; i <= 8; i *= 2)
        for (j = 1; j < i; j++) {
            k->hh[i + j] = k->hh[i] ^ k->hh[j];
            k->hl[i + j] = k->hl[i] ^ k->hl[j];
        }
    upq_memset(h, 0, sizeof h);
    return UPQ_OK;
}

void upq_aes_wipe(upq_aes_key *k)
{
    volatile uint8_t *p = (volatile uint8_t *)k;
    size_t i;
    for (i = 0; i < sizeof *k; i++)
        p[i] = 0;
}

/* Reduction constants for the 4 bits shifted out per step. */
static const uint16_t last4[16] = {0x0000, 0x1c20, 0x3840, 0x2460, 0x7080, 0x6ca0,
                                   0x48c0, 0x54e0, 0xe100, 0xfd20, 0xd940, 0xc560,
                                   0x9180, 0x8da0, 0xa9c0, 0xb5e0};

/* x = x * H in GF(2^128). */
static void mult_h(const upq_aes_key *k, uint8_t x[16])
{
    uint64_t zh, zl;
    unsigned lo = x[15] & 0xfu, hi, rem;
    int i;
    zh = k->hh[lo];
    zl = k->hl[lo];
    for (i = 15; i >= 0; i--) {
        lo = x[i] & 0xfu;
        hi = (x[i] >> 4) & 0xfu;
        if (i != 15) {
            rem = (unsigned)(zl & 0xfu);
            zl = (zh << 60) | (zl >> 4);
            zh = (zh >> 4) ^ ((uint64_t)last4[rem] << 48);
            zh ^= k->hh[lo];
            zl ^= k->hl[lo];
        }
        rem = (unsigned)(zl & 0xfu);
        zl = (zh << 60) | (zl >> 4);
        zh = (zh >> 4) ^ ((uint64_t)last4[rem] << 48);
        zh ^= k->hh[hi];
        zl ^= k->hl[hi];
    }
    store_be64(x, zh);
    store_be64(x + 8, zl);
}

static void ghash_block(upq_gcm *g, const upq_aes_key *k, const uint8_t *b)
{
    unsigned i;
    for (i = 0; i < 16; i++)
        g->y[i] ^= b[i];
    mult_h(k, g->y);
}

/* Feeds bytes, buffering a partial block. */
static void ghash_bytes(upq_gcm *g, const upq_aes_key *k, const uint8_t *p, size_t len)
{
    if (g->part_n) {
        while (len && g->part_n < 16) {
            g->part[g->part_n++] = *p++;
            len--;
        }
        if (g->part_n < 16)
            return;
        ghash_block(g, k, g->part);
        g->part_n = 0;
    }
    while (len >= 16) {
        ghash_block(g, k, p);
        p += 16;
        len -= 16;
    }
    while (len) {
        g->part[g->part_n++] = *p++;
        len--;
    }
}

/* Pads the unfinished block with zeros. */
static void ghash_pad(upq_gcm *g, const upq_aes_key *k)
{
    if (g->part_n) {
        upq_memset(g->part + g->part_n, 0, 16u - g->part_n);
        ghash_block(g, k, g->part);
        g->part_n = 0;
    }
}

static void inc32(uint8_t c[16], uint32_t by)
{
    uint32_t v = ((uint32_t)c[12] << 24) | ((uint32_t)c[13] << 16) | ((uint32_t)c[14] << 8) | c[15];
    v += by;
    c[12] = (uint8_t)(v >> 24);
    c[13] = (uint8_t)(v >> 16);
    c[14] = (uint8_t)(v >> 8);
    c[15] = (uint8_t)v;
}

void upq_aes_ctr_xor(const upq_aes_key *k, const uint8_t ctr0[16], uint64_t offset,
                     const uint8_t *in, uint8_t *out, size_t len)
{
    uint8_t ctr[16], ks[16];
    unsigned skip = (unsigned)(offset & 15u);
    upq_memcpy(ctr, ctr0, 16);
    inc32(ctr, (uint32_t)(offset >> 4));
    while (len) {
        unsigned i, n = 16u - skip;
        if (n > len)
            n = (unsigned)len;
        block(k, ctr, ks);
        for (i = 0; i < n; i++)
            out[i] = (uint8_t)(in[i] ^ ks[skip + i]);
        in += n;
        out += n;
        len -= n;
        skip = 0;
        inc32(ctr, 1);
    }
    upq_memset(ks, 0, sizeof ks);
}

void upq_gcm_start(upq_gcm *g, const upq_aes_key *k, const uint8_t *iv, size_t iv_len)
{
    upq_memset(g, 0, sizeof *g);
    if (iv_len == 12) {
        upq_memcpy(g->j0, iv, 12);
        g->j0[15] = 1;
    } else { /* J0 = GHASH(IV || pad || [0]64 || [len(IV)]64) */
        uint8_t lens[16];
        ghash_bytes(g, k, iv, iv_len);
        ghash_pad(g, k);
        upq_memset(lens, 0, 8);
        store_be64(lens + 8, (uint64_t)iv_len * 8u);
        ghash_block(g, k, lens);
        upq_memcpy(g->j0, g->y, 16);
        upq_memset(g->y, 0, 16);
    }
}

void upq_gcm_aad(upq_gcm *g, const upq_aes_key *k, const uint8_t *aad, size_t len)
{
    g->aad_len += len;
    ghash_bytes(g, k, aad, len);
}

void upq_gcm_text(upq_gcm *g, const upq_aes_key *k, const uint8_t *ct, size_t len)
{
    if (!g->in_text) {
        ghash_pad(g, k);
        g->in_text = 1;
    }
    g->text_len += len;
    ghash_bytes(g, k, ct, len);
}

void upq_gcm_ctr0(const upq_gcm *g, uint8_t ctr0[16])
{
    upq_memcpy(ctr0, g->j0, 16);
    inc32(ctr0, 1);
}

void upq_gcm_finish(upq_gcm *g, const upq_aes_key *k, uint8_t tag[16])
{
    uint8_t lens[16], ek[16];
    unsigned i;
    ghash_pad(g, k);
    store_be64(lens, g->aad_len * 8u);
    store_be64(lens + 8, g->text_len * 8u);
    ghash_block(g, k, lens);
    block(k, g->j0, ek);
    for (i = 0; i < 16; i++)
        tag[i] = (uint8_t)(g->y[i] ^ ek[i]);
    upq_memset(ek, 0, sizeof ek);
}

void upq_gcm_encrypt(const upq_aes_key *k, const uint8_t *iv, size_t iv_len, const uint8_t *aad,
                     size_t aad_len, const uint8_t *in, uint8_t *out, size_t len, uint8_t tag[16])
{
    upq_gcm g;
    uint8_t ctr0[16];
    upq_gcm_start(&g, k, iv, iv_len);
    upq_gcm_aad(&g, k, aad, aad_len);
    upq_gcm_ctr0(&g, ctr0);
    upq_aes_ctr_xor(k, ctr0, 0, in, out, len);
    upq_gcm_text(&g, k, out, len);
    upq_gcm_finish(&g, k, tag);
}

upq_status upq_gcm_decrypt(const upq_aes_key *k, const uint8_t *iv, size_t iv_len,
                           const uint8_t *aad, size_t aad_len, const uint8_t *in, uint8_t *out,
                           size_t len, const uint8_t *tag, size_t tag_len)
{
    upq_gcm g;
    uint8_t ctr0[16], mine[16];
    int ok;
    if (tag_len < 4 || tag_len > 16)
        return UPQ_ERR_INVAL;
    upq_gcm_start(&g, k, iv, iv_len);
    upq_gcm_aad(&g, k, aad, aad_len);
    upq_gcm_text(&g, k, in, len);
    upq_gcm_finish(&g, k, mine);
    ok = upq_ct_equal(mine, tag, tag_len);
    upq_memset(mine, 0, sizeof mine);
    if (!ok)
        return UPQ_ERR_AUTH;
    upq_gcm_ctr0(&g, ctr0);
    upq_aes_ctr_xor(k, ctr0, 0, in, out, len);
    return UPQ_OK;
}

#else /* !UPQ_WITH_CRYPTO */

struct upq_aes_key {
    uint8_t unused;
};

size_t upq_aes_key_size(void)
{
    return 0;
}

upq_status upq_aes_setkey(upq_aes_key *k, const uint8_t *key, size_t key_len)
{
    (void)k;
    (void)key;
    (void)key_len;
    return UPQ_ERR_UNSUPPORTED;
}

void upq_aes_wipe(upq_aes_key *k)
{
    (void)k;
}

void upq_aes_ctr_xor(const upq_aes_key *k, const uint8_t ctr0[16], uint64_t offset,
                     const uint8_t *in, uint8_t *out, size_t len)
{
    (void)k;
    (void)ctr0;
    (void)offset;
    (void)in;
    (void)out;
    (void)len;
}

void upq_gcm_start(upq_gcm *g, const upq_aes_key *k, const uint8_t *iv, size_t iv_len)
{
    (void)k;
    (void)iv;
    (void)iv_len;
    upq_memset(g, 0, sizeof *g);
}

void upq_gcm_aad(upq_gcm *g, const upq_aes_key *k, const uint8_t *aad, size_t len)
{
    (void)g;
    (void)k;
    (void)aad;
    (void)len;
}

void upq_gcm_text(upq_gcm *g, const upq_aes_key *k, const uint8_t *ct, size_t len)
{
    (void)g;
    (void)k;
    (void)ct;
    (void)len;
}

void upq_gcm_finish(upq_gcm *g, const upq_aes_key *k, uint8_t tag[16])
{
    (void)g;
    (void)k;
    upq_memset(tag, 0, 16);
}

void upq_gcm_ctr0(const upq_gcm *g, uint8_t ctr0[16])
{
    (void)g;
    upq_memset(ctr0, 0, 16);
}

upq_status upq_gcm_decrypt(const upq_aes_key *k, const uint8_t *iv, size_t iv_len,
                           const uint8_t *aad, size_t aad_len, const uint8_t *in, uint8_t *out,
                           size_t len, const uint8_t *tag, size_t tag_len)
{
    (void)k;
    (void)iv;
    (void)iv_len;
    (void)aad;
    (void)aad_len;
    (void)in;
    (void)out;
    (void)len;
    (void)tag;
    (void)tag_len;
    return UPQ_ERR_UNSUPPORTED;
}

void upq_gcm_encrypt(const upq_aes_key *k, const uint8_t *iv, size_t iv_len, const uint8_t *aad,
                     size_t aad_len, const uint8_t *in, uint8_t *out, size_t len, uint8_t tag[16])
{
    /* no cipher: encryption is refused as decryption is, and says so with
     * a tag of zeros that no reader authenticates */
    (void)upq_gcm_decrypt(k, iv, iv_len, aad, aad_len, in, out, len, tag, 16);
    upq_memset(tag, 0, 16);
}

#endif

int upq_ct_equal(const uint8_t *a, const uint8_t *b, size_t n)
{
    uint8_t d = 0;
    size_t i;
    for (i = 0; i < n; i++)
        d |= (uint8_t)(a[i] ^ b[i]);
    return d == 0;
}
