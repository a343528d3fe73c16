/*
 * upq_sink and upq_io over a FatFs file (ChaN's FatFs, R0.15 or later): the
 * writer's output, recovery and resume, and the reader, through the FIL your
 * firmware already has open. Compile upq_fatfs.c with your own FatFs (its
 * ff.h and ffconf.h on the include path); nothing of FatFs is in µparquet.
 *
 * What it needs from ffconf.h:
 *   FF_FS_READONLY 0    it writes.
 *   FF_FS_MINIMIZE 0    f_truncate (the sink's truncate: close and recovery
 *                       give back a cut row group's reserved space). With 1
 *                       or 2 the sink has no truncate: files keep that space
 *                       as unused bytes. 3 removes f_lseek: refused.
 *   FF_USE_EXPAND       not needed (the adapter never calls f_expand).
 *   FF_USE_FASTSEEK     1 recommended: seeks backwards no longer read the FAT
 *                       from the file's start (below).
 *   FF_FS_TINY          either; 0 gives each FIL its own sector buffer, which
 *                       the many small writes of checkpoint mode's regions
 *                       need: with 1 every file write goes through the
 *                       volume's one window.
 *   FF_FS_EXFAT, FF_LBA64  either; offsets past 4 GiB - 1 need FSIZE_t of 64
 *                       bits (exFAT), and are refused with UPQ_ERR_IO without.
 *   FF_FS_LOCK, FF_FS_REENTRANT  either: call the sink from one task at a time.
 *
 * What FatFs does with what it is given (see the design notes):
 *   a write that does not cover whole sectors is a read-modify-write through
 *   the file's one sector buffer, and f_lseek to the middle of a sector
 *   other than the buffered one writes the buffer back and reads that
 *   sector. So the adapter gathers writes at consecutive offsets in a sector
 *   of its own (`gbuf`) and hands FatFs whole sectors where it can: one
 *   write per sector, not one per piece; a gathered sector whose rest the
 *   adapter zeroed itself goes whole, padded with zeros, and is not read.
 *   f_sync writes that buffer, the FAT and the directory entry (the file's
 *   size as recovery will see it after a cut); f_lseek past the end in
 *   write mode allocates clusters without clearing them, so a gap holds
 *   whatever the medium held before until it is written: checkpoint mode
 *   writes zeros into what its row groups leave unused (a region's end,
 *   a dictionary slot's start, the journal area's rest) before it says the
 *   row group is complete, and recovery into what a cut left, so no byte
 *   of a closed or recovered file is the card's; zero_gaps (below, off by
 *   default) zeros a gap ahead of the write instead, for a writer that
 *   leaves gaps of its own; f_lseek backwards follows the cluster
 *   chain from the file's start, reading the FAT a sector per 128 clusters
 *   (FAT32), unless FF_USE_FASTSEEK is 1: then the adapter keeps a map of
 *   the chain (UPQ_FATFS_CLMT) for seeks inside the file, made again when
 *   one goes past what it maps (the file grew since), which is far less
 *   often than the regions' seeks.
 *
 * Memory: the struct holds a sector (FF_MAX_SS), UPQ_FATFS_ZONES ranges
 * (16 bytes each) and with FF_USE_FASTSEEK UPQ_FATFS_CLMT DWORDs, beside
 * the FIL's own sector buffer.
 *
 * Errors: every FatFs failure (and a full volume) is UPQ_ERR_IO; the
 * FRESULT is kept in `fr` (FR_DENIED for a full volume). The callbacks never
 * block for long on their own and never say UPQ_AGAIN: FatFs itself blocks
 * in disk_read/disk_write.
 */
#ifndef UPQ_FATFS_H
#define UPQ_FATFS_H

#include <stddef.h>
#include <stdint.h>

#include "ff.h"
#include "uparquet/reader.h"
#include "uparquet/writer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* FatFs's fast seek table, in DWORDs (FF_USE_FASTSEEK 1): 2 per fragment
 * of the file's cluster chain and 2 more. A file with more fragments
 * seeks the slow way. */
#ifndef UPQ_FATFS_CLMT
#define UPQ_FATFS_CLMT 16
#endif

/* Sectors gathered at once at most: the adapter's own and, with
 * upq_fatfs_gather, the caller's. */
#ifndef UPQ_FATFS_SLOTS
#define UPQ_FATFS_SLOTS 16
#endif

/* Zeroed ranges remembered (a column's region each in checkpoint mode). */
#ifndef UPQ_FATFS_ZONES
#define UPQ_FATFS_ZONES 16
#endif

