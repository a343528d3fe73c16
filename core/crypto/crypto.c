/*
 * Modular encryption framing: module AADs, whole-module encrypt/decrypt for
 * buffers in memory, and a two-pass streamed GCM module for the footer and
 * page headers, which are decoded as they stream.
 */
#include "crypto_int.h"
#include "uparquet/reader.h"
#include "upq_aes.h"
#include "upq_port.h"
#include "common/upq_internal.h"

size_t upq_crypto_key_size(void)
{
    return upq_aes_key_size();
}

static int has_rg_col(int module)
{
    return module != UPQ_MODULE_FOOTER && module != UPQ_MODULE_JOURNAL;
}

static int has_page(int module)
{
    return module == UPQ_MODULE_DATA_PAGE || module == UPQ_MODULE_DATA_PAGE_HEADER;
}

static int ordinal_ok(int32_t v)
{
    return v >= 0 && v <= UPQ_CRYPTO_MAX_ORDINAL;
}

upq_status upq_crypto_module_aad(uint8_t out[7], size_t *len, int module, int32_t rg,
                                 int32_t col, int32_t page)
{
    *len = 0;
    if ((module < UPQ_MODULE_FOOTER || module > UPQ_MODULE_BLOOM_BITSET) &&
        module != UPQ_MODULE_JOURNAL && module != UPQ_MODULE_JOURNAL_BLOB)
        return UPQ_ERR_INVAL;
    out[0] = (uint8_t)module;
    *len = 1;
    if (has_rg_col(module)) {
        if (!ordinal_ok(rg) || !ordinal_ok(col))
            return UPQ_ERR_LIMIT;
        upq_store_le16(out + 1, (uint16_t)rg);
        upq_store_le16(out + 3, (uint16_t)col);
        *len = 5;
    }
    if (has_page(module)) {
        if (!ordinal_ok(page))
            return UPQ_ERR_LIMIT;
        upq_store_le16(out + 5, (uint16_t)page);
        *len = 7;
    }
    return UPQ_OK;
}

int upq_crypto_is_ctr(const upq_file_crypto *fc, int module)
{
    return fc->algorithm == UPQ_CRYPTO_AES_GCM_CTR_V1 &&
           (module == UPQ_MODULE_DATA_PAGE || module == UPQ_MODULE_DICT_PAGE);
}

size_t upq_crypto_overhead(const upq_file_crypto *fc, int module)
{
    return upq_crypto_is_ctr(fc, module) ? UPQ_CRYPTO_CTR_OVERHEAD : UPQ_CRYPTO_GCM_OVERHEAD;
}

upq_status upq_crypto_gcm_begin(upq_gcm *g, const upq_file_crypto *fc,
                                const struct upq_aes_key *k, const uint8_t nonce[12], int module,
                                int32_t rg, int32_t col, int32_t page)
{
    uint8_t suffix[7];
    size_t n;
    upq_status st = upq_crypto_module_aad(suffix, &n, module, rg, col, page);
    if (st != UPQ_OK)
        return st;
    upq_gcm_start(g, k, nonce, UPQ_CRYPTO_NONCE_LEN);
    if (fc->no_aad)
        return UPQ_OK;
    upq_gcm_aad(g, k, fc->aad_prefix.ptr, fc->aad_prefix.len);
    upq_gcm_aad(g, k, fc->aad_file_unique.ptr, fc->aad_file_unique.len);
    upq_gcm_aad(g, k, suffix, n);
    return UPQ_OK;
}

static void ctr_iv(const uint8_t *nonce, uint8_t iv[16])
{
    upq_memcpy(iv, nonce, 12);
    iv[12] = iv[13] = iv[14] = 0;
    iv[15] = 1; /* Parquet's CTR pages count from 1 */
}

