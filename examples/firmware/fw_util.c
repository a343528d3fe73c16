/* Output, arguments and exit for the firmware images (see fw_util.h). */
#include "fw_util.h"

#if defined(__riscv)
#include "riscv/startup.h"
#define board_stack_high_water upq_rv_stack_high_water
#define board_stack_size upq_rv_stack_size
#else
#include "cortex-m/startup.h"
#define board_stack_high_water upq_cm_stack_high_water
#define board_stack_size upq_cm_stack_size
#endif

/* The image's one console: state in static memory, as firmware keeps it. */
static upq_sh_file console_file;
static char console_buf[512];
static fw_out console;
static char cmdline[1024];

static size_t cstr_len(const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

void fw_out_init(fw_out *o, upq_sh_file *f, char *buf, size_t cap)
{
    o->f = f;
    o->buf = buf;
    o->cap = cap;
    o->len = 0;
    o->committed = 0;
    o->failed = 0;
}

static void drain(fw_out *o, size_t n)
{
    size_t done = 0, w;
    while (done < n && !o->failed) {
        if (o->f->handle < 0 || upq_sh_write(o->f, o->buf + done, n - done, &w) != UPQ_OK)
            o->failed = 1;
        else
            done += w;
    }
    /* keep what follows (an unfinished row) */
    for (w = 0; done + w < o->len; w++)
        o->buf[w] = o->buf[done + w];
    o->len -= done;
    o->committed = o->committed > done ? o->committed - done : 0;
}

void fw_put(fw_out *o, const void *p, size_t n)
{
    const char *s = (const char *)p;
    while (n > 0) {
        size_t k;
        if (o->len == o->cap) {
            /* full: write the complete part, or everything when one unit
             * outgrew the buffer */
            drain(o, o->committed ? o->committed : o->len);
        }
        k = o->cap - o->len < n ? o->cap - o->len : n;
        for (size_t i = 0; i < k; i++)
            o->buf[o->len + i] = s[i];
        o->len += k;
        s += k;
        n -= k;
    }
}

void fw_putc(fw_out *o, char c)
{
    fw_put(o, &c, 1);
}

void fw_puts(fw_out *o, const char *s)
{
    fw_put(o, s, cstr_len(s));
}

void fw_put_u64(fw_out *o, uint64_t v)
{
    char t[20];
    size_t n = 0;
    /* 32-bit steps: a 64-bit division is a runtime call, one per 9 digits */
    do {
        uint32_t part;
        int d;
        if (v >= 1000000000u) {
            part = (uint32_t)(v % 1000000000u);
            v /= 1000000000u;
            for (d = 0; d < 9; d++) {
                t[n++] = (char)('0' + part % 10u);
                part /= 10u;
            }
        } else {
            part = (uint32_t)v;
            v = 0;
            do {
                t[n++] = (char)('0' + part % 10u);
                part /= 10u;
            } while (part);
        }
    } while (v);
    while (n > 0)
        fw_putc(o, t[--n]);
}

void fw_put_i64(fw_out *o, int64_t v)
{
    if (v < 0) {
        fw_putc(o, '-');
        fw_put_u64(o, (uint64_t)0 - (uint64_t)v);
    } else {
        fw_put_u64(o, (uint64_t)v);
    }
}

void fw_put_hex(fw_out *o, const uint8_t *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    size_t i;
    for (i = 0; i < n; i++) {
        char t[2];
        t[0] = digits[p[i] >> 4];
        t[1] = digits[p[i] & 15u];
        fw_put(o, t, 2);
    }
}

void fw_commit(fw_out *o)
{
    o->committed = o->len;
}

void fw_drop(fw_out *o)
{
    o->len = o->committed;
}

int fw_flush(fw_out *o)
{
    fw_commit(o);
    drain(o, o->len);
    return o->failed ? -1 : 0;
}

fw_out *fw_console(void)
{
    return &console;
}

void fw_console_open(void)
{
    /* ":tt" opened for writing is the host's standard output */
    if (upq_sh_open(&console_file, ":tt", 4) != UPQ_OK)
        console_file.handle = -1;
    fw_out_init(&console, &console_file, console_buf, sizeof console_buf);
}

int fw_args(char **argv, int max)
{
    int argc = 0;
    char *p = cmdline;
    if (upq_sh_cmdline(cmdline, sizeof cmdline) < 0)
        return 0;
    while (*p && argc < max) {
        while (*p == ' ')
            *p++ = '\0';
        if (!*p)
            break;
        argv[argc++] = p;
        while (*p && *p != ' ')
            p++;
    }
    while (*p == ' ')
        *p++ = '\0';
    return argc;
}

int fw_parse_u64(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    if (!s || !*s)
        return 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        if (v > (UINT64_MAX - 9u) / 10u)
            return 0;
        v = v * 10u + (uint64_t)(*s - '0');
    }
    if (*s == 'K' && s[1] == '\0')
        v <<= 10;
    else if (*s == 'M' && s[1] == '\0')
        v <<= 20;
    else if (*s)
        return 0;
    *out = v;
    return 1;
}

