/*
 * Thrift compact protocol: a resumable, table-driven decoder and encoder
 * (internal: the library's own, not installed).
 *
 * C structures are described by static tables (upq_tstruct); the decoder fills
 * them from bytes arriving in any chunking, the encoder writes them into
 * output windows of any size. Neither recurses: nesting lives in an explicit
 * frame stack bounded by UPQ_THRIFT_MAX_DEPTH. Both stop with UPQ_AGAIN when
 * input runs out / the output window is full, and continue exactly there.
 *
 * Storage conventions for described structs:
 *   - every struct starts with `uint32_t isset`, bit N set when field id N was
 *     present (field ids are < 32 in every described struct);
 *   - bool -> uint8_t, i8 -> int8_t, i16 -> int16_t, i32/enum -> int32_t,
 *     i64 -> int64_t, double -> double, binary/string -> upq_bytes,
 *     uuid -> uint8_t[16], struct -> the embedded struct,
 *     list<T> -> { T *v; uint32_t n; } (any upq_*_list type).
 *   - a union is a struct with at most one isset bit; its members may share
 *     storage (a C union).
 */
#ifndef UPQ_THRIFT_H
#define UPQ_THRIFT_H

#include <stddef.h>
#include <stdint.h>
#include "uparquet/status.h"
#include "uparquet/arena.h"
#include "uparquet/types.h"
#include "uparquet/private.h" /* upq_tdec, upq_tframe */

