/* The sensor logger's command line and main loop (see logger_cli.h). */
#include "logger_cli.h"

static size_t slen(const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

int sensor_streq(const char *a, const char *b)
{
    while (*a && *a == *b) {
        a++;
        b++;
    }
    return *a == *b;
}

void sensor_puts(const sensor_out *o, const char *s)
{
    o->put(o->ctx, s, slen(s));
}

void sensor_put_u64(const sensor_out *o, uint64_t v)
{
    char d[21];
    int n = 0;
    char r[21];
    int k = 0;
    do {
        /* 32-bit cores: no 64-bit division in the common case */
        if (v <= 0xFFFFFFFFu) {
            uint32_t w = (uint32_t)v;
            d[n++] = (char)('0' + w % 10u);
            v = w / 10u;
        } else {
            d[n++] = (char)('0' + (unsigned)(v % 10u));
            v /= 10u;
        }
    } while (v);
    while (n > 0)
        r[k++] = d[--n];
    o->put(o->ctx, r, (size_t)k);
}

/* Decimal or 0x hex, with an optional K (x1024) or M (x1048576) suffix. */
static int parse_u64(const char *s, uint64_t *out)
{
    uint64_t v = 0, base = 10, mul = 1;
    int digits = 0;
    if (!s || !*s)
        return 0;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    for (; *s; s++) {
        unsigned dg;
        char ch = *s;
        if (ch >= '0' && ch <= '9')
            dg = (unsigned)(ch - '0');
        else if (base == 16 && ch >= 'a' && ch <= 'f')
            dg = (unsigned)(ch - 'a' + 10);
        else if (base == 16 && ch >= 'A' && ch <= 'F')
            dg = (unsigned)(ch - 'A' + 10);
        else
            break;
        if (v > (UINT64_MAX - dg) / base)
            return 0;
        v = v * base + dg;
        digits++;
    }
    if (!digits)
        return 0;
    if (*s == 'K' && base == 10)
        mul = 1024u, s++;
    else if (*s == 'M' && base == 10)
        mul = 1048576u, s++;
    if (*s || v > UINT64_MAX / mul)
        return 0;
    *out = v * mul;
    return 1;
}

static int usage(const sensor_out *err)
{
    sensor_puts(err, "usage: sensor_logger [--rows N] [--seed S] [--row-group-rows N] [--checkpoint-rows N]\n"
                     "                     [--page-size N] [--device NAME] [--again] [--resume]\n"
                     "                     [--max-file-rows N] [--max-file-bytes N]\n"
                     "                     [--fs posix|fatfs|littlefs|semihost] [--image PATH] [--count]\n"
                     "                     OUT.parquet\n");
    return 2;
}

/* "log.parquet" is file 0 of its log, "log.3.parquet" file 3. */
static int split_name(sensor_cli *c)
{
    const char *out = c->path;
    size_t n = slen(out), e = n, d, k;
    uint64_t v;
    if (n >= sizeof c->stem)
        return 0;
    c->ext = "";
    if (n > 8 && sensor_streq(out + n - 8, ".parquet")) {
        c->ext = ".parquet";
        e = n - 8;
    }
    for (k = 0; k < e; k++)
        c->stem[k] = out[k];
    c->stem[e] = '\0';
    c->cfg.first_file = 0;
    d = e;
    while (d > 0 && out[d - 1] >= '0' && out[d - 1] <= '9')
        d--;
    if (d < e && d > 0 && out[d - 1] == '.' && e - d <= 9) {
        char num[10];
        for (k = d; k < e; k++)
            num[k - d] = out[k];
        num[e - d] = '\0';
        if (parse_u64(num, &v)) {
            c->cfg.first_file = (uint32_t)v;
            c->stem[d - 1] = '\0';
        }
    }
    return 1;
}

const char *sensor_cli_file_name(sensor_cli *c, uint32_t n)
{
    size_t k = 0, i;
    char dig[12];
    int nd = 0;
    for (i = 0; c->stem[i] && k < sizeof c->name - 1; i++)
        c->name[k++] = c->stem[i];
    if (n) {
        c->name[k++] = '.';
        do
            dig[nd++] = (char)('0' + n % 10u);
        while ((n /= 10u) != 0 && nd < 11);
        while (nd > 0 && k < sizeof c->name - 1)
            c->name[k++] = dig[--nd];
    }
    for (i = 0; c->ext[i] && k < sizeof c->name - 1; i++)
        c->name[k++] = c->ext[i];
    c->name[k] = '\0';
    return c->name;
}

/* An option taking a number: 1 when argv[*i] is `name` with a valid value. */
static int num_opt(int argc, char **argv, int *i, const char *name, uint64_t lo, uint64_t hi,
                   uint64_t *v)
{
    if (!sensor_streq(argv[*i], name) || *i + 1 >= argc || !parse_u64(argv[*i + 1], v) || *v < lo ||
        *v > hi)
        return 0;
    (*i)++;
    return 1;
}

static int fs_opt(const char *s)
{
    if (sensor_streq(s, "posix"))
        return SENSOR_FS_POSIX;
    if (sensor_streq(s, "fatfs"))
        return SENSOR_FS_FATFS;
    if (sensor_streq(s, "littlefs"))
        return SENSOR_FS_LITTLEFS;
    if (sensor_streq(s, "semihost"))
        return SENSOR_FS_SEMIHOST;
    return -1;
}

int sensor_cli_parse(sensor_cli *c, int argc, char **argv, const sensor_out *err)
{
    volatile uint8_t *z = (volatile uint8_t *)c;
    size_t k;
    uint64_t v;
    int i;
    for (k = 0; k < sizeof *c; k++)
        z[k] = 0;
    c->cfg.device = "sensor-07";
    c->cfg.seed = 42;
    c->cfg.rows = 10000;
    c->cfg.row_group_rows = SENSOR_ROW_GROUP_ROWS;
    c->cfg.checkpoint_rows = SENSOR_CHECKPOINT_ROWS;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (num_opt(argc, argv, &i, "--rows", 0, UINT64_MAX, &v))
            c->cfg.rows = v;
        else if (num_opt(argc, argv, &i, "--seed", 0, UINT64_MAX, &v))
            c->cfg.seed = v;
        else if (num_opt(argc, argv, &i, "--row-group-rows", 1, UINT32_MAX, &v))
            c->cfg.row_group_rows = (uint32_t)v;
        else if (num_opt(argc, argv, &i, "--checkpoint-rows", 0, UINT32_MAX, &v))
            c->cfg.checkpoint_rows = (uint32_t)v;
        else if (num_opt(argc, argv, &i, "--page-size", 64, 1u << 20, &v))
            c->cfg.page_size = (uint32_t)v;
        else if (num_opt(argc, argv, &i, "--max-file-rows", 1, UINT64_MAX, &v))
            c->cfg.max_file_rows = v;
        else if (num_opt(argc, argv, &i, "--max-file-bytes", 1, UINT64_MAX, &v))
            c->cfg.max_file_bytes = v;
        else if (sensor_streq(a, "--resume"))
            c->cfg.resume = 1;
        else if (sensor_streq(a, "--again"))
            c->again = 1;
        else if (sensor_streq(a, "--count"))
            c->count = 1;
        else if (sensor_streq(a, "--device") && i + 1 < argc)
            c->cfg.device = argv[++i];
        else if (sensor_streq(a, "--image") && i + 1 < argc)
            c->image = argv[++i];
        else if (sensor_streq(a, "--fs") && i + 1 < argc && fs_opt(argv[i + 1]) > 0)
            c->fs = (uint8_t)fs_opt(argv[++i]);
        else if (a[0] == '-' || c->path)
            return usage(err);
        else
            c->path = a;
    }
    if (!c->path || !split_name(c))
        return usage(err);
    return 0;
}

