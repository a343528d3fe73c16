/* Rejects contradictory option sets at compile time (included by config.h). */
#ifndef UPARQUET_CONFIG_CHECK_H
#define UPARQUET_CONFIG_CHECK_H

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
#if UPQ_WITH_PAGE_INDEX && !UPQ_WITH_STATISTICS
#error "uparquet: UPQ_WITH_PAGE_INDEX needs UPQ_WITH_STATISTICS (a ColumnIndex is page statistics)"
#endif
#if UPQ_WITH_NEON && !(defined(__ARM_NEON) || defined(__ARM_NEON__))
#error "uparquet: UPQ_WITH_NEON=1 needs a NEON target (aarch64, or ARMv7-A with -mfpu=neon)"
#endif
#if UPQ_WITH_NEON && defined(__ARM_BIG_ENDIAN)
#error "uparquet: UPQ_WITH_NEON=1: the NEON kernels are written for little-endian AArch64 and ARMv7-A"
#endif

#endif
