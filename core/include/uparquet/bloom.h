/*
 * Split-block bloom filters (SBBF), as Parquet specifies them: XXH64 (seed
 * 0) of a value's PLAIN encoding picks one 256-bit block by its top 32 bits
 * and sets or tests one bit in each of the block's eight 32-bit words by its
 * low 32 bits times eight odd salts.
 *
 * The bitset is kept exactly as the file stores it (words little-endian), so
 * a filter read from a file is used in place and one built by the writer is
 * written as is, on any host byte order.
 */
#ifndef UPARQUET_BLOOM_H
#define UPARQUET_BLOOM_H

#include <stddef.h>
#include <stdint.h>
#include "status.h"
#include "reader.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bitset sizes the format allows: a power of two from one block (32 bytes)
 * to 128 MiB. */
#define UPQ_BLOOM_MIN_BYTES 32u
#define UPQ_BLOOM_MAX_BYTES (128u << 20)
/* Largest encrypted BloomFilterHeader module read (its length field
 * included); the header itself is a dozen bytes. */
#define UPQ_BLOOM_MAX_HEADER_MODULE 4096u

/* XXH64 of data[0..len) with `seed` (xxHash specification 0.1.1); Parquet
 * hashes with seed 0. data may be NULL when len is 0. */
uint64_t upq_xxh64(const void *data, size_t len, uint64_t seed);

/* A filter over a caller-owned bitset of num_bytes bytes (a power of two,
 * at least 32; not checked here). */
typedef struct upq_bloom {
    uint8_t *bits;
    uint32_t num_bytes;
} upq_bloom;

/* Sets the eight bits of `hash` (filter_insert). */
void upq_bloom_insert(upq_bloom *b, uint64_t hash);

/* 1 when every bit of `hash` is set ("maybe present"), 0 when one is not
 * ("definitely absent") (filter_check). */
int upq_bloom_check(const upq_bloom *b, uint64_t hash);

/*
 * The hash Parquet filters use for one value in the column reader's
 * representation (column.h: INT32 int32_t, INT64 int64_t, INT96 upq_int96,
 * FLOAT float, DOUBLE double, BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY
 * upq_bytes): XXH64 of its PLAIN bytes (numbers little-endian, byte arrays
 * without a length prefix). Returns UPQ_OK, or UPQ_ERR_INVAL for BOOLEAN
 * (the format defines no filter for it), an unknown type, or a
 * FIXED_LEN_BYTE_ARRAY value whose length is not type_length (when
 * type_length > 0).
 */
upq_status upq_bloom_hash_value(int32_t physical_type, int32_t type_length, const void *value,
                                uint64_t *hash);

/*
 * Bitset bytes for `ndv` distinct values at false-positive probability
 * `fpp` (0 < fpp < 1): the smallest power of two from 32 bytes whose
 * expected rate, upq_bloom_fpp(), is at most fpp, but no more than
 * `max_bytes` (rounded down to a power of two; 0 means 128 MiB, the
 * format's limit). Returns 0 for an fpp outside (0, 1).
 */
uint32_t upq_bloom_size(uint64_t ndv, double fpp, uint32_t max_bytes);

/*
 * Expected false-positive probability of a num_bytes filter holding ndv
 * distinct values: block loads are Poisson with mean ndv / blocks, and a
 * block holding k values answers "maybe" with probability
 * (1 - (31/32)^k)^8. It reproduces the format's table (10.5 bits per value
 * for 1 %, 16.9 for 0.1 %, ...). Uses doubles, only when sizing.
 */
double upq_bloom_fpp(uint64_t ndv, uint32_t num_bytes);

/* ---- reading a column chunk's filter ------------------------------------ */

/* Internals are public so the reader can live on the stack; treat them as
 * private. */
