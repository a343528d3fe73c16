/*
 * Thrift compact protocol, table-driven and resumable.
 *
 * The decoder is one stage machine over bytes: every token (field header,
 * varint, fixed-width value, binary body, container header) can be split
 * across feeds, because all partial state lives in upq_tdec. Nesting lives in
 * an explicit frame stack, so a file cannot drive the C stack.
 *
 * The encoder walks a described struct with its own frame stack and stages
 * each token in a small pending buffer, so any output window size works.
 */
#include "thrift.h"
#include "upq_port.h"
#include "common/upq_internal.h"

enum {
    ST_FIELD_HDR = 0, /* struct frame: next field header or STOP */
    ST_BYTE,          /* one-byte value (BYTE, bool list element) */
    ST_FIXED,         /* DOUBLE (8) or UUID (16) bytes into tmp */
    ST_BIN_BODY,      /* binary bytes */
    ST_LIST_HDR,      /* list/set size-and-type byte */
    ST_MAP_TYPES,     /* map key/value type byte */
    /* varints, accumulated in acc by one path */
    ST_FIELD_ID,      /* long-form field id */
    ST_INT,           /* zigzag value of I16/I32/I64 */
    ST_BIN_LEN,       /* binary length */
    ST_LIST_SIZE,     /* list/set long-form size */
    ST_MAP_SIZE,      /* map entry count */
    ST_DONE
};

/* The stage that reads a value of each wire type (STRUCT: its first field). */
static const uint8_t ct_stage[UPQ_CT_UUID + 1] = {
    ST_DONE,     ST_BYTE,     ST_BYTE,      ST_BYTE,      ST_INT,
    ST_INT,      ST_INT,      ST_FIXED,     ST_BIN_LEN,   ST_LIST_HDR,
    ST_LIST_HDR, ST_MAP_SIZE, ST_FIELD_HDR, ST_FIXED,
};

void upq_thrift_limits_default(upq_thrift_limits *l)
{
    l->max_depth = UPQ_THRIFT_MAX_DEPTH;
    l->max_list = (uint32_t)UPQ_THRIFT_MAX_LIST;
    l->max_binary = (uint32_t)UPQ_THRIFT_MAX_BINARY;
}

/* Wire type of each storage kind (bools: TRUE, as list element types are
 * announced) and its storage size (structs: their description's). */
static const uint8_t kind_ct[UPQ_TK_STRUCT + 1] = {
    0,           UPQ_CT_TRUE,   UPQ_CT_BYTE,   UPQ_CT_I16,  UPQ_CT_I32,  UPQ_CT_I64,
    UPQ_CT_DOUBLE, UPQ_CT_BINARY, UPQ_CT_UUID, UPQ_CT_LIST, UPQ_CT_STRUCT,
};
static const uint8_t kind_bytes[UPQ_TK_STRUCT + 1] = {
    0, 1, 1, 2, 4, 8, sizeof(double), sizeof(upq_bytes), 16, sizeof(upq_list), 0,
};

/* Storage kind of a description's field value / list element. */
static uint8_t elem_kind(const upq_tfield *fd)
{
    return fd->kind < UPQ_TK_STRUCT ? fd->kind : (uint8_t)UPQ_TK_STRUCT;
}

static uint8_t field_kind(const upq_tfield *fd)
{
    return (fd->id & UPQ_TF_LIST) ? (uint8_t)UPQ_TK_LIST : elem_kind(fd);
}

/* Storage size of one value of a kind (list elements, array strides). */
static size_t kind_size(uint8_t kind, const upq_tstruct *sub)
{
    return kind == UPQ_TK_STRUCT ? sub->size : kind_bytes[kind];
}

/* Can a value of wire type `ct` be stored as `kind`? Mismatches are skipped
 * like unknown fields, as other Thrift implementations do. */
static int compatible(uint8_t kind, uint8_t ct)
{
    return ct == kind_ct[kind] || (kind == UPQ_TK_BOOL && ct == UPQ_CT_FALSE) ||
           (kind == UPQ_TK_LIST && ct == UPQ_CT_SET);
}

/* Fewest bytes one element of wire type `ct` can occupy: bounds the element
 * count a container may declare in the bytes that are left. */
static uint32_t min_wire_size(uint8_t ct)
{
    if (ct == UPQ_CT_DOUBLE)
        return 8;
    if (ct == UPQ_CT_UUID)
        return 16;
    return 1;
}

static int is_int_kind(uint8_t kind)
{
    return kind >= UPQ_TK_I16 && kind <= UPQ_TK_I64;
}

static int is_varint_ct(uint8_t ct)
{
    return ct >= UPQ_CT_I16 && ct <= UPQ_CT_I64;
}

static int valid_ct(uint8_t ct)
{
    return ct >= UPQ_CT_TRUE && ct <= UPQ_CT_UUID;
}

/* ---- decoder ---------------------------------------------------------- */

/* Counting what does not fit (UPQ_WITH_OPEN_TOTAL): without it, the
 * branches that count are compiled out. */
#if UPQ_WITH_OPEN_TOTAL
#define COUNTING(d) ((d)->count_over)
#define PHANTOM(d) ((d)->phantom)
#define SET_PHANTOM(d, v) ((d)->phantom = (v))
#else
#define COUNTING(d) 0
#define PHANTOM(d) 0
#define SET_PHANTOM(d, v) ((void)0)
#endif

/* Counting: an allocation of n bytes that did not fit (or was not made)
 * adds what the arena would take for it to the arena's `needed`, which
 * holds their sum while the decode counts (upq_tdec_count_over). */
static void count_over(upq_tdec *d, uint64_t n)
{
    upq_arena *a = d->arena;
    uint64_t r = (n + 7u) & ~(uint64_t)7u;
    if (r < n || r > (uint64_t)((size_t)-1 - a->needed))
        a->needed = (size_t)-1;
    else
        a->needed += (size_t)r;
}

/* A field's name for error details; not evaluated with UPQ_NO_ERRSTR. */
#define FIELD_NAME(fd) UPQ_MSG((fd)->name)

static upq_status dec_fail(upq_tdec *d, upq_status st, uint64_t at, const char *field)
{
    d->status = st;
    d->err_pos = at;
    d->err_field = field;
#if UPQ_NO_ERRSTR
    d->err_struct = "";
#else
    {
        unsigned i = d->depth;
        d->err_struct = (const char *)0;
        /* name the innermost described struct: messages then say "ColumnMetaData" */
        while (i > 0) {
            const upq_tframe *f = &d->stack[--i];
            if (f->type == UPQ_CT_STRUCT && f->desc) {
                d->err_struct = f->desc->name;
                break;
            }
        }
    }
#endif
    return st;
}

