/*
 * BYTE_STREAM_SPLIT: byte k of value i is at stream k, position i; the
 * streams follow each other, each as long as the section has values.
 * Value positions are d->produced (values.c advances it after each call).
 */
#include "encoding.h"
#include "upq_simd.h"
#include "upq_port.h"

#if UPQ_WITH_BSS

#define CHUNK 64u

upq_status upq_bss_init(upq_values_dec *d)
{
    size_t width, len = (size_t)(d->end - d->p);
    switch (d->physical_type) {
    case UPQ_TYPE_INT32:
    case UPQ_TYPE_FLOAT: width = 4; break;
    case UPQ_TYPE_INT64:
    case UPQ_TYPE_DOUBLE: width = 8; break;
    case UPQ_TYPE_FIXED_LEN_BYTE_ARRAY:
        if (d->type_length <= 0)
            return UPQ_ERR_CORRUPT;
        width = (size_t)d->type_length;
        break;
    default: return UPQ_ERR_UNSUPPORTED;
    }
    /* nothing marks where a stream ends: the section's length decides, and
     * must hold whole values, no more than the page promises (a v1 page's
     * count includes its nulls) */
    if (len % width != 0 || len / width > d->num_values)
        return UPQ_ERR_CORRUPT;
    d->u.bss.width = width;
    d->u.bss.stride = len / width;
    d->u.bss.base = d->p;
    d->num_values = (uint32_t)(len / width);
    return UPQ_OK;
}

upq_status upq_bss_get(upq_values_dec *d, void *out, size_t n, size_t *got, upq_vbuf *vb)
{
    size_t width = d->u.bss.width, stride = d->u.bss.stride, done = 0;
    const uint8_t *in;

    *got = 0;
    if (n == 0)
        return UPQ_OK;
    in = d->u.bss.base + d->produced;
    if (d->physical_type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY) {
        upq_bytes *o = (upq_bytes *)out;
        size_t room, i;
        uint8_t *dst;
        if (!vb)
            return UPQ_ERR_INVAL;
        room = vb->buf ? (vb->cap - vb->used) / width : 0;
        if (room == 0)
            return vb->used ? UPQ_OK : UPQ_ERR_BUFFER;
        if (n > room)
            n = room;
        dst = vb->buf + vb->used;
        UPQ_K(bss_gather)(in, stride, width, n, dst);
        for (i = 0; i < n; i++) {
            o[i].ptr = dst + i * width;
            o[i].len = (uint32_t)width;
        }
        vb->used += n * width;
        *got = n;
        return UPQ_OK;
    }
    if (UPQ_NATIVE_LE) {
        /* the numbers in memory are their PLAIN bytes: straight into the batch */
        UPQ_K(bss_gather)(in, stride, width, n, (uint8_t *)out);
        *got = n;
        return UPQ_OK;
    }
    while (done < n) {
        uint8_t tmp[CHUNK * 8];
        size_t k = n - done < CHUNK ? n - done : CHUNK;
        /* transpose into PLAIN bytes, then read those as numbers: correct on
         * hosts of either byte order */
        UPQ_K(bss_gather)(in + done, stride, width, k, tmp);
        upq_plain_fixed(d->physical_type, tmp, (uint8_t *)out + done * width, k);
        done += k;
    }
    *got = n;
    return UPQ_OK;
}

upq_status upq_bss_skip(upq_values_dec *d, size_t n)
{
    (void)d;
    (void)n; /* positions are d->produced, which the caller advances */
    return UPQ_OK;
}

#endif /* UPQ_WITH_BSS */