typedef struct upq_bloom_reader {
    upq_reader *r;
    uint32_t rg, col;
    int32_t type, type_length;
    uint8_t stage;
    uint64_t off;             /* file offset of the BloomFilterHeader */
    uint64_t end;             /* the filter may not extend past this offset */
    uint64_t pos;             /* next file offset to read */
    uint32_t fill;            /* bitset bytes read so far */
    uint32_t max_bytes;
    uint8_t win[64];          /* header bytes on their way to the decoder */
    upq_tdec tdec;
    upq_tframe tframes[UPQ_THRIFT_MAX_DEPTH]; /* its nesting */
    upq_bloom_filter_header hdr;
    upq_bloom filter;         /* the bitset, in the reader's arena */
    upq_arena_mark mark;      /* arena position at open, restored by close */
    /* encrypted columns: header and bitset are one GCM module each */
    const struct upq_aes_key *key; /* NULL: a plaintext filter */
    int32_t rg_ord;           /* row group ordinal of the modules' AADs */
    uint8_t *mod;             /* the module being read (arena), length field first */
    uint32_t mod_len;         /* its size in bytes, once known */
} upq_bloom_reader;

/*
 * Prepares reading the bloom filter of leaf column `column` in row group
 * `rg` of an open reader. No I/O happens here. Returns UPQ_OK; UPQ_DONE when
 * the chunk has no bloom filter (nothing to read); UPQ_ERR_INVAL (bad
 * index, a column not kept by the projection, a BOOLEAN column);
 * UPQ_ERR_AUTH (an encrypted column whose key the reader's key callback
 * does not give, as the column reader says); UPQ_ERR_UNSUPPORTED (an
 * encrypted column in a build without crypto); UPQ_ERR_NOMEM (room for the
 * column key); UPQ_ERR_CORRUPT (an offset or length outside the file's
 * data). Errors are described by upq_reader_error().
 */
upq_status upq_bloom_open(upq_bloom_reader *b, upq_reader *r, uint32_t rg, uint32_t column);

/* Bounds the bitset a load accepts (default and largest: 128 MiB, the
 * format's limit); call between open and load. */
void upq_bloom_set_max_bytes(upq_bloom_reader *b, uint32_t max_bytes);

/*
 * Reads the BloomFilterHeader and the bitset (into the reader's arena).
 * Returns UPQ_OK when the filter is ready; UPQ_AGAIN when the read callback
 * would block (call again); UPQ_ERR_UNSUPPORTED for an algorithm, hash or
 * compression other than BLOCK / XXHASH / UNCOMPRESSED; UPQ_ERR_CORRUPT
 * (malformed header, a bitset size that is not a power of two from 32
 * bytes, or that lies outside the filter's length or the file's data);
 * UPQ_ERR_LIMIT (bitset above max_bytes); UPQ_ERR_NOMEM
 * (upq_arena_needed() tells the size); UPQ_ERR_IO / UPQ_ERR_TRUNCATED.
 * An encrypted column's filter is two GCM modules (BloomFilter Header and
 * Bitset, the column's key, AADs with the row group and column ordinals):
 * each is read whole and authenticated before it is used, so a tag that
 * does not verify (wrong key, tampering) gives UPQ_ERR_AUTH and never an
 * answer; a module length that disagrees with the header gives
 * UPQ_ERR_CORRUPT. The header module may be at most
 * UPQ_BLOOM_MAX_HEADER_MODULE bytes (UPQ_ERR_LIMIT).
 */
upq_status upq_bloom_load(upq_bloom_reader *b);

/*
 * After a successful load: *maybe = 1 when `value` (the column reader's
 * representation, see upq_bloom_hash_value) may be in the chunk, 0 when it
 * is certainly not. Returns UPQ_OK, UPQ_ERR_INVAL (bad value) or
 * UPQ_ERR_STATE (not loaded).
 */
upq_status upq_bloom_might_contain(const upq_bloom_reader *b, const void *value, int *maybe);

/* The loaded filter (NULL before a successful load). */
const upq_bloom *upq_bloom_filter(const upq_bloom_reader *b);

/* Gives the bitset's arena memory back (rewinds to where open found it). */
void upq_bloom_close(upq_bloom_reader *b);

#ifdef __cplusplus
}
#endif

#endif
