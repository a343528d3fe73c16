/*
 * A checkpoint-mode sink over two files that can only be appended to
 * cheaply (littlefs and other copy-on-write or log-structured filesystems;
 * raw flash partitions): the data file, which ends up as the Parquet file,
 * and a journal file beside it.
 *
 * The writer's region layout writes at offsets inside the open row group.
 * Here every byte at or after the data file's sealed end goes to the end of
 * the journal file instead, as a frame (its offset, its length, a CRC);
 * when the writer says a row group, or the file, is complete (upq_sink's
 * seal, after a sync), the frames are copied in offset order to the end of
 * the data file, the data file syncs, and the journal starts over. So every
 * byte is programmed once into the journal and once into the data file,
 * each appended; the data file holds the Parquet file and nothing else.
 * Reading back sees the data file up to the sealed end and the frames after
 * it. The journal never holds a byte twice: a write over a journaled byte
 * (the writer rewrites a few, such as the byte that extends a new file)
 * seals first. A write before the sealed end goes into the data file where it
 * belongs (a resumed row group, a record rewritten by recovery): correct,
 * at the filesystem's cost for writing inside a file.
 *
 * Power cuts: the data file is synced before the journal starts over, and
 * the journal before each checkpoint's sync returns, so after a cut the two
 * files give the file as of the last sync. upq_append_open takes the
 * journal up as it is: recovery and resume read through it and write after
 * its last checkpoint (in what was never written), and the next seal copies
 * it.
 *
 * The two files' sinks need write (append at the end), read_at, sync and
 * truncate, and the data file's write_at; none may say UPQ_AGAIN. The
 * sink's seal copies UPQ_APPEND_SEAL_STEP bytes a call and says UPQ_AGAIN
 * until the row group is in place (the writer calls it again); the other
 * callbacks never say UPQ_AGAIN, and finish a seal under way first.
 * Freestanding: no libc, no allocation (the caller gives the state and a
 * copy buffer).
 */
#ifndef UPQ_APPEND_H
#define UPQ_APPEND_H

#include <stddef.h>
#include <stdint.h>

#include "uparquet/writer.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Small writes that continue one another are gathered up to this many
 * bytes before they become a frame. */
#define UPQ_APPEND_GATHER 256u
/* Streams of small writes gathered at once, UPQ_APPEND_GATHER bytes each: a
 * small write that continues none of them takes the slot used longest ago
 * (two: fewer frames, 2.07x programmed instead of 2.08x and 11.38 calls per
 * KiB recovering a cut 100,000-row log instead of 12.49). */
#ifndef UPQ_APPEND_GATHERS
#define UPQ_APPEND_GATHERS 2u
#endif
/* A frame's header: "UPQA", type, 3 zero bytes, u32 length, u64 offset,
 * u32 CRC-32 of the header's first 20 bytes and the data; little-endian.
 * Types: 1 the head (offset: the data file's sealed end), 2 data, 3 an
 * index (offset: where the frames it names begin; data: an entry of 6
 * bytes for each, u32 offset from the sealed end and u16 length). Type 4,
 * data with a 16-byte header, is what the sink writes for data: "UPQA", 4,
 * u24 length, u32 offset from the sealed end, u32 CRC-32 of the header's
 * first 12 bytes and the data. */
#define UPQ_APPEND_FRAME 24u
/* Runs of contiguous bytes the journal can hold at once (the writer's
 * region layout has one per column, its records and its blobs). A write
 * that overlaps a journaled byte, or would start a run past this many,
 * seals first. */
#ifndef UPQ_APPEND_RUNS
#define UPQ_APPEND_RUNS 48u
#endif

/* The journal's index: after every UPQ_APPEND_INDEX_K data frames an
 * index frame lists them (each one's offset from the sealed end and its
 * length, 6 bytes; a data frame holds at most 65,535 bytes), and the sink keeps where the index frames are (up to
 * UPQ_APPEND_INDEX_MAX of them: 4 bytes each) and the entries of the frames
 * since the last one. Reads and the seal go through a run in order, and a
 * run's frames lie between the other runs' frames: a look-up reads index
 * entries, UPQ_APPEND_INDEX_K frames to a read, instead of the headers of
 * the frames between. What the index says is checked against the frame's
 * header; frames past what it covers are found by reading headers. */
#ifndef UPQ_APPEND_INDEX_K
#define UPQ_APPEND_INDEX_K 64u
#endif
#ifndef UPQ_APPEND_INDEX_MAX
#define UPQ_APPEND_INDEX_MAX 160u
#endif

