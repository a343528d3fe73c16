/* upq_sink and upq_io over a FatFs FIL (see upq_fatfs.h). */
#include "upq_fatfs.h"

#if FF_FS_READONLY
#error "upq_fatfs: FatFs is built read-only (FF_FS_READONLY 1): the sink writes"
#endif
#if FF_FS_MINIMIZE >= 3
#error "upq_fatfs: FF_FS_MINIMIZE 3 removes f_lseek, which every positional call needs"
#endif

/* The most one f_read/f_write call takes (UINT may be 16 bits). */
#define FATFS_MAX_CALL ((size_t)((UINT)-1 >> 1))

void upq_fatfs_init(upq_fatfs *f, FIL *fp)
{
    f->fp = fp;
    f->fr = FR_OK;
    f->zero_gaps = 1;
    f->reads = f->writes = f->syncs = f->truncates = 0;
    f->bytes_read = f->bytes_written = 0;
}

uint64_t upq_fatfs_size(const upq_fatfs *f)
{
    return (uint64_t)f_size(f->fp);
}

static upq_status failed(upq_fatfs *f, FRESULT fr)
{
    f->fr = fr;
    return UPQ_ERR_IO;
}

/* Puts the file pointer at `off`; in write mode past the end the file grows
 * (FatFs stops at the end instead when the volume is full). */
static upq_status seek(upq_fatfs *f, uint64_t off)
{
    FRESULT fr;
    if (off > (uint64_t)(FSIZE_t)-1)
        return failed(f, FR_INVALID_PARAMETER);
    if ((uint64_t)f_tell(f->fp) == off)
        return UPQ_OK;
    fr = f_lseek(f->fp, (FSIZE_t)off);
    if (fr != FR_OK)
        return failed(f, fr);
    if ((uint64_t)f_tell(f->fp) != off)
        return failed(f, FR_DENIED);
    return UPQ_OK;
}

static upq_status put(upq_fatfs *f, const void *buf, size_t len, size_t *written)
{
    UINT bw = 0;
    FRESULT fr;
    if (len > FATFS_MAX_CALL)
        len = FATFS_MAX_CALL;
    fr = f_write(f->fp, buf, (UINT)len, &bw);
    f->writes++;
    if (fr != FR_OK)
        return failed(f, fr);
    if (bw == 0)
        return failed(f, FR_DENIED); /* the volume is full */
    *written = (size_t)bw;
    f->bytes_written += bw;
    return UPQ_OK;
}

/* Zeros from the end of the file up to `off`, a piece per call. */
static upq_status zero_gap(upq_fatfs *f, uint64_t off)
{
    static const uint8_t zeros[64];
    uint64_t end = (uint64_t)f_size(f->fp);
    while (end < off) {
        size_t n = sizeof zeros, w = 0;
        upq_status st;
        if (off - end < n)
            n = (size_t)(off - end);
        st = seek(f, end);
        if (st == UPQ_OK)
            st = put(f, zeros, n, &w);
        if (st != UPQ_OK)
            return st;
        end += w;
    }
    return UPQ_OK;
}

static upq_status fat_write_at(void *ctx, uint64_t off, const void *buf, size_t len, size_t *written)
{
    upq_fatfs *f = (upq_fatfs *)ctx;
    upq_status st;
    *written = 0;
    if (len == 0)
        return UPQ_OK;
    if (off > (uint64_t)(FSIZE_t)-1 - len)
        return failed(f, FR_INVALID_PARAMETER);
    if (f->zero_gaps && off > (uint64_t)f_size(f->fp)) {
        st = zero_gap(f, off);
        if (st != UPQ_OK)
            return st;
    }
    st = seek(f, off);
    if (st != UPQ_OK)
        return st;
    return put(f, buf, len, written);
}

static upq_status fat_write(void *ctx, const void *buf, size_t len, size_t *written)
{
    upq_fatfs *f = (upq_fatfs *)ctx;
    return fat_write_at(ctx, (uint64_t)f_size(f->fp), buf, len, written);
}

upq_status upq_fatfs_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    upq_fatfs *f = (upq_fatfs *)ctx;
    UINT br = 0;
    FRESULT fr;
    upq_status st;
    *got = 0;
    if (off >= (uint64_t)f_size(f->fp) || len == 0)
        return UPQ_OK;
    if (len > (uint64_t)f_size(f->fp) - off)
        len = (size_t)((uint64_t)f_size(f->fp) - off);
    if (len > FATFS_MAX_CALL)
        len = FATFS_MAX_CALL;
    st = seek(f, off);
    if (st != UPQ_OK)
        return st;
    fr = f_read(f->fp, buf, (UINT)len, &br);
    f->reads++;
    if (fr != FR_OK)
        return failed(f, fr);
    *got = (size_t)br;
    f->bytes_read += br;
    return UPQ_OK;
}

static upq_status fat_sync(void *ctx)
{
    upq_fatfs *f = (upq_fatfs *)ctx;
    FRESULT fr = f_sync(f->fp);
    f->syncs++;
    return fr == FR_OK ? UPQ_OK : failed(f, fr);
}

#if FF_FS_MINIMIZE == 0
static upq_status fat_truncate(void *ctx, uint64_t size)
{
    upq_fatfs *f = (upq_fatfs *)ctx;
    FRESULT fr;
    f->truncates++;
    if (size >= (uint64_t)f_size(f->fp))
        return UPQ_OK; /* the writer only ever shortens */
    if (seek(f, size) != UPQ_OK)
        return UPQ_ERR_IO;
    fr = f_truncate(f->fp);
    return fr == FR_OK ? UPQ_OK : failed(f, fr);
}
#endif

void upq_fatfs_sink(upq_fatfs *f, upq_sink *sink)
{
    sink->ctx = f;
    sink->write = fat_write;
    sink->write_at = fat_write_at;
    sink->read_at = upq_fatfs_read_at;
    sink->sync = fat_sync;
#if FF_FS_MINIMIZE == 0
    sink->truncate = fat_truncate;
#else
    sink->truncate = 0;
#endif
    sink->seal = 0; /* writes at offsets are cheap: no append-only journal */
}

void upq_fatfs_io(upq_fatfs *f, upq_io *io)
{
    io->ctx = f;
    io->read_at = upq_fatfs_read_at;
    io->size = (uint64_t)f_size(f->fp);
#if UPQ_WITH_LEND
    io->lend = 0;
#endif
}
