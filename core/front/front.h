/*
 * The writer's front (not a public header): setup and the arena plan, the
 * public calls, staging and rows, and the driver that pulls output from the
 * running job (writer.c); resume (resume.c) and recovery (recover.c), which
 * replay a checkpoint-mode file and hand it to the layout or the finisher.
 * It sits above every stage (write/writer_int.h, checkpoint/checkpoint.h).
 */
#ifndef UPQ_FRONT_H
#define UPQ_FRONT_H

#include "checkpoint/checkpoint.h"

/* After a row group's output: clears every column's chunk state and
 * re-indexes the rows carried over into the next row group. */
void upq_w_rg_reset(upq_writer *w);

/* Recomputes the rows every column has and commits them. */
void upq_w_advance(upq_writer *w);

/* Moves pending output to the sink, asking the running job (a buffered row
 * group or footer, or the journal's) for each next piece: UPQ_OK when none
 * is left, UPQ_AGAIN, or a final error. */
upq_status upq_w_pump(upq_writer *w);

/* What the writer's setup works on: the options and the parts of the
 * writer it sizes and places (arena pointers; NULL while it only counts).
 * The planners hold this and their options on their stack, not a whole
 * upq_writer, under the schema walk; upq_writer_init's setup works on its
 * writer's options and copies the rest into the writer. */
typedef struct upq_wset {
    upq_writer *owner;        /* takes the errors; NULL in a plan (returned only) */
    upq_writer_opts *o;       /* filled in by setup */
    /* upq_writer's fields from elems to ncols, then from models to stage,
     * in its order: init copies them as two blocks (writer.c holds the
     * layout to it) */
    const upq_schema_element *elems;
    uint32_t nelems;
    upq_wcol *cols;
    uint32_t ncols;
    void *models;
    uint8_t *pbuf;
    size_t pbuf_cap;
    uint8_t *hbuf;
    size_t hbuf_cap;
    uint16_t *idx;
#if UPQ_WITH_DICT_INDEX
    struct upq_wdx *dx;
#endif
    upq_bytes *bvals;
    uint32_t lmax;
    uint8_t *stage;
    struct upq_wcrypto *wc;
    struct upq_wjournal *jr;
#if UPQ_WITH_CHUNK_META
    struct upq_geo_acc *geo;
#endif
} upq_wset;

/* A plan's setup and its options. */
typedef struct upq_wplan {
    upq_wset s;
    upq_writer_opts o;
} upq_wplan;

/* The arena plan of upq_writer_workspace_size in two steps, so that a
 * caller that derives the options (recovery) holds them only while they
 * are copied into p, not under the schema walk: p cleared and configured
 * (p->o), then the bytes its setup and log need (max_row_groups as in
 * upq_writer_workspace_size). */
upq_status upq_w_plan_configure(upq_wplan *p, const upq_schema_element *elems, uint32_t n,
                                const upq_writer_opts *o);
upq_status upq_w_plan(upq_wplan *p, uint32_t max_row_groups, size_t *need);

#endif
