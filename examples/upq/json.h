/*
 * A small streaming JSON writer for the host tool: commas and nesting are
 * tracked here, so callers just say what comes next.
 *
 * Strings are byte strings from files, not necessarily UTF-8. They are written
 * so the output is always valid JSON: `"` and `\` are backslash-escaped,
 * control characters (0x00-0x1F) become \u00XX, well-formed UTF-8 sequences
 * pass through unchanged, and every byte that is not part of a well-formed
 * UTF-8 sequence (stray continuation bytes, overlong forms, surrogates, code
 * points above U+10FFFF, truncated sequences) becomes \u00XX with XX the byte
 * value, i.e. it reads back as the Latin-1 character of that byte.
 */
#ifndef UPQ_TOOL_JSON_H
#define UPQ_TOOL_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "strbuf.h"

#define JSON_MAX_DEPTH 32

typedef struct json_writer {
    FILE *out;
    unsigned depth;
    unsigned char count[JSON_MAX_DEPTH]; /* 0: nothing written yet at this level */
    int after_key;                       /* a key was written, its value is next */
} json_writer;

void json_init(json_writer *w, FILE *out);
void json_object_begin(json_writer *w);
void json_object_end(json_writer *w);
void json_array_begin(json_writer *w);
void json_array_end(json_writer *w);
/* An object key (a NUL-terminated ASCII literal). */
void json_key(json_writer *w, const char *key);
/* Values. */
void json_string(json_writer *w, const void *bytes, size_t len);
void json_cstr(json_writer *w, const char *s); /* NULL writes null */
void json_int(json_writer *w, int64_t v);
void json_uint(json_writer *w, uint64_t v);
void json_bool(json_writer *w, int v);
void json_null(json_writer *w);
/* A number already formatted as a JSON number literal. */
void json_number_text(json_writer *w, const char *text);
/* Ends the document with a newline. */
void json_finish(json_writer *w);

/* The key "schema" and its array of SchemaElements elems[0..n) as `upq meta
 * --json` prints them; `s` is their tree (for paths and levels). (meta_json.c) */
struct upq_schema;
struct upq_schema_element;
void json_schema_entries(json_writer *w, const struct upq_schema_element *elems, uint32_t n,
                         const struct upq_schema *s);

/* Appends bytes[0..len) as a JSON string (quotes included), escaped as above. */
void json_append_string(strbuf *sb, const void *bytes, size_t len);
/* Appends bytes as a JSON string of standard padded base64 (how upq prints
 * binary values). */
void json_append_base64(strbuf *sb, const void *bytes, size_t len);

/* Length of the well-formed UTF-8 sequence starting at p[0..n), or 0 when the
 * byte at p does not start one (ASCII gives 1). */
size_t utf8_seq_len(const unsigned char *p, size_t n);

#endif
