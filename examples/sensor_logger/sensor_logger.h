/*
 * A sensor logger: rows of eight analog channels, a device name and a
 * status flag, written to Parquet as they are sampled.
 *
 * The core (sensor_logger.c) is what firmware runs: no libc, no heap, one
 * static arena, and all output through a upq_sink the platform supplies
 * (host_main.c: a POSIX file; on a board: an SD card or flash driver).
 * Porting means writing that sink and calling these functions from the main
 * loop; nothing else changes.
 *
 * Checkpoint mode is on: after every row group the file ends in a complete
 * footer and is synced, so a power cut loses at most the row group being
 * filled (upq_recover() cuts a damaged file back to its last checkpoint).
 *
 *   ts      int64 TIMESTAMP(MICROS,true)  required
 *   device  binary (STRING)               required
 *   ch0..7  float                         optional (a channel drops out now and then)
 *   status  boolean                       required
 */
#ifndef SENSOR_LOGGER_H
#define SENSOR_LOGGER_H

#include <stddef.h>
#include <stdint.h>

#include "uparquet/uparquet.h"
#include "uparquet/writer.h"

#define SENSOR_CHANNELS 8
#define SENSOR_COLUMNS (SENSOR_CHANNELS + 3)
/* Bytes of the static arena: enough for the options in sensor_logger.c
 * (4 KiB pages, direct mode); sensor_logger_open() checks it against
 * upq_writer_workspace_size(). 48 KiB on 32-bit targets (the Cortex-M4
 * figure of make size); a 64-bit host's pointers make the writer's
 * per-column state a quarter larger, hence more there. */
#ifndef SENSOR_ARENA_BYTES
#if UINTPTR_MAX > 0xFFFFFFFFu
#define SENSOR_ARENA_BYTES (52u * 1024u)
#else
#define SENSOR_ARENA_BYTES (48u * 1024u)
#endif
#endif
#define SENSOR_PAGE_SIZE 1024u
#define SENSOR_ROW_GROUP_ROWS 65536u
#define SENSOR_CHECKPOINT_ROWS 600u

typedef struct sensor_sample {
    int64_t ts_us;                  /* microseconds since 1970-01-01 UTC */
    float ch[SENSOR_CHANNELS];
    uint8_t valid;                  /* bit k: channel k has a reading */
    uint8_t status_ok;
} sensor_sample;

typedef struct sensor_config {
    const char *device;             /* NUL-terminated; must outlive the logger */
    uint64_t seed;                  /* the readings are generated from it */
    uint64_t rows;                  /* rows to log */
    uint32_t row_group_rows;        /* rows per row group (0: SENSOR_ROW_GROUP_ROWS) */
    uint32_t checkpoint_rows;       /* a checkpoint every this many rows (0: only at the
                                       end of each row group) */
    uint32_t page_size;             /* 0: SENSOR_PAGE_SIZE */
} sensor_config;

/* The logger's state: may live anywhere (static on a board). */
typedef struct sensor_logger {
    upq_writer w;
    upq_schema_element elems[SENSOR_COLUMNS + 1];
    uint32_t nelems;
    upq_writer_opts opts;
    upq_column_opts cols[SENSOR_COLUMNS];
    sensor_config cfg;
    upq_bytes device;
    uint64_t rng;
    uint64_t row;                   /* rows logged */
    sensor_sample cur;              /* the row being written */
    uint8_t stage;                  /* where a blocked row resumes */
    uint8_t col;                    /* next column to set */
    size_t arena_need;              /* from upq_writer_workspace_size */
} sensor_logger;

/*
 * Builds the schema and the writer options into lg (no writer yet): what
 * sensor_logger_open() starts the writer with, and what sizing tools ask
 * upq_writer_workspace_size() about. Returns UPQ_OK or a schema error.
 */
upq_status sensor_logger_setup(sensor_logger *lg, const sensor_config *cfg);

/*
 * Builds the schema and opens the writer on `sink` with the static arena.
 * Returns UPQ_OK, UPQ_ERR_NOMEM when SENSOR_ARENA_BYTES is below what the
 * writer needs (lg->arena_need tells how much), or the writer's errors.
 */
upq_status sensor_logger_open(sensor_logger *lg, const upq_sink *sink, const sensor_config *cfg);

/*
 * Logs the next row, then, after the last one, closes the file. Returns
 * UPQ_OK (a row was logged: call again), UPQ_DONE (every row logged and the
 * file complete), UPQ_AGAIN (the sink would block: call again later; the
 * row resumes where it stopped) or an error.
 */
upq_status sensor_logger_step(sensor_logger *lg);

/* The reading of row `i` for a generator state (deterministic: the same
 * seed gives the same rows on every platform). */
void sensor_read(uint64_t *rng, uint64_t i, sensor_sample *out);

/* Bytes of the static arena, and how many the writer needs of it. */
size_t sensor_logger_arena_size(void);
size_t sensor_logger_arena_need(const sensor_logger *lg);

#endif
