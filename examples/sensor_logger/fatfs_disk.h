/*
 * FatFs's disk layer (diskio.h) over ramdisk devices, for the sensor logger
 * on a host, its tests and the qemu board: what a board's SD card driver
 * does, in memory. Sectors are 512 bytes; a multi-sector write lands sector
 * by sector, so a power cut can fall between any two.
 */
#ifndef SENSOR_FATFS_DISK_H
#define SENSOR_FATFS_DISK_H

#include "ff.h"
#include "ramdisk.h"

#define FATFS_DISK_SECTOR 512u

/* Drive `pdrv` (0 .. FF_VOLUMES-1) is `d` from now on (NULL: none). */
void fatfs_disk_attach(unsigned pdrv, ramdisk *d);

/* Formats drive `path` ("0:"): FAT32 with `cluster` bytes a cluster when
 * fat32, else what fits (FAT12/16). `work` is f_mkfs's buffer (at least a
 * sector). */
FRESULT fatfs_disk_format(const char *path, int fat32, uint32_t cluster, void *work, unsigned work_len);

#endif
