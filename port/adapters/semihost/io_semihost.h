/*
 * Files, console, command line and exit status through Arm semihosting
 * (`bkpt 0xab` on M-profile): the I/O of firmware run under a debugger or
 * qemu (-semihosting-config enable=on,target=native). Provides the reader's
 * upq_io (read_at: SYS_SEEK + SYS_READ) and the writer's upq_sink (write,
 * write_at, sync, read_at; no truncate) over one host file.
 *
 * Semihosting file positions are 32-bit: files up to 2 GB. Calls block
 * until the host answers, so these callbacks never return UPQ_AGAIN.
 * Builds only for Arm targets.
 */
#ifndef UPQ_IO_SEMIHOST_H
#define UPQ_IO_SEMIHOST_H

#include <stddef.h>
#include <stdint.h>

#include "uparquet/reader.h"
#include "uparquet/writer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Operation numbers of the semihosting specification. */
enum {
    UPQ_SH_SYS_OPEN = 0x01,
    UPQ_SH_SYS_CLOSE = 0x02,
    UPQ_SH_SYS_WRITE0 = 0x04,
    UPQ_SH_SYS_WRITE = 0x05,
    UPQ_SH_SYS_READ = 0x06,
    UPQ_SH_SYS_SEEK = 0x0A,
    UPQ_SH_SYS_FLEN = 0x0C,
    UPQ_SH_SYS_GET_CMDLINE = 0x15,
    UPQ_SH_SYS_EXIT = 0x18,
    UPQ_SH_SYS_EXIT_EXTENDED = 0x20
};

/* Open modes (the specification's fopen-mode indices). */
enum {
    UPQ_SH_READ = 1,       /* "rb" */
    UPQ_SH_WRITE = 5,      /* "wb": create or truncate */
    UPQ_SH_UPDATE = 3,     /* "r+b": an existing file, read and written (its size recorded) */
    UPQ_SH_READ_WRITE = 7  /* "w+b": create or truncate, read back too */
};

typedef struct upq_sh_file {
    int32_t handle;        /* -1 when closed */
    uint64_t size;         /* read mode: SYS_FLEN at open; write modes: bytes written */
    uint64_t pos;          /* the host file's position as far as known */
} upq_sh_file;

/* One semihosting call: operation `op`, parameter block `arg`; returns r0. */
int32_t upq_sh_call(uint32_t op, void *arg);

/* Opens `path` (NUL-terminated; ":tt" is the console) with a mode above.
 * Returns UPQ_OK or UPQ_ERR_IO. In read mode records the file's size. */
upq_status upq_sh_open(upq_sh_file *f, const char *path, int mode);

/* Closes the file (safe to call twice). Returns UPQ_OK or UPQ_ERR_IO. */
upq_status upq_sh_close(upq_sh_file *f);

/* The reader's read_at (`ctx` is a upq_sh_file opened for reading): seeks
 * when needed, then reads; 0 bytes at or past the end. */
upq_status upq_sh_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got);

/* The sink's write: appends at the end of what was written (seeking back
 * there after a read_at). Writes everything or returns UPQ_ERR_IO. */
upq_status upq_sh_write(void *ctx, const void *buf, size_t len, size_t *written);

/* The sink's positional write (checkpoint mode): seeks, then writes
 * everything or returns UPQ_ERR_IO. */
upq_status upq_sh_write_at(void *ctx, uint64_t off, const void *buf, size_t len, size_t *written);
/* The sink's sync: semihosting has no flush call; the host writes through,
 * so this returns UPQ_OK. */
upq_status upq_sh_sync(void *ctx);

/* Fill *io (reading) or *sink (writing, with read-back) for `f`, which must
 * stay valid while they are used. */
void upq_sh_io(upq_sh_file *f, upq_io *io);
void upq_sh_sink(upq_sh_file *f, upq_sink *sink);

/* Writes a NUL-terminated string to the host's console (SYS_WRITE0). */
void upq_sh_write0(const char *s);

/* Copies the command line (NUL-terminated) into buf[0..cap). Returns its
 * length, or -1 when the host has none or it does not fit. */
int32_t upq_sh_cmdline(char *buf, size_t cap);

/* Ends the program with exit status `code` (SYS_EXIT_EXTENDED; hosts
 * without it get SYS_EXIT, which only tells success from failure). */
__attribute__((noreturn)) void upq_sh_exit(int code);

#ifdef __cplusplus
}
#endif

#endif
