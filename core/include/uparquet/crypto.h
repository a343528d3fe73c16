/*
 * Parquet modular encryption: keys, AADs and module framing.
 *
 * Every encrypted module is stored as
 *   GCM: length (4 bytes LE) | nonce (12) | ciphertext | tag (16)
 *   CTR: length (4 bytes LE) | nonce (12) | ciphertext   (pages of AES_GCM_CTR_V1)
 * where length counts the bytes after itself. A GCM module's AAD is
 *   aad_prefix | aad_file_unique | module type (1) | row group ordinal (2, LE)
 *   | column ordinal (2, LE) | page ordinal (2, LE)
 * with the ordinals only for the module types that have them.
 *
 * Keys come from the caller (upq_key_fn), given the key_metadata stored in
 * the file and the column's path, so any key management scheme fits.
 */
#ifndef UPARQUET_CRYPTO_H
#define UPARQUET_CRYPTO_H

#include <stddef.h>
#include <stdint.h>
#include "status.h"
#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Module types of the AAD suffix. */
enum {
    UPQ_MODULE_FOOTER = 0,
    UPQ_MODULE_COLUMN_META = 1,
    UPQ_MODULE_DATA_PAGE = 2,
    UPQ_MODULE_DICT_PAGE = 3,
    UPQ_MODULE_DATA_PAGE_HEADER = 4,
    UPQ_MODULE_DICT_PAGE_HEADER = 5,
    UPQ_MODULE_COLUMN_INDEX = 6,
    UPQ_MODULE_OFFSET_INDEX = 7,
    UPQ_MODULE_BLOOM_HEADER = 8,
    UPQ_MODULE_BLOOM_BITSET = 9,
    /* µparquet's own, for the journal of checkpoint mode (no reader sees
     * them): a record under the footer key (no ordinals), and a blob of a
     * column's dictionary entries under its key (row group, column) */
    UPQ_MODULE_JOURNAL = 64,
    UPQ_MODULE_JOURNAL_BLOB = 65
};

#define UPQ_CRYPTO_NONCE_LEN 12u
#define UPQ_CRYPTO_TAG_LEN 16u
#define UPQ_CRYPTO_GCM_OVERHEAD 32u /* length + nonce + tag */
#define UPQ_CRYPTO_CTR_OVERHEAD 16u /* length + nonce */
#define UPQ_CRYPTO_MAX_KEY 32u
#define UPQ_CRYPTO_MAX_ORDINAL 32767 /* ordinals are int16 in the AAD */

/* Which algorithm a file uses (the EncryptionAlgorithm union's field ids). */
enum { UPQ_CRYPTO_NONE = 0, UPQ_CRYPTO_AES_GCM_V1 = 1, UPQ_CRYPTO_AES_GCM_CTR_V1 = 2 };

/*
 * Supplies a key. `key_metadata` is what the file stores for that key (len 0
 * when absent); `path` is the column's path in the schema, or NULL for the
 * footer key (which also encrypts the columns marked "with footer key").
 * Write 16, 24 or 32 bytes to key[] and set *key_len; return UPQ_OK, or
 * UPQ_ERR_AUTH when the key is not available (reading what needs it then
 * fails with UPQ_ERR_AUTH).
 */
typedef upq_status (*upq_key_fn)(void *ctx, const upq_bytes *key_metadata,
                                 const upq_bytes_list *path, uint8_t key[UPQ_CRYPTO_MAX_KEY],
                                 size_t *key_len);

/* Reader side (upq_reader_opts.decrypt). */
typedef struct upq_decrypt_opts {
    upq_key_fn get_key;
    void *key_ctx;
    /* The AAD prefix, for files that do not store it (supply_aad_prefix);
     * when the file stores one and this is given too, they must agree. */
    const uint8_t *aad_prefix;
    uint32_t aad_prefix_len;
    uint8_t aad_prefix_given;
} upq_decrypt_opts;

