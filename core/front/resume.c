/*
 * Resume (upq_writer_resume): a writer set up with a file's schema and
 * options continues the checkpoint-mode file its sink holds, cut short or
 * closed. Its FILE record must be the one this writer would write (but for
 * the file id, the nonce and, encrypted, the file's AAD and key checks,
 * which it takes from the file); the replay (replay.c) then brings the file
 * back to its last intact checkpoint, as recovery does, and takes the cut
 * row group up again. Nothing is written before the replay has read and
 * checked everything it keeps.
 */
#include "checkpoint/replay.h"
#include "front.h"
#include "crypto/crypto_int.h"

#if UPQ_WITH_WRITER

/* Resume stages (upq_wjournal.resuming). */
enum { RS_START = 0, RS_HDR, RS_BODY, RS_CRC, RS_KEYS, RS_FMD, RS_CMP, RS_REPLAY, RS_READY };

/* Resume cannot take this file: not one of this writer's schema and options. */
static upq_status not_ours(upq_writer *w, upq_status st)
{
    return upq_w_fail(w, st == UPQ_ERR_IO ? UPQ_ERR_IO : UPQ_ERR_CORRUPT, -1,
                      "not a checkpoint-mode file of this schema");
}

/* RS_HDR: "PAR1" (or "PARE") and FILE's header, a record this writer would
 * write; its settings' decoding set up. */
static upq_status rs_hdr(upq_writer *w, uint64_t size)
{
    upq_wjournal *jr = w->jr;
    upq_wfinish *f = UPQ_WF(w);
    int sealed = UPQ_W_ENCRYPTING(w);
    const char *magic = sealed && !w->o.encrypt->plaintext_footer ? "PARE" : "PAR1";
    upq_jhdr h;
    upq_status st;
    if (size < jr->first_j + 8u)
        return not_ours(w, UPQ_ERR_CORRUPT);
    st = upq_wf_rd(w, 0, 4u + UPQ_J_HDR);
    if (st == UPQ_AGAIN)
        return st;
    if (st != UPQ_OK || upq_memcmp(upq_wf_at(w, 0), magic, 4) != 0 ||
        upq_j_hdr_get(upq_wf_at(w, 4), &h, jr->first_j - 4u) != UPQ_OK || h.type != UPQ_J_FILE ||
        h.flags != (sealed ? UPQ_J_SEALED : 0u) || h.seq != 0 || h.len != jr->first_j - 4u)
        return not_ours(w, st);
    jr->file_id = h.file_id;
    f->session = h.session;
    f->rcrc = upq_crc32(upq_wf_at(w, 4), UPQ_J_HDR);
    f->scrc = f->fcrc = 0;
    f->rdone = UPQ_J_HDR;
    f->tdone = 0;
    upq_arena_init(&f->scratch, f->smem, f->scap);
    f->fj = (upq_jfile *)upq_arena_alloc(&f->scratch, sizeof(upq_jfile));
    if (!f->fj)
        return upq_w_fail(w, UPQ_ERR_STATE, -1, "resume scratch too small");
    upq_tdec_init(&f->tdec, f->tframes, UPQ_THRIFT_MAX_DEPTH, &upq_journal_descs[UPQ_JDESC_FILE], f->fj,
                  &f->scratch, h.len - UPQ_J_MIN, (const upq_thrift_limits *)0);
    return UPQ_OK;
}

/* RS_BODY: the record's CRC over all of it; its settings decoded (and their
 * CRC); the FileMetaData's CRC when it is plain. */
static upq_status rs_body(upq_writer *w)
{
    upq_wjournal *jr = w->jr;
    upq_wfinish *f = UPQ_WF(w);
    int sealed = UPQ_W_ENCRYPTING(w);
    uint32_t body = (uint32_t)(jr->first_j - 4u) - UPQ_J_CRC;
    while (f->rdone < body) {
        uint32_t n = body - f->rdone < f->cap ? body - f->rdone : f->cap;
        size_t used = 0;
        const uint8_t *p;
        upq_status st = upq_wf_rd(w, 4u + f->rdone, n);
        if (st == UPQ_AGAIN)
            return st;
        if (st != UPQ_OK)
            return not_ours(w, st);
        p = upq_wf_at(w, 4u + f->rdone);
        f->rcrc = upq_crc32_update(f->rcrc, p, n);
        if (!f->tdone) {
            st = upq_tdec_feed(&f->tdec, p, n, &used);
            if (st == UPQ_OK) {
                f->tdone = 1;
                f->send = f->rdone + (uint32_t)used;
            } else if (st == UPQ_AGAIN) {
                used = n;
            } else {
                return not_ours(w, UPQ_ERR_CORRUPT);
            }
            f->scrc = upq_crc32_update(f->scrc, p, used);
        }
        if (f->tdone && !sealed)
            f->fcrc = upq_crc32_update(f->fcrc, p + used, n - used);
        f->rdone += n;
    }
    if (!f->tdone)
        return not_ours(w, UPQ_ERR_CORRUPT);
    return UPQ_OK;
}

