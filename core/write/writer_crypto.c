/*
 * The writer's side of modular encryption: keys, nonces and their budget,
 * modules sealed in place (pages, page headers, dictionary pages, column
 * metadata) and modules streamed through the output window (page indexes,
 * the encrypted footer, the plaintext footer's signature).
 */
#include "writer_crypto.h"
#include "crypto/crypto_int.h"
#include "upq_aes.h"

#if UPQ_WITH_WRITER

/* NIST SP 800-38D 8.3: at most 2^32 invocations of GCM with random nonces
 * per key. */
#define MAX_USES ((uint64_t)1 << 32)

static size_t key_bytes(void)
{
    return upq_w_align8(upq_aes_key_size());
}

size_t upq_wc_need(const upq_writer_opts *o)
{
    const upq_encrypt_opts *e = o->encrypt;
    if (!e)
        return 0;
    return upq_w_align8(sizeof(upq_wcrypto)) + upq_w_align8((size_t)e->ncolumns * sizeof(upq_wkey)) +
           ((size_t)e->ncolumns + 1u) * key_bytes();
}

static upq_status set_key(upq_writer *w, upq_wkey *k, uint8_t *mem, const uint8_t *key, uint32_t len,
                          const uint8_t *md, uint32_t md_len, int own)
{
    k->k = (struct upq_aes_key *)(void *)mem;
    k->uses = 0;
    k->md = md;
    k->md_len = md_len;
    k->own = (uint8_t)own;
    if (!key || upq_aes_setkey(k->k, key, len) != UPQ_OK)
        return upq_w_fail(w, UPQ_ERR_INVAL, -1, "encryption key is not 16, 24 or 32 bytes");
    return UPQ_OK;
}

upq_status upq_wc_init(upq_writer *w, void *mem)
{
    const upq_encrypt_opts *e = w->o.encrypt;
    upq_wcrypto *wc = (upq_wcrypto *)mem;
    uint8_t *p = (uint8_t *)mem;
    upq_aes_gcm_v1 *a;
    uint32_t i;
    upq_status st;
    if (!e)
        return UPQ_OK;
    if (upq_aes_key_size() == 0)
        return upq_w_fail(w, UPQ_ERR_UNSUPPORTED, -1, "encryption: this build has no crypto");
    /* direct mode encodes each page twice and compares the two; pages under
     * fresh nonces would differ, so the modes stay apart */
    if (w->o.direct)
        return upq_w_fail(w, UPQ_ERR_UNSUPPORTED, -1,
                          "direct mode cannot be combined with encryption");
    if (!e->random)
        return upq_w_fail(w, UPQ_ERR_INVAL, -1, "encryption needs a random source");
    if (e->algorithm > UPQ_CRYPTO_AES_GCM_CTR_V1)
        return upq_w_fail(w, UPQ_ERR_INVAL, -1, "unknown encryption algorithm");
    if (w->ncols - 1u > (uint32_t)UPQ_CRYPTO_MAX_ORDINAL)
        return upq_w_fail(w, UPQ_ERR_LIMIT, -1, "more than 32768 columns cannot be encrypted");
    upq_memset(wc, 0, sizeof *wc);
    p += upq_w_align8(sizeof *wc);
    wc->cols = (upq_wkey *)(void *)p;
    wc->ncols = e->ncolumns;
    p += upq_w_align8((size_t)e->ncolumns * sizeof(upq_wkey));
    st = set_key(w, &wc->footer, p, e->footer_key, e->footer_key_len, e->footer_key_metadata,
                 e->footer_key_metadata_len, 0);
    if (st != UPQ_OK)
        return st;
    p += key_bytes();
    for (i = 0; i < w->ncols; i++)
        w->cols[i].key = e->ncolumns ? (upq_wkey *)0 : &wc->footer;
    for (i = 0; i < e->ncolumns; i++) {
        const upq_column_key *ck = &e->columns[i];
        if (ck->column >= w->ncols || w->cols[ck->column].key)
            return upq_w_fail(w, UPQ_ERR_INVAL, -1, "column key for a missing or repeated column");
        st = set_key(w, &wc->cols[i], p, ck->key, ck->key_len, ck->key_metadata,
                     ck->key_metadata_len, 1);
        if (st != UPQ_OK)
            return st;
        p += key_bytes();
        w->cols[ck->column].key = &wc->cols[i];
    }
    if (e->random(e->random_ctx, wc->unique, sizeof wc->unique) != UPQ_OK)
        return upq_w_fail(w, UPQ_ERR_IO, -1, "random source failed");
    wc->fc.algorithm = e->algorithm ? e->algorithm : (uint8_t)UPQ_CRYPTO_AES_GCM_V1;
    wc->fc.aad_prefix.ptr = e->aad_prefix;
    wc->fc.aad_prefix.len = e->aad_prefix ? e->aad_prefix_len : 0;
    wc->fc.aad_file_unique.ptr = wc->unique;
    wc->fc.aad_file_unique.len = sizeof wc->unique;
    /* the algorithm as files store it */
    if (wc->fc.algorithm == UPQ_CRYPTO_AES_GCM_V1) {
        UPQ_SET(wc->alg, UPQ_ENCRYPTION_ALGORITHM_AES_GCM_V1);
        a = &wc->alg.u.aes_gcm_v1;
    } else {
        UPQ_SET(wc->alg, UPQ_ENCRYPTION_ALGORITHM_AES_GCM_CTR_V1);
        a = (upq_aes_gcm_v1 *)(void *)&wc->alg.u.aes_gcm_ctr_v1;
    }
    a->aad_file_unique = wc->fc.aad_file_unique;
    UPQ_SET(*a, UPQ_AES_GCM_V1_AAD_FILE_UNIQUE);
    if (wc->fc.aad_prefix.len) {
        if (e->no_store_aad_prefix) {
            a->supply_aad_prefix = 1;
            UPQ_SET(*a, UPQ_AES_GCM_V1_SUPPLY_AAD_PREFIX);
        } else {
            a->aad_prefix = wc->fc.aad_prefix;
            UPQ_SET(*a, UPQ_AES_GCM_V1_AAD_PREFIX);
        }
    }
    /* not an assignment: gcc makes it a memcpy call on RV32 */
    upq_memcpy(&wc->fcm.encryption_algorithm, &wc->alg, sizeof wc->alg);
    UPQ_SET(wc->fcm, UPQ_FILE_CRYPTO_METADATA_ENCRYPTION_ALGORITHM);
    if (e->footer_key_metadata_len) {
        wc->fcm.key_metadata.ptr = e->footer_key_metadata;
        wc->fcm.key_metadata.len = e->footer_key_metadata_len;
        UPQ_SET(wc->fcm, UPQ_FILE_CRYPTO_METADATA_KEY_METADATA);
    }
    w->wc = wc;
    return UPQ_OK;
}

