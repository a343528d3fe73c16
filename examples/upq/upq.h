/*
 * The upq host tool: shared declarations between its command files.
 *
 *   main.c         command table, argument parsing, opening files, errors
 *   schema_print.c `upq schema` and the annotation strings
 *   meta_print.c   `upq meta` (text)
 *   meta_json.c    `upq meta --json`
 *   value_fmt.c    statistics values rendered by type
 *   cat.c          `upq cat`: rows as JSON lines or a table
 *   value_json.c   one row value as JSON
 *   write.c        `upq write`: JSON lines into a Parquet file
 *   schema_parse.c message syntax (`upq schema`'s output) into SchemaElements
 *   jsonl_parse.c  one JSON line into a tree (jsonl.h)
 *   shred.c        a JSON row into levels and values (shred.h)
 *   value_parse.c  one JSON value back into a column value
 *   bloom.c        `upq bloom`: a value against each row group's bloom filter
 *   variant_json.c Variant values as JSON, `upq variant`
 *   variant_write.c JSON values of VARIANT columns into their columns
 *   json.c         JSON writer; strbuf.c growable strings
 */
#ifndef UPQ_TOOL_H
#define UPQ_TOOL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "uparquet/uparquet.h"
#include "uparquet/writer.h"
#include "uparquet/posix.h"
#include "keytools/upq_keytools.h"
#include "strbuf.h"

/* ---- arguments (main.c) ------------------------------------------------ */

#define TOOL_MAX_FILES 16
/* The largest arena the tool allocates when a call asks for more: a corrupt
 * file can claim huge lists. 16 GiB, or half the address space of a 32-bit
 * host (a size_t, so the test is meaningful on both). */
#define TOOL_MAX_ARENA \
    ((uint64_t)1 << 34 > (uint64_t)((size_t)-1 / 2) ? (size_t)-1 / 2 : (size_t)((uint64_t)1 << 34))
#define TOOL_MAX_OPTS 64

/* A command's own --option; `takes_value` options read the next argument
 * (or the text after '='). */
typedef struct tool_optspec {
    const char *name;
    int takes_value;
} tool_optspec;

typedef struct tool_args {
    /* options every command accepts (test and debugging knobs) */
    size_t chunk;       /* --chunk N: read_at returns at most N bytes */
    int again;          /* --again: read_at says "again" every other call */
    size_t arena;       /* --arena N: first arena size (default 1 MiB) */
    int arena_exact;    /* the arena is `arena` bytes and never grows (upq cat --arena); 2:
                           running out is not reported, tool_file.nomem_needed says it */
    uint8_t row_groups; /* upq_reader_opts.row_groups */
    int device_window;  /* the library's default footer window, as --arena has it */
    size_t max_page;    /* --max-page N: largest uncompressed page read (default: the library's) */
    /* the command's own options, in the order given */
    const char *opt_name[TOOL_MAX_OPTS];
    const char *opt_value[TOOL_MAX_OPTS]; /* NULL for flags */
    int nopts;
    const char *files[TOOL_MAX_FILES];
    int nfiles;
} tool_args;

/* Was --name given? */
int args_flag(const tool_args *a, const char *name);
/* The value of the last --name VALUE, or NULL. */
const char *args_value(const tool_args *a, const char *name);

/* ---- encryption keys (keys.c) ------------------------------------------- */

#define TOOL_MAX_KEYS 64

typedef struct tool_colkey {
    char *path; /* dotted column path (malloc'd) */
    uint8_t key[UPQ_CRYPTO_MAX_KEY + 1];
    size_t len;
} tool_colkey;

typedef struct tool_keys {
    uint8_t footer[UPQ_CRYPTO_MAX_KEY + 1];
    size_t footer_len;
    tool_colkey cols[TOOL_MAX_KEYS];
    int ncols;
    int any; /* some key or prefix option was given */
    upq_decrypt_opts dec;
    /* key-tools key material (parquet-java, Spark): --kms-key master keys
     * of the local KMS, --key-material side file */
    tool_colkey kms[TOOL_MAX_KEYS]; /* path: the master key id */
    upq_local_kms_key kms_keys[TOOL_MAX_KEYS];
    int nkms;
    upq_local_kms lkms;
    upq_kms kmsc;
    upq_keytools *kt;               /* always made: key material names what it needs */
    const char *material;           /* --key-material FILE */
} tool_keys;

/* Reads --footer-key, --column-key, --aad-prefix, --kms-key, --key-material
 * and --kms-instance-id/-url; 1 (reported) on error. */
