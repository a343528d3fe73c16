/*
 * The journal of checkpoint mode (internal): records that let a file cut at
 * any byte be finished later, and that describe the file to its own close.
 *
 * A checkpoint-mode file is a Parquet file with extra bytes no reader looks
 * at:
 *
 *   "PAR1" FILE | J0 | regions of row group 0 | blobs 0 | J1 | regions 1 | ...
 *        | CLOSE's room | page indexes | footer
 *
 * ("PARE" when the footer is encrypted.)
 *
 * FILE describes the file (schema as a FileMetaData without row groups,
 * codec, options, encryption). Each row group starts with its journal area
 * J, reserved before its regions: RG_START (where each column's region is),
 * then a CKPT per checkpoint, then RG_END. A region holds one column chunk:
 * a slot for the dictionary page, then the data pages as they are made.
 * Blobs after the regions hold what does not fit a bounded record:
 * dictionary entries added since the last record, bloom filters.
 *
 * Records are found by following a chain: FILE ends where J0 begins; the
 * records of a journal area follow one another; RG_END says where the next
 * row group's area begins; CLOSE, after the last row group, says where the
 * page indexes begin and holds their CRC with the footer's. A resume writes
 * RESUME where the next record goes (over CLOSE when the file was closed),
 * and recovery and every resume write with a session number of their own.
 * A record is valid when its magic, length, CRC, file id, sequence number
 * and session all fit, so bytes left over from another file or another
 * session are not taken for this one's.
 *
 * Record: "UPQJ" | u32 length (whole record) | u8 type | u8 flags
 *         | u16 session | u32 sequence | u64 file id | payload | u32 CRC-32
 * all little-endian. The payload is a Thrift compact struct (the
 * descriptions in journal.c); in an encrypted file it is a GCM module under
 * the footer key. FILE's CRC covers everything before it; every other
 * record's CRC covers the file's nonce (8 bytes, from FILE), then everything
 * before it. The nonce is drawn when the file is created from what the
 * medium held where the file begins (a file made over an old one, on a card
 * whose clusters are reused or in a file rewritten without truncation, sees
 * the old file's nonce there) and the caller's entropy (opts.nonce), so an
 * old file's records, left where this file's will go, fail their CRC here
 * even when file id, sequence numbers and contents are the same.
 *
 * A CKPT or RG_END also binds the pages it covers: per column, a CRC over
 * the region's pages up to its fill, each page as its header's bytes then
 * its stored body's CRC-32 (4 bytes, little-endian; the page's own CRC when
 * it has one), at RG_END continued over the dictionary page the same way.
 * The page CRCs cover bodies only; a page header damaged after the fact
 * shows here.
 *
 * RG_SUMs (version 3), one a column just before RG_END, hold each chunk's totals as its
 * ColumnChunk states them (sizes, counts, encodings, statistics, the sizes
 * of its page indexes), so close and recovery make the footer's RowGroup
 * from it instead of reading the chunk's page headers once more. A row
 * group without one (version 2, an encrypted file, a row group that a
 * resume or a recovery ended) is described from its page headers.
 * An RG_SUM may also say how many bytes its ColumnIndex's min_values and
 * max_values entries take (fields 15 and 16), so that close places the
 * index's four lists before it reads a page and writes them in the pass
 * that writes the OffsetIndex. The fields are optional and still version
 * 3: a build without them skips them as unknown Thrift fields and reads the
 * pages twice, as before; an RG_SUM without them (from such a build) has
 * its lists written in a pass of their own.
 */
#ifndef UPQ_JOURNAL_H
#define UPQ_JOURNAL_H

#include <stddef.h>
#include <stdint.h>
#include "format/meta_desc.h"
#include "uparquet/status.h"

#define UPQ_J_HDR 24u
#define UPQ_J_CRC 4u
#define UPQ_J_MIN (UPQ_J_HDR + UPQ_J_CRC)
/* 1: the first layout; 2: the nonce, the regions' and dictionary pages' CRCs;
 * 3: RG_SUM (recovery takes all three; resume continues versions 2 and 3; a
 * build that reads up to version 2 refuses a version 3 file, whose RG_SUM
 * it would take for the end of the journal) */
