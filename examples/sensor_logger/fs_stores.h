/*
 * The sensor logger's files on a FatFs volume or a littlefs filesystem,
 * through µparquet's adapters (port/adapters/fatfs, port/adapters/littlefs):
 * what a board with an SD card or a flash chip runs. Freestanding. A file
 * is named by the last part of the log's name ("dir/log.parquet" is
 * "log.parquet" on the volume's root).
 */
#ifndef SENSOR_FS_STORES_H
#define SENSOR_FS_STORES_H

#include "logger_cli.h"

#ifndef SENSOR_WITH_FATFS
#define SENSOR_WITH_FATFS 0
#endif
#ifndef SENSOR_WITH_LITTLEFS
#define SENSOR_WITH_LITTLEFS 0
#endif

#if SENSOR_WITH_FATFS
#include "fatfs/upq_fatfs.h"

/* Sectors the FatFs adapter gathers beside its own (upq_fatfs_gather): one
 * for each of the logger's 11 columns' regions, the journal's records and
 * the blobs, and one more. */
#ifndef SENSOR_FAT_GATHER
#define SENSOR_FAT_GATHER 15
#endif

typedef struct fatfs_store {
    FIL fil;
    upq_fatfs ad;
    uint8_t gather[SENSOR_FAT_GATHER * FF_MAX_SS];
    uint8_t open;
    const char *drive;   /* "0:" */
    char path[64];
    sensor_out err;
} fatfs_store;

/* Files on the mounted volume `drive`; messages to `err`. */
void fatfs_store_init(fatfs_store *s, const char *drive, const sensor_out *err, sensor_store *out);
/* The volume's path of a log file name. */
const char *fatfs_store_path(fatfs_store *s, const char *name);
#endif

#if SENSOR_WITH_LITTLEFS
#include "littlefs/upq_littlefs.h"
#include "../../port/adapters/append/upq_append.h"

#ifndef SENSOR_LFS_BUF
#define SENSOR_LFS_BUF 1024
#endif

/* littlefs only appends cheaply: a log is its data file ("log.parquet") and
 * a journal beside it ("log.parquet.j"), through port/adapters/append. */
typedef struct littlefs_store {
    lfs_t *lfs;
    lfs_file_t file, jfile;
    struct lfs_file_config fcfg, jcfg;
    uint8_t buf[256], jbuf[256]; /* the files' caches (cache_size of the mount) */
    /* the adapters' read-ahead and held-back writes (upq_littlefs_buffers) */
    uint8_t rbuf[SENSOR_LFS_BUF], wbuf[SENSOR_LFS_BUF], jrbuf[SENSOR_LFS_BUF], jwbuf[SENSOR_LFS_BUF];
    upq_littlefs ad, jad;
    upq_append ap;
    uint8_t copy[512];   /* the journal's copy buffer */
    uint8_t open;
    char jname[64];
    sensor_out err;
} littlefs_store;

/* Files on the mounted `lfs` (cache_size at most 256); messages to `err`. */
void littlefs_store_init(littlefs_store *s, lfs_t *lfs, const sensor_out *err, sensor_store *out);
/* The journal's name of a log file's name (in s->jname), NULL when too long. */
const char *littlefs_store_journal(littlefs_store *s, const char *name);
#endif

/* "dir/log.parquet" -> "log.parquet" */
const char *sensor_base_name(const char *name);

#endif
