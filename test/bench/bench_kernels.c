/*
 * Kernel throughput: each inner loop the library selects (UPQ_K, port/
 * upq_simd.h) against its scalar twin on the same in-memory input, and
 * whether both gave the same output.
 *
 *   bench_kernels [SECONDS_PER_KERNEL]
 *
 * Figures from a build run under qemu-user (make bench-aarch64) show that
 * both sides agree, not how fast a real core is: emulation speed has little
 * to do with the hardware's. On a scalar build both columns run the same
 * code.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "upq_simd.h"
#include "common/crc32.h"

#define N 4096

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); /* CPU time: other load on the machine does not count */
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint8_t in[N * 16 + 64], out_a[N * 16 + 64], out_b[N * 16 + 64];
static uint32_t u32a[N], u32b[N], idx[N], dict32[256];
static uint64_t u64a[N], u64b[N];
static double secs = 0.2;
static int differ, runs;

typedef void (*bench_fn)(int which);

/* Runs fn(0) (scalar) and fn(1) (selected) for `secs` each; prints M
 * values per second (n values a call) and compares the outputs. */
static void run(const char *name, bench_fn fn, size_t n, const void *a, const void *b, size_t bytes)
{
    double rate[2];
    int w, same;
    for (w = 0; w < 2; w++) {
        long calls = 0;
        double t0 = now(), t;
        do {
            for (int k = 0; k < 16; k++)
                fn(w);
            calls += 16;
            t = now() - t0;
        } while (t < secs);
        rate[w] = (double)calls * (double)n / t / 1e6;
    }
    same = memcmp(a, b, bytes) == 0;
    differ += !same;
    runs++;
    printf("  %-28s scalar %9.1f  selected %9.1f  Mvalues/s  %s\n", name, rate[0], rate[1],
           same ? "same output" : "OUTPUT DIFFERS");
}

static unsigned g_bw = 13;
static void b_unpack(int w)
{
    (w ? UPQ_K(unpack32) : upq_unpack32)(in, 0, w ? u32b : u32a, g_bw, N);
}
static void b_unpack64(int w)
{
    (w ? UPQ_K(unpack64) : upq_unpack64)(in, 0, w ? u64b : u64a, 45, N / 2);
}
static void b_delta(int w)
{
    (w ? UPQ_K(delta_sum32) : upq_delta_sum32)(w ? u32b : u32a, idx, N, 7, 1);
}
static void b_bss4(int w)
{
    (w ? UPQ_K(bss_gather) : upq_bss_gather)(in, N, 4, N, w ? out_b : out_a);
}
static void b_bss8(int w)
{
    (w ? UPQ_K(bss_gather) : upq_bss_gather)(in, N, 8, N, w ? out_b : out_a);
}
static void b_gather(int w)
{
    (w ? UPQ_K(gather_u32) : upq_gather_u32)(w ? u32b : u32a, dict32, idx, N);
}
static void b_fill(int w)
{
    (w ? UPQ_K(fill_u32) : upq_fill_u32)(w ? u32b : u32a, 0xA5A5u, N);
}
static void b_minmax(int w)
{
    upq_minmax32 r;
    (w ? UPQ_K(minmax_i32) : upq_minmax_i32)((const int32_t *)(const void *)idx, N, &r);
    memcpy(w ? u32b : u32a, &r, sizeof r);
}
/* the selected CRC is the kernel a reader or writer context picks for this
 * CPU (x86-64: asked once, held as they hold it) */
static uint8_t crc_kernel;
static void b_crc(int w)
{
    uint32_t c = w ? upq_crc32_update_with(&crc_kernel, 0, in, N * 4)
                   : upq_crc32_update_scalar(0, in, N * 4);
    memcpy(w ? u32b : u32a, &c, 4);
}

int main(int argc, char **argv)
{
    size_t i;
    if (argc > 1)
        secs = atof(argv[1]);
    srand(1);
    for (i = 0; i < sizeof in; i++)
        in[i] = (uint8_t)rand();
    for (i = 0; i < N; i++)
        idx[i] = (uint32_t)rand() % 256u;
    for (i = 0; i < 256; i++)
        dict32[i] = (uint32_t)rand();
    printf("== kernels: scalar twin vs the build's selection (%s), %.2f s each\n",
           UPQ_WITH_NEON ? "NEON" : "scalar", secs);
    for (g_bw = 1; g_bw <= 32; g_bw += g_bw < 8 ? 3 : 8) {
        char name[40];
        snprintf(name, sizeof name, "unpack32 bw %u", g_bw);
        run(name, b_unpack, N, u32a, u32b, sizeof u32a);
    }
    run("unpack64 bw 45", b_unpack64, N / 2, u64a, u64b, N / 2 * 8);
    run("delta_sum32", b_delta, N, u32a, u32b, sizeof u32a);
    run("bss_gather width 4", b_bss4, N, out_a, out_b, N * 4);
    run("bss_gather width 8", b_bss8, N, out_a, out_b, N * 8);
    run("gather_u32", b_gather, N, u32a, u32b, sizeof u32a);
    run("fill_u32", b_fill, N, u32a, u32b, sizeof u32a);
    run("minmax_i32", b_minmax, N, u32a, u32b, sizeof(upq_minmax32));
    run("crc32 (values = bytes / 4)", b_crc, N, u32a, u32b, 4);
    printf("%d passed, %d failed\n", runs - differ, differ);
    return differ != 0;
}
