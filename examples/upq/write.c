/*
 * `upq write --schema SCHEMA [options] IN.jsonl OUT.parquet`: JSON lines, in
 * the form `upq cat --json` prints them, into a Parquet file with the schema
 * SCHEMA (message syntax, as `upq schema` prints it). So
 *
 *   upq schema F > s; upq cat --json F > a.jsonl; upq write --schema s a.jsonl G
 *
 * gives a file G that `upq cat --json` prints exactly as a.jsonl.
 *
 * Streaming: one line is read, parsed, shredded into level entries per leaf
 * column and handed to the writer before the next is read, so memory follows
 * the longest line and the writer's arena (computed from the schema and the
 * options), never the number of rows.
 *
 * The file is written to OUT.tmp and renamed to OUT only once complete: a
 * bad line (reported as `upq: IN:LINE: field "a.b": what`) or any other
 * error leaves no OUT behind that could pass for the result.
 *
 * Checkpoint mode (--checkpoint, --checkpoint-rows N): the writer keeps a
 * journal inside the file and writes column chunks at offsets, so the sink
 * is the POSIX one with positional writes, read-back, sync and truncate
 * (port/adapters/posix). OUT.tmp is then recoverable at every moment (`upq recover`).
 * --append continues an existing checkpoint-mode OUT (cut short or closed):
 * OUT is copied to OUT.tmp, resumed there (upq_writer_resume), the rows
 * appended, and OUT.tmp renamed over OUT once closed, so any error (a file
 * that is no checkpoint-mode file, another schema or other options, a bad
 * line) leaves OUT as it was.
 */
#define _POSIX_C_SOURCE 200809L

#include "upq.h"
#include "json.h"
#include "jsonl.h"
#include "lines.h"
#include "shred.h"
#include "upq_codec.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Containers one JSON row may nest: well above what a schema of
 * UPQ_SCHEMA_MAX_DEPTH groups needs (a map entry is two per level). */
#define MAX_JSON_DEPTH 256
/* A schema file larger than this is not a schema (16 MB: some 800,000
 * fields, parsed within 150 MB, where the writer takes at most about
 * 100,000 columns). */
#define MAX_SCHEMA_TEXT ((size_t)16 << 20)
/* Without checkpoints: bytes of arena for finished row groups' metadata
 * (and the row groups it holds when the schema is not known). */
#define FOOTER_LOG_BUDGET ((size_t)64 << 20)
#define MIN_ROW_GROUPS 1000u
/* Bytes of arena for the pages being made, the chunk buffers and the
 * dictionaries, unless --arena or the options say otherwise: with the log
 * above, the line and the schema, a run stays well within 256 MB. */
#define STAGE_BUDGET ((size_t)160 << 20)
/* Chunk buffer per column unless --chunk-size says otherwise: a host can
 * afford row groups of a useful size (the library's default suits boards). */
#define HOST_CHUNK_SIZE (1024u * 1024u)
/* The JSON values (containers included) of one row: their tree takes
 * 56 bytes a value, so 112 MB at most. */
#define MAX_ROW_VALUES (1u << 21)
/* The longest line taken: its text, and a value as long in a page, stay
 * within 256 MB together. */
#define MAX_LINE ((size_t)100 << 20)
/* A line buffer larger than this is freed once its row is written. */
#define LINE_KEEP ((size_t)1 << 20)

/* ---- the output file ------------------------------------------------------- */

typedef struct out_file {
    int fd;
    /* test knobs (--chunk, --again): short writes and "would block" */
    size_t max_write;
    int again;
    unsigned long calls;
    int err; /* errno of a failed call */
    /* checkpoint mode: the POSIX sink (positional writes, read-back, sync,
     * truncate) behind the knobs above; fd is its descriptor */
    int positional;
    upq_posix_sink ps;
    upq_sink inner;
} out_file;

static upq_status out_write(void *ctx, const void *buf, size_t len, size_t *written)
{
    out_file *f = (out_file *)ctx;
    ssize_t n;
    f->calls++;
    if (f->again && (f->calls & 1u))
        return UPQ_AGAIN;
    if (f->max_write && len > f->max_write)
        len = f->max_write;
    do
        n = write(f->fd, buf, len);
    while (n < 0 && errno == EINTR);
    if (n < 0) {
        f->err = errno;
        return UPQ_ERR_IO;
    }
    *written = (size_t)n;
    return UPQ_OK;
}

static upq_status out_sync(void *ctx)
{
    out_file *f = (out_file *)ctx;
    if (fsync(f->fd) != 0 && errno != EINVAL) {
        f->err = errno;
        return UPQ_ERR_IO;
    }
    return UPQ_OK;
}

static upq_status out_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    out_file *f = (out_file *)ctx;
    ssize_t n;
    if (off > (uint64_t)INT64_MAX) {
        *got = 0;
        return UPQ_OK;
    }
    do
        n = pread(f->fd, buf, len, (off_t)off);
    while (n < 0 && errno == EINTR);
    if (n < 0) {
        f->err = errno;
        return UPQ_ERR_IO;
    }
    *got = (size_t)n;
    return UPQ_OK;
}

/* Checkpoint mode: upq_posix_sink's callbacks with the test knobs applied
 * and errno kept for the message. */
static upq_status ck_write_at(void *ctx, uint64_t off, const void *buf, size_t len,
                              size_t *written)
{
    out_file *f = (out_file *)ctx;
    upq_status st;
    *written = 0;
    f->calls++;
    if (f->again && (f->calls & 1u))
        return UPQ_AGAIN;
    if (f->max_write && len > f->max_write)
        len = f->max_write;
    errno = 0;
    st = f->inner.write_at(f->inner.ctx, off, buf, len, written);
    if (st == UPQ_ERR_IO)
        f->err = errno ? errno : EIO;
    return st;
}

static upq_status ck_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    out_file *f = (out_file *)ctx;
    upq_status st;
    errno = 0;
    st = f->inner.read_at(f->inner.ctx, off, buf, len, got);
    if (st == UPQ_ERR_IO)
        f->err = errno ? errno : EIO;
    return st;
}

static upq_status ck_sync(void *ctx)
{
    out_file *f = (out_file *)ctx;
    upq_status st;
    errno = 0;
    st = f->inner.sync(f->inner.ctx);
    if (st == UPQ_ERR_IO)
        f->err = errno ? errno : EIO;
    return st;
}

static upq_status ck_truncate(void *ctx, uint64_t size)
{
    out_file *f = (out_file *)ctx;
    upq_status st;
    errno = 0;
    st = f->inner.truncate(f->inner.ctx, size);
    if (st == UPQ_ERR_IO)
        f->err = errno ? errno : EIO;
    return st;
}

/* The sink the writer gets: appends (streaming modes) or positional
 * (checkpoint mode). */
static void out_sink(out_file *f, upq_sink *sink)
{
    memset(sink, 0, sizeof *sink);
    sink->ctx = f;
    if (f->positional) {
        sink->write_at = ck_write_at;
        sink->read_at = ck_read_at;
        sink->sync = ck_sync;
        sink->truncate = ck_truncate;
    } else {
        sink->write = out_write;
        sink->sync = out_sync;
        sink->read_at = out_read_at;
    }
}

/* ---- options ------------------------------------------------------------------ */

/* --codec names, in the order --help lists them. The format's LZ4 is the
 * deprecated Hadoop framing that several readers (DuckDB) refuse, so the
 * plain name means LZ4_RAW and the old one goes by a name of its own. */
static const struct {
    const char *name;
    int32_t codec;
} codec_names[] = {
    {"UNCOMPRESSED", UPQ_CODEC_UNCOMPRESSED}, {"SNAPPY", UPQ_CODEC_SNAPPY},
    {"GZIP", UPQ_CODEC_GZIP},                 {"LZ4_RAW", UPQ_CODEC_LZ4_RAW},
    {"LZ4", UPQ_CODEC_LZ4_RAW},               {"LZ4_HADOOP", UPQ_CODEC_LZ4},
    {"ZSTD", UPQ_CODEC_ZSTD},                 {"BROTLI", UPQ_CODEC_BROTLI},
    {"LZO", UPQ_CODEC_LZO},                   {"NONE", UPQ_CODEC_UNCOMPRESSED},
};

static int name_equal_ci(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = *a >= 'a' && *a <= 'z' ? (char)(*a - 'a' + 'A') : *a;
        if (x != *b)
            return 0;
    }
    return *a == *b;
}

int write_codec_from_name(const char *name)
{
    size_t i;
    for (i = 0; i < sizeof codec_names / sizeof codec_names[0]; i++)
        if (name_equal_ci(name, codec_names[i].name))
            return codec_names[i].codec;
    return -1;
}

void write_codec_list(FILE *out)
{
    size_t i;
    int first = 1;
    for (i = 0; i < sizeof codec_names / sizeof codec_names[0]; i++) {
        /* a bound of 0 is how the codec layer says it cannot compress
         * with this codec; NONE is only an alias */
        if (upq_compress_bound(codec_names[i].codec, 1) == 0 ||
            strcmp(codec_names[i].name, "NONE") == 0)
            continue;
        fprintf(out, "%s%s", first ? "" : ", ", codec_names[i].name);
        first = 0;
    }
}

