/*
 * Recovery: a checkpoint-mode file cut at any byte (a power cut, a card
 * pulled) turned back into a valid Parquet file holding every checkpointed
 * row, in a fixed arena and in time linear in the file. To continue the file
 * instead, see upq_writer_resume() (writer.h).
 */
#ifndef UPARQUET_RECOVER_H
#define UPARQUET_RECOVER_H

#include <stddef.h>
#include <stdint.h>
#include "status.h"
#include "arena.h"
#include "private.h"
#include "crypto.h"
#include "reader.h"
#include "writer.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct upq_recover_opts {
    /* Keys of an encrypted file (the same callback as the reader's: the key
     * metadata stored in the file selects each key), and a random source for
     * the nonces of what recovery encrypts. */
    const upq_decrypt_opts *decrypt;
    upq_random_fn random;
    void *random_ctx;
    uint8_t dry_run;      /* check and report only: nothing is written */
} upq_recover_opts;

typedef struct upq_recover_info {
    uint64_t rows;        /* rows of the valid file */
    uint32_t row_groups;
    uint64_t file_size;   /* its size (the sink's file is cut to it) */
    uint64_t cut_at;      /* file offset where the kept journal ends */
    uint8_t was_closed;   /* the file was complete already: nothing was changed */
    uint8_t bad_pages;    /* a page failed its checksum: the rows from there were dropped */
} upq_recover_info;

/* State of a recovery: zero it before the first call, pass it back
 * unchanged (and unmoved) after UPQ_AGAIN. It holds a writer, so it is
 * about as large as one. */
typedef struct upq_recover_state {
    upq_writer w;            /* a writer built from the file's FILE record finishes it */
    upq_tdec tdec;           /* decoding that record */
    upq_tframe tframes[UPQ_THRIFT_MAX_DEPTH]; /* its nesting */
    upq_file_metadata fmd;   /* the file's schema and key-value metadata (the arena's) */
    upq_arena a;             /* the caller's arena, before the writer takes the rest */
    void *settings;          /* the record's settings (in the arena) */
    uint64_t size;
    uint64_t file_id;
    uint32_t len, done, crc, have;
    uint16_t session;
    uint8_t stage, part, sealed, pare;
    uint8_t buf[128];
    /* an encrypted file: its FileMetaData is a module under the footer key */
    uint64_t mod_off;
    upq_cstream cs;
    upq_io cio;
    upq_file_crypto fc;
    uint8_t *fkey;               /* the footer key (arena) */
    size_t fkey_len;
    struct upq_aes_key *fk;      /* ... expanded */
} upq_recover_state;

/*
 * Turns a checkpoint-mode file cut at any byte (power loss), or damaged,
 * into a valid Parquet file holding every row up to its last intact
 * checkpoint, in place: `sink` reads and writes the file (read_at, write_at
 * and sync; truncate when it has one), whose size is `size`. A checkpoint
 * is intact when its journal record passes its CRC (which binds it to this
 * file's nonce), agrees with the records before it (no count going back,
 * dictionary entries where and as many as it says) and with the pages it
 * covers (their bytes, headers included, give the CRC it states; their
 * pages and rows its counts); the first record that does not ends what is
 * kept. Nothing is written before all of that is read and checked: a
 * recovery that fails for anything but an I/O error leaves the file as it
 * was. A closed file whose pages, page indexes and footer are intact is
 * left as it is; one damaged since is finished again at its last intact
 * checkpoint.
 * Memory is arena[0..arena_len) (the caller's): it depends on the schema,
 * not on rows, row groups or checkpoints (upq_recover_workspace_size says
 * how much); UPQ_ERR_NOMEM tells the need through upq_recover_needed().
 * Time is linear in the file.
 *
 * Returns UPQ_OK (*info filled in), UPQ_AGAIN (call again), UPQ_ERR_CORRUPT
 * (not a checkpoint-mode file, or a cut row group whose dictionaries cannot
 * be rebuilt: nothing was written), UPQ_ERR_UNSUPPORTED (a journal version
 * this build does not read), UPQ_ERR_AUTH (a key is missing or wrong),
 * UPQ_ERR_IO. upq_recover_error() says where.
 */
upq_status upq_recover(upq_recover_state *st, const upq_sink *sink, uint64_t size, void *arena,
                       size_t arena_len, const upq_recover_opts *opts, upq_recover_info *info);

/* After UPQ_ERR_NOMEM: the arena size recovery needs, in all. Exact once
 * the file's FILE record fits (the schema is then known); when the arena
 * could not hold even that record, a bound from the record's length that
 * holds for the files this library writes (at least 3 bytes of FILE per
 * schema element). An arena this large succeeds. */
size_t upq_recover_needed(const upq_recover_state *st);

/*
 * The arena upq_recover() needs for a file written with this schema
 * (elems[0..n), as given to upq_writer_init) and these options, before any
 * file is read: what it takes to decode the file's FILE record and to run
 * the writer that finishes the file. It depends on neither rows nor row
 * groups nor checkpoints, so a logger can size its recovery arena once.
 * UPQ_OK with *need, or an error of the schema or options.
 */
upq_status upq_recover_workspace_size(const upq_schema_element *elems, uint32_t n, const upq_writer_opts *o,
                                      size_t *need);
const upq_error_info *upq_recover_error(const upq_recover_state *st);

#ifdef __cplusplus
}
#endif

#endif
