/*
 * A storage device that loses power: an SD card holding one FAT-like file,
 * for power-loss tests of the writer's sink (upq_sink).
 *
 * Why a model and not a RAM file: a RAM file that simply stops at the cut
 * only shows the kind case, a prefix of what was written. A real card
 * behind a FAT driver is harsher, and the writer's checkpoint mode and
 * upq_recover must cope with all of it:
 *   - nothing is durable until sync (fsync, f_sync): the card and the
 *     driver cache sectors and may write them back in any order, so after a
 *     cut any subset of the sectors written since the last sync may hold the
 *     new data and the rest the old;
 *   - the sector being programmed at the cut may be torn: part new, part old;
 *   - the file length lives in the directory entry, which FAT updates only at
 *     sync: the file comes back at its last synced length whatever was
 *     written after it (a parameter also lets the length grow with the data,
 *     or jump to the unsynced length, as other file systems do);
 *   - a write past the end of the file exposes whatever the medium held
 *     there before (a deleted file's clusters), not zeros.
 *
 * The model. The medium is an array of 512-byte sectors. The file occupies
 * its first bytes: its *volatile* length (what the driver reports now) and
 * its *durable* length (the directory entry, set at sync). Writes go to the
 * medium at once, so reads return everything written (the volatile view).
 * What a cut would keep is tracked per sector: the first time a sector is
 * written after a sync, its old content is saved (a "shadow"), and sync just
 * forgets the shadows and sets the durable length. So sync costs one step per
 * sector written since the last sync, never a copy of the file: a logging
 * test of tens of MB with a sync per row group stays cheap, and memory is one
 * image plus the sectors written since the last sync.
 *
 * A power cut (a trigger below, or tu_sd_power_cut) decides, from the cut
 * seed, for each sector written since the last sync:
 *   persisted (keeps the new content) with probability persist_pct %, else
 *   lost (gets the shadow back: its content at the last sync).
 * persist_pct 0: exactly the synced state survives. 100: every write that
 * completed before the cut survives. In between: any subset, in any order.
 * Then the sector being written when the power failed, if the failing call
 * got any bytes to the card, is torn (tu_sd_torn): over its decided content
 * the bytes that reached the card land per byte (TU_SD_TORN_MIX, the
 * default), as a prefix (TU_SD_TORN_PREFIX) or all of them
 * (TU_SD_TORN_CUT: the cut is clean at the byte, so with persist_pct 100 a
 * cut at byte N leaves exactly the bytes before N). Bytes of the failing call
 * after the cut point never reach the card. Sectors not written since the
 * last sync never change. The file length after the cut follows
 * tu_sd_len_policy (default: the durable length).
 *
 * The result replaces the medium: tu_sd_file / tu_sd_post_* show the file
 * that survived, and tu_sd_remount powers the card up again with it (and
 * with whatever the medium holds beyond it, e.g. sectors that persisted past
 * the durable length), so a test can recover in place, resume, and cut again.
 *
 * The medium's initial content (under and beyond the file) comes from
 * cfg.stale, and past that from a fixed pattern (tu_sd_stale_byte:
 * DE AD BE EF repeated), so a gap a write leaves behind the end of the file
 * is recognisable and never zeros. Truncating does not wipe anything either:
 * extending the file again shows the old bytes.
 *
 * Failure and behaviour injection, deterministic from cfg.seed (I/O
 * behaviour) and cfg.cut_seed (what a cut keeps; kept apart so the same run
 * can be cut many ways): a cut at a write call or at a byte of the data
 * written or at a sync; a one-off UPQ_ERR_IO from a chosen write, sync, read
 * or truncate call without a cut; short counts; UPQ_AGAIN every k-th call or
 * at random, at most max_again_run times in a row so callers progress.
 * After a cut every callback returns UPQ_ERR_IO until tu_sd_remount.
 *
 *     tu_sd sd; tu_sd_cfg cfg; upq_sink sink;
 *     tu_sd_cfg_default(&cfg);
 *     cfg.cut_byte = 100000;              // the power fails there
 *     tu_sd_init(&sd, &cfg);
 *     tu_sd_sink(&sd, &sink);
 *     ... write through sink until a call returns UPQ_ERR_IO ...
 *     tu_sd_remount(&sd, NULL);           // the file that survived
 *     ... upq_recover through sink.read_at, resume writing ...
 *     tu_sd_free(&sd);
 *
 * Test code: uses malloc and exits the program (status 2) when memory runs
 * out.
 */
#ifndef UPQ_TEST_SDCARD_H
#define UPQ_TEST_SDCARD_H

#include <stddef.h>
#include <stdint.h>

#include "uparquet/status.h"
#include "uparquet/writer.h"

#define TU_SD_SECTOR 512u
/* "no such call / byte": a trigger that never fires */
#define TU_SD_NEVER UINT64_MAX