void upq_tdec_init(upq_tdec *d, upq_tframe *frames, uint32_t nframes, const upq_tstruct *desc,
                   void *obj, upq_arena *arena, uint64_t limit, const upq_thrift_limits *lim)
{
    upq_memset(d, 0, sizeof *d);
    d->stack = frames;
    if (lim)
        upq_memcpy(&d->lim, lim, sizeof d->lim); /* an assignment is a memcpy call on RV32 */
    else
        upq_thrift_limits_default(&d->lim);
    if (nframes > UPQ_THRIFT_MAX_DEPTH)
        nframes = UPQ_THRIFT_MAX_DEPTH;
    if (d->lim.max_depth > nframes || d->lim.max_depth == 0)
        d->lim.max_depth = nframes;
    d->arena = arena;
    d->limit = limit;
    d->status = UPQ_AGAIN; /* in progress */
    d->depth = 1;
    upq_memset(&d->stack[0], 0, sizeof d->stack[0]);
    d->stack[0].type = UPQ_CT_STRUCT;
    d->stack[0].desc = obj ? desc : (const upq_tstruct *)0;
    d->stack[0].obj = (uint8_t *)obj;
    if (obj && desc)
        upq_memset(obj, 0, desc->size);
    d->stage = ST_FIELD_HDR;
}

void upq_tdec_set_projection(upq_tdec *d, const uint8_t *bitmap, uint32_t nbits)
{
    uint32_t i, count = 0;
    d->proj = bitmap;
    d->proj_bits = bitmap ? nbits : 0;
    for (i = 0; i < d->proj_bits; i++)
        count += (bitmap[i >> 3] >> (i & 7)) & 1u;
    d->proj_count = count;
}

#if UPQ_WITH_LAZY_ROW_GROUPS
void upq_tdec_set_lazy(upq_tdec *d, uint8_t id)
{
    d->lazy_id = id;
}
#endif

/* A new frame of wire type `type` on top, or NULL with the error recorded
 * when nesting would be too deep. */
static upq_tframe *push(upq_tdec *d, uint8_t type, uint64_t at)
{
    upq_tframe *f;
    if (d->depth >= d->lim.max_depth) {
        dec_fail(d, UPQ_ERR_LIMIT, at, UPQ_MSG("nesting depth"));
        return (upq_tframe *)0;
    }
    f = &d->stack[d->depth++];
    upq_memset(f, 0, sizeof *f);
    f->type = type;
    return f;
}

/* Stores a list's pointer and count without aliasing the typed list struct. */
static void put_list(uint8_t *dst, void *items, uint32_t n)
{
    upq_memcpy(dst, &items, sizeof items);
    upq_memcpy(dst + offsetof(upq_list, n), &n, sizeof n);
}

/* Finishes the container on top: publishes the stored element count. */
static void finish_container(upq_tdec *d)
{
    upq_tframe *f = &d->stack[d->depth - 1];
    if (f->type != UPQ_CT_MAP && f->items)
        put_list(f->obj, f->items, f->stored);
    d->depth--;
}

/* The first UPQ_TF_REQUIRED field of `desc` whose bit `isset` lacks, or NULL. */
static const upq_tfield *missing_required(const upq_tstruct *desc, uint32_t isset)
{
    unsigned i;
    for (i = 0; i < desc->nfields; i++) {
        const upq_tfield *fd = &desc->fields[i];
        if ((fd->id & UPQ_TF_REQUIRED) && !((isset >> (fd->id & UPQ_TF_ID)) & 1u))
            return fd;
    }
    return (const upq_tfield *)0;
}

/* Starts reading a value of wire type d->cur_ct into d->dest (NULL: skip).
 * Bools in struct fields carry their value in the header and never get here. */
static upq_status begin_value(upq_tdec *d, uint64_t at)
{
    uint8_t ct = d->cur_ct;
    d->acc = 0;
    d->shift = 0;
    d->tmp_len = 0;
    if (!valid_ct(ct))
        return dec_fail(d, UPQ_ERR_CORRUPT, at, UPQ_MSG("wire type"));
    if (ct == UPQ_CT_STRUCT) {
        upq_tframe *f = push(d, UPQ_CT_STRUCT, at);
        if (!f)
            return d->status;
        if (d->dest) {
            f->desc = d->dest_sub;
            f->obj = d->dest;
        } else if (PHANTOM(d)) {
            f->desc = d->dest_sub; /* counted, not stored */
        }
        SET_PHANTOM(d, 0); /* its fields say for themselves */
    }
    d->stage = ct_stage[ct];
    return UPQ_OK;
}

static int elem_selected(const upq_tdec *d, const upq_tframe *f, uint32_t idx)
{
    if (!f->project || !d->proj)
        return 1;
    return idx < d->proj_bits && ((d->proj[idx >> 3] >> (idx & 7)) & 1u);
}

/* A value just completed: move to the next field header or container element,
 * closing containers that are complete. */
static upq_status next_item(upq_tdec *d, uint64_t at)
{
    for (;;) {
        upq_tframe *f;
        if (d->depth == 0) {
            d->stage = ST_DONE;
            return UPQ_OK;
        }
        f = &d->stack[d->depth - 1];
        if (f->type == UPQ_CT_STRUCT) {
            d->stage = ST_FIELD_HDR;
            return UPQ_OK;
        }
        if (f->type == UPQ_CT_MAP) {
            if (f->map_value_next) {
                f->map_value_next = 0;
                d->cur_ct = f->val_ct;
            } else {
                if (f->remaining == 0) {
                    finish_container(d);
                    continue;
                }
                f->remaining--;
                f->map_value_next = 1;
                d->cur_ct = f->elem_ct;
            }
            d->dest = (uint8_t *)0;
            SET_PHANTOM(d, 0);
            return begin_value(d, at);
        }
        /* list or set */
        if (f->remaining == 0) {
            finish_container(d);
            continue;
        }
        f->remaining--;
        d->cur_ct = f->elem_ct;
        d->dest = (uint8_t *)0;
        SET_PHANTOM(d, 0);
        if (COUNTING(d) && !f->items && f->elem_kind && elem_selected(d, f, f->index)) {
            /* a list that did not fit: its elements are counted */
            SET_PHANTOM(d, 1);
            d->dest_kind = f->elem_kind;
            d->dest_sub = f->desc;
        } else if (f->items && elem_selected(d, f, f->index)) {
            size_t esz = kind_size(f->elem_kind, f->desc);
            d->dest = f->items + (size_t)f->stored * esz;
            d->dest_kind = f->elem_kind;
            d->dest_sub = f->desc;
            f->stored++;
            if (d->dest_kind == UPQ_TK_STRUCT)
                upq_memset(d->dest, 0, esz);
        }
        f->index++;
        return begin_value(d, at);
    }
}

