/*
 * The internal state that public structs hold by value, so that a reader, a
 * column reader, a writer or a recovery can live in static memory or on the
 * stack. None of this is API: the types and their fields change between
 * versions without notice. Use the functions of the other headers.
 */
#ifndef UPARQUET_PRIVATE_H
#define UPARQUET_PRIVATE_H

#include <stddef.h>
#include <stdint.h>
#include "config.h"
#include "status.h"
#include "arena.h"
#include "types.h"
#include "meta.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Thrift decoding (core/format/thrift.h) ------------------------------ */

typedef struct upq_tfield upq_tfield;
typedef struct upq_tstruct upq_tstruct;

typedef struct upq_tframe {
    const upq_tstruct *desc;  /* struct frame: its description (NULL: skipping);
                                 list frame: the element struct's, if any */
    uint8_t *obj;             /* struct frame: C struct being filled (NULL: skipping);
                                 list frame: the list's storage */
    uint8_t *items;           /* list frame: element storage (NULL: skipping) */
    uint32_t remaining;       /* container: elements (map: entries) left */
    uint32_t index;           /* list frame: next wire element index */
    uint32_t stored;          /* list frame: elements stored so far */
    int16_t last_id;          /* struct frame: previous field id (delta encoding) */
    uint8_t type;             /* UPQ_CT_STRUCT, UPQ_CT_LIST/SET, UPQ_CT_MAP */
    uint8_t elem_ct;          /* container: element wire type (map: key type) */
    uint8_t val_ct;           /* map: value wire type */
    uint8_t map_value_next;   /* map: the next item is a value */
    uint8_t elem_kind;        /* list frame: upq_tkind of stored elements */
    uint8_t project;          /* list frame: filtered by the projection */
} upq_tframe;

typedef struct upq_tdec {
    upq_tframe *stack;        /* the caller's frames (upq_tdec_init): the nesting accepted */
    upq_thrift_limits lim;
    upq_arena *arena;
    const uint8_t *proj;      /* projection bitmap for UPQ_TF_PROJECT lists, or NULL */
    uint32_t proj_bits;       /* bits in `proj` */
    uint32_t proj_count;      /* set bits in `proj` (slots allocated) */
    uint64_t pos;             /* bytes consumed since init */
    uint64_t limit;           /* the message may not extend past this many bytes */
    /* token in progress */
    uint64_t acc;             /* varint accumulator */
    uint8_t shift;            /* varint bit position */
    uint8_t stage;            /* what is being read (internal) */
    uint8_t depth;            /* frames in use */
    uint8_t cur_ct;           /* wire type of the value being read */
    uint8_t tmp[16];          /* fixed-size token bytes (double, uuid) */
    uint8_t tmp_len;
    uint8_t dest_kind;        /* upq_tkind of dest */
    /* counting what does not fit: allocations that fail add their size to
     * the arena's `needed` instead of stopping the decode; `phantom`: the
     * value being read is counted, not stored (a struct that did not fit) */
    uint8_t count_over;
    uint8_t phantom;
    uint8_t *dest;            /* where the value being read is stored (NULL: skip) */
    const upq_tfield *dest_field; /* field whose value is read (a list element's: the list) */
    const upq_tstruct *dest_sub;  /* description of a struct value or list<struct> elements */
    uint8_t *bin;             /* binary body destination */
    uint32_t bin_left;        /* binary body bytes still to come */
    /* error details ("" with UPQ_NO_ERRSTR) */
    const char *err_struct;   /* struct being decoded when the error happened */
    const char *err_field;    /* field name, when known */
    uint64_t err_pos;         /* byte offset (from init) of the error */
    upq_status status;        /* sticky error */
#if UPQ_WITH_LAZY_ROW_GROUPS
    /* A list field of the top struct skipped without storing (its isset bit
     * is still set): where its first element starts and how many it has. */
    uint8_t lazy_id;          /* field id, 0: none */
    uint8_t lazy_hit;         /* its header was just read */
    uint32_t lazy_n;          /* element count */
    uint64_t lazy_pos;        /* offset (from init) of the first element */
#endif
} upq_tdec;

/* ---- page decoding (core/decode/encoding.h) ------------------------------ */

