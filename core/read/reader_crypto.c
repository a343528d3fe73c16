/*
 * The reader's side of modular encryption: the file's algorithm and AAD
 * parts, keys from the caller's callback, and encrypted column metadata.
 * The footer module itself is streamed by reader_open.c; pages and page
 * headers by column.c.
 */
#include "uparquet/reader.h"
#include "crypto/crypto_int.h"
#include "reader_int.h"
#include "upq_aes.h"
#include "upq_port.h"
#include "common/upq_internal.h"

int32_t upq_reader_rg_ordinal(const upq_reader *r, uint32_t rg)
{
    /* encrypted files always have eager row groups (also during open) */
    const upq_row_group *g = rg < r->meta.row_groups.n ? &r->meta.row_groups.v[rg]
                                                       : upq_reader_row_group(r, rg);
    if (g && UPQ_ISSET(*g, UPQ_ROW_GROUP_ORDINAL))
        return g->ordinal;
    return rg > (uint32_t)UPQ_CRYPTO_MAX_ORDINAL ? -1 : (int32_t)rg;
}

/* Asks the callback for a key and expands it into `mem`. */
static upq_status fetch_key(const upq_reader *r, const upq_bytes *md, const upq_bytes_list *path,
                            struct upq_aes_key *mem)
{
    const upq_decrypt_opts *d = r->opts.decrypt;
    static const upq_bytes none = {(const uint8_t *)0, 0};
    uint8_t key[UPQ_CRYPTO_MAX_KEY];
    size_t kl = 0;
    upq_status st;
    if (!d || !d->get_key)
        return UPQ_ERR_AUTH;
    st = d->get_key(d->key_ctx, md ? md : &none, path, key, &kl);
    if (st == UPQ_OK)
        st = kl > sizeof key ? UPQ_ERR_INVAL : upq_aes_setkey(mem, key, kl);
    else
        st = UPQ_ERR_AUTH;
    upq_memset(key, 0, sizeof key);
    return st;
}

upq_status upq_reader_crypto_begin(upq_reader *r, const upq_encryption_algorithm *alg,
                                   const upq_bytes *key_metadata, int need_key)
{
    const upq_aes_gcm_v1 *p; /* both algorithms' structs have this layout */
    const upq_decrypt_opts *d = r->opts.decrypt;
    upq_status st;
    if (UPQ_ISSET(*alg, UPQ_ENCRYPTION_ALGORITHM_AES_GCM_V1)) {
        r->fc.algorithm = UPQ_CRYPTO_AES_GCM_V1;
        p = &alg->u.aes_gcm_v1;
    } else if (UPQ_ISSET(*alg, UPQ_ENCRYPTION_ALGORITHM_AES_GCM_CTR_V1)) {
        r->fc.algorithm = UPQ_CRYPTO_AES_GCM_CTR_V1;
        p = (const upq_aes_gcm_v1 *)(const void *)&alg->u.aes_gcm_ctr_v1;
    } else {
        return upq_reader_fail(r, UPQ_ERR_UNSUPPORTED, r->footer_start, UPQ_MSG("unknown encryption algorithm"));
    }
    r->fc.aad_file_unique = p->aad_file_unique;
    r->fc.aad_prefix = p->aad_prefix;
    if (d && d->aad_prefix_given) {
        if (UPQ_ISSET(*p, UPQ_AES_GCM_V1_AAD_PREFIX) &&
            (p->aad_prefix.len != d->aad_prefix_len ||
             upq_memcmp(p->aad_prefix.ptr, d->aad_prefix, d->aad_prefix_len) != 0))
            return upq_reader_fail(r, UPQ_ERR_AUTH, r->footer_start,
                                   UPQ_MSG("the AAD prefix given differs from the file's"));
        r->fc.aad_prefix.ptr = d->aad_prefix;
        r->fc.aad_prefix.len = d->aad_prefix_len;
    } else if (UPQ_ISSET(*p, UPQ_AES_GCM_V1_SUPPLY_AAD_PREFIX) && p->supply_aad_prefix &&
               (need_key || (d && d->get_key))) {
        return upq_reader_fail(r, UPQ_ERR_AUTH, r->footer_start,
                               UPQ_MSG("the file's AAD prefix is not stored in it: supply it"));
    }
    /* no file identity at all: a writer (DuckDB) that uses no AAD */
    r->fc.no_aad = (uint8_t)(!UPQ_ISSET(*p, UPQ_AES_GCM_V1_AAD_FILE_UNIQUE) && r->fc.aad_prefix.len == 0 &&
                             !(UPQ_ISSET(*p, UPQ_AES_GCM_V1_SUPPLY_AAD_PREFIX) && p->supply_aad_prefix));
    r->footer_key = (struct upq_aes_key *)upq_arena_alloc(&r->arena, upq_aes_key_size());
    if (!r->footer_key)
        return upq_reader_fail(r, UPQ_ERR_NOMEM, UINT64_MAX, UPQ_MSG("arena too small for the footer key"));
    st = fetch_key(r, key_metadata, (const upq_bytes_list *)0, r->footer_key);
    if (st != UPQ_OK) {
        r->footer_key = (struct upq_aes_key *)0;
        if (st == UPQ_ERR_AUTH && !need_key)
            return UPQ_OK;
        return upq_reader_fail(r, st, r->footer_start,
                               st == UPQ_ERR_AUTH ? UPQ_MSG("no key for the footer")
                                                  : UPQ_MSG("footer key is not 16, 24 or 32 bytes"));
    }
    return UPQ_OK;
}

