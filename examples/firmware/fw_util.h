/*
 * What the firmware images (logger_main.c, reader_main.c) share: buffered
 * output to a semihosting file or the console, the command line split into
 * arguments, numbers, and the exit path that reports the stack high-water
 * mark. No libc: images link with -nostdlib.
 */
#ifndef FW_UTIL_H
#define FW_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "semihost/io_semihost.h"

/* Buffered output. Bytes up to the last fw_commit() are final; fw_drop()
 * forgets the rest if it is still in the buffer (a row cut by an error is
 * not written, unless it outgrew the buffer). */
typedef struct fw_out {
    upq_sh_file *f;
    char *buf;
    size_t cap, len;
    size_t committed;     /* buf[0..committed) is complete */
    int failed;           /* a write failed */
} fw_out;

void fw_out_init(fw_out *o, upq_sh_file *f, char *buf, size_t cap);
void fw_put(fw_out *o, const void *p, size_t n);
void fw_putc(fw_out *o, char c);
void fw_puts(fw_out *o, const char *s);
void fw_put_u64(fw_out *o, uint64_t v);
void fw_put_i64(fw_out *o, int64_t v);
/* n bytes as 2n lowercase hex digits */
void fw_put_hex(fw_out *o, const uint8_t *p, size_t n);
void fw_commit(fw_out *o);
void fw_drop(fw_out *o);
/* Writes what is buffered; returns 0, or -1 when any write failed. */
int fw_flush(fw_out *o);

/* The console (":tt"), opened by fw_console_open(); output through it is
 * flushed at every fw_exit(). */
fw_out *fw_console(void);
void fw_console_open(void);

/* Splits the semihosting command line into argv[0..max) (program name
 * first; arguments are separated by spaces, no quoting). Returns argc. */
int fw_args(char **argv, int max);

/* A decimal number with an optional K/M suffix; 1 when it parses. */
int fw_parse_u64(const char *s, uint64_t *out);
int fw_streq(const char *a, const char *b);

/*
 * Instruction counting under qemu with `-icount shift=0` (RV32 images: the
 * instret counter, which counts them; the calibration then gives 2,000,000).
 * On Cortex-M the virtual clock
 * advances one nanosecond per instruction and SysTick (processor clock)
 * counts that clock at the board's CPU frequency. fw_count_calibrate()
 * measures ticks per 2,000,000 instructions with a loop of known length, so
 * neither the board's clock nor qemu's scale is assumed. fw_count_take()
 * must run more often than the 24-bit counter wraps (about every 600 million
 * instructions at the an386's 25 MHz).
 */
uint32_t fw_count_calibrate(void);
void fw_count_start(void);
void fw_count_take(void);
uint64_t fw_count_ticks(void);
/* Instructions per item, two decimals: ticks * 2e6 / cal / items. */
void fw_put_per(fw_out *o, uint64_t ticks, uint32_t cal, uint64_t items);

/* Prints "stack: USED bytes used of SIZE (painted)", flushes the console
 * and exits with `code`. */
__attribute__((noreturn)) void fw_exit(int code);

#endif