typedef struct upq_rle_dec {
    const uint8_t *p;    /* next run header, or (bit-packed run) its current group of 8 */
    const uint8_t *end;
    uint32_t left;       /* values left in the current run */
    uint32_t value;      /* value of the current RLE run */
    uint8_t bit_width;   /* 0..32 */
    uint8_t literal;     /* the current run is bit-packed */
    uint8_t group_pos;   /* bit-packed run: index of the next value in its group of 8 */
} upq_rle_dec;

typedef struct upq_bitpacked_dec {
    const uint8_t *p;
    size_t len;
    uint64_t bit_pos;
    uint8_t bit_width;
} upq_bitpacked_dec;

/* Where decoders that must build values (DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT
 * of FIXED_LEN_BYTE_ARRAY) put their bytes. A decode call stops early, with
 * fewer values, when the next value does not fit; the caller then consumes
 * the values, resets `used` to 0 and calls again. */
typedef struct upq_vbuf {
    uint8_t *buf;
    size_t cap;
    size_t used;
} upq_vbuf;

/* A decoded dictionary page: n values in the output representation above. */
typedef struct upq_dict {
    int32_t physical_type;
    uint32_t n;
    const void *values;
} upq_dict;

/* DELTA_BINARY_PACKED state (also the lengths inside the byte-array encodings). */
typedef struct upq_delta_dec {
    const uint8_t *p, *end;  /* next block header (or miniblock body); end of section */
    const uint8_t *widths;   /* bit widths of the current block's miniblocks */
    const uint8_t *mini;     /* current group of 8 values in the current miniblock */
    uint64_t last;           /* previous value (wrap-around arithmetic) */
    uint64_t min_delta;      /* of the current block */
    uint32_t count;          /* values the section holds (its header's count) */
    uint32_t left;           /* values still to produce */
    uint32_t miniblocks;     /* per block */
    uint32_t per_mini;       /* values per miniblock (a multiple of 32) */
    uint32_t mini_index;     /* current miniblock in the block */
    uint32_t mini_left;      /* values left in the current miniblock */
    uint8_t bit_width;       /* of the current miniblock */
    uint8_t group_pos;       /* index of the next value in its group of 8 */
    uint8_t first_pending;   /* the header's first value not yet produced */
    uint8_t is64;
} upq_delta_dec;

typedef struct upq_values_dec {
    int32_t encoding;        /* upq_encoding */
    int32_t physical_type;   /* upq_type */
    int32_t type_length;     /* FIXED_LEN_BYTE_ARRAY width */
    const uint8_t *p, *end;  /* unread part of the values section (for the byte-array
                                delta encodings: of their concatenated bytes) */
    uint32_t num_values;     /* values the section holds (an upper bound for PLAIN,
                                dictionary and RLE sections of v1 pages) */
    uint32_t produced;       /* values returned or skipped so far */
    const upq_dict *dict;
    union {
        upq_rle_dec rle;     /* RLE booleans, dictionary indices */
        struct {
            uint32_t bit;    /* PLAIN booleans: bit offset in *p (0..7) */
        } plain;
        upq_delta_dec delta; /* DELTA_BINARY_PACKED */
        struct {
            upq_delta_dec lengths;     /* value lengths (DLBA) or suffix lengths (DBA) */
            upq_delta_dec prefixes;    /* DELTA_BYTE_ARRAY: prefix lengths */
            const uint8_t *prev;       /* previous value (DELTA_BYTE_ARRAY) */
            uint32_t prev_len;
            uint8_t *prev_buf;         /* holds the previous value between calls */
            size_t prev_cap;
        } ba;                /* data: p..end */
        struct {
            size_t stride;   /* values in the section (the length of each stream) */
            size_t width;    /* bytes per value (the number of streams) */
            const uint8_t *base; /* start of the first stream; the next value is `produced` */
        } bss;
    } u;
} upq_values_dec;

/* ---- writing (core/write/) ------------------------------------------------- */

/* A key in use by the writer (internal). */
typedef struct upq_wkey {
    struct upq_aes_key *k;
    uint64_t uses;                 /* GCM invocations: at most 2^32 per key */
    const uint8_t *md;
    uint32_t md_len;
    uint8_t own;                   /* a column's own key (not the footer key) */
} upq_wkey;

