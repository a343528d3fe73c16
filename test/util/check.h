/*
 * Result counting for test programs.
 *
 * Every TU_CHECK* is one counted check: a failure prints a `FAIL file:line:`
 * line with the values involved, a success prints nothing. tu_case() names a
 * group of checks and prints `ok NAME` or `FAIL NAME` when the group ends, so
 * the output reads as one line per case. tu_summary() prints the closing
 * `N passed, N failed` line (checks, not cases) and returns the exit status.
 *
 *     int main(void) {
 *         tu_case("varint round trip");
 *         TU_CHECK_INT(decode(buf), 300);
 *         return tu_summary();
 *     }
 */
#ifndef UPQ_TEST_CHECK_H
#define UPQ_TEST_CHECK_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#define TU_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define TU_PRINTF(a, b)
#endif

/* Counts one check; prints `FAIL file:line: <message>` when !ok. Returns ok. */
int tu_check(int ok, const char *file, int line, const char *fmt, ...) TU_PRINTF(4, 5);
int tu_check_int(long long got, long long want, const char *file, int line, const char *got_expr,
                 const char *want_expr);
int tu_check_uint(unsigned long long got, unsigned long long want, const char *file, int line,
                  const char *got_expr, const char *want_expr);
/* Status codes are shown with their names (upq_strerror). */
int tu_check_status(int got, int want, const char *file, int line, const char *got_expr);
/* Shows the first differing byte offset and a few bytes around it. */
int tu_check_mem(const void *got, const void *want, size_t n, const char *file, int line,
                 const char *got_expr, const char *want_expr);

/* The tests' random numbers: xorshift64 on *state (never 0), the same
 * sequence on every platform, so a failure repeats. */
static inline uint64_t tu_xorshift(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

#define TU_CHECK(cond) tu_check(!!(cond), __FILE__, __LINE__, "%s", #cond)
#define TU_CHECK_MSG(cond, ...) tu_check(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define TU_CHECK_INT(got, want) \
    tu_check_int((long long)(got), (long long)(want), __FILE__, __LINE__, #got, #want)
#define TU_CHECK_UINT(got, want)                                                             \
    tu_check_uint((unsigned long long)(got), (unsigned long long)(want), __FILE__, __LINE__, \
                  #got, #want)
#define TU_CHECK_STATUS(got, want) tu_check_status((int)(got), (int)(want), __FILE__, __LINE__, #got)
#define TU_CHECK_MEM(got, want, n) tu_check_mem((got), (want), (n), __FILE__, __LINE__, #got, #want)

/* Ends the previous case (printing its line) and starts a new one. The name is
 * copied. */
void tu_case(const char *fmt, ...) TU_PRINTF(1, 2);

/* Prints a free-form note line (`# ...`), e.g. the seed or a file name. */
void tu_note(const char *fmt, ...) TU_PRINTF(1, 2);

/* Checks counted so far. */
unsigned long tu_passed(void);
unsigned long tu_failed(void);

/*
 * Repetitions under emulation. $UPQ_TEST_REPEAT=N (N > 1; the qemu-user
 * stages set it) thins the repeated reads of a program (other chunkings,
 * skips, cuts) to about one in N: tu_repeat_keep() says whether the next one
 * runs, rotating so every variant still runs on some of the inputs. The first
 * read of every input and all of its checks always run. Unset or 1: all.
 */
unsigned tu_repeat(void);
int tu_repeat_keep(void);

/* Ends the current case, prints `N passed, N failed` and returns the exit
 * status for main(): 0 when nothing failed and at least one check ran. */
int tu_summary(void);

#endif
