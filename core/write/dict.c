/*
 * The writer's dictionaries: each column's PLAIN entries (the dictionary
 * page body) and an open-addressing hash table of entry numbers. Values
 * are put in as they are staged; when one does not fit, the column falls
 * back to its other encoding for the rest of the chunk. Indices are looked
 * up again when a page is encoded, unless the staged values' indices are
 * kept (UPQ_WITH_DICT_INDEX).
 */
#include "dict.h"

#if UPQ_WITH_WRITER

#if UPQ_UNALIGNED_WORDS
/* A word at a time on 64-bit hosts: the bytes were hashed one by one, and
 * hashing every value's key took more time than anything else in the
 * writer. Cortex-M keeps the byte loop: it is smaller in flash. */
static uint32_t hash_bytes(const uint8_t *p, uint32_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
    for (; n >= 8; p += 8, n -= 8)
        h = (h ^ upq_load_le64(p)) * 0xff51afd7ed558ccdull;
    if (n >= 4) {
        h = (h ^ upq_load_le32(p)) * 0xff51afd7ed558ccdull;
        p += 4;
        n -= 4;
    }
    for (; n; p++, n--)
        h = (h ^ *p) * 0xff51afd7ed558ccdull;
    h ^= h >> 29;
    h *= 0xc4ceb9fe1a85ec53ull;
    return (uint32_t)(h >> 32);
}

#else
static uint32_t hash_bytes(const uint8_t *p, uint32_t n)
{
    uint32_t h = 2166136261u, i;
    for (i = 0; i < n; i++)
        h = (h ^ p[i]) * 16777619u;
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    return h;
}

#endif

/* Key equality: upq_same_words inline (a call per compare cost the hosts'
 * writer 7% more instructions, two compares a value), then the bytes past
 * the equal words; sets without the fast kernels call upq_memcmp (flash). */
static int same_key(const uint8_t *a, const uint8_t *b, uint32_t n)
{
    size_t k;
    if (!UPQ_FAST_KERNELS)
        return upq_memcmp(a, b, n) == 0;
    for (k = upq_same_words(a, b, n); k < n; k++)
        if (a[k] != b[k])
            return 0;
    return 1;
}

/* Entry e of c's dictionary holds the PLAIN key. */
static int entry_is(const upq_wcol *c, uint32_t e, const uint8_t *key, uint32_t klen)
{
    const uint8_t *v;
    if (c->type != UPQ_TYPE_BYTE_ARRAY)
        return same_key(c->dict + (size_t)e * c->vsize, key, klen);
    v = c->dict + c->dict_off[e];
    return upq_load_le32(v) == klen && same_key(v + 4, key, klen);
}

/* The newest entry is tried first; the smallest sets (UPQ_MEM_WORDS 0)
 * keep its flash. */
#define UPQ_W_DICT_HINT UPQ_MEM_WORDS

int32_t upq_w_dict_find(const upq_wcol *c, const uint8_t *key, uint32_t klen, uint32_t *slot)
{
    uint32_t s, e = c->dict_n - 1u;
    /* a logger puts the same value (its device name) row after row: the
     * newest entry is tried before the key is hashed (none: out of range).
     * It needs no state, so an emptied dictionary has no stale guess. */
    if (UPQ_W_DICT_HINT && e < c->dict_n && entry_is(c, e, key, klen))
        return (int32_t)e;
    s = (uint32_t)(((uint64_t)hash_bytes(key, klen) * c->nslots) >> 32);
    for (;;) {
        e = c->slots[s];
        if (e == 0) {
            *slot = s;
            return -1;
        }
        if (entry_is(c, e - 1u, key, klen))
            return (int32_t)(e - 1u);
        if (++s == c->nslots)
            s = 0;
    }
}

/* Adds a key missing from the dictionary at `slot`: 0 when it is full. */
static int dict_add(upq_wcol *c, const uint8_t *key, uint32_t klen, uint32_t slot)
{
    int ba = c->type == UPQ_TYPE_BYTE_ARRAY;
    uint32_t need = ba ? 4u + klen : klen;
    if (c->dict_n >= c->dict_max || need > c->dict_cap - c->dict_bytes)
        return 0;
    if (ba) {
        c->dict_off[c->dict_n] = c->dict_bytes;
        upq_store_le32(c->dict + c->dict_bytes, klen);
        if (klen)
            upq_memcpy(c->dict + c->dict_bytes + 4, key, klen);
    } else {
        upq_memcpy(c->dict + c->dict_bytes, key, klen);
    }
    c->dict_bytes += need;
    c->slots[slot] = (uint16_t)(++c->dict_n);
    return 1;
}