/* Integer storage: i16, i32 or i64 (lists of one may carry another's wire type). */
static void store_int(uint8_t *dst, uint8_t kind, int64_t v)
{
    switch (kind) {
    case UPQ_TK_I16: *(int16_t *)(void *)dst = (int16_t)v; break;
    case UPQ_TK_I32: *(int32_t *)(void *)dst = (int32_t)v; break;
    case UPQ_TK_I64: *(int64_t *)(void *)dst = v; break;
    default: break;
    }
}

/* Accumulates one varint byte: 1 when complete, 0 when more follow, -1 when
 * longer than 64 bits. */
static int varint_step(upq_tdec *d, uint8_t b)
{
    if (d->shift >= 64 || (d->shift == 63 && (b & 0x7Eu)))
        return -1;
    d->acc |= (uint64_t)(b & 0x7Fu) << d->shift;
    d->shift = (uint8_t)(d->shift + 7);
    return (b & 0x80u) ? 0 : 1;
}

/* What a varint stage reads, for the error of an overlong varint. */
static const char *varint_what(uint8_t stage)
{
    switch (stage) {
    case ST_FIELD_ID: return UPQ_MSG("field id");
    case ST_INT: return UPQ_MSG("varint too long");
    case ST_BIN_LEN: return UPQ_MSG("binary length");
    case ST_LIST_SIZE: return UPQ_MSG("list size");
    default: return UPQ_MSG("map size");
    }
}

static int64_t unzigzag(uint64_t u)
{
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1u);
}

/* Is v within a signed integer of `bits` bits (16 or 32)? */
static int fits_bits(int64_t v, unsigned bits)
{
    return (uint64_t)v + ((uint64_t)1 << (bits - 1)) < ((uint64_t)1 << bits);
}

/* A struct field header is known: find its description, set the value's
 * destination, and start reading it. */
static upq_status begin_field(upq_tdec *d, int32_t id, uint8_t ct, uint64_t at)
{
    upq_tframe *f = &d->stack[d->depth - 1];
    const upq_tfield *fd = (const upq_tfield *)0;
    unsigned i;

    if (!valid_ct(ct))
        return dec_fail(d, UPQ_ERR_CORRUPT, at, UPQ_MSG("field type"));
    f->last_id = (int16_t)id;
    d->cur_ct = ct;
    d->dest = (uint8_t *)0;
    SET_PHANTOM(d, 0);
    if (f->desc && (f->obj || COUNTING(d))) {
        for (i = 0; i < f->desc->nfields; i++)
            if ((int32_t)(f->desc->fields[i].id & UPQ_TF_ID) == id) {
                fd = &f->desc->fields[i];
                break;
            }
    }
    if (fd && COUNTING(d) && !f->obj && compatible(field_kind(fd), ct)) {
        /* a struct that did not fit: what its fields would take is counted */
        SET_PHANTOM(d, 1);
        d->dest_kind = field_kind(fd);
        d->dest_field = fd;
        d->dest_sub = fd->kind >= UPQ_TK_STRUCT ? UPQ_TSUB(f->desc, fd) : (const upq_tstruct *)0;
#if UPQ_WITH_LAZY_ROW_GROUPS
        if (d->depth == 1 && id == (int32_t)d->lazy_id && d->dest_kind == UPQ_TK_LIST) {
            SET_PHANTOM(d, 0);
            d->lazy_hit = 1;
        }
#endif
    } else if (fd && compatible(field_kind(fd), ct)) {
        uint32_t *isset = (uint32_t *)(void *)f->obj;
        uint32_t bit = 1u << id;
        if ((f->desc->index & UPQ_TS_UNION) && (*isset & ~bit))
            return dec_fail(d, UPQ_ERR_CORRUPT, at, UPQ_MSG("union with two members"));
        *isset |= bit;
        d->dest = f->obj + fd->offset;
        d->dest_kind = field_kind(fd);
        d->dest_field = fd;
        d->dest_sub = fd->kind >= UPQ_TK_STRUCT ? UPQ_TSUB(f->desc, fd) : (const upq_tstruct *)0;
#if UPQ_WITH_LAZY_ROW_GROUPS
        if (d->depth == 1 && id == (int32_t)d->lazy_id && d->dest_kind == UPQ_TK_LIST) {
            d->dest = (uint8_t *)0; /* walked over (and checked) but not stored */
            d->lazy_hit = 1;
        }
#endif
    }
    if (ct == UPQ_CT_TRUE || ct == UPQ_CT_FALSE) {
        if (d->dest)
            *d->dest = ct == UPQ_CT_TRUE;
        return next_item(d, at);
    }
    return begin_value(d, at);
}

/* A list/set header is known: check the count against what is left, set up
 * element storage, and move to the first element. */