/* ---- the run -------------------------------------------------------------------- */

/* --again: the store's sink behind one that says "would block" every
 * other write call (the writer's retries must give the same file). */
static upq_status busy_write_at(void *ctx, uint64_t off, const void *buf, size_t len, size_t *written)
{
    sensor_cli *c = (sensor_cli *)ctx;
    *written = 0;
    if (++c->writes & 1u)
        return UPQ_AGAIN;
    return c->inner.write_at(c->inner.ctx, off, buf, len, written);
}

static upq_status busy_write(void *ctx, const void *buf, size_t len, size_t *written)
{
    sensor_cli *c = (sensor_cli *)ctx;
    *written = 0;
    if (++c->writes & 1u)
        return UPQ_AGAIN;
    return c->inner.write(c->inner.ctx, buf, len, written);
}

static upq_status pass_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    sensor_cli *c = (sensor_cli *)ctx;
    return c->inner.read_at(c->inner.ctx, off, buf, len, got);
}

static upq_status pass_sync(void *ctx)
{
    sensor_cli *c = (sensor_cli *)ctx;
    return c->inner.sync(c->inner.ctx);
}

static upq_status pass_truncate(void *ctx, uint64_t size)
{
    sensor_cli *c = (sensor_cli *)ctx;
    return c->inner.truncate(c->inner.ctx, size);
}

