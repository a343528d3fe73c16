/*
 * Workspace planning: what reading a file's projected columns needs from the
 * arena, from their page headers (not the pages), one column reader at a
 * time and for the row reader over all of them.
 */
#include "uparquet/column.h"
#include "uparquet/record.h"
#include "upq_port.h"
#include "common/upq_internal.h"
#include "crypto/crypto_int.h"
#include "reader_int.h"

#define ENCRYPTED(c) (UPQ_WITH_CRYPTO && (c)->key)

static size_t align8(size_t n)
{
    return (n + 7u) & ~(size_t)7u;
}

void upq_workspace_init(upq_workspace *ws)
{
    upq_memset(ws, 0, sizeof *ws);
}

#if UPQ_WITH_ROWS
/* The row reader upq_rows_open builds over the projected leaves of row
 * group `rg` (its plan, leaves, batches, and each column reader as opened):
 * measured by building it, since no I/O happens there. 0 with *ok 0 when it
 * refuses the projection. */
static upq_status rows_size(upq_reader *r, uint32_t rg, size_t batch, size_t *out)
{
    upq_arena *a = &r->arena;
    const upq_schema *s = &r->schema;
    upq_arena_mark m = upq_arena_save(a);
    uint32_t *sel = (uint32_t *)0, n = 0, i;
    upq_rows w;
    upq_status st;
    size_t hw;
    if (r->opts.projection) {
        sel = (uint32_t *)upq_arena_alloc_array(a, s->num_columns, sizeof *sel);
        if (!sel)
            return UPQ_ERR_NOMEM;
        for (i = 0; i < s->num_columns; i++)
            if (r->chunk_slot[i] != UPQ_NONE)
                sel[n++] = s->columns[i].node;
    }
    hw = upq_arena_high_water(a);
    m = upq_arena_save(a);
    st = upq_rows_open(&w, r, rg, sel, sel ? n : 0u, batch);
    if (st == UPQ_OK) {
        /* the plan's scratch may peak above what stays; the high-water mark
         * also counts a row group held at the high end, which the caller
         * adds on its own */
        size_t base = m;
#if UPQ_WITH_LAZY_ROW_GROUPS
        base += a->top & ~(size_t)1;
#endif
        size_t peak = upq_arena_high_water(a) > hw ? upq_arena_high_water(a) - base : 0u;
        size_t kept = upq_arena_save(a) - m;
        *out = (sel ? align8((size_t)s->num_columns * sizeof *sel) : 0u) +
               (peak > kept ? peak : kept);
    }
    upq_rows_close(&w);
    return st;
}
#else
/* no row reader to plan for: no concurrent plan */
static upq_status rows_size(upq_reader *r, uint32_t rg, size_t batch, size_t *out)
{
    (void)r;
    (void)rg;
    (void)batch;
    (void)out;
    return UPQ_ERR_UNSUPPORTED;
}
#endif

upq_status upq_reader_workspace_size(upq_reader *r, upq_workspace *ws)
{
    const upq_file_metadata *m = upq_reader_metadata(r);
    const upq_schema *s = upq_reader_schema(r);
    if (!m || !s)
        return UPQ_ERR_STATE;
    if (!ws->started) {
        ws->started = 1;
        ws->footer = upq_arena_high_water(&r->arena);
        ws->mark = upq_arena_save(&r->arena);
    }
    for (; ws->rg < upq_reader_num_row_groups(r); ws->rg++, ws->col = 0, ws->rg_sum = 0) {
#if UPQ_WITH_LAZY_ROW_GROUPS
        upq_status lst = upq_reader_row_group_load(r, ws->rg); /* lazy row groups */
        if (lst != UPQ_OK)
            return lst;
        /* the loaded row group, at the high end (bit 0 of top is a flag) */
        if ((r->arena.top & ~(size_t)1) > ws->top)
            ws->top = r->arena.top & ~(size_t)1;
#endif
        if (ws->rg == 0 && ws->rows == 0 && !ws->open) {
            /* the row reader, built once over the first row group */
            upq_status st = rows_size(r, 0, ws->batch, &ws->rows);
            upq_arena_rewind(&r->arena, ws->mark);
            if (st == UPQ_ERR_NOMEM)
                return st;
            if (st != UPQ_OK)
                ws->rows = (size_t)-1; /* refused: no concurrent plan */
        }
        for (; ws->col < s->num_columns; ws->col++) {
            upq_column_reader *c = &ws->c;
            upq_status st;
            size_t need, codec, keyb, win;
            if (!upq_reader_chunk(r, ws->rg, ws->col))
                continue;
            if (!ws->open) {
                st = upq_column_open(c, r, ws->rg, ws->col);
                if (st != UPQ_OK)
                    return st;
                upq_memset(&ws->sizes, 0, sizeof ws->sizes);
                c->scan = &ws->sizes;
                ws->open = 1;
            }
            st = upq_column_scan_pages(c); /* in scan mode every page is passed over */
            if (st == UPQ_AGAIN)
                return UPQ_AGAIN;
            if (st != UPQ_DONE && st != UPQ_OK)
                return st;
            /* the codec's working memory for the pages this chunk has (BROTLI's
             * grows with the page; a fixed bound would over-reserve 5x) */
            codec = ws->sizes.codec;
            keyb = ENCRYPTED(c) ? align8(sizeof *c->hs) : 0;
            if (ENCRYPTED(c) && c->key != r->footer_key)
                keyb += align8(upq_crypto_key_size());
            win = align8(c->win_len);
            need = keyb + win + ws->sizes.dict + ws->sizes.block;
            upq_column_close(c);
            ws->open = 0;
            if (need + codec > ws->largest_column)
                ws->largest_column = need + codec;
            if (codec > ws->codec)
                ws->codec = codec;
            /* side by side, a block that grows is re-taken in place only when
             * it is at the top of the arena: count every block it takes (the
             * row reader's size already holds the key and window) */
            ws->rg_sum += ws->sizes.dict + ws->sizes.sum;
            /* windows follow their chunk's size: the row reader measured
             * those of row group 0, and each row group counts its own */
            ws->rg_sum += win;
            if (ws->rg == 0)
                ws->win0 += win;
        }
        if (ws->rg_sum > ws->largest_row_group)
            ws->largest_row_group = ws->rg_sum;
    }
    upq_arena_rewind(&r->arena, ws->mark);
    /* on-demand row groups sit at the arena's high end, beside the readers */
    if (ws->footer < ws->mark + ws->top)
        ws->footer = ws->mark + ws->top;
    ws->sequential = ws->mark + ws->top + ws->largest_column;
    if (ws->sequential < ws->footer)
        ws->sequential = ws->footer;
    ws->concurrent = 0;
    if (ws->rows != (size_t)-1) {
        ws->concurrent =
            ws->mark + ws->top + ws->rows - ws->win0 + ws->largest_row_group + ws->codec;
        if (ws->concurrent < ws->footer)
            ws->concurrent = ws->footer;
    }
    return UPQ_OK;
}