/* Native value -> PLAIN key bytes (fixed types), or the payload (binary). */
static void value_key(const upq_wcol *c, const void *v, uint8_t *tmp, const uint8_t **key,
                      uint32_t *klen)
{
    upq_bytes b;
    if (c->type != UPQ_TYPE_BYTE_ARRAY && c->type != UPQ_TYPE_FIXED_LEN_BYTE_ARRAY) {
        *klen = c->vsize;
#if UPQ_NATIVE_LE
        /* a little-endian host holds fixed-width values as their PLAIN bytes */
        (void)tmp;
        *key = (const uint8_t *)v;
#else
        /* 4- and 8-byte numbers as little-endian words; INT96 are bytes */
        if (c->vsize == 4) {
            uint32_t x;
            upq_memcpy(&x, v, 4);
            upq_store_le32(tmp, x);
        } else if (c->vsize == 8) {
            uint64_t x;
            upq_memcpy(&x, v, 8);
            upq_store_le64(tmp, x);
        } else {
            upq_memcpy(tmp, v, c->vsize);
        }
        *key = tmp;
#endif
        return;
    }
    upq_w_in_bytes(v, &b);
    *key = b.ptr;
    *klen = b.len;
}

uint32_t upq_w_staged_key(const upq_wcol *c, uint32_t off, uint8_t *tmp, const uint8_t **key,
                          uint32_t *klen)
{
    const uint8_t *p = c->vals + off;
    switch (c->type) {
    case UPQ_TYPE_BYTE_ARRAY:
        *klen = upq_load_le32(p);
        *key = p + 4;
        return 4u + *klen;
    case UPQ_TYPE_FIXED_LEN_BYTE_ARRAY:
    case UPQ_TYPE_INT96:
        *key = p;
        *klen = c->vsize;
        return c->vsize;
    default:
        value_key(c, p, tmp, key, klen);
        return c->vsize;
    }
}

void upq_w_dict_reinsert(upq_wcol *c, upq_wdx *x)
{
    uint32_t i, off = 0;
    if (!UPQ_WITH_DICT_INDEX)
        x = (upq_wdx *)0; /* a constant: its paths go */
    for (i = 0; i < c->nval && c->dict_on; i++) {
        uint8_t tmp[16];
        const uint8_t *key;
        uint32_t klen, slot;
        uint32_t sz = upq_w_staged_key(c, off, tmp, &key, &klen);
        int32_t ix = upq_w_dict_find(c, key, klen, &slot);
        if (ix < 0 && dict_add(c, key, klen, slot))
            ix = (int32_t)c->dict_n - 1;
        if (ix < 0)
            c->dict_on = 0;
        else if (x)
            x->idx[i] = (uint16_t)ix;
        off += sz;
    }
    if (x)
        x->n = c->dict_on ? c->nval : 0u;
}

size_t upq_w_dict_run(upq_wcol *c, upq_wdx *x, const uint8_t *vals, size_t n)
{
    size_t i, vs = upq_w_input_stride(c);
    /* the indices of the values about to be staged, when those of the
     * values staged before are known (mark_indexed counts them) */
    uint16_t *ix_out = UPQ_WITH_DICT_INDEX && x && x->n == c->nval ? x->idx + c->nval : (uint16_t *)0;
    for (i = 0; i < n; i++) {
        uint8_t tmp[16];
        const uint8_t *key;
        uint32_t klen, slot;
        int32_t ix;
        value_key(c, vals + i * vs, tmp, &key, &klen);
        ix = upq_w_dict_find(c, key, klen, &slot);
        if (ix < 0) {
            if (!dict_add(c, key, klen, slot))
                break;
            ix = (int32_t)c->dict_n - 1;
        }
        if (ix_out)
            ix_out[i] = (uint16_t)ix;
    }
    return i;
}


#endif /* UPQ_WITH_WRITER */