/* Bounds of one statistics value (min or max), PLAIN-encoded. */
typedef struct upq_minmax {
    uint8_t *min, *max;   /* storage of `cap` bytes each */
    uint32_t min_len, max_len, cap;
    uint8_t has;          /* a non-null, non-NaN value was seen */
    uint8_t min_ok, max_ok; /* the bound is known (truncation or size may prevent it) */
    uint8_t min_exact, max_exact;
} upq_minmax;

/* One leaf column being written. Internal: treat as private. */
typedef struct upq_wcol {
    /* schema */
    const upq_schema_element *elem;
    upq_bytes *path;          /* names from the top-level field to the leaf */
    uint16_t *rep_def;        /* [r]: lowest definition level a repetition level r allows */
    uint32_t path_len;
    int32_t type, type_length;
    uint16_t max_def, max_rep;
    uint8_t order;            /* statistics order (core/format/stats.h) */
    uint8_t use_dict;         /* the dictionary is configured */
    uint8_t dict_on;          /* the current chunk still uses it */
    uint8_t pending;          /* row-wise: the current row has its entry staged */
    int32_t enc;              /* encoding without (or after) the dictionary */
    uint32_t vsize;           /* staged bytes per value, 0 for BYTE_ARRAY */
    uint32_t pend_off;        /* row-wise: staging offset of the pending value */
    /* staging: [0, nlev) levels, nval values in vbytes bytes; the first
     * clev / cval / cbytes of them are committed (rows every column has) */
    uint8_t *def, *rep;       /* levels, packed (core/encode/encode.h: upq_lev_get) */
    uint8_t *vals;
    uint32_t vcap, lcap;
    uint32_t nlev, nval, vbytes;
    uint32_t clev, cval, cbytes;
    uint64_t rows;            /* complete rows taken in this row group */
    uint64_t crows;           /* of them committed */
    uint64_t frows;           /* of them in finished pages */
    /* dictionary: PLAIN values (the dictionary page body) and a hash table */
    uint8_t *dict;
    uint32_t dict_bytes, dict_cap, dict_n, dict_max;
    uint32_t *dict_off;       /* BYTE_ARRAY: offset of each entry in `dict` */
    uint16_t *slots;          /* entry index + 1, 0 when free */
    uint32_t nslots;
    uint32_t dict_pages;      /* data pages of this chunk that use it */
    /* finished pages */
    uint8_t *chunk;
    size_t chunk_used, chunk_cap;
    size_t worst;             /* bound of one page, header included */
    /* page index */
    uint32_t npages, max_pages;
    upq_page_location *locs;
    uint8_t *null_pages;
    upq_bytes *pmin, *pmax;
    int64_t *pnulls;
    uint8_t *pbytes;          /* min/max storage, 2 x scap per page */
    uint32_t scap;            /* bytes of one min or max (0: no min/max) */
    uint8_t ci_ok;            /* a ColumnIndex can be written for this chunk */
    uint8_t dict_nonce_set;   /* encrypted: the dictionary page's nonces are drawn */
    uint8_t dlg, rlg;         /* staged levels take 1 << dlg (rlg) bits each */
    /* chunk statistics and counters */
    upq_minmax st;
    int64_t nulls, nans, num_values, unc_bytes, comp_bytes, ba_bytes;
    int64_t *def_hist, *rep_hist;
    uint32_t enc_mask;        /* 1 << encoding for every encoding used */
    uint32_t pages_dict, pages_plain; /* data pages per kind (encoding_stats) */
    /* bloom filter of the chunk's values: the bitset as the file stores it */
    uint32_t bloom_bytes;     /* 0: no filter */
    uint8_t *bloom;
    /* layout, fixed when the row group ends */
    int64_t chunk_off, data_off, ci_off, oi_off, bf_off;
    int32_t dict_hdr, dict_stored, dict_unc, ci_len, oi_len, bf_hdr;
    /* encryption: NULL for a plain column (its dictionary page nonces are
     * with the writer's encryption state, not here in every column) */
    upq_wkey *key;
} upq_wcol;

#ifdef __cplusplus
}
#endif

#endif
