/*
 * Keys wrapped by a KMS, in the key-tools format of parquet-java (package
 * org.apache.parquet.crypto.keytools), which Spark and parquet-java write
 * when encryption is driven by properties (PropertiesDrivenCryptoFactory).
 *
 * This is a host adapter, not library code: it parses JSON, allocates with
 * malloc and may read a side file with stdio. It gives the reader an
 * upq_key_fn (upq_keytools_get_key) and the writer its key metadata.
 *
 * The format. Every data encryption key (DEK: the footer key, each column
 * key) is random and stored wrapped in its "key material", a flat JSON
 * object:
 *
 *   {"keyMaterialType":"PKMT1", "isFooterKey":true|false,
 *    "kmsInstanceID":"...", "kmsInstanceURL":"...",    (footer key only)
 *    "masterKeyID":"...", "wrappedDEK":"...", "doubleWrapping":true|false,
 *    "keyEncryptionKeyID":"...", "wrappedKEK":"..."}   (double wrapping only)
 *
 * Single wrapping: wrappedDEK is what the KMS returned for the DEK under the
 * master key. Double wrapping: a random key encryption key (KEK, one per
 * master key and writer) wraps the DEK locally, and the KMS wraps the KEK;
 * keyEncryptionKeyID is the base64 of 16 random bytes naming the KEK, and
 * wrappedDEK is base64(nonce(12) | ciphertext | tag(16)) of AES-GCM under
 * the KEK with the KEK id's 16 bytes as AAD.
 *
 * Where the material lives. Internal storage: the column's (or footer's)
 * key_metadata in the file is the material itself plus
 * "internalStorage":true. External storage: key_metadata is
 *   {"keyMaterialType":"PKMT1","internalStorage":false,"keyReference":"R"}
 * and the material is the JSON string under key R ("footerKey",
 * "columnKey0", "columnKey1", ...) of a side file beside the Parquet file,
 * `_KEY_MATERIAL_FOR_<file name>.json`, one JSON object of reference ->
 * material text.
 *
 * The KMS is the caller's (upq_kms). upq_local_kms is what parquet-java's
 * test InMemoryKMS does (and C++'s TestOnlyInServerWrapKms): master keys by
 * id, wrap = base64(nonce | AES-GCM(key) | tag) under the master key with
 * the master key id's UTF-8 bytes as AAD. A real KMS (Vault, a cloud KMS)
 * returns its own text for a wrapped key; it is stored and handed back
 * as is.
 *
 * Errors: every call returns a upq_status and keeps a message (what failed
 * and where: the reference, field or master key id) for
 * upq_keytools_error(). UPQ_ERR_CORRUPT: JSON or base64 that does not parse,
 * a field of the wrong type, a wrapped key of the wrong size, a reference
 * the side file lacks. UPQ_ERR_UNSUPPORTED: another keyMaterialType, a field
 * this version does not know. UPQ_ERR_IO: the side file cannot be read.
 * UPQ_ERR_AUTH: the KMS has no such master key, or the GCM tag does not
 * verify (wrong master key or KEK, tampered material). Through the reader,
 * whose key callback can only say UPQ_ERR_AUTH, the message says which.
 */
#ifndef UPQ_KEYTOOLS_H
#define UPQ_KEYTOOLS_H

#include <stddef.h>
#include <stdint.h>
#include "uparquet/crypto.h"
#include "uparquet/writer.h"

