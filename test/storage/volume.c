/* A volume for the storage tests and figures (see volume.h). */
#include "volume.h"

#include <stdlib.h>
#include <string.h>

static uint8_t *chunk_alloc(void *ctx)
{
    (void)ctx;
    return (uint8_t *)malloc(RAMDISK_CHUNK);
}

void storage_volume_free(storage_volume *v)
{
    uint64_t c;
    if (v->disk.chunks) {
        for (c = 0; c < v->disk.size / RAMDISK_CHUNK; c++)
            free(v->disk.chunks[c]);
        free(v->disk.chunks);
    }
    memset(&v->disk, 0, sizeof v->disk);
}

int storage_volume_new(storage_volume *v, int fat, uint64_t size, const sensor_out *err)
{
    static uint8_t work[4096];
    storage_volume_free(v);
    v->fat = fat;
    v->disk.size = size;
    v->disk.fill = fat ? 0x00 : 0xFF;
    v->disk.chunks = (uint8_t **)calloc((size_t)(size / RAMDISK_CHUNK), sizeof *v->disk.chunks);
    v->disk.alloc = chunk_alloc;
    if (!v->disk.chunks)
        return -1;
    if (fat) {
        fatfs_disk_attach(0, &v->disk);
        if (fatfs_disk_format("0:", 1, 32768, work, sizeof work) != FR_OK || f_mount(&v->fatfs, "0:", 1) != FR_OK)
            return -1;
        fatfs_store_init(&v->fstore, "0:", err, &v->store);
    } else {
        lfs_disk_config(&v->lcfg, &v->disk, v->lrc, v->lpc, v->lla);
        if (lfs_format(&v->lfs, &v->lcfg) != 0 || lfs_mount(&v->lfs, &v->lcfg) != 0)
            return -1;
        littlefs_store_init(&v->lstore, &v->lfs, err, &v->store);
    }
    ramdisk_count_reset(&v->disk);
    return 0;
}
