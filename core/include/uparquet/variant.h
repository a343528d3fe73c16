/*
 * Variant values (the format's Variant binary encoding): a metadata
 * dictionary of key strings and a self-describing value.
 *
 * Reading is zero-copy: upq_variant_meta and upq_variant are views into the
 * caller's bytes. Nothing is trusted: every length, offset and field id is
 * checked against the bytes that are there before it is used, nesting is
 * walked with an explicit stack bounded by UPQ_VARIANT_MAX_DEPTH, and any
 * defect gives a negative status, never an out-of-bounds read.
 *
 * Writing goes through a builder into caller memory: a key dictionary
 * (upq_variant_keys) and a value builder (upq_variant_builder) with an
 * explicit container stack. Object fields may be given in any order; they
 * are sorted by key when the object ends and duplicates are rejected.
 */
#ifndef UPARQUET_VARIANT_H
#define UPARQUET_VARIANT_H

#include <stddef.h>
#include <stdint.h>
#include "config.h"
#include "status.h"
#include "arena.h"
#include "schema.h"

#ifdef __cplusplus
extern "C" {
#endif

#if UPQ_WITH_VARIANT

/* Primitive type ids of the encoding; short strings read as STRING. */
typedef enum upq_variant_kind {
    UPQ_VARIANT_NULL = 0,
    UPQ_VARIANT_TRUE = 1,
    UPQ_VARIANT_FALSE = 2,
    UPQ_VARIANT_INT8 = 3,
    UPQ_VARIANT_INT16 = 4,
    UPQ_VARIANT_INT32 = 5,
    UPQ_VARIANT_INT64 = 6,
    UPQ_VARIANT_DOUBLE = 7,
    UPQ_VARIANT_DECIMAL4 = 8,
    UPQ_VARIANT_DECIMAL8 = 9,
    UPQ_VARIANT_DECIMAL16 = 10,
    UPQ_VARIANT_DATE = 11,
    UPQ_VARIANT_TIMESTAMP = 12,        /* micros, UTC */
    UPQ_VARIANT_TIMESTAMP_NTZ = 13,    /* micros, no zone */
    UPQ_VARIANT_FLOAT = 14,
    UPQ_VARIANT_BINARY = 15,
    UPQ_VARIANT_STRING = 16,
    UPQ_VARIANT_TIME_NTZ = 17,         /* micros of the day */
    UPQ_VARIANT_TIMESTAMP_NANOS = 18,
    UPQ_VARIANT_TIMESTAMP_NTZ_NANOS = 19,
    UPQ_VARIANT_UUID = 20,
    UPQ_VARIANT_OBJECT = 64,
    UPQ_VARIANT_ARRAY = 65
} upq_variant_kind;

/* ---- metadata ------------------------------------------------------------ */

typedef struct upq_variant_meta {
    const uint8_t *offs;  /* count + 1 offsets of off_size bytes */
    const uint8_t *strs;  /* the key bytes */
    uint32_t count;       /* keys in the dictionary */
    uint32_t strs_len;
    uint8_t off_size;
    uint8_t sorted;       /* the sorted_strings flag */
    size_t len;           /* bytes of the whole metadata */
} upq_variant_meta;

/*
 * Parses and checks metadata p[0..len) (version 1; every offset in order and
 * inside the key bytes; keys well-formed UTF-8; strictly ascending when the
 * sorted flag is set; nothing after the last key). The view points into p.
 * Returns UPQ_OK, UPQ_ERR_CORRUPT, UPQ_ERR_TRUNCATED or UPQ_ERR_UNSUPPORTED
 * (another version).
 */
upq_status upq_variant_meta_parse(upq_variant_meta *m, const void *p, size_t len);

/* Key `id` as bytes into the metadata; UPQ_ERR_CORRUPT when id is out of range. */
upq_status upq_variant_meta_key(const upq_variant_meta *m, uint32_t id, const uint8_t **key,
                                size_t *len);

/* The id of `key`, or UPQ_NONE (binary search when sorted, else linear). */
uint32_t upq_variant_meta_find(const upq_variant_meta *m, const void *key, size_t len);

/* ---- values ------------------------------------------------------------------ */

/* One encoded value: p[0..len) (len: the bytes of exactly this value). */
typedef struct upq_variant {
    const uint8_t *p;
    size_t len;
} upq_variant;

/* A value's header decoded: its type and, for primitives, its content. */
typedef struct upq_variant_item {
    uint8_t type;          /* upq_variant_kind */
    uint8_t scale;         /* decimals */
    uint8_t short_string;  /* a STRING held in the short-string form */
    uint32_t count;        /* OBJECT / ARRAY: elements */
    int64_t i;             /* INT*, DATE, TIME, TIMESTAMP*, DECIMAL4/8 unscaled */
    double d;              /* DOUBLE, and FLOAT widened */
    float f;               /* FLOAT */
    const uint8_t *bytes;  /* STRING, BINARY, UUID (16, big-endian),
                              DECIMAL16 (16, little-endian two's complement) */
    size_t len;
    size_t size;           /* bytes of the whole value */
} upq_variant_item;

/*
 * Decodes the header of the value starting at p with `avail` bytes there,
 * checking that the value fits (containers: their header, offsets and last
 * offset; strings: UTF-8). Children are not looked at. On UPQ_OK, it->size
 * is the value's length. Returns UPQ_OK, UPQ_ERR_TRUNCATED, UPQ_ERR_CORRUPT
 * or UPQ_ERR_UNSUPPORTED (a primitive type id this version does not know).
 */
upq_status upq_variant_item_read(const uint8_t *p, size_t avail, upq_variant_item *it);

/*
 * Child i (0-based, in field-id order for objects) of container v. *child
 * gets the child's bytes (checked to fit); *field_id its key id (objects;
 * UPQ_NONE for arrays; may be NULL). Returns UPQ_OK, UPQ_ERR_INVAL (v not
 * a container, i out of range) or a decoding error.
 */
upq_status upq_variant_child(upq_variant v, uint32_t i, upq_variant *child, uint32_t *field_id);

/* The field named key of object v: UPQ_OK, UPQ_DONE (absent) or an error. */
upq_status upq_variant_find(const upq_variant_meta *m, upq_variant v, const void *key,
                            size_t len, upq_variant *child);

/* ---- walking a value (the validator) ------------------------------------------ */

typedef enum upq_variant_event {
    UPQ_VEV_VALUE = 1,        /* a primitive */
    UPQ_VEV_BEGIN_OBJECT = 2,
    UPQ_VEV_END_OBJECT = 3,
    UPQ_VEV_BEGIN_ARRAY = 4,
    UPQ_VEV_END_ARRAY = 5
} upq_variant_event;

typedef struct upq_variant_walk_frame {
    const uint8_t *p;      /* the container */
    size_t len;
    uint32_t count, next;  /* children, next child */
    uint8_t type;
} upq_variant_walk_frame;

typedef struct upq_variant_walk {
    const upq_variant_meta *m;
    upq_variant_walk_frame stack[UPQ_VARIANT_MAX_DEPTH];
    uint32_t depth;
    uint8_t started, done;
    const uint8_t *root;
    size_t root_len;
} upq_variant_walk;

/* One step of a walk: what came, its key (inside objects) and the value. */
typedef struct upq_variant_step {
    uint8_t event;          /* upq_variant_event */
    uint32_t field_id;      /* key id inside an object, else UPQ_NONE */
    const uint8_t *key;     /* its bytes */
    size_t key_len;
    upq_variant value;      /* the value (BEGIN_* and VALUE) */
    upq_variant_item item;  /* its header (BEGIN_* and VALUE; END_*: type 0) */
} upq_variant_step;

/* Starts a depth-first walk over value p[0..len) (which must be exactly one
 * value) with dictionary m. Nothing is read yet. */
void upq_variant_walk_init(upq_variant_walk *w, const upq_variant_meta *m, const void *p,
                           size_t len);

/*
 * The next step. Every container, field id, key order (strictly ascending
 * key bytes: sorted and unique) and child extent is checked as the walk
 * reaches it. Returns UPQ_OK with a step, UPQ_DONE after the last one, or an
 * error: UPQ_ERR_CORRUPT, UPQ_ERR_TRUNCATED, UPQ_ERR_UNSUPPORTED, or
 * UPQ_ERR_LIMIT when nesting exceeds UPQ_VARIANT_MAX_DEPTH.
 */
upq_status upq_variant_walk_next(upq_variant_walk *w, upq_variant_step *s);

/* Checks a whole value against its metadata by walking it (see above). */
upq_status upq_variant_validate(const upq_variant_meta *m, const void *p, size_t len);

/* ---- building ---------------------------------------------------------------------- */

/* A key dictionary under construction, in caller memory. */
typedef struct upq_variant_keys {
    uint8_t *bytes;
    size_t bytes_cap, bytes_len;
    uint32_t *offs;       /* offs[i]: start of key i; room for cap + 1 */
    uint32_t cap, count;
} upq_variant_keys;

/* Uses bytes[0..bytes_cap) for key text and offs[0..max_keys] (max_keys + 1
 * entries) for their starts. The memory stays the caller's. */
void upq_variant_keys_init(upq_variant_keys *k, uint8_t *bytes, size_t bytes_cap, uint32_t *offs,
                           uint32_t max_keys);

/* The id of key (added when new). UPQ_OK, UPQ_ERR_BUFFER (out of room). */
upq_status upq_variant_keys_add(upq_variant_keys *k, const void *key, size_t len, uint32_t *id);

/* Appends every key of m in order without merging duplicates, so that ids
 * of m stay valid in k (k must be empty). UPQ_OK or UPQ_ERR_BUFFER. */
upq_status upq_variant_keys_seed(upq_variant_keys *k, const upq_variant_meta *m);

/* Key id's bytes (id < count). */
const uint8_t *upq_variant_keys_get(const upq_variant_keys *k, uint32_t id, size_t *len);

#define UPQ_VARIANT_SORTED_NEVER 0   /* sorted_strings flag clear */
#define UPQ_VARIANT_SORTED_AUTO 1    /* set when the keys are ascending and unique */
#define UPQ_VARIANT_SORTED_ALWAYS 2  /* set; UPQ_ERR_INVAL when they are not */

/* Bytes the encoded metadata takes. */
size_t upq_variant_keys_size(const upq_variant_keys *k);

/*
 * Writes the metadata (smallest offset size that holds the count and the
 * key bytes) into out[0..cap); *len gets its length. Returns UPQ_OK,
 * UPQ_ERR_BUFFER (cap too small: upq_variant_keys_size() says how much) or
 * UPQ_ERR_INVAL (see UPQ_VARIANT_SORTED_ALWAYS).
 */
upq_status upq_variant_keys_finish(const upq_variant_keys *k, int sorted, void *out, size_t cap,
                                   size_t *len);

/* An entry of an open container (internal). */
typedef struct upq_variant_entry {
    uint32_t id;   /* key id (objects) */
    uint32_t off;  /* start of the child relative to the container's data */
} upq_variant_entry;

typedef struct upq_variant_build_frame {
    size_t start;        /* where the container's data begins in out */
    uint32_t first;      /* its first entry */
    uint8_t object;
} upq_variant_build_frame;

typedef struct upq_variant_builder {
    const upq_variant_keys *keys;
    uint8_t *out;
    size_t cap, len;
    upq_variant_entry *ents;
    uint32_t ents_cap, ents_n;
    upq_variant_build_frame *frames;
    uint32_t frames_cap, depth;
    uint32_t key;          /* key id of the next object member */
    uint8_t has_key, done;
    upq_status err;        /* first error; later calls do nothing */
} upq_variant_builder;

/*
 * Builds one value into out[0..cap), using ents[0..max_entries) for the
 * children of open containers (one per child of every open container) and
 * frames[0..max_depth) for the containers open at once. `keys` gives key
 * bytes for ordering object fields. All memory stays the caller's.
 */
void upq_variant_builder_init(upq_variant_builder *b, const upq_variant_keys *keys, uint8_t *out,
                              size_t cap, upq_variant_entry *ents, uint32_t max_entries,
                              upq_variant_build_frame *frames, uint32_t max_depth);

/* Takes the builder's memory (out, entries, frames) from an arena. */
upq_status upq_variant_builder_init_arena(upq_variant_builder *b, const upq_variant_keys *keys,
                                          upq_arena *a, size_t cap, uint32_t max_entries,
                                          uint32_t max_depth);

/*
 * The calls below append one item: the whole value, an array element, or an
 * object member whose key id was given by upq_variant_build_key() just
 * before. Errors stick: the first one is returned by this and every later
 * call (UPQ_ERR_BUFFER out of room, UPQ_ERR_LIMIT too deep or too many
 * entries, UPQ_ERR_INVAL misuse: a member without a key, a second
 * top-level value, a duplicate key, an unbalanced end).
 */
upq_status upq_variant_build_key(upq_variant_builder *b, uint32_t id);
upq_status upq_variant_build_null(upq_variant_builder *b);
upq_status upq_variant_build_bool(upq_variant_builder *b, int v);
/* INT8..INT64, DATE, TIME_NTZ and the TIMESTAMP types (v must fit INT8..32). */
upq_status upq_variant_build_int(upq_variant_builder *b, upq_variant_kind t, int64_t v);
upq_status upq_variant_build_double(upq_variant_builder *b, double v);
upq_status upq_variant_build_float(upq_variant_builder *b, float v);
/* DECIMAL4 / DECIMAL8 with an unscaled value that fits. */
upq_status upq_variant_build_decimal(upq_variant_builder *b, upq_variant_kind t, uint8_t scale,
                                     int64_t unscaled);
/* DECIMAL16: 16 bytes, little-endian two's complement. */
upq_status upq_variant_build_decimal16(upq_variant_builder *b, uint8_t scale,
                                       const uint8_t unscaled_le[16]);
/* A string (short form when under 64 bytes) or binary. */
upq_status upq_variant_build_string(upq_variant_builder *b, const void *p, size_t len);
upq_status upq_variant_build_binary(upq_variant_builder *b, const void *p, size_t len);
upq_status upq_variant_build_uuid(upq_variant_builder *b, const uint8_t be[16]);
/* An already encoded value (its key ids must mean the same in `keys`). */
upq_status upq_variant_build_raw(upq_variant_builder *b, const void *p, size_t len);
upq_status upq_variant_build_begin_object(upq_variant_builder *b);
upq_status upq_variant_build_begin_array(upq_variant_builder *b);
/* Ends the innermost open container. */
upq_status upq_variant_build_end(upq_variant_builder *b);

/* Forgets a key given with upq_variant_build_key() that no item used. */
void upq_variant_build_drop_key(upq_variant_builder *b);

/* Completed value: UPQ_OK with *len its length in out, or the sticky error
 * (UPQ_ERR_INVAL when no value or a container is still open). */
upq_status upq_variant_build_finish(upq_variant_builder *b, size_t *len);

/* ---- VARIANT columns: reconstruction from record events --------------------- */

/* What a schema node of a VARIANT subtree is (internal). */
typedef struct upq_variant_node {
    uint8_t role;    /* see variant_int.h */
    uint8_t conv;    /* typed primitive: how it becomes a Variant */
    uint8_t scale;
    uint8_t pad;
} upq_variant_node;

/* Is `node` a VARIANT-annotated group? */
int upq_variant_is_column(const upq_schema *s, uint32_t node);

#if UPQ_WITH_READER

struct upq_event;

typedef struct upq_variant_slot {
    size_t value_off;     /* saved `value` bytes in scratch, when has_value */
    size_t value_len;
    size_t scratch_mark;  /* scratch use when the slot opened */
    uint32_t node;        /* its schema node */
    uint32_t typed_node;  /* the typed_value node of an open typed object */
    uint8_t has_value;
    uint8_t typed;        /* 0 none, 1 primitive, 2 object, 3 array (ended), 4 array open */
    uint8_t field;        /* an object member: its key goes before what it emits */
} upq_variant_slot;

typedef struct upq_variant_asm {
    const upq_schema *s;
    uint32_t root, num_nodes;   /* the VARIANT group and its subtree size */
    upq_variant_node *nodes;    /* per subtree node */
    upq_variant_slot *slots;
    uint32_t max_slots, depth;
    uint8_t *scratch;           /* metadata and saved values of open slots */
    size_t scratch_cap, scratch_len;
    size_t meta_off, meta_len;  /* the row's metadata in scratch */
    uint8_t has_meta, done, pad[2];
    upq_variant_meta meta;
    upq_variant_keys keys;
    upq_variant_builder b;
    uint8_t *meta_out;          /* rebuilt metadata when keys were added */
    size_t meta_out_cap, meta_out_len;
} upq_variant_asm;

/*
 * Prepares reconstructing the Variants of VARIANT group `node` of schema s
 * (as upq_rows delivers it). The subtree is checked here: a binary
 * `metadata`, an optional binary `value`, an optional `typed_value` of a
 * type the shredding spec allows (primitives of its table, a 3-level LIST
 * of required element groups, a group of required field groups), nested
 * in any way. Memory from arena `a`: value_cap bytes for the value (and as
 * much again for saved inputs), max_keys keys of key_bytes bytes in all,
 * max_entries members of containers open at once.
 * Returns UPQ_OK, UPQ_ERR_INVAL (not a VARIANT group), UPQ_ERR_CORRUPT (a
 * layout the spec does not allow), UPQ_ERR_UNSUPPORTED (a typed_value type
 * outside the table) or UPQ_ERR_NOMEM.
 */
upq_status upq_variant_asm_init(upq_variant_asm *va, const upq_schema *s, uint32_t node,
                                upq_arena *a, size_t value_cap, uint32_t max_keys,
                                size_t key_bytes, uint32_t max_entries);

/*
 * Feeds the events of one non-null Variant of the group, from its
 * BEGIN_STRUCT to its END_STRUCT, in order (upq_rows_event). Values are
 * copied as needed: the event's pointers may die after the call. Returns
 * UPQ_OK (more wanted), UPQ_DONE after END_STRUCT (the Variant is ready:
 * upq_variant_asm_result), or an error: UPQ_ERR_CORRUPT for data the spec
 * forbids (invalid Variant bytes; `value` and a non-object `typed_value`
 * both set; a partially shredded value that is not an object or repeats a
 * shredded field; an object or array in `value` where the schema shreds
 * objects or arrays and typed_value is null), UPQ_ERR_UNSUPPORTED when
 * `metadata` does not come first, UPQ_ERR_BUFFER / UPQ_ERR_LIMIT when the
 * Variant outgrows the sizes given to init. A missing value (no `value`,
 * no `typed_value`) is left out of an object, and is a Variant null as an
 * array element or the whole Variant.
 */
upq_status upq_variant_asm_feed(upq_variant_asm *va, const struct upq_event *ev);

/* The Variant completed by the last UPQ_DONE: metadata and value bytes in
 * the assembler's memory, valid until the next feed. */
void upq_variant_asm_result(const upq_variant_asm *va, const uint8_t **meta, size_t *meta_len,
                            const uint8_t **value, size_t *value_len);

#endif /* UPQ_WITH_READER */

/* ---- VARIANT columns: shredding for the writer ------------------------------ */

#if UPQ_WITH_WRITER

struct upq_writer;

/* One leaf column's level entries and values for the current row. */
typedef struct upq_variant_shred_leaf {
    uint32_t column;      /* leaf column index */
    uint16_t *def, *rep;
    uint8_t *vals;        /* packed non-null values (column.h's representation) */
    size_t n, nv;         /* level entries, values */
    size_t vsize;
    size_t written;       /* entries upq_variant_shred_write() has passed on */
} upq_variant_shred_leaf;

typedef struct upq_variant_shred_frame {
    upq_variant v;        /* the slot's Variant (p NULL: missing) */
    uint32_t node;        /* slot schema node */
    uint32_t idx;         /* next field / element */
    uint16_t rep;
    uint8_t stage;
    uint8_t pad;
} upq_variant_shred_frame;

typedef struct upq_variant_shredder {
    const upq_schema *s;
    uint32_t root, num_nodes;
    upq_variant_node *nodes;
    upq_variant_shred_leaf *leaves;
    uint32_t num_leaves, first_column;
    size_t max_levels;
    upq_variant_shred_frame *stack;
    uint32_t max_depth, depth;
    uint8_t *scratch;     /* residual objects and decimals of the row */
    size_t scratch_cap, scratch_len;
    upq_variant_meta meta;
} upq_variant_shredder;

/*
 * Prepares shredding Variants into the columns of VARIANT group `node` of
 * schema s (a group outside any repeated field), laid out as
 * upq_variant_asm_init describes. Memory from arena a: max_levels level
 * entries per leaf column and row, scratch_bytes for the partially shredded
 * objects of a row. Returns UPQ_OK, UPQ_ERR_INVAL (not a VARIANT group),
 * UPQ_ERR_UNSUPPORTED (inside a repeated field, or a typed_value type the
 * spec lacks), UPQ_ERR_CORRUPT (a layout the spec does not allow) or
 * UPQ_ERR_NOMEM.
 */
upq_status upq_variant_shredder_init(upq_variant_shredder *sh, const upq_schema *s, uint32_t node,
                                     upq_arena *a, size_t max_levels, size_t scratch_bytes);

/*
 * Shreds one row's Variant (meta NULL: the group is null) into each leaf's
 * entries: a value whose type is exactly a typed_value's type goes there,
 * an array into a typed LIST element by element, an object into a typed
 * group field by field (fields the group does not shred stay in `value` as
 * an object); anything else goes to `value`. Byte arrays point into meta,
 * value and the shredder's scratch: keep them until the row is written.
 * Returns UPQ_OK, UPQ_ERR_CORRUPT (invalid Variant), UPQ_ERR_INVAL (a null
 * for a required group, or a required `value` the value cannot go into),
 * UPQ_ERR_LIMIT (more level entries than max_levels, or nesting deeper than
 * the schema) or UPQ_ERR_BUFFER (scratch too small).
 */
upq_status upq_variant_shred(upq_variant_shredder *sh, const uint8_t *meta, size_t meta_len,
                             const uint8_t *value, size_t value_len);

/*
 * Writes the row's entries with upq_writer_write_column(), leaf by leaf.
 * Returns UPQ_OK when every leaf took its entries, UPQ_DONE when some
 * leaf's staging waits for other columns (write those, then call again),
 * UPQ_AGAIN when output is blocked (call again), or the writer's error.
 */
upq_status upq_variant_shred_write(upq_variant_shredder *sh, struct upq_writer *w);

#endif /* UPQ_WITH_WRITER */

#endif /* UPQ_WITH_VARIANT */

#ifdef __cplusplus
}
#endif

#endif