typedef struct write_cfg {
    const char *schema_path, *in_path, *out_path;
    int schema_json;
    int append;              /* --append: continue the checkpoint-mode file OUT */
    uint32_t max_row_groups; /* footer metadata kept in RAM for this many (no checkpoints) */
    upq_writer_opts o;
    upq_column_opts *cols;
    upq_key_value *kv;
    upq_key_value *col_kv;   /* --column-kv entries, each column's together */
    upq_sorting_column *sorting;
    tool_keys keys;          /* --footer-key, --column-key, --aad-prefix */
    upq_encrypt_opts enc;
    upq_column_key *ckeys;
    struct { uint8_t key[UPQ_CRYPTO_MAX_KEY]; } *mkeys; /* column DEKs of key material */
    int key_material;        /* --external-key-material: save the side file */
} write_cfg;

/* A byte count or count: digits with an optional K, M or G (binary). */
static int parse_amount(const char *s, uint64_t max, uint64_t *out)
{
    char *end;
    unsigned long long v;
    uint64_t mul = 1;
    if (!s || !*s || *s == '-' || *s == '+')
        return 0;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno || end == s)
        return 0;
    if (*end) {
        switch (*end) {
        case 'k': case 'K': mul = 1024; break;
        case 'm': case 'M': mul = 1024 * 1024; break;
        case 'g': case 'G': mul = 1024 * 1024 * 1024; break;
        default: return 0;
        }
        if (end[1] && !((end[1] == 'i' || end[1] == 'I') && (end[2] == 'B' || end[2] == 'b') &&
                        !end[3]) &&
            !((end[1] == 'B' || end[1] == 'b') && !end[2]))
            return 0;
    }
    if (v > max / mul)
        return 0;
    *out = (uint64_t)v * mul;
    return 1;
}

static int opt_u32(const tool_args *a, const char *name, uint32_t *dst)
{
    const char *v = args_value(a, name);
    uint64_t x;
    if (!v)
        return 0;
    if (!parse_amount(v, UINT32_MAX, &x) || x == 0) {
        fprintf(stderr, "upq: bad value for --%s: %s\n", name, v);
        return -1;
    }
    *dst = (uint32_t)x;
    return 0;
}

static int opt_u64(const tool_args *a, const char *name, uint64_t *dst)
{
    const char *v = args_value(a, name);
    uint64_t x;
    if (!v)
        return 0;
    if (!parse_amount(v, UINT64_MAX, &x) || x == 0) {
        fprintf(stderr, "upq: bad value for --%s: %s\n", name, v);
        return -1;
    }
    *dst = x;
    return 0;
}

/* Leaf columns named by `path`: the leaf with that dotted path, or every
 * leaf under the group with that path. Calls mark(col) for each; returns
 * how many. */
static uint32_t match_columns(const upq_schema *s, const char *path, size_t len, uint8_t *hit)
{
    uint32_t c, n = 0;
    strbuf sb;
    c = upq_schema_find_column(s, path, len);
    if (c != UPQ_NONE) {
        hit[c] = 1;
        return 1;
    }
    sb_init(&sb);
    for (c = 0; c < s->num_columns; c++) {
        sb_reset(&sb);
        fmt_node_path(&sb, s, s->columns[c].node);
        if (sb.len > len && memcmp(sb.p, path, len) == 0 && sb.p[len] == '.') {
            hit[c] = 1;
            n++;
        }
    }
    sb_free(&sb);
    return n;
}

/* --encoding ENC and --encoding COL=ENC, in the order given (later wins). */
static int apply_encodings(const tool_args *a, const upq_schema *s, write_cfg *cfg)
{
    uint8_t *hit = calloc(s->num_columns + 1, 1);
    int i;
    if (!hit) {
        fputs("upq: out of memory\n", stderr);
        return -1;
    }
    for (i = 0; i < a->nopts; i++) {
        const char *v = a->opt_value[i], *eq;
        int enc;
        uint32_t c;
        if (strcmp(a->opt_name[i], "encoding") != 0)
            continue;
        eq = strrchr(v, '=');
        enc = upq_encoding_from_name(eq ? eq + 1 : v);
        if (enc < 0) {
            fprintf(stderr, "upq: unknown encoding '%s' (PLAIN, RLE, RLE_DICTIONARY, "
                            "DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY, "
                            "BYTE_STREAM_SPLIT, ...)\n", eq ? eq + 1 : v);
            free(hit);
            return -1;
        }
        memset(hit, 0, s->num_columns + 1);
        if (!eq) {
            memset(hit, 1, s->num_columns);
        } else if (match_columns(s, v, (size_t)(eq - v), hit) == 0) {
            fprintf(stderr, "upq: --encoding: no column '%.*s' in the schema\n", (int)(eq - v), v);
            free(hit);
            return -1;
        }
        for (c = 0; c < s->num_columns; c++)
            if (hit[c])
                cfg->cols[c].encoding = enc;
    }
    free(hit);
    return 0;
}

/* --bloom COL[:NDV[:FPP]], in the order given (later wins): a leaf, or every
 * non-BOOLEAN leaf under a group. A name that is a column as a whole wins
 * over splitting it at ':'. */
static int apply_bloom(const tool_args *a, const upq_schema *s, write_cfg *cfg)
{
    uint8_t *hit = calloc(s->num_columns + 1, 1);
    int i;
    if (!hit) {
        fputs("upq: out of memory\n", stderr);
        return -1;
    }
    for (i = 0; i < a->nopts; i++) {
        const char *v = a->opt_value[i], *c1, *c2 = NULL;
        size_t len;
        uint64_t ndv = 0;
        double fpp = 0.0;
        uint32_t c, n;
        if (strcmp(a->opt_name[i], "bloom") != 0)
            continue;
        len = strlen(v);
        memset(hit, 0, s->num_columns + 1);
        n = match_columns(s, v, len, hit);
        c1 = strchr(v, ':');
        if (n == 0 && c1) {
            char *end;
            len = (size_t)(c1 - v);
            c2 = strchr(c1 + 1, ':');
            if (c2) {
                char nd[32];
                size_t k = (size_t)(c2 - c1 - 1);
                if (k == 0 || k >= sizeof nd)
                    goto bad;
                memcpy(nd, c1 + 1, k);
                nd[k] = '\0';
                if (!parse_amount(nd, UINT32_MAX, &ndv) || ndv == 0)
                    goto bad;
                errno = 0;
                fpp = strtod(c2 + 1, &end);
                if (errno || end == c2 + 1 || *end || !(fpp > 0.0 && fpp < 1.0))
                    goto bad;
            } else if (!parse_amount(c1 + 1, UINT32_MAX, &ndv) || ndv == 0) {
                goto bad;
            }
            n = match_columns(s, v, len, hit);
        }
        if (n == 0) {
            fprintf(stderr, "upq: --bloom: no column '%.*s' in the schema\n", (int)len, v);
            free(hit);
            return -1;
        }
        for (c = 0; c < s->num_columns; c++) {
            if (!hit[c])
                continue;
            if (s->columns[c].physical_type == UPQ_TYPE_BOOLEAN) {
                if (n == 1 && upq_schema_find_column(s, v, len) == c) {
                    fprintf(stderr, "upq: --bloom: column '%.*s' is BOOLEAN: Parquet defines "
                                    "no bloom filter for it\n", (int)len, v);
                    free(hit);
                    return -1;
                }
                continue;
            }
            cfg->cols[c].bloom = 1;
            cfg->cols[c].bloom_ndv = (uint32_t)ndv;
            cfg->cols[c].bloom_fpp = fpp;
        }
        continue;
    bad:
        fprintf(stderr, "upq: bad value for --bloom: %s (COL[:NDV[:FPP]], NDV > 0, 0 < FPP < 1)\n",
                v);
        free(hit);
        return -1;
    }
    free(hit);
    return 0;
}

/* --column-kv COL:KEY=VALUE: key-value metadata of a leaf's chunks, or of
 * every leaf's under a group; COL ends at the first ':' that leaves a
 * column name before it. Counted first, so each column's entries lie
 * together in one array. */