upq_status upq_crypto_decrypt_module(const upq_file_crypto *fc, const struct upq_aes_key *key,
                                     int module, int32_t rg, int32_t col, int32_t page,
                                     uint8_t *buf, size_t len, uint8_t **plain, size_t *plain_len)
{
    int ctr = upq_crypto_is_ctr(fc, module);
    size_t over = ctr ? UPQ_CRYPTO_CTR_OVERHEAD : UPQ_CRYPTO_GCM_OVERHEAD;
    size_t n;
    uint8_t *ct;
    *plain = (uint8_t *)0;
    *plain_len = 0;
    if (upq_crypto_key_size() == 0)
        return UPQ_ERR_UNSUPPORTED;
    if (len < over || (uint64_t)upq_load_le32(buf) != (uint64_t)len - 4u)
        return UPQ_ERR_CORRUPT;
    n = len - over;
    ct = buf + 4 + UPQ_CRYPTO_NONCE_LEN;
    if (ctr) {
        uint8_t iv[16];
        upq_status st;
        uint8_t suffix[7];
        size_t sl;
        /* CTR pages carry no AAD, but their ordinals are still bounded */
        st = upq_crypto_module_aad(suffix, &sl, module, rg, col, page);
        if (st != UPQ_OK)
            return st;
        ctr_iv(buf + 4, iv);
        upq_aes_ctr_xor(key, iv, 0, ct, ct, n);
    } else {
        upq_gcm g;
        uint8_t tag[16], ctr0[16];
        int ok;
        upq_status st = upq_crypto_gcm_begin(&g, fc, key, buf + 4, module, rg, col, page);
        if (st != UPQ_OK)
            return st;
        upq_gcm_text(&g, key, ct, n);
        upq_gcm_finish(&g, key, tag);
        ok = upq_ct_equal(tag, ct + n, UPQ_CRYPTO_TAG_LEN);
        if (!ok)
            return UPQ_ERR_AUTH;
        upq_gcm_ctr0(&g, ctr0);
        upq_aes_ctr_xor(key, ctr0, 0, ct, ct, n);
    }
    *plain = ct;
    *plain_len = n;
    return UPQ_OK;
}

upq_status upq_crypto_encrypt_module(const upq_file_crypto *fc, const struct upq_aes_key *key,
                                     int module, int32_t rg, int32_t col, int32_t page,
                                     const uint8_t nonce[12], const uint8_t *in, size_t len,
                                     uint8_t *out, size_t cap, size_t *out_len)
{
    int ctr = upq_crypto_is_ctr(fc, module);
    size_t over = ctr ? UPQ_CRYPTO_CTR_OVERHEAD : UPQ_CRYPTO_GCM_OVERHEAD;
    uint8_t *ct = out + 4 + UPQ_CRYPTO_NONCE_LEN;
    upq_status st;
    *out_len = 0;
    if (upq_crypto_key_size() == 0)
        return UPQ_ERR_UNSUPPORTED;
    if (len > 0x7fffffffu - over)
        return UPQ_ERR_LIMIT;
    if (cap < len + over)
        return UPQ_ERR_BUFFER;
    upq_store_le32(out, (uint32_t)(len + over - 4u));
    upq_memcpy(out + 4, nonce, UPQ_CRYPTO_NONCE_LEN);
    if (ctr) {
        uint8_t iv[16], suffix[7];
        size_t sl;
        st = upq_crypto_module_aad(suffix, &sl, module, rg, col, page);
        if (st != UPQ_OK)
            return st;
        ctr_iv(nonce, iv);
        upq_aes_ctr_xor(key, iv, 0, in, ct, len);
    } else {
        upq_gcm g;
        uint8_t ctr0[16];
        st = upq_crypto_gcm_begin(&g, fc, key, nonce, module, rg, col, page);
        if (st != UPQ_OK)
            return st;
        upq_gcm_ctr0(&g, ctr0);
        upq_aes_ctr_xor(key, ctr0, 0, in, ct, len);
        upq_gcm_text(&g, key, ct, len);
        upq_gcm_finish(&g, key, ct + len);
    }
    *out_len = len + over;
    return UPQ_OK;
}

/* ---- streamed GCM module ------------------------------------------------ */

enum { CM_HEAD = 0, CM_MAC, CM_TAG, CM_PLAIN, CM_END };

void upq_cstream_init(upq_cstream *s, uint64_t off, uint64_t limit, int module, int32_t rg,
                      int32_t col, int32_t page)
{
    upq_memset(s, 0, sizeof *s);
    s->off = off;
    s->limit = limit;
    s->module = (uint8_t)module;
    s->rg = rg;
    s->col = col;
    s->page = page;
    s->stage = CM_HEAD;
}

uint64_t upq_cstream_end(const upq_cstream *s)
{
    return s->off + 4u + s->len;
}

/* Fills dst[s->fill..n) from `off`. */
static upq_status fill_small(upq_cstream *s, const upq_io *io, uint64_t off, uint8_t *dst,
                             uint8_t n, uint64_t *at, const char **what)
{
    while (s->fill < n) {
        size_t got = 0;
        upq_status st = upq_io_read(io, off + s->fill, dst + s->fill, (size_t)(n - s->fill), &got,
                                    what);
        if (st != UPQ_OK) {
            *at = off + s->fill;
            return st;
        }
        s->fill = (uint8_t)(s->fill + got);
    }
    s->fill = 0;
    return UPQ_OK;
}

