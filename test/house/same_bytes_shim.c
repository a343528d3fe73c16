/*
 * Preloaded (LD_PRELOAD) under the host tools by test/house/same_bytes.sh,
 * so that two builds can be compared byte for byte. A test aid only: never
 * link it into anything.
 *
 * getrandom(): the same bytes in every process, so that encrypted files
 * (nonces, aad_file_unique) come out the same.
 *
 * pwrite(): with SAME_BYTES_CUT=N in the environment, the process dies
 * (exit status 9) once N bytes were written at offsets, the write that
 * crosses N torn at it: a power cut in the middle of a checkpoint-mode log,
 * whose every earlier write is in the file. With SAME_BYTES_TOTAL=FILE,
 * the bytes written at offsets are added to FILE at exit, for choosing
 * where to cut.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

ssize_t getrandom(void *buf, size_t len, unsigned int flags);
ssize_t pwrite(int fd, const void *buf, size_t len, off_t off);
ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off);

static uint64_t state = 0x2545f4914f6cdd1dull;

ssize_t getrandom(void *buf, size_t len, unsigned int flags)
{
    uint8_t *p = (uint8_t *)buf;
    size_t i;
    (void)flags;
    for (i = 0; i < len; i++) {
        /* xorshift64*: a fixed sequence from a fixed state */
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        p[i] = (uint8_t)((state * 0x2545f4914f6cdd1dull) >> 56);
    }
    return (ssize_t)len;
}

typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);
static uint64_t written;

static ssize_t cut_pwrite(const char *name, int fd, const void *buf, size_t len, off_t off)
{
    static pwrite_fn real;
    const char *cut = getenv("SAME_BYTES_CUT");
    if (!real)
        real = (pwrite_fn)(uintptr_t)dlsym(RTLD_NEXT, name);
    if (cut && *cut) {
        uint64_t at = strtoull(cut, (char **)0, 10);
        if (written + len >= at) {
            if (at > written)
                (void)real(fd, buf, (size_t)(at - written), off);
            _exit(9);
        }
    }
    written += len;
    return real(fd, buf, len, off);
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
    return cut_pwrite("pwrite", fd, buf, len, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off)
{
    return cut_pwrite("pwrite64", fd, buf, len, off);
}

__attribute__((destructor)) static void total_at_exit(void)
{
    const char *path = getenv("SAME_BYTES_TOTAL");
    FILE *f;
    if (!path || !*path || !(f = fopen(path, "w")))
        return;
    fprintf(f, "%llu\n", (unsigned long long)written);
    fclose(f);
}
