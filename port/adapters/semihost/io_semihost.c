/* Arm (and RISC-V) semihosting: the calls and the upq_io / upq_sink adapters
 * over them. */
#include "io_semihost.h"

/* ADP_Stopped_ApplicationExit: the reason code of a normal exit. */
#define ADP_APPLICATION_EXIT 0x20026u
/* Largest request per call: lengths travel as 32-bit words. */
#define MAX_CHUNK 0x40000000u
/* Positions travel as 32-bit words too. */
#define MAX_POS 0x7FFFFFFFu

#if defined(__riscv)
/* RISC-V semihosting: the operation in a0, the argument block in a1, the
 * answer in a0; the trap is an ebreak between two no-op shifts that mark
 * it, uncompressed and in one page (hence the alignment). The argument
 * blocks' words are 32 bits wide, as on 32-bit Arm. */
int32_t upq_sh_call(uint32_t op, void *arg)
{
    register uint32_t a0 __asm__("a0") = op;
    register void *a1 __asm__("a1") = arg;
    __asm__ volatile(".option push\n\t"
                     ".option norvc\n\t"
                     ".balign 16\n\t"
                     "slli x0, x0, 0x1f\n\t"
                     "ebreak\n\t"
                     "srai x0, x0, 7\n\t"
                     ".option pop"
                     : "+r"(a0)
                     : "r"(a1)
                     : "memory");
    return (int32_t)a0;
}
#else
int32_t upq_sh_call(uint32_t op, void *arg)
{
    register uint32_t r0 __asm__("r0") = op;
    register void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return (int32_t)r0;
}
#endif

static size_t cstr_len(const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

upq_status upq_sh_open(upq_sh_file *f, const char *path, int mode)
{
    uint32_t a[3];
    int32_t h, len;
    a[0] = (uint32_t)(uintptr_t)path;
    a[1] = (uint32_t)mode;
    a[2] = (uint32_t)cstr_len(path);
    f->handle = -1;
    f->size = 0;
    f->pos = 0;
    h = upq_sh_call(UPQ_SH_SYS_OPEN, a);
    if (h < 0)
        return UPQ_ERR_IO;
    f->handle = h;
    if (mode == UPQ_SH_READ || mode == UPQ_SH_UPDATE) {
        a[0] = (uint32_t)h;
        len = upq_sh_call(UPQ_SH_SYS_FLEN, a);
        if (len < 0) {
            (void)upq_sh_close(f);
            return UPQ_ERR_IO;
        }
        f->size = (uint64_t)len;
    }
    return UPQ_OK;
}

upq_status upq_sh_close(upq_sh_file *f)
{
    uint32_t a[1];
    int32_t r;
    if (f->handle < 0)
        return UPQ_OK;
    a[0] = (uint32_t)f->handle;
    r = upq_sh_call(UPQ_SH_SYS_CLOSE, a);
    f->handle = -1;
    return r == 0 ? UPQ_OK : UPQ_ERR_IO;
}

static upq_status seek_to(upq_sh_file *f, uint64_t off)
{
    uint32_t a[2];
    if (f->pos == off)
        return UPQ_OK;
    if (off > MAX_POS)
        return UPQ_ERR_IO;
    a[0] = (uint32_t)f->handle;
    a[1] = (uint32_t)off;
    if (upq_sh_call(UPQ_SH_SYS_SEEK, a) != 0)
        return UPQ_ERR_IO;
    f->pos = off;
    return UPQ_OK;
}

upq_status upq_sh_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    upq_sh_file *f = (upq_sh_file *)ctx;
    uint32_t a[3];
    int32_t left;
    *got = 0;
    if (f->handle < 0)
        return UPQ_ERR_IO;
    if (off >= f->size || len == 0)
        return UPQ_OK;
    if (len > f->size - off)
        len = (size_t)(f->size - off);
    if (len > MAX_CHUNK)
        len = MAX_CHUNK;
    if (seek_to(f, off) != UPQ_OK)
        return UPQ_ERR_IO;
    a[0] = (uint32_t)f->handle;
    a[1] = (uint32_t)(uintptr_t)buf;
    a[2] = (uint32_t)len;
    /* SYS_READ answers with the number of bytes NOT read */
    left = upq_sh_call(UPQ_SH_SYS_READ, a);
    if (left < 0 || (uint32_t)left > (uint32_t)len) {
        f->pos = UINT64_MAX; /* unknown: seek next time */
        return UPQ_ERR_IO;
    }
    *got = len - (size_t)left;
    f->pos = off + *got;
    return UPQ_OK;
}

