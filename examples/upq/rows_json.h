/*
 * One row as a JSON object, from the row reader's events: the printer that
 * `upq cat --json` / `--raw` and the firmware reader
 * (examples/firmware/reader_main.c) share, so a target's reading and the
 * host's are the same bytes by construction. Freestanding (no libc): output
 * goes through a callback, leaf values through one too (--raw's physical
 * form, rows_json_raw, unless the caller prints values its own way).
 *
 *   {"a":1,"b":[{"key":"x","value":null}],"c":{"d":"0x00ff"}}
 */
#ifndef UPQ_ROWS_JSON_H
#define UPQ_ROWS_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "uparquet/record.h"

/* Containers open at once in a row. */
#define ROWS_JSON_MAX_NEST 256

/* Where the text goes: put(ctx, bytes, n). */
typedef struct rows_json_out {
    void (*put)(void *ctx, const void *p, size_t n);
    void *ctx;
} rows_json_out;

/* Prints one leaf value of column `col`. */
typedef void (*rows_json_value_fn)(void *ctx, const rows_json_out *o, const upq_schema *s,
                                   uint32_t col, const void *v);

typedef struct rows_json {
    const upq_schema *s;
    rows_json_out out;
    rows_json_value_fn value;  /* rows_json_raw unless set */
    void *value_ctx;
    unsigned depth;            /* open containers, the row's object included */
    unsigned char count[ROWS_JSON_MAX_NEST]; /* items written at each open level */
} rows_json;

/* Starts a row: writes '{' unless `object` is 0 (a caller that prints the
 * top-level fields as it likes, e.g. as table cells). */
void rows_json_begin(rows_json *w, const upq_schema *s, const rows_json_out *o,
                     rows_json_value_fn value, void *value_ctx, int object);
/* Writes one event. Returns 0, or -1 when containers nest deeper than
 * ROWS_JSON_MAX_NEST. */
int rows_json_event(rows_json *w, const upq_event *ev);
/* Ends the row: writes '}' (when begun with `object`). */
void rows_json_end(rows_json *w, int object);

/* The separator and key before an item, and the closing of a map entry
 * after its value: for a caller that prints an item itself (a Variant). */
void rows_json_item_start(rows_json *w, const upq_event *ev);
void rows_json_item_end(rows_json *w, const upq_event *ev);

/* --raw: a leaf value by its physical type alone, bit-exact and without any
 * logical type applied: BOOLEAN true/false, INT32/INT64 decimal, FLOAT
 * "f:" and DOUBLE "d:" with the hex digits of their bits, INT96,
 * BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY "0x" and their bytes in hex. */
void rows_json_raw(void *ctx, const rows_json_out *o, const upq_schema *s, uint32_t col,
                   const void *v);

/* A JSON string of n bytes: '"' and '\' escaped, control bytes and bytes
 * outside well-formed UTF-8 as \u00XX. */
void rows_json_string(const rows_json_out *o, const void *bytes, size_t n);

/* The length of the well-formed UTF-8 sequence at p[0..n), or 0. */
size_t rows_json_utf8_len(const uint8_t *p, size_t n);

#endif
