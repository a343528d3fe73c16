/*
 * Encryption throughput: AES-GCM (authenticate + decrypt, as the reader does
 * for a page) and AES-CTR over 1 MiB buffers, for 128- and 256-bit keys,
 * through the adapter (codecs/upq_aes.c) and the module framing
 * (upq_crypto_decrypt_module). Prints MB/s per case.
 *
 *   bench_crypto [SECONDS]
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "uparquet/uparquet.h"
#include "upq_aes.h"

#define BUF (1u << 20)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); /* CPU time: other load on the machine does not count */
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    static uint8_t keymem[1024] __attribute__((aligned(16)));
    static uint8_t plain[BUF], mod[BUF + 64], work[BUF + 64];
    upq_aes_key *k = (upq_aes_key *)keymem;
    double secs = argc > 1 ? atof(argv[1]) : 0.5;
    const uint8_t key[32] = "0123456789abcdef0123456789abcdef";
    uint8_t nonce[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    upq_file_crypto fc;
    size_t kl, n, i;
    int algo;
#if !UPQ_WITH_CRYPTO
    puts("bench_crypto: no crypto in this build (make deps)");
    return 0;
#endif
    for (i = 0; i < BUF; i++)
        plain[i] = (uint8_t)(i * 31u);
    memset(&fc, 0, sizeof fc);
    fc.aad_file_unique.ptr = (const uint8_t *)"12345678";
    fc.aad_file_unique.len = 8;
    for (kl = 16; kl <= 32; kl += 16)
        for (algo = UPQ_CRYPTO_AES_GCM_V1; algo <= UPQ_CRYPTO_AES_GCM_CTR_V1; algo++) {
            double t0, t;
            unsigned long iters = 0;
            uint8_t *pt;
            size_t pl;
            fc.algorithm = (uint8_t)algo;
            upq_aes_setkey(k, key, kl);
            upq_crypto_encrypt_module(&fc, k, UPQ_MODULE_DATA_PAGE, 0, 0, 0, nonce, plain, BUF, mod,
                                      sizeof mod, &n);
            t0 = now();
            do {
                memcpy(work, mod, n);
                if (upq_crypto_decrypt_module(&fc, k, UPQ_MODULE_DATA_PAGE, 0, 0, 0, work, n, &pt, &pl) !=
                        UPQ_OK ||
                    pl != BUF) {
                    puts("bench_crypto: decryption failed");
                    return 1;
                }
                iters++;
                t = now() - t0;
            } while (t < secs);
            printf("  AES-%u %-7s page decrypt%s  %8.1f MB/s\n", (unsigned)kl * 8,
                   algo == UPQ_CRYPTO_AES_GCM_V1 ? "GCM" : "CTR",
                   algo == UPQ_CRYPTO_AES_GCM_V1 ? " (tag checked)" : "              ",
                   (double)iters * BUF / t / 1e6);
        }
    return 0;
}