/* A file's encryption parameters (all bytes owned by the reader or writer). */
typedef struct upq_file_crypto {
    uint8_t algorithm;      /* UPQ_CRYPTO_* */
    upq_bytes aad_prefix;   /* stored in the file or supplied */
    upq_bytes aad_file_unique;
    /* No AAD at all: files without aad_file_unique or prefix, as DuckDB
     * writes them, authenticate every module without one. */
    uint8_t no_aad;
} upq_file_crypto;

struct upq_aes_key; /* codecs/upq_aes.h: expanded key in caller memory */

/* Running GHASH state of one GCM message (driven by codecs/upq_aes.h). */
typedef struct upq_gcm {
    uint8_t y[16];     /* GHASH accumulator */
    uint8_t j0[16];    /* pre-counter block */
    uint8_t part[16];  /* bytes of an unfinished block */
    uint8_t part_n;
    uint8_t in_text;   /* AAD finished, text started */
    uint64_t aad_len, text_len;
} upq_gcm;

/* Bytes one expanded key takes (0 in a build without crypto). */
size_t upq_crypto_key_size(void);

/*
 * The AAD suffix's module part for `module`: type byte and the ordinals the
 * type carries (rg, col, page; pass -1 for those it does not). out gets 1, 5
 * or 7 bytes (*len). UPQ_ERR_LIMIT when an ordinal it needs is outside
 * 0..32767 (never wrapped).
 */
upq_status upq_crypto_module_aad(uint8_t out[7], size_t *len, int module, int32_t rg,
                                 int32_t col, int32_t page);

/*
 * Decrypts one whole module held in buf[0..len) (its length field first), in
 * place. GCM modules are authenticated before any plaintext is written; CTR
 * is used only when `module` is a page of an AES_GCM_CTR_V1 file. *plain /
 * *plain_len get the plaintext (inside buf). Returns UPQ_OK; UPQ_ERR_AUTH
 * (tag mismatch: wrong key, AAD or tampering); UPQ_ERR_CORRUPT (length field
 * disagrees with len, or too short); UPQ_ERR_LIMIT (ordinal out of range);
 * UPQ_ERR_UNSUPPORTED without crypto. Bloom filters, page indexes and any
 * other module read outside the column reader go through this call.
 */
upq_status upq_crypto_decrypt_module(const upq_file_crypto *fc, const struct upq_aes_key *key,
                                     int module, int32_t rg, int32_t col, int32_t page,
                                     uint8_t *buf, size_t len, uint8_t **plain, size_t *plain_len);

/*
 * Encrypts in[0..len) as one module into out[0..cap) (length field first),
 * with the 12-byte nonce given (never reuse one with the same key). *out_len
 * gets the module size (len + overhead). in and out must not overlap.
 * UPQ_ERR_BUFFER when cap is too small, UPQ_ERR_LIMIT for an ordinal out of
 * range or a module over 2 GB.
 */
upq_status upq_crypto_encrypt_module(const upq_file_crypto *fc, const struct upq_aes_key *key,
                                     int module, int32_t rg, int32_t col, int32_t page,
                                     const uint8_t nonce[12], const uint8_t *in, size_t len,
                                     uint8_t *out, size_t cap, size_t *out_len);

/* Module overhead in bytes for `module` under the file's algorithm. */
size_t upq_crypto_overhead(const upq_file_crypto *fc, int module);

/*
 * A GCM module read from a file in two passes through a small window: the
 * first authenticates the ciphertext, the second decrypts it and hands the
 * plaintext out in window-sized pieces, so no plaintext is seen before the
 * tag verifies and memory stays O(window) whatever the module's size.
 * Internal to the reader; public only so reader structs can hold it.
 */
typedef struct upq_cstream {
    upq_gcm g;
    uint64_t off;         /* file offset of the module's length field */
    uint64_t limit;       /* the module must end at or before this offset */
    uint32_t len;         /* bytes after the length field */
    uint32_t pos;         /* ciphertext bytes done in the current pass */
    uint8_t stage, fill;
    uint8_t head[28];     /* length + nonce (a plaintext footer signature: nonce + tag) */
    uint8_t tag[16];
    uint8_t module;
    int32_t rg, col, page;
} upq_cstream;

#ifdef __cplusplus
}
#endif

#endif
