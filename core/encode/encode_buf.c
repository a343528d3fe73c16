/*
 * The output cursor every encoder writes through (encode.h) and the
 * saturating size arithmetic of their bounds: the bottom of the encoders,
 * so that each encoder and the dispatcher above them share it without
 * calling each other.
 */
#define UPQ_WB_TAKE_HERE /* the out-of-line upq_wb_take, if any */
#include "encode.h"
#include "common/upq_internal.h"

void upq_wb_uleb(upq_wbuf *w, uint64_t v)
{
    uint8_t tmp[10];
    unsigned k = (unsigned)upq_tc_varint(tmp, v), i;
    uint8_t *at = upq_wb_take(w, k);
    if (at)
        for (i = 0; i < k; i++)
            at[i] = tmp[i];
}

upq_status upq_wb_finish(const upq_wbuf *w, size_t *len)
{
    if (w->overflow) {
        *len = SIZE_MAX;
        return UPQ_ERR_LIMIT;
    }
    *len = w->pos;
    return w->pos > w->cap ? UPQ_ERR_BUFFER : UPQ_OK;
}

size_t upq_size_add(size_t a, size_t b)
{
    return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

size_t upq_size_mul(size_t a, size_t b)
{
    return (b != 0 && a > SIZE_MAX / b) ? SIZE_MAX : a * b;
}

