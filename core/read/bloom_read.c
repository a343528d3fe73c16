/*
 * Reading a column chunk's bloom filter: the BloomFilterHeader at
 * bloom_filter_offset (through a small window into the Thrift decoder),
 * then numBytes of bitset into the reader's arena. With
 * bloom_filter_length both must lie inside it; without, the header is
 * decoded first and tells how long the bitset is. Resumable: every stage
 * keeps its place in upq_bloom_reader.
 *
 * An encrypted column's filter is two GCM modules, the header's and the
 * bitset's. Each is read whole into the arena and decrypted with
 * upq_crypto_decrypt_module(), which authenticates before it writes any
 * plaintext: nothing of either is decoded or probed before its tag
 * verifies.
 */
#include "uparquet/bloom.h"
#include "uparquet/crypto.h"
#include "upq_port.h"
#include "common/upq_internal.h"
#include "crypto/crypto_int.h"
#include "reader_int.h"

#if UPQ_WITH_BLOOM

enum { BR_NONE = 0, BR_HEADER, BR_BITSET, BR_EHEADER, BR_EBITSET, BR_READY, BR_FAILED };

static upq_status bfail(upq_bloom_reader *b, upq_status st, uint64_t off, const char *what)
{
    b->stage = BR_FAILED;
    return upq_reader_set_error(b->r, st, off, what, (int32_t)b->rg, (int32_t)b->col, -1);
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
        return bfail(b, UPQ_ERR_INVAL, UINT64_MAX, UPQ_MSG("no such column chunk (or not projected)"));
    if (UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_CRYPTO_METADATA) || upq_reader_implicit_crypto(r)) {
        /* the key first, as the column reader takes it: without it the
         * column metadata (and the filter's place) may be unknown too */
        const char *what;
        upq_status st = upq_reader_chunk_key(r, rg, column, b->mark, &b->key, &what);
        if (st != UPQ_OK)
            return bfail(b, st, UINT64_MAX, what);
        b->rg_ord = upq_reader_rg_ordinal(r, rg);
    } else if (UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_ENCRYPTED_COLUMN_METADATA)) {
        return bfail(b, UPQ_ERR_CORRUPT, UINT64_MAX,
                     UPQ_MSG("encrypted column metadata without its crypto metadata"));
    }
    if (!UPQ_ISSET(*ch, UPQ_COLUMN_CHUNK_META_DATA))
        return bfail(b, UPQ_ERR_CORRUPT, UINT64_MAX, UPQ_MSG("column chunk without metadata"));
    b->type = r->schema.columns[column].physical_type;
    b->type_length = r->schema.columns[column].type_length;
    if (b->type == UPQ_TYPE_BOOLEAN)
        return bfail(b, UPQ_ERR_INVAL, UINT64_MAX, UPQ_MSG("BOOLEAN columns have no bloom filter"));
    m = &ch->meta_data;
    if (!UPQ_ISSET(*m, UPQ_COLUMN_METADATA_BLOOM_FILTER_OFFSET)) {
        b->stage = BR_NONE;
        return UPQ_DONE;
    }
    if (m->bloom_filter_offset < 4 || (uint64_t)m->bloom_filter_offset >= r->footer_start)
        return bfail(b, UPQ_ERR_CORRUPT, UINT64_MAX, UPQ_MSG("bloom filter offset outside the data"));
    off = (uint64_t)m->bloom_filter_offset;
    if (UPQ_ISSET(*m, UPQ_COLUMN_METADATA_BLOOM_FILTER_LENGTH)) {
        if (m->bloom_filter_length <= 0 ||
            (uint64_t)m->bloom_filter_length > r->footer_start - off)
            return bfail(b, UPQ_ERR_CORRUPT, off, UPQ_MSG("bloom filter length outside the data"));
        end = off + (uint64_t)m->bloom_filter_length;
    }
    b->off = b->pos = off;
    b->end = end;
    if (b->key) {
        b->fill = 0;
        b->stage = BR_EHEADER;
        return UPQ_OK;
    }
    upq_tdec_init(&b->tdec, b->tframes, UPQ_THRIFT_MAX_DEPTH, &upq_bloom_filter_header_desc,
                  &b->hdr, &r->arena, end - off, &r->opts.limits);
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
    uint64_t room = b->end - b->pos;
    if (!UPQ_ISSET(h->algorithm, UPQ_BLOOM_FILTER_ALGORITHM_BLOCK))
        return bfail(b, UPQ_ERR_UNSUPPORTED, b->off, UPQ_MSG("bloom filter algorithm other than BLOCK"));
    if (!UPQ_ISSET(h->hash, UPQ_BLOOM_FILTER_HASH_XXHASH))
        return bfail(b, UPQ_ERR_UNSUPPORTED, b->off, UPQ_MSG("bloom filter hash other than XXHASH"));
    if (!UPQ_ISSET(h->compression, UPQ_BLOOM_FILTER_COMPRESSION_UNCOMPRESSED))
        return bfail(b, UPQ_ERR_UNSUPPORTED, b->off, UPQ_MSG("compressed bloom filter"));
    if (h->num_bytes < (int32_t)UPQ_BLOOM_MIN_BYTES || (h->num_bytes & (h->num_bytes - 1)) != 0)
        return bfail(b, UPQ_ERR_CORRUPT, b->off,
                     UPQ_MSG("bloom filter size is not a power of two from 32 bytes"));
    n = (uint32_t)h->num_bytes;
    if (n > b->max_bytes)
        return bfail(b, UPQ_ERR_LIMIT, b->off, UPQ_MSG("bloom filter larger than the limit: raise it with upq_bloom_set_max_bytes()"));
    if (b->key) /* the bitset module's length, nonce and tag */
        room = room < UPQ_CRYPTO_GCM_OVERHEAD ? 0 : room - UPQ_CRYPTO_GCM_OVERHEAD;
    if (n > room)
        return bfail(b, UPQ_ERR_CORRUPT, b->off,
                     UPQ_MSG("bloom filter bitset extends past its length or the data"));
    return UPQ_OK;
}

