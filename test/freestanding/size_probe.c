/*
 * The size probe: a bare Cortex-M4 image (qemu mps2-an386, output through
 * semihosting) that prints what only the target can say exactly:
 *
 *   struct NAME BYTES          sizeof every public struct (the list is
 *                              generated from the headers: size_structs.h)
 *   arena NAME PAGE BYTES      upq_writer_workspace_size() for the sensor
 *                              logger's schema with PAGE-byte pages, for:
 *                              logger   its own options (checkpoint mode),
 *                              defaults every option by default but checkpoint
 *                                       mode
 *   logger-arena BYTES         the same for the logger as it runs (its page size)
 *   recover-cut LEN ROWS BYTES the least arena upq_recover() succeeds in on the
 *                              logger's file cut to LEN bytes (ROWS recovered)
 *   recover-arena BYTES        the largest of them
 *
 * test/freestanding/size_report.mjs reads the output.
 */
#include <stddef.h>
#include <stdint.h>

#include "uparquet/uparquet.h"
#include "uparquet/writer.h"
#include "sensor_logger.h"
#include "size_structs.h"

typedef void (*probe_fn)(void);

extern uint32_t upq_image_data_load[], upq_image_data_start[], upq_image_data_end[];
extern uint32_t upq_image_bss_start[], upq_image_bss_end[];
extern uint32_t upq_image_stack_top[];

int main(void);
void upq_image_reset(void);
void upq_image_fault(void);

/* ARM semihosting: operation in r0, argument in r1, "bkpt 0xab". */
static void semihost(uint32_t op, const void *arg)
{
    register uint32_t r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
}

static void sh_exit(uint32_t code)
{
    /* SYS_EXIT with ADP_Stopped_ApplicationExit (ok) or RunTimeErrorUnknown */
    semihost(0x18, (const void *)(uintptr_t)(code == 0 ? 0x20026u : 0x20024u));
}

void upq_image_fault(void)
{
    sh_exit(1);
    for (;;) {
    }
}

void upq_image_reset(void)
{
    volatile uint32_t *d = upq_image_data_start;
    const uint32_t *s = upq_image_data_load;
    /* the FPU on (CPACR: CP10 and CP11 full access): the logger's readings
     * are floats */
    *(volatile uint32_t *)0xE000ED88u |= 0xFu << 20;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    while (d < upq_image_data_end)
        *d++ = *s++;
    for (d = upq_image_bss_start; d < upq_image_bss_end;)
        *d++ = 0;
    sh_exit((uint32_t)main());
    upq_image_fault();
}

__attribute__((section(".vectors"), used)) const probe_fn probe_vectors[16] = {
    (probe_fn)upq_image_stack_top, upq_image_reset, upq_image_fault, upq_image_fault,
    upq_image_fault, upq_image_fault, upq_image_fault, 0, 0, 0, 0,
    upq_image_fault, upq_image_fault, 0, upq_image_fault, upq_image_fault,
};

/* ---- output -------------------------------------------------------------------- */

static char line[160];
static size_t pos;

static void put_str(const char *s)
{
    while (*s && pos + 1 < sizeof line)
        line[pos++] = *s++;
}

