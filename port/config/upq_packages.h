/*
 * Every codec package and encryption (everything and gateway include it
 * after their own options): what `make deps` fetches, all compiled in.
 * Each is set only when not defined already, as in a set.
 */
#ifndef UPQ_SET_PACKAGES_H
#define UPQ_SET_PACKAGES_H

#ifndef UPQ_WITH_LZ4
#define UPQ_WITH_LZ4 1
#endif
#ifndef UPQ_WITH_ZSTD
#define UPQ_WITH_ZSTD 1
#endif
#ifndef UPQ_WITH_GZIP
#define UPQ_WITH_GZIP 1
#endif
#ifndef UPQ_WITH_LIBDEFLATE
#define UPQ_WITH_LIBDEFLATE 1
#endif
#ifndef UPQ_WITH_BROTLI
#define UPQ_WITH_BROTLI 1
#endif
#ifndef UPQ_WITH_CRYPTO
#define UPQ_WITH_CRYPTO 1
#endif

#endif
