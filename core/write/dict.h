/*
 * Dictionaries of the writer's columns (core/write/dict.c): the PLAIN
 * entries and their hash table, the keys of caller and staged values, and
 * the staged values' indices.
 */
#ifndef UPQ_WRITE_DICT_H
#define UPQ_WRITE_DICT_H

#include "out.h"

/* A dictionary column's staged values' indices (UPQ_WITH_DICT_INDEX, not
 * in checkpoint mode): idx[i] is the index of staged value i for i < n
 * (idx NULL: a column without a dictionary). UPQ_W_DX is a constant null
 * without the option, so that its paths go. */
typedef struct upq_wdx {
    uint16_t *idx;
    uint32_t n;
} upq_wdx;
#if UPQ_WITH_DICT_INDEX
#define UPQ_W_DX_ARRAY(w) ((w)->dx)
#else
#define UPQ_W_DX_ARRAY(w) ((upq_wdx *)0)
#endif
UPQ_INLINE upq_wdx *upq_w_dx(const upq_writer *w, const upq_wcol *c)
{
#if UPQ_WITH_DICT_INDEX
    upq_wdx *x = w->dx ? &w->dx[c - w->cols] : (upq_wdx *)0;
    return x && x->idx ? x : (upq_wdx *)0;
#else
    (void)w;
    (void)c;
    return (upq_wdx *)0;
#endif
}
#define UPQ_W_DX(w, c) upq_w_dx(w, c)


/* Cortex-M3/M4/M7 load a word from any address (not a doubleword or a
 * load-multiple: the types say "aligned 1", so the compiler emits neither). */
#if defined(__GNUC__) && defined(__ARM_FEATURE_UNALIGNED) && UPQ_MEM_WORDS && __SIZEOF_POINTER__ == 4
#define UPQ_W_ARM_UNALIGNED 1
typedef uint32_t __attribute__((__may_alias__, __aligned__(1))) upq_w_u32_una;
#else
#define UPQ_W_ARM_UNALIGNED 0
#endif

/* A caller's upq_bytes value. Hosts that load any address read its fields
 * in place; elsewhere it is copied out (the caller's array may sit at any
 * address there). upq_memcpy is a call per value under -fno-builtin. */
UPQ_INLINE void upq_w_in_bytes(const void *v, upq_bytes *b)
{
#if UPQ_UNALIGNED_WORDS
    const upq_bytes *p = (const upq_bytes *)v;
    b->ptr = p->ptr;
    b->len = p->len;
#elif UPQ_W_ARM_UNALIGNED
    const upq_w_u32_una *p = (const upq_w_u32_una *)v;
    b->ptr = (const uint8_t *)(uintptr_t)p[0];
    b->len = p[1];
#else
    upq_memcpy(b, v, sizeof *b);
#endif
}

/* Bytes between two values of the caller's arrays (column.h's representation). */
UPQ_INLINE size_t upq_w_input_stride(const upq_wcol *c)
{
    if (c->type == UPQ_TYPE_BYTE_ARRAY || c->type == UPQ_TYPE_FIXED_LEN_BYTE_ARRAY)
        return sizeof(upq_bytes);
    return c->vsize;
}

/* Looks up a PLAIN key (BYTE_ARRAY: the payload only) in c's dictionary:
 * its index, or -1 (then *slot is where it would go). */
int32_t upq_w_dict_find(const upq_wcol *c, const uint8_t *key, uint32_t klen, uint32_t *slot);

/* The PLAIN key of the staged value at byte `off` of the staging: key and
 * klen (fixed types are converted into tmp[16]); returns the value's staged
 * size. */
uint32_t upq_w_staged_key(const upq_wcol *c, uint32_t off, uint8_t *tmp, const uint8_t **key,
                          uint32_t *klen);

/* Puts n caller values into c's dictionary until one does not fit: the
 * values taken (their indices into x when it has those of the values
 * staged before them). */
size_t upq_w_dict_run(upq_wcol *c, upq_wdx *x, const uint8_t *vals, size_t n);

/* Puts every staged value (rows carried over from the last row group) into
 * the fresh dictionary; gives up on it when it fills. */
void upq_w_dict_reinsert(upq_wcol *c, upq_wdx *x);

/* Empties c's dictionary (on again when the column uses one). */
UPQ_INLINE void upq_w_dict_clear(upq_wcol *c)
{
    c->dict_n = c->dict_bytes = 0;
    c->dict_pages = 0;
    if (c->slots)
        upq_memset(c->slots, 0, (size_t)c->nslots * sizeof(uint16_t));
    c->dict_on = c->use_dict;
}

#endif
