/*
 * µparquet build configuration.
 *
 * Define UPQ_CONFIG_FILE (e.g. -DUPQ_CONFIG_FILE='"my_upq_config.h"') to name a
 * header that is read first; every option below then only takes its default
 * when that header left it undefined. Options are tested with #if, never
 * #ifdef, so a misspelt or missing option is caught by -Wundef. Named option
 * sets ship as such headers in port/config/ (upq-reader-min.h, upq-logger.h, ...).
 *
 * An installed library carries its build's options with it (the mbedtls way):
 * `make install` writes them into uparquet/config_build.h, read next, so a
 * program compiled with only the installed headers sees the structs the
 * library was compiled with, and a program whose own UPQ_* defines differ
 * from them stops with an #error instead of crashing. In the source tree
 * config_build.h records nothing and the options come from the -D flags.
 *
 * Option                     Default  Meaning
 * -------------------------  -------  ------------------------------------------
 * UPQ_WITH_READER            1        reader state machines
 * UPQ_WITH_WRITER            1        writer state machines
 * UPQ_WITH_SNAPPY            1        SNAPPY codec (own code)
 * UPQ_WITH_LZ4               0        LZ4_RAW / legacy LZ4 via lz4's block API
 * UPQ_WITH_ZSTD              0        ZSTD decompression via zstd's decoder
 * UPQ_WITH_GZIP              0        GZIP via zlib
 * UPQ_WITH_LIBDEFLATE        0        GZIP pages read through libdeflate's decompressor
 *                                     (faster than zlib's inflate, ~11.5 KB of arena
 *                                     per page read against ~7 KB); zlib still writes.
 *                                     Only with UPQ_WITH_GZIP
 * UPQ_WITH_BROTLI            0        BROTLI decompression via brotli's decoder
 * UPQ_WITH_CRYPTO            0        modular encryption via mbedtls
 * UPQ_WITH_BLOOM             1        split-block bloom filters
 * UPQ_WITH_VARIANT           1        Variant values and columns (0: the schema builder
 *                                     refuses VARIANT groups, UPQ_ERR_UNSUPPORTED)
 * UPQ_WITH_DELTA             1        DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY and
 *                                     DELTA_BYTE_ARRAY, read and written (0: such pages
 *                                     give UPQ_ERR_UNSUPPORTED, the writer refuses them)
 * UPQ_WITH_BSS               1        BYTE_STREAM_SPLIT, read and written (likewise)
 * UPQ_WITH_CRC               1        page CRC32: checked by the reader, written by the
 *                                     writer (0: neither; the CRC table goes too)
 * UPQ_WITH_STATISTICS        1        min/max/null/NaN statistics of pages and chunks written
 *                                     by the writer (0: files without, as with
 *                                     no_statistics; stats_max_binary given without
 *                                     no_statistics gives UPQ_ERR_UNSUPPORTED; needs
 *                                     UPQ_WITH_PAGE_INDEX 0, the ColumnIndex being
 *                                     made of page statistics)
 * UPQ_WITH_DATA_PAGE_V2      1        DATA_PAGE_V2 written by the writer (0: data_page_v2
 *                                     gives UPQ_ERR_UNSUPPORTED; v2 pages are still read)
 * UPQ_WITH_PAGE_INDEX        1        ColumnIndex / OffsetIndex written by the writer (0:
 *                                     files without one, as with no_page_index; a
 *                                     writer given max_pages without no_page_index
 *                                     gives UPQ_ERR_UNSUPPORTED), and read: page_index.h,
 *                                     upq_column_seek through the OffsetIndex (0: the
 *                                     seek scans page headers, as upq_column_skip)
 * UPQ_WITH_PREDICATE         1        predicates, pruning and filtered scans (predicate.h);
 *                                     0: none of it is built
 * UPQ_WITH_CHUNK_META        1        column-chunk metadata the writer adds: key-value
 *                                     metadata asked for (upq_column_opts.kv; 0: asking
 *                                     gives UPQ_ERR_UNSUPPORTED) and geospatial statistics of
 *                                     GEOMETRY / GEOGRAPHY columns (0: none)
 * UPQ_WITH_CHECKPOINT        1        checkpoint mode (power-loss safe logging: the
 *                                     journal, upq_recover, upq_writer_resume); 0:
 *                                     opts.checkpoint gives UPQ_ERR_UNSUPPORTED
 * UPQ_WITH_LAZY_ROW_GROUPS   1        row-group metadata decoded on demand
 *                                     (upq_reader_opts.row_groups, upq_reader_row_group_load),
 *                                     so opening and reading need memory independent of the
 *                                     number of row groups (0: the whole footer is decoded
 *                                     at open; the option gives UPQ_ERR_UNSUPPORTED)
 * UPQ_WITH_LEND              1        the reader takes page bodies where upq_io.lend lends
 *                                     them (files in RAM or mapped): no copy into the
 *                                     arena; and upq_column_read_lent lends PLAIN
 *                                     fixed-width values where they lie in the page,
 *                                     and upq_column_def_if_nulls leaves the levels of
 *                                     batches without nulls unwritten (0: lend is
 *                                     ignored, read_at reads all, values are copied,
 *                                     levels always written)
 * UPQ_WITH_ROWS              1        the row reader (record.h: upq_rows_*, events and
 *                                     binding; predicate.h's scans read through it);
 *                                     about 3.5 KB on Cortex-M4 with the workspace
 *                                     planner's row-wise plan (0: none of it is built,
 *                                     columns are read with upq_column_*, the plan's
 *                                     concurrent size is 0; needs UPQ_WITH_PREDICATE 0)
 * UPQ_WITH_FLAT_ROWS         1        upq_rows reads rows of top-level columns (no group
 *                                     selected) without the plan walk: 2-2.7x faster
 *                                     per row, and binds them into caller structs
 *                                     (upq_rows_bind/upq_rows_fetch); about 1.8 KB more
 *                                     code on Cortex-M4, 1.45 KB of it the binding (0:
 *                                     every row takes the general path, the events are
 *                                     the same; no binding)
 * UPQ_WITH_DICT_INDEX        1        the writer keeps each staged value's dictionary
 *                                     index (2 bytes a level of page staging per
 *                                     dictionary column; not in checkpoint mode), so a
 *                                     page is not looked up in the dictionary a second
 *                                     time and a string page's bounds come from the
 *                                     entries it uses (0: looked up again; the files
 *                                     are the same)
 * UPQ_WITH_RUNS              1        upq_writer_put_run, runs of one column's entries
 *                                     with levels only where some are null, and the
 *                                     column-wise paths that take a run at once in
 *                                     builds for size (0: not built, and
 *                                     upq_writer_write_column takes rows one by one
 *                                     under -Os; about 800 B of code on Cortex-M4 in
 *                                     an image that writes column-wise)
 * UPQ_WITH_DIRECT            1        the writer's direct mode (opts.direct: no chunk
 *                                     buffers, a data page per column chunk) (0:
 *                                     refused with UPQ_ERR_UNSUPPORTED; buffered and
 *                                     checkpoint mode as before; about 380 B of code
 *                                     on Cortex-M4)
 * UPQ_WITH_BUFFERED          1        the writer's modes besides checkpoint mode (buffered,
 *                                     and direct with UPQ_WITH_DIRECT) (0: only checkpoint
 *                                     mode, for images that only log; a writer without
 *                                     opts.checkpoint is refused with UPQ_ERR_UNSUPPORTED;
 *                                     about 2 KB of code on Cortex-M4 in the logger set)
 * UPQ_WITH_RG_BYTES          1        row groups ended by the bytes of their pages
 *                                     (upq_writer_opts.row_group_bytes) (0:
 *                                     row_group_bytes gives UPQ_ERR_UNSUPPORTED; row
 *                                     groups end by row_group_rows and the chunk
 *                                     buffers as before, the files are the same;
 *                                     about 120 B of code on Cortex-M4)
 * UPQ_WITH_SORTING           1        sorting columns the writer declares in every row
 *                                     group (upq_writer_opts.sorting) (0: nsorting
 *                                     gives UPQ_ERR_UNSUPPORTED, and so does recovering
 *                                     a file that declares them; files without are the
 *                                     same; about 180 B of code on Cortex-M4)
 * UPQ_WITH_OPEN_TOTAL        1        after UPQ_ERR_NOMEM, upq_reader_open names the total
 *                                     the open takes (the footer's decode counts what
 *                                     does not fit, the schema is sized), so one retry
 *                                     in that many bytes succeeds; about 1 KB of code
 *                                     on Cortex-M4 (0: it names the request that failed)
 * UPQ_WITH_NEON              target   NEON kernels (scalar twins always built); on by
 *                                     default on little-endian AArch64 and ARMv7-A
 *                                     with NEON (__ARM_NEON)
 * UPQ_CRC32_TABLE            target   page CRC32 table: 8 = slicing by 8 (8 KB .rodata,
 *                                     ~4x the byte-wise speed), 4 = slicing by 4 (4 KB),
 *                                     1 = one 1 KB table, a word a step (3.34
 *                                     instructions a byte on Cortex-M4 with
 *                                     UPQ_FAST_KERNELS, 3.56 without), 0 = bitwise
 *                                     (no table); default 8 on 64-bit targets, else 1
 * UPQ_FAST_KERNELS           1        decoder kernels that trade flash for speed (0 in
 *                                     the -min and logger sets): Cortex-M3/M4/M7
 *                                     builds for size unpack bit widths up to 16 and
 *                                     DELTA INT64 miniblocks 8 values a step (about
 *                                     5 KB), dictionary gathers check their bound four
 *                                     values a step, BYTE_STREAM_SPLIT FLOAT is
 *                                     transposed in registers, and a page header is
 *                                     read in one pass (about 900 B): on Cortex-M4
 *                                     dictionary INT32 reads at 15 instead of 26
 *                                     instructions a value, DELTA INT64 at 17 not 33;
 *                                     the writer encodes its page headers by hand
 *                                     (about 550 B), 2.6% of the logger's row, and
 *                                     stages a row call's value of fixed width
 *                                     directly when nothing is due and ends a row
 *                                     in one pass (about 300 B), 11% of the
 *                                     logger's row, and run-length encodes levels
 *                                     of one bit a byte at a time (about 490 B),
 *                                     6% of it
 * UPQ_CRC32_PORT             0        CRC-32 in the port's hardware unit: every page
 *                                     and journal checksum through the port's
 *                                     upq_port_crc32_update (upq_port.h), for STM32's
 *                                     CRC peripheral or ARMv8's CRC32 instructions;
 *                                     the table stays for what the unit leaves
 * UPQ_MEM_WORDS              1        upq_memcpy/upq_memset move machine words when
 *                                     the blocks allow (0: byte loops, ~120 B less
 *                                     code on Cortex-M4, slower on large blocks)
 * UPQ_NO_ERRSTR              0        compile out upq_strerror() names and the
 *                                     error detail texts (upq_error_info what,
 *                                     in_struct, field read ""); status codes,
 *                                     offsets and locations stay
 * UPQ_THRIFT_MAX_DEPTH       16       Thrift nesting limit (structs + containers)
 * UPQ_THRIFT_MAX_LIST        (1<<24)  largest list/map element count accepted
 * UPQ_THRIFT_MAX_BINARY      (1<<26)  largest binary/string accepted (bytes)
 * UPQ_SCHEMA_MAX_DEPTH       32       schema tree nesting limit
 * UPQ_VARIANT_MAX_DEPTH      32       Variant value nesting limit (walk stack)
 * UPQ_ASSERT_ENABLED         0        internal assertions (debug builds)
 * UPQ_LOG_ENABLED            0        internal trace hook (see port.h)
 *
 * The codec options default to 0 in the header so that a bare library build
 * needs no third-party package; the Makefile turns them on when `make deps`
 * has provided the packages.
 */