static int apply_column_kv(const tool_args *a, const upq_schema *s, write_cfg *cfg)
{
    uint8_t *hit = calloc(s->num_columns + 1, 1);
    size_t *base = calloc(s->num_columns + 1, sizeof *base), total = 0;
    int i, pass, rc = -1;
    uint32_t c;
    if (!hit || !base) {
        fputs("upq: out of memory\n", stderr);
        goto out;
    }
    for (pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            size_t at = 0;
            if (total == 0) {
                rc = 0;
                goto out;
            }
            cfg->col_kv = calloc(total, sizeof *cfg->col_kv);
            if (!cfg->col_kv) {
                fputs("upq: out of memory\n", stderr);
                goto out;
            }
            for (c = 0; c < s->num_columns; c++) {
                size_t n = base[c];
                base[c] = at;
                cfg->cols[c].kv = cfg->col_kv + at;
                at += n;
            }
        }
        for (i = 0; i < a->nopts; i++) {
            const char *v = a->opt_value[i], *colon, *eq;
            uint32_t n = 0;
            if (strcmp(a->opt_name[i], "column-kv") != 0)
                continue;
            memset(hit, 0, s->num_columns + 1);
            for (colon = strchr(v, ':'); colon && n == 0; colon = strchr(colon + 1, ':'))
                if ((n = match_columns(s, v, (size_t)(colon - v), hit)) != 0)
                    break;
            if (n == 0) {
                fprintf(stderr, "upq: --column-kv '%s': want COL:KEY=VALUE with COL a column "
                                "(or group) of the schema\n", v);
                goto out;
            }
            eq = strchr(colon + 1, '=');
            if (!eq) {
                fprintf(stderr, "upq: --column-kv '%s': want COL:KEY=VALUE (no '=')\n", v);
                goto out;
            }
            for (c = 0; c < s->num_columns; c++) {
                upq_key_value *kv;
                if (!hit[c])
                    continue;
                if (pass == 0) {
                    base[c]++;
                    total++;
                    continue;
                }
                kv = &cfg->col_kv[base[c] + cfg->cols[c].nkv++];
                kv->key.ptr = (const uint8_t *)colon + 1;
                kv->key.len = (uint32_t)(eq - colon - 1);
                UPQ_SET(*kv, UPQ_KEY_VALUE_KEY);
                kv->value.ptr = (const uint8_t *)eq + 1;
                kv->value.len = (uint32_t)strlen(eq + 1);
                UPQ_SET(*kv, UPQ_KEY_VALUE_VALUE);
            }
        }
    }
    rc = 0;
out:
    free(hit);
    free(base);
    return rc;
}

/* --kv KEY=VALUE (key-value metadata) and --sorting-column COL[:desc][:nulls-first]. */
static int apply_lists(const tool_args *a, const upq_schema *s, write_cfg *cfg)
{
    int i;
    uint32_t nkv = 0, nsort = 0;
    cfg->kv = calloc((size_t)a->nopts + 1, sizeof *cfg->kv);
    cfg->sorting = calloc((size_t)a->nopts + 1, sizeof *cfg->sorting);
    if (!cfg->kv || !cfg->sorting) {
        fputs("upq: out of memory\n", stderr);
        return -1;
    }
    for (i = 0; i < a->nopts; i++) {
        const char *v = a->opt_value[i];
        if (strcmp(a->opt_name[i], "kv") == 0) {
            const char *eq = strchr(v, '=');
            upq_key_value *kv = &cfg->kv[nkv++];
            /* without '=' the text is more likely a slip than a key meant
             * to have no value; an empty value is written as "KEY=" */
            if (!eq) {
                fprintf(stderr, "upq: --kv '%s': want KEY=VALUE (no '=')\n", v);
                return -1;
            }
            kv->key.ptr = (const uint8_t *)v;
            kv->key.len = (uint32_t)(eq - v);
            UPQ_SET(*kv, UPQ_KEY_VALUE_KEY);
            kv->value.ptr = (const uint8_t *)eq + 1;
            kv->value.len = (uint32_t)strlen(eq + 1);
            UPQ_SET(*kv, UPQ_KEY_VALUE_VALUE);
        } else if (strcmp(a->opt_name[i], "sorting-column") == 0) {
            upq_sorting_column *sc = &cfg->sorting[nsort++];
            const char *colon = strchr(v, ':'), *p;
            size_t len = colon ? (size_t)(colon - v) : strlen(v);
            uint32_t c = upq_schema_find_column(s, v, len);
            if (c == UPQ_NONE) {
                fprintf(stderr, "upq: --sorting-column: no leaf column '%.*s'\n", (int)len, v);
                return -1;
            }
            sc->column_idx = (int32_t)c;
            for (p = colon; p; p = strchr(p + 1, ':')) {
                const char *end = strchr(p + 1, ':');
                size_t n = end ? (size_t)(end - p - 1) : strlen(p + 1);
                if (n == 4 && memcmp(p + 1, "desc", 4) == 0)
                    sc->descending = 1;
                else if (n == 3 && memcmp(p + 1, "asc", 3) == 0)
                    sc->descending = 0;
                else if (n == 11 && memcmp(p + 1, "nulls-first", 11) == 0)
                    sc->nulls_first = 1;
                else if (n == 10 && memcmp(p + 1, "nulls-last", 10) == 0)
                    sc->nulls_first = 0;
                else {
                    fprintf(stderr, "upq: --sorting-column: unknown flag '%.*s' "
                                    "(asc, desc, nulls-first, nulls-last)\n", (int)n, p + 1);
                    return -1;
                }
            }
            sc->isset = (1u << UPQ_SORTING_COLUMN_COLUMN_IDX) |
                        (1u << UPQ_SORTING_COLUMN_DESCENDING) |
                        (1u << UPQ_SORTING_COLUMN_NULLS_FIRST);
        }
    }
    cfg->o.kv = cfg->kv;
    cfg->o.nkv = nkv;
    cfg->o.sorting = cfg->sorting;
    cfg->o.nsorting = nsort;
    return 0;
}

/* Key-tools key material (parquet-java, Spark): --footer-master-key ID
 * wraps the footer's DEK (the --footer-key given, else a random one) with
 * master key ID of the KMS (--kms-key), and each --column-master-key
 * PATH=ID a column's DEK (its --column-key, else random); the key metadata
 * stored is the key material (or, with --external-key-material, a
 * reference into the side file saved after the file is written). Double
 * wrapping unless --single-wrapping. */
static int apply_key_material(const tool_args *a, const upq_schema *s, write_cfg *cfg)
{
    tool_keys *k = &cfg->keys;
    const char *footer_master = args_value(a, "footer-master-key"); /* given */
    upq_keytools_write_opts wo;
    int i, n = 0;
    size_t len;
    for (i = 0; i < a->nopts; i++)
        n += strcmp(a->opt_name[i], "column-master-key") == 0;
    if (cfg->append) {
        fputs("upq: --append does not take key material (--footer-master-key)\n", stderr);
        return -1;
    }
    memset(&wo, 0, sizeof wo);
    wo.single_wrapping = (uint8_t)args_flag(a, "single-wrapping");
    wo.external = (uint8_t)args_flag(a, "external-key-material");
    if (upq_keytools_write_config(k->kt, &wo) != UPQ_OK)
        goto kt_fail;
    cfg->key_material = wo.external;
    len = k->footer_len;
    if (upq_keytools_wrap(k->kt, footer_master, 1, k->footer, len, &len, &cfg->enc.footer_key_metadata,
                          &cfg->enc.footer_key_metadata_len) != UPQ_OK)
        goto kt_fail;
    k->footer_len = len;
    cfg->enc.footer_key = k->footer;
    cfg->enc.footer_key_len = (uint32_t)len;
    if (!n) {
        if (k->ncols) {
            fputs("upq: --column-key with key material needs --column-master-key for that column\n",
                  stderr);
            return -1;
        }
        return 0;
    }
    /* the columns with a master key, each with its --column-key if given */
    cfg->ckeys = calloc((size_t)n, sizeof *cfg->ckeys);
    cfg->mkeys = calloc((size_t)n, sizeof *cfg->mkeys);
    if (!cfg->ckeys || !cfg->mkeys) {
        fputs("upq: out of memory\n", stderr);
        return -1;
    }
    n = 0;
    for (i = 0; i < a->nopts; i++) {
        const char *v = a->opt_value[i], *eq;
        upq_column_key *ck = &cfg->ckeys[n];
        uint8_t *dek = cfg->mkeys[n].key;
        uint32_t c;
        int j;
        if (strcmp(a->opt_name[i], "column-master-key") != 0)
            continue;
        eq = strrchr(v, '=');
        if (!eq || eq == v || !eq[1]) {
            fprintf(stderr, "upq: --column-master-key takes PATH=ID, not '%s'\n", v);
            return -1;
        }
        c = upq_schema_find_column(s, v, (size_t)(eq - v));
        if (c == UPQ_NONE) {
            fprintf(stderr, "upq: --column-master-key: no leaf column '%.*s'\n", (int)(eq - v), v);
            return -1;
        }
        len = 0;
        for (j = 0; j < k->ncols; j++)
            if (strlen(k->cols[j].path) == (size_t)(eq - v) &&
                memcmp(k->cols[j].path, v, (size_t)(eq - v)) == 0) {
                memcpy(dek, k->cols[j].key, k->cols[j].len);
                len = k->cols[j].len;
            }
        if (upq_keytools_wrap(k->kt, eq + 1, 0, dek, len, &len, &ck->key_metadata,
                              &ck->key_metadata_len) != UPQ_OK)
            goto kt_fail;
        ck->column = c;
        ck->key = dek;
        ck->key_len = (uint32_t)len;
        n++;
    }
    /* a --column-key is a DEK for a --column-master-key column, nothing else */
    for (i = 0; i < k->ncols; i++) {
        int j, used = 0;
        for (j = 0; j < n; j++)
            used |= upq_schema_find_column(s, k->cols[i].path, strlen(k->cols[i].path)) ==
                    cfg->ckeys[j].column;
        if (!used) {
            fprintf(stderr, "upq: --column-key %s: with key material, only for a column of "
                            "--column-master-key\n", k->cols[i].path);
            return -1;
        }
    }
    cfg->enc.columns = cfg->ckeys;
    cfg->enc.ncolumns = (uint32_t)n;
    return 0;
kt_fail: {
        const char *msg;
        upq_status st = upq_keytools_error(k->kt, &msg);
        fprintf(stderr, "upq: key material: %s (%s)\n", msg, upq_strerror(st));
        return -1;
    }
}

