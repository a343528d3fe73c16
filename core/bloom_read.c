/*
 * Reading a column chunk's bloom filter: the BloomFilterHeader at
 * bloom_filter_offset (through a small window into the Thrift decoder),
 * then numBytes of bitset into the reader's arena. With
 * bloom_filter_length both must lie inside it; without, the header is
 * decoded first and tells how long the bitset is. Resumable: every stage
 * keeps its place in upq_bloom_reader.
 */
#include "uparquet/bloom.h"
#include "upq_port.h"
#include "upq_internal.h"

#if UPQ_WITH_BLOOM

enum { BR_NONE = 0, BR_HEADER, BR_BITSET, BR_READY, BR_FAILED };

static upq_status bfail(upq_bloom_reader *b, upq_status st, uint64_t off, const char *what)
{
    upq_error_info *e = &b->r->err;
    e->status = st;
    e->offset = off;
    e->what = what;
    e->in_struct = e->field = (const char *)0;
    e->row_group = (int32_t)b->rg;
    e->column = (int32_t)b->col;
    e->page = -1;
    b->stage = BR_FAILED;
    return st;
}

upq_status upq_bloom_open(upq_bloom_reader *b, upq_reader *r, uint32_t rg, uint32_t column)
{
    const upq_column_chunk *ch = upq_reader_chunk(r, rg, column);
    const upq_column_metadata *m;
    uint64_t off, end = r->footer_start;

    upq_memset(b, 0, sizeof *b);
    b->r = r;
    b->rg = rg;
    b->col = column;
    b->max_bytes = UPQ_BLOOM_MAX_BYTES;
    b->mark = upq_arena_save(&r->arena);
    if (!ch)
        return bfail(b, UPQ_ERR_INVAL, UINT64_MAX, "no such column chunk (or not projected)");
    if (!UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_META_DATA) ||
        UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_CRYPTO_METADATA) ||
        UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_ENCRYPTED_COLUMN_METADATA))
        return bfail(b, UPQ_ERR_UNSUPPORTED, UINT64_MAX,
                     "encrypted column chunk: this build has no decryption");
    b->type = r->schema.columns[column].physical_type;
    b->type_length = r->schema.columns[column].type_length;
    if (b->type == UPQ_TYPE_BOOLEAN)
        return bfail(b, UPQ_ERR_INVAL, UINT64_MAX, "BOOLEAN columns have no bloom filter");
    m = &ch->meta_data;
    if (!UPQ_ISSET(*m, UPQ_COLUMN_METADATA_BLOOM_FILTER_OFFSET)) {
        b->stage = BR_NONE;
        return UPQ_DONE;
    }
    if (m->bloom_filter_offset < 4 || (uint64_t)m->bloom_filter_offset >= r->footer_start)
        return bfail(b, UPQ_ERR_CORRUPT, UINT64_MAX, "bloom filter offset outside the data");
    off = (uint64_t)m->bloom_filter_offset;
    if (UPQ_ISSET(*m, UPQ_COLUMN_METADATA_BLOOM_FILTER_LENGTH)) {
        if (m->bloom_filter_length <= 0 ||
            (uint64_t)m->bloom_filter_length > r->footer_start - off)
            return bfail(b, UPQ_ERR_CORRUPT, off, "bloom filter length outside the data");
        end = off + (uint64_t)m->bloom_filter_length;
    }
    b->off = b->pos = off;
    b->end = end;
    upq_tdec_init(&b->tdec, &upq_bloom_filter_header_desc, &b->hdr, &r->arena, end - off,
                  &r->opts.limits);
    b->stage = BR_HEADER;
    return UPQ_OK;
}

void upq_bloom_set_max_bytes(upq_bloom_reader *b, uint32_t max_bytes)
{
    b->max_bytes = max_bytes && max_bytes < UPQ_BLOOM_MAX_BYTES ? max_bytes : UPQ_BLOOM_MAX_BYTES;
}

/* The header describes a filter this build can use, of a sane size. */
static upq_status check_header(upq_bloom_reader *b)
{
    const upq_bloom_filter_header *h = &b->hdr;
    uint32_t n;
    if (!UPQ_ISSET(h->algorithm, UPQ_BLOOM_FILTER_ALGORITHM_BLOCK))
        return bfail(b, UPQ_ERR_UNSUPPORTED, b->off, "bloom filter algorithm other than BLOCK");
    if (!UPQ_ISSET(h->hash, UPQ_BLOOM_FILTER_HASH_XXHASH))
        return bfail(b, UPQ_ERR_UNSUPPORTED, b->off, "bloom filter hash other than XXHASH");
    if (!UPQ_ISSET(h->compression, UPQ_BLOOM_FILTER_COMPRESSION_UNCOMPRESSED))
        return bfail(b, UPQ_ERR_UNSUPPORTED, b->off, "compressed bloom filter");
    if (h->num_bytes < (int32_t)UPQ_BLOOM_MIN_BYTES || (h->num_bytes & (h->num_bytes - 1)) != 0)
        return bfail(b, UPQ_ERR_CORRUPT, b->off,
                     "bloom filter size is not a power of two from 32 bytes");
    n = (uint32_t)h->num_bytes;
    if (n > b->max_bytes)
        return bfail(b, UPQ_ERR_LIMIT, b->off, "bloom filter larger than the limit");
    if (n > b->end - b->pos)
        return bfail(b, UPQ_ERR_CORRUPT, b->off,
                     "bloom filter bitset extends past its length or the data");
    return UPQ_OK;
}

