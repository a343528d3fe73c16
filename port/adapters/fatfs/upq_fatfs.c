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

/* The volume's sector size. */
#if FF_MAX_SS == FF_MIN_SS
#define SECTOR(f) ((uint32_t)FF_MAX_SS)
#else
#define SECTOR(f) ((uint32_t)(f)->fp->obj.fs->ssize)
#endif

void upq_fatfs_init(upq_fatfs *f, FIL *fp)
{
    uint32_t i;
    f->fp = fp;
    f->fr = FR_OK;
    f->zero_gaps = 0;
    f->reads = f->writes = f->syncs = f->truncates = f->padded = 0;
    f->bytes_read = f->bytes_written = 0;
    for (i = 0; i < UPQ_FATFS_SLOTS; i++) {
        f->soff[i] = 0;
        f->slen[i] = 0;
        f->sused[i] = 0;
        f->sdirty[i] = 0;
    }
    f->nslots = 1;
    f->clock = 0;
    f->sbuf = 0;
    f->zone_next = 0;
    for (i = 0; i < UPQ_FATFS_ZONES; i++)
        f->zone[i][0] = f->zone[i][1] = 0;
#if FF_USE_FASTSEEK
    f->clmt_ok = 0;
    f->maps = 0;
    fp->cltbl = 0;
#endif
}

void upq_fatfs_gather(upq_fatfs *f, uint8_t *mem, size_t len)
{
    size_t n = mem ? len / FF_MAX_SS : 0u;
    if (n > UPQ_FATFS_SLOTS - 1u)
        n = UPQ_FATFS_SLOTS - 1u;
    f->sbuf = mem;
    f->nslots = 1u + (uint32_t)n;
}

static uint8_t *slot_buf(upq_fatfs *f, uint32_t i)
{
    return i == 0 ? f->gbuf : f->sbuf + (size_t)(i - 1u) * FF_MAX_SS;
}

#if FF_USE_FASTSEEK
/* Up to `end` inside the file: FatFs's fast seek, through a map of the
 * chain made when it does not reach `end` (growing the file only adds
 * clusters after those it maps; truncate drops it). A chain in more
 * fragments than the map holds is tried again only once it has grown past
 * what was tried. Past the end the chain grows: the slow way. */
static void chain_mode(upq_fatfs *f, uint64_t end)
{
    FSIZE_t bcs = (FSIZE_t)f->fp->obj.fs->csize * SECTOR(f);
    f->fp->cltbl = 0;
    if (end > (uint64_t)f_size(f->fp))
        return;
    if (f->clmt_ok == 0 || end > f->clmt_end) {
        f->clmt[0] = UPQ_FATFS_CLMT;
        f->fp->cltbl = f->clmt;
        f->clmt_ok = (uint8_t)(f_lseek(f->fp, CREATE_LINKMAP) == FR_OK ? 1u : 2u);
        f->clmt_end = ((uint64_t)f_size(f->fp) + bcs - 1u) / bcs * bcs;
        f->fp->cltbl = 0;
        if (f->clmt_ok == 1)
            f->maps++;
    }
    if (f->clmt_ok == 1)
        f->fp->cltbl = f->clmt;
}
#else
static void chain_mode(upq_fatfs *f, uint64_t end)
{
    (void)f;
    (void)end;
}
#endif

/* [lo, hi) is written: no zone holds it any more. A zone it splits keeps
 * its upper part, where a region's next pages go. */
static void zone_cut(upq_fatfs *f, uint64_t lo, uint64_t hi)
{
    uint32_t i;
    for (i = 0; i < UPQ_FATFS_ZONES; i++) {
        uint64_t *z = f->zone[i];
        if (hi <= z[0] || lo >= z[1])
            continue;
        if (hi < z[1])
            z[0] = hi;
        else if (lo > z[0])
            z[1] = lo;
        else
            z[0] = z[1] = 0;
    }
}