#ifdef __cplusplus
extern "C" {
#endif

/* Compact protocol wire types. */
enum {
    UPQ_CT_STOP = 0,
    UPQ_CT_TRUE = 1,
    UPQ_CT_FALSE = 2,
    UPQ_CT_BYTE = 3,
    UPQ_CT_I16 = 4,
    UPQ_CT_I32 = 5,
    UPQ_CT_I64 = 6,
    UPQ_CT_DOUBLE = 7,
    UPQ_CT_BINARY = 8,
    UPQ_CT_LIST = 9,
    UPQ_CT_SET = 10,
    UPQ_CT_MAP = 11,
    UPQ_CT_STRUCT = 12,
    UPQ_CT_UUID = 13
};

/* Storage kinds of described fields (and list elements). In a field
 * description, UPQ_TK_STRUCT + i names struct i of the description table the
 * field's own struct belongs to (upq_tstruct.index). */
typedef enum upq_tkind {
    UPQ_TK_BOOL = 1,
    UPQ_TK_I8,
    UPQ_TK_I16,
    UPQ_TK_I32,
    UPQ_TK_I64,
    UPQ_TK_DOUBLE,
    UPQ_TK_BINARY,
    UPQ_TK_UUID,
    UPQ_TK_LIST,  /* storage kind of a list (never in a description) */
    UPQ_TK_STRUCT /* must stay last: kinds from here on are structs */
} upq_tkind;

/* Field flags, above the field id in upq_tfield.id. */
#define UPQ_TF_ID 0x1Fu       /* the Thrift field id, 1..31 */
#define UPQ_TF_REQUIRED 0x20u /* missing at struct end -> UPQ_ERR_CORRUPT */
#define UPQ_TF_PROJECT 0x40u  /* list<struct> filtered by the decoder's projection */
#define UPQ_TF_LIST 0x80u     /* a list<kind> (Thrift list or set) */

/* One field: 4 bytes, plus its name unless UPQ_NO_ERRSTR. Build with
 * UPQ_TFIELD. */
struct upq_tfield {
#if !UPQ_NO_ERRSTR
    const char *name; /* for error messages */
#endif
    uint16_t offset;  /* offsetof() in the C struct */
    uint8_t id;       /* Thrift field id | UPQ_TF_* flags */
    uint8_t kind;     /* upq_tkind of the value or of the list's elements */
};

/* A described struct. All structs that refer to each other live in one
 * array, the description table: a field names its struct type by position
 * there. Build with UPQ_TSTRUCT. */
struct upq_tstruct {
#if !UPQ_NO_ERRSTR
    const char *name;
#endif
    const upq_tfield *fields; /* sorted by id */
    uint16_t size;            /* sizeof the C struct */
    uint8_t nfields;
    uint8_t index;            /* position in its table | UPQ_TS_UNION */
};
#define UPQ_TS_UNION 0x80u

#if UPQ_NO_ERRSTR
#define UPQ_TFIELD(id_flags, kind, offset, name) \
    { (uint16_t)(offset), (uint8_t)(id_flags), (uint8_t)(kind) }
#define UPQ_TSTRUCT(name, fields, nfields, size, index) \
    { (fields), (uint16_t)(size), (uint8_t)(nfields), (uint8_t)(index) }
#else
#define UPQ_TFIELD(id_flags, kind, offset, name) \
    { (name), (uint16_t)(offset), (uint8_t)(id_flags), (uint8_t)(kind) }
#define UPQ_TSTRUCT(name, fields, nfields, size, index) \
    { (name), (fields), (uint16_t)(size), (uint8_t)(nfields), (uint8_t)(index) }
#endif

/* The struct description a UPQ_TK_STRUCT field (or list<struct>) of `owner`
 * refers to. */
#define UPQ_TSUB(owner, fd) \
    ((owner) - ((owner)->index & ~UPQ_TS_UNION) + ((fd)->kind - UPQ_TK_STRUCT))

void upq_thrift_limits_default(upq_thrift_limits *l);

/* ---- decoder ---------------------------------------------------------- */

/*
 * Starts decoding one struct described by `desc` into `obj` (zeroed here).
 * `frames` (nframes of them, at most UPQ_THRIFT_MAX_DEPTH) hold the nesting
 * state and must live as long as the decoding: they bound the depth accepted
 * with the limits' max_depth, so a decoder of small known messages (page
 * headers) needs only a few.
 * `desc` NULL validates and skips one struct without storing anything.
 * Variable-size data (binaries, lists) is allocated from `arena` (may be NULL
 * when desc is NULL). `limit` bounds the bytes the struct may take; every
 * declared length and count is checked against the bytes left under it.
 * `lim` may be NULL for the defaults.
 */
void upq_tdec_init(upq_tdec *d, upq_tframe *frames, uint32_t nframes, const upq_tstruct *desc,
                   void *obj, upq_arena *arena, uint64_t limit, const upq_thrift_limits *lim);

/* Restricts UPQ_TF_PROJECT lists to the elements whose index has its bit set in
 * `bitmap` (`nbits` bits); the others are skipped and cost no memory. Stored
 * elements keep their relative order. Call after init, before the first feed. */
void upq_tdec_set_projection(upq_tdec *d, const uint8_t *bitmap, uint32_t nbits);

#if UPQ_WITH_LAZY_ROW_GROUPS
/* Skips the list<...> field `id` of the top struct instead of storing it,
 * keeping its position and element count in lazy_pos / lazy_n (the reader
 * decodes FileMetaData.row_groups one element at a time from there). Call
 * after init, before the first feed. */
void upq_tdec_set_lazy(upq_tdec *d, uint8_t id);
#endif

/*
 * Feeds in[0..len). Returns UPQ_OK when the struct is complete (*used = bytes
 * of `in` that belonged to it), UPQ_AGAIN when all of `in` was consumed and
 * more is needed (*used = len), or an error (UPQ_ERR_CORRUPT, _TRUNCATED when
 * the limit is reached, _LIMIT, _NOMEM). Any chunking gives the same result.
 */
upq_status upq_tdec_feed(upq_tdec *d, const uint8_t *in, size_t len, size_t *used);

/* The arena bytes decoding obj's encoding (of desc) takes: each list's
 * items and each binary's bytes, as the decoder allocates them (without a
 * projection). SIZE_MAX when obj nests deeper than UPQ_THRIFT_MAX_DEPTH. */
size_t upq_thrift_decoded_size(const upq_tstruct *desc, const void *obj);

/* One-shot decode of a complete buffer: the struct must end within it.
 * *used (may be NULL) gets its encoded length. */
upq_status upq_thrift_decode(const upq_tstruct *desc, void *obj, upq_arena *arena,
                             const uint8_t *buf, size_t len, size_t *used,
                             const upq_thrift_limits *lim);

/* ---- encoder ---------------------------------------------------------- */

typedef struct upq_teframe {
    const upq_tstruct *desc;  /* struct: its description; NULL: a list, whose field
                                 is the one the struct frame below staged last */
    const uint8_t *obj;       /* struct: the C struct; list: element storage */
    uint32_t index;           /* struct: next field index; list: next element */
    union {
        uint32_t last_id;     /* struct: previous field id */
        uint32_t n;           /* list: element count */
    } u;
} upq_teframe;

typedef struct upq_tenc {
    upq_teframe stack[UPQ_THRIFT_MAX_DEPTH];
    uint8_t depth;
    uint8_t pend_len, pend_pos;
    uint8_t pend[18];         /* token bytes not yet placed in an output window: at
                                 most a field header (2) and a uuid (16) */
    const uint8_t *body;      /* binary body still to copy */
    uint32_t body_left;
    upq_status status;
} upq_tenc;

/* Starts encoding `obj` described by `desc` (not copied: must stay valid). */
void upq_tenc_init(upq_tenc *e, const upq_tstruct *desc, const void *obj);

/* Writes the next bytes into out[0..cap) (out may be NULL to only count).
 * Returns UPQ_OK when finished (*produced = bytes written now), UPQ_AGAIN when
 * the window is full and more remain, or UPQ_ERR_INVAL for a model that
 * cannot be encoded (list too long, nesting too deep). */
upq_status upq_tenc_run(upq_tenc *e, uint8_t *out, size_t cap, size_t *produced);

/* One-shot: encodes into buf[0..cap). *len gets the encoded size; when it
 * does not fit, returns UPQ_ERR_BUFFER and *len is the size needed. */
upq_status upq_thrift_encode(const upq_tstruct *desc, const void *obj, uint8_t *buf,
                             size_t cap, size_t *len);

#ifdef __cplusplus
}
#endif

#endif