static upq_status begin_list(upq_tdec *d, uint64_t count, uint8_t et, uint64_t at)
{
    upq_tframe *f;
    uint8_t *dst = d->dest;
    const upq_tfield *fd = d->dest_field;
    uint64_t left = d->limit - at;

    if (!valid_ct(et))
        return dec_fail(d, UPQ_ERR_CORRUPT, at, UPQ_MSG("list element type"));
    if (count > d->lim.max_list)
        return dec_fail(d, UPQ_ERR_LIMIT, at, UPQ_MSG("list length"));
    if (count * min_wire_size(et) > left)
        return dec_fail(d, UPQ_ERR_CORRUPT, at, UPQ_MSG("list longer than its message"));
#if UPQ_WITH_LAZY_ROW_GROUPS
    if (d->lazy_hit && d->depth == 1) {
        d->lazy_hit = 0;
        d->lazy_pos = at;
        /* elements of another type are skipped as eager decoding skips them */
        d->lazy_n = et == UPQ_CT_STRUCT ? (uint32_t)count : 0;
    }
#endif
    f = push(d, UPQ_CT_LIST, at);
    if (!f)
        return d->status;
    f->elem_ct = et;
    f->remaining = (uint32_t)count;
    /* Elements are matched like the reference readers do: they read list
     * elements with the declared type and ignore the header's, and i16/i32/i64
     * share one wire form (a file in the wild declares i32 encodings as i16). */
    if ((dst || PHANTOM(d)) && d->dest_kind == UPQ_TK_LIST) {
        uint8_t ek = elem_kind(fd);
        if (compatible(ek, et) || (is_int_kind(ek) && is_varint_ct(et))) {
            uint32_t slots = (uint32_t)count;
            f->project = (fd->id & UPQ_TF_PROJECT) && d->proj;
            if (f->project && slots > d->proj_count)
                slots = d->proj_count;
            f->elem_kind = ek;
            f->desc = d->dest_sub;
            f->obj = dst;
            if (dst) {
                size_t sum = d->arena->needed; /* a failure overwrites it */
                f->items = (uint8_t *)upq_arena_alloc_array(d->arena, slots, kind_size(ek, f->desc));
                if (COUNTING(d))
                    d->arena->needed = sum;
            }
            if (!f->items) {
                if (!COUNTING(d))
                    return dec_fail(d, UPQ_ERR_NOMEM, at, FIELD_NAME(fd));
                /* counted instead; its elements are counted as they come.
                 * The list keeps its count (no items): the open that fails
                 * bounds a schema from it */
                count_over(d, (uint64_t)slots * kind_size(ek, f->desc));
                if (dst)
                    put_list(dst, (void *)0, (uint32_t)count);
                f->obj = (uint8_t *)0;
            } else {
                put_list(dst, f->items, 0);
            }
        }
    }
    return next_item(d, at);
}

static upq_status begin_map(upq_tdec *d, uint64_t count, uint8_t types, uint64_t at)
{
    upq_tframe *f;
    uint8_t kt = (uint8_t)(types >> 4), vt = (uint8_t)(types & 0x0Fu);
    if (count && (!valid_ct(kt) || !valid_ct(vt)))
        return dec_fail(d, UPQ_ERR_CORRUPT, at, UPQ_MSG("map element type"));
    if (count > d->lim.max_list)
        return dec_fail(d, UPQ_ERR_LIMIT, at, UPQ_MSG("map size"));
    if (count * (min_wire_size(kt) + min_wire_size(vt)) > d->limit - at)
        return dec_fail(d, UPQ_ERR_CORRUPT, at, UPQ_MSG("map longer than its message"));
    f = push(d, UPQ_CT_MAP, at);
    if (!f)
        return d->status;
    f->elem_ct = kt;
    f->val_ct = vt;
    f->remaining = (uint32_t)count;
    return next_item(d, at);
}

/* The fixed-size or integer value just read is complete: store it. */
static upq_status finish_scalar(upq_tdec *d, uint64_t at)
{
    if (is_varint_ct(d->cur_ct)) {
        int64_t v = unzigzag(d->acc);
        /* the value must fit both its wire type and its storage:
         * 0 i16, 1 i32, 2 i64, whichever is narrower */
        unsigned width = (unsigned)(d->cur_ct - UPQ_CT_I16);
        if (d->dest && (unsigned)(d->dest_kind - UPQ_TK_I16) < width)
            width = (unsigned)(d->dest_kind - UPQ_TK_I16);
        if ((width == 0 && !fits_bits(v, 16)) || (width == 1 && !fits_bits(v, 32)))
            return dec_fail(d, UPQ_ERR_CORRUPT, at, UPQ_MSG("integer out of range"));
        if (d->dest)
            store_int(d->dest, d->dest_kind, v);
    } else if (d->cur_ct == UPQ_CT_DOUBLE) {
        if (d->dest) { /* a double's bits in host order are the double */
            uint64_t bits = upq_load_le64(d->tmp);
            upq_memcpy(d->dest, &bits, sizeof bits);
        }
    } else if (d->dest) { /* UUID */
        upq_memcpy(d->dest, d->tmp, 16);
    }
    return next_item(d, at);
}

/* A binary's length is known: its storage (or, counting, its size), then
 * its body. */
static upq_status begin_binary(upq_tdec *d, uint64_t at)
{
    uint64_t blen = d->acc;
    if (blen > d->lim.max_binary)
        return dec_fail(d, UPQ_ERR_LIMIT, at, UPQ_MSG("binary length"));
    if (blen > d->limit - (at + 1))
        return dec_fail(d, UPQ_ERR_CORRUPT, at, UPQ_MSG("binary longer than its message"));
    d->bin = (uint8_t *)0;
    if (d->dest) {
        upq_bytes bv;
        size_t sum = d->arena->needed; /* a failure overwrites it */
        d->bin = (uint8_t *)upq_arena_alloc(d->arena, (size_t)blen);
        if (COUNTING(d))
            d->arena->needed = sum;
        /* dest_field: this binary's field, or for an element of a
         * list<binary> the list's (no field header comes between) */
        if (!d->bin && !COUNTING(d))
            return dec_fail(d, UPQ_ERR_NOMEM, at, FIELD_NAME(d->dest_field));
        if (!d->bin) {
            count_over(d, blen);
        } else {
            bv.ptr = d->bin;
            bv.len = (uint32_t)blen;
            upq_memcpy(d->dest, &bv, sizeof bv);
        }
    } else if (PHANTOM(d)) {
        count_over(d, blen);
    }
    SET_PHANTOM(d, 0);
    d->bin_left = (uint32_t)blen;
    d->stage = ST_BIN_BODY;
    return UPQ_OK;
}

/* ---- fast path ------------------------------------------------------------- */

#if UPQ_FAST_KERNELS

/*
 * A message that starts a feed, made only of structs, integers, bools and
 * binaries (a page header), is decoded here in one pass over the bytes, with
 * no stage, token or 64-bit position kept per byte (a page header on
 * Cortex-M4: about 2,600 instructions, 4,100 through the stage machine).
 * Anything else (a list, a map, a long-form field id, a value out of range,
 * a missing required field, a union, a binary the arena cannot take) gives
 * up, and the stage machine decodes the message from its first byte as if
 * this had not run: the struct is cleared again and the arena rewound. So
 * errors, and what any message decodes to, are the stage machine's own.
 * Where the feed ends first, the stage machine takes over at the last field
 * boundary, in the state it would have reached there itself.
 */

enum { WHOLE_TAKEN = 1, WHOLE_MORE = 0, WHOLE_NO = -1 };