#define UPQ_J_VERSION 3
#define UPQ_J_NONCE 8u
/* Largest record accepted when reading (a FILE record holds the schema). */
#define UPQ_J_MAX_RECORD (64u << 20)

/* Record types. CKPT and RG_END are checkpoints: every column's pages end at
 * the same row there. ROWS only carries the page-rows lists of repeated
 * columns between checkpoints. */
enum {
    UPQ_J_FILE = 1,
    UPQ_J_RG_START = 2,
    UPQ_J_CKPT = 3,
    UPQ_J_RG_END = 4,
    UPQ_J_ROWS = 5,
    UPQ_J_MOVE = 6,     /* reserved */
    UPQ_J_CLOSE = 7,
    UPQ_J_RESUME = 8,
    UPQ_J_RG_SUM = 9    /* version 3: a chunk's totals, before RG_END */
};

/* Record flags. */
#define UPQ_J_SEALED 1u /* the payload is a GCM module under the footer key */

typedef struct upq_jhdr {
    uint32_t len;
    uint8_t type, flags;
    uint16_t session;
    uint32_t seq;
    uint64_t file_id;
} upq_jhdr;

/* Encodes a record header. */
void upq_j_hdr_put(uint8_t out[UPQ_J_HDR], const upq_jhdr *h);
/* Decodes one: UPQ_OK, or UPQ_ERR_CORRUPT when the magic is missing or the
 * length is below a record's minimum or above `max_len`. */
upq_status upq_j_hdr_get(const uint8_t in[UPQ_J_HDR], upq_jhdr *h, uint64_t max_len);

/* ---- payloads --------------------------------------------------------- */

/* A byte range of the file holding a blob: dictionary entries, a page-rows
 * list, a bloom filter. */
typedef struct upq_jblob {
    uint32_t isset;
    int64_t off;
    int32_t len;
    int32_t crc; /* CRC-32 of the stored bytes */
} upq_jblob;
enum { UPQ_JBLOB_OFF = 1, UPQ_JBLOB_LEN = 2, UPQ_JBLOB_CRC = 3 };

/* A column with its own key (FILE). */
typedef struct upq_jkey {
    uint32_t isset;
    int32_t column;
    upq_bytes key_metadata;
    upq_bytes check;   /* a GCM module of no text under the key: a wrong key is
                          told apart from a damaged page */
} upq_jkey;
enum { UPQ_JKEY_COLUMN = 1, UPQ_JKEY_KEY_METADATA = 2, UPQ_JKEY_CHECK = 3 };
#define UPQ_JKEY_CHECK_LEN 32u
UPQ_LIST_TYPE(upq_jkey_list, upq_jkey);

/* FILE flags. */
enum {
    UPQ_JF_V2 = 1,          /* data pages are DATA_PAGE_V2 */
    UPQ_JF_CRC = 2,         /* pages carry CRCs */
    UPQ_JF_STATS = 4,       /* statistics (page headers and chunks) */
    UPQ_JF_PAGE_INDEX = 8,  /* ColumnIndex / OffsetIndex */
    UPQ_JF_PLAIN_FOOTER = 16, /* encrypted file with a signed plaintext footer */
    UPQ_JF_SUPPLY_AAD = 32, /* the AAD prefix is not stored: readers supply it */
    UPQ_JF_IEEE_ORDER = 64  /* float columns in IEEE_754_TOTAL_ORDER */
};

/* FILE. The record's payload is this struct, then the FileMetaData of the
 * file without row groups (but one template row group carrying the sorting
 * columns): the schema, key-value metadata and column orders the footer
 * will hold. In an encrypted file the FileMetaData is a GCM module under
 * the footer key (the settings stay readable: they say which keys to ask
 * for). */
