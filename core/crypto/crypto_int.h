/* Encryption helpers shared by the reader and writer; not public API. */
#ifndef UPQ_CRYPTO_INT_H
#define UPQ_CRYPTO_INT_H

#include "uparquet/crypto.h"

struct upq_io;

/* Starts GCM for a module: nonce, then the AAD (prefix, file unique, suffix). */
upq_status upq_crypto_gcm_begin(upq_gcm *g, const upq_file_crypto *fc,
                                const struct upq_aes_key *k, const uint8_t nonce[12], int module,
                                int32_t rg, int32_t col, int32_t page);

/* Is `module` encrypted with CTR in this file (pages of AES_GCM_CTR_V1)? */
int upq_crypto_is_ctr(const upq_file_crypto *fc, int module);

/* upq_cstream (uparquet/crypto.h): a GCM module at file offset `off` that
 * must end by `limit`. */
void upq_cstream_init(upq_cstream *s, uint64_t off, uint64_t limit, int module, int32_t rg,
                      int32_t col, int32_t page);

/*
 * Advances the module: authenticates it (first pass), then returns UPQ_OK
 * with the next piece of plaintext in win (*out, *out_len); UPQ_DONE when all
 * plaintext has been handed out and authenticated a second time (act on what
 * was decoded from it only then); UPQ_AGAIN when the read callback would
 * block; or an error with *at / *what: UPQ_ERR_AUTH, UPQ_ERR_CORRUPT (length
 * field beyond `limit` or too small), UPQ_ERR_LIMIT, UPQ_ERR_IO,
 * UPQ_ERR_TRUNCATED.
 */
upq_status upq_cstream_next(upq_cstream *s, const struct upq_io *io, const upq_file_crypto *fc,
                            const struct upq_aes_key *k, uint8_t *win, uint32_t win_len,
                            const uint8_t **out, size_t *out_len, uint64_t *at, const char **what);

/* File offset just past the module (valid once its length is known). */
uint64_t upq_cstream_end(const upq_cstream *s);

#endif