/* The file ends at `size`: no zone lies past it. */
static void zone_clip(upq_fatfs *f, uint64_t size)
{
    uint32_t i;
    for (i = 0; i < UPQ_FATFS_ZONES; i++) {
        uint64_t *z = f->zone[i];
        if (z[1] > size)
            z[1] = size;
        if (z[0] >= z[1])
            z[0] = z[1] = 0;
    }
}

static void zone_add(upq_fatfs *f, uint64_t lo, uint64_t hi)
{
    f->zone[f->zone_next][0] = lo;
    f->zone[f->zone_next][1] = hi;
    f->zone_next = (f->zone_next + 1u) % UPQ_FATFS_ZONES;
}

static int zone_holds(const upq_fatfs *f, uint64_t lo, uint64_t hi)
{
    uint32_t i;
    for (i = 0; i < UPQ_FATFS_ZONES; i++)
        if (f->zone[i][0] <= lo && hi <= f->zone[i][1])
            return 1;
    return 0;
}

/* (no libc here: the adapter builds with the library's flags) */
static void copy(uint8_t *d, const uint8_t *s, size_t n)
{
    while (n--)
        *d++ = *s++;
}

/* The file's end with the gathered bytes. */
static uint64_t end_of(const upq_fatfs *f)
{
    uint64_t end = (uint64_t)f_size(f->fp);
    uint32_t i;
    for (i = 0; i < f->nslots; i++)
        if (f->slen[i] && f->soff[i] + f->slen[i] > end)
            end = f->soff[i] + f->slen[i];
    return end;
}

uint64_t upq_fatfs_size(const upq_fatfs *f)
{
    return end_of(f);
}

static upq_status failed(upq_fatfs *f, FRESULT fr)
{
    f->fr = fr;
    return UPQ_ERR_IO;
}

/* Puts the file pointer at `off`; in write mode past the end the file grows
 * (FatFs stops at the end instead when the volume is full). */
static upq_status seek(upq_fatfs *f, uint64_t off, uint64_t end)
{
    FRESULT fr;
    if (off > (uint64_t)(FSIZE_t)-1)
        return failed(f, FR_INVALID_PARAMETER);
    chain_mode(f, end);
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
    uint64_t at = (uint64_t)f_tell(f->fp);
    if (len > FATFS_MAX_CALL)
        len = FATFS_MAX_CALL;
    fr = f_write(f->fp, buf, (UINT)len, &bw);
    f->writes++;
    zone_cut(f, at, at + bw);
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
    static const uint8_t zeros[FF_MIN_SS];
    uint64_t end = (uint64_t)f_size(f->fp), from = end;
    while (end < off) {
        size_t n = sizeof zeros, w = 0;
        upq_status st;
        if (off - end < n)
            n = (size_t)(off - end);
        st = seek(f, end, end + n);
        if (st == UPQ_OK)
            st = put(f, zeros, n, &w);
        if (st != UPQ_OK)
            return st;
        end += w;
    }
    zone_add(f, from, off);
    return UPQ_OK;
}

/* f_write at `off`, the gap before it zeroed first. */
static upq_status write_direct(upq_fatfs *f, uint64_t off, const void *buf, size_t len, size_t *written)
{
    upq_status st;
    *written = 0;
    if (off > (uint64_t)f_size(f->fp)) {
        /* zeroed, or left for the writer to write or zero (checkpoint
         * mode does): either way no byte there need be kept, so a
         * gathered sector whose rest lies there goes whole */
        if (f->zero_gaps) {
            st = zero_gap(f, off);
            if (st != UPQ_OK)
                return st;
        } else {
            zone_add(f, (uint64_t)f_size(f->fp), off);
        }
    }
    st = seek(f, off, off + len);
    if (st != UPQ_OK)
        return st;
    return put(f, buf, len, written);
}

