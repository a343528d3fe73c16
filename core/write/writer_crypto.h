/*
 * The writer's encryption (core/write/writer_crypto.c): keys, nonces, and
 * modules sealed in place or streamed through the output window.
 */
#ifndef UPQ_WRITE_CRYPTO_H
#define UPQ_WRITE_CRYPTO_H

#include "out.h"

typedef struct upq_wcrypto {
    upq_file_crypto fc;
    uint8_t unique[8];          /* aad_file_unique */
    upq_wkey footer;
    upq_wkey *cols;             /* one per column key given */
    uint32_t ncols;
    upq_file_crypto_metadata fcm; /* the encrypted footer's FileCryptoMetaData */
    upq_encryption_algorithm alg; /* also FileMetaData.encryption_algorithm (plaintext footer) */
    /* a module streamed through the output window */
    upq_gcm g;
    uint8_t ctr0[16];
    uint64_t off;               /* text bytes done */
    upq_wkey *mk;
    uint8_t mode;               /* UPQ_WS_*: what each piece gets */
    uint8_t head[28];           /* length + nonce, or the footer signature */
    uint32_t fmd_len;           /* encrypted footer: FileMetaData bytes */
    uint8_t *dict_nonce;        /* 24 bytes a column: its dictionary page header + body
                                   nonces, fixed at layout (upq_wcol.dict_nonce_set) */
    uint8_t in_fmd;             /* footer pieces are FileMetaData bytes now */
    uint8_t counting;           /* footer pieces are only counted */
    uint64_t counted;           /* ... the bytes so far */
} upq_wcrypto;

enum { UPQ_WS_NONE = 0, UPQ_WS_ENCRYPT = 1, UPQ_WS_SIGN = 2, UPQ_WS_COUNT = 3, UPQ_WS_CTR = 4 };

/* Arena bytes the encryption state needs for these options (0 when none). */
size_t upq_wc_need(const upq_writer_opts *o);
/* Checks the options and sets up keys in mem (upq_wc_need() bytes). */
upq_status upq_wc_init(upq_writer *w, void *mem);
/* A fresh nonce for key k (counts the invocation; UPQ_ERR_LIMIT past 2^32). */
upq_status upq_wc_nonce(upq_writer *w, upq_wkey *k, uint8_t nonce[12]);
/* Turns buf[16 .. 16+len) into a whole module in place (length, nonce,
 * ciphertext, tag for GCM); `nonce` NULL takes a fresh one. *out_len gets
 * the module's size. buf must have len + 32 bytes. */
upq_status upq_wc_seal(upq_writer *w, upq_wkey *k, int module, int32_t col, int32_t page,
                       uint8_t *buf, size_t len, const uint8_t *nonce, size_t *out_len);
/* Streamed GCM module: begin writes length (ct_len + 28) and nonce to
 * w->wc->head; pieces are encrypted in place (ENCRYPT) or only
 * authenticated as if encrypted (SIGN, for the plaintext footer); tag
 * finishes. */
upq_status upq_wc_stream_begin(upq_writer *w, upq_wkey *k, int module, int32_t col,
                               uint32_t ct_len, uint8_t mode);
void upq_wc_stream_piece(upq_writer *w, uint8_t *p, size_t n);
void upq_wc_stream_tag(upq_writer *w, uint8_t tag[16]);

#endif