/* What happens to the bytes of the failing call that reached the card, in
 * the sector being programmed at the cut. "Old" is that sector's content as
 * the cut leaves it otherwise (its last synced content, or its unsynced
 * content if it persisted). */
typedef enum tu_sd_torn {
    TU_SD_TORN_MIX = 0, /* each byte new or old at random */
    TU_SD_TORN_PREFIX,  /* a random prefix of them new, the rest old */
    TU_SD_TORN_CUT      /* all of them new: a clean cut at the byte; a call
                           cut (cut_call) then persists nothing of its call */
} tu_sd_torn;

/* The file length after a cut. */
typedef enum tu_sd_len_policy {
    TU_SD_LEN_DURABLE = 0, /* the length at the last sync (FAT's directory entry) */
    TU_SD_LEN_PERSISTED,   /* grows past that to cover the last sector whose new
                              content survived (capped at the volatile length) */
    TU_SD_LEN_VOLATILE,    /* the length at the cut, whatever survived (metadata
                              written eagerly: lost sectors show their old bytes) */
    TU_SD_LEN_RANDOM       /* one of the three above, from the cut seed */
} tu_sd_len_policy;

/* UPQ_AGAIN injection for one kind of call. */
typedef struct tu_sd_again {
    unsigned every; /* every k-th call of this kind (1-based count) says "again"; 0: never */
    unsigned pct;   /* else with this chance (0..100) */
} tu_sd_again;

typedef struct tu_sd_cfg {
    /* the medium at start: the file (durable, its length is the file's),
     * laid over stale content from offset 0, then the pattern. Both copied. */
    const void *initial;
    size_t initial_len;
    const void *stale;
    size_t stale_len;

    /* what a cut keeps */
    unsigned persist_pct;        /* chance an unsynced sector persisted (default 50) */
    tu_sd_torn torn;             /* default TU_SD_TORN_MIX */
    tu_sd_len_policy len_policy; /* default TU_SD_LEN_DURABLE */

    /* power cuts (TU_SD_NEVER: none), counted from 0 since init/remount.
     * Calls answered UPQ_AGAIN or failed do not count, so a sweep over
     * N = 0, 1, ... meets every point where data moves exactly once. The
     * failing call returns UPQ_ERR_IO, and so does every later call. */
    uint64_t cut_call; /* write/write_at call number cut_call among those that
                          take data (0: the first) is cut: it persists nothing
                          or a torn part of its first sector (per `torn`) */
    uint64_t cut_byte; /* the call that would take byte number cut_byte of the
                          data stream (every byte write/write_at took, in
                          order) gets the bytes before it to the card: whole
                          sectors written, the one holding the cut torn */
    uint64_t cut_sync; /* sync number cut_sync among those that would succeed
                          is cut: nothing becomes durable beyond what the cut
                          keeps anyway */

    /* one-off UPQ_ERR_IO, nothing done, no cut: the call with this 0-based
     * index among all calls of its kind (write and write_at count together) */
    uint64_t fail_write_call, fail_sync_call, fail_read_call, fail_truncate_call;

    /* short counts for write/write_at (and read_at when short_reads) */
    size_t max_chunk; /* at most this many bytes per call; 0: no limit */
    int short_random; /* then 1..that many, uniformly */
    int short_reads;

    tu_sd_again write_again, sync_again, read_again, truncate_again;
    unsigned max_again_run; /* "again" answers in a row per kind (default 3) */

    uint64_t seed;     /* I/O behaviour (default tu_seed()) */
    uint64_t cut_seed; /* cut decisions (default derived from seed) */
} tu_sd_cfg;

typedef enum tu_sd_cut_kind {
    TU_SD_CUT_NONE = 0,
    TU_SD_CUT_CALL,   /* cfg.cut_call fired */
    TU_SD_CUT_BYTE,   /* cfg.cut_byte fired */
    TU_SD_CUT_SYNC,   /* cfg.cut_sync fired */
    TU_SD_CUT_MANUAL  /* tu_sd_power_cut (or tu_sd_remount without a cut) */
} tu_sd_cut_kind;

/* What the last cut did, for assertions and failure messages. */
typedef struct tu_sd_cut_report {
    tu_sd_cut_kind kind;
    uint64_t dirty;          /* sectors written since the last sync */
    uint64_t persisted, lost;
    uint64_t torn_sector;    /* sector index, TU_SD_NEVER when none was torn */
    uint64_t torn_off;       /* file offset of the failing call's bytes that reached it */
    uint64_t torn_len;       /* how many (0 when none) */
    uint64_t torn_new;       /* how many of them landed */
    uint64_t volatile_len;   /* file length just before the power failed */
    uint64_t durable_len;    /* length at the last sync */
    uint64_t post_len;       /* file length after the cut */
} tu_sd_cut_report;