/* A varint of at most 10 bytes at p[*i..n): WHOLE_MORE when the bytes end
 * first, WHOLE_NO when it does not fit 64 bits. */
static int whole_varint(const uint8_t *p, size_t n, size_t *i, uint64_t *out)
{
    size_t j = *i;
    uint32_t lo = 0;
    uint64_t v;
    unsigned k;
    /* the first four bytes in 32 bits: nearly every value a header holds */
    for (k = 0; k < 4 && j < n; k++) {
        uint8_t b = p[j++];
        lo |= (uint32_t)(b & 0x7Fu) << (7 * k);
        if (!(b & 0x80u)) {
            *i = j;
            *out = lo;
            return WHOLE_TAKEN;
        }
    }
    v = lo;
    for (; k < 10 && j < n; k++) {
        uint8_t b = p[j++];
        if (k == 9 && (b & 0x7Eu))
            return WHOLE_NO;
        v |= (uint64_t)(b & 0x7Fu) << (7 * k);
        if (!(b & 0x80u)) {
            *i = j;
            *out = v;
            return WHOLE_TAKEN;
        }
    }
    return k == 10 ? WHOLE_NO : WHOLE_MORE;
}

/* The value of wire type ct after a field header: stored at dest (kind)
 * unless dest is NULL. */
static int whole_value(upq_tdec *d, uint8_t ct, uint8_t *dest, uint8_t kind, const uint8_t *p,
                       size_t n, size_t *i)
{
    uint64_t u;
    int r;
    if (is_varint_ct(ct)) {
        int64_t v;
        unsigned width = (unsigned)(ct - UPQ_CT_I16);
        if ((r = whole_varint(p, n, i, &u)) != WHOLE_TAKEN)
            return r;
        v = unzigzag(u);
        if (dest && (unsigned)(kind - UPQ_TK_I16) < width)
            width = (unsigned)(kind - UPQ_TK_I16);
        if ((width == 0 && !fits_bits(v, 16)) || (width == 1 && !fits_bits(v, 32)))
            return WHOLE_NO;
        if (dest)
            store_int(dest, kind, v);
        return WHOLE_TAKEN;
    }
    /* a binary: stored in the arena as the stage machine stores it, or
     * passed over */
    if ((r = whole_varint(p, n, i, &u)) != WHOLE_TAKEN)
        return r;
    if (u > d->lim.max_binary || u > d->limit - *i)
        return WHOLE_NO;
    if (u > n - *i)
        return WHOLE_MORE;
    if (dest) {
        upq_bytes bv;
        uint8_t *bin = (uint8_t *)upq_arena_alloc(d->arena, (size_t)u);
        if (!bin)
            return WHOLE_NO;
        upq_memcpy(bin, p + *i, (size_t)u);
        bv.ptr = bin;
        bv.len = (uint32_t)u;
        upq_memcpy(dest, &bv, sizeof bv);
    }
    *i += (size_t)u;
    return WHOLE_TAKEN;
}

/* One field of the struct frame f, its short-form header byte b read. */
static int whole_field(upq_tdec *d, upq_tframe *f, uint8_t b, const uint8_t *p, size_t n,
                       size_t *i)
{
    int32_t id = f->last_id + (b >> 4);
    uint8_t ct = b & 0x0Fu, kind = 0;
    uint8_t *dest = (uint8_t *)0;
    const upq_tfield *fd = (const upq_tfield *)0;
    unsigned k;
    if (f->desc && f->obj) {
        for (k = 0; k < f->desc->nfields; k++)
            if ((int32_t)(f->desc->fields[k].id & UPQ_TF_ID) == id) {
                fd = &f->desc->fields[k];
                break;
            }
    }
    if (fd && compatible(field_kind(fd), ct)) {
        if (f->desc->index & UPQ_TS_UNION)
            return WHOLE_NO;
        dest = f->obj + fd->offset;
        kind = field_kind(fd);
    }
    if (ct == UPQ_CT_STRUCT) {
        upq_tframe *g;
        if (d->depth >= d->lim.max_depth)
            return WHOLE_NO;
        g = &d->stack[d->depth++];
        upq_memset(g, 0, sizeof *g);
        g->type = UPQ_CT_STRUCT;
        if (dest) {
            g->desc = UPQ_TSUB(f->desc, fd);
            g->obj = dest;
        }
    } else if (ct == UPQ_CT_TRUE || ct == UPQ_CT_FALSE) {
        if (dest)
            *dest = ct == UPQ_CT_TRUE;
    } else if (is_varint_ct(ct) || ct == UPQ_CT_BINARY) {
        int r = whole_value(d, ct, dest, kind, p, n, i);
        if (r != WHOLE_TAKEN)
            return r;
    } else {
        return WHOLE_NO;
    }
    f->last_id = (int16_t)id;
    if (dest)
        *(uint32_t *)(void *)f->obj |= 1u << id;
    return WHOLE_TAKEN;
}

/* The message from in[0..n): UPQ_OK with *used set when it is complete;
 * else UPQ_AGAIN with *used bytes taken, the decoder at that field boundary
 * (0: as upq_tdec_init left it). */
static UPQ_NOINLINE upq_status tdec_whole(upq_tdec *d, const uint8_t *in, size_t n, size_t *used)
{
    size_t i = 0;
    int r = WHOLE_MORE;
    upq_arena_mark mark = d->arena ? upq_arena_save(d->arena) : 0;
    *used = 0;
    while (i < n) {
        upq_tframe *f = &d->stack[d->depth - 1];
        size_t at = i;
        uint8_t b = in[i++];
        if (b == 0) { /* STOP */
            if (f->desc && f->obj &&
                missing_required(f->desc, *(const uint32_t *)(const void *)f->obj)) {
                r = WHOLE_NO;
                break;
            }
            if (--d->depth == 0) {
                d->stage = ST_DONE;
                *used = i;
                return UPQ_OK;
            }
        } else if (!(b >> 4)) {
            r = WHOLE_NO;
            break;
        } else if ((r = whole_field(d, f, b, in, n, &i)) != WHOLE_TAKEN) {
            i = at;
            break;
        }
        *used = i;
    }
    if (r == WHOLE_NO) {
        /* back to the start for the stage machine: binaries it stored go */
        *used = 0;
        if (d->arena)
            upq_arena_rewind(d->arena, mark);
        d->depth = 1;
        d->stack[0].last_id = 0;
        if (d->stack[0].obj && d->stack[0].desc)
            upq_memset(d->stack[0].obj, 0, d->stack[0].desc->size);
    }
    return UPQ_AGAIN;
}

