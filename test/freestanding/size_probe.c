/*
 * The size probe: a bare Cortex-M4 image (qemu mps2-an386, output through
 * semihosting) that prints what only the target can say exactly:
 *
 *   struct NAME BYTES          sizeof every public struct (the list is
 *                              generated from the headers: size_structs.h)
 *   arena NAME PAGE BYTES      upq_writer_workspace_size() for the sensor
 *                              logger's schema with PAGE-byte pages, for:
 *                              logger   its own options (direct mode),
 *                              buffered the same with chunk buffers (direct off,
 *                                       chunk_size and dict_size by default),
 *                              defaults every option by default (dictionaries,
 *                                       buffered)
 *
 * Uncompressed, checkpoints on and the metadata streamed from the file, as
 * the logger runs. test/freestanding/size_report.mjs reads the output.
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

static int arena(const char *name, uint32_t page, int variant)
{
    sensor_config cfg;
    size_t need = 0;
    upq_status st;
    cfg.device = "sensor-07";
    cfg.seed = 1;
    cfg.rows = 0;
    cfg.row_group_rows = 250;
    cfg.page_size = page;
    st = sensor_logger_setup(&lg, &cfg);
    if (st == UPQ_OK && variant == 1) {
        lg.opts.direct = 0; /* chunk buffers, sized by default */
        lg.opts.dict_size = 0;
    } else if (st == UPQ_OK && variant == 2) {
        upq_writer_opts *o = &lg.opts;
        uint64_t rg = o->row_group_rows;
        uint32_t k;
        for (k = 0; k < sizeof *o; k++)
            ((uint8_t *)o)[k] = 0;
        o->page_size = page;
        o->row_group_rows = rg;
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
    static const uint32_t pages[3] = {1024u, 4096u, 8192u};
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
        bad |= arena("buffered", pages[i], 1);
        bad |= arena("defaults", pages[i], 2);
    }
    put_str("probe done");
    end_line();
    return bad;
}
