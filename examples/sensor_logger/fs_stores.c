/* The sensor logger's files on FatFs and littlefs (see fs_stores.h). */
#include "fs_stores.h"

const char *sensor_base_name(const char *name)
{
    const char *b = name;
    for (; *name; name++)
        if (*name == '/')
            b = name + 1;
    return b;
}

static void complain(const sensor_out *err, const char *name, const char *why)
{
    sensor_puts(err, "sensor_logger: ");
    sensor_puts(err, name);
    sensor_puts(err, why);
}

#if SENSOR_WITH_FATFS
const char *fatfs_store_path(fatfs_store *s, const char *name)
{
    const char *b = sensor_base_name(name);
    size_t k = 0, i;
    for (i = 0; s->drive[i] && k < sizeof s->path - 1; i++)
        s->path[k++] = s->drive[i];
    for (i = 0; b[i] && k < sizeof s->path - 1; i++)
        s->path[k++] = b[i];
    s->path[k] = '\0';
    return s->path;
}

static upq_status fat_open(void *ctx, const char *name, int create, upq_sink *sink, uint64_t *size)
{
    fatfs_store *s = (fatfs_store *)ctx;
    BYTE mode = (BYTE)(FA_READ | FA_WRITE | (create ? FA_CREATE_NEW : FA_OPEN_EXISTING));
    FRESULT fr = f_open(&s->fil, fatfs_store_path(s, name), mode);
    if (fr == FR_EXIST) {
        complain(&s->err, name, " exists: resume the log's last file instead\n");
        return UPQ_ERR_IO;
    }
    if (fr != FR_OK) {
        complain(&s->err, name, create ? ": cannot create it on the FAT volume\n"
                                       : ": cannot open it on the FAT volume\n");
        return UPQ_ERR_IO;
    }
    s->open = 1;
    upq_fatfs_init(&s->ad, &s->fil);
    upq_fatfs_gather(&s->ad, s->gather, sizeof s->gather);
    upq_fatfs_sink(&s->ad, sink);
    *size = upq_fatfs_size(&s->ad);
    return UPQ_OK;
}

static upq_status fat_close(void *ctx)
{
    fatfs_store *s = (fatfs_store *)ctx;
    upq_status st;
    if (!s->open)
        return UPQ_OK;
    s->open = 0;
    st = upq_fatfs_flush(&s->ad);
    return f_close(&s->fil) == FR_OK ? st : UPQ_ERR_IO;
}

void fatfs_store_init(fatfs_store *s, const char *drive, const sensor_out *err, sensor_store *out)
{
    s->open = 0;
    s->drive = drive;
    s->err = *err;
    out->open = fat_open;
    out->close = fat_close;
    out->ctx = s;
}
#endif

#if SENSOR_WITH_LITTLEFS
const char *littlefs_store_journal(littlefs_store *s, const char *name)
{
    const char *b = sensor_base_name(name);
    size_t n = 0;
    for (; b[n]; n++) {
        if (n + 3 >= sizeof s->jname)
            return NULL;
        s->jname[n] = b[n];
    }
    s->jname[n] = '.';
    s->jname[n + 1] = 'j';
    s->jname[n + 2] = 0;
    return s->jname;
}

static upq_status lfs_store_open(void *ctx, const char *name, int create, upq_sink *sink, uint64_t *size)
{
    littlefs_store *s = (littlefs_store *)ctx;
    int flags = LFS_O_RDWR | (create ? LFS_O_CREAT | LFS_O_EXCL : 0);
    const char *jname = littlefs_store_journal(s, name);
    upq_status st;
    int err;
    if (!jname) {
        complain(&s->err, name, ": the name is too long\n");
        return UPQ_ERR_IO;
    }
    s->fcfg.buffer = s->buf;
    s->fcfg.attrs = 0;
    s->fcfg.attr_count = 0;
    s->jcfg = s->fcfg;
    s->jcfg.buffer = s->jbuf;
    err = lfs_file_opencfg(s->lfs, &s->file, sensor_base_name(name), flags, &s->fcfg);
    if (err == LFS_ERR_EXIST) {
        complain(&s->err, name, " exists: resume the log's last file instead\n");
        return UPQ_ERR_IO;
    }
    if (err != 0) {
        complain(&s->err, name, create ? ": cannot create it on littlefs\n" : ": cannot open it on littlefs\n");
        return UPQ_ERR_IO;
    }
    /* a new log's journal starts empty; a resumed one's is read */
    err = lfs_file_opencfg(s->lfs, &s->jfile, jname, LFS_O_RDWR | LFS_O_CREAT | (create ? LFS_O_TRUNC : 0),
                           &s->jcfg);
    if (err != 0) {
        lfs_file_close(s->lfs, &s->file);
        complain(&s->err, name, ": cannot open its journal on littlefs\n");
        return UPQ_ERR_IO;
    }
    s->open = 1;
    upq_littlefs_init(&s->ad, s->lfs, &s->file);
    upq_littlefs_init(&s->jad, s->lfs, &s->jfile);
    upq_littlefs_buffers(&s->ad, s->rbuf, sizeof s->rbuf, s->wbuf, sizeof s->wbuf);
    upq_littlefs_buffers(&s->jad, s->jrbuf, sizeof s->jrbuf, s->jwbuf, sizeof s->jwbuf);
    st = upq_littlefs_append(&s->ap, &s->ad, &s->jad, create, s->copy, sizeof s->copy, sink, size);
    if (st != UPQ_OK)
        complain(&s->err, name, ": its journal cannot be taken up\n");
    return st;
}

static upq_status lfs_store_close(void *ctx)
{
    littlefs_store *s = (littlefs_store *)ctx;
    int e1, e2;
    if (!s->open)
        return UPQ_OK;
    s->open = 0;
    e1 = upq_littlefs_flush(&s->jad) == UPQ_OK ? 0 : -1;
    e2 = upq_littlefs_flush(&s->ad) == UPQ_OK ? 0 : -1;
    e1 |= lfs_file_close(s->lfs, &s->jfile);
    e2 |= lfs_file_close(s->lfs, &s->file);
    return e1 == 0 && e2 == 0 ? UPQ_OK : UPQ_ERR_IO;
}

void littlefs_store_init(littlefs_store *s, lfs_t *lfs, const sensor_out *err, sensor_store *out)
{
    s->lfs = lfs;
    s->open = 0;
    s->err = *err;
    out->open = lfs_store_open;
    out->close = lfs_store_close;
    out->ctx = s;
}
#endif
