/* The logger's storage device in memory (see ramdisk.h). */
#include "ramdisk.h"

static uint8_t *at(ramdisk *d, uint64_t off, int make)
{
    uint64_t c = off / RAMDISK_CHUNK;
    uint8_t *p;
    uint32_t i;
    if (d->flat)
        return d->flat + off;
    p = d->chunks[c];
    if (!p && make) {
        p = d->alloc ? d->alloc(d->alloc_ctx) : 0;
        if (!p)
            return 0;
        for (i = 0; i < RAMDISK_CHUNK; i++)
            p[i] = d->fill;
        d->chunks[c] = p;
    }
    return p ? p + off % RAMDISK_CHUNK : 0;
}

/* Copies len bytes between the device and buf, a chunk at a time; dir 0
 * reads, 1 writes, 2 fills with d->fill. */
static int move(ramdisk *d, uint64_t off, uint8_t *buf, uint32_t len, int dir)
{
    const uint8_t fill = d->fill;
    if (off > d->size || len > d->size - off)
        return -1;
    while (len > 0) {
        uint32_t n = RAMDISK_CHUNK - (uint32_t)(off % RAMDISK_CHUNK), i;
        uint8_t *p;
        if (n > len)
            n = len;
        p = at(d, off, dir != 0);
        if (!p && dir != 0)
            return -1;
        /* a loop per case, which compilers make block copies of (the
         * storage tests move gigabytes through here) */
        if (dir == 0 && p)
            for (i = 0; i < n; i++)
                buf[i] = p[i];
        else if (dir == 0)
            for (i = 0; i < n; i++)
                buf[i] = fill;
        else if (dir == 1)
            for (i = 0; i < n; i++)
                p[i] = buf[i];
        else
            for (i = 0; i < n; i++)
                p[i] = fill;
        if (buf)
            buf += n;
        off += n;
        len -= n;
    }
    return 0;
}

int ramdisk_read(ramdisk *d, uint64_t off, void *buf, uint32_t len)
{
    d->reads++;
    d->bytes_read += len;
    return move(d, off, (uint8_t *)buf, len, 0);
}

int ramdisk_poke(ramdisk *d, uint64_t off, const void *buf, uint32_t len)
{
    return move(d, off, (uint8_t *)(uintptr_t)buf, len, 1);
}

int ramdisk_write(ramdisk *d, uint64_t off, const void *buf, uint32_t len)
{
    if (d->before)
        d->before(d->before_ctx, d, RAMDISK_WRITE, off, buf, len);
    d->writes++;
    d->bytes_written += len;
    return move(d, off, (uint8_t *)(uintptr_t)buf, len, 1);
}

int ramdisk_erase(ramdisk *d, uint64_t off, uint32_t len)
{
    if (d->before)
        d->before(d->before_ctx, d, RAMDISK_ERASE, off, 0, len);
    d->erases++;
    d->bytes_erased += len;
    return move(d, off, 0, len, 2);
}

void ramdisk_count_reset(ramdisk *d)
{
    d->reads = d->writes = d->erases = 0;
    d->bytes_read = d->bytes_written = d->bytes_erased = 0;
}