typedef struct tu_sd_stats {
    unsigned long write_calls;  /* write + write_at calls, whatever they returned */
    unsigned long write_taken;  /* ... of which took data (UPQ_OK, *written > 0) */
    unsigned long write_agains, write_errors, short_writes;
    uint64_t bytes_written;     /* sum of *written */
    unsigned long read_calls, read_agains, read_errors;
    uint64_t bytes_read;        /* sum of *got */
    unsigned long sync_calls, sync_agains, sync_errors, syncs_done;
    unsigned long truncate_calls, truncate_agains, truncate_errors;
    uint64_t max_len;           /* high-water mark of the (volatile) file length */
    uint64_t sectors_written;   /* distinct sectors that ever took data */
} tu_sd_stats;

typedef struct tu_sd {
    tu_sd_cfg cfg;        /* initial/stale cleared after init */
    uint8_t *img;         /* the medium, [0, cap), cap a multiple of the sector */
    size_t cap;
    uint64_t len;         /* volatile file length (after a cut: the surviving length) */
    uint64_t dur_len;     /* durable file length */
    uint8_t *dirty_bits;  /* per sector: written since the last sync */
    uint8_t *ever_bits;   /* per sector: ever written (stats.sectors_written) */
    uint64_t *dirty;      /* those sectors, in the order first written */
    uint8_t *shadow;      /* their content at the last sync, TU_SD_SECTOR each */
    size_t ndirty, dirty_cap;
    uint64_t rng, cut_rng;
    unsigned run_write, run_sync, run_read, run_truncate; /* "again" runs */
    int cut;              /* the power has failed (until remount) */
    tu_sd_cut_report last_cut;
    tu_sd_stats st;
} tu_sd;

/* Defaults: persist 50 %, torn MIX, durable length, no triggers or
 * failures, whole writes, no "again", max_again_run 3, seed tu_seed(). */
void tu_sd_cfg_default(tu_sd_cfg *cfg);

/* A powered card with cfg's medium (NULL: defaults, empty medium). */
void tu_sd_init(tu_sd *sd, const tu_sd_cfg *cfg);
void tu_sd_free(tu_sd *sd);

/* Points every callback of `sink` at the model (ctx = sd). */
void tu_sd_sink(tu_sd *sd, upq_sink *sink);

/* The sink callbacks (ctx is the tu_sd), as upq_sink documents them. write
 * appends at the volatile length; write_at may go past it (the gap shows the
 * medium). read_at reads the volatile view. All return UPQ_ERR_IO after a
 * cut. */
upq_status tu_sd_write(void *ctx, const void *buf, size_t len, size_t *written);
upq_status tu_sd_write_at(void *ctx, uint64_t off, const void *buf, size_t len, size_t *written);
upq_status tu_sd_sync(void *ctx);
upq_status tu_sd_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got);
upq_status tu_sd_truncate(void *ctx, uint64_t size);

/* Cuts the power now, between calls (no sector is torn). Nothing if already
 * cut. */
void tu_sd_power_cut(tu_sd *sd);
int tu_sd_is_cut(const tu_sd *sd);

/* The file as it stands: the volatile view while powered, what survived
 * after a cut. Valid until the next call on sd. */
const uint8_t *tu_sd_file(const tu_sd *sd, uint64_t *len);
uint64_t tu_sd_len(const tu_sd *sd);
uint64_t tu_sd_durable_len(const tu_sd *sd);

/* After a cut (before remount): the surviving file. read_at over it, always
 * whole reads (UPQ_ERR_IO when there was no cut); a malloc'd copy (free it;
 * *len set); a copy of its first min(cap, length) bytes into buf, returning
 * the length (0 when there was no cut). */
upq_status tu_sd_post_read_at(void *ctx, uint64_t off, void *buf, size_t len, size_t *got);
uint8_t *tu_sd_post_dup(const tu_sd *sd, size_t *len);
size_t tu_sd_post_copy(const tu_sd *sd, void *buf, size_t cap);

/* Powers the card up again after a cut (cuts now if there was none): the
 * surviving file is the new starting content, durable, and the medium past
 * it keeps what it holds. Counters and "again" runs start over. cfg NULL:
 * the same behaviour with every trigger and one-off failure cleared (a
 * healthy card); else cfg's (its initial/stale ignored; seeds reapplied). */
void tu_sd_remount(tu_sd *sd, const tu_sd_cfg *cfg);

/* The medium's fixed pattern at byte `off` (DE AD BE EF repeated), where
 * neither the file nor cfg.stale reaches. */
uint8_t tu_sd_stale_byte(uint64_t off);

/* The medium's content at `off` as it stands (file, stale data or pattern;
 * beyond the allocated image: the pattern). */
uint8_t tu_sd_medium_byte(const tu_sd *sd, uint64_t off);

#endif
