/*
 * The sensor logger's core: schema, writer options, the readings and the
 * row loop. Portable C99 that includes nothing but the µparquet headers:
 * no libc, no heap (the writer's memory is the static arena below), no
 * blocking (a sink that says "again" makes sensor_logger_step() return
 * UPQ_AGAIN, and the next call resumes the same row).
 */
#include "sensor_logger.h"

/* The writer's memory; 8-aligned as upq_writer_init asks. */
static uint64_t sensor_arena[SENSOR_ARENA_BYTES / 8];

static const char *const channel_names[SENSOR_CHANNELS] = {"ch0", "ch1", "ch2", "ch3",
                                                           "ch4", "ch5", "ch6", "ch7"};

enum { COL_TS = 0, COL_DEVICE = 1, COL_CH0 = 2, COL_STATUS = 2 + SENSOR_CHANNELS };
enum {
    ST_OPEN = 0, /* the platform opens the current file */
    ST_INIT,     /* the writer starts on it (resuming it when asked) */
    ST_RESUME,
    ST_NEXT,     /* the next row, or the file's end */
    ST_SET,
    ST_END,
    ST_CLOSE,    /* the writer closes the file */
    ST_RELEASE,  /* the platform lets it go; then the next file, or done */
    ST_DONE
};

/* 2024-06-01T00:00:00Z, and one row every 100 ms. */
#define START_US INT64_C(1717200000000000)
#define PERIOD_US 100000

/* Byte-wise clear: no memset on a board without libc. */
static void zero(void *p, size_t n)
{
    volatile uint8_t *b = (volatile uint8_t *)p;
    while (n-- > 0)
        *b++ = 0;
}

static void copy(void *dst, const void *src, size_t n)
{
    volatile uint8_t *d = (volatile uint8_t *)dst;
    const uint8_t *s = (const uint8_t *)src;
    while (n-- > 0)
        *d++ = *s++;
}

static size_t cstr_len(const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

/* ---- readings ---------------------------------------------------------------- */

/* xorshift64*: small, fast and the same on every platform. */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * UINT64_C(0x2545F4914F6CDD1D);
}

void sensor_read(uint64_t *rng, uint64_t i, sensor_sample *out)
{
    uint64_t r = rng_next(rng), r2 = rng_next(rng);
    /* the waves only need the row number modulo their periods: 32 bits keep
     * 64-bit division (a runtime call on 32-bit cores) out */
    uint32_t i32 = (uint32_t)i;
    unsigned k, valid = 0;
    /* a little jitter, always less than the period: timestamps only grow */
    out->ts_us = START_US + (int64_t)i * PERIOD_US + (int64_t)(r & 0x3FF);
    out->valid = 0;
    for (k = 0; k < SENSOR_CHANNELS; k++) {
        /* a triangle wave per channel, its own period, plus noise */
        uint32_t period = 200u + 50u * k;
        uint32_t phase = (i32 + 37u * k) % period;
        uint32_t tri = phase < period / 2 ? phase : period - phase;
        float noise = ((float)((r >> (8 * k)) & 0xFF) / 255.0f - 0.5f) * 0.2f;
        out->ch[k] = 20.0f + 2.5f * (float)k + 5.0f * (float)tri / (float)(period / 2) + noise;
        /* a channel drops out about one reading in sixteen; ch7 also for a
         * stretch of every thousand rows */
        if (((r2 >> (4 * k)) & 0xF) != 0 && !(k == 7 && i32 % 1000u >= 500u && i32 % 1000u < 520u)) {
            out->valid = (uint8_t)(out->valid | (1u << k));
            valid++;
        } else {
            out->ch[k] = 0.0f;
        }
    }
    out->status_ok = valid >= SENSOR_CHANNELS - 1;
}

/* ---- the file ------------------------------------------------------------------ */

static upq_status build_schema(sensor_logger *lg)
{
    upq_schema_builder b;
    upq_logical_type lt;
    unsigned k;
    upq_sb_init(&b, lg->elems, SENSOR_COLUMNS + 1, "sensor");
    upq_lt_timestamp(&lt, UPQ_TIME_UNIT_MICROS, 1);
    upq_sb_column(&b, "ts", UPQ_REP_REQUIRED, UPQ_TYPE_INT64, 0, &lt);
    upq_lt_string(&lt);
    upq_sb_column(&b, "device", UPQ_REP_REQUIRED, UPQ_TYPE_BYTE_ARRAY, 0, &lt);
    for (k = 0; k < SENSOR_CHANNELS; k++)
        upq_sb_column(&b, channel_names[k], UPQ_REP_OPTIONAL, UPQ_TYPE_FLOAT, 0, 0);
    upq_sb_column(&b, "status", UPQ_REP_REQUIRED, UPQ_TYPE_BOOLEAN, 0, 0);
    return upq_sb_finish(&b, &lg->nelems); /* the builder's errors are sticky */
}