/* RS_CRC: the record's CRC; then its journal version and nonce, which the
 * records that follow are read with (the settings are compared after). */
static upq_status rs_crc(upq_writer *w)
{
    upq_wjournal *jr = w->jr;
    upq_wfinish *f = UPQ_WF(w);
    upq_status st = upq_wf_rd(w, jr->first_j - UPQ_J_CRC, UPQ_J_CRC);
    if (st == UPQ_AGAIN)
        return st;
    if (st != UPQ_OK || upq_load_le32(upq_wf_at(w, jr->first_j - UPQ_J_CRC)) != f->rcrc)
        return not_ours(w, st == UPQ_OK ? UPQ_ERR_CORRUPT : st);
    if (f->fj->version < 2) /* 2 continues without RG_SUM (writer_journal.c) */
        return upq_w_fail(w, UPQ_ERR_INVAL, -1,
                          "the file's journal is of an older version: recover it and start a new file");
    if (upq_wr_adopt_file(w, f->fj) != UPQ_OK)
        return not_ours(w, UPQ_ERR_CORRUPT);
    return UPQ_OK;
}

#if UPQ_WITH_CRYPTO
/* RS_FMD: the FileMetaData, decrypted (which checks the footer key). */
static upq_status rs_fmd(upq_writer *w)
{
    upq_wjournal *jr = w->jr;
    upq_wfinish *f = UPQ_WF(w);
    for (;;) {
        const uint8_t *p;
        size_t n;
        upq_status st = upq_wf_module(w, 4u + f->send, jr->first_j - UPQ_J_CRC, UPQ_MODULE_JOURNAL, -1, -1, -1,
                                      &w->wc->footer, &p, &n);
        if (st == UPQ_DONE)
            return UPQ_OK;
        if (st != UPQ_OK)
            return st;
        f->fcrc = upq_crc32_update(f->fcrc, p, n);
    }
}
#endif

/* RS_CMP: the same schema and options as this writer's. */
static upq_status rs_cmp(upq_writer *w, uint64_t size)
{
    upq_wjournal *jr = w->jr;
    upq_wfinish *f = UPQ_WF(w);
    uint32_t sc = 0, fc = 0;
    upq_status st = upq_wj_file_crc(w, &sc, &fc);
    if (st != UPQ_OK)
        return st;
    if (sc != f->scrc || fc != f->fcrc)
        return upq_w_fail(w, UPQ_ERR_INVAL, -1, "the file was written with another schema or other options");
    upq_wr_start(w, jr->first_j, jr->file_id, f->session, 1, size);
    upq_wj_start(w, UPQ_WJ_REPLAY);
    return UPQ_OK;
}

/* RS_REPLAY: the replay, then the rows before the cut are durable and more
 * follow. */
static upq_status rs_replay(upq_writer *w)
{
    upq_wjournal *jr = w->jr;
    upq_status st = upq_w_pump(w);
    if (st != UPQ_OK)
        return st;
    w->rows_durable = w->rows_done + w->rs;
    jr->ckpt_at = upq_wj_next_ckpt(w, w->rows_done + w->rs);
    if (!UPQ_WF(w)->in_rg)
        jr->rg_limit = upq_wj_next_limit(w);
    return UPQ_OK;
}

static upq_status rs_step(upq_writer *w, uint64_t size)
{
    upq_wjournal *jr = w->jr;
    switch (jr->resuming) {
    case RS_HDR: return rs_hdr(w, size);
    case RS_BODY: return rs_body(w);
    case RS_CRC: return rs_crc(w);
#if UPQ_WITH_CRYPTO
    case RS_KEYS:
        UPQ_WF(w)->cs_on = 0;
        return upq_wr_adopt_keys(w);
    case RS_FMD: return rs_fmd(w);
#endif
    case RS_CMP: return rs_cmp(w, size);
    case RS_REPLAY: return rs_replay(w);
    default: return upq_w_fail(w, UPQ_ERR_STATE, -1, "resume state damaged");
    }
}

upq_status upq_writer_resume(upq_writer *w, uint64_t size)
{
    upq_wjournal *jr = w->jr;
    if (w->failed)
        return w->failed;
    if (!UPQ_W_JOURNAL(w))
        return upq_w_fail(w, UPQ_ERR_INVAL, -1, "resume needs checkpoint mode");
    if (jr->resuming == RS_START) {
        if (w->closed || w->closing || w->mode != UPQ_WM_NONE || jr->file_done || jr->job)
            return upq_w_fail(w, UPQ_ERR_STATE, -1, "resume comes right after init");
        upq_wf_init(w, jr->fin, w->ncols, jr->nrep, jr->nlev);
        jr->resuming = RS_HDR;
    }
    while (jr->resuming != RS_READY) {
        upq_status st = rs_step(w, size);
        if (st != UPQ_OK)
            return st;
        /* the encrypted stages only in a file with encryption */
        if (jr->resuming == RS_CRC && !UPQ_W_ENCRYPTING(w))
            jr->resuming = RS_CMP;
        else
            jr->resuming++;
    }
    return UPQ_OK;
}

#endif /* UPQ_WITH_WRITER */