/* Encryption: --footer-key (required for any, unless key material gives
 * it), --column-key PATH=KEY (only those columns encrypted then; otherwise
 * all with the footer key), --aad-prefix, --[no-]store-aad-prefix,
 * --plaintext-footer, --ctr; key material as apply_key_material says. */
static int apply_encryption(const tool_args *a, const upq_schema *s, write_cfg *cfg)
{
    upq_encrypt_opts *e = &cfg->enc;
    int i, km = args_value(a, "footer-master-key") != NULL;
    if (tool_keys_parse(&cfg->keys, a))
        return -1;
    if (!km && (args_value(a, "column-master-key") || args_flag(a, "single-wrapping") ||
                args_flag(a, "external-key-material"))) {
        fputs("upq: key material (--column-master-key, --single-wrapping, "
              "--external-key-material) needs --footer-master-key\n", stderr);
        return -1;
    }
    if (!cfg->keys.any && !km && !args_flag(a, "plaintext-footer") && !args_flag(a, "ctr"))
        return 0;
    if (!cfg->keys.footer_len && !km) {
        fputs("upq: encryption needs --footer-key (or --footer-master-key)\n", stderr);
        return -1;
    }
    memset(e, 0, sizeof *e);
    e->algorithm = args_flag(a, "ctr") ? UPQ_CRYPTO_AES_GCM_CTR_V1 : UPQ_CRYPTO_AES_GCM_V1;
    e->plaintext_footer = (uint8_t)args_flag(a, "plaintext-footer");
    e->footer_key = cfg->keys.footer;
    e->footer_key_len = (uint32_t)cfg->keys.footer_len;
    e->random = tool_random;
    if (cfg->keys.dec.aad_prefix_given) {
        e->aad_prefix = cfg->keys.dec.aad_prefix;
        e->aad_prefix_len = cfg->keys.dec.aad_prefix_len;
        for (i = 0; i < a->nopts; i++) {
            if (strcmp(a->opt_name[i], "no-store-aad-prefix") == 0)
                e->no_store_aad_prefix = 1;
            else if (strcmp(a->opt_name[i], "store-aad-prefix") == 0)
                e->no_store_aad_prefix = 0;
        }
    }
    if (km) {
        if (apply_key_material(a, s, cfg))
            return -1;
    } else if (cfg->keys.ncols) {
        cfg->ckeys = calloc((size_t)cfg->keys.ncols, sizeof *cfg->ckeys);
        if (!cfg->ckeys) {
            fputs("upq: out of memory\n", stderr);
            return -1;
        }
        for (i = 0; i < cfg->keys.ncols; i++) {
            const tool_colkey *k = &cfg->keys.cols[i];
            uint32_t c = upq_schema_find_column(s, k->path, strlen(k->path));
            if (c == UPQ_NONE) {
                fprintf(stderr, "upq: --column-key: no leaf column '%s'\n", k->path);
                return -1;
            }
            cfg->ckeys[i].column = c;
            cfg->ckeys[i].key = k->key;
            cfg->ckeys[i].key_len = (uint32_t)k->len;
        }
        e->columns = cfg->ckeys;
        e->ncolumns = (uint32_t)cfg->keys.ncols;
    }
    cfg->o.encrypt = e;
    return 0;
}

/* Every writer setting from the command line. */
static int build_opts(const tool_args *a, const upq_schema *s, write_cfg *cfg)
{
    const char *v;
    uint32_t c;
    upq_writer_opts *o = &cfg->o;
    int dict = -1;

    memset(o, 0, sizeof *o);
    if ((v = args_value(a, "codec"))) {
        int codec = write_codec_from_name(v);
        if (codec < 0) {
            fprintf(stderr, "upq: unknown codec '%s' (this build writes ", v);
            write_codec_list(stderr);
            fputs(")\n", stderr);
            return -1;
        }
        o->codec = codec;
    }
    if (opt_u32(a, "page-size", &o->page_size) || opt_u32(a, "chunk-size", &o->chunk_size) ||
        opt_u32(a, "page-levels", &o->page_levels) || opt_u32(a, "max-pages", &o->max_pages) ||
        opt_u32(a, "footer-size", &o->footer_size) ||
        opt_u32(a, "max-row-groups", &cfg->max_row_groups) ||
        opt_u32(a, "dict-size", &o->dict_size) ||
        opt_u32(a, "stats-max-binary", &o->stats_max_binary) ||
        opt_u32(a, "bloom-max-bytes", &o->bloom_max_bytes) ||
        opt_u64(a, "row-group-size", &o->row_group_bytes) ||
        opt_u64(a, "row-group-rows", &o->row_group_rows) ||
        opt_u64(a, "checkpoint-rows", &o->checkpoint_rows))
        return -1;
    if (!o->chunk_size)
        o->chunk_size = HOST_CHUNK_SIZE;
    o->data_page_v2 = (uint8_t)args_flag(a, "data-page-v2");
    o->no_crc = (uint8_t)args_flag(a, "no-crc");
    o->no_statistics = (uint8_t)args_flag(a, "no-statistics");
    o->no_page_index = (uint8_t)args_flag(a, "no-page-index");
    cfg->append = args_flag(a, "append");
    /* --checkpoint-rows and --append imply checkpoint mode */
    o->checkpoint = (uint8_t)(args_flag(a, "checkpoint") || o->checkpoint_rows || cfg->append);
    o->direct = (uint8_t)args_flag(a, "direct");
    if ((v = args_value(a, "column-order"))) {
        if (strcmp(v, "ieee754") == 0)
            o->column_order = UPQ_ORDER_IEEE754;
        else if (strcmp(v, "type") == 0)
            o->column_order = UPQ_ORDER_TYPE;
        else {
            fprintf(stderr, "upq: --column-order '%s': want ieee754 or type\n", v);
            return -1;
        }
    }
    if ((v = args_value(a, "file-id"))) {
        char *end;
        unsigned long long id;
        errno = 0;
        id = strtoull(v, &end, 0);
        if (!*v || *v == '-' || *v == '+' || errno || *end) {
            fprintf(stderr, "upq: bad value for --file-id: %s (a number, 0x for hex)\n", v);
            return -1;
        }
        if (!o->checkpoint) {
            fputs("upq: --file-id names a checkpoint-mode file's journal: it needs --checkpoint "
                  "or --checkpoint-rows\n", stderr);
            return -1;
        }
        if (cfg->append)
            fputs("upq: note: --file-id has no effect with --append (the file keeps its id)\n",
                  stderr);
        o->file_id = (uint64_t)id;
    }
    if (o->checkpoint) {
        /* settings checkpoint mode has no use for: say so rather than
         * leave the user believing they apply */
        static const char *const unused[] = {"direct", "chunk-size", "max-pages", "footer-size",
                                             "max-row-groups"};
        size_t k;
        for (k = 0; k < sizeof unused / sizeof unused[0]; k++)
            if (args_flag(a, unused[k]))
                fprintf(stderr, "upq: note: --%s has no effect in checkpoint mode\n", unused[k]);
    }
    {
        int i;
        for (i = 0; i < a->nopts; i++) {
            if (strcmp(a->opt_name[i], "dictionary") == 0)
                dict = 1;
            else if (strcmp(a->opt_name[i], "no-dictionary") == 0)
                dict = 0;
        }
    }
    cfg->cols = calloc(s->num_columns + 1, sizeof *cfg->cols);
    if (!cfg->cols) {
        fputs("upq: out of memory\n", stderr);
        return -1;
    }
    for (c = 0; c < s->num_columns; c++) {
        cfg->cols[c].encoding = -1;
        /* booleans have no dictionary encoding: --dictionary leaves them be */
        cfg->cols[c].dictionary =
            (int8_t)(dict == 1 && s->columns[c].physical_type == UPQ_TYPE_BOOLEAN ? -1 : dict);
    }
    if (apply_encodings(a, s, cfg) || apply_lists(a, s, cfg) || apply_bloom(a, s, cfg) ||
        apply_column_kv(a, s, cfg))
        return -1;
    o->columns = cfg->cols;
    o->ncolumns = s->num_columns;
    return apply_encryption(a, s, cfg);
}

/* ---- the run ----------------------------------------------------------------------- */

typedef struct write_state {
    write_cfg cfg;
    schema_text st;
    upq_schema s;
    void *schema_mem;
    shredder sh;
    int shred_ready;
    jv_doc doc;
    const tool_args *args;
    jv_doc vdoc;      /* the row with VARIANT values in their column form */
    strbuf vtext;
    int has_variant;
    int pages_grown;  /* a row made the pages larger: sizes are kept */
    out_file out;
    char *tmp_path;
    int out_open;
    upq_writer *w;
    size_t *done, *vdone; /* per column: level entries and values of the row taken */
    void *arena;
    size_t arena_len;
    FILE *in;
    int seekable;     /* the input can be read again from the start */
    uint64_t in_rows; /* rows of a regular input file (0: not counted) */
} write_state;