int upq_reader_implicit_crypto(const upq_reader *r);

static const upq_column_crypto_metadata *chunk_crypto(const upq_column_chunk *ch)
{
    return UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_CRYPTO_METADATA) ? &ch->crypto_metadata
                                                            : (const upq_column_crypto_metadata *)0;
}

/* The key for a chunk: the footer key, or the column's own expanded into
 * mem. UPQ_ERR_AUTH when not available. */
static upq_status chunk_key(upq_reader *r, const upq_column_chunk *ch, struct upq_aes_key *mem,
                            const struct upq_aes_key **key)
{
    const upq_column_crypto_metadata *cm = chunk_crypto(ch);
    *key = (const struct upq_aes_key *)0;
    if (!cm && !upq_reader_implicit_crypto(r))
        return UPQ_OK;
    if (cm && UPQ_ISSET(*cm, UPQ_COLUMN_CRYPTO_METADATA_ENCRYPTION_WITH_COLUMN_KEY)) {
        const upq_encryption_with_column_key *ck = &cm->u.encryption_with_column_key;
        upq_status st;
        if (!mem)
            return UPQ_ERR_NOMEM;
        st = fetch_key(r, &ck->key_metadata, &ck->path_in_schema, mem);
        if (st != UPQ_OK)
            return st;
        *key = mem;
        return UPQ_OK;
    }
    if (!r->footer_key)
        return UPQ_ERR_AUTH;
    *key = r->footer_key;
    return UPQ_OK;
}

upq_status upq_reader_crypto_column_meta(upq_reader *r)
{
    struct upq_aes_key *scratch = (struct upq_aes_key *)0;
    uint32_t g, c;
    if (!r->fc.algorithm)
        return UPQ_OK;
    /* runs at open, where encrypted files always have eager row groups */
    for (g = 0; g < r->meta.row_groups.n; g++) {
        upq_row_group *rg = &r->meta.row_groups.v[g];
        for (c = 0; c < rg->columns.n; c++) {
            upq_column_chunk *ch = &rg->columns.v[c];
            const struct upq_aes_key *key;
            uint8_t *plain;
            size_t plain_len, used = 0;
            upq_status st;
            upq_column_metadata md;
            uint32_t leaf = c;
            if (!UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_ENCRYPTED_COLUMN_METADATA) || !chunk_crypto(ch))
                continue;
            if (r->opts.projection) { /* the chunk's leaf column index */
                uint32_t k, seen = 0;
                for (k = 0; k < r->opts.projection_bits; k++)
                    if ((r->opts.projection[k >> 3] >> (k & 7)) & 1u) {
                        if (seen == c)
                            break;
                        seen++;
                    }
                leaf = k;
            }
            if (!scratch) {
                scratch = (struct upq_aes_key *)upq_arena_alloc(&r->arena, upq_aes_key_size());
                if (!scratch)
                    return upq_reader_fail(r, UPQ_ERR_NOMEM, UINT64_MAX,
                                           UPQ_MSG("arena too small for a column key"));
            }
            st = chunk_key(r, ch, scratch, &key);
            if (st == UPQ_ERR_AUTH)
                continue; /* no key: the column fails when read */
            if (st != UPQ_OK) {
                r->err.row_group = (int32_t)g;
                r->err.column = (int32_t)leaf;
                return upq_reader_fail(r, st, UINT64_MAX, UPQ_MSG("column key is not 16, 24 or 32 bytes"));
            }
            /* the encrypted bytes were copied into the arena by the decoder:
             * ours to decrypt in place */
            st = upq_crypto_decrypt_module(&r->fc, key, UPQ_MODULE_COLUMN_META,
                                           upq_reader_rg_ordinal(r, g), (int32_t)leaf,
                                           -1, (uint8_t *)(uintptr_t)ch->encrypted_column_metadata.ptr,
                                           ch->encrypted_column_metadata.len, &plain, &plain_len);
            if (st == UPQ_OK) {
                upq_memset(&md, 0, sizeof md);
                st = upq_thrift_decode(&upq_column_metadata_desc, &md, &r->arena, plain, plain_len,
                                       &used, &r->opts.limits);
                /* bytes after the struct are authenticated padding, which
                 * some writers leave (as in the footer) */
            }
            if (st != UPQ_OK) {
                r->err.row_group = (int32_t)g;
                r->err.column = (int32_t)leaf;
                r->err.in_struct = UPQ_MSG("ColumnMetaData");
                return upq_reader_fail(r, st == UPQ_ERR_TRUNCATED ? UPQ_ERR_CORRUPT : st, UINT64_MAX,
                                       st == UPQ_ERR_AUTH ? UPQ_MSG("encrypted column metadata fails authentication")
                                       : st == UPQ_ERR_NOMEM ? UPQ_MSG("arena too small for column metadata")
                                                             : UPQ_MSG("malformed encrypted column metadata"));
            }
            upq_memcpy(&ch->meta_data, &md, sizeof md);
            UPQ_SET(*ch, UPQ_COLUMN_CHUNK_META_DATA);
            UPQ_SET(*ch, UPQ_COLUMN_CHUNK_ENCRYPTED_COLUMN_METADATA); /* still marks it */
        }
    }
    if (scratch)
        upq_aes_wipe(scratch);
    return UPQ_OK;
}