#ifdef __cplusplus
extern "C" {
#endif

#define UPQ_KEYTOOLS_MSG_LEN 256
#define UPQ_KEYTOOLS_KEK_ID_LEN 16

/*
 * A KMS client. Strings are NUL-terminated UTF-8.
 *
 * unwrap: the key wrapped as `wrapped` (wrapped_len bytes, the text the
 * KMS's wrap produced) under master key `master_id` into key[0..cap);
 * *key_len gets its length. Return UPQ_OK, UPQ_ERR_AUTH (no such master
 * key, or it does not open the wrapped key), UPQ_ERR_CORRUPT (not a wrapped
 * key), UPQ_ERR_BUFFER (cap too small), and may write a one-line reason to
 * msg[0..msgcap).
 *
 * wrap: `key` under master key `master_id` as text into out[0..cap) (NUL
 * terminated, *out_len without it); the same statuses. Only for writing.
 *
 * instance_id, instance_url: written into the footer key's material
 * ("kmsInstanceID", "kmsInstanceURL"; NULL writes "DEFAULT" as parquet-java
 * does). When reading, the footer material's values are there to read with
 * upq_keytools_kms_instance().
 */
typedef struct upq_kms {
    upq_status (*unwrap)(void *ctx, const char *master_id, const char *wrapped, size_t wrapped_len,
                         uint8_t *key, size_t cap, size_t *key_len, char *msg, size_t msgcap);
    upq_status (*wrap)(void *ctx, const char *master_id, const uint8_t *key, size_t key_len,
                       char *out, size_t cap, size_t *out_len, char *msg, size_t msgcap);
    void *ctx;
    const char *instance_id;
    const char *instance_url;
} upq_kms;

/* ---- the local KMS (InMemoryKMS) ----------------------------------------- */

typedef struct upq_local_kms_key {
    const char *id;      /* master key id ("kf") */
    const uint8_t *key;  /* 16, 24 or 32 bytes */
    size_t len;
} upq_local_kms_key;

/* Master keys by id; nothing is copied (keys must outlive it). random
 * (a nonce per wrap) is needed only to wrap. */
typedef struct upq_local_kms {
    const upq_local_kms_key *keys;
    size_t nkeys;
    upq_random_fn random;
    void *random_ctx;
} upq_local_kms;

/* Fills kms with the local KMS's callbacks over lk (which must outlive it). */
void upq_local_kms_init(upq_kms *kms, upq_local_kms *lk);

/* ---- reading ----------------------------------------------------------------- */

typedef struct upq_keytools upq_keytools; /* opaque, malloc'd */

/* A key-tools context over `kms` (copied; its ctx and strings must outlive
 * the context). random is needed only for writing (DEKs, KEKs, KEK ids).
 * NULL when out of memory. */
upq_keytools *upq_keytools_new(const upq_kms *kms, upq_random_fn random, void *random_ctx);
/* Frees it, wiping every key it holds. NULL is fine. */
void upq_keytools_free(upq_keytools *kt);

/* External key material: the side file to read (on first need). */
upq_status upq_keytools_material_file(upq_keytools *kt, const char *path);
/* ... the default side file of Parquet file `parquet_path`:
 * `<its directory>/_KEY_MATERIAL_FOR_<its name>.json`. */
upq_status upq_keytools_material_beside(upq_keytools *kt, const char *parquet_path);
/* ... or its text, given (copied). UPQ_ERR_CORRUPT if it does not parse. */
upq_status upq_keytools_material_text(upq_keytools *kt, const char *json, size_t len);

/*
 * The upq_key_fn: ctx is the upq_keytools. Recovers the DEK that
 * key_metadata (key-tools JSON) describes; `path` is not needed. Unwrapped
 * KEKs and DEKs are kept for the context's life, so the KMS is asked once
 * per key. On failure returns UPQ_ERR_AUTH (the reader's contract) and
 * keeps the real status and message for upq_keytools_error().
 */
upq_status upq_keytools_get_key(void *ctx, const upq_bytes *key_metadata,
                                const upq_bytes_list *path, uint8_t key[UPQ_CRYPTO_MAX_KEY],
                                size_t *key_len);

/* The same with the real status (callers outside the reader). */
upq_status upq_keytools_unwrap(upq_keytools *kt, const uint8_t *key_metadata, size_t md_len,
                               uint8_t key[UPQ_CRYPTO_MAX_KEY], size_t *key_len);

/* 1 when key_metadata looks like key-tools JSON (an object naming
 * keyMaterialType), so a caller can route plain key ids elsewhere. */
int upq_keytools_is_key_material(const uint8_t *key_metadata, size_t md_len);

/* The last failure: its status (UPQ_OK when none) and message ("" when
 * none). The string belongs to kt and changes with the next call. */
upq_status upq_keytools_error(const upq_keytools *kt, const char **msg);

/* The KMS instance id and URL read from the footer key's material (NULL
 * until one was read). */
void upq_keytools_kms_instance(const upq_keytools *kt, const char **id, const char **url);

/* ---- writing ----------------------------------------------------------------- */

typedef struct upq_keytools_write_opts {
    uint8_t single_wrapping;   /* 0: double wrapping (parquet-java's default) */
    uint8_t external;          /* material in the side file (upq_keytools_save_material) */
    uint32_t kek_len;          /* double wrapping: 16 (0 also), 24 or 32 */
} upq_keytools_write_opts;

/* Sets how the next keys are wrapped and stored (before the first). */
upq_status upq_keytools_write_config(upq_keytools *kt, const upq_keytools_write_opts *o);

/*
 * The key metadata for one DEK: dek[0..dek_len) wrapped under master key
 * `master_id` (the footer key's when is_footer). Pass dek_len 0 with dek
 * pointing at UPQ_CRYPTO_MAX_KEY bytes to draw a random 16-byte DEK into
 * it (*dek_len_out gets 16), or give the DEK to wrap. *md / *md_len get
 * the key metadata to store in the file (malloc'd NUL-terminated text
 * owned by kt, valid until it is freed). With external storage the
 * material goes into the side file under "footerKey" or "columnKeyN" (N
 * counting the column keys of this context from 0).
 */
upq_status upq_keytools_wrap(upq_keytools *kt, const char *master_id, int is_footer,
                             uint8_t *dek, size_t dek_len, size_t *dek_len_out,
                             const uint8_t **md, uint32_t *md_len);

/* The side file's text for the keys wrapped so far (owned by kt, valid
 * until the next upq_keytools_wrap or upq_keytools_free; "{}" when none;
 * NULL when out of memory). */
const char *upq_keytools_material_json(upq_keytools *kt);
/* Writes it to `path`; UPQ_ERR_IO (message says why) on failure. */
upq_status upq_keytools_save_material(upq_keytools *kt, const char *path);
/* The default side file name for a Parquet file into out[0..cap);
 * UPQ_ERR_BUFFER when it does not fit. */
upq_status upq_keytools_material_path(const char *parquet_path, char *out, size_t cap);

/* ---- pieces, for tests and other formats --------------------------------- */

/* Standard base64 with padding into out[0..cap) (NUL terminated);
 * returns the length, or (size_t)-1 when cap is too small. */
size_t upq_base64_encode(const uint8_t *in, size_t len, char *out, size_t cap);
/* Decodes standard base64 (padding optional, nothing else allowed) into
 * out[0..cap); returns the length, or (size_t)-1 when it is not base64 or
 * does not fit. */
size_t upq_base64_decode(const char *in, size_t len, uint8_t *out, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