typedef struct upq_jfile {
    uint32_t isset;
    int32_t version;
    int32_t codec;
    int32_t flags;
    int32_t ncols;
    int32_t stats_max_binary;
    int32_t algorithm;        /* encrypted: UPQ_CRYPTO_AES_GCM_V1 or _CTR_V1 */
    upq_bytes aad_prefix;     /* stored AAD prefix */
    upq_bytes aad_file_unique;
    upq_bytes footer_key_metadata;
    upq_jkey_list keys;       /* columns with their own key */
    upq_bytes nonce;          /* UPQ_J_NONCE bytes: what every other record's CRC starts
                                 with (version 2; first in the encoding, so a file made
                                 over this one reads it where it begins) */
} upq_jfile;
enum {
    UPQ_JFILE_VERSION = 1,
    UPQ_JFILE_CODEC = 2,
    UPQ_JFILE_FLAGS = 3,
    UPQ_JFILE_NCOLS = 4,
    UPQ_JFILE_STATS_MAX_BINARY = 5,
    UPQ_JFILE_ALGORITHM = 7,
    UPQ_JFILE_AAD_PREFIX = 8,
    UPQ_JFILE_AAD_FILE_UNIQUE = 9,
    UPQ_JFILE_FOOTER_KEY_METADATA = 10,
    UPQ_JFILE_KEYS = 11,
    UPQ_JFILE_NONCE = 12
};

/* Where a column's chunk of a row group goes. */
typedef struct upq_jregion {
    uint32_t isset;
    int64_t off;   /* file offset of the region */
    int64_t cap;   /* its bytes, the slot included */
    int32_t slot;  /* bytes at its start kept for the dictionary page */
} upq_jregion;
enum { UPQ_JREGION_OFF = 1, UPQ_JREGION_CAP = 2, UPQ_JREGION_SLOT = 3 };
UPQ_LIST_TYPE(upq_jregion_list, upq_jregion);

typedef struct upq_jrgstart {
    uint32_t isset;
    int32_t rg;
    int64_t jcap;     /* bytes of the journal area, from this record's start */
    int64_t rows;     /* rows the row group was planned for */
    upq_jregion_list regions;
} upq_jrgstart;
enum {
    UPQ_JRGSTART_RG = 1,
    UPQ_JRGSTART_JCAP = 2,
    UPQ_JRGSTART_ROWS = 3,
    UPQ_JRGSTART_REGIONS = 4
};

/* A column's state in a CKPT or RG_END: counts are of the row group so far. */
typedef struct upq_jcol {
    uint32_t isset;
    int64_t fill;            /* bytes of data pages in the region, after the slot */
    int32_t pages;           /* data pages */
    int64_t ba;              /* BYTE_ARRAY: unencoded bytes of the values */
    upq_i64_list def_hist;   /* level histograms (when the pages cannot tell them) */
    upq_i64_list rep_hist;
    upq_jblob dict;          /* dictionary entries added since the previous record (PLAIN) */
    int32_t dict_n;          /* dictionary entries in all */
    upq_i32_list page_rows;  /* repeated columns: rows of each page since the previous record */
    int32_t dict_len;        /* RG_END: the dictionary page (header included), ending
                                where the slot ends */
    upq_jblob bloom;         /* RG_END: bloom filter header and bitset */
    int32_t bloom_hdr;       /* ... its header's bytes */
    int64_t moved;           /* MOVE and later: the region's new offset */
    int32_t crc;             /* CRC-32 of the region's pages up to `fill` (version 2; each
                                page its header, then its body's CRC); at RG_END, then
                                the dictionary page's */
} upq_jcol;
enum {
    UPQ_JCOL_FILL = 1,
    UPQ_JCOL_PAGES = 2,
    UPQ_JCOL_BA = 3,
    UPQ_JCOL_DEF_HIST = 4,
    UPQ_JCOL_REP_HIST = 5,
    UPQ_JCOL_DICT = 6,
    UPQ_JCOL_DICT_N = 7,
    UPQ_JCOL_PAGE_ROWS = 8,
    UPQ_JCOL_DICT_LEN = 9,
    UPQ_JCOL_BLOOM = 10,
    UPQ_JCOL_BLOOM_HDR = 11,
    UPQ_JCOL_MOVED = 12,
    UPQ_JCOL_CRC = 13
};
UPQ_LIST_TYPE(upq_jcol_list, upq_jcol);