int upq_reader_implicit_crypto(const upq_reader *r)
{
    /* DuckDB encrypts every column of a PARE file with the footer key
     * without marking them (and uses no AAD); spec writers always mark
     * encrypted columns and always store aad_file_unique */
    return r->enc == UPQ_CRYPT_FOOTER && r->fc.no_aad;
}

#if UPQ_WITH_CRYPTO
upq_status upq_reader_chunk_key(upq_reader *r, uint32_t rg, uint32_t column, upq_arena_mark mark,
                                const struct upq_aes_key **key, const char **what)
{
    void *mem;
    upq_status st;
    *what = UPQ_MSG_NO_DECRYPTION;
    if (upq_crypto_key_size() == 0)
        return UPQ_ERR_UNSUPPORTED;
    mem = upq_arena_alloc(&r->arena, upq_crypto_key_size());
    if (!mem) {
        *what = UPQ_MSG("arena too small for the column key");
        return UPQ_ERR_NOMEM;
    }
    st = upq_reader_column_key(r, rg, column, mem, key);
    if (st != UPQ_OK) {
        *what = st == UPQ_ERR_AUTH ? UPQ_MSG("no key for this encrypted column")
                                   : UPQ_MSG("column key is not 16, 24 or 32 bytes");
        return st;
    }
    if (*key != mem)
        upq_arena_rewind(&r->arena, mark); /* the footer key serves */
    return UPQ_OK;
}
#endif

upq_status upq_reader_column_key(upq_reader *r, uint32_t rg, uint32_t column, void *mem,
                                 const struct upq_aes_key **key)
{
    const upq_column_chunk *ch = upq_reader_chunk(r, rg, column);
    upq_status st;
    *key = (const struct upq_aes_key *)0;
    if (!ch)
        return UPQ_ERR_INVAL;
    if (!chunk_crypto(ch) && !upq_reader_implicit_crypto(r))
        return UPQ_OK;
    if (upq_crypto_key_size() == 0)
        return UPQ_ERR_UNSUPPORTED;
    st = chunk_key(r, ch, (struct upq_aes_key *)mem, key);
    if (st != UPQ_OK) {
        r->err.status = st;
        r->err.needed = 0;
        r->err.row_group = (int32_t)rg;
        r->err.column = (int32_t)column;
        r->err.page = -1;
        r->err.offset = UINT64_MAX;
        r->err.what = st == UPQ_ERR_AUTH ? UPQ_MSG("no key for this encrypted column")
                                         : UPQ_MSG("column key is not 16, 24 or 32 bytes");
    }
    return st;
}
