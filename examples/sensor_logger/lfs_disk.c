/* A littlefs block device over a ramdisk (see lfs_disk.h). */
#include "lfs_disk.h"

static int bd_read(const struct lfs_config *c, lfs_block_t block, lfs_off_t off, void *buf, lfs_size_t size)
{
    ramdisk *d = (ramdisk *)c->context;
    return ramdisk_read(d, (uint64_t)block * c->block_size + off, buf, size) == 0 ? 0 : LFS_ERR_IO;
}

static int bd_prog(const struct lfs_config *c, lfs_block_t block, lfs_off_t off, const void *buf,
                   lfs_size_t size)
{
    ramdisk *d = (ramdisk *)c->context;
    return ramdisk_write(d, (uint64_t)block * c->block_size + off, buf, size) == 0 ? 0 : LFS_ERR_IO;
}

static int bd_erase(const struct lfs_config *c, lfs_block_t block)
{
    ramdisk *d = (ramdisk *)c->context;
    return ramdisk_erase(d, (uint64_t)block * c->block_size, c->block_size) == 0 ? 0 : LFS_ERR_IO;
}

static int bd_sync(const struct lfs_config *c)
{
    (void)c;
    return 0;
}

void lfs_disk_config(struct lfs_config *cfg, ramdisk *d, void *rcache, void *pcache, void *lookahead)
{
    volatile uint8_t *z = (volatile uint8_t *)cfg;
    size_t k;
    for (k = 0; k < sizeof *cfg; k++)
        z[k] = 0;
    cfg->context = d;
    cfg->read = bd_read;
    cfg->prog = bd_prog;
    cfg->erase = bd_erase;
    cfg->sync = bd_sync;
    cfg->read_size = LFS_DISK_PROG;
    cfg->prog_size = LFS_DISK_PROG;
    cfg->block_size = LFS_DISK_BLOCK;
    cfg->block_count = (lfs_size_t)(d->size / LFS_DISK_BLOCK);
    cfg->block_cycles = 500;
    cfg->cache_size = LFS_DISK_CACHE;
    cfg->lookahead_size = LFS_DISK_LOOKAHEAD;
    cfg->read_buffer = rcache;
    cfg->prog_buffer = pcache;
    cfg->lookahead_buffer = lookahead;
}
