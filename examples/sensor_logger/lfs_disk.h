/*
 * A littlefs block device over a ramdisk (a NOR flash chip in memory: erase
 * sets a block to 0xFF), for the sensor logger on a host and its tests.
 * Every read, program and erase goes through the ramdisk, which counts it.
 */
#ifndef SENSOR_LFS_DISK_H
#define SENSOR_LFS_DISK_H

#include "lfs.h"
#include "ramdisk.h"

/* The geometry of issue 27's measurements: 4096-byte blocks, 16-byte reads
 * and programs, a 256-byte cache. */
#define LFS_DISK_BLOCK 4096u
#define LFS_DISK_PROG 16u
#define LFS_DISK_CACHE 256u
#define LFS_DISK_LOOKAHEAD 256u

/* Fills *cfg for `d` (d->size a multiple of LFS_DISK_BLOCK, d->fill 0xFF),
 * with the caches in caller memory: rcache and pcache LFS_DISK_CACHE bytes
 * each, lookahead LFS_DISK_LOOKAHEAD. */
void lfs_disk_config(struct lfs_config *cfg, ramdisk *d, void *rcache, void *pcache, void *lookahead);

#endif
