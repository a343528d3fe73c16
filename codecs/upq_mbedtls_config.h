/*
 * mbedtls configuration for uparquet's modular encryption: AES-GCM for
 * footers and pages, AES-CTR for the GCM_CTR algorithm, nothing else.
 *
 * Selected with -DMBEDTLS_CONFIG_FILE='"upq_mbedtls_config.h"' both when
 * mbedtls is built and when the crypto adapter includes mbedtls headers, so
 * both see the same context structures.
 *
 * No MBEDTLS_PLATFORM_* option, no file system, network, entropy or time:
 * nothing here needs an operating system. The libc functions the sources
 * still call are renamed for the package build by upq_mbedtls_deps.h:
 * memcpy/memset/memcmp/memmove become the upq_ port functions, strcmp a
 * local loop, and calloc/free become upq_mbedtls_calloc/upq_mbedtls_free,
 * which the crypto adapter defines (prototypes below). Only
 * mbedtls_cipher_setup, reached from mbedtls_gcm_setkey, allocates: one
 * mbedtls_aes_context per key.
 *
 * Package state to know about: cipher_wrap.c keeps a writable
 * mbedtls_cipher_supported[] list, filled only by mbedtls_cipher_list(),
 * which uparquet never calls.
 */
#ifndef UPQ_MBEDTLS_CONFIG_H
#define UPQ_MBEDTLS_CONFIG_H

#define MBEDTLS_AES_C
#define MBEDTLS_GCM_C
#define MBEDTLS_CIPHER_C
#define MBEDTLS_CIPHER_MODE_CTR

/* Constant AES tables in flash: without this aes.c builds them at run time
 * into writable globals guarded by a static "done" flag. */
#define MBEDTLS_AES_ROM_TABLES
/* On microcontrollers one 1 KB table instead of four (slightly slower). */
#if defined(__ARM_ARCH_PROFILE) && (__ARM_ARCH_PROFILE == 'M')
#define MBEDTLS_AES_FEWER_TABLES
#endif

#define MBEDTLS_DEPRECATED_REMOVED

/* Defined by the crypto adapter: mbedtls's calloc and free. */
#include <stddef.h>
void *upq_mbedtls_calloc(size_t n, size_t size);
void upq_mbedtls_free(void *p);

#include "mbedtls/check_config.h"

#endif
