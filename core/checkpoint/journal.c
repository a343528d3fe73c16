/*
 * The journal's record framing and payload descriptions (see journal.h).
 * Payloads use the same table-driven Thrift layer as the footer, so that
 * reading them back from a damaged file gets the same checks: every length
 * and count bounded by the bytes there.
 */
#include "journal.h"
#include "common/upq_internal.h"
#include "upq_port.h"

#if UPQ_WITH_WRITER

#define MAGIC 0x4A515055u /* "UPQJ" */

void upq_j_hdr_put(uint8_t out[UPQ_J_HDR], const upq_jhdr *h)
{
    upq_store_le32(out, MAGIC);
    upq_store_le32(out + 4, h->len);
    out[8] = h->type;
    out[9] = h->flags;
    upq_store_le16(out + 10, h->session);
    upq_store_le32(out + 12, h->seq);
    upq_store_le64(out + 16, h->file_id);
}

upq_status upq_j_hdr_get(const uint8_t in[UPQ_J_HDR], upq_jhdr *h, uint64_t max_len)
{
    if (upq_load_le32(in) != MAGIC)
        return UPQ_ERR_CORRUPT;
    h->len = upq_load_le32(in + 4);
    h->type = in[8];
    h->flags = in[9];
    h->session = upq_load_le16(in + 10);
    h->seq = upq_load_le32(in + 12);
    h->file_id = upq_load_le64(in + 16);
    if (h->len < UPQ_J_MIN || h->len > max_len || h->len > UPQ_J_MAX_RECORD)
        return UPQ_ERR_CORRUPT;
    return UPQ_OK;
}

/* ---- descriptions ------------------------------------------------------------ */

#define FIELD(id, kind, flags, member, name) \
    UPQ_TFIELD((id) | (flags), kind, offsetof(S, member), name)
