/*
 * upq bloom FILE COLUMN VALUE: asks each row group's bloom filter of a leaf
 * column whether VALUE may be there ("maybe") or certainly is not
 * ("absent"). VALUE is read as `upq write` reads a JSON value of that column
 * (docs/cli.md, "upq cat --json format"); text that is not such a JSON value
 * is taken as a JSON string, so `Hello` and `"Hello"` mean the same.
 */
#include "upq.h"
#include "jsonl.h"
#include "shred.h"

#include <stdlib.h>
#include <string.h>

/* Largest arena tried when a filter does not fit the first one. */
#define MAX_BLOOM_ARENA ((size_t)512 << 20)

/* VALUE as a JSON string literal. */
static void as_json_string(strbuf *sb, const char *text)
{
    const unsigned char *p = (const unsigned char *)text;
    sb_addc(sb, '"');
    for (; *p; p++) {
        if (*p == '"' || *p == '\\')
            sb_addc(sb, '\\');
        if (*p < 0x20)
            sb_printf(sb, "\\u%04x", *p);
        else
            sb_addc(sb, (char)*p);
    }
    sb_addc(sb, '"');
}

/* Parses `text` as one value of column `col` into out (byte arrays point
 * into *bytes). Returns 0, or -1 with the message in err. */
static int parse_value(const upq_schema *s, uint32_t col, const char *text, void *out,
                       strbuf *bytes, char *err, size_t errcap)
{
    jv_doc d;
    strbuf q;
    size_t off = 0;
    int rc = -1, attempt;
    char first[512] = "";

    jv_init(&d);
    sb_init(&q);
    for (attempt = 0; attempt < 2 && rc != 0; attempt++) {
        const char *t = text;
        size_t n = strlen(text);
        if (attempt == 1) {
            as_json_string(&q, text);
            t = q.p;
            n = q.len;
        }
        sb_reset(bytes);
        if (jv_parse(&d, t, n, 8) != 0) {
            if (attempt == 0)
                snprintf(first, sizeof first, "not a JSON value: %s", d.err);
            continue;
        }
        if (d.v[0].type == JV_NULL) {
            snprintf(first, sizeof first, "null has no bloom filter hash");
            break;
        }
        /* the message of the last value that did not fit the column is kept */
        if (value_parse(s, col, &d, &d.v[0], out, bytes, &off, err, errcap) == 0)
            rc = 0;
        else
            snprintf(first, sizeof first, "%.500s", err);
    }
    if (rc == 0 && (s->columns[col].physical_type == UPQ_TYPE_BYTE_ARRAY ||
                    s->columns[col].physical_type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY)) {
        upq_bytes *b = (upq_bytes *)out;
        b->ptr = (const uint8_t *)bytes->p + off;
        if (!bytes->p)
            b->ptr = (const uint8_t *)"";
    }
    if (rc != 0)
        snprintf(err, errcap, "%s", first);
    sb_free(&q);
    jv_free(&d);
    return rc;
}

/* One row group's answer: 1 maybe, 0 absent, 2 no filter, -1 error (reported),
 * -2 the arena is too small (*need says how large it must be). */
static int probe(tool_file *tf, uint32_t rg, uint32_t col, const void *value, size_t *need)
{
    upq_bloom_reader br;
    upq_status st = upq_bloom_open(&br, tf->reader, rg, col);
    int maybe = 1;
    if (st == UPQ_DONE)
        return 2;
    if (st == UPQ_OK) {
        do
            st = upq_bloom_load(&br);
        while (st == UPQ_AGAIN);
    }
    if (st == UPQ_OK)
        st = upq_bloom_might_contain(&br, value, &maybe);
    if (st == UPQ_ERR_NOMEM) {
        *need = upq_arena_needed(&tf->reader->arena);
        upq_bloom_close(&br);
        return -2;
    }
    if (st != UPQ_OK) {
        tool_report(tf->path, upq_reader_error(tf->reader));
        tool_keys_report(&tf->keys, tf->path, st);
        upq_bloom_close(&br);
        return -1;
    }
    upq_bloom_close(&br);
    return maybe;
}

int cmd_bloom(const tool_args *a)
{
    const char *path = a->files[0], *colname = a->files[1], *text = a->files[2];
    tool_args big = *a;
    tool_file tf;
    const upq_schema *s;
    uint32_t col, g;
    union {
        int64_t i;
        double d;
        upq_bytes b;
        upq_int96 t;
    } value;
    strbuf bytes;
    char err[512];
    int rc = 0, with_filter = 0;

    if (tool_open(&tf, path, a))
        return 1;
    s = upq_reader_schema(tf.reader);
    col = upq_schema_find_column(s, colname, strlen(colname));
    if (col == UPQ_NONE) {
        fprintf(stderr, "upq: %s: no leaf column '%s'\n", path, colname);
        tool_close(&tf);
        return 1;
    }
    if (s->columns[col].physical_type == UPQ_TYPE_BOOLEAN) {
        fprintf(stderr, "upq: %s: column '%s' is BOOLEAN: Parquet defines no bloom filter for it\n",
                path, colname);
        tool_close(&tf);
        return 1;
    }
    sb_init(&bytes);
    memset(&value, 0, sizeof value);
    if (parse_value(s, col, text, &value, &bytes, err, sizeof err) != 0) {
        fprintf(stderr, "upq: column '%s': bad value '%s': %s\n", colname, text, err);
        sb_free(&bytes);
        tool_close(&tf);
        return 1;
    }
    for (g = 0; g < upq_reader_num_row_groups(tf.reader); g++) {
        size_t need = 0;
        int r;
        upq_status lst;
        do /* on-demand row groups: this one's metadata (nothing to do when eager) */
            lst = upq_reader_row_group_load(tf.reader, g);
        while (lst == UPQ_AGAIN);
        if (lst != UPQ_OK) {
            tool_report(path, upq_reader_error(tf.reader));
            rc = 1;
            break;
        }
        r = probe(&tf, g, col, &value, &need);
        if (r == -2) {
            /* a filter larger than the arena: open again with room for it */
            if (need > MAX_BLOOM_ARENA || need <= tf.arena_len) {
                fprintf(stderr, "upq: %s: bloom filter of row group %u needs a %zu-byte arena\n",
                        path, (unsigned)g, need);
                rc = 1;
                break;
            }
            tool_close(&tf);
            big.arena = need;
            if (tool_open(&tf, path, &big)) {
                sb_free(&bytes);
                return 1;
            }
            s = upq_reader_schema(tf.reader);
            g--;
            continue;
        }
        if (r < 0) {
            rc = 1;
            break;
        }
        if (r == 2) {
            printf("row group %u: no bloom filter\n", (unsigned)g);
            continue;
        }
        with_filter = 1;
        printf("row group %u: %s\n", (unsigned)g, r ? "maybe" : "absent");
    }
    if (rc == 0 && !with_filter) {
        fprintf(stderr, "upq: %s: column '%s' has no bloom filter\n", path, colname);
        rc = 1;
    }
    sb_free(&bytes);
    tool_close(&tf);
    return rc;
}
