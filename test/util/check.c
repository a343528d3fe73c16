/* Result counting for test programs (see check.h). */
#include "util/check.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uparquet/status.h"

static unsigned long n_passed, n_failed;
static char case_name[256];
static int case_open;
static unsigned long case_failed_at_start;

int tu_check(int ok, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    if (ok) {
        n_passed++;
        return 1;
    }
    n_failed++;
    printf("FAIL %s:%d: ", file, line);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    if (case_open)
        printf(" [%s]", case_name);
    printf("\n");
    fflush(stdout);
    return 0;
}

int tu_check_int(long long got, long long want, const char *file, int line, const char *got_expr,
                 const char *want_expr)
{
    return tu_check(got == want, file, line, "%s == %s: got %lld, want %lld", got_expr, want_expr,
                    got, want);
}

int tu_check_uint(unsigned long long got, unsigned long long want, const char *file, int line,
                  const char *got_expr, const char *want_expr)
{
    return tu_check(got == want, file, line, "%s == %s: got %llu, want %llu", got_expr, want_expr,
                    got, want);
}

int tu_check_status(int got, int want, const char *file, int line, const char *got_expr)
{
    return tu_check(got == want, file, line, "%s: got %d (%s), want %d (%s)", got_expr, got,
                    upq_strerror(got), want, upq_strerror(want));
}

int tu_check_mem(const void *got, const void *want, size_t n, const char *file, int line,
                 const char *got_expr, const char *want_expr)
{
    const unsigned char *g = (const unsigned char *)got, *w = (const unsigned char *)want;
    size_t i, lo, hi;
    char gs[64], ws[64];
    size_t gl = 0, wl = 0;

    if (n == 0 || memcmp(got, want, n) == 0)
        return tu_check(1, file, line, "%s", "");
    for (i = 0; i < n && g[i] == w[i]; i++)
        ;
    lo = i >= 4 ? i - 4 : 0;
    hi = i + 8 < n ? i + 8 : n;
    for (; lo < hi && gl + 4 < sizeof gs; lo++) {
        gl += (size_t)snprintf(gs + gl, sizeof gs - gl, "%02x ", g[lo]);
        wl += (size_t)snprintf(ws + wl, sizeof ws - wl, "%02x ", w[lo]);
    }
    return tu_check(0, file, line, "%s == %s (%zu bytes): first difference at %zu: got [%s] want [%s]",
                    got_expr, want_expr, n, i, gs, ws);
}

static void end_case(void)
{
    if (!case_open)
        return;
    printf("%s %s\n", n_failed == case_failed_at_start ? "ok" : "FAIL", case_name);
    fflush(stdout);
    case_open = 0;
}

void tu_case(const char *fmt, ...)
{
    va_list ap;
    end_case();
    va_start(ap, fmt);
    vsnprintf(case_name, sizeof case_name, fmt, ap);
    va_end(ap);
    case_open = 1;
    case_failed_at_start = n_failed;
}

void tu_note(const char *fmt, ...)
{
    va_list ap;
    printf("# ");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

unsigned long tu_passed(void)
{
    return n_passed;
}

unsigned long tu_failed(void)
{
    return n_failed;
}

int tu_summary(void)
{
    end_case();
    printf("%lu passed, %lu failed\n", n_passed, n_failed);
    fflush(stdout);
    return (n_failed == 0 && n_passed > 0) ? 0 : 1;
}

unsigned tu_repeat(void)
{
    static unsigned n;
    if (n == 0) {
        const char *e = getenv("UPQ_TEST_REPEAT");
        long v = e && *e ? strtol(e, NULL, 10) : 1;
        n = v > 1 && v < 1000000 ? (unsigned)v : 1u;
        if (n > 1)
            printf("# UPQ_TEST_REPEAT=%u: about one in %u repeated reads runs\n", n, n);
    }
    return n;
}

int tu_repeat_keep(void)
{
    static unsigned long k;
    return k++ % tu_repeat() == 0;
}