static void put_u32(uint32_t v)
{
    char d[12];
    int n = 0;
    do {
        d[n++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v);
    while (n > 0 && pos + 1 < sizeof line)
        line[pos++] = d[--n];
}

static void end_line(void)
{
    line[pos++] = '\n';
    line[pos] = 0;
    semihost(0x04, line); /* SYS_WRITE0 */
    pos = 0;
}

/* ---- what it prints --------------------------------------------------------------- */

static sensor_logger lg;

/* The logger's configuration: its defaults (512-byte pages, 64K-row row
 * groups, a checkpoint every 600 rows), pages of `page` bytes (0: its
 * default), `rows` rows. */
static void logger_cfg(sensor_config *cfg, uint32_t page, uint64_t rows)
{
    uint32_t k;
    for (k = 0; k < sizeof *cfg; k++)
        ((uint8_t *)cfg)[k] = 0;
    cfg->device = "sensor-07";
    cfg->seed = 1;
    cfg->rows = rows;
    cfg->row_group_rows = SENSOR_ROW_GROUP_ROWS;
    cfg->checkpoint_rows = SENSOR_CHECKPOINT_ROWS;
    cfg->page_size = page;
}

/* arena NAME PAGE BYTES: the logger's options (variant 0), or every option
 * by default but checkpoint mode (1). */
static int arena(const char *name, uint32_t page, int variant)
{
    sensor_config cfg;
    size_t need = 0;
    upq_status st;
    logger_cfg(&cfg, page, 0);
    st = sensor_logger_setup(&lg, &cfg);
    if (st == UPQ_OK && variant == 1) {
        upq_writer_opts *o = &lg.opts;
        uint32_t k;
        for (k = 0; k < sizeof *o; k++)
            ((uint8_t *)o)[k] = 0;
        o->page_size = page;
        o->checkpoint = 1;
    }
    if (st == UPQ_OK)
        st = upq_writer_workspace_size(lg.elems, lg.nelems, &lg.opts, 0, &need);
    put_str("arena ");
    put_str(name);
    put_str(" ");
    put_u32(page);
    put_str(" ");
    if (st != UPQ_OK) {
        put_str("error ");
        put_u32((uint32_t)-st);
        end_line();
        return 1;
    }
    put_u32((uint32_t)need);
    end_line();
    return 0;
}

/* ---- the recovery arena: a logger file in RAM, cut and recovered -------------------- */

#define IMG_CAP (224u * 1024u)
static uint8_t img[IMG_CAP];      /* the logger's file */
static uint8_t cut[IMG_CAP];      /* a cut copy, recovered in place */
static uint64_t img_len, cut_len;
static uint64_t rec_arena[64u * 1024u / 8u];
static upq_recover_state rst;

typedef struct ram_file {
    uint8_t *p;
    uint64_t *len;
} ram_file;

static upq_status ram_write_at(void *ctx, uint64_t off, const void *buf, size_t len, size_t *written)
{
    ram_file *f = (ram_file *)ctx;
    size_t i;
    *written = 0;
    if (off > IMG_CAP || len > IMG_CAP - off)
        return UPQ_ERR_IO;
    for (i = 0; i < len; i++)
        f->p[off + i] = ((const uint8_t *)buf)[i];
    if (off + len > *f->len)
        *f->len = off + len;
    *written = len;
    return UPQ_OK;
}

static upq_status ram_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    ram_file *f = (ram_file *)ctx;
    size_t i;
    *got = 0;
    if (off >= *f->len)
        return UPQ_OK;
    if (len > *f->len - off)
        len = (size_t)(*f->len - off);
    for (i = 0; i < len; i++)
        ((uint8_t *)buf)[i] = f->p[off + i];
    *got = len;
    return UPQ_OK;
}

static upq_status ram_sync(void *ctx)
{
    (void)ctx;
    return UPQ_OK;
}

static upq_status ram_truncate(void *ctx, uint64_t size)
{
    ram_file *f = (ram_file *)ctx;
    if (size < *f->len)
        *f->len = size;
    return UPQ_OK;
}

static void ram_sink(ram_file *f, upq_sink *s)
{
    uint32_t k;
    for (k = 0; k < sizeof *s; k++)
        ((uint8_t *)s)[k] = 0;
    s->ctx = f;
    s->write_at = ram_write_at;
    s->read_at = ram_read_at;
    s->sync = ram_sync;
    s->truncate = ram_truncate;
}

static ram_file img_file = {img, &img_len};

static upq_status img_open(void *ctx, uint32_t n, int resume, upq_sink *sink, uint64_t *size)
{
    (void)ctx;
    (void)n;
    (void)resume;
    img_len = 0;
    ram_sink(&img_file, sink);
    *size = 0;
    return UPQ_OK;
}