/* Checkpoint mode: row groups of the configured size whatever the RAM (each
 * column chunk is written to its place in the file page by page), and a
 * checkpoint every so many rows costs only what changed. The encodings suit
 * each column: timestamps grow steadily (DELTA_BINARY_PACKED), the device
 * name repeats (dictionary), float bytes compress better split by
 * significance (BYTE_STREAM_SPLIT), flags are runs (RLE). */
static void set_options(sensor_logger *lg)
{
    upq_writer_opts *o = &lg->opts;
    unsigned k;
    zero(o, sizeof *o);
    o->page_size = lg->cfg.page_size ? lg->cfg.page_size : SENSOR_PAGE_SIZE;
    o->dict_size = 256; /* one device name */
    o->row_group_rows = lg->cfg.row_group_rows ? lg->cfg.row_group_rows : SENSOR_ROW_GROUP_ROWS;
    o->checkpoint = 1;
    o->checkpoint_rows = lg->cfg.checkpoint_rows;
    o->max_file_bytes = lg->cfg.max_file_bytes;
    for (k = 0; k < SENSOR_COLUMNS; k++) {
        lg->cols[k].encoding = -1;
        lg->cols[k].dictionary = 0;
        lg->cols[k].bloom = 0;
    }
    lg->cols[COL_TS].encoding = UPQ_ENC_DELTA_BINARY_PACKED;
    lg->cols[COL_DEVICE].dictionary = 1;
    for (k = 0; k < SENSOR_CHANNELS; k++)
        lg->cols[COL_CH0 + k].encoding = UPQ_ENC_BYTE_STREAM_SPLIT;
    lg->cols[COL_STATUS].encoding = UPQ_ENC_RLE;
    o->columns = lg->cols;
    o->ncolumns = SENSOR_COLUMNS;
}

/* The options that differ per file: the rows it will hold when known (so
 * its last row group ends there and no reserved space is left behind), and
 * its id (the journal tells the files of a log apart by it). */
static void set_file_options(sensor_logger *lg)
{
    uint64_t left = lg->end - lg->row;
    if (lg->cfg.max_file_rows && lg->cfg.max_file_rows < left)
        left = lg->cfg.max_file_rows;
    lg->opts.file_rows = lg->cfg.resume && lg->file == lg->cfg.first_file ? 0u : left;
    lg->opts.file_id = (lg->cfg.file_id ? lg->cfg.file_id : lg->cfg.seed ^ UINT64_C(0x5EED5EED5EED5EED)) +
                       lg->file;
}

upq_status sensor_logger_setup(sensor_logger *lg, const sensor_config *cfg)
{
    upq_status st;
    zero(lg, sizeof *lg);
    copy(&lg->cfg, cfg, sizeof *cfg); /* a struct copy could become a memcpy call */
    lg->device.ptr = (const uint8_t *)cfg->device;
    lg->device.len = cfg->device ? (uint32_t)cstr_len(cfg->device) : 0u;
    lg->rng = cfg->seed ^ UINT64_C(0x9E3779B97F4A7C15);
    if (lg->rng == 0)
        lg->rng = 1; /* xorshift's one fixed point */
    lg->end = cfg->rows;
    lg->file = cfg->first_file;
    st = build_schema(lg);
    if (st != UPQ_OK)
        return st;
    set_options(lg);
    set_file_options(lg);
    return UPQ_OK;
}

upq_status sensor_logger_open(sensor_logger *lg, const sensor_files *files, const sensor_config *cfg)
{
    upq_status st = sensor_logger_setup(lg, cfg);
    if (st != UPQ_OK)
        return st;
    /* checkpoint mode: finished row groups are described in the file, so
     * no RAM is set aside for them */
    st = upq_writer_workspace_size(lg->elems, lg->nelems, &lg->opts, 0u, &lg->arena_need);
    if (st != UPQ_OK)
        return st;
    if (lg->arena_need > sizeof sensor_arena)
        return UPQ_ERR_NOMEM;
    lg->files = *files;
    lg->stage = ST_OPEN;
    return UPQ_OK;
}