/* Reads dst[b->fill .. len) from b->pos + b->fill on (resumable: b->fill
 * counts what has arrived). */
static upq_status read_bytes(upq_bloom_reader *b, uint8_t *dst, uint32_t len)
{
    while (b->fill < len) {
        size_t got = 0;
        const char *what = "";
        uint64_t at = b->pos + b->fill;
        upq_status st = upq_io_read(&b->r->io, at, dst + b->fill, len - b->fill, &got, &what);
        if (st == UPQ_AGAIN)
            return UPQ_AGAIN;
        if (st != UPQ_OK)
            return bfail(b, st, at, what);
        b->fill += (uint32_t)got;
    }
    return UPQ_OK;
}

/* Reads b->mod[b->fill .. b->mod_len) from b->pos on (resumable), then
 * decrypts the module; *plain gets its plaintext (in place). */
static upq_status open_module(upq_bloom_reader *b, int module, uint8_t **plain, size_t *plain_len)
{
    upq_reader *r = b->r;
    upq_status st = read_bytes(b, b->mod, b->mod_len);
    if (st != UPQ_OK)
        return st;
    st = upq_crypto_decrypt_module(&r->fc, b->key, module, b->rg_ord, (int32_t)b->col, -1,
                                   b->mod, b->mod_len, plain, plain_len);
    if (st == UPQ_OK)
        return UPQ_OK;
    return bfail(b, st, b->pos,
                 st == UPQ_ERR_AUTH
                     ? (module == UPQ_MODULE_BLOOM_HEADER
                            ? UPQ_MSG("bloom filter header module fails authentication")
                            : UPQ_MSG("bloom filter bitset module fails authentication"))
                 : st == UPQ_ERR_CORRUPT ? UPQ_MSG("bloom filter bitset module length disagrees with its header")
                 : st == UPQ_ERR_LIMIT   ? UPQ_MSG("row group or column ordinal beyond 32767")
                                         : UPQ_MSG("bloom filter module cannot be decrypted"));
}

/* The encrypted filter: the header module (length, then the rest), then the
 * bitset module, whose size the authenticated header gives. */