/* Hands slot k's bytes to FatFs (when it has not got them); `keep`: the
 * slot keeps them unless its sector is full (a write may go on from
 * them), else it is freed. */
static upq_status slot_flush(upq_fatfs *f, uint32_t k, int keep)
{
    uint32_t ss = SECTOR(f), len = f->slen[k], done = 0;
    uint8_t *b = slot_buf(f, k);
    uint64_t end = f->soff[k] + len, pad = ss - end % ss;
    if (f->sdirty[k] && len && f->soff[k] % ss == 0 && pad < ss && zone_holds(f, end, end + pad)) {
        /* the sector's rest is a gap no byte of which need be kept:
         * written whole, padded with zeros, not read */
        uint32_t i;
        for (i = len; i < ss; i++)
            b[i] = 0;
        len = ss;
        f->padded++;
    }
    while (f->sdirty[k] && done < len) {
        size_t n = 0;
        upq_status st = write_direct(f, f->soff[k] + done, b + done, len - done, &n);
        if (st != UPQ_OK)
            return st;
        done += (uint32_t)n;
    }
    f->sdirty[k] = 0;
    if (!keep || end % ss == 0)
        f->slen[k] = 0;
    return UPQ_OK;
}

/* The slots that hold bytes of [lo, hi) (all: hi 0), but slot `but`:
 * handed over, and kept (`keep`: a read, a sync) or freed (a write over
 * them). */
static upq_status slots_flush(upq_fatfs *f, uint64_t lo, uint64_t hi, uint32_t but, int keep)
{
    uint32_t i;
    for (i = 0; i < f->nslots; i++) {
        upq_status st;
        if (i == but || !f->slen[i] || (hi && (f->soff[i] >= hi || f->soff[i] + f->slen[i] <= lo)))
            continue;
        st = slot_flush(f, i, keep);
        if (st != UPQ_OK)
            return st;
    }
    return UPQ_OK;
}

upq_status upq_fatfs_flush(upq_fatfs *f)
{
    return slots_flush(f, 0, 0, UPQ_FATFS_SLOTS, 0);
}

/* A slot for a write at off: the one whose bytes it goes on from
 * (*fresh 0), else a free one, else one FatFs has the bytes of, else the
 * one written to longest ago, handed over first (*fresh 1). UPQ_OK or an
 * error. */
static upq_status slot_for(upq_fatfs *f, uint64_t off, uint32_t *k, int *fresh)
{
    uint32_t i, old = 0;
    *fresh = 1;
    for (i = 0; i < f->nslots; i++) {
        if (f->slen[i] && f->soff[i] + f->slen[i] == off) {
            *k = i;
            *fresh = 0;
            return UPQ_OK;
        }
    }
    for (i = 0; i < f->nslots; i++) {
        if (!f->slen[i] || !f->sdirty[i]) {
            *k = i;
            return UPQ_OK;
        }
        if (f->sused[i] < f->sused[old])
            old = i;
    }
    *k = old;
    return slot_flush(f, old, 0);
}

/* Whole sectors at a sector's start go to FatFs at once (it writes them
 * to the medium without its buffer); the rest is gathered up to the end of
 * its sector, which hands it over. */