typedef struct upq_fatfs {
    FIL *fp;                 /* open with FA_READ (reading), FA_READ | FA_WRITE (writing) */
    FRESULT fr;              /* the last FatFs failure (FR_OK: none) */
    /* Write zeros over a gap before a write past the end, so that no byte of
     * the file is left as the medium held it (another file's, or data the
     * user erased), nor as FatFs's sector buffer held it. Costs the gap's
     * sectors once more. Off after init: the writer's checkpoint mode
     * zeros its own gaps, in fewer writes (once, when a row group ends);
     * set 1 for a writer that leaves gaps and does not. */
    uint8_t zero_gaps;
    /* what went through: calls and bytes, for figures and tests */
    unsigned long reads, writes, syncs, truncates, padded; /* padded: sectors written whole, not read */
    uint64_t bytes_read, bytes_written;
    /* Written bytes not yet handed to FatFs, in slots of one sector each:
     * slot i holds [soff[i], soff[i] + slen[i]) within one sector (slot 0
     * in gbuf, the others in the caller's sectors: upq_fatfs_gather). A
     * slot is handed over when its sector is full, when a write overlaps
     * it other than by going on from its end, when a write needs a slot
     * and none is free (the one used longest ago), before a read that
     * overlaps it, and by sync, truncate and upq_fatfs_flush(). */
    uint64_t soff[UPQ_FATFS_SLOTS];
    uint32_t slen[UPQ_FATFS_SLOTS];
    uint32_t sused[UPQ_FATFS_SLOTS]; /* when each was last written to */
    /* 0: FatFs has the slot's bytes already (a sync handed them over and
     * the slot kept them, so the next write that goes on from them fills
     * the sector, which then goes whole without a read) */
    uint8_t sdirty[UPQ_FATFS_SLOTS];
    uint32_t nslots, clock;
    uint8_t *sbuf;           /* the caller's sectors (nslots - 1 of FF_MAX_SS bytes) */
    uint8_t gbuf[FF_MAX_SS];
    /* Ranges of the file that grew over a gap (zeroed by zero_gaps, or
     * left for the writer to write or zero) and that nothing has written
     * since (the regions ahead of checkpoint mode's pages): no byte there
     * need be kept, so a gathered sector whose rest lies in one is written
     * whole, padded with zeros, and FatFs need not read it first. */
    uint64_t zone[UPQ_FATFS_ZONES][2];
    uint32_t zone_next;
#if FF_USE_FASTSEEK
    /* The cluster chain's map for seeks inside the file: it covers the
     * file's first clmt_end bytes (clmt_ok 1; 0: none; 2: the chain up to
     * clmt_end has more fragments than it holds). */
    DWORD clmt[UPQ_FATFS_CLMT];
    uint64_t clmt_end;
    uint8_t clmt_ok;
    unsigned long maps; /* maps made */
#endif
} upq_fatfs;

/* Takes `fp` (an open FIL that must stay open while the adapter is used);
 * counters start at 0, zero_gaps at 0. */
void upq_fatfs_init(upq_fatfs *f, FIL *fp);

/* More sectors gathered at once: `mem` (len bytes, FF_MAX_SS each, up to
 * UPQ_FATFS_SLOTS - 1 of them; the caller keeps it while the adapter is
 * used). Checkpoint mode writes each column's pages to a region of its
 * own, a page ending inside a sector the column's next page goes on
 * with: with a sector for each column's region and two more (the
 * journal's records, the blobs), every sector goes to FatFs once and
 * whole, instead of written partly, then read back and written again
 * when the next page comes (about 1x of the file in writes and in reads
 * while logging). A sync hands a slot's bytes over and the slot keeps
 * them, so the page after a checkpoint fills the sector without FatFs
 * reading it. The sensor logger's 11 columns: 15 sectors, 7.5 KiB.
 * Call it after upq_fatfs_init, before the first write. */
void upq_fatfs_gather(upq_fatfs *f, uint8_t *mem, size_t len);
/* Fills *sink with write (at the end), write_at (gathered, then f_lseek +
 * f_write), read_at (f_lseek + f_read), sync (f_sync) and, with
 * FF_FS_MINIMIZE 0, truncate (f_lseek + f_truncate). The size recovery and resume start from
 * is the file's: upq_fatfs_size(). */
void upq_fatfs_sink(upq_fatfs *f, upq_sink *sink);

/* Fills *io to read the file (size: as it is now). */
void upq_fatfs_io(upq_fatfs *f, upq_io *io);

/* The file's size (f_size, and the gathered bytes past it). */
uint64_t upq_fatfs_size(const upq_fatfs *f);

/* Hands the gathered bytes to FatFs (f_write; f_sync is the sink's sync).
 * Call it before f_close when the last call on the sink was not a sync:
 * the writer's close and recovery end with one. */
upq_status upq_fatfs_flush(upq_fatfs *f);

/* The upq_read_at_fn; `ctx` is a upq_fatfs. 0 bytes at or past the end. */
upq_status upq_fatfs_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got);

#ifdef __cplusplus
}
#endif

#endif