static upq_status pass_seal(void *ctx, uint64_t off)
{
    sensor_cli *c = (sensor_cli *)ctx;
    return c->inner.seal(c->inner.ctx, off);
}

static upq_status cli_open(void *ctx, uint32_t n, int resume, upq_sink *sink, uint64_t *size)
{
    sensor_cli *c = (sensor_cli *)ctx;
    upq_status st = c->store.open(c->store.ctx, sensor_cli_file_name(c, n), !resume, sink, size);
    if (st != UPQ_OK || !c->again)
        return st;
    c->inner = *sink;
    sink->ctx = c;
    sink->write = c->inner.write ? busy_write : 0;
    sink->write_at = c->inner.write_at ? busy_write_at : 0;
    sink->read_at = c->inner.read_at ? pass_read_at : 0;
    sink->sync = c->inner.sync ? pass_sync : 0;
    sink->truncate = c->inner.truncate ? pass_truncate : 0;
    sink->seal = c->inner.seal ? pass_seal : 0;
    return UPQ_OK;
}

static upq_status cli_close(void *ctx, uint32_t n)
{
    sensor_cli *c = (sensor_cli *)ctx;
    (void)n;
    sensor_puts(&c->out, "file: ");
    sensor_puts(&c->out, c->name);
    sensor_puts(&c->out, ": ");
    sensor_put_u64(&c->out, c->lg->file_rows);
    sensor_puts(&c->out, " rows, ");
    sensor_put_u64(&c->out, upq_writer_file_size(&c->lg->w));
    sensor_puts(&c->out, " bytes\n");
    return c->store.close(c->store.ctx);
}

static void put_error(sensor_cli *c, upq_status st)
{
    const upq_error_info *e = upq_writer_error(&c->lg->w);
    const sensor_out *o = &c->out;
    sensor_puts(o, "sensor_logger: ");
    sensor_puts(o, c->name[0] ? c->name : c->path);
    sensor_puts(o, ": after ");
    sensor_put_u64(o, c->lg->file_rows);
    sensor_puts(o, " rows: ");
    if (e->status == UPQ_OK) {
        /* the writer did not fail: the store did, and has said why */
        sensor_puts(o, upq_strerror(st));
        sensor_puts(o, "\n");
        return;
    }
    sensor_puts(o, e->what ? e->what : "error");
    sensor_puts(o, " (");
    sensor_puts(o, upq_strerror(st));
    sensor_puts(o, ")");
    if (e->offset != UINT64_MAX) {
        sensor_puts(o, " at offset ");
        sensor_put_u64(o, e->offset);
    }
    if (e->column >= 0) {
        sensor_puts(o, " in column ");
        sensor_put_u64(o, (uint64_t)e->column);
    }
    sensor_puts(o, "\n");
}

int sensor_cli_run(sensor_cli *c, sensor_logger *lg, const sensor_store *store, const sensor_out *out,
                   void (*tick)(void *), void *tick_ctx)
{
    sensor_files files;
    upq_status st;
    c->lg = lg;
    c->store = *store;
    c->out = *out;
    files.open = cli_open;
    files.close = cli_close;
    files.ctx = c;
    st = sensor_logger_open(lg, &files, &c->cfg);
    sensor_puts(out, "arena: ");
    sensor_put_u64(out, sensor_logger_arena_size());
    sensor_puts(out, " bytes static, the writer needs ");
    sensor_put_u64(out, sensor_logger_arena_need(lg));
    sensor_puts(out, "\n");
    if (st != UPQ_OK) {
        sensor_puts(out, "sensor_logger: cannot start the writer: ");
        sensor_puts(out, upq_strerror(st));
        sensor_puts(out, "\n");
        return 1;
    }
    /* the main loop: a board would do other work when the card is busy */
    do {
        st = sensor_logger_step(lg);
        if (tick)
            tick(tick_ctx);
    } while (st == UPQ_OK || st == UPQ_AGAIN);
    if (st != UPQ_DONE) {
        put_error(c, st);
        (void)store->close(store->ctx); /* a store closes only what is open */
        return 1;
    }
    /* every row is durable once sensor_logger_step() said UPQ_DONE */
    sensor_puts(out, "rows: ");
    sensor_put_u64(out, c->cfg.rows);
    sensor_puts(out, " written (readings ");
    sensor_put_u64(out, lg->end - c->cfg.rows);
    sensor_puts(out, " to ");
    sensor_put_u64(out, lg->end ? lg->end - 1u : 0u);
    sensor_puts(out, ") in ");
    sensor_put_u64(out, lg->file - c->cfg.first_file + 1u);
    sensor_puts(out, lg->file == c->cfg.first_file ? " file\n" : " files\n");
    return 0;
}