static upq_status fat_write_at(void *ctx, uint64_t off, const void *buf, size_t len, size_t *written)
{
    upq_fatfs *f = (upq_fatfs *)ctx;
    uint32_t ss = SECTOR(f), at = 0, k = 0;
    int fresh = 1;
    upq_status st;
    *written = 0;
    if (len == 0)
        return UPQ_OK;
    if (off > (uint64_t)(FSIZE_t)-1 - len)
        return failed(f, FR_INVALID_PARAMETER);
    if (off % ss == 0 && len >= ss) {
        /* whole sectors: after what is gathered of them (the later write wins) */
        len -= len % ss;
        st = slots_flush(f, off, off + len, UPQ_FATFS_SLOTS, 0);
        return st != UPQ_OK ? st : write_direct(f, off, buf, len, written);
    }
    at = (uint32_t)(off % ss);
    if (len > ss - at)
        len = ss - at;
    st = slot_for(f, off, &k, &fresh);
    if (st == UPQ_OK)
        st = slots_flush(f, off, off + len, k, 0);
    if (st != UPQ_OK)
        return st;
    if (fresh) {
        f->soff[k] = off;
        f->slen[k] = 0;
    }
    copy(slot_buf(f, k) + f->slen[k], (const uint8_t *)buf, len);
    f->slen[k] += (uint32_t)len;
    f->sused[k] = ++f->clock;
    f->sdirty[k] = 1;
    *written = len;
    return at + len == ss ? slot_flush(f, k, 0) : UPQ_OK;
}

static upq_status fat_write(void *ctx, const void *buf, size_t len, size_t *written)
{
    upq_fatfs *f = (upq_fatfs *)ctx;
    return fat_write_at(ctx, end_of(f), buf, len, written);
}

upq_status upq_fatfs_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got)
{
    upq_fatfs *f = (upq_fatfs *)ctx;
    UINT br = 0;
    FRESULT fr;
    upq_status st;
    *got = 0;
    if (len == 0)
        return UPQ_OK;
    /* a read reaching gathered bytes, or FatFs's end while some lie past
     * it, hands them over first */
    st = slots_flush(f, off, off + len > (uint64_t)f_size(f->fp) ? 0 : off + len, UPQ_FATFS_SLOTS, 1);
    if (st != UPQ_OK)
        return st;
    if (off >= (uint64_t)f_size(f->fp))
        return UPQ_OK;
    if (len > (uint64_t)f_size(f->fp) - off)
        len = (size_t)((uint64_t)f_size(f->fp) - off);
    if (len > FATFS_MAX_CALL)
        len = FATFS_MAX_CALL;
    st = seek(f, off, off + len);
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
    FRESULT fr;
    /* the slots keep what they hand over: the next page of a region
     * fills its sector, which then goes whole */
    if (slots_flush(f, 0, 0, UPQ_FATFS_SLOTS, 1) != UPQ_OK)
        return UPQ_ERR_IO;
    fr = f_sync(f->fp);
    f->syncs++;
    return fr == FR_OK ? UPQ_OK : failed(f, fr);
}

#if FF_FS_MINIMIZE == 0
static upq_status fat_truncate(void *ctx, uint64_t size)
{
    upq_fatfs *f = (upq_fatfs *)ctx;
    FRESULT fr;
    f->truncates++;
    if (upq_fatfs_flush(f) != UPQ_OK)
        return UPQ_ERR_IO;
    if (size >= (uint64_t)f_size(f->fp))
        return UPQ_OK; /* the writer only ever shortens */
    if (seek(f, size, (uint64_t)(FSIZE_t)-1) != UPQ_OK) /* the slow way: the chain shrinks */
        return UPQ_ERR_IO;
#if FF_USE_FASTSEEK
    f->clmt_ok = 0;
#endif
    fr = f_truncate(f->fp);
    zone_clip(f, (uint64_t)f_size(f->fp));
    return fr == FR_OK ? UPQ_OK : failed(f, fr);
}
#define FAT_TRUNCATE fat_truncate
#else
#define FAT_TRUNCATE 0 /* f_truncate is compiled out: the reserve stays in the file */
#endif

void upq_fatfs_sink(upq_fatfs *f, upq_sink *sink)
{
    /* no seal: writes at offsets are cheap, no append-only journal */
    upq_sink_init(sink, f, fat_write, fat_write_at, upq_fatfs_read_at, fat_sync, FAT_TRUNCATE, 0);
}

void upq_fatfs_io(upq_fatfs *f, upq_io *io)
{
    upq_io_init(io, f, upq_fatfs_read_at, end_of(f));
}
