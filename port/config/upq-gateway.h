/*
 * µparquet option set `gateway`.
 *
 * An edge gateway (Cortex-A, often aarch64 with NEON) reading files any
 * writer made: every codec package, encryption, bloom filters, Variant, CRCs,
 * error texts; the writer compiled out. Needs `make deps` (the packages).
 *
 * Pick it with -I<uparquet>/port/config -DUPQ_CONFIG_FILE='"upq-gateway.h"'
 * (port/uparquet.mk: UPQ_SET=gateway; port/cmake: -DUPQ_SET=gateway;
 * make: UPQ_SET=gateway).
 * It names only the options it sets otherwise than config.h; each is set
 * only when not defined already, so a -D on top of the set changes that one
 * option.
 */
#ifndef UPQ_SET_GATEWAY_H
#define UPQ_SET_GATEWAY_H

#define UPQ_SET_NAME "gateway"

#ifndef UPQ_WITH_WRITER
#define UPQ_WITH_WRITER 0
#endif
#ifndef UPQ_WITH_CHUNK_META
#define UPQ_WITH_CHUNK_META 0
#endif
#ifndef UPQ_CRC32_TABLE
#define UPQ_CRC32_TABLE 8
#endif

#include "upq_packages.h"

#endif
