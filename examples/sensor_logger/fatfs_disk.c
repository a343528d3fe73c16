/* FatFs's disk layer over ramdisk devices (see fatfs_disk.h). */
#include "fatfs_disk.h"
#include "diskio.h"

static ramdisk *drives[FF_VOLUMES];

void fatfs_disk_attach(unsigned pdrv, ramdisk *d)
{
    if (pdrv < FF_VOLUMES)
        drives[pdrv] = d;
}

DSTATUS disk_status(BYTE pdrv)
{
    return pdrv < FF_VOLUMES && drives[pdrv] ? 0 : STA_NOINIT;
}

DSTATUS disk_initialize(BYTE pdrv)
{
    return disk_status(pdrv);
}

DRESULT disk_read(BYTE pdrv, BYTE *buff, LBA_t sector, UINT count)
{
    ramdisk *d = pdrv < FF_VOLUMES ? drives[pdrv] : 0;
    UINT i;
    if (!d)
        return RES_NOTRDY;
    for (i = 0; i < count; i++)
        if (ramdisk_read(d, ((uint64_t)sector + i) * FATFS_DISK_SECTOR, buff + (size_t)i * FATFS_DISK_SECTOR,
                         FATFS_DISK_SECTOR) != 0)
            return RES_PARERR;
    return RES_OK;
}

DRESULT disk_write(BYTE pdrv, const BYTE *buff, LBA_t sector, UINT count)
{
    ramdisk *d = pdrv < FF_VOLUMES ? drives[pdrv] : 0;
    UINT i;
    if (!d)
        return RES_NOTRDY;
    for (i = 0; i < count; i++)
        if (ramdisk_write(d, ((uint64_t)sector + i) * FATFS_DISK_SECTOR,
                          buff + (size_t)i * FATFS_DISK_SECTOR, FATFS_DISK_SECTOR) != 0)
            return RES_PARERR;
    return RES_OK;
}

DRESULT disk_ioctl(BYTE pdrv, BYTE cmd, void *buff)
{
    ramdisk *d = pdrv < FF_VOLUMES ? drives[pdrv] : 0;
    if (!d)
        return RES_NOTRDY;
    switch (cmd) {
    case CTRL_SYNC:
        return RES_OK; /* every write has landed already */
    case GET_SECTOR_COUNT:
        *(LBA_t *)buff = (LBA_t)(d->size / FATFS_DISK_SECTOR);
        return RES_OK;
    case GET_SECTOR_SIZE:
        *(WORD *)buff = (WORD)FATFS_DISK_SECTOR;
        return RES_OK;
    case GET_BLOCK_SIZE:
        *(DWORD *)buff = 1;
        return RES_OK;
    default:
        return RES_PARERR;
    }
}

FRESULT fatfs_disk_format(const char *path, int fat32, uint32_t cluster, void *work, unsigned work_len)
{
    MKFS_PARM p;
    p.fmt = (BYTE)(fat32 ? FM_FAT32 : (FM_ANY | FM_SFD));
    p.n_fat = 0; /* FatFs's default: one FAT */
    p.align = 0;
    p.n_root = 0;
    p.au_size = fat32 ? cluster : 0;
    return f_mkfs(path, &p, work, (UINT)work_len);
}