upq_status upq_sh_write_at(void *ctx, uint64_t off, const void *buf, size_t len, size_t *written)
{
    upq_sh_file *f = (upq_sh_file *)ctx;
    uint32_t a[3];
    *written = 0;
    if (f->handle < 0)
        return UPQ_ERR_IO;
    if (len == 0)
        return UPQ_OK;
    if (len > MAX_CHUNK)
        len = MAX_CHUNK;
    /* a position past the end leaves a hole the host fills with zeros */
    if (off > MAX_POS || len > MAX_POS - off || seek_to(f, off) != UPQ_OK)
        return UPQ_ERR_IO;
    a[0] = (uint32_t)f->handle;
    a[1] = (uint32_t)(uintptr_t)buf;
    a[2] = (uint32_t)len;
    if (upq_sh_call(UPQ_SH_SYS_WRITE, a) != 0) {
        f->pos = UINT64_MAX;
        return UPQ_ERR_IO;
    }
    f->pos = off + len;
    if (f->pos > f->size)
        f->size = f->pos;
    *written = len;
    return UPQ_OK;
}

upq_status upq_sh_write(void *ctx, const void *buf, size_t len, size_t *written)
{
    /* appending is writing at the end */
    const upq_sh_file *f = (const upq_sh_file *)ctx;
    return upq_sh_write_at(ctx, f->size, buf, len, written);
}

upq_status upq_sh_sync(void *ctx)
{
    const upq_sh_file *f = (const upq_sh_file *)ctx;
    return f->handle < 0 ? UPQ_ERR_IO : UPQ_OK;
}

void upq_sh_io(upq_sh_file *f, upq_io *io)
{
    upq_io_init(io, f, upq_sh_read_at, f->size); /* no lending: semihosting copies */
}

void upq_sh_sink(upq_sh_file *f, upq_sink *sink)
{
    /* no truncate: semihosting cannot shorten a file */
    upq_sink_init(sink, f, upq_sh_write, upq_sh_write_at, upq_sh_read_at, upq_sh_sync, 0, 0);
}

void upq_sh_write0(const char *s)
{
    (void)upq_sh_call(UPQ_SH_SYS_WRITE0, (void *)(uintptr_t)s);
}

int32_t upq_sh_cmdline(char *buf, size_t cap)
{
    uint32_t a[2];
    if (cap < 2 || cap > MAX_CHUNK)
        return -1;
    a[0] = (uint32_t)(uintptr_t)buf;
    a[1] = (uint32_t)(cap - 1);
    if (upq_sh_call(UPQ_SH_SYS_GET_CMDLINE, a) != 0 || a[1] >= cap)
        return -1;
    buf[a[1]] = '\0';
    return (int32_t)a[1];
}

void upq_sh_exit(int code)
{
    uint32_t a[2];
    a[0] = ADP_APPLICATION_EXIT;
    a[1] = (uint32_t)code;
    (void)upq_sh_call(UPQ_SH_SYS_EXIT_EXTENDED, a);
    /* a host without the extended call: success or failure only */
    (void)upq_sh_call(UPQ_SH_SYS_EXIT, (void *)(uintptr_t)(code == 0 ? ADP_APPLICATION_EXIT
                                                                        : 0x20023u));
    for (;;) {
    }
}
