/*
 * The reader's base: init, failure, and the accessors of an open file's
 * metadata. Everything else in the reader (open, decryption, columns, page
 * indexes) builds on these.
 */
#include "uparquet/reader.h"
#include "upq_port.h"
#include "common/upq_internal.h"
#include "reader_int.h"

upq_status upq_reader_fail(upq_reader *r, upq_status st, uint64_t off, const char *what)
{
    r->err.status = st;
    r->err.offset = off;
    r->err.what = what;
    r->err.needed = UPQ_ERR_NEEDED(st, &r->arena);
    r->stage = RS_FAILED;
    return st;
}

void upq_reader_init(upq_reader *r, const upq_io *io, void *arena, size_t arena_len,
                     const upq_reader_opts *opts)
{
    upq_memset(r, 0, sizeof *r);
    upq_memcpy(&r->io, io, sizeof r->io);
    upq_arena_init(&r->arena, arena, arena_len);
    if (opts)
        upq_memcpy(&r->opts, opts, sizeof r->opts);
    if (r->opts.io_window == 0)
        r->opts.io_window = DEFAULT_WINDOW;
    if (r->opts.limits.max_depth == 0 || r->opts.limits.max_list == 0 ||
        r->opts.limits.max_binary == 0)
        upq_thrift_limits_default(&r->opts.limits);
    r->err.offset = UINT64_MAX;
    r->err.row_group = r->err.column = r->err.page = r->err.schema_element = -1;
    r->stage = RS_INIT;
}

const upq_file_metadata *upq_reader_metadata(const upq_reader *r)
{
    return r->stage == RS_OPEN ? &r->meta : (const upq_file_metadata *)0;
}

const upq_schema *upq_reader_schema(const upq_reader *r)
{
    return r->stage == RS_OPEN ? &r->schema : (const upq_schema *)0;
}

uint32_t upq_reader_num_row_groups(const upq_reader *r)
{
    if (r->stage != RS_OPEN)
        return 0;
#if UPQ_WITH_LAZY_ROW_GROUPS
    if (r->lazy)
        return r->rg_count;
#endif
    return r->meta.row_groups.n;
}

const upq_row_group *upq_reader_row_group(const upq_reader *r, uint32_t rg)
{
    if (r->stage != RS_OPEN)
        return (const upq_row_group *)0;
#if UPQ_WITH_LAZY_ROW_GROUPS
    if (r->lazy)
        return rg == r->rg_loaded && r->rg_stage == 0 ? &r->rg_cur : (const upq_row_group *)0;
#endif
    return rg < r->meta.row_groups.n ? &r->meta.row_groups.v[rg] : (const upq_row_group *)0;
}

int upq_reader_lazy(const upq_reader *r)
{
#if UPQ_WITH_LAZY_ROW_GROUPS
    return r->lazy;
#else
    (void)r;
    return 0;
#endif
}

const upq_column_chunk *upq_reader_chunk(const upq_reader *r, uint32_t rg, uint32_t column)
{
    const upq_row_group *g = upq_reader_row_group(r, rg);
    if (!g || column >= r->schema.num_columns || r->chunk_slot[column] == UPQ_NONE)
        return (const upq_column_chunk *)0;
    return &g->columns.v[r->chunk_slot[column]];
}

const upq_error_info *upq_reader_error(const upq_reader *r)
{
    return &r->err;
}

uint32_t upq_reader_footer_length(const upq_reader *r)
{
    return r->footer_len;
}

const upq_file_crypto *upq_reader_file_crypto(const upq_reader *r)
{
    return r->stage == RS_OPEN && r->fc.algorithm ? &r->fc : (const upq_file_crypto *)0;
}