/* The most the sink's seal copies a call (journal bytes to the data file,
 * or zeros for a gap): it says UPQ_AGAIN until the row group is in place.
 * A look-up of a run's next frame may read frame headers beyond it. */
#ifndef UPQ_APPEND_SEAL_STEP
#define UPQ_APPEND_SEAL_STEP ((uint64_t)16 << 10)
#endif

/* A frame as read back: where its data is in the journal, where it goes. */
typedef struct upq_append_frame {
    uint64_t pos, voff;
    uint32_t len;
    int type;
} upq_append_frame;

/* A run of contiguous bytes in the journal: [start, end) of the file, in
 * frames at journal offsets from `first` on; `cur` the frame last found in
 * it (len 0: none), where the next look-up starts: reads and the seal go
 * through a run in order, its frames in journal order between other runs'
 * frames; `npos`, `nlen` the frame after cur when the index named it
 * (nlen 0: not known). */
typedef struct upq_append_run {
    uint64_t start, end;
    uint64_t first;
    upq_append_frame cur;
    uint32_t npos, nlen;
} upq_append_run;

/* An index entry: a data frame's file offset from the sealed end, its
 * length */
typedef struct upq_append_entry {
    uint32_t voff, len;
} upq_append_entry;

typedef struct upq_append {
    upq_sink data, journal;
    uint64_t base;           /* the data file's sealed end: bytes before it are in it */
    uint64_t vsize;          /* the file's size as the writer sees it */
    uint64_t dsize;          /* the data file's size */
    uint64_t jsize;          /* the journal's size */
    uint64_t jbytes;         /* data bytes in the journal's frames */
    uint8_t ddirty, jdirty;  /* written since their last sync */
    uint8_t sealing;         /* a seal under way (the sink's seal said UPQ_AGAIN): */
    uint32_t si;             /* ... the run it copies, */
    uint64_t sat;            /* ... the data file's end as it goes, */
    uint64_t spos, sleft;    /* ... the frame being copied: where, what is left, */
    uint64_t scopied;        /* ... the journal's bytes copied */
    uint8_t *buf;            /* the copy buffer */
    size_t cap;
    uint64_t gvoff[UPQ_APPEND_GATHERS]; /* gathered small writes: where they go... */
    uint32_t glen[UPQ_APPEND_GATHERS];  /* ... their bytes */
    uint32_t gnext;                     /* the slot a new stream takes */
    uint8_t gather[UPQ_APPEND_GATHERS][UPQ_APPEND_GATHER];
    upq_append_run runs[UPQ_APPEND_RUNS]; /* what the journal holds, run by run */
    uint32_t nruns;
    /* the journal's index: where its index frames are, the entries of the
     * data frames since the last (from journal offset pstart on) */
    uint32_t ipos[UPQ_APPEND_INDEX_MAX];
    uint32_t nidx, npend;
    uint8_t ioff;            /* 1: frames are no longer indexed (the index is full) */
    uint64_t pstart;
    upq_append_entry pend[UPQ_APPEND_INDEX_K];
    const char *what;        /* what failed (NULL: nothing) */
    /* what went through, for figures and tests */
    unsigned long frames, seals, inplace, early; /* early: seals for an overlap or runs */
    unsigned long seal_steps; /* calls of the sink's seal that copied (UPQ_AGAIN or done) */
    unsigned long headers, indexed; /* frame headers read back; look-ups the index answered */
    uint64_t bytes_sealed;
} upq_append;

/* Starts on the two files: `create` 1 empties both (a new file); 0 takes
 * them as a cut or closed file left them (sizes dsize and jsize) and copies
 * what the journal holds into the data file. buf (at least 64 bytes) is the
 * copy buffer; larger copies in fewer calls. UPQ_OK, UPQ_ERR_IO, or
 * UPQ_ERR_CORRUPT when the journal does not belong to the data file. */
upq_status upq_append_open(upq_append *a, const upq_sink *data, const upq_sink *journal, uint64_t dsize,
                           uint64_t jsize, int create, void *buf, size_t cap);

/* Fills *sink: write_at, write, read_at, sync, truncate and seal over the
 * pair (ctx is a). */
void upq_append_sink(upq_append *a, upq_sink *sink);

/* The file's size as the writer sees it (its `size` for upq_recover and
 * upq_writer_resume). */
uint64_t upq_append_size(const upq_append *a);

/* Seals everything (as the writer's close does): the data file is then the
 * whole file and the journal empty. */
upq_status upq_append_seal_all(upq_append *a);

#ifdef __cplusplus
}
#endif

#endif