#endif

/* The fast path, for a decode at its first byte (not with a projection or
 * a lazy list, which the stage machine keeps track of); not in builds
 * without UPQ_FAST_KERNELS. */
static upq_status whole_start(upq_tdec *d, const uint8_t *in, size_t n, size_t *used)
{
    *used = 0;
#if UPQ_FAST_KERNELS
    if (d->pos != 0 || d->depth != 1 || d->stage != ST_FIELD_HDR || d->proj)
        return UPQ_AGAIN;
#if UPQ_WITH_LAZY_ROW_GROUPS
    if (d->lazy_id)
        return UPQ_AGAIN;
#endif
    return tdec_whole(d, in, n, used);
#else
    (void)d;
    (void)in;
    (void)n;
    return UPQ_AGAIN;
#endif
}

upq_status upq_tdec_feed(upq_tdec *d, const uint8_t *in, size_t len, size_t *used)
{
    size_t i = 0, n = len;
    upq_status st = UPQ_OK;
    uint64_t room;

    *used = 0;
    if (d->status != UPQ_AGAIN)
        return d->status;
    room = d->limit - d->pos;
    if ((uint64_t)n > room)
        n = (size_t)room;
    if (whole_start(d, in, n, &i) == UPQ_OK) {
        d->pos = i;
        d->status = UPQ_OK;
        *used = i;
        return UPQ_OK;
    }

    while (d->stage != ST_DONE) {
        uint64_t at = d->pos + i;
        uint8_t b;
        int r;

        if (d->stage == ST_BIN_BODY) {
            size_t take = n - i;
            if (take > d->bin_left)
                take = d->bin_left;
            if (d->bin)
                upq_memcpy(d->bin, in + i, take);
            if (d->bin)
                d->bin += take;
            d->bin_left -= (uint32_t)take;
            i += take;
            if (d->bin_left) {
                if (i == n)
                    break;
                continue;
            }
            st = next_item(d, d->pos + i);
            if (st < 0)
                return st;
            continue;
        }
        if (i == n)
            break;
        b = in[i++];
        if (d->stage >= ST_FIELD_ID) {
            r = varint_step(d, b);
            if (r < 0)
                return dec_fail(d, UPQ_ERR_CORRUPT, at, varint_what(d->stage));
            if (r == 0)
                continue;
        }
        switch (d->stage) {
        case ST_FIELD_HDR:
            if (b == 0) { /* STOP */
                upq_tframe *f = &d->stack[d->depth - 1];
                const upq_tfield *miss = (const upq_tfield *)0;
                if (f->desc && f->obj)
                    miss = missing_required(f->desc, *(const uint32_t *)(const void *)f->obj);
                if (miss)
                    return dec_fail(d, UPQ_ERR_CORRUPT, at, FIELD_NAME(miss));
                d->depth--;
                st = next_item(d, at);
            } else if (b >> 4) {
                st = begin_field(d, d->stack[d->depth - 1].last_id + (b >> 4), b & 0x0Fu, at);
            } else {
                d->cur_ct = b & 0x0Fu;
                d->acc = 0;
                d->shift = 0;
                d->stage = ST_FIELD_ID;
            }
            break;
        case ST_FIELD_ID: {
            int64_t id = unzigzag(d->acc);
            if (!fits_bits(id, 16))
                return dec_fail(d, UPQ_ERR_CORRUPT, at, UPQ_MSG("field id"));
            st = begin_field(d, (int32_t)id, d->cur_ct, at);
            break;
        }
        case ST_BYTE:
            if (d->cur_ct == UPQ_CT_BYTE) {
                if (d->dest)
                    *(int8_t *)(void *)d->dest = (int8_t)b;
            } else { /* bool list element: 1 true; 2 (or 0, written by some) false */
                if (b > 2)
                    return dec_fail(d, UPQ_ERR_CORRUPT, at, UPQ_MSG("bool value"));
                if (d->dest)
                    *d->dest = b == 1;
            }
            st = next_item(d, at);
            break;
        case ST_INT: st = finish_scalar(d, at); break;
        case ST_FIXED:
            d->tmp[d->tmp_len++] = b;
            if (d->tmp_len == (d->cur_ct == UPQ_CT_DOUBLE ? 8 : 16))
                st = finish_scalar(d, at);
            break;
        case ST_BIN_LEN: st = begin_binary(d, at); break;
        case ST_LIST_HDR:
            if ((b >> 4) == 15) {
                d->tmp[0] = b & 0x0Fu;
                d->acc = 0;
                d->shift = 0;
                d->stage = ST_LIST_SIZE;
            } else {
                st = begin_list(d, b >> 4, b & 0x0Fu, at + 1);
            }
            break;
        case ST_LIST_SIZE: st = begin_list(d, d->acc, d->tmp[0], at + 1); break;
        case ST_MAP_SIZE:
            if (d->acc == 0)
                st = begin_map(d, 0, 0, at + 1); /* empty maps have no type byte */
            else
                d->stage = ST_MAP_TYPES;
            break;
        case ST_MAP_TYPES: st = begin_map(d, d->acc, b, at + 1); break; 
/* acc: the count */
        default: return dec_fail(d, UPQ_ERR_STATE, at, UPQ_MSG("decoder stage"));
        }
        if (st < 0)
            return st;
    }

    d->pos += i;
    *used = i;
    if (d->stage == ST_DONE && COUNTING(d) && d->arena->needed) {
        /* everything was read; what did not fit is known: the whole need */
        upq_arena *a = d->arena;
        size_t have = a->cap - upq_arena_remaining(a);
        a->needed = a->needed > (size_t)-1 - have ? (size_t)-1 : a->needed + have;
        return dec_fail(d, UPQ_ERR_NOMEM, d->pos, UPQ_MSG("what does not fit, counted"));
    }
    if (d->stage == ST_DONE) {
        d->status = UPQ_OK;
        return UPQ_OK;
    }
    if (d->pos >= d->limit)
        return dec_fail(d, UPQ_ERR_TRUNCATED, d->pos, UPQ_MSG("message ends before its struct"));
    return UPQ_AGAIN;
}

/* A struct or a list of structs whose allocations are being added up. */
typedef struct dsz_frame {
    const upq_tstruct *desc;
    const uint8_t *obj;  /* the struct, or the list's first item */
    uint32_t i, n;       /* next field (struct) or item (list), and the list's items */
    uint8_t list;
} dsz_frame;

