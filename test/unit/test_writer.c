/*
 * The writer: files of every physical type (required and optional, flat
 * row-wise; LIST, MAP, nested lists and a struct column-wise with levels),
 * every codec this build writes, v1 and v2 pages, dictionaries and their
 * fallback, tiny pages, many row groups, checkpoint mode (through a sink
 * that writes at offsets: row groups of at most row_group_rows whatever the
 * RAM, ending early only when a column's region is full, the rows durable
 * after every row, checkpoints every N rows), the empty file. Each file is
 * read back
 * with the library's reader and compared value by value, written again
 * through sinks that take 1 byte at a time or say "again" at random (the
 * bytes must be identical), and its footer must be exactly what the Thrift
 * encoder makes of the decoded model. Statistics, the page index,
 * workspace sizing and input errors have their own cases. Files land in
 * build/check/writer/ and, when DuckDB is installed (test/interop), are
 * compared with DuckDB's reading by `upq cat --json`.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "writer_util.h"
#include "util/files.h"
#include "upq_port.h"
#include "format/meta_desc.h"

/* Where written files go: build/check/writer/ for the host build; the
 * sanitizer build (run side by side by make check) uses its own folder and
 * leaves DuckDB out. */
static const char *out_dir = "build/check/writer";
static int sanitizer_build;

static char written_files[4096];

static void save_file(const char *name, const sink_buf *s)
{
    char path[256];
    mkdir("build", 0777);
    mkdir("build/check", 0777);
    mkdir(out_dir, 0777);
    snprintf(path, sizeof path, "%s/%s.parquet", out_dir, name);
    if (tu_write_file(path, s->p, s->n) == 0 &&
        strlen(written_files) + strlen(path) + 2 < sizeof written_files) {
        strcat(written_files, " ");
        strcat(written_files, path);
    }
}

static int bytes_is(upq_bytes b, const char *s)
{
    size_t n = strlen(s);
    return b.len == n && (n == 0 || memcmp(b.ptr, s, n) == 0);
}

/* ---- footer: our bytes are the Thrift encoder's bytes ----------------------------- */

static void check_footer_canonical(const uint8_t *p, size_t n, const char *what)
{
    static uint8_t arena_mem[8 << 20];
    upq_arena a;
    upq_file_metadata m;
    uint32_t flen;
    size_t used = 0, len = 0;
    uint8_t *re;
    if (!TU_CHECK(n >= 12 && memcmp(p + n - 4, "PAR1", 4) == 0))
        return;
    flen = upq_load_le32(p + n - 8);
    if (!TU_CHECK(flen <= n - 12))
        return;
    upq_arena_init(&a, arena_mem, sizeof arena_mem);
    TU_CHECK_STATUS(upq_thrift_decode(&upq_file_metadata_desc, &m, &a, p + n - 8 - flen, flen,
                                      &used, NULL),
                    UPQ_OK);
    TU_CHECK_UINT(used, flen);
    re = (uint8_t *)malloc(flen + 64);
    TU_CHECK_STATUS(upq_thrift_encode(&upq_file_metadata_desc, &m, re, flen + 64, &len), UPQ_OK);
    if (!TU_CHECK_MSG(len == flen && memcmp(re, p + n - 8 - flen, flen) == 0,
                      "%s: footer differs from the Thrift encoding of its model (%zu vs %u bytes)",
                      what, len, flen))
        TU_CHECK_MEM(re, p + n - 8 - flen, len < flen ? len : flen);
    free(re);
}

/* ---- flat data, every physical type ---------------------------------------------- */

enum { F_B, F_I32, F_I64, F_I96, F_F, F_D, F_S, F_FL, F_DEC, F_U32, F_H, NFLAT };

static const int32_t flat_types[NFLAT] = {
    UPQ_TYPE_BOOLEAN, UPQ_TYPE_INT32, UPQ_TYPE_INT64, UPQ_TYPE_INT96, UPQ_TYPE_FLOAT,
    UPQ_TYPE_DOUBLE, UPQ_TYPE_BYTE_ARRAY, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY,
    UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, UPQ_TYPE_INT32, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY};
static uint16_t flat_def[NFLAT];

static upq_schema_element flat_elems[NFLAT + 1];
static uint32_t flat_n;

static void build_flat_schema(int with_int96_f16)
{
    upq_schema_builder b;
    upq_logical_type lt;
    int i;
    upq_sb_init(&b, flat_elems, NFLAT + 1, "flat");
    upq_sb_column(&b, "b", UPQ_REP_OPTIONAL, UPQ_TYPE_BOOLEAN, 0, NULL);
    upq_sb_column(&b, "i32", UPQ_REP_OPTIONAL, UPQ_TYPE_INT32, 0, NULL);
    upq_lt_timestamp(&lt, UPQ_TIME_UNIT_MICROS, 1);
    upq_sb_column(&b, "i64", UPQ_REP_REQUIRED, UPQ_TYPE_INT64, 0, &lt);
    upq_sb_column(&b, "i96", UPQ_REP_OPTIONAL, with_int96_f16 ? UPQ_TYPE_INT96 : UPQ_TYPE_INT64, 0,
                  NULL);
    upq_sb_column(&b, "f", UPQ_REP_OPTIONAL, UPQ_TYPE_FLOAT, 0, NULL);
    upq_sb_column(&b, "d", UPQ_REP_OPTIONAL, UPQ_TYPE_DOUBLE, 0, NULL);
    upq_lt_string(&lt);
    upq_sb_column(&b, "s", UPQ_REP_OPTIONAL, UPQ_TYPE_BYTE_ARRAY, 0, &lt);
    upq_sb_column(&b, "fl", UPQ_REP_OPTIONAL, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 5, NULL);
    upq_lt_decimal(&lt, 9, 2);
    upq_sb_column(&b, "dec", UPQ_REP_OPTIONAL, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 4, &lt);
    upq_lt_int(&lt, 32, 0);
    upq_sb_column(&b, "u32", UPQ_REP_OPTIONAL, UPQ_TYPE_INT32, 0, &lt);
    if (with_int96_f16) {
        upq_lt_float16(&lt);
        upq_sb_column(&b, "h", UPQ_REP_OPTIONAL, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 2, &lt);
    } else {
        upq_sb_column(&b, "h", UPQ_REP_OPTIONAL, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 2, NULL);
    }
    TU_CHECK_STATUS(upq_sb_finish(&b, &flat_n), UPQ_OK);
    for (i = 0; i < NFLAT; i++)
        flat_def[i] = i == F_I64 ? 0 : 1;
}

static col_data flat[NFLAT];
static uint8_t *flat_pool;
static size_t flat_rows;

static void gen_flat(size_t rows, uint64_t seed, int with_int96)
{
    size_t i, pool_used = 0;
    int c;
    uint64_t rng = seed;
    static const float fvals[] = {1.5f, -2.25f, 0.0f, 3.0e10f, -7.0f, 0.125f};
    flat_rows = rows;
    free(flat_pool);
    flat_pool = (uint8_t *)malloc(rows * 64 + 64);
    for (c = 0; c < NFLAT; c++) {
        int32_t t = flat_types[c];
        if (c == F_I96 && !with_int96)
            t = UPQ_TYPE_INT64;
        free(flat[c].def);
        free(flat[c].vals);
        flat[c].def = (uint16_t *)calloc(rows + 1, sizeof(uint16_t));
        flat[c].rep = NULL;
        flat[c].vals = calloc(rows + 1, wu_value_size(t));
        flat[c].n = rows;
        flat[c].nv = 0;
    }
    for (i = 0; i < rows; i++) {
        for (c = 0; c < NFLAT; c++) {
            col_data *d = &flat[c];
            uint8_t *v;
            int32_t t = flat_types[c];
            int null = c != F_I64 && tu_rand_below(&rng, 100) < 12;
            if (c == F_I96 && !with_int96)
                t = UPQ_TYPE_INT64;
            d->def[i] = null ? 0 : 1;
            if (null)
                continue;
            v = (uint8_t *)d->vals + d->nv * wu_value_size(t);
            d->nv++;
            switch (c) {
            case F_B: *v = (uint8_t)tu_rand_below(&rng, 2); break;
            case F_I32: {
                int32_t x = (int32_t)tu_rand_below(&rng, 100) - 50;
                if (tu_rand_below(&rng, 50) == 0)
                    x = (int32_t)tu_rand(&rng);
                memcpy(v, &x, 4);
                break;
            }
            case F_I64: {
                int64_t x = (int64_t)i * 1000 + (int64_t)tu_rand_below(&rng, 7) + 1600000000000000;
                memcpy(v, &x, 8);
                break;
            }
            case F_I96:
                if (with_int96) {
                    /* nanoseconds of the day, Julian day */
                    uint64_t ns = tu_rand_below(&rng, 86400ull * 1000000000ull);
                    uint32_t day = 2440588u + (uint32_t)tu_rand_below(&rng, 20000);
                    upq_store_le64(v, ns - ns % 1000);
                    upq_store_le32(v + 8, day);
                } else {
                    int64_t x = (int64_t)tu_rand_below(&rng, 1000000) - 500000;
                    memcpy(v, &x, 8);
                }
                break;
            case F_F: {
                float x = fvals[tu_rand_below(&rng, 6)];
                memcpy(v, &x, 4);
                break;
            }
            case F_D: {
                double x = (double)(int64_t)tu_rand_below(&rng, 1000000) / 64.0 - 5000.0;
                memcpy(v, &x, 8);
                break;
            }
            case F_S: {
                upq_bytes b;
                unsigned k = (unsigned)tu_rand_below(&rng, 300), len;
                char tmp[64];
                len = (unsigned)snprintf(tmp, sizeof tmp, "%s%u",
                                         k % 10 == 0 ? "" : k % 3 ? "value-" : "zz-longer-string-",
                                         k % 10 == 0 ? 0u : k);
                if (k == 0)
                    len = 0;
                memcpy(flat_pool + pool_used, tmp, len);
                b.ptr = flat_pool + pool_used;
                b.len = len;
                pool_used += len;
                memcpy(v, &b, sizeof b);
                break;
            }
            case F_FL:
            case F_DEC:
            case F_H: {
                upq_bytes b;
                unsigned w = c == F_FL ? 5 : c == F_DEC ? 4 : 2, j;
                uint32_t r = (uint32_t)tu_rand_below(&rng, 40);
                for (j = 0; j < w; j++)
                    flat_pool[pool_used + j] = (uint8_t)(r * (j + 3) + j);
                if (c == F_DEC) /* within DECIMAL(9,2): |x| < 10^9 */
                    upq_store_be32(flat_pool + pool_used,
                                   (uint32_t)((int32_t)(r * 24999997u) * ((r & 1) ? -1 : 1)));
                if (c == F_H)
                    upq_store_le16(flat_pool + pool_used, (uint16_t)(0x3C00u + r * 37u - 200u));
                b.ptr = flat_pool + pool_used;
                b.len = w;
                pool_used += w;
                memcpy(v, &b, sizeof b);
                break;
            }
            case F_U32: {
                uint32_t x = (uint32_t)tu_rand_below(&rng, 10) * 0x30000000u + 7u;
                memcpy(v, &x, 4);
                break;
            }
            default: break;
            }
        }
    }
}

typedef struct wcfg {
    const char *name;
    int32_t codec;
    uint8_t v2, checkpoint, read_at, no_crc, no_stats, no_pi;
    uint32_t page_size, dict_size, page_levels;
    uint64_t rg_rows, rg_bytes;
    int encs;      /* 0: defaults, 1: other encodings, dictionary off, 2: the same with a dictionary */
    int dict_off;  /* dictionary off everywhere */
    int sink_mode; /* for the reference run */
    uint8_t direct; /* no chunk buffers: one page per column and row group (ignored in
                       checkpoint mode) */
    uint64_t ckpt_rows; /* checkpoint mode: a checkpoint every this many rows */
} wcfg;

/* Checkpoint mode: the most rows a row group takes (row_group_rows, 65536
 * by default: never fewer because of RAM; fewer only when a column's region,
 * sized from an estimate, cannot take another page). */
static uint64_t ckpt_rg_rows(const wcfg *k)
{
    return k->rg_rows ? k->rg_rows : 65536u;
}

/* Checkpoint mode: where the row groups of the written file s ended while
 * rows were taken (not at close), as row counts: every row group's end but
 * the last one's, which counts only when it ended at its row limit. lim[i]
 * says whether bound i is such a limit (else the writer ended the row group
 * early, which it finds out when the next row comes). *nb gets how many (the
 * arrays are malloc'd; NULL when unreadable). */
static uint64_t *ckpt_bounds(const wcfg *k, const sink_buf *s, size_t *nb, uint8_t **lim)
{
    rfile f;
    uint64_t *b = NULL, sum = 0;
    *nb = 0;
    *lim = NULL;
    if (rfile_open(&f, s->p, s->n) == UPQ_OK) {
        const upq_file_metadata *m = upq_reader_metadata(&f.r);
        uint32_t g;
        b = (uint64_t *)malloc(((size_t)m->row_groups.n + 1u) * sizeof *b);
        *lim = (uint8_t *)malloc((size_t)m->row_groups.n + 1u);
        for (g = 0; g < m->row_groups.n; g++) {
            int at_limit = (uint64_t)m->row_groups.v[g].num_rows == ckpt_rg_rows(k);
            sum += (uint64_t)m->row_groups.v[g].num_rows;
            if (g + 1u < m->row_groups.n || at_limit) {
                (*lim)[*nb] = (uint8_t)at_limit;
                b[(*nb)++] = sum;
            }
        }
    }
    rfile_close(&f);
    return b;
}

/* Checkpoint mode: what upq_writer_rows_durable() may say once `rows` rows
 * were taken and the output they set off is done: [*lo, *hi], the later of
 * the last row group end and the last multiple of checkpoint_rows; a row
 * group the writer ended early may be written out only with the next row. */
static void ckpt_durable(const wcfg *k, const uint64_t *b, const uint8_t *lim, size_t nb,
                         uint64_t rows, uint64_t *lo, uint64_t *hi)
{
    uint64_t c = k->ckpt_rows ? rows / k->ckpt_rows * k->ckpt_rows : 0;
    size_t i;
    *lo = *hi = c;
    for (i = 0; i < nb && b[i] <= rows; i++) {
        if (b[i] > *hi)
            *hi = b[i];
        if ((lim[i] || b[i] < rows) && b[i] > *lo)
            *lo = b[i];
    }
}

/* Is d a row count where the file (bounds b) had a row group end or
 * checkpoint (row-wise: checkpoints fall on multiples of checkpoint_rows)? */
static int ckpt_row(const wcfg *k, const uint64_t *b, size_t nb, uint64_t d)
{
    size_t i;
    if (d == 0 || (k->ckpt_rows && d % k->ckpt_rows == 0))
        return 1;
    for (i = 0; i < nb; i++)
        if (b[i] == d)
            return 1;
    return 0;
}

/* Checkpoint mode: log[r] holds upq_writer_rows_durable() after r + 1 rows
 * of the file s were taken row-wise: each must be the last row group end or
 * checkpoint by then, and never go back. */
static void check_durable_log(const wcfg *k, const sink_buf *s, const uint64_t *log, size_t rows,
                              const char *what)
{
    size_t nb = 0, r;
    unsigned long bad = 0;
    uint8_t *lim = NULL;
    uint64_t *b = ckpt_bounds(k, s, &nb, &lim);
    if (!TU_CHECK_MSG(b != NULL, "%s: the file does not read back", what))
        return;
    for (r = 0; r < rows; r++) {
        uint64_t lo, hi;
        ckpt_durable(k, b, lim, nb, r + 1, &lo, &hi);
        if ((log[r] < lo || log[r] > hi || (r && log[r] < log[r - 1]) || !ckpt_row(k, b, nb, log[r])) &&
            bad++ < 3)
            printf("  %s: after %zu rows, %llu durable, want %llu..%llu\n", what, r + 1,
                   (unsigned long long)log[r], (unsigned long long)lo, (unsigned long long)hi);
    }
    TU_CHECK_MSG(bad == 0, "%s: rows durable wrong after %lu of %zu rows", what, bad, rows);
    free(b);
    free(lim);
}

/* The same once every row was taken column-wise: a checkpoint is made at a
 * row every column has, so it may cover more than a multiple of
 * checkpoint_rows, but never less, and no row not taken. */
static void check_durable_at_end(const wcfg *k, const sink_buf *s, uint64_t durable, size_t rows,
                                 const char *what)
{
    size_t nb = 0;
    uint8_t *lim = NULL;
    uint64_t lo, hi, *b = ckpt_bounds(k, s, &nb, &lim);
    if (!TU_CHECK_MSG(b != NULL, "%s: the file does not read back", what))
        return;
    ckpt_durable(k, b, lim, nb, rows, &lo, &hi);
    TU_CHECK_MSG(durable >= lo && durable <= rows,
                 "%s: %llu rows durable before close, want %llu..%zu", what,
                 (unsigned long long)durable, (unsigned long long)lo, rows);
    free(b);
    free(lim);
}

/* Checkpoint mode: a row group's regions are sized from an estimate, and a
 * row group ends early when a column's region cannot take another page
 * (e.g. a dictionary falling back to PLAIN mid row group). So every row group
 * of the footer m holds at least one row and at most `rg`, they add up to the
 * file's rows, and those are exactly the `rows` written. Returns the number
 * of row groups that ended early (before their row limit, the last one not
 * counted). */
