# Tests: included by the top-level Makefile (after codecs.mk and examples.mk).
#
#   make check        every stage below, then one summary and a grand total;
#                     keeps going through failures and fails at the end
#   make test         unit + corpus programs, host build only (quick)
#   make check-asan   the same programs, library and tests built with
#                     AddressSanitizer + UndefinedBehaviorSanitizer
#   make check-interop  `upq meta --json` against DuckDB on the corpus, other
#                     writers' files, `upq cat --rows` (page index seeks)
#   make check-conformance  `upq cat --json` values against DuckDB (arrow-rs
#                     for the listed exceptions) on the corpus
#   make check-chunking  after conformance: `upq cat --json` with 1-byte +
#                     "again" and 13-byte reads gives byte-identical output
#   make check-write  after conformance: `upq write` parses every corpus
#                     schema back, round-trips the files that passed
#                     (cat -> write -> cat is the identity; DuckDB reads the
#                     copy as the original; arrow-rs and hyparquet too for
#                     the checkpoint-mode copy), refuses bad input; and the
#                     sensor logger's file reads the same in DuckDB,
#                     arrow-rs and hyparquet
#   make check-write-matrix  `upq write` over every type x encoding x codec
#                     x page version x nesting and the edge cases, read back
#                     by upq, DuckDB and arrow-rs (and hyparquet in checkpoint
#                     mode: cut copies recovered, --append); statistics and
#                     page index; then random schemas/rows/options
#                     (write_random.mjs); column-chunk metadata asked for
#                     (column_meta.mjs: --column-kv, --column-order ieee754
#                     and geospatial statistics read back by DuckDB and arrow-rs)
#   make check-write-hostile  `upq write` on hostile input (a --shred spec
#                     10,000 deep, 50M list entries on one line, deep
#                     nesting, every schema it must refuse, a 100 MB value,
#                     100,000 one-row row groups with checkpoints): exit
#                     status, message, no output left, peak RSS under 256 MB
#                     (/usr/bin/time), and the ASan + UBSan build of upq
#                     without a report
#   make check-bloom  bloom filters `upq write --bloom` makes, and DuckDB's,
#                     asked through `upq bloom` and DuckDB's parquet_bloom_probe:
#                     the same answer for every value and row group
#   make check-powerloss  power cut at every write call and byte of logging
#                     runs in checkpoint mode, recovered and read back; sensor
#                     logs cut at many offsets, `upq recover`ed: a prefix of
#                     the rows; DuckDB, arrow-rs and hyparquet read a sample
#   make check-variant  Variant JSON against data_dictionary.json; Variant
#                     files both ways between upq and DuckDB
#   make check-integration  the library as outside projects use it: make
#                     install + pkg-config, a conflicting UPQ_* option refused,
#                     CMake find_package and add_subdirectory, a Cortex-M4
#                     project through port/uparquet.mk under qemu, cross
#                     installs (test/integration/integration.mk)
#   make check-fuzz   the fuzz targets for FUZZ_CHECK_TIME seconds each
#                     (fuzz_variant: at most FUZZ_CHECK_CAP.variant, 30)
#   make fuzz         the fuzz targets for FUZZ_TIME seconds each
#   make interop-deps install the pinned DuckDB client, parquet-wasm and
#                     apache-arrow (npm ci, once)
#
# Test programs: test/unit/*.c, test/corpus/*.c and test/powerloss/*.c, each
# a standalone program with its own main() ending with a `N passed, N failed`
# line, linked with test/util/*.c, the port/adapters/posix adapters and the library. A
# program that does not compile is reported as a failure while the others
# still run.
#
# Stages record their outcome in $(CHECK_DIR)/<stage>.res; the report at the
# end reads them. Other areas add their own check targets (each run once,
# counted as one pass or one failure) with
#     CHECK_EXTRA_TARGETS += their-target
# anywhere in the makefiles: the list is read when the stage runs.

CHECK_EXTRA_TARGETS ?=

TEST_TIMEOUT ?= 600
ASAN_TEST_TIMEOUT ?= 1200
FUZZ_CHECK_TIME ?= 20
FUZZ_TIME ?= 600
TEST_LDLIBS ?= -lm
# The library and the codec packages (CODEC_LIBS, from codecs.mk) refer to
# each other, so they are linked as a group.
TEST_LIBS = -Wl,--start-group $(1) $(CODEC_LIBS) -Wl,--end-group $(TEST_LDLIBS) $(LDLIBS)