static size_t dsz_round(size_t n)
{
    return (n + (UPQ_ARENA_ALIGN - 1u)) & ~(size_t)(UPQ_ARENA_ALIGN - 1u);
}

/* One field of the struct on top of the stack: its allocations into *total;
 * a struct or list of structs it holds pushed. 0 when too deep. */
static int dsz_field(dsz_frame *st, uint32_t *top, const upq_tfield *fd, size_t *total)
{
    const dsz_frame *fr = &st[*top - 1];
    const uint8_t *val = fr->obj + fd->offset;
    uint8_t ek = elem_kind(fd);
    const upq_tstruct *sub = ek == UPQ_TK_STRUCT ? UPQ_TSUB(fr->desc, fd) : (const upq_tstruct *)0;
    if (fd->id & UPQ_TF_LIST) {
        const uint8_t *items;
        uint32_t n, k;
        upq_memcpy(&items, val, sizeof items);
        upq_memcpy(&n, val + offsetof(upq_list, n), sizeof n);
        *total += dsz_round((size_t)n * kind_size(ek, sub));
        if (ek == UPQ_TK_BINARY)
            for (k = 0; k < n; k++)
                *total += dsz_round(((const upq_bytes *)(const void *)items)[k].len);
        if (ek != UPQ_TK_STRUCT || !n)
            return 1;
        if (*top == UPQ_THRIFT_MAX_DEPTH)
            return 0;
        st[*top].desc = sub;
        st[*top].obj = items;
        st[*top].i = 0;
        st[*top].n = n;
        st[*top].list = 1;
        (*top)++;
        return 1;
    }
    if (ek == UPQ_TK_BINARY) {
        upq_bytes b;
        upq_memcpy(&b, val, sizeof b);
        *total += dsz_round(b.len);
    } else if (ek == UPQ_TK_STRUCT) {
        if (*top == UPQ_THRIFT_MAX_DEPTH)
            return 0;
        st[*top].desc = sub;
        st[*top].obj = val;
        st[*top].i = 0;
        st[*top].n = 0;
        st[*top].list = 0;
        (*top)++;
    }
    return 1;
}

size_t upq_thrift_decoded_size(const upq_tstruct *desc, const void *obj)
{
    dsz_frame st[UPQ_THRIFT_MAX_DEPTH];
    uint32_t top = 1;
    size_t total = 0;
    st[0].desc = desc;
    st[0].obj = (const uint8_t *)obj;
    st[0].i = st[0].n = 0;
    st[0].list = 0;
    while (top) {
        dsz_frame *fr = &st[top - 1];
        if (fr->list) {
            /* the next item of a list of structs, as a struct frame of its own */
            const uint8_t *item;
            if (fr->i == fr->n) {
                top--;
                continue;
            }
            item = fr->obj + (size_t)fr->i++ * fr->desc->size;
            if (top == UPQ_THRIFT_MAX_DEPTH)
                return SIZE_MAX;
            st[top].desc = fr->desc;
            st[top].obj = item;
            st[top].i = st[top].n = 0;
            st[top].list = 0;
            top++;
            continue;
        }
        if (fr->i == fr->desc->nfields) {
            top--;
            continue;
        }
        {
            const upq_tfield *fd = &fr->desc->fields[fr->i++];
            uint32_t isset;
            upq_memcpy(&isset, fr->obj, sizeof isset);
            if (((isset >> (fd->id & UPQ_TF_ID)) & 1u) && !dsz_field(st, &top, fd, &total))
                return SIZE_MAX;
        }
    }
    return total;
}

upq_status upq_thrift_decode(const upq_tstruct *desc, void *obj, upq_arena *arena,
                             const uint8_t *buf, size_t len, size_t *used,
                             const upq_thrift_limits *lim)
{
    upq_tdec d;
    upq_tframe frames[UPQ_THRIFT_MAX_DEPTH];
    size_t u = 0;
    upq_status st;
    upq_tdec_init(&d, frames, UPQ_THRIFT_MAX_DEPTH, desc, obj, arena, len, lim);
    st = upq_tdec_feed(&d, buf, len, &u);
    if (used)
        *used = u;
    if (st == UPQ_AGAIN)
        st = UPQ_ERR_TRUNCATED;
    return st;
}

/* ---- encoder ---------------------------------------------------------- */

static void pend_byte(upq_tenc *e, uint8_t b)
{
    e->pend[e->pend_len++] = b;
}

static void pend_varint(upq_tenc *e, uint64_t v)
{
    e->pend_len = (uint8_t)(e->pend_len + upq_tc_varint(e->pend + e->pend_len, v));
}

void upq_tenc_init(upq_tenc *e, const upq_tstruct *desc, const void *obj)
{
    upq_memset(e, 0, sizeof *e);
    e->depth = 1;
    e->stack[0].desc = desc;
    e->stack[0].obj = (const uint8_t *)obj;
    e->status = UPQ_AGAIN;
}

/* A new frame for a struct or list at `obj`; NULL when nesting is too deep. */
static upq_teframe *enc_push(upq_tenc *e, const upq_tstruct *desc, const uint8_t *obj)
{
    upq_teframe *f;
    if (e->depth >= UPQ_THRIFT_MAX_DEPTH)
        return (upq_teframe *)0;
    f = &e->stack[e->depth++];
    upq_memset(f, 0, sizeof *f);
    f->desc = desc;
    f->obj = obj;
    return f;
}

/* Stages the bytes of one value of `kind` at `val` (a field's storage or a
 * list element); `sub` describes a struct value, `fd` is the field of a list.
 * Structs and lists push a frame. */