/*
 * Brings the filter's two parts, the header and the bitset, into memory:
 * the one place that reads them, so that encrypted filters (two modules,
 * each decrypted on its own) change only this function.
 */
static upq_status read_modules(upq_bloom_reader *b)
{
    upq_reader *r = b->r;
    upq_status st;
    while (b->stage == BR_HEADER) {
        size_t got = 0, used = 0;
        const char *what = "";
        uint64_t want = b->end - b->pos;
        if (want == 0)
            return bfail(b, UPQ_ERR_CORRUPT, b->pos, "bloom filter header runs past its end");
        if (want > sizeof b->win)
            want = sizeof b->win;
        st = upq_io_read(&r->io, b->pos, b->win, (size_t)want, &got, &what);
        if (st == UPQ_AGAIN)
            return UPQ_AGAIN;
        if (st != UPQ_OK)
            return bfail(b, st, b->pos, what);
        st = upq_tdec_feed(&b->tdec, b->win, got, &used);
        b->pos += used;
        if (st == UPQ_AGAIN)
            continue;
        if (st != UPQ_OK) {
            upq_status e = st == UPQ_ERR_TRUNCATED ? UPQ_ERR_CORRUPT : st;
            bfail(b, e, b->off + b->tdec.err_pos,
                  st == UPQ_ERR_NOMEM   ? "arena too small for the bloom filter header"
                  : st == UPQ_ERR_LIMIT ? "bloom filter header exceeds a decoding limit"
                                        : "malformed bloom filter header");
            r->err.in_struct = b->tdec.err_struct;
            r->err.field = b->tdec.err_field;
            return e;
        }
        st = check_header(b);
        if (st != UPQ_OK)
            return st;
        b->filter.num_bytes = (uint32_t)b->hdr.num_bytes;
        b->filter.bits = (uint8_t *)upq_arena_alloc(&r->arena, b->filter.num_bytes);
        if (!b->filter.bits)
            return bfail(b, UPQ_ERR_NOMEM, b->pos, "arena too small for the bloom filter");
        b->fill = 0;
        b->stage = BR_BITSET;
    }
    while (b->fill < b->filter.num_bytes) {
        size_t got = 0;
        const char *what = "";
        uint64_t at = b->pos + b->fill;
        st = upq_io_read(&r->io, at, b->filter.bits + b->fill, b->filter.num_bytes - b->fill, &got,
                         &what);
        if (st == UPQ_AGAIN)
            return UPQ_AGAIN;
        if (st != UPQ_OK)
            return bfail(b, st, at, what);
        b->fill += (uint32_t)got;
    }
    return UPQ_OK;
}

upq_status upq_bloom_load(upq_bloom_reader *b)
{
    upq_status st;
    switch (b->stage) {
    case BR_READY: return UPQ_OK;
    case BR_NONE: return UPQ_DONE;
    case BR_FAILED: return b->r->err.status != UPQ_OK ? b->r->err.status : UPQ_ERR_STATE;
    default: break;
    }
    st = read_modules(b);
    if (st == UPQ_OK)
        b->stage = BR_READY;
    return st;
}

upq_status upq_bloom_might_contain(const upq_bloom_reader *b, const void *value, int *maybe)
{
    uint64_t h;
    upq_status st;
    *maybe = 1;
    if (b->stage != BR_READY)
        return UPQ_ERR_STATE;
    st = upq_bloom_hash_value(b->type, b->type_length, value, &h);
    if (st != UPQ_OK)
        return st;
    *maybe = upq_bloom_check(&b->filter, h);
    return UPQ_OK;
}

const upq_bloom *upq_bloom_filter(const upq_bloom_reader *b)
{
    return b->stage == BR_READY ? &b->filter : (const upq_bloom *)0;
}

void upq_bloom_close(upq_bloom_reader *b)
{
    if (b->r)
        upq_arena_rewind(&b->r->arena, b->mark);
    b->stage = BR_NONE;
    b->filter.bits = (uint8_t *)0;
}

#endif /* UPQ_WITH_BLOOM */
