/*
 * Files for tests: whole-file reads and writes, and the parquet-testing
 * corpus, read in place from PARQUET_TESTING_DIR (never copied).
 */
#ifndef UPQ_TEST_FILES_H
#define UPQ_TEST_FILES_H

#include <stddef.h>
#include <stdint.h>

/* Reads the whole file into memory from malloc (the caller frees *data; one
 * spare NUL byte follows the data so text can be used as a C string).
 * Returns 0, or -1 with errno set. */
int tu_read_file(const char *path, uint8_t **data, size_t *len);

/* Creates or replaces `path` with data[0..len). Returns 0, or -1. */
int tu_write_file(const char *path, const void *data, size_t len);

/* The corpus root: $PARQUET_TESTING_DIR, else ../shared/parquet-testing
 * (relative to the working directory, which is the repository root when
 * make runs the tests). Static string. */
const char *tu_corpus_dir(void);

/* A sorted list of paths (each from malloc, like the array). */
typedef struct tu_file_list {
    char **paths;
    size_t n;
} tu_file_list;

/* Lists the regular files under `dir`, recursively, whose names end with
 * `suffix` (NULL or "": every file), sorted by path. Paths start with `dir`.
 * Returns 0, or -1 when `dir` cannot be read. Free with tu_file_list_free. */
int tu_list_files(const char *dir, const char *suffix, tu_file_list *out);
void tu_file_list_free(tu_file_list *l);

/* Flags for tu_list_corpus. */
#define TU_CORPUS_SKIP_PARE 0x1u /* drop files whose footer is encrypted ("PARE") */

/* Every *.parquet file under <corpus>/<subdir> ("data", "bad_data",
 * "shredded_variant", or "" for all), recursively and sorted. Files named
 * *.parquet.encrypted are never listed (their suffix differs). */
int tu_list_corpus(const char *subdir, unsigned flags, tu_file_list *out);

/* Calls fn(path) for every file tu_list_corpus(subdir, flags) lists, for each
 * of the `n` subdirectories; a subdirectory that cannot be read is a failed
 * check. */
void tu_for_each_corpus_file(const char *const *subdirs, size_t n, unsigned flags,
                             void (*fn)(const char *path));

/* 1 when the last four bytes of the file are "PARE" (encrypted footer), 0
 * otherwise (also when it cannot be read). */
int tu_file_has_encrypted_footer(const char *path);

/* The part of `path` after the last '/'. */
const char *tu_basename(const char *path);

#endif