static uint32_t check_rg_rows(const upq_file_metadata *m, uint64_t rg, uint64_t rows,
                              const char *what)
{
    uint64_t sum = 0;
    uint32_t g, bad = 0, early = 0;
    TU_CHECK_MSG((uint64_t)m->num_rows == rows, "%s: the file holds %lld rows, %llu written", what,
                 (long long)m->num_rows, (unsigned long long)rows);
    TU_CHECK_MSG(m->row_groups.n >= (rows + rg - 1) / rg && m->row_groups.n <= rows,
                 "%s: %u row groups for %llu rows of at most %llu", what, m->row_groups.n,
                 (unsigned long long)rows, (unsigned long long)rg);
    for (g = 0; g < m->row_groups.n; g++) {
        int64_t n = m->row_groups.v[g].num_rows;
        if ((n < 1 || (uint64_t)n > rg) && bad++ < 3)
            printf("  %s: row group %u holds %lld rows, want 1..%llu\n", what, g, (long long)n,
                   (unsigned long long)rg);
        if (n > 0)
            sum += (uint64_t)n;
        if (g + 1u < m->row_groups.n && n > 0 && (uint64_t)n < rg)
            early++;
    }
    TU_CHECK_MSG(bad == 0, "%s: %u row groups hold more than row_group_rows rows or none", what,
                 bad);
    TU_CHECK_MSG(sum == rows, "%s: the row groups hold %llu rows, %llu written", what,
                 (unsigned long long)sum, (unsigned long long)rows);
    return early;
}

/* The same for the written file s of configuration k. */
static void check_ckpt_row_groups(const wcfg *k, const sink_buf *s, size_t rows, const char *what)
{
    rfile f;
    if (TU_CHECK_STATUS(rfile_open(&f, s->p, s->n), UPQ_OK))
        check_rg_rows(upq_reader_metadata(&f.r), ckpt_rg_rows(k), rows, what);
    rfile_close(&f);
}

static upq_column_opts flat_copts[NFLAT];
static upq_key_value flat_kv[2];
static upq_sorting_column flat_sort[2];

static void fill_opts(upq_writer_opts *o, const wcfg *k)
{
    int c;
    memset(o, 0, sizeof *o);
    o->codec = k->codec;
    o->data_page_v2 = k->v2;
    o->checkpoint = k->checkpoint;
    o->no_crc = k->no_crc;
    o->no_statistics = k->no_stats;
    o->no_page_index = k->no_pi;
    o->page_size = k->page_size;
    o->page_levels = k->page_levels;
    o->dict_size = k->dict_size;
    o->row_group_rows = k->rg_rows;
    o->row_group_bytes = k->rg_bytes;
    o->direct = k->direct;
    o->checkpoint_rows = k->ckpt_rows;
    for (c = 0; c < NFLAT; c++) {
        flat_copts[c].encoding = -1;
        flat_copts[c].dictionary = k->dict_off ? 0 : -1;
    }
    if (k->encs) {
        flat_copts[F_B].encoding = UPQ_ENC_RLE;
        flat_copts[F_I32].encoding = UPQ_ENC_DELTA_BINARY_PACKED;
        flat_copts[F_I64].encoding = UPQ_ENC_DELTA_BINARY_PACKED;
        flat_copts[F_F].encoding = UPQ_ENC_BYTE_STREAM_SPLIT;
        flat_copts[F_D].encoding = UPQ_ENC_BYTE_STREAM_SPLIT;
        flat_copts[F_S].encoding = UPQ_ENC_DELTA_LENGTH_BYTE_ARRAY;
        flat_copts[F_FL].encoding = UPQ_ENC_DELTA_BYTE_ARRAY;
        flat_copts[F_U32].encoding = UPQ_ENC_DELTA_BINARY_PACKED;
        for (c = 0; c < NFLAT; c++)
            flat_copts[c].dictionary = (k->encs == 2 && c != F_B) ? 1 : 0;
    }
    o->columns = flat_copts;
    o->ncolumns = NFLAT;
    if (k->checkpoint) {
        /* footer extras: key-value metadata and sorting columns */
        memset(flat_kv, 0, sizeof flat_kv);
        flat_kv[0].isset = (1u << UPQ_KEY_VALUE_KEY) | (1u << UPQ_KEY_VALUE_VALUE);
        flat_kv[0].key.ptr = (const uint8_t *)"origin";
        flat_kv[0].key.len = 6;
        flat_kv[0].value.ptr = (const uint8_t *)"test_writer";
        flat_kv[0].value.len = 11;
        flat_kv[1].isset = 1u << UPQ_KEY_VALUE_KEY;
        flat_kv[1].key.ptr = (const uint8_t *)"no value";
        flat_kv[1].key.len = 8;
        memset(flat_sort, 0, sizeof flat_sort);
        flat_sort[0].isset = flat_sort[1].isset = 0xEu;
        flat_sort[0].column_idx = F_I64;
        flat_sort[1].column_idx = F_S;
        flat_sort[1].descending = 1;
        o->kv = flat_kv;
        o->nkv = 2;
        o->sorting = flat_sort;
        o->nsorting = 2;
    }
}

/* Writes the flat data row by row. Returns the status of close. In
 * checkpoint mode, after every row (and the output it set off) the rows
 * durable must be those of the last row group end or checkpoint. */
static upq_status write_flat(const wcfg *k, sink_buf *s, size_t rows, upq_writer *w,
                             uint8_t **arena_out)
{
    upq_writer_opts o;
    upq_sink sink = sink_of(s, k->read_at);
    size_t need = 0, need_more = 0, i, vpos[NFLAT] = {0};
    uint64_t *durable = k->checkpoint ? (uint64_t *)calloc(rows + 1, sizeof(uint64_t)) : NULL;
    uint8_t *arena;
    upq_status st;
    int c;
    fill_opts(&o, k);
    st = upq_writer_workspace_size(flat_elems, flat_n, &o, k->read_at && k->checkpoint ? 0 : 300,
                                   &need);
    if (!TU_CHECK_STATUS(st, UPQ_OK)) {
        free(durable);
        return st;
    }
    if (k->checkpoint) {
        /* the metadata of finished row groups is in the file, not in RAM */
        TU_CHECK_STATUS(upq_writer_workspace_size(flat_elems, flat_n, &o, 1000, &need_more), UPQ_OK);
        TU_CHECK_UINT(need_more, need);
    }
    arena = (uint8_t *)malloc(need);
    *arena_out = arena;
    st = upq_writer_init(w, &sink, flat_elems, flat_n, arena, need, &o);
    if (!TU_CHECK_MSG(st == UPQ_OK, "%s: init %s (%s)", k->name, upq_strerror(st),
                      upq_writer_error(w)->what ? upq_writer_error(w)->what : "")) {
        free(durable);
        return st;
    }
    for (i = 0; i < rows; i++) {
        for (c = 0; c < NFLAT; c++) {
            const col_data *d = &flat[c];
            size_t vs = wu_value_size(flat_elems[1 + c].type);
            if (d->def[i]) {
                const uint8_t *v = (const uint8_t *)d->vals + vpos[c]++ * vs;
                WU_RETRY(st, upq_writer_set(w, (uint32_t)c, v));
            } else {
                WU_RETRY(st, upq_writer_set_null(w, (uint32_t)c));
            }
            if (st != UPQ_OK) {
                TU_CHECK_MSG(0, "%s: set row %zu column %d: %s (%s)", k->name, i, c,
                             upq_strerror(st), upq_writer_error(w)->what);
                free(durable);
                return st;
            }
        }
        WU_RETRY(st, upq_writer_end_row(w));
        if (st != UPQ_OK) {
            TU_CHECK_MSG(0, "%s: end_row %zu: %s (%s)", k->name, i, upq_strerror(st),
                         upq_writer_error(w)->what);
            free(durable);
            return st;
        }
        if (k->checkpoint) {
            /* the output the row set off done, what it made durable */
            WU_RETRY(st, upq_writer_poll(w));
            if (st != UPQ_OK) {
                TU_CHECK_MSG(0, "%s: poll after row %zu: %s (%s)", k->name, i, upq_strerror(st),
                             upq_writer_error(w)->what);
                free(durable);
                return st;
            }
            durable[i] = upq_writer_rows_durable(w);
        }
    }
    WU_RETRY(st, upq_writer_close(w));
    TU_CHECK_MSG(st == UPQ_OK, "%s: close %s (%s)", k->name, upq_strerror(st),
                 upq_writer_error(w)->what ? upq_writer_error(w)->what : "");
    if (st == UPQ_OK && k->checkpoint) {
        TU_CHECK_UINT(upq_writer_rows_durable(w), rows);
        check_durable_log(k, s, durable, rows, k->name);
    }
    free(durable);
    return st;
}

/* Writes the flat data column-wise in batches of `batch` rows (runs: as
 * runs, upq_writer_put_run, of `batch` entries). */
static upq_status write_flat_columns(const wcfg *k, sink_buf *s, size_t batch, uint8_t **arena_out,
                                     int runs)
{
    upq_writer_opts o;
    upq_writer w;
    upq_sink sink = sink_of(s, k->read_at);
    size_t need = 0;
    uint64_t durable = 0;
    int32_t types[NFLAT];
    uint16_t reps[NFLAT] = {0};
    upq_status st;
    int c;
    fill_opts(&o, k);
    for (c = 0; c < NFLAT; c++)
        types[c] = flat_elems[1 + c].type;
    st = upq_writer_workspace_size(flat_elems, flat_n, &o, k->read_at && k->checkpoint ? 0 : 300,
                                   &need);
    if (!TU_CHECK_STATUS(st, UPQ_OK))
        return st;
    *arena_out = (uint8_t *)malloc(need);
    st = upq_writer_init(&w, &sink, flat_elems, flat_n, *arena_out, need, &o);
    if (!TU_CHECK_STATUS(st, UPQ_OK))
        return st;
    st = runs ? wu_put_runs(&w, flat, NFLAT, types, flat_def, batch)
              : wu_write_columns(&w, flat, NFLAT, types, flat_def, reps, batch);
    if (!TU_CHECK_MSG(st == UPQ_OK, "%s: column-wise: %s (%s)", k->name, upq_strerror(st),
                      upq_writer_error(&w)->what ? upq_writer_error(&w)->what : ""))
        return st;
    if (k->checkpoint) {
        WU_RETRY(st, upq_writer_poll(&w));
        TU_CHECK_STATUS(st, UPQ_OK);
        TU_CHECK_UINT(upq_writer_rows(&w), flat_rows);
        durable = upq_writer_rows_durable(&w);
    }
    WU_RETRY(st, upq_writer_close(&w));
    TU_CHECK_STATUS(st, UPQ_OK);
    if (st == UPQ_OK && k->checkpoint) {
        /* every column had every row: durable as row-wise, and all at close */
        check_durable_at_end(k, s, durable, flat_rows, k->name);
        TU_CHECK_UINT(upq_writer_rows_durable(&w), flat_rows);
    }
    return st;
}

static void compare_flat(const sink_buf *s, size_t rows, const char *what)
{
    rfile f;
    int c;
    upq_status st = rfile_open(&f, s->p, s->n);
    if (TU_CHECK_MSG(st == UPQ_OK, "%s: reading back: %s (%s)", what, upq_strerror(st),
                     upq_reader_error(&f.r)->what ? upq_reader_error(&f.r)->what : "")) {
        TU_CHECK_INT(upq_reader_metadata(&f.r)->num_rows, rows);
        for (c = 0; c < NFLAT; c++) {
            int32_t t = flat_elems[1 + c].type;
            TU_CHECK_INT(wu_compare_column(&f, (uint32_t)c, t, flat_def[c], 0, &flat[c], what), 0);
        }
    }
    rfile_close(&f);
}