CHECK_DIR := $(BUILD)/check
TEST_PROG_SRC := $(sort $(wildcard test/unit/*.c)) $(sort $(wildcard test/corpus/*.c)) \
                 $(sort $(wildcard test/powerloss/*.c))
TEST_UTIL_SRC := $(sort $(wildcard test/util/*.c))

# ---- host build ----------------------------------------------------------

HOST_TEST_OBJ := $(patsubst %.c,$(HOST)/%.o,$(TEST_PROG_SRC))
HOST_TEST_BINS := $(patsubst %.c,$(HOST)/%,$(TEST_PROG_SRC))
HOST_TEST_UTIL_OBJ := $(patsubst %.c,$(HOST)/%.o,$(TEST_UTIL_SRC))

# A program's object removes the old binary first, so a test that no longer
# compiles shows up as "not built" instead of running stale.
$(HOST_TEST_OBJ): $(HOST)/%.o: %.c
	@mkdir -p $(dir $@)
	@rm -f $(@:.o=)
	$(CC) $(TEST_CFLAGS) -MMD -MP -c $< -o $@

$(HOST_TEST_BINS): $(HOST)/%: $(HOST)/%.o $(HOST_TEST_UTIL_OBJ) $(POSIX_OBJ) $(LIB) $(CODEC_LIBS)
	@rm -f $@
	$(CC) $(TEST_CFLAGS) -o $@ $(filter %.o,$^) $(call TEST_LIBS,$(LIB))

.PHONY: test test-bins check-unit stage-unit
test-bins: $(HOST_TEST_BINS)

# -k: one broken test must not keep the others from being built and run.
# Everything the sub-make shares with other stages (library, codec
# packages) is a prerequisite here, so parallel stages never build the same
# file twice.
stage-unit: $(LIB) $(CODEC_LIBS) $(POSIX_OBJ) $(HOST_TEST_UTIL_OBJ)
	@rm -f $(CHECK_DIR)/unit.res
	@$(MAKE) --no-print-directory -k test-bins || true
	@bash test/run_tests.sh --label unit --logdir $(CHECK_DIR)/unit-logs \
	    --result $(CHECK_DIR)/unit.res --timeout $(TEST_TIMEOUT) -- $(HOST_TEST_BINS) || true

test check-unit: stage-unit
	@bash test/check_report.sh $(CHECK_DIR) unit

# ---- sanitizer build -------------------------------------------------------

ASAN := $(BUILD)/asan
ifeq ($(origin ASAN_CC),undefined)
ASAN_CC := $(if $(shell command -v clang 2>/dev/null),clang,$(CC))
endif
# -Os: the size-optimised paths a firmware build takes (encode_rle.c,
# encode.h, kernels.c choose them by __OPTIMIZE_SIZE__) run under the
# sanitizers here, the -O2 ones in the plain build.
ASAN_OPT ?= -Os -g
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
ASAN_EXTRA_CFLAGS ?=
ASAN_LIB_CFLAGS = -std=c99 $(ASAN_OPT) $(WARN_LIB) -ffreestanding -fno-builtin $(HOST_ISA) $(INCLUDES) \
                  $(CODEC_DEFS) $(EXTRA_CFLAGS) $(ASAN_EXTRA_CFLAGS) $(SAN_FLAGS)
ASAN_TEST_CFLAGS = -std=c99 $(ASAN_OPT) $(WARN_TEST) $(INCLUDES) -Itest $(CODEC_DEFS) \
                   $(EXTRA_CFLAGS) $(ASAN_EXTRA_CFLAGS) $(SAN_FLAGS)
# halt on the first report; leaks are reports too
ASAN_ENV := ASAN_OPTIONS=halt_on_error=1:abort_on_error=0:detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1 \
            UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
            UPQ_TEST_QUICK=1

# Library objects mirror the host ones: our own sources get the library
# warnings, anything else a codec adapter pulls in (package sources) not.
ASAN_LIB_ALL := $(patsubst $(HOST)/%,$(ASAN)/%,$(LIB_OBJ))
ASAN_LIB_OWN := $(filter $(ASAN)/core/% $(ASAN)/port/% $(ASAN)/codecs/upq_%,$(ASAN_LIB_ALL))
ASAN_LIB_OTHER := $(filter-out $(ASAN_LIB_OWN),$(ASAN_LIB_ALL))
ASAN_LIB := $(ASAN)/libuparquet.a
ASAN_POSIX_OBJ := $(patsubst $(HOST)/%,$(ASAN)/%,$(POSIX_OBJ))
ASAN_TEST_UTIL_OBJ := $(patsubst $(HOST)/%,$(ASAN)/%,$(HOST_TEST_UTIL_OBJ))
ASAN_TEST_OBJ := $(patsubst $(HOST)/%,$(ASAN)/%,$(HOST_TEST_OBJ))
ASAN_TEST_BINS := $(patsubst $(HOST)/%,$(ASAN)/%,$(HOST_TEST_BINS))

$(ASAN_LIB_OWN): $(ASAN)/%.o: %.c
	@mkdir -p $(dir $@)
	$(ASAN_CC) $(ASAN_LIB_CFLAGS) -MMD -MP -c $< -o $@

$(ASAN_LIB_OTHER) $(ASAN_POSIX_OBJ) $(ASAN_TEST_UTIL_OBJ): $(ASAN)/%.o: %.c
	@mkdir -p $(dir $@)
	$(ASAN_CC) $(ASAN_TEST_CFLAGS) -MMD -MP -c $< -o $@

$(ASAN_TEST_OBJ): $(ASAN)/%.o: %.c
	@mkdir -p $(dir $@)
	@rm -f $(@:.o=)
	$(ASAN_CC) $(ASAN_TEST_CFLAGS) -MMD -MP -c $< -o $@

# rebuilt when a codec package arrives (its option changes the sources)
$(ASAN_LIB_ALL): $(DEPS_STAMPS)

$(ASAN_LIB): $(ASAN_LIB_ALL)
	@mkdir -p $(dir $@)
	@rm -f $@
	$(AR) rcs $@ $^

# The codec packages are linked as built for the host (not instrumented).
$(ASAN_TEST_BINS): $(ASAN)/%: $(ASAN)/%.o $(ASAN_TEST_UTIL_OBJ) $(ASAN_POSIX_OBJ) $(ASAN_LIB) $(CODEC_LIBS)
	@rm -f $@
	$(ASAN_CC) $(ASAN_TEST_CFLAGS) -o $@ $(filter %.o,$^) $(call TEST_LIBS,$(ASAN_LIB))

.PHONY: asan-lib asan-test-bins check-asan stage-asan
asan-lib: $(ASAN_LIB)
asan-test-bins: $(ASAN_TEST_BINS)

stage-asan: $(ASAN_LIB) $(CODEC_LIBS) $(ASAN_POSIX_OBJ) $(ASAN_TEST_UTIL_OBJ)
	@rm -f $(CHECK_DIR)/asan.res
	@$(MAKE) --no-print-directory -k asan-test-bins || true
	@$(ASAN_ENV) bash test/run_tests.sh --label asan --logdir $(CHECK_DIR)/asan-logs \
	    --result $(CHECK_DIR)/asan.res --timeout $(ASAN_TEST_TIMEOUT) -- $(ASAN_TEST_BINS) || true

check-asan: stage-asan
	@bash test/check_report.sh $(CHECK_DIR) asan

# ---- interop: DuckDB as the oracle ----------------------------------------

INTEROP_DIR := test/interop
INTEROP_STAMP := $(INTEROP_DIR)/node_modules/.package-lock.json
NODE ?= node
NPM ?= npm

# Installed only when the lock file changed since the last install, so
# offline re-runs never go to the registry (test/interop/install.sh: npm ci,
# or npm install --no-save of the same locked versions).
$(INTEROP_STAMP): $(INTEROP_DIR)/package.json $(INTEROP_DIR)/package-lock.json $(INTEROP_DIR)/install.sh
	@NPM=$(NPM) bash $(INTEROP_DIR)/install.sh
	@touch $@

.PHONY: interop-deps check-interop stage-interop
interop-deps: $(INTEROP_STAMP)

# upq is built when examples/ provides its rule; until then the script only
# shows DuckDB's side and the stage counts as skipped.
INTEROP_UPQ := $(if $(wildcard examples/examples.mk),$(UPQ))

# stats_vs_duckdb: the typed statistics upq reads against DuckDB's reading
# of them and against each row group's rows.
# meta_vs_duckdb: `upq meta` against DuckDB's metadata functions;
# meta_page_index: `upq meta --page-index` against hyparquet's reading of the
# same OffsetIndex / ColumnIndex, and a damaged index refused;
# other_writers: files other writers make in ways the corpus does not show
# (hyparquet-writer's all-null v2 pages), upq's values against DuckDB's and
# hyparquet's; rows_vs_duckdb: `upq cat --rows A:B` (OffsetIndex seeks) against
# DuckDB's rows A..B-1 on files of upq, arrow-rs, DuckDB and the corpus;
# where_prune_duckdb: `upq cat --where` through each way of pruning
# (statistics, bloom filters, page index, encrypted, none) against DuckDB;
# where_vs_duckdb: `upq cat --where` against DuckDB's SELECT ... WHERE (the
# query matrix: every type, nested projections, encrypted files, errors, and
# --io-stats showing that the page index prunes); where_io_bench: `make
# bench`'s selective-reading I/O figures on 20,000 rows, where the rows must
# equal DuckDB's and one row by position must cost <= 3 reads a column after
# the footer and its OffsetIndex (the 1% byte target needs the bench's size);
# where_random: random SQL conditions (every form SQL users write: literals
# on either side, BETWEEN, IN with NULL, LIKE, IS DISTINCT FROM, coerced
# literals) over files of upq write, DuckDB, arrow-rs and hyparquet-writer
# against DuckDB, each also in three fixed arenas, which answer the same or
# name the bytes they need (and answer in them); 150 queries a file, the
# seed printed (UPQ_TEST_SEED repeats it), about 50 s of CPU;
# gateway_reader: examples/gateway_reader's time range and device queries
# over non-blocking remote storage in a fixed arena against DuckDB.
INTEROP_GATEWAY := $(if $(wildcard examples/examples.mk),$(GATEWAY) $(SENSOR))
stage-interop: $(INTEROP_STAMP) $(INTEROP_UPQ) $(INTEROP_GATEWAY)
	@bash test/stage.sh $(CHECK_DIR)/interop.res interop -- \
	    bash test/sum_counts.sh \
	    '$(NODE) $(INTEROP_DIR)/stats_vs_duckdb.mjs --upq $(UPQ) --skip-without-upq --work $(CHECK_DIR)/stats' \
	    '$(NODE) $(INTEROP_DIR)/meta_vs_duckdb.mjs --upq $(UPQ) --skip-without-upq' \
	    '$(NODE) $(INTEROP_DIR)/meta_page_index.mjs --upq $(UPQ) --skip-without-upq --work $(CHECK_DIR)/meta-page-index' \
	    '$(NODE) $(INTEROP_DIR)/other_writers.mjs --upq $(UPQ) --skip-without-upq --work $(CHECK_DIR)/other-writers' \
	    '$(NODE) $(INTEROP_DIR)/rows_vs_duckdb.mjs --upq $(UPQ) --skip-without-upq --work $(CHECK_DIR)/rows' \
	    '$(NODE) $(INTEROP_DIR)/where_prune_duckdb.mjs --upq $(UPQ) --skip-without-upq --work $(CHECK_DIR)/where-prune' \
	    '$(NODE) $(INTEROP_DIR)/where_vs_duckdb.mjs --upq $(UPQ) --skip-without-upq --work $(CHECK_DIR)/where' \
	    '$(NODE) $(INTEROP_DIR)/where_io_bench.mjs --upq $(UPQ) --skip-without-upq --check --rows 20000 --work $(CHECK_DIR)/where-io' \
	    '$(NODE) $(INTEROP_DIR)/where_random.mjs --upq $(UPQ) --skip-without-upq --queries 150 --work $(CHECK_DIR)/where-random' \
	    '$(NODE) $(INTEROP_DIR)/gateway_reader.mjs --gateway $(GATEWAY) --sensor $(SENSOR) --skip-without-upq --work $(CHECK_DIR)/gateway'

check-interop: stage-interop
	@bash test/check_report.sh $(CHECK_DIR) interop

# ---- conformance: `upq cat --json` values against DuckDB / arrow-rs --------

# The files that passed conformance, for the chunking stage.
CONFORMANCE_PASS := $(CHECK_DIR)/conformance.pass
# check-chunking's 1-byte run skips files larger than this (bytes); empty:
# every file. The 13-byte run always covers every file.
CHUNKING_MAX_SIZE ?=

.PHONY: check-conformance stage-conformance check-chunking stage-chunking

# canonical_test.mjs checks the oracle's own helpers first.
stage-conformance: $(INTEROP_STAMP) $(INTEROP_UPQ)
	@rm -f $(CONFORMANCE_PASS)
	@bash test/stage.sh $(CHECK_DIR)/conformance.res conformance -- \
	    sh -c '$(NODE) $(INTEROP_DIR)/canonical_test.mjs && \
	           $(NODE) $(INTEROP_DIR)/cat_vs_duckdb.mjs --upq $(UPQ) --skip-without-upq \
	               --pass-list $(CONFORMANCE_PASS) --generated-dir $(CHECK_DIR)/generated'

check-conformance: stage-conformance
	@bash test/check_report.sh $(CHECK_DIR) conformance

# Runs after conformance: it re-reads the files that passed there.
stage-chunking: stage-conformance
	@bash test/stage.sh $(CHECK_DIR)/chunking.res chunking -- \
	    $(NODE) $(INTEROP_DIR)/cat_chunking.mjs --upq $(UPQ) --skip-without-upq \
	        --files-from $(CONFORMANCE_PASS) $(if $(CHUNKING_MAX_SIZE),--max-size $(CHUNKING_MAX_SIZE))

check-chunking: stage-chunking
	@bash test/check_report.sh $(CHECK_DIR) chunking

# ---- write: `upq write` against `upq cat` and DuckDB -------------------------

.PHONY: check-write stage-write

# Runs after conformance: it round-trips the files that passed there. The
# sensor logger is checked too (DuckDB reads its file as upq does).
stage-write: stage-conformance $(SENSOR)
	@bash test/stage.sh $(CHECK_DIR)/write.res write -- \
	    $(NODE) $(INTEROP_DIR)/write_roundtrip.mjs --upq $(UPQ) --skip-without-upq \
	        --files-from $(CONFORMANCE_PASS) --work $(CHECK_DIR)/write

check-write: stage-write
	@bash test/check_report.sh $(CHECK_DIR) write

# ---- the writer: interop matrix and power loss ------------------------------

.PHONY: check-write-matrix stage-write-matrix check-powerloss stage-powerloss

# `upq write` over generated data: every physical type x encoding x codec x
# page version x nesting and the edge cases, read back by upq, DuckDB and
# arrow-rs; statistics and page index checked against the data. Then the
# property test: random schemas, rows and options (seed: $UPQ_TEST_SEED),
# read back by upq and DuckDB; the stage counts both.
stage-write-matrix: $(INTEROP_STAMP) $(INTEROP_UPQ)
	@bash test/stage.sh $(CHECK_DIR)/write-matrix.res write-matrix -- \
	    bash test/sum_counts.sh \
	    '$(NODE) $(INTEROP_DIR)/write_matrix.mjs --upq $(UPQ) --skip-without-upq --work $(CHECK_DIR)/write-matrix' \
	    '$(NODE) $(INTEROP_DIR)/write_random.mjs --upq $(UPQ) --skip-without-upq --work $(CHECK_DIR)/write-random' \
	    '$(NODE) $(INTEROP_DIR)/column_meta.mjs --upq $(UPQ) --skip-without-upq --work $(CHECK_DIR)/column-meta'

check-write-matrix: stage-write-matrix
	@bash test/check_report.sh $(CHECK_DIR) write-matrix

# Bloom filters: `upq bloom` against DuckDB's parquet_bloom_probe on files
# upq writes (every filterable type DuckDB can probe) and on one DuckDB writes.
.PHONY: check-bloom stage-bloom
stage-bloom: $(INTEROP_STAMP) $(INTEROP_UPQ)
	@bash test/stage.sh $(CHECK_DIR)/bloom.res bloom -- \
	    $(NODE) $(INTEROP_DIR)/bloom_duckdb.mjs --upq $(UPQ) --skip-without-upq --work $(CHECK_DIR)/bloom

check-bloom: stage-bloom
	@bash test/check_report.sh $(CHECK_DIR) bloom

# Power cuts at every write call and byte (test_powerloss --full; the unit
# and asan stages run its quicker default), then `upq recover` on sensor logs
# cut at many byte offsets, and DuckDB, arrow-rs and hyparquet read a sample
# of the recovered files (test/powerloss/run.sh).
POWERLOSS_BIN := $(HOST)/test/powerloss/test_powerloss
# in `make check` the unit stage's sub-make builds the program: not twice at once
ifneq ($(filter check,$(MAKECMDGOALS)),)
stage-powerloss: stage-unit
endif
stage-powerloss: $(INTEROP_STAMP) $(LIB) $(CODEC_LIBS) $(POSIX_OBJ) $(HOST_TEST_UTIL_OBJ) $(UPQ) $(SENSOR)
	@$(MAKE) --no-print-directory $(POWERLOSS_BIN) || true
	@bash test/stage.sh $(CHECK_DIR)/powerloss.res powerloss -- \
	    bash test/powerloss/run.sh $(POWERLOSS_BIN) $(CHECK_DIR)/powerloss $(NODE)

check-powerloss: stage-powerloss
	@bash test/check_report.sh $(CHECK_DIR) powerloss

# Damaged and inconsistent checkpoint-mode logs (bit flips in records, page
# headers and bodies; replayed, foreign and edited records) given to upq
# recover in place, to another file and to an OUT naming the input, and to
# upq write --append and sensor_logger --resume: an exact prefix that upq
# and DuckDB read, or a failure that leaves the input byte for byte
# (test/powerloss/damage.mjs; about a minute of CPU).
.PHONY: check-recover-damage
CHECK_EXTRA_TARGETS += check-recover-damage
check-recover-damage: $(INTEROP_STAMP) $(UPQ) $(SENSOR)
	$(NODE) test/powerloss/damage.mjs --upq $(UPQ) --logger $(SENSOR) --work $(CHECK_DIR)/damage

# ---- Variant: JSON rendering and DuckDB, both ways --------------------------

.PHONY: check-variant stage-variant
VARIANT_RT_BIN := $(HOST)/test/unit/test_variant_roundtrip

# `upq variant` against parquet-testing's variant/data_dictionary.json; our
# Variant files (the library's round-trip test's, upq write's) read by
# DuckDB and DuckDB's read by upq, compared value by value. The C programs
# (test_variant, test_shredded_variant, test_variant_roundtrip) run in the
# unit and asan stages.
# in `make check` the unit stage's sub-make builds the program: not twice at once
ifneq ($(filter check,$(MAKECMDGOALS)),)
stage-variant: stage-unit
endif
stage-variant: $(INTEROP_STAMP) $(INTEROP_UPQ) $(LIB) $(CODEC_LIBS) $(POSIX_OBJ) $(HOST_TEST_UTIL_OBJ)
	@$(MAKE) --no-print-directory $(VARIANT_RT_BIN) || true
	@bash test/stage.sh $(CHECK_DIR)/variant.res variant -- \
	    bash test/sum_counts.sh \
	    '$(NODE) $(INTEROP_DIR)/variant_json.mjs --upq $(UPQ)' \
	    '$(NODE) $(INTEROP_DIR)/variant_duckdb.mjs --upq $(UPQ) --roundtrip $(VARIANT_RT_BIN) --work $(CHECK_DIR)/variant'

check-variant: stage-variant
	@bash test/check_report.sh $(CHECK_DIR) variant

# ---- hostile input: upq write under memory and time bounds, ASan + UBSan --------

.PHONY: check-write-hostile stage-write-hostile asan-upq
# upq itself built like the asan stage's programs (clang, ASan + UBSan): the
# library as asan-lib, the tool's sources with the test flags
ASAN_UPQ_OBJ := $(patsubst %.c,$(ASAN)/%.o,$(UPQ_SRC))
ASAN_UPQ := $(ASAN)/upq
$(ASAN_UPQ_OBJ): $(ASAN)/%.o: %.c
	@mkdir -p $(dir $@)
	$(ASAN_CC) $(ASAN_TEST_CFLAGS) -MMD -MP -c $< -o $@
$(ASAN_UPQ): $(ASAN_UPQ_OBJ) $(ASAN_POSIX_OBJ) $(ASAN_LIB) $(CODEC_LIBS)
	$(ASAN_CC) $(ASAN_TEST_CFLAGS) -o $@ $(ASAN_UPQ_OBJ) $(ASAN_POSIX_OBJ) \
	    $(call TEST_LIBS,$(ASAN_LIB)) $(UPQ_LDLIBS)
asan-upq: $(ASAN_UPQ)

# test/hostile/run.sh: a --shred spec 10,000 deep, 100 MB lines (50M list
# entries, with and without VARIANT columns; 50,000 lists of 1,000), a line
# over 100 MB, deep JSON and schema nesting, schemas too wide or over 16 MB,
# every schema upq must refuse, --kv without '=', key material over a
# million references, bad --kms-key values (exit 1, what and where, no
# output left), a 100 MB value, 10,000 and 100,000 columns, a million
# references of key material and 100,000 rows in row groups of one with
# checkpoints (written, read back): the plain build under 256 MB of peak
# RSS, the ASan build without a report (leaks included).
stage-write-hostile: $(UPQ) $(ASAN_UPQ)
	@bash test/stage.sh $(CHECK_DIR)/write-hostile.res write-hostile -- \
	    bash test/hostile/run.sh $(abspath $(UPQ)) $(abspath $(ASAN_UPQ)) $(abspath $(CHECK_DIR))/write-hostile

check-write-hostile: stage-write-hostile
	@bash test/check_report.sh $(CHECK_DIR) write-hostile

# ---- fuzzing ---------------------------------------------------------------

FUZZ := $(BUILD)/fuzz
FUZZ_CC ?= clang
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_LIB_CFLAGS = -std=c99 -O1 -g $(INCLUDES) $(CODEC_DEFS) $(EXTRA_CFLAGS) -ffreestanding \
                  -fno-builtin $(FUZZ_SAN) -fsanitize=fuzzer-no-link \
                  -fsanitize-coverage-ignorelist=test/fuzz/coverage_ignore.txt
FUZZ_CFLAGS = -std=c99 -O1 -g $(WARN_TEST) $(INCLUDES) -Itest $(CODEC_DEFS) $(EXTRA_CFLAGS) \
              $(FUZZ_SAN) -fsanitize=fuzzer-no-link
FUZZ_LIB_ALL := $(patsubst $(HOST)/%,$(FUZZ)/%,$(LIB_OBJ))
FUZZ_LIB := $(FUZZ)/libuparquet.a
# Every test/fuzz/fuzz_NAME.c is a libFuzzer target with seeds in
# $(FUZZ)/seeds_NAME (made by test/fuzz/make_seeds.sh NAME).
FUZZ_NAMES := $(patsubst test/fuzz/fuzz_%.c,%,$(sort $(wildcard test/fuzz/fuzz_*.c)))
FUZZ_BINS := $(patsubst %,$(FUZZ)/fuzz_%,$(FUZZ_NAMES))
# Symbols a target needs before it can link (FUZZ_NEEDS.NAME): while the
# library lacks one, the target is skipped (it is being written around it).
FUZZ_NEEDS.meta := upq_thrift_decode upq_thrift_encode upq_meta_descs
FUZZ_NEEDS.open := upq_reader_init
FUZZ_NEEDS.jsonl := upq_sb_init upq_schema_build
FUZZ_NEEDS.variant := upq_variant_validate
FUZZ_NEEDS.recover := upq_recover upq_writer_resume
FUZZ_NEEDS.pidx := upq_page_index_load upq_column_seek
FUZZ_NEEDS.keytools := upq_gcm_decrypt
FUZZ_NEEDS.where := upq_pred_check
# make check runs fuzz_variant for at most this long (make fuzz: FUZZ_TIME)
FUZZ_CHECK_CAP.variant ?= 30
# -max_len of the targets whose inputs are whole files or footers (their
# seeds are no longer: make_seeds.sh): larger inputs only slow them down
FUZZ_MAX_LEN := FUZZ_MAX_LEN_meta=16384 FUZZ_MAX_LEN_pidx=65536 FUZZ_MAX_LEN_rows=65536 \
                FUZZ_MAX_LEN_open=65536 FUZZ_MAX_LEN_recover=16384
upq_empty :=
upq_space := $(upq_empty) $(upq_empty)
FUZZ_SPECS = $(foreach n,$(FUZZ_NAMES),$(subst $(upq_space),:,$(strip $(n) $(FUZZ_NEEDS.$(n)))))

$(FUZZ_LIB_ALL): $(FUZZ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_LIB_CFLAGS) -MMD -MP -c $< -o $@

$(FUZZ_LIB_ALL): $(DEPS_STAMPS) test/fuzz/coverage_ignore.txt

$(FUZZ_LIB): $(FUZZ_LIB_ALL)
	@mkdir -p $(dir $@)
	@rm -f $@
	$(AR) rcs $@ $^

# Library files a target links built without coverage (FUZZ_QUIET.NAME; see
# test/fuzz/coverage_quiet.txt): fuzz_recover spent 55% of its time in the
# Thrift decoder's traced compares and 5% in the CRC's, code fuzz_meta
# explores, and ran under 1,000 inputs a second. The objects come before the
# library, so its own copies of them are not linked.
FUZZ_QUIET.recover := core/format/thrift.c core/common/crc32.c
FUZZ_QUIET_OBJ = $(patsubst %.c,$(FUZZ)/quiet/%.o,$(FUZZ_QUIET.$(1)))
$(FUZZ)/quiet/%.o: %.c test/fuzz/coverage_quiet.txt $(DEPS_STAMPS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_LIB_CFLAGS) -fsanitize-coverage-ignorelist=test/fuzz/coverage_quiet.txt -MMD -MP -c $< -o $@
$(FUZZ)/fuzz_recover: $(call FUZZ_QUIET_OBJ,recover)

$(FUZZ)/fuzz_%: test/fuzz/fuzz_%.c $(FUZZ_LIB) $(CODEC_LIBS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -MF $@.d -fsanitize=fuzzer -o $@ $< $(call FUZZ_QUIET_OBJ,$*) $(call TEST_LIBS,$(FUZZ_LIB))

$(FUZZ)/seeds_recover.stamp: $(SENSOR)
$(FUZZ)/seeds_%.stamp: test/fuzz/make_seeds.sh
	@bash test/fuzz/make_seeds.sh $* $(FUZZ)/seeds_$*
	@touch $@

.PHONY: fuzz-bins fuzz-seeds check-fuzz stage-fuzz fuzz
fuzz-bins: $(FUZZ_BINS)
fuzz-seeds: $(patsubst %,$(FUZZ)/seeds_%.stamp,$(FUZZ_NAMES))

# Each target runs over its seeds, then on into $(FUZZ)/corpus_NAME; findings
# land in $(FUZZ)/artifacts/ (test/fuzz/run_fuzz.sh).
stage-fuzz: $(LIB) $(CODEC_LIBS)
	@MAKE="$(MAKE)" FUZZ_CAP_variant=$(FUZZ_CHECK_CAP.variant) $(FUZZ_MAX_LEN) bash test/stage.sh $(CHECK_DIR)/fuzz.res fuzz -- \
	    bash test/fuzz/run_fuzz.sh $(FUZZ_CHECK_TIME) $(LIB) $(FUZZ) $(FUZZ_SPECS)

check-fuzz: stage-fuzz
	@bash test/check_report.sh $(CHECK_DIR) fuzz

fuzz: $(LIB) $(CODEC_LIBS)
	@MAKE="$(MAKE)" $(FUZZ_MAX_LEN) bash test/fuzz/run_fuzz.sh $(FUZZ_TIME) $(LIB) $(FUZZ) $(FUZZ_SPECS)

# ---- encryption: upq and DuckDB ------------------------------------------------
# Encrypted files written by upq read by DuckDB, and DuckDB's read by upq
# (test/interop/crypto_duckdb.mjs); key-tools key material (parquet-java,
# Spark) through upq: the corpus's parquet-mr file, upq's own in every
# wrapping and storage, DuckDB reading them with the DEK, and the refusals
# (test/interop/keytools_upq.mjs); the rest of encryption is in the unit and
# corpus programs (test_aes, test_crypto_write, test_crypto_read,
# test_keytools).
.PHONY: check-crypto-interop
CHECK_EXTRA_TARGETS += check-crypto-interop
check-crypto-interop: $(INTEROP_STAMP) $(INTEROP_UPQ)
	$(NODE) $(INTEROP_DIR)/crypto_duckdb.mjs --upq $(UPQ) --skip-without-upq
	$(NODE) $(INTEROP_DIR)/keytools_upq.mjs --upq $(UPQ) --skip-without-upq

# ---- other areas' checks --------------------------------------------------

.PHONY: stage-extra stage-extra-cross
# after the unit stage, so the host build is finished and not raced; the
# cross stages (each in its own build directory) in a chain of their own,
# which make -j2 runs beside the others
stage-extra: stage-unit
	@for t in $(filter-out check-cross-%,$(CHECK_EXTRA_TARGETS)); do \
	    bash test/stage.sh $(CHECK_DIR)/extra-$$t.res $$t -- $(MAKE) --no-print-directory $$t; \
	done
stage-extra-cross: stage-unit
	@for t in $(filter check-cross-%,$(CHECK_EXTRA_TARGETS)); do \
	    bash test/stage.sh $(CHECK_DIR)/extra-$$t.res $$t -- $(MAKE) --no-print-directory $$t; \
	done

# ---- logging at scale: the reference run's figures against their targets ------

# The sensor logger's 24 h at 10 Hz in checkpoint mode against one pass:
# closed file <= 1.05x, bytes to the sink <= 1.10x, nothing read back while
# logging (test/bench/bench_logging.c; sizes and counts, not times).
.PHONY: check-logging
check-logging: $(HOST)/test/bench/bench_logging
	@$(HOST)/test/bench/bench_logging --check
CHECK_EXTRA_TARGETS += check-logging

# ---- decode + sum against DuckDB: kept working on tiny data ----------------------

# The benchmark itself is `make bench` (bench-vs-duckdb below); here it runs
# once on 20,000 rows, where the times mean nothing but every sum must equal
# DuckDB's.
.PHONY: check-bench-vs-duckdb
check-bench-vs-duckdb: $(INTEROP_STAMP) $(HOST)/test/bench/bench_sum $(HOST)/test/bench/bench_write
	@cd $(INTEROP_DIR) && BENCH_ROUNDS=1 node bench_vs_duckdb.mjs $(abspath $(HOST)/test/bench/bench_sum) \
	    $(abspath $(CHECK_DIR)/bench-vs-duckdb) 20000 1
CHECK_EXTRA_TARGETS += check-bench-vs-duckdb

# Reader memory independent of the number of row groups: one-row row groups x
# 11 columns (written by upq write) read by `upq cat --arena 32K` (row-group
# metadata on demand): DuckDB's rows at 10,000 row groups, eager upq cat's at
# 100,000, and a too small arena must say the size needed (test/lazy/lazy_rg.sh;
# about 2 minutes; the Cortex-M4 reads such files in the same 32 KB:
# test/firmware/run.sh).
.PHONY: check-lazy-rg
check-lazy-rg: $(UPQ) $(INTEROP_STAMP)
	@bash test/lazy/lazy_rg.sh $(abspath $(UPQ)) $(NODE) $(abspath $(CHECK_DIR)/lazy-rg) 100000 32K
CHECK_EXTRA_TARGETS += check-lazy-rg

# ---- the house: circles, upward dependencies, function complexity -------------

# test/house/house.py over the host library's objects and sources against
# test/house/budgets.txt (budgets that only go down).
.PHONY: check-house
check-house: $(LIB)
	@python3 test/house/house.py $(HOST) --nm $(NM)
CHECK_EXTRA_TARGETS += check-house

# Byte-identical output against a reference commit (SAME_BYTES_REF, default
# where the branch left main): `upq write` of every corpus file in nine
# option sets, sensor logger runs, power cuts recovered and resumed,
# encrypted logs (test/house/same_bytes.sh). The proof for a change that
# must not change a byte; not part of `make check`, where the reference
# would be the tree itself. About 30 s of CPU (mostly fsync waits: 2-4
# minutes on a busy machine), plus about 40 s to build a new reference.
.PHONY: check-same-bytes
SAME_BYTES_REF ?=
check-same-bytes: $(UPQ) $(SENSOR)
	@bash test/house/same_bytes.sh $(if $(SAME_BYTES_REF),--ref $(SAME_BYTES_REF)) --upq $(UPQ) \
	    --sensor $(SENSOR) $(if $(wildcard $(CONFORMANCE_PASS)),--files-from $(CONFORMANCE_PASS))

# ---- integration: install, pkg-config, CMake, the firmware fragment, cross builds ----
include test/integration/integration.mk

# ---- everything -------------------------------------------------------------

check: stage-unit stage-asan stage-interop stage-conformance stage-chunking stage-write \
       stage-write-matrix stage-write-hostile stage-bloom stage-powerloss stage-variant stage-fuzz \
       stage-extra stage-extra-cross
	@bash test/check_report.sh $(CHECK_DIR) unit asan interop conformance chunking write \
	    write-matrix write-hostile bloom powerloss variant fuzz $(patsubst %,extra-%,$(CHECK_EXTRA_TARGETS))

# ---- benchmarks (make bench) -----------------------------------------------
# Throughput figures come from here, never from timed tests. The library is
# built with the normal flags (OPT); BENCH_SECONDS is the time spent per file.

BENCH_SRC := $(sort $(wildcard test/bench/*.c))
BENCH_BINS := $(patsubst %.c,$(HOST)/%,$(BENCH_SRC))
BENCH_SECONDS ?= 0.5

# The benchmarks' own loops, such as the sums a caller runs over a batch,
# get the library's vectoriser policy: gcc's -O2 alone leaves a sum of
# BOOLEAN bytes one value a step, which would time the caller, not the reader.
$(BENCH_BINS:=.o): TEST_CFLAGS += $(LIB_VEC) $(HOST_ALIGN)
$(BENCH_BINS): $(HOST)/%: $(HOST)/%.o $(HOST_TEST_UTIL_OBJ) $(LIB) $(CODEC_LIBS)
	$(CC) $(TEST_CFLAGS) -o $@ $(filter %.o,$^) $(call TEST_LIBS,$(LIB))
# the logging figures run the sensor logger's own core
$(HOST)/test/bench/bench_logging: $(SENSOR_CORE_OBJ)

.PHONY: bench
bench: $(BENCH_BINS)
	@echo "== read throughput ($(CC) $(OPT), $(BENCH_SECONDS) s per file, corpus files in memory)"
	@$(HOST)/test/bench/bench_read $(BENCH_SECONDS)
	@echo "== Variant throughput ($(CC) $(OPT), $(BENCH_SECONDS) s per measure, in memory)"
	@$(HOST)/test/bench/bench_variant $(BENCH_SECONDS)
	@echo "== encryption throughput (1 MiB pages, module framing included)"
	@$(HOST)/test/bench/bench_crypto $(BENCH_SECONDS)
	@echo "== logging at scale: the sensor logger's 24 h at 10 Hz, checkpoint mode against one pass"
	@$(HOST)/test/bench/bench_logging
	@$(MAKE) --no-print-directory bench-vs-duckdb
	@$(MAKE) --no-print-directory bench-where

# Selective reading I/O (upq cat --where / --rows with --io-stats) on a log
# sorted by time with a page index; WHERE_BENCH_ROWS=10000000 for the 10M-row
# figures (issue 13's targets: a 0.01% time range reads <= 1% of the file's
# bytes, one row by position <= 3 reads a column after the footer and index).
WHERE_BENCH_ROWS ?= 1000000
.PHONY: bench-where
bench-where: $(INTEROP_STAMP) $(UPQ)
	@echo "== selective reading I/O against a full scan ($(WHERE_BENCH_ROWS) rows)"
	@$(NODE) $(INTEROP_DIR)/where_io_bench.mjs --upq $(UPQ) --work $(BUILD)/bench/where --rows $(WHERE_BENCH_ROWS)

# Decode + sum of nine column kinds x five codecs against DuckDB (threads=1),
# and arrow-rs (parquet-wasm), same run, best of BENCH_ROUNDS interleaved
# rounds of BENCH_REPS runs a side; BENCH_ROWS=10000000 for the 10M-row
# figures. JSON: $(BUILD)/bench/vs_duckdb.json. Many short rounds rather than
# a few long ones: this machine runs codec-bound code up to 1.5x slower for
# spells of 0.5-3 s, and a side's best has to come from a fast spell.
# BENCH_CASES=codec/column,... times only those cases (for example
# `make bench-vs-duckdb BENCH_ROWS=2000000 BENCH_CASES=lz4_raw/i64_seq`).
BENCH_ROWS ?= 1000000
BENCH_REPS ?= 3
BENCH_ROUNDS ?= 7
BENCH_CASES ?=
export BENCH_ROUNDS BENCH_CASES
.PHONY: bench-vs-duckdb
bench-vs-duckdb: $(INTEROP_STAMP) $(HOST)/test/bench/bench_sum $(HOST)/test/bench/bench_write
	@echo "== decode + sum against DuckDB ($(BENCH_ROWS) rows)"
	@cd $(INTEROP_DIR) && node bench_vs_duckdb.mjs $(abspath $(HOST)/test/bench/bench_sum) \
	    $(abspath $(BUILD)/bench) $(BENCH_ROWS) $(BENCH_REPS)
