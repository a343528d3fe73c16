/*
 * Internal include path for the page decoders (see uparquet/encoding.h),
 * and the per-encoding entry points upq_values_* dispatches to.
 *
 * Every get/skip below is called by values.c only after it checked that n
 * does not exceed the values the section holds (d->num_values - d->produced).
 */
#ifndef UPQ_ENCODING_INTERNAL_H
#define UPQ_ENCODING_INTERNAL_H

#include "uparquet/encoding.h"
#include "upq_port.h"

/* Values unpacked a step into a buffer on the stack (dictionary indices,
 * levels of widths above 1): each step has a fixed cost, so a larger one
 * spreads it over more values (a 50-entry string dictionary reads about 10%
 * faster at 256 than at 64 on x86-64); small targets keep their stack. */
#if UPQ_UNALIGNED_WORDS
#define UPQ_UNPACK_STEP 256u
#else
#define UPQ_UNPACK_STEP 64u
#endif

/* ---- rle.c ------------------------------------------------------------- */

/* The next stretch of at most `max` values: either one value repeated
 * (*is_run = 1, *run_value; buf untouched) or at most buf_cap values
 * unpacked into buf (*is_run = 0). *got >= 1 on UPQ_OK when max > 0.
 * Errors as upq_rle_get32. */
upq_status upq_rle_next(upq_rle_dec *d, uint32_t *buf, size_t buf_cap, size_t max, size_t *got,
                        int *is_run, uint32_t *run_value);

/* ---- plain.c ----------------------------------------------------------- */

upq_status upq_plain_init(upq_values_dec *d);
upq_status upq_plain_get(upq_values_dec *d, void *out, size_t n);
upq_status upq_plain_skip(upq_values_dec *d, size_t n);
/* n INT32, INT64, FLOAT or DOUBLE values where they lie, consumed, when they
 * are aligned for their type on a little-endian target; else NULL. */
const void *upq_plain_lend(upq_values_dec *d, size_t n);
/* n fixed-size values (INT32, INT64, INT96, FLOAT, DOUBLE) from their PLAIN
 * bytes in[0..n*size) into the output representation. */
void upq_plain_fixed(int32_t physical_type, const uint8_t *in, void *out, size_t n);

/* ---- delta.c ----------------------------------------------------------- */

/*
 * Reads a DELTA_BINARY_PACKED header at p and walks the block and miniblock
 * headers to the section's end, checking every width and that every used
 * miniblock is complete, so the decoding calls find all their bytes.
 * *section_end gets the first byte after the section (where the byte data of
 * DELTA_LENGTH_BYTE_ARRAY starts). The header's count must not exceed
 * max_values.
 */
upq_status upq_delta_init(upq_delta_dec *d, const uint8_t *p, const uint8_t *end, int is64,
                          uint32_t max_values, const uint8_t **section_end);
/* n <= d->left values; INT32 values wrap in 32 bits, INT64 in 64. */
upq_status upq_delta_get32(upq_delta_dec *d, uint32_t *out, size_t n);
upq_status upq_delta_get64(upq_delta_dec *d, uint64_t *out, size_t n);
upq_status upq_delta_skip(upq_delta_dec *d, size_t n);

upq_status upq_dbp_init(upq_values_dec *d);
upq_status upq_dbp_get(upq_values_dec *d, void *out, size_t n);
upq_status upq_dbp_skip(upq_values_dec *d, size_t n);
upq_status upq_dlba_init(upq_values_dec *d);
upq_status upq_dlba_get(upq_values_dec *d, upq_bytes *out, size_t n);
upq_status upq_dlba_skip(upq_values_dec *d, size_t n);
upq_status upq_dba_init(upq_values_dec *d);
upq_status upq_dba_get(upq_values_dec *d, upq_bytes *out, size_t n, size_t *got, upq_vbuf *vb);
upq_status upq_dba_skip(upq_values_dec *d, size_t n);

/* ---- bss.c ------------------------------------------------------------- */

upq_status upq_bss_init(upq_values_dec *d);
upq_status upq_bss_get(upq_values_dec *d, void *out, size_t n, size_t *got, upq_vbuf *vb);
upq_status upq_bss_skip(upq_values_dec *d, size_t n);

#endif