static int read_schema(write_state *ws)
{
    char buf[1 << 16], err[512];
    strbuf sb;
    int rc;
    FILE *f = fopen(ws->cfg.schema_path, "rb");
    if (!f) {
        fprintf(stderr, "upq: %s: %s\n", ws->cfg.schema_path, strerror(errno));
        return -1;
    }
    /* read straight into the buffer the --shred rewrite and the parser
     * take: the text is held once beside the parser's own copy */
    sb_init(&sb);
    for (;;) {
        size_t n = fread(buf, 1, sizeof buf, f);
        if (n == 0)
            break;
        if (sb.len + n > MAX_SCHEMA_TEXT) {
            fprintf(stderr, "upq: %s: larger than %zu MB: too large for a schema\n",
                    ws->cfg.schema_path, MAX_SCHEMA_TEXT >> 20);
            sb_free(&sb);
            fclose(f);
            return -1;
        }
        sb_add(&sb, buf, n);
    }
    if (ferror(f)) {
        fprintf(stderr, "upq: %s: %s\n", ws->cfg.schema_path, strerror(errno));
        sb_free(&sb);
        fclose(f);
        return -1;
    }
    fclose(f);
    if (variant_shred_schema(&sb, ws->args, err, sizeof err)) {
        fprintf(stderr, "upq: %s\n", err);
        sb_free(&sb);
        return -1;
    }
    rc = schema_parse(sb_str(&sb), sb.len, &ws->st, err, sizeof err);
    if (rc)
        fprintf(stderr, "upq: %s: %s\n", ws->cfg.schema_path, err);
    sb_free(&sb);
    return rc ? -1 : 0;
}

/* The tree of the parsed elements: column descriptors, levels, paths. */
static int build_tree(write_state *ws)
{
    size_t len = 4096 + (size_t)ws->st.n * 512;
    for (;;) {
        upq_arena a;
        uint32_t bad = 0;
        upq_status st;
        ws->schema_mem = realloc(ws->schema_mem, len);
        if (!ws->schema_mem) {
            fputs("upq: out of memory\n", stderr);
            return -1;
        }
        upq_arena_init(&a, ws->schema_mem, len);
        st = upq_schema_build(&ws->s, ws->st.elems, ws->st.n, &a, &bad);
        if (st == UPQ_OK)
            break;
        if (st == UPQ_ERR_NOMEM && upq_arena_needed(&a) > len) {
            len = upq_arena_needed(&a);
            continue;
        }
        fprintf(stderr, "upq: %s: the schema is not valid at element %" PRIu32 " (%s)\n",
                ws->cfg.schema_path, bad, upq_strerror(st));
        return -1;
    }
    if (ws->s.num_columns == 0) {
        fprintf(stderr, "upq: %s: the schema has no columns\n", ws->cfg.schema_path);
        return -1;
    }
    return 0;
}

/* Reports a failed writer call: the writer's own account when it has one. */
static void writer_fail(const write_state *ws, upq_status st, const char *doing, uint64_t line)
{
    const upq_error_info *e = upq_writer_error(ws->w);
    fprintf(stderr, "upq: %s: ", ws->cfg.out_path);
    if (line)
        fprintf(stderr, doing, line);
    else
        fputs(doing, stderr);
    if (st == UPQ_ERR_IO && ws->out.err) {
        fprintf(stderr, ": %s", strerror(ws->out.err));
        if (e && e->status == st && e->offset != UINT64_MAX)
            fprintf(stderr, " at offset %" PRIu64, e->offset);
        fputc('\n', stderr);
    } else if (e && e->status == st && e->what) {
        fprintf(stderr, ": %s", e->what);
        if (e->offset != UINT64_MAX)
            fprintf(stderr, " at offset %" PRIu64, e->offset);
        if (e->column >= 0 && (uint32_t)e->column < ws->s.num_columns) {
            strbuf sb;
            sb_init(&sb);
            fmt_node_path(&sb, &ws->s, ws->s.columns[e->column].node);
            fprintf(stderr, " (column %s)", sb_str(&sb));
            sb_free(&sb);
        }
        fprintf(stderr, " (%s)\n", upq_strerror(st));
    } else {
        fprintf(stderr, ": %s\n", upq_strerror(st));
    }
    if (st == UPQ_ERR_LIMIT)
        fputs("upq: a row must fit in one page: raise --page-size (binary values) or "
              "--page-levels (long lists)\n", stderr);
    else if (st == UPQ_ERR_NOMEM)
        fputs("upq: the footer metadata of finished row groups no longer fits: use "
              "--checkpoint, fewer row groups (--chunk-size, --row-group-rows) or a larger "
              "--max-row-groups\n", stderr);
}

/* --append: OUT copied to OUT.tmp (its permissions too), which is then
 * resumed; OUT itself is replaced only by the finished file. */