upq_status upq_wc_nonce(upq_writer *w, upq_wkey *k, uint8_t nonce[12])
{
    const upq_encrypt_opts *e = w->o.encrypt;
    if (k->uses >= MAX_USES)
        return upq_w_fail(w, UPQ_ERR_LIMIT, -1, "key used for 2^32 GCM invocations: use a new key");
    if (e->random(e->random_ctx, nonce, 12) != UPQ_OK)
        return upq_w_fail(w, UPQ_ERR_IO, -1, "random source failed");
    /* XORed in: the key's invocation count and the writing session of a
     * checkpoint-mode file (each resume and recovery has its own), so a
     * random source that repeats itself after a reboot still never gives
     * a nonce used before in the file */
    {
        uint32_t n = (uint32_t)k->uses;
        uint16_t s = w->session;
        nonce[0] ^= (uint8_t)n;
        nonce[1] ^= (uint8_t)(n >> 8);
        nonce[2] ^= (uint8_t)(n >> 16);
        nonce[3] ^= (uint8_t)(n >> 24);
        nonce[4] ^= (uint8_t)s;
        nonce[5] ^= (uint8_t)(s >> 8);
    }
    k->uses++;
    return UPQ_OK;
}

upq_status upq_wc_seal(upq_writer *w, upq_wkey *k, int module, int32_t col, int32_t page,
                       uint8_t *buf, size_t len, const uint8_t *nonce, size_t *out_len)
{
    upq_wcrypto *wc = w->wc;
    int32_t rg = w->num_rg > (uint32_t)UPQ_CRYPTO_MAX_ORDINAL ? -1 : (int32_t)w->num_rg;
    uint8_t n[12], suffix[7];
    size_t sl, over = upq_crypto_overhead(&wc->fc, module);
    upq_status st;
    *out_len = 0;
    if (upq_crypto_module_aad(suffix, &sl, module, rg, col, page) != UPQ_OK)
        return upq_w_fail(w, UPQ_ERR_LIMIT, col,
                          "encrypted module ordinal beyond 32767 (row group, column or page)");
    if (len > 0x7fffffffu - over)
        return upq_w_fail(w, UPQ_ERR_LIMIT, col, "encrypted module larger than 2 GiB");
    if (nonce) {
        upq_memcpy(n, nonce, 12);
    } else {
        st = upq_wc_nonce(w, k, n);
        if (st != UPQ_OK)
            return st;
    }
    upq_store_le32(buf, (uint32_t)(len + over - 4u));
    upq_memcpy(buf + 4, n, 12);
    if (upq_crypto_is_ctr(&wc->fc, module)) {
        uint8_t iv[16];
        upq_memcpy(iv, n, 12);
        iv[12] = iv[13] = iv[14] = 0;
        iv[15] = 1;
        upq_aes_ctr_xor(k->k, iv, 0, buf + 16, buf + 16, len);
    } else {
        upq_gcm g;
        uint8_t ctr0[16];
        (void)upq_crypto_gcm_begin(&g, &wc->fc, k->k, n, module, rg, col, page);
        upq_gcm_ctr0(&g, ctr0);
        upq_aes_ctr_xor(k->k, ctr0, 0, buf + 16, buf + 16, len);
        upq_gcm_text(&g, k->k, buf + 16, len);
        upq_gcm_finish(&g, k->k, buf + 16 + len);
    }
    *out_len = len + over;
    return UPQ_OK;
}