int fw_streq(const char *a, const char *b)
{
    while (*a && *a == *b) {
        a++;
        b++;
    }
    return *a == *b;
}

void fw_exit(int code)
{
    fw_puts(&console, "stack: ");
    fw_put_u64(&console, board_stack_high_water());
    fw_puts(&console, " bytes used of ");
    fw_put_u64(&console, board_stack_size());
    fw_puts(&console, " (painted)\n");
    (void)fw_flush(&console);
    upq_sh_exit(code);
}

/* A fault says so and stops, instead of spinning until a timeout. */
#if defined(__riscv)
void upq_rv_fault(void)
{
    upq_sh_write0("fault: the hart took a trap\n");
    upq_sh_exit(70);
}
#else
void upq_cm_fault(void)
{
    upq_sh_write0("fault: the core took a fault exception\n");
    upq_sh_exit(70);
}
#endif

/* ---- instruction counting (qemu -icount) ------------------------------- */

#if defined(__riscv)
/* The instret counter: with -icount it counts the instructions qemu runs
 * (without it, host time); 64 bits read as two halves. */
static uint64_t instret(void)
{
    uint32_t hi, lo, again;
    do {
        __asm__ volatile("csrr %0, instreth" : "=r"(hi));
        __asm__ volatile("csrr %0, instret" : "=r"(lo));
        __asm__ volatile("csrr %0, instreth" : "=r"(again));
    } while (hi != again);
    return (uint64_t)hi << 32 | lo;
}

static uint64_t start_count, ticks;

void fw_count_start(void)
{
    start_count = instret();
    ticks = 0;
}

void fw_count_take(void)
{
    ticks = instret() - start_count;
}

uint64_t fw_count_ticks(void)
{
    return ticks;
}

/* 2 * n instructions (addi, bnez). */
static void known_loop(uint32_t n)
{
    __asm__ volatile("1: addi %0, %0, -1\n\tbnez %0, 1b" : "+r"(n));
}
#else

#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)

static uint32_t last_tick;
static uint64_t ticks;

void fw_count_start(void)
{
    SYST_RVR = 0x00FFFFFFu;
    SYST_CVR = 0;
    SYST_CSR = 5u; /* enabled, processor clock, no interrupt */
    last_tick = SYST_CVR;
    ticks = 0;
}

/* SysTick counts down. */
void fw_count_take(void)
{
    uint32_t now = SYST_CVR;
    ticks += (last_tick - now) & 0x00FFFFFFu;
    last_tick = now;
}

uint64_t fw_count_ticks(void)
{
    return ticks;
}

/* 2 * n instructions (subs, bne). */
static void known_loop(uint32_t n)
{
    __asm__ volatile("1: subs %0, %0, #1\n\tbne 1b" : "+r"(n) : : "cc");
}
#endif

uint32_t fw_count_calibrate(void)
{
    fw_count_start();
    known_loop(1000000u);
    fw_count_take();
    return (uint32_t)ticks;
}

void fw_put_per(fw_out *o, uint64_t t, uint32_t cal, uint64_t items)
{
    uint64_t x100 = cal && items ? t * 200000000ull / cal / items : 0;
    fw_put_u64(o, x100 / 100u);
    fw_putc(o, '.');
    fw_putc(o, (char)('0' + (x100 / 10u) % 10u));
    fw_putc(o, (char)('0' + x100 % 10u));
}