static int copy_for_append(write_state *ws)
{
    static uint8_t buf[1 << 16];
    const char *why = NULL;
    struct stat sb;
    int in, out;
    ssize_t n = 0;
    in = open(ws->cfg.out_path, O_RDONLY);
    if (in < 0 || fstat(in, &sb) != 0)
        why = strerror(errno);
    else if (!S_ISREG(sb.st_mode))
        why = "not a regular file";
    if (why) {
        fprintf(stderr, "upq: %s: %s (--append continues an existing checkpoint-mode file)\n",
                ws->cfg.out_path, why);
        if (in >= 0)
            close(in);
        return -1;
    }
    out = open(ws->tmp_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (out < 0) {
        fprintf(stderr, "upq: %s: %s\n", ws->tmp_path, strerror(errno));
        close(in);
        return -1;
    }
    for (;;) {
        ssize_t w, done = 0;
        do
            n = read(in, buf, sizeof buf);
        while (n < 0 && errno == EINTR);
        if (n <= 0)
            break;
        while (done < n) {
            do
                w = write(out, buf + done, (size_t)(n - done));
            while (w < 0 && errno == EINTR);
            if (w < 0) {
                n = -1;
                break;
            }
            done += w;
        }
        if (n < 0)
            break;
    }
    if (n < 0 || fchmod(out, sb.st_mode & 07777) != 0) {
        fprintf(stderr, "upq: copying %s to %s: %s\n", ws->cfg.out_path, ws->tmp_path,
                strerror(errno));
        close(in);
        close(out);
        unlink(ws->tmp_path);
        return -1;
    }
    close(in);
    if (close(out) != 0) {
        fprintf(stderr, "upq: %s: %s\n", ws->tmp_path, strerror(errno));
        unlink(ws->tmp_path);
        return -1;
    }
    return 0;
}

/* Opens OUT.tmp, where the file is written until it is complete: empty, or
 * with --append a copy of OUT. Checkpoint mode opens it through the POSIX
 * sink (read-write, positional). */
static int open_tmp(write_state *ws)
{
    if (ws->cfg.append && copy_for_append(ws))
        return -1;
    if (ws->cfg.o.checkpoint) {
        if (upq_posix_sink_open(&ws->out.ps, ws->tmp_path, !ws->cfg.append) != UPQ_OK) {
            fprintf(stderr, "upq: %s: %s\n", ws->tmp_path, strerror(errno));
            if (ws->cfg.append)
                unlink(ws->tmp_path);
            return -1;
        }
        upq_posix_sink_init(&ws->out.ps, &ws->out.inner);
        ws->out.positional = 1;
        ws->out.fd = ws->out.ps.fd;
    } else {
        ws->out.fd = open(ws->tmp_path, O_RDWR | O_CREAT | O_TRUNC, 0666);
        if (ws->out.fd < 0) {
            fprintf(stderr, "upq: %s: %s\n", ws->tmp_path, strerror(errno));
            return -1;
        }
    }
    ws->out_open = 1;
    return 0;
}

/* Closes OUT.tmp; 0, or -1 (reported) when close fails. */
static int close_tmp(write_state *ws)
{
    int rc = close(ws->out.fd);
    int e = errno;
    ws->out.fd = -1;
    ws->out.ps.fd = -1;
    ws->out_open = 0;
    if (rc != 0) {
        fprintf(stderr, "upq: %s: %s\n", ws->tmp_path, strerror(e));
        return -1;
    }
    return 0;
}

static int open_output(write_state *ws, const tool_args *a)
{
    ws->tmp_path = malloc(strlen(ws->cfg.out_path) + 5);
    if (!ws->tmp_path) {
        fputs("upq: out of memory\n", stderr);
        return -1;
    }
    sprintf(ws->tmp_path, "%s.tmp", ws->cfg.out_path);
    if (open_tmp(ws))
        return -1;
    ws->out.max_write = a->chunk;
    ws->out.again = a->again;
    return 0;
}

/* Without checkpoints the metadata of finished row groups stays in the
 * arena: room for FOOTER_LOG_BUDGET bytes of it, so the log is bounded
 * whatever the width (a schema of some 200 columns or more gets fewer than
 * the 1000 row groups a narrower one gets at least). */
static uint32_t default_max_row_groups(const write_state *ws)
{
    size_t one = 0, none = 0, per, n;
    if (upq_writer_workspace_size(ws->st.elems, ws->st.n, &ws->cfg.o, 1, &one) != UPQ_OK ||
        upq_writer_workspace_size(ws->st.elems, ws->st.n, &ws->cfg.o, 0, &none) != UPQ_OK ||
        one <= none)
        return MIN_ROW_GROUPS;
    per = one - none;
    n = FOOTER_LOG_BUDGET / per;
    return n > 1000000 ? 1000000u : n ? (uint32_t)n : 1u;
}

/* Page and chunk-buffer sizes, largest first, that upq write tries until
 * the staging fits STAGE_BUDGET: a wide schema gets smaller pages rather
 * than an arena that grows with its width (0: the writer's default). */
static const struct { uint32_t page, chunk; } size_steps[] = {
    {0, HOST_CHUNK_SIZE}, {0, 512u << 10}, {0, 256u << 10}, {0, 128u << 10}, {0, 64u << 10},
    {4096, 0}, {2048, 0}, {1024, 0}, {512, 0}, {256, 0},
};
#define SIZE_STEPS (sizeof size_steps / sizeof size_steps[0])

/* The arena of the schema and options without the finished row groups'
 * log; SIZE_MAX when they cannot be written at all. */
static size_t staging_need(const write_state *ws, const upq_writer_opts *o)
{
    size_t need = 0;
    if (upq_writer_workspace_size(ws->st.elems, ws->st.n, o, 0, &need) != UPQ_OK)
        return SIZE_MAX;
    return need;
}

static void too_wide(const write_state *ws, const upq_writer_opts *o, size_t need)
{
    uint32_t leaves = 0, i;
    for (i = 1; i < ws->st.n; i++)
        leaves += !(ws->st.elems[i].isset & (1u << UPQ_SCHEMA_ELEMENT_NUM_CHILDREN));
    fprintf(stderr, "upq: %s: %" PRIu32 " columns need a %zu-byte arena even with %" PRIu32
                    "-byte pages, more than the %zu bytes upq write allows itself (%s--arena "
                    "BYTES sets the arena)\n",
            ws->cfg.out_path, leaves, need, o->page_size ? o->page_size : 8192u, STAGE_BUDGET,
            o->checkpoint ? "" : "--checkpoint needs less; ");
}

/* Options of step k applied to o where the user left them to upq write. */
static void size_step(const tool_args *a, upq_writer_opts *o, size_t k)
{
    if (!args_value(a, "page-size"))
        o->page_size = size_steps[k].page;
    if (!args_value(a, "chunk-size"))
        o->chunk_size = size_steps[k].chunk;
}

/*
 * Fits the staging (pages, chunk buffers, dictionaries of every column) in
 * STAGE_BUDGET by taking the first size step that fits, unless --arena
 * sets the arena or a row has already made the pages larger. 0, or -1 when
 * even the smallest pages do not fit (said why: the schema is too wide for
 * the memory upq write allows itself).
 */
static int fit_staging(write_state *ws, const tool_args *a)
{
    upq_writer_opts o = ws->cfg.o;
    size_t k, need = 0;
    if (a->arena || ws->pages_grown)
        return 0;
    for (k = 0; k < SIZE_STEPS; k++) {
        size_step(a, &o, k);
        need = staging_need(ws, &o);
        if (need == SIZE_MAX)
            return 0; /* init says what is wrong */
        if (need <= STAGE_BUDGET) {
            ws->cfg.o = o;
            return 0;
        }
    }
    too_wide(ws, &o, need);
    return -1;
}

/* A schema whose columns do not fit STAGE_BUDGET even at the smallest
 * pages is refused before its tree, its row plan and the writer are made
 * (each as large as the schema). 0, or -1 (said why). */
static int check_width(write_state *ws, const tool_args *a)
{
    upq_writer_opts o;
    size_t need;
    if (a->arena)
        return 0;
    memset(&o, 0, sizeof o);
    o.checkpoint = (uint8_t)(args_flag(a, "checkpoint") || args_value(a, "checkpoint-rows") ||
                             args_flag(a, "append"));
    o.direct = (uint8_t)args_flag(a, "direct");
    if (opt_u32(a, "page-size", &o.page_size) || opt_u32(a, "chunk-size", &o.chunk_size))
        return -1;
    size_step(a, &o, SIZE_STEPS - 1);
    need = staging_need(ws, &o);
    if (need == SIZE_MAX || need <= STAGE_BUDGET)
        return 0; /* what cannot be written at all is said later, in full */
    too_wide(ws, &o, need);
    return -1;
}

/* --append: the writer continues the file in OUT.tmp (a copy of OUT). A
 * file cut short is first brought back to its last intact checkpoint. */
static int resume_writer(write_state *ws)
{
    upq_status st;
    do
        st = upq_writer_resume(ws->w, ws->out.ps.size);
    while (st == UPQ_AGAIN);
    if (st == UPQ_OK) {
        if (ws->in_rows)
            upq_writer_set_file_rows(ws->w, upq_writer_rows(ws->w) + ws->in_rows);
        return 0;
    }
    writer_fail(ws, st, "cannot append", 0);
    if (st == UPQ_ERR_CORRUPT)
        fprintf(stderr, "upq: %s: --append continues only files written in checkpoint mode "
                        "(--checkpoint, --checkpoint-rows)\n", ws->cfg.out_path);
    else if (st == UPQ_ERR_INVAL)
        fprintf(stderr, "upq: %s: --append needs the --schema and the writer options the file "
                        "was written with (codec, page version, CRCs, statistics, page index, "
                        "--stats-max-binary, --kv, --sorting-column)\n", ws->cfg.out_path);
    return -1;
}

/* Sizes the arena from the schema and options and starts the writer. */
static int init_writer(write_state *ws, const tool_args *a)
{
    upq_sink sink;
    size_t need = 0;
    uint32_t max_rg;
    upq_status st;
    int attempt;

    out_sink(&ws->out, &sink);
    if (fit_staging(ws, a))
        return -1;
    /* finished row groups' metadata: read back from the file with
     * checkpoints, else kept in the arena for up to max_row_groups */
    max_rg = ws->cfg.o.checkpoint || ws->cfg.o.footer_size ? 0
             : ws->cfg.max_row_groups ? ws->cfg.max_row_groups : default_max_row_groups(ws);
    if (!ws->w && !(ws->w = malloc(sizeof *ws->w))) {
        fputs("upq: out of memory\n", stderr);
        return -1;
    }
    st = upq_writer_workspace_size(ws->st.elems, ws->st.n, &ws->cfg.o, max_rg, &need);
    if (st != UPQ_OK) {
        /* init checks the same and says what is wrong (before it needs memory) */
        static uint64_t tiny[8];
        upq_status why = upq_writer_init(ws->w, &sink, ws->st.elems, ws->st.n, tiny, sizeof tiny,
                                         &ws->cfg.o);
        if (why == UPQ_ERR_UNSUPPORTED)
            fprintf(stderr, "upq: %s: this build cannot write codec %s\n", ws->cfg.out_path,
                    upq_codec_name(ws->cfg.o.codec));
        else
            writer_fail(ws, st, "cannot write this schema with these options", 0);
        return -1;
    }
    if (a->arena)
        need = a->arena;
    for (attempt = 0;; attempt++) {
        size_t more;
        void *mem = realloc(ws->arena, need ? need : 1);
        if (!mem) {
            fprintf(stderr, "upq: cannot allocate a %zu-byte arena\n", need);
            return -1;
        }
        ws->arena = mem;
        ws->arena_len = need;
        st = upq_writer_init(ws->w, &sink, ws->st.elems, ws->st.n, ws->arena, ws->arena_len,
                             &ws->cfg.o);
        if (st == UPQ_OK)
            return ws->cfg.append ? resume_writer(ws) : 0;
        more = upq_arena_needed(&ws->w->arena);
        if (st == UPQ_ERR_NOMEM && !a->arena && more > need && more <= TOOL_MAX_ARENA && attempt < 8) {
            need = more;
            continue;
        }
        break;
    }
    if (st == UPQ_ERR_NOMEM)
        fprintf(stderr, "upq: %s: a %zu-byte arena is too small (%zu bytes needed)\n",
                ws->cfg.out_path, ws->arena_len, upq_arena_needed(&ws->w->arena));
    else if (st == UPQ_ERR_UNSUPPORTED)
        fprintf(stderr, "upq: %s: this build cannot write codec %s\n", ws->cfg.out_path,
                upq_codec_name(ws->cfg.o.codec));
    else
        writer_fail(ws, st, "cannot write this schema with these options", 0);
    return -1;
}

/*
 * A row too large for a page (UPQ_ERR_LIMIT): a binary value longer than
 * page_size - 4, or more level entries in one column than page_levels.
 * Unless those were given on the command line, picks sizes that fit the
 * row; returns 1 when something changed (the caller starts over), 0 when
 * nothing can, -1 when nothing can and it said why (a page holds at most
 * 65,535 level entries: no page size helps a row with more).
 */
static int grow_pages(write_state *ws, const tool_args *a, uint64_t line)
{
    upq_writer_opts *o = &ws->cfg.o;
    uint64_t longest = 0 /* bytes of the row in its widest column */, levels = 0, page = o->page_size ? o->page_size : 8192, lv;
    uint32_t c;
    int changed = 0;
    for (c = 0; c < ws->s.num_columns; c++) {
        /* the row's bytes in this column, as the writer counts them */
        const shred_leaf *lf = &ws->sh.leaves[c];
        uint64_t bytes = 0;
        size_t k;
        if (lf->n > levels)
            levels = lf->n;
        for (k = 0; k < lf->nv; k++) {
            if (lf->is_bytes)
                bytes += 4u + ((const upq_bytes *)(const void *)(lf->vals + k * lf->vsize))->len;
            else
                bytes += lf->vsize;
        }
        if (bytes > longest)
            longest = bytes;
    }
    lv = o->page_levels ? o->page_levels : page / 4;
    if (levels > 65535) {
        fprintf(stderr, "upq: line %" PRIu64 ": a row with %" PRIu64 " entries in one column; a data page "
                        "holds at most 65535 (--page-levels)\n", line, levels);
        return -1;
    }
    if (!args_value(a, "page-size") && longest > page) {
        while (page < longest)
            page *= 2;
        if (page > UINT32_MAX / 2)
            return 0;
        /* the dictionary stays as large as it was: it would otherwise grow
         * with the page and take a copy of the very value that needed it */
        if (!o->dict_size)
            o->dict_size = o->page_size ? o->page_size : 8192u;
        o->page_size = (uint32_t)page;
        /* the finished pages' buffer takes at least two of them */
        if (!args_value(a, "chunk-size") && o->chunk_size && o->chunk_size < 2u * page + 65536u)
            o->chunk_size = 2u * page + 65536u > UINT32_MAX ? UINT32_MAX : (uint32_t)(2u * page + 65536u);
        changed = 1;
    }
    if (!args_value(a, "page-levels") && levels > (o->page_levels ? o->page_levels : page / 4)) {
        while (lv < levels)
            lv *= 2;
        if (lv > 65535)
            lv = 65535;
        if (lv < levels)
            return 0;
        o->page_levels = (uint32_t)lv;
        changed = 1;
    }
    ws->pages_grown |= changed;
    if (changed)
        fprintf(stderr, "upq: line %" PRIu64 " needs larger pages: starting over with "
                        "--page-size %" PRIu64 " --page-levels %" PRIu64 "\n", line,
                (uint64_t)o->page_size,
                o->page_levels ? (uint64_t)o->page_levels : page / 4 > 65535 ? 65535 : page / 4);
    return changed;
}

/* Hands the shredded row to the writer, one leaf column at a time. A
 * column the writer finds too far ahead (UPQ_DONE) is offered again after
 * the others; output that would block (UPQ_AGAIN) is retried at once (the
 * sink here only blocks under the --again test knob). */
static upq_status write_row(write_state *ws)
{
    /* where "no values" points for a column whose entries are all null */
    static const uint64_t no_values[2] = {0, 0};
    uint32_t c, left = ws->s.num_columns;
    for (c = 0; c < ws->s.num_columns; c++)
        ws->done[c] = ws->vdone[c] = 0;
    while (left > 0) {
        int progress = 0;
        for (c = 0; c < ws->s.num_columns; c++) {
            const upq_column_desc *cd = &ws->s.columns[c];
            const shred_leaf *lf = &ws->sh.leaves[c];
            upq_status st;
            if (ws->done[c] >= lf->n)
                continue;
            do {
                size_t consumed = 0, k, done = ws->done[c];
                st = upq_writer_write_column(ws->w, c, cd->max_def ? lf->def + done : NULL,
                                             cd->max_rep ? lf->rep + done : NULL,
                                             lf->vals ? lf->vals + ws->vdone[c] * lf->vsize
                                                      : (const void *)no_values,
                                             lf->n - done,
                                             &consumed);
                if (st != UPQ_OK && st != UPQ_AGAIN && st != UPQ_DONE)
                    return st;
                if (consumed > lf->n - done)
                    return UPQ_ERR_STATE;
                for (k = done; k < done + consumed; k++)
                    ws->vdone[c] += !cd->max_def || lf->def[k] == cd->max_def;
                ws->done[c] += consumed;
                progress |= consumed > 0;
                if (st == UPQ_OK && ws->done[c] < lf->n)
                    return UPQ_ERR_STATE; /* "all taken" that took less */
            } while (st == UPQ_AGAIN);
            if (ws->done[c] >= lf->n)
                left--;
        }
        if (!progress && left > 0)
            return UPQ_ERR_STATE; /* every column waits for another */
    }
    return UPQ_OK;
}

static int is_blank(const char *s, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
            return 0;
    return 1;
}

/* Starts the output over: OUT.tmp as it was first opened (empty, or a
 * fresh copy of OUT with --append) and the input from its start. */
static int rewind_all(write_state *ws)
{
    if (fseek(ws->in, 0, SEEK_SET) != 0) {
        fprintf(stderr, "upq: cannot start over: %s\n", strerror(errno));
        return -1;
    }
    clearerr(ws->in);
    if (ws->out.positional) {
        if (close_tmp(ws) || open_tmp(ws))
            return -1;
        return 0;
    }
    if (ftruncate(ws->out.fd, 0) != 0 || lseek(ws->out.fd, 0, SEEK_SET) < 0) {
        fprintf(stderr, "upq: cannot start over: %s\n", strerror(errno));
        return -1;
    }
    return 0;
}

/* Checkpoint mode, a new file from a regular input file: the rows it will
 * hold (its non-blank lines) become opts.file_rows, so the last row group
 * is planned to end there and reserves no space past it (appending: the
 * rows in the file and these, once resumed). Leaves it 0 (not known)
 * otherwise; the input is read again from its start. */
static void count_rows(write_state *ws)
{
    char buf[1 << 16];
    size_t got, i;
    uint64_t n = 0;
    int filled = 0; /* the line so far is not blank */
    if (!ws->cfg.o.checkpoint || !ws->seekable)
        return;
    /* counted as it streams past: no line is held, however long */
    while ((got = fread(buf, 1, sizeof buf, ws->in)) > 0) {
        for (i = 0; i < got; i++) {
            if (buf[i] == '\n') {
                n += (uint64_t)filled;
                filled = 0;
            } else {
                filled |= !is_blank(buf + i, 1);
            }
        }
    }
    n += (uint64_t)filled;
    if (!ferror(ws->in) && fseek(ws->in, 0, SEEK_SET) == 0) {
        ws->in_rows = n;
        /* appending: the rows already in the file are known once resumed */
        if (!ws->cfg.append)
            ws->cfg.o.file_rows = n;
    }
    clearerr(ws->in);
}

/* Says why line `lineno` did not parse (doc's error): a limit, or what
 * was wrong with the JSON (after `what`). */
static void parse_fail(const jv_doc *doc, const char *in_name, uint64_t lineno, const char *what)
{
    if (doc->over_limit == 1)
        fprintf(stderr, "upq: %s:%" PRIu64 ":%zu: an array or object of more than %" PRIu32
                        " members: a row holds at most 65535 entries in one column (a Variant "
                        "at most 65535 members in one array or object)\n",
                in_name, lineno, doc->err_col, doc->max_members);
    else if (doc->over_limit == 2)
        fprintf(stderr, "upq: %s:%" PRIu64 ":%zu: a row of more than %" PRIu32 " JSON values: "
                        "upq write holds one row in memory, and takes at most that many\n",
                in_name, lineno, doc->err_col, doc->max_values);
    else
        fprintf(stderr, "upq: %s:%" PRIu64 ":%zu: %s%s\n", in_name, lineno, doc->err_col, what,
                doc->err);
}

static int convert(write_state *ws, const tool_args *a)
{
    line_in in;
    char *line;
    uint64_t lineno;
    const char *in_name = ws->in == stdin ? "-" : ws->cfg.in_path;
    int rc = -1, again;
    upq_status st;

    count_rows(ws);
    line_init(&in, ws->in, MAX_LINE);
    do {
        again = 0;
        lineno = 0;
        line_reset(&in);
        if (init_writer(ws, a))
            goto out;
        for (;;) {
            int got = line_next(&in);
            size_t len = in.len;
            if (got == LINE_END)
                break;
            lineno++;
            if (got == LINE_ERR) {
                fprintf(stderr, "upq: %s: %s\n", in_name, strerror(errno));
                goto out;
            }
            if (got == LINE_LONG) {
                fprintf(stderr, "upq: %s:%" PRIu64 ": a line longer than %zu MB: upq write "
                                "holds one row in memory, and takes lines up to that size\n",
                        in_name, lineno, (size_t)MAX_LINE >> 20);
                goto out;
            }
            line = in.line;
            if (is_blank(line, len))
                continue;
            if (memchr(line, '\0', len)) {
                fprintf(stderr, "upq: %s:%" PRIu64 ": invalid JSON: NUL byte\n", in_name, lineno);
                goto out;
            }
            /* strings decoded over the line: a large value is held once */
            if (jv_parse_inplace(&ws->doc, line, len, MAX_JSON_DEPTH)) {
                parse_fail(&ws->doc, in_name, lineno, "invalid JSON: ");
                goto out;
            }
            if (ws->has_variant) {
                char verr[256];
                if (variant_rewrite(&ws->s, &ws->doc, &ws->vtext, verr, sizeof verr)) {
                    fprintf(stderr, "upq: %s:%" PRIu64 ": Variant: %s\n", in_name, lineno, verr);
                    goto out;
                }
                /* the row lives on in its rewritten text alone */
                line_shrink(&in, LINE_KEEP);
                if (jv_parse_inplace(&ws->vdoc, ws->vtext.p, ws->vtext.len, MAX_JSON_DEPTH + 8)) {
                    parse_fail(&ws->vdoc, in_name, lineno, "Variant: ");
                    goto out;
                }
            }
            if (shred_row(&ws->sh, ws->has_variant ? &ws->vdoc : &ws->doc)) {
                if (ws->sh.err_path.len)
                    fprintf(stderr, "upq: %s:%" PRIu64 ": field \"%s\": %s\n", in_name, lineno,
                            sb_str(&ws->sh.err_path), ws->sh.err);
                else
                    fprintf(stderr, "upq: %s:%" PRIu64 ": %s\n", in_name, lineno, ws->sh.err);
                goto out;
            }
            st = write_row(ws);
            if (st == UPQ_ERR_LIMIT && ws->seekable) {
                int g = grow_pages(ws, a, lineno);
                if (g < 0)
                    goto out;
                if (g > 0) {
                    if (rewind_all(ws))
                        goto out;
                    again = 1;
                    break;
                }
            }
            if (st != UPQ_OK) {
                writer_fail(ws, st, "writing the row of line %" PRIu64 " failed", lineno);
                goto out;
            }
            /* the writer holds the row now: a long line's buffers are
             * not kept beside it until the pages are made */
            line_shrink(&in, LINE_KEEP);
            jv_trim(&ws->doc, LINE_KEEP);
            jv_trim(&ws->vdoc, LINE_KEEP);
            if (ws->vtext.cap > LINE_KEEP)
                sb_free(&ws->vtext);
        }
    } while (again);
    do
        st = upq_writer_close(ws->w);
    while (st == UPQ_AGAIN);
    if (st != UPQ_OK) {
        writer_fail(ws, st, "finishing the file failed", 0);
        goto out;
    }
    rc = 0;
out:
    line_free(&in);
    return rc;
}

static void cleanup(write_state *ws, int failed)
{
    if (ws->out_open) {
        close(ws->out.fd);
        if (failed)
            unlink(ws->tmp_path);
    }
    if (ws->in && ws->in != stdin)
        fclose(ws->in);
    if (ws->shred_ready)
        shred_free(&ws->sh);
    jv_free(&ws->doc);
    jv_free(&ws->vdoc);
    sb_free(&ws->vtext);
    schema_text_free(&ws->st);
    free(ws->schema_mem);
    free(ws->w);
    free(ws->done);
    free(ws->vdone);
    free(ws->arena);
    free(ws->tmp_path);
    free(ws->cfg.cols);
    free(ws->cfg.ckeys);
    free(ws->cfg.mkeys);
    tool_keys_free(&ws->cfg.keys);
    free(ws->cfg.kv);
    free(ws->cfg.col_kv);
    free(ws->cfg.sorting);
}

static int print_schema_json(write_state *ws)
{
    json_writer w;
    json_init(&w, stdout);
    json_object_begin(&w);
    json_schema_entries(&w, ws->st.elems, ws->st.n, &ws->s);
    json_object_end(&w);
    json_finish(&w);
    return 0;
}

/* External key material: the side file beside OUT, or --key-material's. */
static int save_key_material(write_cfg *cfg)
{
    char *path = (char *)cfg->keys.material;
    upq_status st;
    if (!path) {
        size_t cap = strlen(cfg->out_path) + 32;
        path = malloc(cap);
        if (!path || upq_keytools_material_path(cfg->out_path, path, cap) != UPQ_OK) {
            free(path);
            fputs("upq: out of memory\n", stderr);
            return -1;
        }
    }
    st = upq_keytools_save_material(cfg->keys.kt, path);
    if (path != cfg->keys.material)
        free(path);
    if (st != UPQ_OK) {
        const char *msg;
        upq_keytools_error(cfg->keys.kt, &msg);
        fprintf(stderr, "upq: %s (%s)\n", msg, upq_strerror(st));
        return -1;
    }
    return 0;
}

int cmd_write(const tool_args *a)
{
    write_state ws;
    int rc = 1;

    memset(&ws, 0, sizeof ws);
    ws.out.fd = -1;
    ws.out.ps.fd = -1;
    jv_init(&ws.doc);
    jv_init(&ws.vdoc);
    sb_init(&ws.vtext);
    ws.args = a;
    ws.cfg.schema_path = args_value(a, "schema");
    ws.cfg.schema_json = args_flag(a, "schema-json");
    if (!ws.cfg.schema_path) {
        fputs("upq: write needs --schema FILE (the message syntax `upq schema` prints)\n", stderr);
        return 2;
    }
    if (a->nfiles != (ws.cfg.schema_json ? 0 : 2)) {
        fputs(ws.cfg.schema_json ? "usage: upq write --schema FILE --schema-json\n"
                                 : "usage: upq write --schema FILE [options] IN.jsonl OUT.parquet\n",
              stderr);
        return 2;
    }
    if (!ws.cfg.schema_json) {
        ws.cfg.in_path = a->files[0];
        ws.cfg.out_path = a->files[1];
    }
    if (read_schema(&ws) || (!ws.cfg.schema_json && check_width(&ws, a)) || build_tree(&ws))
        goto done;
    if (ws.cfg.schema_json) {
        rc = print_schema_json(&ws);
        goto done;
    }
    if (build_opts(a, &ws.s, &ws.cfg))
        goto done;
    ws.has_variant = variant_rewrite_needed(&ws.s);
    /* An array is a list or map (an entry per member in each column below;
     * a page holds at most 65,535) and an object a group (a member per
     * field), so a container with more members is refused as it is read,
     * not after millions of them are parsed. A Variant's arrays and
     * objects are held to the same (the Variant builder takes at most
     * 65,536 members in one), in the row as given and as rewritten. A
     * row's values, however they nest, are bounded as well. */
    ws.doc.max_members = ws.vdoc.max_members = ws.st.n > 65535u ? ws.st.n : 65535u;
    ws.doc.max_values = ws.vdoc.max_values = MAX_ROW_VALUES;
    if (shred_init(&ws.sh, &ws.s)) {
        fprintf(stderr, "upq: %s: cannot plan rows for this schema\n", ws.cfg.schema_path);
        goto done;
    }
    ws.shred_ready = 1;
    ws.done = calloc(ws.s.num_columns, sizeof *ws.done);
    ws.vdone = calloc(ws.s.num_columns, sizeof *ws.vdone);
    if (!ws.done || !ws.vdone) {
        fputs("upq: out of memory\n", stderr);
        goto done;
    }
    if (strcmp(ws.cfg.in_path, "-") == 0) {
        ws.in = stdin;
    } else if (!(ws.in = fopen(ws.cfg.in_path, "rb"))) {
        fprintf(stderr, "upq: %s: %s\n", ws.cfg.in_path, strerror(errno));
        goto done;
    }
    {
        struct stat sb;
        ws.seekable = ws.in != stdin && fstat(fileno(ws.in), &sb) == 0 && S_ISREG(sb.st_mode);
    }
    if (open_output(&ws, a) || convert(&ws, a))
        goto done;
    if (close_tmp(&ws)) {
        unlink(ws.tmp_path);
        goto done;
    }
    if (ws.cfg.key_material && save_key_material(&ws.cfg)) {
        unlink(ws.tmp_path);
        goto done;
    }
    /* --append replaces a file that holds rows already: only with one that
     * reads, every value of it */
    if (ws.cfg.append) {
        uint64_t rows = 0;
        if (tool_read_all(ws.tmp_path, ws.cfg.out_path, a, &rows) != 0) {
            fprintf(stderr, "upq: %s: the appended file does not read back\n", ws.cfg.out_path);
            unlink(ws.tmp_path);
            goto done;
        }
    }
    if (rename(ws.tmp_path, ws.cfg.out_path) != 0) {
        fprintf(stderr, "upq: %s: %s\n", ws.cfg.out_path, strerror(errno));
        unlink(ws.tmp_path);
        goto done;
    }
    rc = 0;
done:
    if (rc && ws.cfg.out_path && !ws.cfg.schema_json)
        fprintf(stderr, ws.cfg.append ? "upq: %s unchanged\n" : "upq: %s not written\n",
                ws.cfg.out_path);
    cleanup(&ws, rc != 0);
    return rc;
}