static upq_status read_encrypted(upq_bloom_reader *b)
{
    upq_reader *r = b->r;
    upq_status st;
    uint8_t *plain;
    size_t plain_len, used = 0;
    while (b->stage == BR_EHEADER) {
        if (!b->mod) {
            uint32_t len;
            while (b->fill < 4) {
                size_t got = 0;
                const char *what = "";
                uint64_t at = b->pos + b->fill;
                if (b->end - b->pos < 4)
                    return bfail(b, UPQ_ERR_CORRUPT, b->pos, UPQ_MSG("bloom filter header module runs past its end"));
                st = upq_io_read(&r->io, at, b->win + b->fill, 4u - b->fill, &got, &what);
                if (st == UPQ_AGAIN)
                    return UPQ_AGAIN;
                if (st != UPQ_OK)
                    return bfail(b, st, at, what);
                b->fill += (uint32_t)got;
            }
            len = upq_load_le32(b->win);
            if (len < UPQ_CRYPTO_GCM_OVERHEAD - 4u || (uint64_t)len + 4u > b->end - b->pos)
                return bfail(b, UPQ_ERR_CORRUPT, b->pos,
                             UPQ_MSG("bloom filter header module length outside the filter"));
            if (len + 4u > UPQ_BLOOM_MAX_HEADER_MODULE)
                return bfail(b, UPQ_ERR_LIMIT, b->pos, UPQ_MSG("bloom filter header module larger than 4 KiB"));
            b->mod_len = len + 4u;
            b->mod = (uint8_t *)upq_arena_alloc(&r->arena, b->mod_len);
            if (!b->mod)
                return bfail(b, UPQ_ERR_NOMEM, b->pos, UPQ_MSG("arena too small for the bloom filter header"));
            upq_memcpy(b->mod, b->win, 4);
        }
        st = open_module(b, UPQ_MODULE_BLOOM_HEADER, &plain, &plain_len);
        if (st != UPQ_OK)
            return st;
        upq_memset(&b->hdr, 0, sizeof b->hdr);
        st = upq_thrift_decode(&upq_bloom_filter_header_desc, &b->hdr, &r->arena, plain, plain_len,
                               &used, &r->opts.limits);
        /* bytes after the struct are authenticated padding */
        if (st != UPQ_OK) {
            upq_status e = st == UPQ_ERR_TRUNCATED ? UPQ_ERR_CORRUPT : st;
            bfail(b, e, b->pos,
                  st == UPQ_ERR_NOMEM   ? UPQ_MSG("arena too small for the bloom filter header")
                  : st == UPQ_ERR_LIMIT ? UPQ_MSG("bloom filter header exceeds a decoding limit")
                                        : UPQ_MSG("malformed bloom filter header"));
            r->err.in_struct = UPQ_MSG("BloomFilterHeader");
            return e;
        }
        b->pos += b->mod_len;
        st = check_header(b);
        if (st != UPQ_OK)
            return st;
        b->filter.num_bytes = (uint32_t)b->hdr.num_bytes;
        b->mod_len = b->filter.num_bytes + UPQ_CRYPTO_GCM_OVERHEAD;
        b->mod = (uint8_t *)upq_arena_alloc(&r->arena, b->mod_len);
        if (!b->mod)
            return bfail(b, UPQ_ERR_NOMEM, b->pos, UPQ_MSG("arena too small for the bloom filter"));
        b->fill = 0;
        b->stage = BR_EBITSET;
    }
    st = open_module(b, UPQ_MODULE_BLOOM_BITSET, &plain, &plain_len);
    if (st != UPQ_OK)
        return st;
    if (plain_len != b->filter.num_bytes) /* cannot differ once the length matched */
        return bfail(b, UPQ_ERR_STATE, b->pos, UPQ_MSG("bloom filter bitset size changed"));
    b->filter.bits = plain;
    return UPQ_OK;
}

/*
 * Brings the filter's two parts, the header and the bitset, into memory:
 * the one place that reads them (encrypted filters: read_encrypted).
 */
static upq_status read_modules(upq_bloom_reader *b)
{
    upq_reader *r = b->r;
    upq_status st;
    if (b->key)
        return read_encrypted(b);
    while (b->stage == BR_HEADER) {
        size_t got = 0, used = 0;
        const char *what = "";
        uint64_t want = b->end - b->pos;
        if (want == 0)
            return bfail(b, UPQ_ERR_CORRUPT, b->pos, UPQ_MSG("bloom filter header runs past its end"));
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
                  st == UPQ_ERR_NOMEM   ? UPQ_MSG("arena too small for the bloom filter header")
                  : st == UPQ_ERR_LIMIT ? UPQ_MSG("bloom filter header exceeds a decoding limit")
                                        : UPQ_MSG("malformed bloom filter header"));
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
            return bfail(b, UPQ_ERR_NOMEM, b->pos, UPQ_MSG("arena too small for the bloom filter"));
        b->fill = 0;
        b->stage = BR_BITSET;
    }
    return read_bytes(b, b->filter.bits, b->filter.num_bytes);
}

upq_status upq_bloom_load(upq_bloom_reader *b)
{
    upq_status st = upq_loader_settled(b->r, b->stage, BR_READY, BR_NONE, BR_FAILED);
    if (st != UPQ_AGAIN)
        return st;
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