static upq_status enc_value(upq_tenc *e, uint8_t kind, const upq_tfield *fd,
                            const upq_tstruct *sub, const uint8_t *val)
{
    if (is_int_kind(kind)) {
        int64_t v = kind == UPQ_TK_I16   ? *(const int16_t *)(const void *)val
                    : kind == UPQ_TK_I32 ? *(const int32_t *)(const void *)val
                                         : *(const int64_t *)(const void *)val;
        pend_varint(e, upq_tc_zz(v));
        return UPQ_OK;
    }
    switch (kind) {
    case UPQ_TK_BOOL: pend_byte(e, *val ? 1 : 2); return UPQ_OK; /* list elements only */
    case UPQ_TK_I8: pend_byte(e, *val); return UPQ_OK;
#if UPQ_NATIVE_LE
    case UPQ_TK_DOUBLE: /* a little-endian host holds its bits in wire order */
#else
    case UPQ_TK_DOUBLE: {
        uint64_t bits; /* the double's bits, as upq_f64_bits gives them */
        upq_memcpy(&bits, val, sizeof bits);
        upq_store_le64(e->pend + e->pend_len, bits);
        e->pend_len = (uint8_t)(e->pend_len + 8);
        return UPQ_OK;
    }
#endif
    case UPQ_TK_UUID:
        upq_memcpy(e->pend + e->pend_len, val, kind_bytes[kind]);
        e->pend_len = (uint8_t)(e->pend_len + kind_bytes[kind]);
        return UPQ_OK;
    case UPQ_TK_BINARY: {
        const upq_bytes *bv = (const upq_bytes *)(const void *)val;
        pend_varint(e, bv->len);
        e->body = bv->ptr;
        e->body_left = bv->len;
        return UPQ_OK;
    }
    case UPQ_TK_STRUCT: return enc_push(e, sub, val) ? UPQ_OK : UPQ_ERR_INVAL;
    case UPQ_TK_LIST: {
        void *items;
        uint32_t n;
        uint8_t ek = elem_kind(fd), ct = kind_ct[ek];
        upq_teframe *f;
        upq_memcpy(&items, val, sizeof items);
        upq_memcpy(&n, val + offsetof(upq_list, n), sizeof n);
        if (n > 0x7FFFFFFFu)
            return UPQ_ERR_INVAL;
        if (n < 15) {
            pend_byte(e, (uint8_t)((n << 4) | ct));
        } else {
            pend_byte(e, (uint8_t)(0xF0u | ct));
            pend_varint(e, n);
        }
        f = enc_push(e, (const upq_tstruct *)0, (const uint8_t *)items);
        if (!f)
            return UPQ_ERR_INVAL;
        f->u.n = n;
        return UPQ_OK;
    }
    default: return UPQ_ERR_INVAL;
    }
}

/* Stages the next token(s): a field, a list element or a struct's end.
 * Out of line: inlined into upq_tenc_run's loop it costs flash. */
static UPQ_NOINLINE upq_status enc_step(upq_tenc *e)
{
    upq_teframe *f = &e->stack[e->depth - 1];
    const upq_tstruct *desc = f->desc;
    uint32_t isset;
    if (!desc) { /* a list: its field is the one the struct frame below staged last */
        const upq_teframe *p = f - 1;
        const upq_tfield *fd = &p->desc->fields[p->index - 1];
        uint8_t ek = elem_kind(fd);
        const upq_tstruct *sub = (const upq_tstruct *)0;
        if (ek == UPQ_TK_STRUCT)
            sub = UPQ_TSUB(p->desc, fd);
        if (f->index == f->u.n) {
            e->depth--;
            return UPQ_OK;
        }
        return enc_value(e, ek, fd, sub, f->obj + (size_t)f->index++ * kind_size(ek, sub));
    }
    isset = *(const uint32_t *)(const void *)f->obj;
    while (f->index < desc->nfields) {
        const upq_tfield *fd = &desc->fields[f->index++];
        const uint8_t *val = f->obj + fd->offset;
        uint8_t id = fd->id & UPQ_TF_ID, kind = field_kind(fd), ct;
        if (!((isset >> id) & 1u))
            continue;
        ct = kind_ct[kind];
        if (kind == UPQ_TK_BOOL && !*val)
            ct = UPQ_CT_FALSE;
        if (id > f->u.last_id && id - f->u.last_id <= 15) {
            pend_byte(e, (uint8_t)(((id - f->u.last_id) << 4) | ct));
        } else {
            pend_byte(e, ct);
            pend_byte(e, (uint8_t)(id << 1)); /* zigzag of 1..31: one byte */
        }
        f->u.last_id = id;
        if (kind == UPQ_TK_BOOL)
            return UPQ_OK;
        return enc_value(e, kind, fd,
                         kind == UPQ_TK_STRUCT ? UPQ_TSUB(desc, fd) : (const upq_tstruct *)0, val);
    }
    /* a model missing a required field would make a file other readers reject */
    if (missing_required(desc, isset))
        return UPQ_ERR_INVAL;
    pend_byte(e, UPQ_CT_STOP);
    e->depth--;
    return UPQ_OK;
}

/* Places up to `len` bytes of `src` in the window at *pos (all of them when
 * only counting); returns how many. */
static size_t put_out(uint8_t *out, size_t cap, size_t *pos, const uint8_t *src, size_t len)
{
    if (out) {
        if (len > cap - *pos)
            len = cap - *pos;
        upq_memcpy(out + *pos, src, len);
    }
    *pos += len;
    return len;
}

upq_status upq_tenc_run(upq_tenc *e, uint8_t *out, size_t cap, size_t *produced)
{
    size_t pos = 0;
    *produced = 0;
    if (e->status != UPQ_AGAIN)
        return e->status;
    for (;;) {
        if (e->pend_pos < e->pend_len) {
            e->pend_pos = (uint8_t)(e->pend_pos + put_out(out, cap, &pos, e->pend + e->pend_pos,
                                                          (size_t)(e->pend_len - e->pend_pos)));
            if (e->pend_pos < e->pend_len)
                break;
        }
        e->pend_pos = e->pend_len = 0;
        if (e->body_left) {
            size_t take = put_out(out, cap, &pos, e->body, e->body_left);
            e->body += take;
            e->body_left -= (uint32_t)take;
            if (e->body_left)
                break;
        }
        if (e->depth == 0) {
            e->status = UPQ_OK;
            break;
        }
        {
            upq_status st = enc_step(e);
            if (st < 0) {
                e->status = st;
                break;
            }
        }
    }
    *produced = pos;
    return e->status;
}

upq_status upq_thrift_encode(const upq_tstruct *desc, const void *obj, uint8_t *buf,
                             size_t cap, size_t *len)
{
    upq_tenc e;
    size_t got = 0, total;
    upq_status st;
    upq_tenc_init(&e, desc, obj);
    st = upq_tenc_run(&e, buf, cap, &got);
    if (st == UPQ_OK) {
        *len = got;
        return UPQ_OK;
    }
    if (st < 0)
        return st;
    /* did not fit: keep counting so the caller learns the size it needs */
    total = got;
    do {
        st = upq_tenc_run(&e, (uint8_t *)0, 0, &got);
        total += got;
    } while (st == UPQ_AGAIN);
    *len = total;
    return st < 0 ? st : UPQ_ERR_BUFFER;
}