/* Sets columns lg->col.. of the current row; UPQ_AGAIN keeps the place. */
static upq_status set_columns(sensor_logger *lg)
{
    const sensor_sample *s = &lg->cur;
    upq_status st = UPQ_OK;
    while (lg->col < SENSOR_COLUMNS) {
        unsigned c = lg->col;
        if (c == COL_TS) {
            st = upq_writer_set(&lg->w, c, &s->ts_us);
        } else if (c == COL_DEVICE) {
            st = upq_writer_set(&lg->w, c, &lg->device);
        } else if (c == COL_STATUS) {
            uint8_t ok = s->status_ok;
            st = upq_writer_set(&lg->w, c, &ok);
        } else {
            unsigned k = c - COL_CH0;
            st = (s->valid >> k) & 1u ? upq_writer_set(&lg->w, c, &s->ch[k])
                                      : upq_writer_set_null(&lg->w, c);
        }
        if (st != UPQ_OK)
            return st;
        lg->col++;
    }
    return UPQ_OK;
}

/* Does the current file end before the next row? */
static int file_ends(sensor_logger *lg)
{
    if (lg->row >= lg->end)
        return 1;
    if (lg->cfg.max_file_rows && lg->file_rows >= lg->cfg.max_file_rows)
        return 1;
    return upq_writer_file_full(&lg->w);
}

upq_status sensor_logger_step(sensor_logger *lg)
{
    upq_status st;
    upq_sink sink;
    uint64_t i;
    for (;;) {
        switch (lg->stage) {
        case ST_OPEN: {
            int resume = lg->cfg.resume && lg->file == lg->cfg.first_file;
            st = lg->files.open(lg->files.ctx, lg->file, resume, &sink, &lg->resume_size);
            if (st != UPQ_OK)
                return st;
            set_file_options(lg);
            st = upq_writer_init(&lg->w, &sink, lg->elems, lg->nelems, sensor_arena, sizeof sensor_arena,
                                 &lg->opts);
            if (st != UPQ_OK)
                return st;
            lg->file_rows = 0;
            lg->stage = resume ? ST_RESUME : ST_NEXT;
            continue;
        }
        case ST_RESUME:
            /* the file as far as it was checkpointed (the rest of a cut
             * run is dropped), then on from there */
            st = upq_writer_resume(&lg->w, lg->resume_size);
            if (st != UPQ_OK)
                return st;
            lg->file_rows = upq_writer_rows(&lg->w);
            /* the readings go on from the rows the file holds: the
             * generator's state after them */
            for (i = 0; i < lg->file_rows; i++) {
                sensor_sample skip;
                sensor_read(&lg->rng, i, &skip);
            }
            lg->row = lg->file_rows;
            lg->end += lg->row;
            {
                uint64_t left = lg->end - lg->row;
                if (lg->cfg.max_file_rows && lg->cfg.max_file_rows - lg->file_rows < left)
                    left = lg->cfg.max_file_rows > lg->file_rows ? lg->cfg.max_file_rows - lg->file_rows : 0u;
                upq_writer_set_file_rows(&lg->w, lg->file_rows + left);
            }
            lg->stage = ST_NEXT;
            continue;
        case ST_NEXT:
            if (file_ends(lg)) {
                lg->stage = ST_CLOSE;
                continue;
            }
            sensor_read(&lg->rng, lg->row, &lg->cur);
            lg->col = 0;
            lg->stage = ST_SET;
            continue;
        case ST_SET:
            st = set_columns(lg);
            if (st != UPQ_OK)
                return st;
            lg->stage = ST_END;
            continue;
        case ST_END:
            st = upq_writer_end_row(&lg->w);
            if (st != UPQ_OK)
                return st;
            lg->row++;
            lg->file_rows++;
            lg->stage = ST_NEXT;
            return UPQ_OK;
        case ST_CLOSE:
            st = upq_writer_close(&lg->w);
            if (st != UPQ_OK)
                return st;
            lg->stage = ST_RELEASE;
            continue;
        case ST_RELEASE:
            if (lg->files.close) {
                st = lg->files.close(lg->files.ctx, lg->file);
                if (st != UPQ_OK)
                    return st;
            }
            if (lg->row >= lg->end) {
                lg->stage = ST_DONE;
                return UPQ_DONE;
            }
            lg->file++;
            lg->stage = ST_OPEN;
            return UPQ_OK;
        default:
            return UPQ_DONE;
        }
    }
}

size_t sensor_logger_arena_size(void)
{
    return sizeof sensor_arena;
}

size_t sensor_logger_arena_need(const sensor_logger *lg)
{
    return lg->arena_need;
}