#ifndef UPARQUET_CONFIG_H
#define UPARQUET_CONFIG_H

#ifdef UPQ_CONFIG_FILE
#include UPQ_CONFIG_FILE
#endif
#include "config_build.h"

#ifndef UPQ_WITH_READER
#define UPQ_WITH_READER 1
#endif
#ifndef UPQ_WITH_WRITER
#define UPQ_WITH_WRITER 1
#endif
#ifndef UPQ_WITH_SNAPPY
#define UPQ_WITH_SNAPPY 1
#endif
#ifndef UPQ_WITH_LZ4
#define UPQ_WITH_LZ4 0
#endif
#ifndef UPQ_WITH_ZSTD
#define UPQ_WITH_ZSTD 0
#endif
#ifndef UPQ_WITH_GZIP
#define UPQ_WITH_GZIP 0
#endif
#ifndef UPQ_WITH_LIBDEFLATE
#define UPQ_WITH_LIBDEFLATE 0
#endif
#ifndef UPQ_WITH_BROTLI
#define UPQ_WITH_BROTLI 0
#endif
#ifndef UPQ_WITH_CRYPTO
#define UPQ_WITH_CRYPTO 0
#endif
#ifndef UPQ_WITH_BLOOM
#define UPQ_WITH_BLOOM 1
#endif
#ifndef UPQ_WITH_VARIANT
#define UPQ_WITH_VARIANT 1
#endif
#ifndef UPQ_WITH_PAGE_INDEX
#define UPQ_WITH_PAGE_INDEX 1
#endif
#ifndef UPQ_WITH_PREDICATE
#define UPQ_WITH_PREDICATE 1
#endif
#ifndef UPQ_WITH_DATA_PAGE_V2
#define UPQ_WITH_DATA_PAGE_V2 1
#endif
#ifndef UPQ_WITH_STATISTICS
#define UPQ_WITH_STATISTICS 1
#endif
#ifndef UPQ_WITH_CHUNK_META
#define UPQ_WITH_CHUNK_META 1
#endif
#ifndef UPQ_WITH_DELTA
#define UPQ_WITH_DELTA 1
#endif
#ifndef UPQ_WITH_CHECKPOINT
#define UPQ_WITH_CHECKPOINT 1
#endif
#ifndef UPQ_WITH_BSS
#define UPQ_WITH_BSS 1
#endif
#ifndef UPQ_WITH_LEND
#define UPQ_WITH_LEND 1
#endif
#ifndef UPQ_WITH_ROWS
#define UPQ_WITH_ROWS 1
#endif
#ifndef UPQ_WITH_FLAT_ROWS
#define UPQ_WITH_FLAT_ROWS 1
#endif
#ifndef UPQ_WITH_DICT_INDEX
#define UPQ_WITH_DICT_INDEX 1
#endif
#ifndef UPQ_WITH_RUNS
#define UPQ_WITH_RUNS 1
#endif
#ifndef UPQ_WITH_DIRECT
#define UPQ_WITH_DIRECT 1
#endif
#ifndef UPQ_WITH_BUFFERED
#define UPQ_WITH_BUFFERED 1
#endif
#ifndef UPQ_WITH_RG_BYTES
#define UPQ_WITH_RG_BYTES 1
#endif
#ifndef UPQ_WITH_SORTING
#define UPQ_WITH_SORTING 1
#endif
#ifndef UPQ_WITH_OPEN_TOTAL
#define UPQ_WITH_OPEN_TOTAL 1
#endif
#ifndef UPQ_WITH_CRC
#define UPQ_WITH_CRC 1
#endif
#ifndef UPQ_WITH_LAZY_ROW_GROUPS
#define UPQ_WITH_LAZY_ROW_GROUPS 1
#endif
#ifndef UPQ_WITH_NEON
/* the kernels are written for little-endian AArch64 and ARMv7-A with NEON
 * (32-bit NEON exists from ARMv7 on; port/neon) */
