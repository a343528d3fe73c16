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
    f->rbuf = f->wbuf = 0;
    f->rcap = f->wcap = 0;
    f->roff = 0;
    f->rlen = f->wlen = 0;
    f->reads = f->writes = f->syncs = f->truncates = 0;
    f->bytes_read = f->bytes_written = 0;
}

void upq_littlefs_buffers(upq_littlefs *f, void *rbuf, size_t rcap, void *wbuf, size_t wcap)
{
    f->rbuf = (uint8_t *)rbuf;
    f->rcap = rbuf ? rcap : 0;
    f->wbuf = (uint8_t *)wbuf;
    f->wcap = wbuf ? wcap : 0;
    f->rlen = f->wlen = 0;
}

static upq_status failed(upq_littlefs *f, int err)
{
    f->err = err;
    return UPQ_ERR_IO;
}

/* the file's size in littlefs (without the bytes held back), or -1 */
static int64_t fs_size(upq_littlefs *f)
{
    lfs_soff_t n = lfs_file_size(f->lfs, f->file);
    if (n < 0) {
        f->err = (int)n;
        return -1;
    }
    return (int64_t)n;
}

uint64_t upq_littlefs_size(upq_littlefs *f)
{
    int64_t n = fs_size(f);
    return n < 0 ? 0 : (uint64_t)n + f->wlen;
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

/* One lfs_file_write of buf[0..len) at off (len capped); *written. */
static upq_status fs_write(upq_littlefs *f, uint64_t off, const void *buf, size_t len, size_t *written)
{
    lfs_ssize_t n;
    upq_status st;
    *written = 0;
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
    /* what the read-ahead holds of it is stale */
    if (f->rlen && off < f->roff + f->rlen && off + (uint64_t)n > f->roff)
        f->rlen = 0;
    return UPQ_OK;
}

/* The bytes held back go to littlefs (at the file's end there). */
static upq_status flush_tail(upq_littlefs *f)
{
    size_t done = 0;
    int64_t end;
    if (!f->wlen)
        return UPQ_OK;
    end = fs_size(f);
    if (end < 0)
        return UPQ_ERR_IO;
    while (done < f->wlen) {
        size_t n = 0;
        upq_status st = fs_write(f, (uint64_t)end + done, f->wbuf + done, f->wlen - done, &n);
        if (st != UPQ_OK)
            return st;
        done += n;
    }
    f->wlen = 0;
    return UPQ_OK;
}

/* The adapter copies bytes itself: it builds against the public headers
 * only, not the port's upq_memcpy. */
static void copy_bytes(uint8_t *to, const uint8_t *from, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        to[i] = from[i];
}

/* A write at the end is held back in wbuf (when given) until it fills, a
 * sync, or a write elsewhere: littlefs then takes the file's growth in
 * large writes, and a read between two small appends does not make it
 * flush its cache and copy the file's last block again at the next one. */
static upq_status ad_write_at(void *ctx, uint64_t off, const void *buf, size_t len, size_t *written)
{
    upq_littlefs *f = (upq_littlefs *)ctx;
    int64_t end;
    upq_status st;
    *written = 0;
    if (len == 0)
        return UPQ_OK;
    if (f->wcap) {
        end = fs_size(f);
        if (end < 0)
            return UPQ_ERR_IO;
        if (off >= (uint64_t)end && off <= (uint64_t)end + f->wlen && (f->wlen || len < f->wcap)) {
            size_t at = (size_t)(off - (uint64_t)end), n = f->wcap - at;
            if (at == f->wcap) {
                st = flush_tail(f);
                if (st != UPQ_OK)
                    return st;
                return ad_write_at(ctx, off, buf, len, written);
            }
            if (n > len)
                n = len;
            if ((uint64_t)end + at + n > (uint64_t)LFS_FILE_MAX)
                return failed(f, LFS_ERR_FBIG);
            copy_bytes(f->wbuf + at, (const uint8_t *)buf, n);
            if (at + n > f->wlen)
                f->wlen = at + n;
            *written = n;
            return f->wlen == f->wcap ? flush_tail(f) : UPQ_OK;
        }
        st = flush_tail(f);
        if (st != UPQ_OK)
            return st;
    }
    return fs_write(f, off, buf, len, written);
}

static upq_status ad_write(void *ctx, const void *buf, size_t len, size_t *written)
{
    upq_littlefs *f = (upq_littlefs *)ctx;
    int64_t n = fs_size(f);
    *written = 0;
    if (n < 0)
        return UPQ_ERR_IO;
    return ad_write_at(ctx, (uint64_t)n + f->wlen, buf, len, written);
}

/* One lfs_file_read of buf[0..len) at off (inside the file). */
static upq_status fs_read(upq_littlefs *f, uint64_t off, void *buf, size_t len, size_t *got)
{
    lfs_ssize_t n;
    upq_status st;
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

/* A read smaller than rbuf fills it from off on (read-ahead), and the next
 * reads that fall in it cost no littlefs call: recovery and the reader read
 * a page header or a record at a time. */
upq_status upq_littlefs_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    upq_littlefs *f = (upq_littlefs *)ctx;
    int64_t end = fs_size(f);
    upq_status st;
    *got = 0;
    if (end < 0)
        return UPQ_ERR_IO;
    if (off >= (uint64_t)end + f->wlen || len == 0)
        return UPQ_OK;
    if (off >= (uint64_t)end) {
        /* in the bytes held back */
        size_t at = (size_t)(off - (uint64_t)end);
        *got = f->wlen - at < len ? f->wlen - at : len;
        copy_bytes((uint8_t *)buf, f->wbuf + at, *got);
        return UPQ_OK;
    }
    if (len > (uint64_t)end - off)
        len = (size_t)((uint64_t)end - off);
    if (f->rlen && off >= f->roff && off < f->roff + f->rlen) {
        size_t at = (size_t)(off - f->roff);
        *got = f->rlen - at < len ? f->rlen - at : len;
        copy_bytes((uint8_t *)buf, f->rbuf + at, *got);
        return UPQ_OK;
    }
    if (len >= f->rcap)
        return fs_read(f, off, buf, len, got);
    {
        size_t want = (uint64_t)end - off < f->rcap ? (size_t)((uint64_t)end - off) : f->rcap, have = 0;
        f->rlen = 0;
        st = fs_read(f, off, f->rbuf, want, &have);
        if (st != UPQ_OK)
            return st;
        f->roff = off;
        f->rlen = have;
        *got = have < len ? have : len;
        copy_bytes((uint8_t *)buf, f->rbuf, *got);
    }
    return UPQ_OK;
}

static upq_status ad_sync(void *ctx)
{
    upq_littlefs *f = (upq_littlefs *)ctx;
    int err;
    upq_status st = flush_tail(f);
    if (st != UPQ_OK)
        return st;
    err = lfs_file_sync(f->lfs, f->file);
    f->syncs++;
    return err == 0 ? UPQ_OK : failed(f, err);
}

static upq_status ad_truncate(void *ctx, uint64_t size)
{
    upq_littlefs *f = (upq_littlefs *)ctx;
    int err;
    upq_status st = flush_tail(f);
    if (st != UPQ_OK)
        return st;
    f->truncates++;
    f->rlen = 0;
    if (size > (uint64_t)LFS_FILE_MAX)
        return failed(f, LFS_ERR_FBIG);
    err = lfs_file_truncate(f->lfs, f->file, (lfs_off_t)size);
    return err == 0 ? UPQ_OK : failed(f, err);
}

upq_status upq_littlefs_flush(upq_littlefs *f)
{
    return flush_tail(f);
}

void upq_littlefs_sink(upq_littlefs *f, upq_sink *sink)
{
    /* no seal: one file; upq_littlefs_append is the append-only sink */
    upq_sink_init(sink, f, ad_write, ad_write_at, upq_littlefs_read_at, ad_sync, ad_truncate, 0);
}

void upq_littlefs_io(upq_littlefs *f, upq_io *io)
{
    upq_io_init(io, f, upq_littlefs_read_at, upq_littlefs_size(f));
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
