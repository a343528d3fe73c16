/*
 * mbedtls configuration for uparquet's modular encryption: the AES block
 * cipher and nothing else. GCM and CTR are built on it in codecs/upq_aes.c,
 * because mbedtls's GCM sets its key through the cipher layer, which
 * allocates an AES context on the heap; mbedtls_aes_context itself is a plain
 * struct that lives in the caller's arena.
 *
 * Selected with -DMBEDTLS_CONFIG_FILE='"upq_mbedtls_config.h"' both when
 * mbedtls is built and when the crypto adapter includes mbedtls headers, so
 * both see the same context structures.
 *
 * No MBEDTLS_PLATFORM_* option, no file system, network, entropy or time:
 * nothing here needs an operating system, and nothing built allocates (the
 * calloc/free renames in upq_mbedtls_deps.h are never reached: `nm -u` on
 * the built objects shows no upq_mbedtls_calloc).
 */
#ifndef UPQ_MBEDTLS_CONFIG_H
#define UPQ_MBEDTLS_CONFIG_H

#define MBEDTLS_AES_C

/* Constant AES tables in flash: without this aes.c builds them at run time
 * into writable globals guarded by a static "done" flag. */
#define MBEDTLS_AES_ROM_TABLES
/* On microcontrollers one 1 KB table instead of four (slightly slower). */
#if defined(__ARM_ARCH_PROFILE) && (__ARM_ARCH_PROFILE == 'M')
#define MBEDTLS_AES_FEWER_TABLES
#endif

#define MBEDTLS_DEPRECATED_REMOVED

#include "mbedtls/check_config.h"

#endif
