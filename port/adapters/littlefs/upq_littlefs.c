/* upq_sink and upq_io over a littlefs file (see upq_littlefs.h). */
#include "upq_littlefs.h"

#ifdef LFS_READONLY
#error "upq_littlefs: littlefs is built with LFS_READONLY: the sink writes"
#endif

/* The most one read or write call takes (lfs_ssize_t must hold it). */
#define LFS_MAX_CALL ((size_t)0x40000000u)

void upq_littlefs_init(upq_littlefs *f, lfs_t *lfs, lfs_file_t *file)
{
    f->lfs = lfs;
    f->file = file;
    f->err = 0;
    f->reads = f->writes = f->syncs = f->truncates = 0;
    f->bytes_read = f->bytes_written = 0;
}

static upq_status failed(upq_littlefs *f, int err)
{
    f->err = err;
    return UPQ_ERR_IO;
}

uint64_t upq_littlefs_size(upq_littlefs *f)
{
    lfs_soff_t n = lfs_file_size(f->lfs, f->file);
    if (n < 0) {
        f->err = (int)n;
        return 0;
    }
    return (uint64_t)n;
}

static upq_status seek(upq_littlefs *f, uint64_t off)
{
    lfs_soff_t at;
    if (off > (uint64_t)LFS_FILE_MAX)
        return failed(f, LFS_ERR_FBIG);
    at = lfs_file_tell(f->lfs, f->file);
    if (at >= 0 && (uint64_t)at == off)
        return UPQ_OK;
    at = lfs_file_seek(f->lfs, f->file, (lfs_soff_t)off, LFS_SEEK_SET);
    if (at < 0)
        return failed(f, (int)at);
    return UPQ_OK;
}

static upq_status ad_write_at(void *ctx, uint64_t off, const void *buf, size_t len, size_t *written)
{
    upq_littlefs *f = (upq_littlefs *)ctx;
    lfs_ssize_t n;
    upq_status st;
    *written = 0;
    if (len == 0)
        return UPQ_OK;
    if (len > LFS_MAX_CALL)
        len = LFS_MAX_CALL;
    if (off > (uint64_t)LFS_FILE_MAX - len)
        return failed(f, LFS_ERR_FBIG);
    st = seek(f, off);
    if (st != UPQ_OK)
        return st;
    n = lfs_file_write(f->lfs, f->file, buf, (lfs_size_t)len);
    f->writes++;
    if (n < 0)
        return failed(f, (int)n);
    if (n == 0)
        return failed(f, LFS_ERR_NOSPC);
    *written = (size_t)n;
    f->bytes_written += (uint64_t)n;
    return UPQ_OK;
}

static upq_status ad_write(void *ctx, const void *buf, size_t len, size_t *written)
{
    upq_littlefs *f = (upq_littlefs *)ctx;
    lfs_soff_t n = lfs_file_size(f->lfs, f->file);
    *written = 0;
    if (n < 0)
        return failed(f, (int)n);
    return ad_write_at(ctx, (uint64_t)n, buf, len, written);
}

upq_status upq_littlefs_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    upq_littlefs *f = (upq_littlefs *)ctx;
    lfs_soff_t size = lfs_file_size(f->lfs, f->file);
    lfs_ssize_t n;
    upq_status st;
    *got = 0;
    if (size < 0)
        return failed(f, (int)size);
    if (off >= (uint64_t)size || len == 0)
        return UPQ_OK;
    if (len > (uint64_t)size - off)
        len = (size_t)((uint64_t)size - off);
    if (len > LFS_MAX_CALL)
        len = LFS_MAX_CALL;
    st = seek(f, off);
    if (st != UPQ_OK)
        return st;
    n = lfs_file_read(f->lfs, f->file, buf, (lfs_size_t)len);
    f->reads++;
    if (n < 0)
        return failed(f, (int)n);
    *got = (size_t)n;
    f->bytes_read += (uint64_t)n;
    return UPQ_OK;
}

static upq_status ad_sync(void *ctx)
{
    upq_littlefs *f = (upq_littlefs *)ctx;
    int err = lfs_file_sync(f->lfs, f->file);
    f->syncs++;
    return err == 0 ? UPQ_OK : failed(f, err);
}

static upq_status ad_truncate(void *ctx, uint64_t size)
{
    upq_littlefs *f = (upq_littlefs *)ctx;
    int err;
    f->truncates++;
    if (size > (uint64_t)LFS_FILE_MAX)
        return failed(f, LFS_ERR_FBIG);
    err = lfs_file_truncate(f->lfs, f->file, (lfs_off_t)size);
    return err == 0 ? UPQ_OK : failed(f, err);
}

void upq_littlefs_sink(upq_littlefs *f, upq_sink *sink)
{
    sink->ctx = f;
    sink->write = ad_write;
    sink->write_at = ad_write_at;
    sink->read_at = upq_littlefs_read_at;
    sink->sync = ad_sync;
    sink->truncate = ad_truncate;
    sink->seal = 0; /* one file: upq_littlefs_append is the append-only sink */
}

void upq_littlefs_io(upq_littlefs *f, upq_io *io)
{
    io->ctx = f;
    io->read_at = upq_littlefs_read_at;
    io->size = upq_littlefs_size(f);
#if UPQ_WITH_LEND
    io->lend = 0;
#endif
}

upq_status upq_littlefs_append(upq_append *a, upq_littlefs *data, upq_littlefs *journal, int create, void *buf,
                               size_t cap, upq_sink *sink, uint64_t *size)
{
    upq_sink ds, js;
    upq_status st;
    upq_littlefs_sink(data, &ds);
    upq_littlefs_sink(journal, &js);
    st = upq_append_open(a, &ds, &js, upq_littlefs_size(data), upq_littlefs_size(journal), create, buf, cap);
    if (st != UPQ_OK)
        return st;
    upq_append_sink(a, sink);
    *size = upq_append_size(a);
    return UPQ_OK;
}
