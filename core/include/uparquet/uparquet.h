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

#include "config.h"
#include "status.h"
#include "arena.h"
#include "thrift.h"
#include "meta.h"
#include "schema.h"
#include "reader.h"
#include "stats.h"
#include "record.h"
#include "writer.h"
#include "encode.h"
#include "bloom.h"
#include "page_index.h"
#include "predicate.h"
#include "variant.h"

#endif