int tool_keys_parse(tool_keys *k, const tool_args *a);
/* The Parquet file the keys are for: external key material is looked for
 * beside it unless --key-material names the side file. 1 (reported) on
 * error. */
int tool_keys_for_file(tool_keys *k, const char *path);
/* After a failed read: prints why key material could not give a key
 * (nothing when it did not fail or the status is not UPQ_ERR_AUTH). */
void tool_keys_report(const tool_keys *k, const char *path, upq_status st);
void tool_keys_free(tool_keys *k);
/* The upq_key_fn over a tool_keys. */
upq_status tool_key_callback(void *ctx, const upq_bytes *key_metadata, const upq_bytes_list *path,
                             uint8_t key[UPQ_CRYPTO_MAX_KEY], size_t *key_len);

/* The host's random source (getrandom) as an upq_random_fn. */
upq_status tool_random(void *ctx, uint8_t *buf, size_t len);

/* ---- opened files (main.c) ---------------------------------------------- */

typedef struct tool_file {
    const char *path;
    upq_posix_file pf;
    upq_io inner;       /* the file's own read_at */
    upq_io io;          /* the counted one the reader uses (tool_io_reads, tool_io_bytes) */
    upq_reader *reader; /* malloc'd */
    void *arena;        /* malloc'd */
    size_t arena_len;
    tool_keys keys;
    size_t nomem_needed; /* arena_exact 2: the arena the failed open asked for */
} tool_file;

/* read_at calls and bytes read through every tool_open()ed file so far. */
extern uint64_t tool_io_reads, tool_io_bytes;

/* Opens `path` and its footer. On failure prints the error and returns 1.
 * With a->arena_exact, running out of the arena prints
 * "upq: arena too small: N bytes needed" (tool_arena_too_small). */
int tool_open(tool_file *tf, const char *path, const tool_args *a);
/* ... with the key material of keys_path (a copy being worked on reads with
 * the keys of the file it is a copy of). */
int tool_open_as(tool_file *tf, const char *path, const char *keys_path, const tool_args *a);
/* Reads every value of every column of `path` (keys as for keys_path):
 * 0 with *rows the file's rows, or 1 after printing what failed. */
int tool_read_all(const char *path, const char *keys_path, const tool_args *a, uint64_t *rows);
void tool_close(tool_file *tf);
/* Prints "upq: arena too small: N bytes needed" for the reader's arena. */
void tool_arena_too_small(const tool_file *tf);

/* Reports a failed library call on a file as
 *   upq: FILE: what (status) at offset N in Struct.field ... */
void tool_report(const char *path, const upq_error_info *e);

/* ---- commands ------------------------------------------------------------ */

int cmd_schema(const tool_args *a);
int cmd_meta(const tool_args *a);
int cmd_meta_json(tool_file *tf, FILE *out);
int cmd_meta_text(tool_file *tf, FILE *out);
int cmd_cat(const tool_args *a);
int cmd_write(const tool_args *a);
/* --codec NAME: the codec, or -1 when unknown. "lz4" is LZ4_RAW; the
 * deprecated Hadoop-framed LZ4 is "LZ4_HADOOP". */
int write_codec_from_name(const char *name);
/* The --codec names this build can write, comma separated. */
void write_codec_list(FILE *out);
int cmd_variant(const tool_args *a);

/* ---- Variant values (variant_json.c) ------------------------------------- */

/* Appends the Variant (metadata, value) as JSON: primitives as a typed
 * column of the same type prints them. Returns 0, or the negative status of
 * an invalid Variant (nothing appended). */
int variant_json(strbuf *sb, const uint8_t *meta, size_t mlen, const uint8_t *val, size_t vlen);

/* ---- VARIANT columns in `upq write` (variant_write.c) --------------------- */

struct jv_doc;
/* Does the schema have VARIANT groups (whose JSON values need rewriting)? */
int variant_rewrite_needed(const upq_schema *s);
/* Row d's JSON into out with each VARIANT group's value in its column form
 * (metadata, value and typed_value as the schema shreds it). Returns 0, or
 * -1 with a message in err. */
int variant_rewrite(const upq_schema *s, const struct jv_doc *d, strbuf *out, char *err,
                    size_t errcap);

/* Applies every --shred COL=SPEC option to the schema text in `schema`
 * (the VARIANT group COL gets the typed_value SPEC describes). Returns 0, or
 * -1 with a message in err. */
int variant_shred_schema(strbuf *schema, const tool_args *a, char *err, size_t errcap);

int cmd_recover(const tool_args *a);
int cmd_bloom(const tool_args *a);