/* The next piece of the module's ciphertext (from s->pos, at most
 * min(ctlen - s->pos, win_len) bytes) read into win and taken into the GCM
 * tag; *got says how much. */
static upq_status text_piece(upq_cstream *s, const upq_io *io, const struct upq_aes_key *k,
                             uint8_t *win, uint32_t win_len, uint32_t ctlen, size_t *got,
                             uint64_t *at, const char **what)
{
    size_t want = ctlen - s->pos;
    upq_status st;
    if (want > win_len)
        want = win_len;
    *got = 0;
    st = upq_io_read(io, s->off + 16u + s->pos, win, want, got, what);
    if (st != UPQ_OK) {
        *at = s->off + 16u + s->pos;
        return st;
    }
    upq_gcm_text(&s->g, k, win, *got);
    return UPQ_OK;
}

upq_status upq_cstream_next(upq_cstream *s, const upq_io *io, const upq_file_crypto *fc,
                            const struct upq_aes_key *k, uint8_t *win, uint32_t win_len,
                            const uint8_t **out, size_t *out_len, uint64_t *at, const char **what)
{
    upq_status st;
    uint32_t ctlen;
    *out = (const uint8_t *)0;
    *out_len = 0;
    for (;;) {
        ctlen = s->len >= UPQ_CRYPTO_GCM_OVERHEAD - 4u ? s->len - (UPQ_CRYPTO_GCM_OVERHEAD - 4u) : 0;
        switch (s->stage) {
        case CM_HEAD:
            st = fill_small(s, io, s->off, s->head, 16, at, what);
            if (st != UPQ_OK)
                return st;
            s->len = upq_load_le32(s->head);
            *at = s->off;
            if (s->len < UPQ_CRYPTO_GCM_OVERHEAD - 4u) {
                *what = UPQ_MSG("encrypted module shorter than its nonce and tag");
                return UPQ_ERR_CORRUPT;
            }
            if (s->off > s->limit || s->limit - s->off < 4u + (uint64_t)s->len) {
                *what = UPQ_MSG("encrypted module length exceeds its space");
                return UPQ_ERR_CORRUPT;
            }
            st = upq_crypto_gcm_begin(&s->g, fc, k, s->head + 4, s->module, s->rg, s->col, s->page);
            if (st != UPQ_OK) {
                *what = UPQ_MSG("module ordinal beyond 32767");
                return st;
            }
            s->pos = 0;
            s->stage = CM_MAC;
            break;
        case CM_MAC:
            while (s->pos < ctlen) {
                size_t got;
                st = text_piece(s, io, k, win, win_len, ctlen, &got, at, what);
                if (st != UPQ_OK)
                    return st;
                s->pos += (uint32_t)got;
            }
            s->stage = CM_TAG;
            break;
        case CM_TAG: {
            uint8_t mine[16];
            st = fill_small(s, io, s->off + 16u + ctlen, s->tag, 16, at, what);
            if (st != UPQ_OK)
                return st;
            upq_gcm_finish(&s->g, k, mine);
            if (!upq_ct_equal(mine, s->tag, 16)) {
                *at = s->off;
                *what = UPQ_MSG("encrypted module fails authentication (wrong key or AAD, or altered)");
                return UPQ_ERR_AUTH;
            }
            /* the second pass authenticates again what it decrypts, so
             * bytes that differ from the first read are caught before the
             * caller acts on the decoded module (UPQ_DONE comes only then) */
            (void)upq_crypto_gcm_begin(&s->g, fc, k, s->head + 4, s->module, s->rg, s->col,
                                       s->page);
            s->pos = 0;
            s->stage = CM_PLAIN;
            break;
        }
        case CM_PLAIN: {
            size_t got;
            uint8_t ctr0[16], mine[16];
            if (s->pos == ctlen) {
                upq_gcm_finish(&s->g, k, mine);
                if (!upq_ct_equal(mine, s->tag, 16)) {
                    *at = s->off;
                    *what = UPQ_MSG("encrypted module changed between reads");
                    return UPQ_ERR_AUTH;
                }
                s->stage = CM_END;
                return UPQ_DONE;
            }
            st = text_piece(s, io, k, win, win_len, ctlen, &got, at, what);
            if (st != UPQ_OK)
                return st;
            upq_gcm_ctr0(&s->g, ctr0);
            upq_aes_ctr_xor(k, ctr0, s->pos, win, win, got);
            s->pos += (uint32_t)got;
            *out = win;
            *out_len = got;
            return UPQ_OK;
        }
        default: return UPQ_DONE;
        }
    }
}
