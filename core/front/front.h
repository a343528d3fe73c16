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

/* The arena plan of upq_writer_workspace_size in two steps, so that a
 * caller that derives the options (recovery) holds them only while they
 * are copied into w, not under the schema walk: w cleared and configured
 * (w->o), then the bytes its setup and log need (max_row_groups as in
 * upq_writer_workspace_size). */
upq_status upq_w_plan_configure(upq_writer *w, const upq_schema_element *elems, uint32_t n,
                                const upq_writer_opts *o);
upq_status upq_w_plan(upq_writer *w, uint32_t max_row_groups, size_t *need);

#endif