/* ---- schema strings (schema_print.c) ------------------------------------ */

/* Appends the LogicalType as written in schema text ("STRING",
 * "TIMESTAMP(MICROS,true)", "DECIMAL(10,2)"); returns 0 (appending nothing)
 * when none is set or its kind is unknown. */
int fmt_logical_type(strbuf *sb, const upq_logical_type *lt);

/* Appends an element's annotation: its LogicalType, else its ConvertedType
 * ("UTF8", "DECIMAL(p,s)"). Returns 0 when it has neither. */
int fmt_annotation(strbuf *sb, const upq_schema_element *e);

/* Writes the whole schema in message syntax. */
void print_schema(FILE *out, const upq_schema *s);

/* Appends the dotted path of a schema node ("" for the root). */
void fmt_node_path(strbuf *sb, const upq_schema *s, uint32_t node);

/* An enum's name, or "UNKNOWN(v)" for a value the format does not define. */
const char *enum_name(const char *name, int32_t v, char *buf, size_t cap);

/* "TYPE_ORDER", "IEEE_754_TOTAL_ORDER", "INT96_TIMESTAMP_ORDER" or "UNKNOWN". */
const char *column_order_name(const upq_column_order *o);

/* ---- schema text (schema_parse.c) ---------------------------------------- */

/* A schema read from message syntax. Names and other strings point into buf. */
typedef struct schema_text {
    upq_schema_element *elems; /* root first, depth first, as a footer stores them */
    uint32_t n;
    char *buf;
    uint32_t *index; /* the builder's name index (upq_sb_index) */
} schema_text;

/* Parses text[0..len) (what `upq schema` prints) into st (free with
 * schema_text_free). Returns 0, or -1 with "line N: what" in err. */
int schema_parse(const char *text, size_t len, schema_text *st, char *err, size_t errcap);
void schema_text_free(schema_text *st);

/* ---- statistics values (value_fmt.c) ------------------------------------ */

/* How to read one value of a column. */
typedef struct value_kind {
    int32_t physical;                /* upq_type */
    int32_t type_length;             /* FIXED_LEN_BYTE_ARRAY width, -1 unknown */
    const upq_logical_type *logical; /* NULL: none */
    int32_t scale;                   /* DECIMAL */
} value_kind;

/* What value_render produced. */
enum {
    VAL_TEXT = 0,   /* readable text (a date, "NaN", "0x01 (invalid)") */
    VAL_INT = 1,    /* a decimal integer literal, valid as a JSON number */
    VAL_STRING = 2  /* JSON mode: the raw string bytes, to be JSON-escaped */
};

/* Describes leaf column `col` of `s`, or, when the chunk's physical type
 * disagrees with the schema (or col is out of range), only that type. */
void value_kind_for(value_kind *k, const upq_schema *s, uint32_t col, int32_t chunk_type);

/* Appends bytes p[0..n) decoded as `k` describes. Text mode quotes and
 * escapes strings; JSON mode leaves them raw (VAL_STRING). Never fails: a
 * value of the wrong size is shown as hex followed by " (invalid)". */
int value_render(strbuf *sb, const value_kind *k, const uint8_t *p, size_t n, int json);

/* Appends a decoded statistics bound (uparquet/stats.h) of a column `k`
 * describes, as value_render would its PLAIN bytes. */
int stat_value_render(strbuf *sb, const value_kind *k, const upq_stat_value *v, int json);

/* Appends p[0..n) as a double-quoted string with C-like escapes (\n, \",
 * \xNN for bytes that are neither printable ASCII nor well-formed UTF-8). */
void fmt_quoted(strbuf *sb, const uint8_t *p, size_t n);

/* The same escapes without the surrounding quotes (and with '"' as is). */
void fmt_escaped(strbuf *sb, const uint8_t *p, size_t n);

/* Shortest text that reads back as the same value ("0.1", "NaN", "-Infinity"). */
void fmt_double(strbuf *sb, double d);
void fmt_float(strbuf *sb, float f);

/* Days since 1970-01-01 as YYYY-MM-DD (proleptic Gregorian; years outside
 * 0..9999 with a sign: "+10000-01-01", "-0001-12-31"). */
void fmt_date(strbuf *sb, int64_t days);

/* ---- row values (value_json.c) ------------------------------------------- */

/* Appends one value of leaf column `col` of `s`, in the column reader's
 * representation (column.h), as the JSON text `upq cat --json` prints (see
 * docs/cli.md, "upq cat --json format"). */
void value_json(strbuf *sb, const upq_schema *s, uint32_t col, const void *v);

#endif
