/*
 * µparquet — read and write Apache Parquet with no libc, no malloc and no
 * blocking. This header includes the whole public API.
 */
#ifndef UPARQUET_H
#define UPARQUET_H

#define UPQ_VERSION_MAJOR 0
#define UPQ_VERSION_MINOR 1
#define UPQ_VERSION_PATCH 0
#define UPQ_VERSION_STRING "0.1.0"

#include "config.h"         /* the build's options (UPQ_WITH_*) */
#include "status.h"         /* upq_status, upq_strerror */
#include "types.h"          /* upq_bytes, lists, upq_int96 */
#include "checksum.h"       /* CRC-32 */
#include "arena.h"          /* the caller's memory */
#include "meta.h"           /* the parquet.thrift model: footer, pages, types */
#include "schema.h"         /* the schema tree and leaf columns */
#include "crypto.h"         /* keys of encrypted files */
#include "reader.h"         /* opening a file: upq_io, upq_reader */
#include "column.h"         /* a column chunk in batches */
#include "record.h"         /* rows: events, binding into structs */
#include "stats.h"          /* statistics as typed values */
#include "page_index.h"     /* ColumnIndex and OffsetIndex */
#include "bloom.h"          /* bloom filters */
#include "predicate.h"      /* predicates and the scan */
#include "schema_builder.h" /* a schema to write */
#include "writer.h"         /* writing, checkpoint mode, resume */
#include "recover.h"        /* finishing a cut checkpoint-mode file */
#include "variant.h"        /* Variant values */

#endif