#if (defined(__ARM_NEON) || defined(__ARM_NEON__)) && !defined(__ARM_BIG_ENDIAN)
#define UPQ_WITH_NEON 1
#else
#define UPQ_WITH_NEON 0
#endif
#endif
#ifndef UPQ_MEM_WORDS
#define UPQ_MEM_WORDS 1
#endif
#ifndef UPQ_CRC32_TABLE
#if defined(__SIZEOF_POINTER__) && __SIZEOF_POINTER__ >= 8
#define UPQ_CRC32_TABLE 8
#else
#define UPQ_CRC32_TABLE 1
#endif
#endif
#ifndef UPQ_FAST_KERNELS
#define UPQ_FAST_KERNELS 1
#endif
#ifndef UPQ_CRC32_PORT
#define UPQ_CRC32_PORT 0
#endif
#ifndef UPQ_NO_ERRSTR
#define UPQ_NO_ERRSTR 0
#endif
#ifndef UPQ_THRIFT_MAX_DEPTH
#define UPQ_THRIFT_MAX_DEPTH 16
#endif
#ifndef UPQ_THRIFT_MAX_LIST
#define UPQ_THRIFT_MAX_LIST 16777216 /* 2^24 */
#endif
#ifndef UPQ_THRIFT_MAX_BINARY
#define UPQ_THRIFT_MAX_BINARY 67108864 /* 2^26 */
#endif
#ifndef UPQ_SCHEMA_MAX_DEPTH
#define UPQ_SCHEMA_MAX_DEPTH 32
#endif
#ifndef UPQ_VARIANT_MAX_DEPTH
#define UPQ_VARIANT_MAX_DEPTH 32
#endif
#ifndef UPQ_ASSERT_ENABLED
#define UPQ_ASSERT_ENABLED 0
#endif
#ifndef UPQ_LOG_ENABLED
#define UPQ_LOG_ENABLED 0
#endif