static void test_flat(void)
{
    static const wcfg cfgs[] = {
        {"v1_plain_defaults", UPQ_CODEC_UNCOMPRESSED, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {"v2_snappy", UPQ_CODEC_SNAPPY, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {"v1_gzip_tiny_pages", UPQ_CODEC_GZIP, 0, 0, 0, 0, 0, 0, 64, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {"v2_lz4raw_tiny_many_rg", UPQ_CODEC_LZ4_RAW, 1, 0, 0, 0, 0, 0, 64, 0, 0, 97, 0, 0, 0, 0, 0, 0},
        {"v1_lz4hadoop_nodict", UPQ_CODEC_LZ4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0},
        {"v1_snappy_dict_fallback", UPQ_CODEC_SNAPPY, 0, 0, 0, 0, 0, 0, 512, 96, 0, 0, 0, 0, 0, 0, 0, 0},
        {"v2_gzip_other_encodings", UPQ_CODEC_GZIP, 1, 0, 0, 0, 0, 0, 1024, 0, 0, 0, 0, 1, 0, 0, 0, 0},
        {"v1_other_encodings_fallback", UPQ_CODEC_UNCOMPRESSED, 0, 0, 0, 0, 0, 0, 2048, 200, 0, 0, 0, 2, 0, 0, 0, 0},
        {"v1_checkpoint", UPQ_CODEC_SNAPPY, 0, 1, 1, 0, 0, 0, 0, 0, 0, 500, 0, 0, 0, 0, 0, 0},
        {"v2_checkpoint_nocrc_nopi", UPQ_CODEC_UNCOMPRESSED, 1, 1, 1, 1, 0, 1, 256, 0, 0, 333, 0, 0, 0, 0, 0, 0},
        {"v2_nostats_nopi", UPQ_CODEC_LZ4_RAW, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {"v1_rg_bytes", UPQ_CODEC_UNCOMPRESSED, 0, 0, 0, 0, 0, 0, 512, 0, 0, 0, 4096, 0, 0, 0, 0, 0},
        {"v1_levels_16", UPQ_CODEC_SNAPPY, 0, 0, 0, 0, 0, 0, 4096, 0, 16, 0, 0, 0, 0, 0, 0, 0},
        {"v1_direct_defaults", UPQ_CODEC_UNCOMPRESSED, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0},
        {"v2_snappy_direct_dict_fallback", UPQ_CODEC_SNAPPY, 1, 0, 0, 0, 0, 0, 512, 96, 0, 0, 0, 0, 0, 0, 1, 0},
        /* direct is ignored in checkpoint mode */
        {"v1_gzip_direct_checkpoint", UPQ_CODEC_GZIP, 0, 1, 1, 0, 0, 0, 1024, 0, 0, 500, 0, 0, 0, 0, 1, 0},
        {"v1_lz4raw_direct_other_encodings", UPQ_CODEC_LZ4_RAW, 0, 0, 0, 0, 0, 0, 2048, 200, 0, 0, 0, 2, 0, 0, 1, 0},
        {"v2_direct_checkpoint_nocrc_nopi", UPQ_CODEC_UNCOMPRESSED, 1, 1, 1, 1, 0, 1, 256, 0, 0, 333, 0, 0, 0, 0, 1, 0},
        /* checkpoints every N rows inside row groups of at most row_group_rows */
        {"v1_checkpoint_rows_other_encodings_fallback", UPQ_CODEC_UNCOMPRESSED, 0, 1, 1, 0, 0, 0, 512, 200, 0, 1000, 0, 2, 0, 0, 0, 70},
        {"v2_lz4raw_checkpoint_rows_tiny_pages", UPQ_CODEC_LZ4_RAW, 1, 1, 1, 0, 0, 0, 64, 0, 0, 700, 0, 0, 0, 0, 0, 128},
        /* the default row group (up to 65536 rows), whatever the pages */
        {"v2_snappy_checkpoint_rows_default_rg", UPQ_CODEC_SNAPPY, 1, 1, 1, 0, 0, 0, 128, 0, 0, 0, 0, 1, 0, 0, 0, 1000},
    };
    size_t rows = 3000, k;
    int pass;
    for (pass = 0; pass < 2; pass++) {
        /* pass 0: every type, INT96 and FLOAT16 included; pass 1: the types
         * DuckDB reads back as written (its files go to the DuckDB check) */
        build_flat_schema(pass == 0);
        gen_flat(rows, tu_seed() + (uint64_t)pass, pass == 0);
        for (k = 0; k < sizeof cfgs / sizeof cfgs[0]; k++) {
            const wcfg *cfg = &cfgs[k];
            sink_buf ref, alt;
            upq_writer w;
            uint8_t *arena = NULL;
            int m;
            char name[128];
            snprintf(name, sizeof name, "flat%s_%s", pass ? "" : "_all", cfg->name);
            tu_case("%s", name);
            sink_init(&ref, SINK_WHOLE, 1);
            if (write_flat(cfg, &ref, rows, &w, &arena) == UPQ_OK) {
                compare_flat(&ref, rows, name);
                if (cfg->checkpoint) {
                    rfile f;
                    if (TU_CHECK_STATUS(rfile_open(&f, ref.p, ref.n), UPQ_OK)) {
                        const upq_file_metadata *m = upq_reader_metadata(&f.r);
                        TU_CHECK_UINT(m->key_value_metadata.n, 2);
                        TU_CHECK(m->key_value_metadata.n == 2 &&
                                 bytes_is(m->key_value_metadata.v[0].value, "test_writer") &&
                                 !UPQ_ISSET(m->key_value_metadata.v[1], UPQ_KEY_VALUE_VALUE));
                        TU_CHECK(m->row_groups.n > 0 && m->row_groups.v[0].sorting_columns.n == 2 &&
                                 m->row_groups.v[0].sorting_columns.v[1].descending == 1);
                    }
                    rfile_close(&f);
                }
                check_footer_canonical(ref.p, ref.n, name);
                if (cfg->checkpoint) {
                    /* row groups of at most row_group_rows, whatever the RAM */
                    TU_CHECK_UINT(upq_writer_rows_durable(&w), rows);
                    check_ckpt_row_groups(cfg, &ref, rows, name);
                } else {
                    if (cfg->rg_rows && !cfg->page_size) /* small pages also end row groups */
                        TU_CHECK_UINT(w.num_rg, (rows + cfg->rg_rows - 1) / cfg->rg_rows);
                    if (cfg->rg_rows)
                        TU_CHECK(w.num_rg >= (rows + cfg->rg_rows - 1) / cfg->rg_rows);
                }
                if ((pass == 1 || k == 0) && cfg->codec != UPQ_CODEC_LZ4)
                    save_file(name, &ref); /* DuckDB does not read Hadoop-framed LZ4 */
            }
            free(arena);
            /* the same data column-wise, in batches of 1 and 250 rows */
            if (k % 2 == 0) {
                size_t batch;
                for (batch = 1; batch <= 250; batch += 249) {
                    if (!tu_repeat_keep())
                        continue; /* thinned under emulation (UPQ_TEST_REPEAT) */
                    sink_init(&alt, batch == 1 ? SINK_WHOLE : SINK_AGAIN, tu_seed() + k);
                    arena = NULL;
                    if (write_flat_columns(cfg, &alt, batch, &arena, 0) == UPQ_OK) {
                        compare_flat(&alt, rows, name);
                        check_footer_canonical(alt.p, alt.n, name);
                        if (cfg->checkpoint)
                            check_ckpt_row_groups(cfg, &alt, rows, name);
                    }
                    free(arena);
                    sink_free(&alt);
                }
            }
            /* the same data as runs: of one entry, the same file as row-wise
             * (pages, row groups and checkpoints fall at the same rows; in
             * checkpoint mode the regions are sized from the rows staged when
             * the first page is ready, one more in the columns already put,
             * so only the rows and values are the same); of 1,000 through a
             * sink that says "again", the same values */
            {
                size_t batch;
                for (batch = 1; batch <= 1000; batch += 999) {
                    if (batch == 1 && !tu_repeat_keep())
                        continue;
                    sink_init(&alt, batch == 1 ? SINK_WHOLE : SINK_AGAIN, tu_seed() + k * 5u);
                    arena = NULL;
                    if (write_flat_columns(cfg, &alt, batch, &arena, 1) == UPQ_OK) {
                        compare_flat(&alt, rows, name);
                        check_footer_canonical(alt.p, alt.n, name);
                        if (batch == 1 && !cfg->checkpoint)
                            TU_CHECK_MSG(alt.n == ref.n && memcmp(alt.p, ref.p, ref.n) == 0,
                                         "%s: runs of one wrote different bytes (%zu vs %zu)",
                                         name, alt.n, ref.n);
                        if (cfg->checkpoint)
                            check_ckpt_row_groups(cfg, &alt, rows, name);
                        if (batch > 1 && pass == 1 && cfg->codec != UPQ_CODEC_LZ4) {
                            char rn[160];
                            snprintf(rn, sizeof rn, "%s_runs", name);
                            save_file(rn, &alt); /* DuckDB reads it too */
                        }
                    }
                    free(arena);
                    sink_free(&alt);
                }
            }
            /* the same file through sinks that take little at a time */
            for (m = SINK_ONE; m <= SINK_AGAIN; m++) {
                if (m == SINK_ONE && (k % 3) != 0)
                    continue; /* 1-byte runs are slow: a third of the configurations */
                if (!tu_repeat_keep())
                    continue;
                sink_init(&alt, m, tu_seed() + k * 7u + (uint64_t)m);
                arena = NULL;
                if (write_flat(cfg, &alt, rows, &w, &arena) == UPQ_OK)
                    TU_CHECK_MSG(alt.n == ref.n && memcmp(alt.p, ref.p, ref.n) == 0,
                                 "%s: sink mode %d wrote different bytes (%zu vs %zu)", name, m,
                                 alt.n, ref.n);
                free(arena);
                sink_free(&alt);
            }
            sink_free(&ref);
        }
    }
}

/* ---- nested data, column-wise --------------------------------------------------- */

/* id INT64; tags LIST<STRING?>?; m MAP<STRING, INT64?>?; s STRUCT{a INT32?, b DOUBLE}?;
 * ll LIST<LIST<INT32?>> (both lists required) */
enum { N_ID, N_TAG, N_KEY, N_VAL, N_SA, N_SB, N_LL, NNEST };
static const int32_t nest_types[NNEST] = {UPQ_TYPE_INT64, UPQ_TYPE_BYTE_ARRAY, UPQ_TYPE_BYTE_ARRAY,
                                          UPQ_TYPE_INT64, UPQ_TYPE_INT32, UPQ_TYPE_DOUBLE,
                                          UPQ_TYPE_INT32};
static const uint16_t nest_def[NNEST] = {0, 3, 2, 3, 2, 1, 3};
static const uint16_t nest_rep[NNEST] = {0, 1, 1, 1, 0, 0, 2};
static upq_schema_element nest_elems[32];
static uint32_t nest_n;
static col_data nest[NNEST];
static uint8_t *nest_pool;

static void build_nest_schema(void)
{
    upq_schema_builder b;
    upq_logical_type lt;
    upq_sb_init(&b, nest_elems, 32, "nested");
    upq_sb_column(&b, "id", UPQ_REP_REQUIRED, UPQ_TYPE_INT64, 0, NULL);
    upq_sb_list(&b, "tags", UPQ_REP_OPTIONAL);
    upq_lt_string(&lt);
    upq_sb_column(&b, "element", UPQ_REP_OPTIONAL, UPQ_TYPE_BYTE_ARRAY, 0, &lt);
    upq_sb_end_list(&b);
    upq_sb_map(&b, "m", UPQ_REP_OPTIONAL);
    upq_sb_column(&b, "key", UPQ_REP_REQUIRED, UPQ_TYPE_BYTE_ARRAY, 0, &lt);
    upq_sb_column(&b, "value", UPQ_REP_OPTIONAL, UPQ_TYPE_INT64, 0, NULL);
    upq_sb_end_map(&b);
    upq_sb_group(&b, "s", UPQ_REP_OPTIONAL, NULL);
    upq_sb_column(&b, "a", UPQ_REP_OPTIONAL, UPQ_TYPE_INT32, 0, NULL);
    upq_sb_field_id(&b, 42);
    upq_sb_column(&b, "b", UPQ_REP_REQUIRED, UPQ_TYPE_DOUBLE, 0, NULL);
    upq_sb_end(&b);
    upq_sb_list(&b, "ll", UPQ_REP_REQUIRED);
    upq_sb_list(&b, "element", UPQ_REP_REQUIRED);
    upq_sb_column(&b, "element", UPQ_REP_OPTIONAL, UPQ_TYPE_INT32, 0, NULL);
    upq_sb_end_list(&b);
    upq_sb_end_list(&b);
    TU_CHECK_STATUS(upq_sb_finish(&b, &nest_n), UPQ_OK);
}

static void push_level(col_data *d, size_t *cap, uint16_t def, uint16_t rep)
{
    if (d->n == *cap) {
        *cap = *cap * 2 + 64;
        d->def = (uint16_t *)realloc(d->def, *cap * sizeof(uint16_t));
        d->rep = (uint16_t *)realloc(d->rep, *cap * sizeof(uint16_t));
        d->vals = realloc(d->vals, *cap * 16);
    }
    d->def[d->n] = def;
    d->rep[d->n] = rep;
    d->n++;
}

static void push_value(col_data *d, int32_t t, const void *v)
{
    memcpy((uint8_t *)d->vals + d->nv * wu_value_size(t), v, wu_value_size(t));
    d->nv++;
}

static upq_bytes pool_str(size_t *used, uint64_t *rng, unsigned range)
{
    upq_bytes b;
    char tmp[32];
    unsigned k = (unsigned)tu_rand_below(rng, range);
    int len = snprintf(tmp, sizeof tmp, "k%u", k * 7u);
    memcpy(nest_pool + *used, tmp, (size_t)len);
    b.ptr = nest_pool + *used;
    b.len = (uint32_t)len;
    *used += (size_t)len;
    return b;
}

static void gen_nest(size_t rows, uint64_t seed)
{
    size_t caps[NNEST] = {0}, used = 0, r;
    uint64_t rng = seed;
    int c;
    free(nest_pool);
    nest_pool = (uint8_t *)malloc(rows * 400 + 64);
    for (c = 0; c < NNEST; c++) {
        free(nest[c].def);
        free(nest[c].rep);
        free(nest[c].vals);
        memset(&nest[c], 0, sizeof nest[c]);
    }
    for (r = 0; r < rows; r++) {
        int64_t id = (int64_t)r;
        unsigned k, j, kind;
        push_level(&nest[N_ID], &caps[N_ID], 0, 0);
        push_value(&nest[N_ID], UPQ_TYPE_INT64, &id);
        /* tags: null, empty, or 1..5 elements, some null */
        kind = (unsigned)tu_rand_below(&rng, 10);
        if (kind == 0) {
            push_level(&nest[N_TAG], &caps[N_TAG], 0, 0);
        } else if (kind == 1) {
            push_level(&nest[N_TAG], &caps[N_TAG], 1, 0);
        } else {
            k = 1 + (unsigned)tu_rand_below(&rng, 5);
            for (j = 0; j < k; j++) {
                int null = tu_rand_below(&rng, 8) == 0;
                push_level(&nest[N_TAG], &caps[N_TAG], null ? 2 : 3, j ? 1 : 0);
                if (!null) {
                    upq_bytes b = pool_str(&used, &rng, 50);
                    push_value(&nest[N_TAG], UPQ_TYPE_BYTE_ARRAY, &b);
                }
            }
        }
        /* map: null, empty, or 1..4 entries, values sometimes null */
        kind = (unsigned)tu_rand_below(&rng, 10);
        if (kind < 2) {
            push_level(&nest[N_KEY], &caps[N_KEY], (uint16_t)kind, 0);
            push_level(&nest[N_VAL], &caps[N_VAL], (uint16_t)kind, 0);
        } else {
            k = 1 + (unsigned)tu_rand_below(&rng, 4);
            for (j = 0; j < k; j++) {
                int null = tu_rand_below(&rng, 6) == 0;
                char tmp[16];
                upq_bytes b;
                int len = snprintf(tmp, sizeof tmp, "key%u", j);
                int64_t v = (int64_t)tu_rand_below(&rng, 1000) - 300;
                memcpy(nest_pool + used, tmp, (size_t)len);
                b.ptr = nest_pool + used;
                b.len = (uint32_t)len;
                used += (size_t)len;
                push_level(&nest[N_KEY], &caps[N_KEY], 2, j ? 1 : 0);
                push_value(&nest[N_KEY], UPQ_TYPE_BYTE_ARRAY, &b);
                push_level(&nest[N_VAL], &caps[N_VAL], null ? 2 : 3, j ? 1 : 0);
                if (!null)
                    push_value(&nest[N_VAL], UPQ_TYPE_INT64, &v);
            }
        }
        /* struct: null, or a (maybe null) and b */
        if (tu_rand_below(&rng, 7) == 0) {
            push_level(&nest[N_SA], &caps[N_SA], 0, 0);
            push_level(&nest[N_SB], &caps[N_SB], 0, 0);
        } else {
            int32_t a = (int32_t)tu_rand_below(&rng, 100000) - 50000;
            double bv = (double)r * 0.25;
            int null = tu_rand_below(&rng, 4) == 0;
            push_level(&nest[N_SA], &caps[N_SA], null ? 1 : 2, 0);
            if (!null)
                push_value(&nest[N_SA], UPQ_TYPE_INT32, &a);
            push_level(&nest[N_SB], &caps[N_SB], 1, 0);
            push_value(&nest[N_SB], UPQ_TYPE_DOUBLE, &bv);
        }
        /* ll: 0..3 inner lists of 0..4 elements */
        k = (unsigned)tu_rand_below(&rng, 4);
        if (k == 0) {
            push_level(&nest[N_LL], &caps[N_LL], 0, 0);
        } else {
            for (j = 0; j < k; j++) {
                unsigned e, ne = (unsigned)tu_rand_below(&rng, 5);
                if (ne == 0) {
                    push_level(&nest[N_LL], &caps[N_LL], 1, j ? 1 : 0);
                    continue;
                }
                for (e = 0; e < ne; e++) {
                    int null = tu_rand_below(&rng, 9) == 0;
                    int32_t v = (int32_t)(r * 10 + e);
                    push_level(&nest[N_LL], &caps[N_LL], null ? 2 : 3, e ? 2 : j ? 1 : 0);
                    if (!null)
                        push_value(&nest[N_LL], UPQ_TYPE_INT32, &v);
                }
            }
        }
    }
}

static upq_status write_nest(const wcfg *k, sink_buf *s, size_t batch, uint8_t **arena_out,
                             upq_writer *w)
{
    upq_writer_opts o;
    upq_sink sink = sink_of(s, k->read_at);
    size_t need = 0;
    uint64_t durable = 0;
    upq_status st;
    memset(&o, 0, sizeof o);
    o.codec = k->codec;
    o.data_page_v2 = k->v2;
    o.checkpoint = k->checkpoint;
    o.page_size = k->page_size;
    o.row_group_rows = k->rg_rows;
    o.dict_size = k->dict_size;
    o.direct = k->direct;
    o.checkpoint_rows = k->ckpt_rows;
    st = upq_writer_workspace_size(nest_elems, nest_n, &o, k->read_at && k->checkpoint ? 0 : 300,
                                   &need);
    if (!TU_CHECK_STATUS(st, UPQ_OK))
        return st;
    *arena_out = (uint8_t *)malloc(need);
    st = upq_writer_init(w, &sink, nest_elems, nest_n, *arena_out, need, &o);
    if (!TU_CHECK_STATUS(st, UPQ_OK))
        return st;
    st = wu_write_columns(w, nest, NNEST, nest_types, nest_def, nest_rep, batch);
    if (!TU_CHECK_MSG(st == UPQ_OK, "%s: writing columns: %s (%s)", k->name, upq_strerror(st),
                      upq_writer_error(w)->what ? upq_writer_error(w)->what : ""))
        return st;
    if (k->checkpoint) {
        WU_RETRY(st, upq_writer_poll(w));
        TU_CHECK_STATUS(st, UPQ_OK);
        TU_CHECK_UINT(upq_writer_rows(w), nest[N_ID].n);
        durable = upq_writer_rows_durable(w);
    }
    WU_RETRY(st, upq_writer_close(w));
    TU_CHECK_MSG(st == UPQ_OK, "%s: close %s (%s)", k->name, upq_strerror(st),
                 upq_writer_error(w)->what ? upq_writer_error(w)->what : "");
    if (st == UPQ_OK && k->checkpoint) {
        check_durable_at_end(k, s, durable, nest[N_ID].n, k->name);
        TU_CHECK_UINT(upq_writer_rows_durable(w), nest[N_ID].n);
    }
    return st;
}

static void test_nested(void)
{
    static const wcfg cfgs[] = {
        {"v1_defaults", UPQ_CODEC_UNCOMPRESSED, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {"v2_snappy_tiny_pages", UPQ_CODEC_SNAPPY, 1, 0, 0, 0, 0, 0, 128, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {"v1_gzip_many_rg", UPQ_CODEC_GZIP, 0, 0, 0, 0, 0, 0, 256, 64, 0, 150, 0, 0, 0, 0, 0, 0},
        /* repeated columns in checkpoint mode: DATA_PAGE_V2 pages */
        {"v2_lz4raw_checkpoint", UPQ_CODEC_LZ4_RAW, 1, 1, 1, 0, 0, 0, 512, 0, 0, 400, 0, 0, 0, 0, 0, 0},
        {"v1_direct_snappy", UPQ_CODEC_SNAPPY, 0, 0, 0, 0, 0, 0, 256, 64, 0, 0, 0, 0, 0, 0, 1, 0},
        {"v2_direct_checkpoint", UPQ_CODEC_UNCOMPRESSED, 1, 1, 1, 0, 0, 0, 1024, 0, 0, 400, 0, 0, 0, 0, 1, 0},
        {"v2_snappy_checkpoint_rows_tiny_pages", UPQ_CODEC_SNAPPY, 1, 1, 1, 0, 0, 0, 128, 64, 0, 700, 0, 0, 0, 0, 0, 90},
    };
    static const size_t batches[] = {1, 7, 1000};
    size_t rows = 2000, k, bi;
    build_nest_schema();
    gen_nest(rows, tu_seed() + 99);
    for (k = 0; k < sizeof cfgs / sizeof cfgs[0]; k++) {
        for (bi = 0; bi < sizeof batches / sizeof batches[0]; bi++) {
            const wcfg *cfg = &cfgs[k];
            sink_buf ref, alt;
            upq_writer w;
            uint8_t *arena = NULL;
            char name[128];
            rfile f;
            int c;
            snprintf(name, sizeof name, "nested_%s_batch%zu", cfg->name, batches[bi]);
            tu_case("%s", name);
            sink_init(&ref, SINK_WHOLE, 1);
            if (write_nest(cfg, &ref, batches[bi], &arena, &w) == UPQ_OK) {
                upq_status st = rfile_open(&f, ref.p, ref.n);
                if (TU_CHECK_MSG(st == UPQ_OK, "%s: reading back: %s (%s)", name, upq_strerror(st),
                                 upq_reader_error(&f.r)->what)) {
                    TU_CHECK_INT(upq_reader_metadata(&f.r)->num_rows, rows);
                    for (c = 0; c < NNEST; c++)
                        TU_CHECK_INT(wu_compare_column(&f, (uint32_t)c, nest_types[c], nest_def[c],
                                                       nest_rep[c], &nest[c], name),
                                     0);
                }
                rfile_close(&f);
                check_footer_canonical(ref.p, ref.n, name);
                if (cfg->checkpoint) {
                    TU_CHECK_UINT(upq_writer_rows_durable(&w), rows);
                    check_ckpt_row_groups(cfg, &ref, rows, name);
                }
                if (bi == 1)
                    save_file(name, &ref);
            }
            free(arena);
            sink_init(&alt, k & 1 ? SINK_AGAIN : SINK_ONE, tu_seed() + k + bi);
            arena = NULL;
            if (write_nest(cfg, &alt, batches[bi], &arena, &w) == UPQ_OK)
                TU_CHECK_MSG(alt.n == ref.n && memcmp(alt.p, ref.p, ref.n) == 0,
                             "%s: flaky sink wrote different bytes", name);
            free(arena);
            sink_free(&alt);
            sink_free(&ref);
        }
    }
}

/* ---- the schema builder ------------------------------------------------------------ */

static void test_schema_builder(void)
{
    upq_schema_element e[8];
    upq_schema_builder b;
    upq_logical_type lt;
    uint32_t n = 0;
    tu_case("schema builder: nested layout and legacy annotations");
    build_nest_schema();
    TU_CHECK_UINT(nest_n, 17);
    TU_CHECK_INT(nest_elems[0].num_children, 5);
    TU_CHECK_INT(nest_elems[2].converted_type, UPQ_CONVERTED_LIST);
    TU_CHECK_INT(nest_elems[3].repetition_type, UPQ_REP_REPEATED);
    TU_CHECK(nest_elems[3].name.len == 4 && memcmp(nest_elems[3].name.ptr, "list", 4) == 0);
    TU_CHECK_INT(nest_elems[4].converted_type, UPQ_CONVERTED_UTF8);
    TU_CHECK_INT(nest_elems[5].converted_type, UPQ_CONVERTED_MAP);
    TU_CHECK_INT(nest_elems[6].num_children, 2);
    TU_CHECK_INT(nest_elems[10].field_id, 42);
    TU_CHECK(UPQ_ISSET(nest_elems[10], UPQ_SCHEMA_ELEMENT_FIELD_ID));

    tu_case("schema builder: annotations");
    upq_sb_init(&b, e, 8, NULL);
    upq_lt_decimal(&lt, 20, 3);
    TU_CHECK_STATUS(upq_sb_column(&b, "d", UPQ_REP_REQUIRED, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 9, &lt),
                    UPQ_OK);
    upq_lt_timestamp(&lt, UPQ_TIME_UNIT_MILLIS, 1);
    upq_sb_column(&b, "t", UPQ_REP_OPTIONAL, UPQ_TYPE_INT64, 0, &lt);
    upq_lt_timestamp(&lt, UPQ_TIME_UNIT_NANOS, 0);
    upq_sb_column(&b, "tn", UPQ_REP_OPTIONAL, UPQ_TYPE_INT64, 0, &lt);
    upq_lt_int(&lt, 16, 0);
    upq_sb_column(&b, "u", UPQ_REP_OPTIONAL, UPQ_TYPE_INT32, 0, &lt);
    TU_CHECK_STATUS(upq_sb_finish(&b, &n), UPQ_OK);
    TU_CHECK_INT(e[1].converted_type, UPQ_CONVERTED_DECIMAL);
    TU_CHECK_INT(e[1].precision, 20);
    TU_CHECK_INT(e[1].scale, 3);
    TU_CHECK_INT(e[2].converted_type, UPQ_CONVERTED_TIMESTAMP_MILLIS);
    TU_CHECK(!UPQ_ISSET(e[3], UPQ_SCHEMA_ELEMENT_CONVERTED_TYPE));
    TU_CHECK_INT(e[4].converted_type, UPQ_CONVERTED_UINT_16);

    tu_case("schema builder: errors are sticky");
    upq_sb_init(&b, e, 8, NULL);
    upq_lt_decimal(&lt, 10, 2); /* too precise for INT32 */
    TU_CHECK_STATUS(upq_sb_column(&b, "x", UPQ_REP_REQUIRED, UPQ_TYPE_INT32, 0, &lt), UPQ_ERR_INVAL);
    TU_CHECK_STATUS(upq_sb_column(&b, "y", UPQ_REP_REQUIRED, UPQ_TYPE_INT32, 0, NULL), UPQ_ERR_INVAL);
    TU_CHECK_STATUS(upq_sb_finish(&b, &n), UPQ_ERR_INVAL);
    upq_sb_init(&b, e, 8, NULL);
    upq_sb_group(&b, "g", UPQ_REP_OPTIONAL, NULL);
    TU_CHECK_STATUS(upq_sb_end(&b), UPQ_ERR_INVAL); /* empty group */
    upq_sb_init(&b, e, 8, NULL);
    upq_sb_group(&b, "g", UPQ_REP_OPTIONAL, NULL);
    upq_sb_column(&b, "x", UPQ_REP_REQUIRED, UPQ_TYPE_INT32, 0, NULL);
    TU_CHECK_STATUS(upq_sb_finish(&b, &n), UPQ_ERR_INVAL); /* left open */
    upq_sb_init(&b, e, 2, NULL);
    upq_sb_column(&b, "x", UPQ_REP_REQUIRED, UPQ_TYPE_INT32, 0, NULL);
    TU_CHECK_STATUS(upq_sb_column(&b, "y", UPQ_REP_REQUIRED, UPQ_TYPE_INT32, 0, NULL), UPQ_ERR_BUFFER);
    upq_sb_init(&b, e, 8, NULL);
    upq_lt_string(&lt);
    TU_CHECK_STATUS(upq_sb_column(&b, "x", UPQ_REP_REQUIRED, UPQ_TYPE_INT32, 0, &lt), UPQ_ERR_INVAL);
    upq_sb_init(&b, e, 8, NULL);
    upq_lt_uuid(&lt);
    TU_CHECK_STATUS(upq_sb_column(&b, "x", UPQ_REP_REQUIRED, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 16, &lt),
                    UPQ_OK);
}

/* Schemas the format forbids: each is refused with UPQ_ERR_INVAL and a
 * reason, as `upq write --schema` refuses their text. */
static void sb_variant_group(upq_schema_builder *b, upq_schema_element *e, int version)
{
    upq_logical_type lt;
    memset(&lt, 0, sizeof lt);
    UPQ_SET(lt, UPQ_LOGICAL_TYPE_VARIANT);
    if (version) {
        lt.u.variant.specification_version = (int8_t)version;
        UPQ_SET(lt.u.variant, UPQ_VARIANT_TYPE_SPECIFICATION_VERSION);
    }
    upq_sb_init(b, e, 16, "m");
    upq_sb_group(b, "v", UPQ_REP_OPTIONAL, &lt);
}

static void check_refused(upq_schema_builder *b, upq_status st, const char *why_has)
{
    uint32_t n = 0;
    TU_CHECK_STATUS(st, UPQ_ERR_INVAL);
    TU_CHECK(b->error != NULL && strstr(b->error, why_has) != NULL);
    TU_CHECK_STATUS(upq_sb_finish(b, &n), UPQ_ERR_INVAL); /* sticky */
}

/* Each annotation kind on leaves of fitting and unfitting physical types,
 * and the ConvertedType twin it sets (LogicalTypes.md: STRING is UTF8 on
 * binary, UUID fixed_len_byte_array(16), FLOAT16 fixed_len_byte_array(2),
 * DATE int32, LIST/MAP/VARIANT groups only; UNKNOWN, GEOMETRY and UUID have
 * no twin). */
static void test_schema_annotations(void)
{
    static const struct {
        int kind;
        int32_t type, len;
        upq_status want;
        int32_t twin; /* -1: none */
    } cases[] = {
        { UPQ_LOGICAL_TYPE_STRING, UPQ_TYPE_BYTE_ARRAY, 0, UPQ_OK, UPQ_CONVERTED_UTF8 },
        { UPQ_LOGICAL_TYPE_STRING, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 4, UPQ_ERR_INVAL, -1 },
        { UPQ_LOGICAL_TYPE_ENUM, UPQ_TYPE_BYTE_ARRAY, 0, UPQ_OK, UPQ_CONVERTED_ENUM },
        { UPQ_LOGICAL_TYPE_ENUM, UPQ_TYPE_INT32, 0, UPQ_ERR_INVAL, -1 },
        { UPQ_LOGICAL_TYPE_JSON, UPQ_TYPE_BYTE_ARRAY, 0, UPQ_OK, UPQ_CONVERTED_JSON },
        { UPQ_LOGICAL_TYPE_BSON, UPQ_TYPE_BYTE_ARRAY, 0, UPQ_OK, UPQ_CONVERTED_BSON },
        { UPQ_LOGICAL_TYPE_BSON, UPQ_TYPE_INT64, 0, UPQ_ERR_INVAL, -1 },
        { UPQ_LOGICAL_TYPE_UUID, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 16, UPQ_OK, -1 },
        { UPQ_LOGICAL_TYPE_UUID, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 15, UPQ_ERR_INVAL, -1 },
        { UPQ_LOGICAL_TYPE_UUID, UPQ_TYPE_BYTE_ARRAY, 0, UPQ_ERR_INVAL, -1 },
        { UPQ_LOGICAL_TYPE_FLOAT16, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 2, UPQ_OK, -1 },
        { UPQ_LOGICAL_TYPE_FLOAT16, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 4, UPQ_ERR_INVAL, -1 },
        { UPQ_LOGICAL_TYPE_FLOAT16, UPQ_TYPE_FLOAT, 0, UPQ_ERR_INVAL, -1 },
        { UPQ_LOGICAL_TYPE_DATE, UPQ_TYPE_INT32, 0, UPQ_OK, UPQ_CONVERTED_DATE },
        { UPQ_LOGICAL_TYPE_DATE, UPQ_TYPE_INT64, 0, UPQ_ERR_INVAL, -1 },
        { UPQ_LOGICAL_TYPE_LIST, UPQ_TYPE_INT32, 0, UPQ_ERR_INVAL, -1 },
        { UPQ_LOGICAL_TYPE_MAP, UPQ_TYPE_BYTE_ARRAY, 0, UPQ_ERR_INVAL, -1 },
        { UPQ_LOGICAL_TYPE_UNKNOWN, UPQ_TYPE_INT32, 0, UPQ_OK, -1 },
        { UPQ_LOGICAL_TYPE_GEOMETRY, UPQ_TYPE_BYTE_ARRAY, 0, UPQ_OK, -1 },
        { UPQ_LOGICAL_TYPE_GEOMETRY, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 21, UPQ_ERR_INVAL, -1 },
    };
    upq_schema_element e[4];
    upq_schema_builder b;
    upq_logical_type lt;
    size_t i;

    tu_case("schema builder: each annotation on fitting and unfitting types, and its twin");
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memset(&lt, 0, sizeof lt);
        lt.isset = 1u << cases[i].kind;
        upq_sb_init(&b, e, 4, "m");
        TU_CHECK_STATUS(upq_sb_column(&b, "c", UPQ_REP_OPTIONAL, cases[i].type, cases[i].len, &lt),
                        cases[i].want);
        if (cases[i].want != UPQ_OK)
            continue;
        TU_CHECK(UPQ_ISSET(e[1], UPQ_SCHEMA_ELEMENT_LOGICAL_TYPE) && e[1].logical_type.isset == lt.isset);
        TU_CHECK_INT(UPQ_ISSET(e[1], UPQ_SCHEMA_ELEMENT_CONVERTED_TYPE) ? e[1].converted_type : -1,
                     cases[i].twin);
    }
}

static void test_schema_refusals(void)
{
    upq_schema_element e[16];
    upq_schema_builder b;
    upq_logical_type lt;
    uint32_t n = 0;

    tu_case("schema builder: INTERVAL only on fixed_len_byte_array(12)");
    upq_sb_init(&b, e, 16, "m");
    upq_sb_column(&b, "i", UPQ_REP_OPTIONAL, UPQ_TYPE_INT32, 0, NULL);
    check_refused(&b, upq_sb_converted(&b, UPQ_CONVERTED_INTERVAL), "INTERVAL");
    upq_sb_init(&b, e, 16, "m");
    upq_sb_column(&b, "i", UPQ_REP_OPTIONAL, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 8, NULL);
    check_refused(&b, upq_sb_converted(&b, UPQ_CONVERTED_INTERVAL), "INTERVAL");
    upq_sb_init(&b, e, 16, "m");
    upq_sb_column(&b, "i", UPQ_REP_OPTIONAL, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 12, NULL);
    TU_CHECK_STATUS(upq_sb_converted(&b, UPQ_CONVERTED_INTERVAL), UPQ_OK);
    TU_CHECK_STATUS(upq_sb_finish(&b, &n), UPQ_OK);
    TU_CHECK_INT(e[1].converted_type, UPQ_CONVERTED_INTERVAL);
    upq_sb_init(&b, e, 16, "m");
    upq_sb_column(&b, "l", UPQ_REP_OPTIONAL, UPQ_TYPE_INT32, 0, NULL);
    check_refused(&b, upq_sb_converted(&b, UPQ_CONVERTED_LIST), "only groups");
    upq_sb_init(&b, e, 16, "m");
    upq_sb_column(&b, "d", UPQ_REP_OPTIONAL, UPQ_TYPE_INT32, 0, NULL);
    check_refused(&b, upq_sb_converted(&b, UPQ_CONVERTED_DECIMAL), "stands alone");

    tu_case("schema builder: GEOMETRY and GEOGRAPHY only on binary, known edge algorithms");
    memset(&lt, 0, sizeof lt);
    UPQ_SET(lt, UPQ_LOGICAL_TYPE_GEOMETRY);
    upq_sb_init(&b, e, 16, "m");
    check_refused(&b, upq_sb_column(&b, "g", UPQ_REP_OPTIONAL, UPQ_TYPE_INT32, 0, &lt),
                  "does not fit");
    memset(&lt, 0, sizeof lt);
    UPQ_SET(lt, UPQ_LOGICAL_TYPE_GEOGRAPHY);
    upq_sb_init(&b, e, 16, "m");
    check_refused(&b,
                  upq_sb_column(&b, "g", UPQ_REP_OPTIONAL, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 16, &lt),
                  "does not fit");
    lt.u.geography.algorithm = UPQ_EDGE_KARNEY + 1;
    UPQ_SET(lt.u.geography, UPQ_GEOGRAPHY_TYPE_ALGORITHM);
    upq_sb_init(&b, e, 16, "m");
    check_refused(&b, upq_sb_column(&b, "g", UPQ_REP_OPTIONAL, UPQ_TYPE_BYTE_ARRAY, 0, &lt),
                  "does not fit");
    lt.u.geography.algorithm = UPQ_EDGE_KARNEY;
    upq_sb_init(&b, e, 16, "m");
    TU_CHECK_STATUS(upq_sb_column(&b, "g", UPQ_REP_OPTIONAL, UPQ_TYPE_BYTE_ARRAY, 0, &lt), UPQ_OK);
    TU_CHECK_STATUS(upq_sb_finish(&b, &n), UPQ_OK);

    tu_case("schema builder: VARIANT on a group of version 1 with metadata and value");
    memset(&lt, 0, sizeof lt);
    UPQ_SET(lt, UPQ_LOGICAL_TYPE_VARIANT);
    upq_sb_init(&b, e, 16, "m");
    check_refused(&b, upq_sb_column(&b, "v", UPQ_REP_OPTIONAL, UPQ_TYPE_BYTE_ARRAY, 0, &lt),
                  "does not fit");
    sb_variant_group(&b, e, 2);
    check_refused(&b, b.status, "version");
    sb_variant_group(&b, e, 1);
    upq_sb_column(&b, "metadata", UPQ_REP_REQUIRED, UPQ_TYPE_BYTE_ARRAY, 0, NULL);
    check_refused(&b, upq_sb_end(&b), "'value'");
    sb_variant_group(&b, e, 1);
    upq_sb_column(&b, "value", UPQ_REP_REQUIRED, UPQ_TYPE_BYTE_ARRAY, 0, NULL);
    check_refused(&b, upq_sb_end(&b), "'metadata'");
    sb_variant_group(&b, e, 1);
    upq_sb_column(&b, "metadata", UPQ_REP_OPTIONAL, UPQ_TYPE_BYTE_ARRAY, 0, NULL);
    upq_sb_column(&b, "value", UPQ_REP_REQUIRED, UPQ_TYPE_BYTE_ARRAY, 0, NULL);
    check_refused(&b, upq_sb_end(&b), "'metadata'"); /* metadata is never null */
    sb_variant_group(&b, e, 1);
    upq_sb_column(&b, "metadata", UPQ_REP_REQUIRED, UPQ_TYPE_BYTE_ARRAY, 0, NULL);
    upq_sb_column(&b, "value", UPQ_REP_OPTIONAL, UPQ_TYPE_INT32, 0, NULL);
    check_refused(&b, upq_sb_end(&b), "'value'");
    sb_variant_group(&b, e, 1);
    upq_sb_column(&b, "metadata", UPQ_REP_REQUIRED, UPQ_TYPE_BYTE_ARRAY, 0, NULL);
    upq_sb_column(&b, "value", UPQ_REP_OPTIONAL, UPQ_TYPE_BYTE_ARRAY, 0, NULL);
    upq_sb_column(&b, "typed_value", UPQ_REP_OPTIONAL, UPQ_TYPE_INT64, 0, NULL);
    TU_CHECK_STATUS(upq_sb_end(&b), UPQ_OK);
    TU_CHECK_STATUS(upq_sb_finish(&b, &n), UPQ_OK);
    /* value may go when typed_value holds every value (as the format's
     * shredded_variant test files have it) */
    sb_variant_group(&b, e, 1);
    upq_sb_column(&b, "metadata", UPQ_REP_REQUIRED, UPQ_TYPE_BYTE_ARRAY, 0, NULL);
    upq_sb_column(&b, "typed_value", UPQ_REP_OPTIONAL, UPQ_TYPE_INT32, 0, NULL);
    TU_CHECK_STATUS(upq_sb_end(&b), UPQ_OK);
    TU_CHECK_STATUS(upq_sb_finish(&b, &n), UPQ_OK);

    tu_case("schema builder: a LIST group has exactly one child, a repeated one");
    memset(&lt, 0, sizeof lt);
    UPQ_SET(lt, UPQ_LOGICAL_TYPE_LIST);
    upq_sb_init(&b, e, 16, "m");
    upq_sb_group(&b, "l", UPQ_REP_OPTIONAL, &lt);
    upq_sb_column(&b, "x", UPQ_REP_REPEATED, UPQ_TYPE_INT32, 0, NULL);
    upq_sb_column(&b, "y", UPQ_REP_REPEATED, UPQ_TYPE_INT32, 0, NULL);
    check_refused(&b, upq_sb_end(&b), "LIST");
    upq_sb_init(&b, e, 16, "m");
    upq_sb_group(&b, "l", UPQ_REP_OPTIONAL, &lt);
    upq_sb_column(&b, "x", UPQ_REP_OPTIONAL, UPQ_TYPE_INT32, 0, NULL);
    check_refused(&b, upq_sb_end(&b), "LIST");
    upq_sb_init(&b, e, 16, "m");
    upq_sb_group(&b, "l", UPQ_REP_OPTIONAL, NULL);
    TU_CHECK_STATUS(upq_sb_converted(&b, UPQ_CONVERTED_LIST), UPQ_OK);
    upq_sb_column(&b, "x", UPQ_REP_REPEATED, UPQ_TYPE_INT32, 0, NULL);
    upq_sb_column(&b, "y", UPQ_REP_REPEATED, UPQ_TYPE_INT32, 0, NULL);
    check_refused(&b, upq_sb_end(&b), "LIST"); /* the legacy annotation too */
    upq_sb_init(&b, e, 16, "m");
    upq_sb_group(&b, "l", UPQ_REP_OPTIONAL, &lt);
    upq_sb_column(&b, "x", UPQ_REP_REPEATED, UPQ_TYPE_INT32, 0, NULL); /* two-level form */
    TU_CHECK_STATUS(upq_sb_end(&b), UPQ_OK);
    TU_CHECK_STATUS(upq_sb_finish(&b, &n), UPQ_OK);

    tu_case("schema builder: sibling names are unique");
    upq_sb_init(&b, e, 16, "m");
    upq_sb_column(&b, "a", UPQ_REP_OPTIONAL, UPQ_TYPE_INT32, 0, NULL);
    check_refused(&b, upq_sb_column(&b, "a", UPQ_REP_OPTIONAL, UPQ_TYPE_INT64, 0, NULL),
                  "one name");
    upq_sb_init(&b, e, 16, "m");
    upq_sb_group(&b, "a", UPQ_REP_OPTIONAL, NULL);
    upq_sb_group(&b, "x", UPQ_REP_OPTIONAL, NULL);
    upq_sb_column(&b, "a", UPQ_REP_OPTIONAL, UPQ_TYPE_INT32, 0, NULL); /* a cousin: fine */
    upq_sb_end(&b);
    upq_sb_column(&b, "y", UPQ_REP_OPTIONAL, UPQ_TYPE_INT32, 0, NULL);
    upq_sb_end(&b);
    TU_CHECK_STATUS(b.status, UPQ_OK);
    /* a sibling after a group whose subtree must be skipped */
    check_refused(&b, upq_sb_group(&b, "a", UPQ_REP_OPTIONAL, NULL), "one name");
    upq_sb_init(&b, e, 16, "m");
    upq_sb_list(&b, "l", UPQ_REP_OPTIONAL);
    upq_sb_column(&b, "element", UPQ_REP_OPTIONAL, UPQ_TYPE_INT32, 0, NULL);
    upq_sb_end_list(&b);
    upq_sb_column(&b, "element", UPQ_REP_OPTIONAL, UPQ_TYPE_INT32, 0, NULL);
    TU_CHECK_STATUS(upq_sb_finish(&b, &n), UPQ_OK);
    TU_CHECK_INT(n, 5);
}

/* The same refusals through the name index (upq_sb_index), one roomy and one
 * that fills up on the way (the builder then walks the groups), and a wide
 * schema whose duplicate is found. */
static void test_schema_index(void)
{
    static upq_schema_element wide[20003];
    static uint32_t words[4 * 20003];
    static char names[20002][8];
    uint32_t small[6], i, n = 0, sizes[2] = {sizeof words / sizeof words[0], 6};
    upq_schema_element e[16];
    upq_schema_builder b;
    int k;
    for (k = 0; k < 2; k++) {
        uint32_t *idx = k == 0 ? words : small;
        tu_case("schema builder: sibling names through an index of %u words", (unsigned)sizes[k]);
        upq_sb_init(&b, e, 16, "m");
        upq_sb_index(&b, idx, sizes[k]);
        upq_sb_column(&b, "a", UPQ_REP_OPTIONAL, UPQ_TYPE_INT32, 0, NULL);
        check_refused(&b, upq_sb_column(&b, "a", UPQ_REP_OPTIONAL, UPQ_TYPE_INT64, 0, NULL),
                      "one name");
        upq_sb_init(&b, e, 16, "m");
        upq_sb_index(&b, idx, sizes[k]);
        upq_sb_group(&b, "a", UPQ_REP_OPTIONAL, NULL);
        upq_sb_group(&b, "x", UPQ_REP_OPTIONAL, NULL);
        upq_sb_column(&b, "a", UPQ_REP_OPTIONAL, UPQ_TYPE_INT32, 0, NULL); /* a cousin: fine */
        upq_sb_end(&b);
        upq_sb_column(&b, "y", UPQ_REP_OPTIONAL, UPQ_TYPE_INT32, 0, NULL);
        upq_sb_end(&b);
        upq_sb_column(&b, "b", UPQ_REP_OPTIONAL, UPQ_TYPE_INT32, 0, NULL);
        upq_sb_column(&b, "c", UPQ_REP_OPTIONAL, UPQ_TYPE_INT32, 0, NULL);
        TU_CHECK_STATUS(b.status, UPQ_OK);
        check_refused(&b, upq_sb_group(&b, "a", UPQ_REP_OPTIONAL, NULL), "one name");
    }
    tu_case("schema builder: 20,002 columns through the index, the last a duplicate");
    upq_sb_init(&b, wide, 20003, "m");
    upq_sb_index(&b, words, sizeof words / sizeof words[0]);
    for (i = 0; i < 20001; i++) {
        snprintf(names[i], sizeof names[i], "c%u", (unsigned)i);
        TU_CHECK_STATUS(upq_sb_column(&b, names[i], UPQ_REP_REQUIRED, UPQ_TYPE_INT32, 0, NULL),
                        UPQ_OK);
    }
    TU_CHECK_INT(b.index_probe != NULL, 1); /* still indexed */
    check_refused(&b, upq_sb_column(&b, "c7", UPQ_REP_REQUIRED, UPQ_TYPE_INT32, 0, NULL),
                  "one name");
    upq_sb_init(&b, wide, 20003, "m");
    upq_sb_index(&b, words, sizeof words / sizeof words[0]);
    for (i = 0; i < 20001; i++)
        upq_sb_column(&b, names[i], UPQ_REP_REQUIRED, UPQ_TYPE_INT32, 0, NULL);
    TU_CHECK_STATUS(upq_sb_finish(&b, &n), UPQ_OK);
    TU_CHECK_INT(n, 20002);
}

/* ---- statistics and the page index --------------------------------------------- */

/* A writer over `s` for elems, with an arena of exactly the workspace size
 * (in checkpoint mode the sink writes at offsets and reads back). */
static upq_status open_writer(upq_writer *w, sink_buf *s, const upq_schema_element *el, uint32_t n,
                              const upq_writer_opts *o, uint8_t **arena)
{
    upq_sink sink = sink_of(s, o->checkpoint);
    size_t need = 0;
    upq_status st = upq_writer_workspace_size(el, n, o, 50, &need);
    if (st != UPQ_OK)
        return st;
    *arena = (uint8_t *)malloc(need);
    return upq_writer_init(w, &sink, el, n, *arena, need, o);
}

static int bytes_eq(upq_bytes b, const void *p, size_t n)
{
    return b.len == n && (n == 0 || memcmp(b.ptr, p, n) == 0);
}

static const upq_statistics *chunk_stats(rfile *f, uint32_t rg, uint32_t col)
{
    const upq_column_chunk *ch = upq_reader_chunk(&f->r, rg, col);
    return ch ? &ch->meta_data.statistics : NULL;
}

/* Decodes the ColumnIndex of a chunk (NULL when it has none). */
static int read_column_index(const sink_buf *s, const upq_column_chunk *ch, upq_column_index *ci,
                             upq_arena *a)
{
    if (!UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_COLUMN_INDEX_OFFSET))
        return 0;
    return upq_thrift_decode(&upq_column_index_desc, ci, a, s->p + ch->column_index_offset,
                             (size_t)ch->column_index_length, NULL, NULL) == UPQ_OK;
}

static void test_statistics(void)
{
    enum { S_I, S_U, S_F, S_Z, S_N, S_S, S_S2, S_DEC, S_B, S_I96, S_H, NS };
    upq_schema_element el[NS + 1];
    upq_schema_builder b;
    upq_logical_type lt;
    upq_writer_opts o;
    upq_writer w;
    sink_buf s;
    uint8_t *arena = NULL;
    uint32_t n, row, c;
    rfile f;
    static uint8_t amem[1 << 16];
    upq_arena a;
    float nanf_ = (float)NAN, negz = -0.0f, f25 = 2.5f, zf = 0.0f;
    double nand = NAN;
    int32_t ivals[4] = {5, -3, 7, 0};
    int32_t uvals[4] = {1, -1, 5, 3};
    static const char *svals[4] = {"apple", "banana", "cherry", "apple"};
    static const uint8_t s2a[5] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
    static const uint8_t dec[4][2] = {{0x00, 0xFF}, {0xFF, 0}, {0x01, 0x00}, {0x80, 0}};
    static const uint8_t declen[4] = {2, 1, 2, 1};
    /* FLOAT16 bytes as stored (little-endian): 1, -1, NaN, 1 */
    static const uint8_t halves[4][2] = {{0x00, 0x3C}, {0x00, 0xBC}, {0x00, 0x7E}, {0x00, 0x3C}};

    tu_case("statistics: orders, NaN, zeros, truncation");
    upq_sb_init(&b, el, NS + 1, NULL);
    upq_sb_column(&b, "i", UPQ_REP_OPTIONAL, UPQ_TYPE_INT32, 0, NULL);
    upq_lt_int(&lt, 32, 0);
    upq_sb_column(&b, "u", UPQ_REP_REQUIRED, UPQ_TYPE_INT32, 0, &lt);
    upq_sb_column(&b, "f", UPQ_REP_REQUIRED, UPQ_TYPE_FLOAT, 0, NULL);
    upq_sb_column(&b, "z", UPQ_REP_REQUIRED, UPQ_TYPE_FLOAT, 0, NULL);
    upq_sb_column(&b, "n", UPQ_REP_OPTIONAL, UPQ_TYPE_DOUBLE, 0, NULL);
    upq_lt_string(&lt);
    upq_sb_column(&b, "s", UPQ_REP_REQUIRED, UPQ_TYPE_BYTE_ARRAY, 0, &lt);
    upq_sb_column(&b, "s2", UPQ_REP_OPTIONAL, UPQ_TYPE_BYTE_ARRAY, 0, NULL);
    upq_lt_decimal(&lt, 10, 0);
    upq_sb_column(&b, "dec", UPQ_REP_REQUIRED, UPQ_TYPE_BYTE_ARRAY, 0, &lt);
    upq_sb_column(&b, "b", UPQ_REP_OPTIONAL, UPQ_TYPE_BOOLEAN, 0, NULL);
    upq_sb_column(&b, "i96", UPQ_REP_OPTIONAL, UPQ_TYPE_INT96, 0, NULL);
    upq_lt_float16(&lt);
    upq_sb_column(&b, "h", UPQ_REP_REQUIRED, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 2, &lt);
    TU_CHECK_STATUS(upq_sb_finish(&b, &n), UPQ_OK);
    memset(&o, 0, sizeof o);
    o.stats_max_binary = 4;
    sink_init(&s, SINK_WHOLE, 1);
    TU_CHECK_STATUS(open_writer(&w, &s, el, n, &o, &arena), UPQ_OK);
    for (row = 0; row < 4; row++) {
        upq_bytes bv;
        uint8_t one = 1;
        upq_int96 i96;
        if (row < 3)
            TU_CHECK_STATUS(upq_writer_set(&w, S_I, &ivals[row]), UPQ_OK);
        TU_CHECK_STATUS(upq_writer_set(&w, S_U, &uvals[row]), UPQ_OK);
        TU_CHECK_STATUS(upq_writer_set(&w, S_F, row == 1 ? &negz : row == 2 ? &f25 : &nanf_), UPQ_OK);
        TU_CHECK_STATUS(upq_writer_set(&w, S_Z, row & 1 ? &zf : &negz), UPQ_OK);
        if (row != 3)
            TU_CHECK_STATUS(upq_writer_set(&w, S_N, &nand), UPQ_OK);
        bv.ptr = (const uint8_t *)svals[row];
        bv.len = (uint32_t)strlen(svals[row]);
        TU_CHECK_STATUS(upq_writer_set(&w, S_S, &bv), UPQ_OK);
        if (row < 2) {
            bv.ptr = row ? (const uint8_t *)"a" : s2a;
            bv.len = row ? 1 : 5;
            TU_CHECK_STATUS(upq_writer_set(&w, S_S2, &bv), UPQ_OK);
        }
        bv.ptr = dec[row];
        bv.len = declen[row];
        TU_CHECK_STATUS(upq_writer_set(&w, S_DEC, &bv), UPQ_OK);
        TU_CHECK_STATUS(upq_writer_set(&w, S_B, &one), UPQ_OK);
        upq_store_le64(i96.b, (uint64_t)row * 3600000000000u);
        upq_store_le32(i96.b + 8, 2460000u + row);
        TU_CHECK_STATUS(upq_writer_set(&w, S_I96, &i96), UPQ_OK);
        bv.ptr = halves[row];
        bv.len = 2;
        TU_CHECK_STATUS(upq_writer_set(&w, S_H, &bv), UPQ_OK);
        TU_CHECK_STATUS(upq_writer_end_row(&w), UPQ_OK);
    }
    TU_CHECK_STATUS(upq_writer_close(&w), UPQ_OK);
    free(arena);
    if (TU_CHECK_STATUS(rfile_open(&f, s.p, s.n), UPQ_OK)) {
        const upq_statistics *x;
        uint8_t le[8];
        x = chunk_stats(&f, 0, S_I);
        TU_CHECK_INT(x->null_count, 1);
        upq_store_le32(le, (uint32_t)-3);
        TU_CHECK(bytes_eq(x->min_value, le, 4));
        upq_store_le32(le, 7);
        TU_CHECK(bytes_eq(x->max_value, le, 4));
        TU_CHECK(x->is_min_value_exact && x->is_max_value_exact);
        TU_CHECK(!UPQ_ISSET(*x, UPQ_STATISTICS_MIN) && !UPQ_ISSET(*x, UPQ_STATISTICS_MAX));
        x = chunk_stats(&f, 0, S_U); /* unsigned: 1 .. 0xFFFFFFFF */
        upq_store_le32(le, 1);
        TU_CHECK(bytes_eq(x->min_value, le, 4));
        upq_store_le32(le, 0xFFFFFFFFu);
        TU_CHECK(bytes_eq(x->max_value, le, 4));
        x = chunk_stats(&f, 0, S_F); /* NaN ignored, -0.0 as min */
        upq_store_le32(le, 0x80000000u);
        TU_CHECK(bytes_eq(x->min_value, le, 4));
        upq_store_le32(le, 0x40200000u);
        TU_CHECK(bytes_eq(x->max_value, le, 4));
        TU_CHECK_INT(x->nan_count, 2);
        x = chunk_stats(&f, 0, S_Z); /* zeros: min -0.0, max +0.0 */
        upq_store_le32(le, 0x80000000u);
        TU_CHECK(bytes_eq(x->min_value, le, 4));
        upq_store_le32(le, 0);
        TU_CHECK(bytes_eq(x->max_value, le, 4));
        x = chunk_stats(&f, 0, S_N); /* only NaN: no bounds */
        TU_CHECK(!UPQ_ISSET(*x, UPQ_STATISTICS_MIN_VALUE) && !UPQ_ISSET(*x, UPQ_STATISTICS_MAX_VALUE));
        TU_CHECK_INT(x->nan_count, 3);
        TU_CHECK_INT(x->null_count, 1);
        x = chunk_stats(&f, 0, S_S); /* truncated to 4 bytes */
        TU_CHECK(bytes_eq(x->min_value, "appl", 4) && !x->is_min_value_exact);
        TU_CHECK(bytes_eq(x->max_value, "ches", 4) && !x->is_max_value_exact);
        x = chunk_stats(&f, 0, S_S2); /* a max of 0xFF bytes cannot be shortened */
        TU_CHECK(bytes_eq(x->min_value, "a", 1) && x->is_min_value_exact);
        TU_CHECK(!UPQ_ISSET(*x, UPQ_STATISTICS_MAX_VALUE));
        TU_CHECK_INT(x->null_count, 2);
        x = chunk_stats(&f, 0, S_DEC); /* signed big-endian: -128 .. 256 */
        TU_CHECK(bytes_eq(x->min_value, "\x80", 1));
        TU_CHECK(bytes_eq(x->max_value, "\x01\x00", 2));
        x = chunk_stats(&f, 0, S_B);
        TU_CHECK(bytes_eq(x->min_value, "\x01", 1) && bytes_eq(x->max_value, "\x01", 1));
        x = chunk_stats(&f, 0, S_I96); /* no order: only the null count */
        TU_CHECK(!UPQ_ISSET(*x, UPQ_STATISTICS_MIN_VALUE) && UPQ_ISSET(*x, UPQ_STATISTICS_NULL_COUNT));
        x = chunk_stats(&f, 0, S_H); /* FLOAT16 by value: -1 .. 1, one NaN */
        TU_CHECK(bytes_eq(x->min_value, "\x00\xBC", 2) && bytes_eq(x->max_value, "\x00\x3C", 2));
        TU_CHECK_INT(x->nan_count, 1);

        /* ColumnIndex: none for INT96 nor for a chunk with a NaN-only page */
        upq_arena_init(&a, amem, sizeof amem);
        for (c = 0; c < NS; c++) {
            const upq_column_chunk *ch = upq_reader_chunk(&f.r, 0, c);
            upq_column_index ci;
            int has = read_column_index(&s, ch, &ci, &a);
            TU_CHECK(UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_OFFSET_INDEX_OFFSET));
            /* f has NaN but other values in its page: it keeps its index */
            TU_CHECK_MSG(has == !(c == S_I96 || c == S_N || c == S_S2),
                         "column %u: ColumnIndex %s", c, has ? "present" : "absent");
            if (c == S_I && has) {
                TU_CHECK_UINT(ci.null_pages.n, 1);
                TU_CHECK(ci.null_pages.v[0] == 0);
                TU_CHECK_INT(ci.null_counts.v[0], 1);
                TU_CHECK(bytes_eq(ci.max_values.v[0], "\x07\0\0\0", 4));
            }
        }
    }
    rfile_close(&f);
    check_footer_canonical(s.p, s.n, "statistics");
    save_file("statistics", &s);
    sink_free(&s);
}

static void test_page_index(void)
{
    upq_schema_element el[4];
    upq_schema_builder b;
    upq_logical_type lt;
    upq_writer_opts o;
    upq_writer w;
    sink_buf s;
    uint8_t *arena = NULL;
    uint32_t n, c, rows = 500, i;
    static uint8_t amem[1 << 20];
    upq_arena a;
    rfile f;
    int v2;
    for (v2 = 0; v2 < 2; v2++) {
        tu_case("page index: offsets, sizes, first rows, bounds (%s)", v2 ? "v2" : "v1");
        upq_sb_init(&b, el, 4, NULL);
        upq_sb_column(&b, "k", UPQ_REP_REQUIRED, UPQ_TYPE_INT64, 0, NULL);
        upq_lt_string(&lt);
        upq_sb_column(&b, "s", UPQ_REP_OPTIONAL, UPQ_TYPE_BYTE_ARRAY, 0, &lt);
        upq_sb_column(&b, "d", UPQ_REP_REQUIRED, UPQ_TYPE_DOUBLE, 0, NULL);
        TU_CHECK_STATUS(upq_sb_finish(&b, &n), UPQ_OK);
        memset(&o, 0, sizeof o);
        o.page_size = 64;
        o.data_page_v2 = (uint8_t)v2;
        o.codec = UPQ_CODEC_SNAPPY;
        sink_init(&s, SINK_WHOLE, 1);
        TU_CHECK_STATUS(open_writer(&w, &s, el, n, &o, &arena), UPQ_OK);
        for (i = 0; i < rows; i++) {
            int64_t k = (int64_t)i * 3;
            double d = 1000.0 - i;
            char tmp[16];
            upq_bytes bv;
            TU_CHECK_STATUS(upq_writer_set(&w, 0, &k), UPQ_OK);
            bv.len = (uint32_t)snprintf(tmp, sizeof tmp, "s%03u", i % 100);
            bv.ptr = (const uint8_t *)tmp;
            /* rows 100..199 are null: whole pages without values */
            TU_CHECK_STATUS(i / 100 == 1 ? upq_writer_set_null(&w, 1) : upq_writer_set(&w, 1, &bv),
                            UPQ_OK);
            TU_CHECK_STATUS(upq_writer_set(&w, 2, &d), UPQ_OK);
            TU_CHECK_STATUS(upq_writer_end_row(&w), UPQ_OK);
        }
        TU_CHECK_STATUS(upq_writer_close(&w), UPQ_OK);
        free(arena);
        if (TU_CHECK_STATUS(rfile_open(&f, s.p, s.n), UPQ_OK)) {
            const upq_file_metadata *m = upq_reader_metadata(&f.r);
            uint32_t g, nullp = 0;
            for (g = 0; g < m->row_groups.n; g++) {
                for (c = 0; c < 3; c++) {
                    const upq_column_chunk *ch = upq_reader_chunk(&f.r, g, c);
                    upq_offset_index oi;
                    upq_column_index ci;
                    int64_t next_row = 0;
                    upq_arena_init(&a, amem, sizeof amem);
                    if (!TU_CHECK_STATUS(upq_thrift_decode(&upq_offset_index_desc, &oi, &a,
                                                           s.p + ch->offset_index_offset,
                                                           (size_t)ch->offset_index_length, NULL, NULL),
                                         UPQ_OK))
                        continue;
                    TU_CHECK(oi.page_locations.n >= 1);
                    TU_CHECK_INT(oi.page_locations.v[0].offset, ch->meta_data.data_page_offset);
                    for (i = 0; i < oi.page_locations.n; i++) {
                        const upq_page_location *pl = &oi.page_locations.v[i];
                        upq_page_header ph;
                        size_t used = 0;
                        TU_CHECK_STATUS(upq_thrift_decode(&upq_page_header_desc, &ph, &a, s.p + pl->offset,
                                                          s.n - (size_t)pl->offset, &used, NULL),
                                        UPQ_OK);
                        TU_CHECK_INT((int64_t)used + ph.compressed_page_size, pl->compressed_page_size);
                        TU_CHECK_INT(pl->first_row_index, next_row);
                        TU_CHECK_INT(ph.type, v2 ? UPQ_PAGE_DATA_V2 : UPQ_PAGE_DATA);
                        next_row += v2 ? ph.data_page_header_v2.num_rows : ph.data_page_header.num_values;
                    }
                    TU_CHECK_INT(next_row, m->row_groups.v[g].num_rows);
                    if (!TU_CHECK(read_column_index(&s, ch, &ci, &a)))
                        continue;
                    TU_CHECK_UINT(ci.min_values.n, oi.page_locations.n);
                    if (c == 0)
                        TU_CHECK_INT(ci.boundary_order, UPQ_BOUNDARY_ASCENDING);
                    if (c == 2)
                        TU_CHECK_INT(ci.boundary_order, UPQ_BOUNDARY_DESCENDING);
                    for (i = 0; i < ci.null_pages.n; i++) {
                        if (ci.null_pages.v[i]) {
                            nullp++;
                            TU_CHECK(ci.min_values.v[i].len == 0 && ci.max_values.v[i].len == 0);
                        }
                        if (c == 0) { /* k = 3 x row: the page's first and last rows */
                            int64_t lo = (int64_t)upq_load_le64(ci.min_values.v[i].ptr);
                            int64_t hi = (int64_t)upq_load_le64(ci.max_values.v[i].ptr);
                            int64_t first = oi.page_locations.v[i].first_row_index;
                            int64_t end = i + 1 < oi.page_locations.n ? oi.page_locations.v[i + 1].first_row_index
                                                                      : m->row_groups.v[g].num_rows;
                            int64_t base = 0;
                            uint32_t gg;
                            for (gg = 0; gg < g; gg++)
                                base += m->row_groups.v[gg].num_rows;
                            TU_CHECK_INT(lo, 3 * (base + first));
                            TU_CHECK_INT(hi, 3 * (base + end - 1));
                        }
                    }
                }
            }
            TU_CHECK(nullp > 0);
        }
        rfile_close(&f);
        check_footer_canonical(s.p, s.n, "page index");
        save_file(v2 ? "page_index_v2" : "page_index_v1", &s);
        sink_free(&s);
    }
}

/* ---- sizing, errors, the empty file ------------------------------------------------ */

static void sensor_schema(upq_schema_element *el, uint32_t *n)
{
    upq_schema_builder b;
    upq_logical_type lt;
    int k;
    upq_sb_init(&b, el, 12, "sensor");
    upq_lt_timestamp(&lt, UPQ_TIME_UNIT_MICROS, 1);
    upq_sb_column(&b, "ts", UPQ_REP_REQUIRED, UPQ_TYPE_INT64, 0, &lt);
    upq_lt_string(&lt);
    upq_sb_column(&b, "device", UPQ_REP_REQUIRED, UPQ_TYPE_BYTE_ARRAY, 0, &lt);
    for (k = 0; k < 8; k++) {
        static const char *names[] = {"c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7"};
        upq_sb_column(&b, names[k], UPQ_REP_OPTIONAL, UPQ_TYPE_FLOAT, 0, NULL);
    }
    upq_sb_column(&b, "ok", UPQ_REP_REQUIRED, UPQ_TYPE_BOOLEAN, 0, NULL);
    TU_CHECK_STATUS(upq_sb_finish(&b, n), UPQ_OK);
}

static upq_status sensor_row(upq_writer *w, uint32_t i)
{
    int64_t ts = 1700000000000000 + (int64_t)i * 1000;
    upq_bytes dev = {(const uint8_t *)"dev-01", 6};
    uint8_t ok = (uint8_t)(i % 3 != 0);
    uint32_t k;
    upq_status st;
    WU_RETRY(st, upq_writer_set(w, 0, &ts));
    if (st != UPQ_OK)
        return st;
    WU_RETRY(st, upq_writer_set(w, 1, &dev));
    if (st != UPQ_OK)
        return st;
    for (k = 0; k < 8; k++) {
        float v = (float)(i % 50) * 0.5f + (float)k;
        if ((i + k) % 11 == 0)
            continue; /* unset: null */
        WU_RETRY(st, upq_writer_set(w, 2 + k, &v));
        if (st != UPQ_OK)
            return st;
    }
    WU_RETRY(st, upq_writer_set(w, 10, &ok));
    if (st != UPQ_OK)
        return st;
    WU_RETRY(st, upq_writer_end_row(w));
    return st;
}

static void test_workspace(void)
{
    upq_schema_element el[12];
    uint32_t n, sizes[3] = {1024, 4096, 8192}, k, i;
    upq_writer_opts o;
    size_t need = 0, need1 = 0;
    upq_writer w;
    sink_buf s;
    upq_sink sink;
    uint8_t *arena;
    upq_status st;

    sensor_schema(el, &n);
    tu_case("workspace: int64 timestamp + string + 8 floats + bool");
    for (k = 0; k < 3; k++) {
        memset(&o, 0, sizeof o);
        o.page_size = sizes[k];
        TU_CHECK_STATUS(upq_writer_workspace_size(el, n, &o, 0, &need), UPQ_OK);
        TU_CHECK_STATUS(upq_writer_workspace_size(el, n, &o, 1, &need1), UPQ_OK);
        tu_note("page_size %5u: %zu bytes, + %zu per row group of footer metadata kept in RAM",
                sizes[k], need, need1 - need);
        o.no_page_index = 1;
        o.no_statistics = 1;
        TU_CHECK_STATUS(upq_writer_workspace_size(el, n, &o, 0, &need), UPQ_OK);
        tu_note("page_size %5u, no statistics or page index: %zu bytes", sizes[k], need);
        memset(&o, 0, sizeof o);
        o.page_size = sizes[k];
        o.direct = 1;
        TU_CHECK_STATUS(upq_writer_workspace_size(el, n, &o, 0, &need1), UPQ_OK);
        tu_note("page_size %5u, direct (no chunk buffers): %zu bytes", sizes[k], need1);
        TU_CHECK(need1 < need);
    }

    tu_case("workspace: exact size, one byte less fails with the size needed");
    memset(&o, 0, sizeof o);
    o.page_size = 1024;
    o.codec = UPQ_CODEC_SNAPPY;
    sink_init(&s, SINK_WHOLE, 1);
    for (k = 0; k < 4; k++) {
        /* checkpoint mode (finished row groups described in the file), or
         * a fixed footer_size; buffered, then direct, compressed and not */
        o.checkpoint = (uint8_t)(k % 2 == 0);
        o.footer_size = k % 2 ? 5000u : 0u;
        o.direct = (uint8_t)(k >= 2);
        o.codec = k == 3 ? UPQ_CODEC_UNCOMPRESSED : UPQ_CODEC_SNAPPY;
        sink = sink_of(&s, k % 2 == 0);
        TU_CHECK_STATUS(upq_writer_workspace_size(el, n, &o, 0, &need), UPQ_OK);
        arena = (uint8_t *)malloc(need);
        TU_CHECK_STATUS(upq_writer_init(&w, &sink, el, n, arena, need - 8, &o), UPQ_ERR_NOMEM);
        TU_CHECK_UINT(upq_arena_needed(&w.arena), need);
        TU_CHECK_STATUS(upq_writer_init(&w, &sink, el, n, arena, need, &o), UPQ_OK);
        free(arena);
    }
    sink_free(&s);

    tu_case("workspace: direct, exact arena; a row group ends when a column's page is full");
    memset(&o, 0, sizeof o);
    o.page_size = 1024; /* "dev-01" staged with its length takes 10 bytes: 102 rows */
    o.direct = 1;
    sink_init(&s, SINK_AGAIN, tu_seed() + 5);
    sink = sink_of(&s, 0);
    TU_CHECK_STATUS(upq_writer_workspace_size(el, n, &o, 40, &need), UPQ_OK);
    arena = (uint8_t *)malloc(need);
    TU_CHECK_STATUS(upq_writer_init(&w, &sink, el, n, arena, need, &o), UPQ_OK);
    for (i = 0, st = UPQ_OK; i < 3000 && st == UPQ_OK; i++)
        st = sensor_row(&w, i);
    TU_CHECK_STATUS(st, UPQ_OK);
    WU_RETRY(st, upq_writer_close(&w));
    TU_CHECK_STATUS(st, UPQ_OK);
    TU_CHECK_UINT(w.num_rg, (3000 + 101) / 102);
    {
        rfile f;
        if (TU_CHECK_STATUS(rfile_open(&f, s.p, s.n), UPQ_OK)) {
            const upq_file_metadata *m = upq_reader_metadata(&f.r);
            TU_CHECK_INT(m->num_rows, 3000);
            TU_CHECK(m->row_groups.n > 0 && m->row_groups.v[0].num_rows == 102);
        }
        rfile_close(&f);
    }
    check_footer_canonical(s.p, s.n, "direct");
    free(arena);
    sink_free(&s);

    for (k = 0; k < 2; k++) {
        /* 20000 rows in row groups of up to the default 65536 rows, or of up
         * to 1000: far more than the arena holds, in 1 KiB pages (a row group
         * may end early when a column's region is full, never for RAM) */
        uint32_t rows = k ? 3000u : 20000u, rg = k ? 1000u : 65536u, g;
        tu_case("workspace: checkpoint mode, direct ignored: row groups of %s, not of RAM",
                k ? "row_group_rows" : "the default 65536 rows");
        memset(&o, 0, sizeof o);
        o.page_size = 1024;
        o.direct = 1;
        o.checkpoint = 1;
        o.row_group_rows = k ? rg : 0;
        sink_init(&s, k ? SINK_AGAIN : SINK_WHOLE, tu_seed() + 6 + k);
        sink = sink_of(&s, 1);
        TU_CHECK_STATUS(upq_writer_workspace_size(el, n, &o, 0, &need), UPQ_OK);
        TU_CHECK_STATUS(upq_writer_workspace_size(el, n, &o, 1000, &need1), UPQ_OK);
        TU_CHECK_UINT(need1, need); /* finished row groups are described in the file */
        arena = (uint8_t *)malloc(need);
        TU_CHECK_STATUS(upq_writer_init(&w, &sink, el, n, arena, need - 8, &o), UPQ_ERR_NOMEM);
        TU_CHECK_UINT(upq_arena_needed(&w.arena), need);
        if (!TU_CHECK_STATUS(upq_writer_init(&w, &sink, el, n, arena, need, &o), UPQ_OK)) {
            free(arena);
            sink_free(&s);
            continue;
        }
        for (i = 0, st = UPQ_OK; i < rows && st == UPQ_OK; i++)
            st = sensor_row(&w, i);
        TU_CHECK_STATUS(st, UPQ_OK);
        WU_RETRY(st, upq_writer_close(&w));
        TU_CHECK_STATUS(st, UPQ_OK);
        TU_CHECK_UINT(upq_writer_rows_durable(&w), rows);
        TU_CHECK(w.num_rg >= (rows + rg - 1) / rg);
        {
            rfile f;
            if (TU_CHECK_STATUS(rfile_open(&f, s.p, s.n), UPQ_OK)) {
                const upq_file_metadata *m = upq_reader_metadata(&f.r);
                col_data want;
                int64_t *ts = (int64_t *)malloc(rows * sizeof(int64_t));
                int64_t big = 0;
                TU_CHECK_UINT(m->row_groups.n, w.num_rg);
                check_rg_rows(m, rg, rows, "checkpoint rg");
                for (g = 0; g < m->row_groups.n; g++)
                    if (m->row_groups.v[g].total_byte_size > big)
                        big = m->row_groups.v[g].total_byte_size;
                if (k == 0) /* a row group holds more than the writer's whole arena */
                    TU_CHECK_MSG((uint64_t)big > need, "largest row group of %lld bytes, arena %zu",
                                 (long long)big, need);
                for (i = 0; i < rows; i++)
                    ts[i] = 1700000000000000 + (int64_t)i * 1000;
                memset(&want, 0, sizeof want);
                want.vals = ts;
                want.n = want.nv = rows;
                TU_CHECK_INT(wu_compare_column(&f, 0, UPQ_TYPE_INT64, 0, 0, &want, "checkpoint rg"), 0);
                free(ts);
            }
            rfile_close(&f);
        }
        check_footer_canonical(s.p, s.n, "checkpoint rg");
        free(arena);
        sink_free(&s);
    }

    sink_init(&s, SINK_WHOLE, 1);
    sink = sink_of(&s, 0);
    memset(&o, 0, sizeof o);
    o.page_size = 1024;
    o.codec = UPQ_CODEC_SNAPPY;
    TU_CHECK_STATUS(upq_writer_workspace_size(el, n, &o, 4, &need), UPQ_OK);
    arena = (uint8_t *)malloc(need);

    tu_case("workspace: the footer log holds max_row_groups; past it NOMEM, close keeps the rest");
    o.row_group_rows = 100;
    TU_CHECK_STATUS(upq_writer_workspace_size(el, n, &o, 4, &need), UPQ_OK);
    TU_CHECK_STATUS(upq_writer_init(&w, &sink, el, n, arena, need, &o), UPQ_OK);
    for (i = 0; i < 400; i++)
        TU_CHECK_STATUS(sensor_row(&w, i), UPQ_OK);
    TU_CHECK_UINT(w.num_rg, 4); /* each written as soon as its last row came */
    st = UPQ_OK;
    for (; i < 100000 && st == UPQ_OK; i++)
        st = sensor_row(&w, i);
    TU_CHECK_STATUS(st, UPQ_ERR_NOMEM);
    TU_CHECK(upq_arena_needed(&w.arena) > need);
    TU_CHECK(w.num_rg >= 4);
    n = w.num_rg;
    TU_CHECK_STATUS(sensor_row(&w, i), UPQ_ERR_NOMEM); /* final */
    TU_CHECK_STATUS(upq_writer_close(&w), UPQ_OK);
    {
        rfile f;
        if (TU_CHECK_STATUS(rfile_open(&f, s.p, s.n), UPQ_OK)) {
            TU_CHECK_UINT(upq_reader_metadata(&f.r)->row_groups.n, n);
            TU_CHECK_INT(upq_reader_metadata(&f.r)->num_rows, 100 * (int64_t)n);
        }
        rfile_close(&f);
    }
    check_footer_canonical(s.p, s.n, "log full");
    sink_free(&s);
    free(arena);
}

static void test_errors(void)
{
    upq_schema_element el[12];
    uint32_t n;
    upq_writer_opts o;
    upq_column_opts co[11];
    upq_writer w;
    sink_buf s;
    upq_sink sink;
    uint8_t *arena = NULL;
    size_t took = 0;
    int i;

    sensor_schema(el, &n);
    sink_init(&s, SINK_WHOLE, 1);
    sink = sink_of(&s, 0);
    arena = (uint8_t *)malloc(1 << 20);

    tu_case("errors: options");
    memset(&o, 0, sizeof o);
    o.codec = UPQ_CODEC_ZSTD;
    TU_CHECK_STATUS(upq_writer_init(&w, &sink, el, n, arena, 1 << 20, &o), UPQ_ERR_UNSUPPORTED);
    TU_CHECK(upq_writer_error(&w)->what && strstr(upq_writer_error(&w)->what, "ZSTD"));
    memset(&o, 0, sizeof o);
    memset(co, 0, sizeof co); /* kv and the rest: none (stack garbage crashed here) */
    for (i = 0; i < 11; i++) {
        co[i].encoding = -1;
        co[i].dictionary = -1;
    }
    co[1].encoding = UPQ_ENC_DELTA_BINARY_PACKED; /* on a string */
    o.columns = co;
    o.ncolumns = 11;
    TU_CHECK_STATUS(upq_writer_init(&w, &sink, el, n, arena, 1 << 20, &o), UPQ_ERR_INVAL);
    co[1].encoding = UPQ_ENC_RLE_DICTIONARY;
    co[1].dictionary = 0;
    TU_CHECK_STATUS(upq_writer_init(&w, &sink, el, n, arena, 1 << 20, &o), UPQ_ERR_INVAL);
    co[1].dictionary = -1;
    o.ncolumns = 3;
    TU_CHECK_STATUS(upq_writer_init(&w, &sink, el, n, arena, 1 << 20, &o), UPQ_ERR_INVAL);

    tu_case("errors: a missing sink callback is named");
    {
        /* sink_of(, 1) gives write, write_at and read_at: one goes at a time */
        upq_sink full = sink_of(&s, 1), part = full;
        upq_writer_opts po;
        memset(&po, 0, sizeof po);
        po.checkpoint = 1;
        part.write_at = NULL;
        TU_CHECK_STATUS(upq_writer_init(&w, &part, el, n, arena, 1 << 20, &po), UPQ_ERR_INVAL);
        TU_CHECK(upq_writer_error(&w)->what && strstr(upq_writer_error(&w)->what, "write_at"));
        part = full;
        part.read_at = NULL;
        TU_CHECK_STATUS(upq_writer_init(&w, &part, el, n, arena, 1 << 20, &po), UPQ_ERR_INVAL);
        TU_CHECK(upq_writer_error(&w)->what && strstr(upq_writer_error(&w)->what, "read_at"));
        po.checkpoint = 0;
        part = full;
        part.write = NULL;
        TU_CHECK_STATUS(upq_writer_init(&w, &part, el, n, arena, 1 << 20, &po), UPQ_ERR_INVAL);
        TU_CHECK(upq_writer_error(&w)->what && strstr(upq_writer_error(&w)->what, "no write callback"));
        part.write_at = NULL;
        TU_CHECK_STATUS(upq_writer_init(&w, &part, el, n, arena, 1 << 20, &po), UPQ_ERR_INVAL);
        TU_CHECK(upq_writer_error(&w)->what && strstr(upq_writer_error(&w)->what, "neither write"));
        TU_CHECK_STATUS(upq_writer_init(&w, NULL, el, n, arena, 1 << 20, &po), UPQ_ERR_INVAL);
        TU_CHECK(upq_writer_error(&w)->what && strcmp(upq_writer_error(&w)->what, "no sink") == 0);
        TU_CHECK_STATUS(upq_writer_init(&w, &sink, NULL, n, arena, 1 << 20, &po), UPQ_ERR_INVAL);
        TU_CHECK(upq_writer_error(&w)->what && strcmp(upq_writer_error(&w)->what, "no schema") == 0);
    }

    tu_case("errors: column key-value metadata needs its list and every key");
    memset(co, 0, sizeof co);
    for (i = 0; i < 11; i++)
        co[i].encoding = co[i].dictionary = -1;
    o.ncolumns = 11;
    {
        upq_key_value kv[2];
        memset(kv, 0, sizeof kv);
        kv[0].key.ptr = (const uint8_t *)"k";
        kv[0].key.len = 1;
        UPQ_SET(kv[0], UPQ_KEY_VALUE_KEY);
        co[2].kv = kv;
        co[2].nkv = 2; /* the second has no key */
        TU_CHECK_STATUS(upq_writer_init(&w, &sink, el, n, arena, 1 << 20, &o), UPQ_ERR_INVAL);
        TU_CHECK(upq_writer_error(&w)->what && strstr(upq_writer_error(&w)->what, "key"));
        co[2].nkv = 1;
        TU_CHECK_STATUS(upq_writer_init(&w, &sink, el, n, arena, 1 << 20, &o), UPQ_OK);
        co[2].kv = NULL;
        TU_CHECK_STATUS(upq_writer_init(&w, &sink, el, n, arena, 1 << 20, &o), UPQ_ERR_INVAL);
        co[2].nkv = 0;
    }
    memset(&o, 0, sizeof o);
    o.page_size = 16;
    TU_CHECK_STATUS(upq_writer_init(&w, &sink, el, n, arena, 1 << 20, &o), UPQ_ERR_INVAL);
    o.page_size = 1024;
    o.chunk_size = 100;
    TU_CHECK_STATUS(upq_writer_init(&w, &sink, el, n, arena, 1 << 20, &o), UPQ_ERR_INVAL);

    tu_case("errors: input errors leave the writer usable");
    memset(&o, 0, sizeof o);
    o.page_size = 1024;
    TU_CHECK_STATUS(upq_writer_init(&w, &sink, el, n, arena, 1 << 20, &o), UPQ_OK);
    {
        int64_t ts = 5;
        float v = 1;
        uint8_t big[2000] = {0};
        upq_bytes dev = {big, 1021};
        uint16_t def[2] = {1, 1};
        TU_CHECK_STATUS(upq_writer_set(&w, 99, &ts), UPQ_ERR_INVAL);
        TU_CHECK_STATUS(upq_writer_set_null(&w, 0), UPQ_ERR_INVAL); /* required */
        TU_CHECK_STATUS(upq_writer_set(&w, 1, &dev), UPQ_ERR_LIMIT); /* longer than page_size - 4 */
        dev.ptr = NULL;
        dev.len = 3;
        TU_CHECK_STATUS(upq_writer_set(&w, 1, &dev), UPQ_ERR_INVAL); /* a length without bytes */
        dev.ptr = big;
        dev.len = 1020;
        TU_CHECK_STATUS(upq_writer_set(&w, 1, &dev), UPQ_OK);
        TU_CHECK_STATUS(upq_writer_set(&w, 2, &v), UPQ_OK);
        TU_CHECK_STATUS(upq_writer_end_row(&w), UPQ_ERR_INVAL); /* ts and ok unset */
        TU_CHECK_STATUS(upq_writer_write_column(&w, 2, def, NULL, &v, 1, &took), UPQ_ERR_INVAL);
        TU_CHECK_STATUS(upq_writer_set(&w, 0, &ts), UPQ_OK);
        TU_CHECK_STATUS(upq_writer_set(&w, 10, &ts), UPQ_OK);
        TU_CHECK_STATUS(upq_writer_end_row(&w), UPQ_OK);
        TU_CHECK_UINT(upq_writer_rows(&w), 1);
        TU_CHECK_STATUS(upq_writer_close(&w), UPQ_OK);
        TU_CHECK_STATUS(upq_writer_close(&w), UPQ_ERR_STATE);
        TU_CHECK_STATUS(upq_writer_set(&w, 0, &ts), UPQ_ERR_STATE);
    }

    tu_case("errors: column-wise input");
    build_nest_schema();
    memset(&o, 0, sizeof o);
    o.page_size = 256;
    sink_free(&s);
    sink_init(&s, SINK_WHOLE, 1);
    TU_CHECK_STATUS(upq_writer_init(&w, &sink, nest_elems, nest_n, arena, 1 << 20, &o), UPQ_OK);
    {
        uint16_t def[300], rep[300];
        int64_t v64[300];
        upq_bytes bv[300];
        int64_t id = 1;
        TU_CHECK_STATUS(upq_writer_set(&w, 0, &id), UPQ_ERR_INVAL); /* repeated fields */
        def[0] = 3;
        rep[0] = 1; /* does not start a row */
        bv[0].ptr = (const uint8_t *)"x";
        bv[0].len = 1;
        TU_CHECK_STATUS(upq_writer_write_column(&w, N_TAG, def, rep, bv, 1, &took), UPQ_ERR_INVAL);
        rep[0] = 0;
        def[0] = 4; /* above the maximum */
        TU_CHECK_STATUS(upq_writer_write_column(&w, N_TAG, def, rep, bv, 1, &took), UPQ_ERR_INVAL);
        def[0] = 3;
        def[1] = 0; /* repeating a list that is not there */
        rep[1] = 1;
        TU_CHECK_STATUS(upq_writer_write_column(&w, N_TAG, def, rep, bv, 2, &took), UPQ_ERR_INVAL);
        for (i = 0; i < 300; i++) { /* one row larger than a page */
            def[i] = 3;
            rep[i] = i ? 1 : 0;
            v64[i] = i;
        }
        TU_CHECK_STATUS(upq_writer_write_column(&w, N_VAL, def, rep, v64, 300, &took), UPQ_ERR_LIMIT);
        TU_CHECK_STATUS(upq_writer_write_column(&w, N_ID, NULL, NULL, v64, 10, &took), UPQ_OK);
        TU_CHECK_UINT(took, 10);
        TU_CHECK_STATUS(upq_writer_close(&w), UPQ_ERR_INVAL); /* other columns have no rows */
    }

    for (i = 0; i < 2; i++) {
        tu_case("errors: a failing sink is final (%s)", i ? "checkpoint mode, write_at" : "write");
        sensor_schema(el, &n);
        memset(&o, 0, sizeof o);
        o.page_size = 1024;
        o.row_group_rows = 50;
        o.checkpoint = (uint8_t)i;
        o.checkpoint_rows = i ? 20u : 0u;
        sink_free(&s);
        sink_init(&s, i ? SINK_AGAIN : SINK_WHOLE, 1);
        sink = sink_of(&s, i);
        s.fail_at = i ? 150000 : 3000; /* a full disk */
        TU_CHECK_STATUS(upq_writer_init(&w, &sink, el, n, arena, 1 << 20, &o), UPQ_OK);
        {
            upq_status st = UPQ_OK;
            uint32_t r;
            uint64_t durable;
            for (r = 0; r < 10000 && st == UPQ_OK; r++)
                st = sensor_row(&w, r);
            TU_CHECK_STATUS(st, UPQ_ERR_IO);
            TU_CHECK_STATUS(sensor_row(&w, r), UPQ_ERR_IO);
            TU_CHECK_STATUS(upq_writer_close(&w), UPQ_ERR_IO);
            TU_CHECK(s.n <= s.fail_at);
            durable = upq_writer_rows_durable(&w);
            if (i) {
                /* what was durable when the disk filled up is recovered */
                static upq_recover_state rs;
                static uint8_t rarena[32 << 10];
                upq_recover_info info;
                sink_buf c;
                upq_sink ck;
                unsigned long spins = 0;
                TU_CHECK_MSG(durable > 0 && durable < r, "%llu rows durable of %u, file %zu bytes",
                             (unsigned long long)durable, r, s.n);
                sink_init(&c, SINK_WHOLE, 1);
                sink_grow(&c, s.n);
                memcpy(c.p, s.p, s.n);
                ck = sink_of(&c, 1);
                memset(&rs, 0, sizeof rs);
                do
                    st = upq_recover(&rs, &ck, c.n, rarena, sizeof rarena, NULL, &info);
                while (st == UPQ_AGAIN && ++spins < 1000000ul);
                TU_CHECK_STATUS(st, UPQ_OK);
                TU_CHECK_MSG(info.rows >= durable && info.rows < r, "%llu rows recovered, %llu durable",
                             (unsigned long long)info.rows, (unsigned long long)durable);
                if (st == UPQ_OK) {
                    rfile f;
                    if (TU_CHECK_STATUS(rfile_open(&f, c.p, c.n), UPQ_OK))
                        TU_CHECK_UINT(upq_reader_metadata(&f.r)->num_rows, info.rows);
                    rfile_close(&f);
                }
                sink_free(&c);
            }
        }
    }
    sink_free(&s);
    free(arena);
}

static void test_empty(void)
{
    upq_schema_element el[12];
    uint32_t n;
    upq_writer_opts o;
    upq_writer w;
    sink_buf s;
    uint8_t *arena = NULL;
    rfile f;
    int cp;
    sensor_schema(el, &n);
    for (cp = 0; cp < 2; cp++) {
        tu_case("empty file (%s)", cp ? "checkpoint mode" : "plain");
        memset(&o, 0, sizeof o);
        o.checkpoint = (uint8_t)cp;
        sink_init(&s, SINK_ONE, 1);
        TU_CHECK_STATUS(open_writer(&w, &s, el, n, &o, &arena), UPQ_OK);
        {
            upq_status st;
            WU_RETRY(st, upq_writer_flush(&w)); /* nothing to flush */
            TU_CHECK_STATUS(st, UPQ_OK);
            WU_RETRY(st, upq_writer_close(&w));
            TU_CHECK_STATUS(st, UPQ_OK);
        }
        TU_CHECK(s.n > 12 && memcmp(s.p, "PAR1", 4) == 0);
        if (cp) /* synced when the journal starts, and at close: all of it */
            TU_CHECK(s.syncs >= 1 && s.syncs <= 4096 && s.syncs_at[s.syncs - 1] == s.n);
        else
            TU_CHECK_UINT(s.syncs, 1);
        if (TU_CHECK_STATUS(rfile_open(&f, s.p, s.n), UPQ_OK)) {
            TU_CHECK_INT(upq_reader_metadata(&f.r)->num_rows, 0);
            TU_CHECK_UINT(upq_reader_metadata(&f.r)->row_groups.n, 0);
            TU_CHECK_UINT(upq_reader_schema(&f.r)->num_columns, 11);
        }
        rfile_close(&f);
        check_footer_canonical(s.p, s.n, "empty");
        if (cp == 0)
            save_file("empty", &s);
        free(arena);
        sink_free(&s);
    }
}

/* ---- API behaviour ---------------------------------------------------------------- */

static void test_api(void)
{
    upq_schema_element el[12];
    uint32_t n, i;
    upq_writer_opts o;
    upq_writer w;
    sink_buf s;
    uint8_t *arena = NULL;
    upq_status st;
    rfile f;
    unsigned long syncs_flush = 0;

    tu_case("api: replacing a value, flush and poll with a blocking sink");
    sensor_schema(el, &n);
    memset(&o, 0, sizeof o);
    o.checkpoint = 1;
    sink_init(&s, SINK_AGAIN, 5);
    TU_CHECK_STATUS(open_writer(&w, &s, el, n, &o, &arena), UPQ_OK);
    for (i = 0; i < 30; i++) {
        upq_bytes first = {(const uint8_t *)"first-value", 11}, dev = {(const uint8_t *)"d", 1};
        float x = 1.0f, y = 2.0f;
        TU_CHECK_STATUS(sensor_row(&w, i) == UPQ_OK ? UPQ_OK : UPQ_ERR_STATE, UPQ_OK);
        /* a second row whose device and c0 are set twice */
        WU_RETRY(st, upq_writer_set(&w, 1, &first));
        WU_RETRY(st, upq_writer_set(&w, 2, &x));
        WU_RETRY(st, upq_writer_set(&w, 1, &dev));
        WU_RETRY(st, upq_writer_set_null(&w, 2));
        WU_RETRY(st, upq_writer_set(&w, 3, &y));
        {
            int64_t ts = 7;
            uint8_t ok = 0;
            WU_RETRY(st, upq_writer_set(&w, 0, &ts));
            WU_RETRY(st, upq_writer_set(&w, 10, &ok));
        }
        WU_RETRY(st, upq_writer_end_row(&w));
        TU_CHECK_STATUS(st, UPQ_OK);
        if (i == 10) {
            unsigned long tries = 0, before = s.syncs;
            TU_CHECK_UINT(upq_writer_rows_durable(&w), 0);
            do {
                st = upq_writer_flush(&w);
                tries++;
            } while (st == UPQ_AGAIN);
            TU_CHECK_STATUS(st, UPQ_OK);
            TU_CHECK_UINT(upq_writer_rows_durable(&w), 22);
            TU_CHECK(s.syncs > before); /* the row group's end was synced */
            syncs_flush = s.syncs;
            TU_CHECK_STATUS(upq_writer_poll(&w), UPQ_OK);
        }
    }
    WU_RETRY(st, upq_writer_close(&w));
    TU_CHECK_STATUS(st, UPQ_OK);
    TU_CHECK_UINT(upq_writer_rows_durable(&w), 60);
    TU_CHECK(s.syncs > syncs_flush && s.syncs <= 4096 && s.syncs_at[s.syncs - 1] == s.n);
    free(arena);
    if (TU_CHECK_STATUS(rfile_open(&f, s.p, s.n), UPQ_OK)) {
        upq_column_reader cr;
        upq_batch b;
        uint16_t def[64];
        upq_bytes v[64];
        float fv[64];
        TU_CHECK_UINT(upq_reader_metadata(&f.r)->row_groups.n, 2);
        TU_CHECK_STATUS(upq_column_open(&cr, &f.r, 0, 1), UPQ_OK);
        memset(&b, 0, sizeof b);
        b.values = v;
        b.cap = 64;
        TU_CHECK_STATUS(upq_column_read(&cr, &b), UPQ_OK);
        TU_CHECK(b.levels >= 2 && bytes_is(v[1], "d"));
        upq_column_close(&cr);
        TU_CHECK_STATUS(upq_column_open(&cr, &f.r, 0, 2), UPQ_OK);
        memset(&b, 0, sizeof b);
        b.values = fv;
        b.def = def;
        b.cap = 64;
        TU_CHECK_STATUS(upq_column_read(&cr, &b), UPQ_OK);
        TU_CHECK(b.levels >= 2 && def[1] == 0); /* replaced by null */
        upq_column_close(&cr);
    }
    rfile_close(&f);
    sink_free(&s);

    tu_case("api: after whole rows, a row's checks still hold (null in a required column, "
            "an unset required column, a flush, a row left open at close)");
    sensor_schema(el, &n);
    memset(&o, 0, sizeof o);
    o.checkpoint = 1;
    sink_init(&s, SINK_WHOLE, 1);
    TU_CHECK_STATUS(open_writer(&w, &s, el, n, &o, &arena), UPQ_OK);
    for (i = 0; i < 40; i++) {
        uint32_t k;
        int64_t ts = 1000 + (int64_t)i;
        upq_bytes dev = {(const uint8_t *)"dev-01", 6};
        uint8_t ok = 1;
        float x = (float)i;
        TU_CHECK_STATUS(upq_writer_set(&w, 0, &ts), UPQ_OK);
        if (i == 20) /* a required column refuses a null, a row in */
            TU_CHECK_STATUS(upq_writer_set_null(&w, 1), UPQ_ERR_INVAL);
        if (i == 20)
            break; /* the writer's error is sticky */
        TU_CHECK_STATUS(upq_writer_set(&w, 1, &dev), UPQ_OK);
        for (k = 0; k < 8; k++)
            TU_CHECK_STATUS(upq_writer_set(&w, 2 + k, &x), UPQ_OK);
        if (i != 10)
            TU_CHECK_STATUS(upq_writer_set(&w, 10, &ok), UPQ_OK);
        /* row 10 leaves the required "ok" unset: refused, then set */
        if (i == 10) {
            TU_CHECK_STATUS(upq_writer_end_row(&w), UPQ_ERR_INVAL);
            break;
        }
        TU_CHECK_STATUS(upq_writer_end_row(&w), UPQ_OK);
        if (i == 5) {
            WU_RETRY(st, upq_writer_flush(&w));
            TU_CHECK_STATUS(st, UPQ_OK);
            TU_CHECK_UINT(upq_writer_rows_durable(&w), 6);
        }
    }
    TU_CHECK_UINT(i, 10);
    TU_CHECK_UINT(upq_writer_rows(&w), 10);
    free(arena);
    arena = NULL;
    sink_free(&s);
    /* whole rows, then one left open: close drops it */
    sink_init(&s, SINK_WHOLE, 1);
    TU_CHECK_STATUS(open_writer(&w, &s, el, n, &o, &arena), UPQ_OK);
    for (i = 0; i < 30; i++)
        TU_CHECK_STATUS(sensor_row(&w, i), UPQ_OK);
    {
        int64_t ts = 5;
        TU_CHECK_STATUS(upq_writer_set(&w, 0, &ts), UPQ_OK);
    }
    WU_RETRY(st, upq_writer_close(&w));
    TU_CHECK_STATUS(st, UPQ_OK);
    free(arena);
    arena = NULL;
    if (TU_CHECK_STATUS(rfile_open(&f, s.p, s.n), UPQ_OK)) {
        const upq_file_metadata *m = upq_reader_metadata(&f.r);
        TU_CHECK_INT(m->num_rows, 30);
    }
    rfile_close(&f);
    sink_free(&s);

    tu_case("api: a column far ahead says UPQ_DONE; row groups end at exactly row_group_rows");
    {
        upq_schema_element e2[4];
        upq_schema_builder b;
        int64_t v[3000];
        double d[3000];
        size_t took = 0, pos0 = 0, pos1 = 0;
        int dones = 0;
        upq_sb_init(&b, e2, 4, NULL);
        upq_sb_column(&b, "a", UPQ_REP_REQUIRED, UPQ_TYPE_INT64, 0, NULL);
        upq_sb_column(&b, "b", UPQ_REP_REQUIRED, UPQ_TYPE_DOUBLE, 0, NULL);
        TU_CHECK_STATUS(upq_sb_finish(&b, &n), UPQ_OK);
        for (i = 0; i < 3000; i++) {
            v[i] = (int64_t)i * 7;
            d[i] = i * 0.5;
        }
        memset(&o, 0, sizeof o);
        o.page_size = 1024;
        o.row_group_rows = 700;
        o.chunk_size = 64 * 1024; /* room: only the row limit ends row groups */
        sink_init(&s, SINK_WHOLE, 1);
        TU_CHECK_STATUS(open_writer(&w, &s, e2, n, &o, &arena), UPQ_OK);
        while (pos0 < 3000 || pos1 < 3000) {
            if (pos0 < 3000) {
                st = upq_writer_write_column(&w, 0, NULL, NULL, v + pos0, 3000 - pos0, &took);
                TU_CHECK(st == UPQ_OK || st == UPQ_DONE);
                dones += st == UPQ_DONE;
                pos0 += took;
            }
            if (pos1 < 3000) {
                st = upq_writer_write_column(&w, 1, NULL, NULL, d + pos1, pos1 < 1500 ? 50 : 3000 - pos1, &took);
                TU_CHECK(st == UPQ_OK || st == UPQ_DONE);
                pos1 += took;
            }
            if (st < 0)
                break;
        }
        TU_CHECK(dones > 0);
        TU_CHECK_STATUS(upq_writer_close(&w), UPQ_OK);
        free(arena);
        if (TU_CHECK_STATUS(rfile_open(&f, s.p, s.n), UPQ_OK)) {
            const upq_file_metadata *m = upq_reader_metadata(&f.r);
            col_data want;
            TU_CHECK_UINT(m->row_groups.n, 5);
            for (i = 0; i < m->row_groups.n; i++)
                TU_CHECK_INT(m->row_groups.v[i].num_rows, i < 4 ? 700 : 200);
            memset(&want, 0, sizeof want);
            want.vals = v;
            want.n = want.nv = 3000;
            TU_CHECK_INT(wu_compare_column(&f, 0, UPQ_TYPE_INT64, 0, 0, &want, "ahead"), 0);
            want.vals = d;
            TU_CHECK_INT(wu_compare_column(&f, 1, UPQ_TYPE_DOUBLE, 0, 0, &want, "ahead"), 0);
        }
        rfile_close(&f);
        sink_free(&s);
    }
}

static void test_wide_values(void)
{
    upq_schema_element el[4];
    upq_schema_builder b;
    upq_writer_opts o;
    upq_writer w;
    sink_buf s;
    uint8_t *arena = NULL, wide[200], str[60];
    uint32_t n, i;
    rfile f;
    col_data want[2];
    upq_bytes wv[40], sv[40];
    tu_case("values as large as a page: FIXED_LEN_BYTE_ARRAY(200) and 60-byte strings, 64-byte pages");
    upq_sb_init(&b, el, 4, NULL);
    upq_sb_column(&b, "w", UPQ_REP_REQUIRED, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 200, NULL);
    upq_sb_column(&b, "s", UPQ_REP_REQUIRED, UPQ_TYPE_BYTE_ARRAY, 0, NULL);
    TU_CHECK_STATUS(upq_sb_finish(&b, &n), UPQ_OK);
    memset(&o, 0, sizeof o);
    o.page_size = 64;
    o.codec = UPQ_CODEC_SNAPPY;
    sink_init(&s, SINK_WHOLE, 1);
    TU_CHECK_STATUS(open_writer(&w, &s, el, n, &o, &arena), UPQ_OK);
    for (i = 0; i < 40; i++) {
        memset(wide, (int)(i % 5), sizeof wide);
        memset(str, 'a' + (int)(i % 26), sizeof str);
        wv[i].ptr = (uint8_t *)malloc(200);
        memcpy((uint8_t *)wv[i].ptr, wide, 200);
        wv[i].len = 200;
        sv[i].ptr = (uint8_t *)malloc(60);
        memcpy((uint8_t *)sv[i].ptr, str, 60);
        sv[i].len = 60;
        TU_CHECK_STATUS(upq_writer_set(&w, 0, &wv[i]), UPQ_OK);
        TU_CHECK_STATUS(upq_writer_set(&w, 1, &sv[i]), UPQ_OK);
        TU_CHECK_STATUS(upq_writer_end_row(&w), UPQ_OK);
    }
    TU_CHECK_STATUS(upq_writer_close(&w), UPQ_OK);
    free(arena);
    memset(want, 0, sizeof want);
    want[0].vals = wv;
    want[1].vals = sv;
    want[0].n = want[0].nv = want[1].n = want[1].nv = 40;
    if (TU_CHECK_STATUS(rfile_open(&f, s.p, s.n), UPQ_OK)) {
        TU_CHECK_INT(wu_compare_column(&f, 0, UPQ_TYPE_FIXED_LEN_BYTE_ARRAY, 0, 0, &want[0], "wide"), 0);
        TU_CHECK_INT(wu_compare_column(&f, 1, UPQ_TYPE_BYTE_ARRAY, 0, 0, &want[1], "wide"), 0);
    }
    rfile_close(&f);
    check_footer_canonical(s.p, s.n, "wide");
    for (i = 0; i < 40; i++) {
        free((void *)wv[i].ptr);
        free((void *)sv[i].ptr);
    }
    sink_free(&s);
}

/* ---- DuckDB ----------------------------------------------------------------------- */

static void test_duckdb(void)
{
    char cmd[16384];
    char line[4096];
    FILE *p;
    long pass = -1, fail = -1;
    tu_case("DuckDB reads every written file as upq cat --json does");
    if (sanitizer_build) {
        tu_note("skipped in the sanitizer build");
        return;
    }
    if (access("test/interop/node_modules/@duckdb/node-api", F_OK) != 0 ||
        access("build/host/upq", X_OK) != 0 || written_files[0] == 0) {
        tu_note("skipped: DuckDB (make interop-deps) or build/host/upq missing");
        return;
    }
    snprintf(cmd, sizeof cmd,
             "node test/interop/cat_vs_duckdb.mjs --upq build/host/upq %s 2>&1 && "
             "node test/interop/writer_stats_duckdb.mjs %s 2>&1",
             written_files, written_files);
    p = popen(cmd, "r");
    if (!TU_CHECK(p != NULL))
        return;
    while (fgets(line, sizeof line, p)) {
        long a, b;
        if (strncmp(line, "FAIL", 4) == 0)
            printf("  %s", line);
        if (sscanf(line, "%ld passed, %ld failed", &a, &b) == 2) {
            pass = pass < 0 ? a : pass + a;
            fail = fail < 0 ? b : fail + b;
        }
    }
    TU_CHECK_INT(pclose(p), 0);
    TU_CHECK(pass > 0);
    TU_CHECK_INT(fail, 0);
    tu_note("DuckDB: %ld passed, %ld failed", pass, fail);
}

int main(int argc, char **argv)
{
    (void)argc;
    if (strstr(argv[0], "/asan/")) {
        sanitizer_build = 1;
        out_dir = "build/check/writer-asan";
    }
    test_schema_builder();
    test_schema_annotations();
    test_schema_refusals();
    test_schema_index();
    test_flat();
    test_nested();
    test_statistics();
    test_page_index();
    test_workspace();
    test_errors();
    test_empty();
    test_api();
    test_wide_values();
    test_duckdb();
    return tu_summary();
}
