/*
 * The replay of a checkpoint-mode file (internal): reading its journal back
 * for resume and recovery. replay.c walks the chain of records and checks
 * each against the others and against the pages it describes; replay_dict.c
 * reads the dictionary entries the records point to (to count them, to
 * rebuild a cut row group's dictionary page, or to take them up again).
 */
#ifndef UPQ_REPLAY_H
#define UPQ_REPLAY_H

#include "checkpoint.h"

/* Sets the replay job up on w: the file's first row group's journal area at
 * first_j, its file id, the highest session seen in FILE, resume or
 * recovery, the file's size. The file's journal version and nonce are the
 * writer's (upq_wr_adopt_file). The caller then starts the job
 * (upq_wj_start(w, UPQ_WJ_REPLAY)). */
void upq_wr_start(upq_writer *w, uint64_t first_j, uint64_t file_id, uint16_t session, int resume,
                  uint64_t size);

/* Takes the file's journal version and nonce (FILE's settings) into w, so
 * that its records are read, and new ones written, as the file's.
 * UPQ_OK, or UPQ_ERR_CORRUPT when the settings do not make sense. */
upq_status upq_wr_adopt_file(upq_writer *w, const upq_jfile *fj);

#if UPQ_WITH_CRYPTO
/* Takes the file's AAD file_unique and key checks (FILE's settings in
 * UPQ_WF(w)->fj) into w, after checking each column key against its check
 * module, so what it writes next belongs to the same file. */
upq_status upq_wr_adopt_keys(upq_writer *w);
#endif

/* ---- dictionaries (replay_dict.c) ---- */

/* Counts the PLAIN entries of column c in p[0..n), one piece of a blob
 * after another (UPQ_WF(w)->ents, ->elen, ->ehave, ->eskip hold the count
 * and an entry cut between pieces; zero them before a blob). 0 when the
 * bytes are not entries of c. */
int upq_wr_count_entries(upq_writer *w, const upq_wcol *c, const uint8_t *p, size_t n);
/* ... and whether the blob ended at an entry's end. */
int upq_wr_entries_whole(const upq_writer *w);

/* Column f->vcol of the cut row group, with the chosen checkpoint taken
 * (f->rg_j, f->cand): its entries in every blob of the row group's records
 * up to the checkpoint, counted against c->dict_n, and its dictionary page
 * sized against its slot (UPQ_DONE: fine; UPQ_ERR_CORRUPT; UPQ_AGAIN; an
 * I/O error); the page itself written right-aligned in the slot (UPQ_OK: a
 * piece; UPQ_DONE); the entries taken up into c's dictionary for resume
 * (UPQ_DONE; f->cut set when this writer cannot hold them). f->vstage 0
 * starts each. */
upq_status upq_wr_dict_check(upq_writer *w);
upq_status upq_wr_dict_rebuild(upq_writer *w);
upq_status upq_wr_dict_restore(upq_writer *w);

#endif