/* ---- contradictory option sets are rejected at compile time ---- */

#if UPQ_WITH_WRITER && !UPQ_WITH_BUFFERED && !UPQ_WITH_CHECKPOINT
#error "uparquet: a writer needs UPQ_WITH_BUFFERED or UPQ_WITH_CHECKPOINT"
#endif
#if !UPQ_WITH_READER && !UPQ_WITH_WRITER
#error "uparquet: at least one of UPQ_WITH_READER and UPQ_WITH_WRITER must be 1"
#endif
#if UPQ_THRIFT_MAX_DEPTH < 8 || UPQ_THRIFT_MAX_DEPTH > 64
#error "uparquet: UPQ_THRIFT_MAX_DEPTH must be in 8..64 (FileMetaData nests 8 deep)"
#endif
#if UPQ_VARIANT_MAX_DEPTH < 1 || UPQ_VARIANT_MAX_DEPTH > 1024
#error "uparquet: UPQ_VARIANT_MAX_DEPTH must be in 1..1024"
#endif
#if UPQ_SCHEMA_MAX_DEPTH < 1 || UPQ_SCHEMA_MAX_DEPTH > 255
#error "uparquet: UPQ_SCHEMA_MAX_DEPTH must be in 1..255"
#endif
#if UPQ_THRIFT_MAX_LIST < 1 || UPQ_THRIFT_MAX_BINARY < 1
#error "uparquet: Thrift limits must be positive"
#endif
#if UPQ_WITH_PREDICATE && !UPQ_WITH_ROWS
#error "uparquet: UPQ_WITH_PREDICATE needs UPQ_WITH_ROWS (a filtered scan reads through the row reader)"
#endif
#if UPQ_WITH_PAGE_INDEX && !UPQ_WITH_STATISTICS
#error "uparquet: UPQ_WITH_PAGE_INDEX needs UPQ_WITH_STATISTICS (a ColumnIndex is page statistics)"
#endif
#if UPQ_WITH_NEON && !(defined(__ARM_NEON) || defined(__ARM_NEON__))
#error "uparquet: UPQ_WITH_NEON=1 needs a NEON target (aarch64, or ARMv7-A with -mfpu=neon)"
#endif
#if UPQ_WITH_NEON && defined(__ARM_BIG_ENDIAN)
#error "uparquet: UPQ_WITH_NEON=1: the NEON kernels are written for little-endian AArch64 and ARMv7-A"
#endif

#endif /* UPARQUET_CONFIG_H */