#define REQ UPQ_TF_REQUIRED
#define OPT 0u
#define F_I32(id, fl, m, nm) FIELD(id, UPQ_TK_I32, fl, m, nm)
#define F_I64(id, fl, m, nm) FIELD(id, UPQ_TK_I64, fl, m, nm)
#define F_BIN(id, fl, m, nm) FIELD(id, UPQ_TK_BINARY, fl, m, nm)
#define F_STRUCT(id, fl, m, SUB, nm) FIELD(id, UPQ_TK_STRUCT + UPQ_JDESC_##SUB, fl, m, nm)
#define F_LIST(id, fl, m, elem, nm) FIELD(id, elem, (fl) | UPQ_TF_LIST, m, nm)
#define F_LIST_STRUCT(id, fl, m, SUB, nm) \
    FIELD(id, UPQ_TK_STRUCT + UPQ_JDESC_##SUB, (fl) | UPQ_TF_LIST, m, nm)
#define STRUCT(E, T, tname, fields) \
    [UPQ_JDESC_##E] = UPQ_TSTRUCT(tname, fields, UPQ_COUNTOF(fields), sizeof(T), (unsigned)UPQ_JDESC_##E)

#define S upq_jblob
static const upq_tfield blob_fields[] = {
    F_I64(1, REQ, off, "off"),
    F_I32(2, REQ, len, "len"),
    F_I32(3, REQ, crc, "crc"),
};
#undef S

#define S upq_jkey
static const upq_tfield key_fields[] = {
    F_I32(1, REQ, column, "column"),
    F_BIN(2, OPT, key_metadata, "key_metadata"),
    F_BIN(3, OPT, check, "check"),
};
#undef S

#define S upq_jfile
static const upq_tfield file_fields[] = {
    F_BIN(12, OPT, nonce, "nonce"),
    F_I32(1, REQ, version, "version"),
    F_I32(2, REQ, codec, "codec"),
    F_I32(3, REQ, flags, "flags"),
    F_I32(4, REQ, ncols, "ncols"),
    F_I32(5, OPT, stats_max_binary, "stats_max_binary"),
    F_I32(7, OPT, algorithm, "algorithm"),
    F_BIN(8, OPT, aad_prefix, "aad_prefix"),
    F_BIN(9, OPT, aad_file_unique, "aad_file_unique"),
    F_BIN(10, OPT, footer_key_metadata, "footer_key_metadata"),
    F_LIST_STRUCT(11, OPT, keys, KEY, "keys"),
};
#undef S

#define S upq_jregion
static const upq_tfield region_fields[] = {
    F_I64(1, REQ, off, "off"),
    F_I64(2, REQ, cap, "cap"),
    F_I32(3, OPT, slot, "slot"),
};
#undef S

#define S upq_jrgstart
static const upq_tfield rg_start_fields[] = {
    F_I32(1, REQ, rg, "rg"),
    F_I64(2, REQ, jcap, "jcap"),
    F_I64(3, REQ, rows, "rows"),
    F_LIST_STRUCT(4, REQ, regions, REGION, "regions"),
};
#undef S

#define S upq_jcol
static const upq_tfield col_fields[] = {
    F_I64(1, OPT, fill, "fill"),
    F_I32(2, OPT, pages, "pages"),
    F_I64(3, OPT, ba, "ba"),
    F_LIST(4, OPT, def_hist, UPQ_TK_I64, "def_hist"),
    F_LIST(5, OPT, rep_hist, UPQ_TK_I64, "rep_hist"),
    F_STRUCT(6, OPT, dict, BLOB, "dict"),
    F_I32(7, OPT, dict_n, "dict_n"),
    F_LIST(8, OPT, page_rows, UPQ_TK_I32, "page_rows"),
    F_I32(9, OPT, dict_len, "dict_len"),
    F_STRUCT(10, OPT, bloom, BLOB, "bloom"),
    F_I32(11, OPT, bloom_hdr, "bloom_hdr"),
    F_I64(12, OPT, moved, "moved"),
    F_I32(13, OPT, crc, "crc"),
};
#undef S

#define S upq_jckpt
static const upq_tfield ckpt_fields[] = {
    F_I32(1, REQ, rg, "rg"),
    F_I64(2, REQ, rows, "rows"),
    F_LIST_STRUCT(3, REQ, cols, COL, "cols"),
    F_I64(4, OPT, blobs, "blobs"),
    F_I64(5, OPT, next, "next"),
};
#undef S

#define S upq_jclose
static const upq_tfield close_fields[] = {
    F_I64(1, REQ, tail, "tail"),
    F_I64(2, REQ, size, "size"),
    F_I64(3, REQ, rows, "rows"),
    F_I32(4, REQ, row_groups, "row_groups"),
    F_I32(5, REQ, crc, "crc"),
};
#undef S

#define S upq_jresume
static const upq_tfield resume_fields[] = {
    F_I64(1, REQ, rows, "rows"),
};
#undef S

#define S upq_jtot
static const upq_tfield tot_fields[] = {
    F_I64(1, REQ, unc, "unc"),
    F_I64(2, REQ, comp, "comp"),
    F_I64(3, REQ, values, "values"),
    F_I64(4, REQ, nulls, "nulls"),
    F_I64(5, REQ, nans, "nans"),
    F_I32(6, REQ, enc_mask, "enc_mask"),
    F_I32(7, REQ, pages_dict, "pages_dict"),
    F_I32(8, REQ, ci_len, "ci_len"),
    F_I32(9, REQ, oi_len, "oi_len"),
    F_I32(10, REQ, mm, "mm"),
    F_BIN(11, OPT, min, "min"),
    F_BIN(12, OPT, max, "max"),
    F_I32(13, REQ, rg, "rg"),
    F_I32(14, REQ, col, "col"),
    F_I32(15, OPT, mins, "mins"),
    F_I32(16, OPT, maxs, "maxs"),
};
#undef S

const upq_tstruct upq_journal_descs[UPQ_JDESC_COUNT] = {
    STRUCT(BLOB, upq_jblob, "JournalBlob", blob_fields),
    STRUCT(KEY, upq_jkey, "JournalKey", key_fields),
    STRUCT(FILE, upq_jfile, "JournalFile", file_fields),
    STRUCT(REGION, upq_jregion, "JournalRegion", region_fields),
    STRUCT(RG_START, upq_jrgstart, "JournalRowGroupStart", rg_start_fields),
    STRUCT(COL, upq_jcol, "JournalColumn", col_fields),
    STRUCT(CKPT, upq_jckpt, "JournalCheckpoint", ckpt_fields),
    STRUCT(CLOSE, upq_jclose, "JournalClose", close_fields),
    STRUCT(RESUME, upq_jresume, "JournalResume", resume_fields),
    STRUCT(TOT, upq_jtot, "JournalTotals", tot_fields),
};

const upq_tstruct *upq_j_desc(int type)
{
    switch (type) {
    case UPQ_J_FILE: return &upq_journal_descs[UPQ_JDESC_FILE];
    case UPQ_J_RG_START: return &upq_journal_descs[UPQ_JDESC_RG_START];
    case UPQ_J_CKPT:
    case UPQ_J_RG_END:
    case UPQ_J_ROWS:
    case UPQ_J_MOVE: return &upq_journal_descs[UPQ_JDESC_CKPT];
    case UPQ_J_CLOSE: return &upq_journal_descs[UPQ_JDESC_CLOSE];
    case UPQ_J_RESUME: return &upq_journal_descs[UPQ_JDESC_RESUME];
    case UPQ_J_RG_SUM: return &upq_journal_descs[UPQ_JDESC_TOT];
    default: return (const upq_tstruct *)0;
    }
}

#endif /* UPQ_WITH_WRITER */
