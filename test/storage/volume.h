/*
 * A volume for the storage tests and figures: FatFs (FAT32, 32 KiB
 * clusters) or littlefs (examples/sensor_logger/lfs_disk.h's geometry) on a
 * counting RAM device made as it is written, with the sensor logger's
 * store on it.
 */
#ifndef STORAGE_VOLUME_H
#define STORAGE_VOLUME_H

#include "../../examples/sensor_logger/fs_stores.h"
#include "../../examples/sensor_logger/ramdisk.h"
#include "../../examples/sensor_logger/fatfs_disk.h"
#include "../../examples/sensor_logger/lfs_disk.h"

typedef struct storage_volume {
    int fat;                  /* 1 FatFs, 0 littlefs */
    ramdisk disk;
    FATFS fatfs;
    fatfs_store fstore;
    lfs_t lfs;
    struct lfs_config lcfg;
    uint8_t lrc[LFS_DISK_CACHE], lpc[LFS_DISK_CACHE], lla[LFS_DISK_LOOKAHEAD];
    littlefs_store lstore;
    sensor_store store;       /* the logger's files on it */
} storage_volume;

/* Drops what `v` held, then a new device of `size` bytes, formatted and
 * mounted (drive "0:" for FatFs). 0, or -1. */
int storage_volume_new(storage_volume *v, int fat, uint64_t size, const sensor_out *err);
void storage_volume_free(storage_volume *v);

#endif