/* CKPT and RG_END. */
typedef struct upq_jckpt {
    uint32_t isset;
    int32_t rg;
    int64_t rows;         /* rows of the row group the record covers */
    upq_jcol_list cols;   /* one per leaf column */
    int64_t blobs;        /* end of the row group's blobs so far */
    int64_t next;         /* RG_END: where the next row group's journal area begins */
} upq_jckpt;
enum {
    UPQ_JCKPT_RG = 1,
    UPQ_JCKPT_ROWS = 2,
    UPQ_JCKPT_COLS = 3,
    UPQ_JCKPT_BLOBS = 4,
    UPQ_JCKPT_NEXT = 5
};

/* RG_SUM: a chunk's totals, what its ColumnChunk states beyond RG_END (a
 * record a column, so that reading one takes no more memory than a page
 * header). */
typedef struct upq_jtot {
    uint32_t isset;
    int32_t rg, col;      /* whose totals */
    int64_t unc;          /* total_uncompressed_size (dictionary page included) */
    int64_t comp;         /* total_compressed_size */
    int64_t values;       /* num_values */
    int64_t nulls;        /* the statistics' null count */
    int64_t nans;         /* ... and NaN count */
    int32_t enc_mask;     /* 1 << encoding for every encoding used */
    int32_t pages_dict;   /* data pages that use the dictionary */
    int32_t ci_len;       /* bytes of the ColumnIndex (0: none) */
    int32_t oi_len;       /* bytes of the OffsetIndex */
    int32_t mm;           /* the bounds' flags: has, min_ok, max_ok, min_exact, max_exact */
    upq_bytes min, max;   /* the chunk's bounds */
    int32_t mins, maxs;   /* bytes of the ColumnIndex's min_values and max_values entries
                             (optional: where close places its lists before it reads a page) */
} upq_jtot;
enum {
    UPQ_JTOT_UNC = 1,
    UPQ_JTOT_COMP = 2,
    UPQ_JTOT_VALUES = 3,
    UPQ_JTOT_NULLS = 4,
    UPQ_JTOT_NANS = 5,
    UPQ_JTOT_ENC_MASK = 6,
    UPQ_JTOT_PAGES_DICT = 7,
    UPQ_JTOT_CI_LEN = 8,
    UPQ_JTOT_OI_LEN = 9,
    UPQ_JTOT_MM = 10,
    UPQ_JTOT_MIN = 11,
    UPQ_JTOT_MAX = 12,
    UPQ_JTOT_RG = 13,
    UPQ_JTOT_COL = 14,
    UPQ_JTOT_MINS = 15,
    UPQ_JTOT_MAXS = 16
};

/* CLOSE: the file was finished; resuming writes the next row group over
 * the page indexes and footer, from `tail` on. */
typedef struct upq_jclose {
    uint32_t isset;
    int64_t tail;      /* where the page indexes begin */
    int64_t size;      /* the closed file's size */
    int64_t rows;
    int32_t row_groups;
    int32_t crc;       /* CRC-32 of the bytes [tail, size): page indexes and footer */
} upq_jclose;
enum { UPQ_JCLOSE_TAIL = 1, UPQ_JCLOSE_SIZE = 2, UPQ_JCLOSE_ROWS = 3, UPQ_JCLOSE_ROW_GROUPS = 4,
       UPQ_JCLOSE_CRC = 5 };

/* RESUME: a new session continues the file here. */
typedef struct upq_jresume {
    uint32_t isset;
    int64_t rows;      /* rows of the file kept */
} upq_jresume;
enum { UPQ_JRESUME_ROWS = 1 };

enum {
    UPQ_JDESC_BLOB,
    UPQ_JDESC_KEY,
    UPQ_JDESC_FILE,
    UPQ_JDESC_REGION,
    UPQ_JDESC_RG_START,
    UPQ_JDESC_COL,
    UPQ_JDESC_CKPT,
    UPQ_JDESC_CLOSE,
    UPQ_JDESC_RESUME,
    UPQ_JDESC_TOT,
    UPQ_JDESC_COUNT
};
extern const upq_tstruct upq_journal_descs[UPQ_JDESC_COUNT];

/* The payload description of a record type (NULL for an unknown type). */
const upq_tstruct *upq_j_desc(int type);

#endif