/* Recovers a copy of img[0..len) in `bytes` of arena: UPQ_OK or the error. */
static upq_status recover_in(uint64_t len, size_t bytes, uint64_t *rows)
{
    static ram_file cf = {cut, &cut_len};
    upq_recover_info info;
    upq_sink s;
    upq_status st;
    uint64_t i;
    for (i = 0; i < len; i++)
        cut[i] = img[i];
    cut_len = len;
    ram_sink(&cf, &s);
    for (i = 0; i < sizeof rst; i++)
        ((uint8_t *)&rst)[i] = 0;
    do
        st = upq_recover(&rst, &s, len, rec_arena, bytes, 0, &info);
    while (st == UPQ_AGAIN);
    *rows = info.rows;
    return st;
}

/*
 * recover-arena BYTES: the least arena upq_recover() succeeds in, the
 * largest over cuts of a logger file (3000 rows, 1000-row row groups, a
 * checkpoint every 100 rows) at a spread of lengths, and the closed file.
 */
static int recover_arena(void)
{
    static const sensor_files files = {img_open, 0, 0};
    sensor_config cfg;
    size_t worst = 0;
    uint32_t k;
    upq_status st;
    logger_cfg(&cfg, 0, 3000);
    cfg.row_group_rows = 1000;
    cfg.checkpoint_rows = 100;
    st = sensor_logger_open(&lg, &files, &cfg);
    while (st == UPQ_OK)
        st = sensor_logger_step(&lg);
    if (st != UPQ_DONE) {
        put_str("recover-arena error logging ");
        put_u32((uint32_t)-st);
        end_line();
        return 1;
    }
    for (k = 1; k <= 8; k++) {
        uint64_t len = k == 8 ? img_len : img_len * k / 8u, rows = 0, r2 = 0;
        size_t lo = 256, hi = sizeof rec_arena;
        if (recover_in(len, hi, &rows) != UPQ_OK) {
            put_str("recover-arena error at ");
            put_u32((uint32_t)len);
            end_line();
            return 1;
        }
        /* the least size that works: lo fails, hi works */
        while (hi - lo > 8) {
            size_t mid = ((lo + hi) / 2) & ~(size_t)7;
            if (recover_in(len, mid, &r2) == UPQ_OK)
                hi = mid;
            else
                lo = mid;
        }
        put_str("recover-cut ");
        put_u32((uint32_t)len);
        put_str(" ");
        put_u32((uint32_t)rows);
        put_str(" ");
        put_u32((uint32_t)hi);
        end_line();
        if (hi > worst)
            worst = hi;
    }
    put_str("recover-arena ");
    put_u32((uint32_t)worst);
    end_line();
    /* the planner, from the logger's schema and options alone, must give
     * an arena recovery succeeds in at every cut */
    {
        size_t plan = 0;
        if (upq_recover_workspace_size(lg.elems, lg.nelems, &lg.opts, &plan) != UPQ_OK || plan < worst) {
            put_str("recover-plan error ");
            put_u32((uint32_t)plan);
            end_line();
            return 1;
        }
        put_str("recover-plan ");
        put_u32((uint32_t)plan);
        end_line();
    }
    return 0;
}

int main(void)
{
    static const struct {
        const char *name;
        uint32_t size;
    } structs[] = {
#define UPQ_PROBE_STRUCT(t) {#t, (uint32_t)sizeof(t)},
        UPQ_PROBE_STRUCTS
#undef UPQ_PROBE_STRUCT
    };
    static const uint32_t pages[3] = {512u, 1024u, 4096u};
    size_t i;
    int bad = 0;
    for (i = 0; i < sizeof structs / sizeof structs[0]; i++) {
        put_str("struct ");
        put_str(structs[i].name);
        put_str(" ");
        put_u32(structs[i].size);
        end_line();
    }
    for (i = 0; i < 3; i++) {
        bad |= arena("logger", pages[i], 0);
        bad |= arena("defaults", pages[i], 1);
    }
    {
        /* the logger as it runs: its own page size */
        sensor_config cfg;
        size_t need = 0;
        logger_cfg(&cfg, 0, 0);
        if (sensor_logger_setup(&lg, &cfg) != UPQ_OK ||
            upq_writer_workspace_size(lg.elems, lg.nelems, &lg.opts, 0, &need) != UPQ_OK)
            bad = 1;
        put_str("logger-arena ");
        put_u32((uint32_t)need);
        end_line();
    }
    bad |= recover_arena();
    put_str("probe done");
    end_line();
    return bad;
}