upq_status upq_wc_stream_begin(upq_writer *w, upq_wkey *k, int module, int32_t col,
                               uint32_t ct_len, uint8_t mode)
{
    upq_wcrypto *wc = w->wc;
    int32_t rg = w->num_rg > (uint32_t)UPQ_CRYPTO_MAX_ORDINAL ? -1 : (int32_t)w->num_rg;
    upq_status st = upq_wc_nonce(w, k, wc->head + 4);
    if (st != UPQ_OK)
        return st;
    wc->mk = k;
    wc->off = 0;
    if (upq_crypto_is_ctr(&wc->fc, module)) {
        /* a page of AES_GCM_CTR_V1: counter from nonce || 1, no tag */
        upq_store_le32(wc->head, ct_len + UPQ_CRYPTO_CTR_OVERHEAD - 4u);
        upq_memcpy(wc->ctr0, wc->head + 4, 12);
        wc->ctr0[12] = wc->ctr0[13] = wc->ctr0[14] = 0;
        wc->ctr0[15] = 1;
        wc->mode = UPQ_WS_CTR;
        return UPQ_OK;
    }
    upq_store_le32(wc->head, ct_len + UPQ_CRYPTO_GCM_OVERHEAD - 4u);
    if (upq_crypto_gcm_begin(&wc->g, &wc->fc, k->k, wc->head + 4, module, rg, col, -1) != UPQ_OK)
        return upq_w_fail(w, UPQ_ERR_LIMIT, col, "encrypted module ordinal beyond 32767");
    upq_gcm_ctr0(&wc->g, wc->ctr0);
    wc->off = 0;
    wc->mk = k;
    wc->mode = mode;
    return UPQ_OK;
}

void upq_wc_stream_piece(upq_writer *w, uint8_t *p, size_t n)
{
    upq_wcrypto *wc = w->wc;
    if (wc->mode == UPQ_WS_CTR) {
        upq_aes_ctr_xor(wc->mk->k, wc->ctr0, wc->off, p, p, n);
        wc->off += n;
        return;
    }
    if (wc->mode == UPQ_WS_ENCRYPT) {
        upq_aes_ctr_xor(wc->mk->k, wc->ctr0, wc->off, p, p, n);
        upq_gcm_text(&wc->g, wc->mk->k, p, n);
        wc->off += n;
        return;
    }
    /* signing: the tag of the bytes as if encrypted; they go out as they
     * are (the scratch is on the stack: in checkpoint mode pbuf holds the
     * encrypted ColumnMetaData being signed) */
    while (n) {
        uint8_t tmp[64];
        size_t k = n < sizeof tmp ? n : sizeof tmp;
        upq_aes_ctr_xor(wc->mk->k, wc->ctr0, wc->off, p, tmp, k);
        upq_gcm_text(&wc->g, wc->mk->k, tmp, k);
        wc->off += k;
        p += k;
        n -= k;
    }
}

void upq_wc_stream_tag(upq_writer *w, uint8_t tag[16])
{
    upq_wcrypto *wc = w->wc;
    upq_gcm_finish(&wc->g, wc->mk->k, tag);
    wc->mode = UPQ_WS_NONE;
}

#endif /* UPQ_WITH_WRITER */
