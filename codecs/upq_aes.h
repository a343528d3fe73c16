/*
 * AES-GCM and AES-CTR for Parquet modular encryption, on mbedtls's AES block
 * cipher alone.
 *
 * mbedtls's own GCM goes through its cipher layer, which allocates the AES
 * context on the heap; here the AES context is a plain struct in caller
 * memory (upq_aes_key, opaque, upq_aes_key_size() bytes, 8-byte aligned) and
 * GHASH is computed by this adapter (4-bit tables in the key object). No
 * heap, no static mutable state; contexts never move once keyed (mbedtls
 * keeps a pointer into its own context).
 *
 * GCM runs in pieces so that a module too large for memory can be
 * authenticated in one pass over its ciphertext and decrypted in a second:
 * upq_gcm_start, any number of upq_gcm_aad, then any number of
 * upq_gcm_text (ciphertext), then upq_gcm_finish. upq_aes_ctr_xor produces
 * the keystream at any offset, stateless, so either pass can stop and resume.
 */
#ifndef UPQ_AES_H
#define UPQ_AES_H

#include <stddef.h>
#include <stdint.h>
#include "uparquet/crypto.h"

#define UPQ_GCM_TAG_LEN 16u
#define UPQ_GCM_NONCE_LEN 12u

typedef struct upq_aes_key upq_aes_key; /* opaque: mbedtls AES context + GHASH tables */

/* upq_gcm (the running GHASH state) is in uparquet/crypto.h. */

/* Bytes a upq_aes_key needs (0 when the build has no crypto). */
size_t upq_aes_key_size(void);

/* Expands `key` (16, 24 or 32 bytes) into mem (upq_aes_key_size() bytes,
 * 8-byte aligned, owned by the caller; it must not move afterwards).
 * Returns UPQ_OK, UPQ_ERR_INVAL for another key length, or
 * UPQ_ERR_UNSUPPORTED without crypto. */
upq_status upq_aes_setkey(upq_aes_key *mem, const uint8_t *key, size_t key_len);

/* Wipes a key object. */
void upq_aes_wipe(upq_aes_key *k);

/*
 * Counter mode: out = in XOR keystream, for bytes [offset, offset+len) of a
 * stream whose first counter block is ctr0 (16 bytes); the last 32 bits of
 * the block count up (big-endian, wrapping), as GCM and Parquet's CTR pages
 * use. in and out may be the same buffer.
 */
void upq_aes_ctr_xor(const upq_aes_key *k, const uint8_t ctr0[16], uint64_t offset,
                     const uint8_t *in, uint8_t *out, size_t len);

/* GCM: starts a message with an IV of any length (Parquet uses 12 bytes). */
void upq_gcm_start(upq_gcm *g, const upq_aes_key *k, const uint8_t *iv, size_t iv_len);
/* Adds additional authenticated data (only before any text). */
void upq_gcm_aad(upq_gcm *g, const upq_aes_key *k, const uint8_t *aad, size_t len);
/* Authenticates ciphertext (it does not encrypt or decrypt). */
void upq_gcm_text(upq_gcm *g, const upq_aes_key *k, const uint8_t *ct, size_t len);
/* The 16-byte tag of everything given. */
void upq_gcm_finish(upq_gcm *g, const upq_aes_key *k, uint8_t tag[16]);
/* The first counter block of the message's text (J0 + 1). */
void upq_gcm_ctr0(const upq_gcm *g, uint8_t ctr0[16]);

/* 1 when a[0..n) equals b[0..n), in time independent of the contents. */
int upq_ct_equal(const uint8_t *a, const uint8_t *b, size_t n);

/*
 * One-shot GCM. Encrypt: out gets the ciphertext, tag the tag. Decrypt:
 * checks `tag_len` bytes (4..16) of the tag over in[] first and only then
 * writes the plaintext; UPQ_ERR_AUTH (out untouched) when it does not match.
 * in and out may be the same buffer.
 */
void upq_gcm_encrypt(const upq_aes_key *k, const uint8_t *iv, size_t iv_len, const uint8_t *aad,
                     size_t aad_len, const uint8_t *in, uint8_t *out, size_t len, uint8_t tag[16]);
upq_status upq_gcm_decrypt(const upq_aes_key *k, const uint8_t *iv, size_t iv_len,
                           const uint8_t *aad, size_t aad_len, const uint8_t *in, uint8_t *out,
                           size_t len, const uint8_t *tag, size_t tag_len);

#endif
