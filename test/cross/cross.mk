# Cross builds run under qemu-user: the library, the unit and corpus test
# programs and upq, built for another Linux target and run on this machine.
#
#   make check-cross-aarch64   aarch64 (NEON and CRC32 instructions on): the
#                              test programs, then `upq meta --json` / `upq
#                              cat --json` of every corpus file (parquet-testing
#                              and arrow-testing) compared with the host's,
#                              under qemu-aarch64
#   make check-cross-aarch64-duckdb  ... and the conformance against DuckDB
#                              itself under qemu (not a `make check` stage)
#   make check-cross-armv7     32-bit ARMv7-A with NEON (no CRC32
#                              instructions), under qemu-arm: the NEON kernels
#                              and the corpus reading programs (see below)
#   make check-cross-armv7-all ... every test program and the conformance
#                              against DuckDB (not a `make check` stage)
#   make check-cross-powerpc   big-endian 32-bit PowerPC: the test programs,
#                              then `upq meta --json` / `upq cat --json` of
#                              every corpus file compared with the host's
#   make cross-TARGET          just build them ($(BUILD)/TARGET/...)
#
# The check-cross-* stages but -all are `make check` stages (CHECK_EXTRA_TARGETS). The package libraries
# come from codecs.mk's rules for the same target (make deps TARGET=...).
# $(BUILD)/TARGET/upq-run is a script that runs that target's upq under its
# emulator, so scripts that take an upq path (--upq) run it unchanged.
#
# Under emulation the corpus programs repeat their chunked reads less often
# (UPQ_TEST_REPEAT, see test/util/check.h); every value is still checked.
ifndef UPQ_CROSS_MK
UPQ_CROSS_MK := 1

CROSS_TEST_TARGETS := aarch64 armv7 powerpc
QEMU.aarch64 ?= qemu-aarch64 -L /usr/aarch64-linux-gnu
QEMU.armv7 ?= qemu-arm -L /usr/arm-linux-gnueabihf
QEMU.powerpc ?= qemu-ppc -L /usr/powerpc-linux-gnu
CROSS_TEST_REPEAT ?= 6
CROSS_TEST_TIMEOUT ?= 900

# $(call upq_cross_rules,TARGET)
define upq_cross_rules
XB.$(1) := $$(BUILD)/$(1)
XLIB_OBJ.$(1) := $$(patsubst %.c,$$(XB.$(1))/%.o,$$(LIB_SRC))
XLIB.$(1) := $$(XB.$(1))/libuparquet.a
XHOST_OBJ.$(1) := $$(patsubst %.c,$$(XB.$(1))/%.o,$$(POSIX_SRC) $$(TEST_UTIL_SRC))
XTEST_OBJ.$(1) := $$(patsubst %.c,$$(XB.$(1))/%.o,$$(TEST_PROG_SRC))
XTEST_BINS.$(1) := $$(patsubst %.c,$$(XB.$(1))/%,$$(TEST_PROG_SRC))
XUPQ_OBJ.$(1) := $$(patsubst %.c,$$(XB.$(1))/%.o,$$(UPQ_SRC))
XUPQ.$(1) := $$(XB.$(1))/upq
XCFLAGS_LIB.$(1) = -std=c99 $$(TOPT.$(1)) -g $$(TFLAGS.$(1)) $$(WARN_LIB) -ffreestanding -fno-builtin \
                   $$(TNOLOOP.$(1)) $$(INCLUDES) $$(CODEC_DEFS) $$(EXTRA_CFLAGS)
# 64-bit file offsets for the host-side code: on a 32-bit target under
# qemu-user, readdir() of a 64-bit host's directory fails with EOVERFLOW
# otherwise, and corpus files past 2 GB could not be opened.
XCFLAGS_TEST.$(1) = -std=c99 $$(TOPT.$(1)) -g $$(TFLAGS.$(1)) $$(WARN_TEST) -D_FILE_OFFSET_BITS=64 \
                    $$(INCLUDES) -Itest $$(CODEC_DEFS) $$(EXTRA_CFLAGS)
XLIBS.$(1) = -Wl,--start-group $$(XLIB.$(1)) $$(DEPS_LIBS.$(1)) -Wl,--end-group -lm

$$(XLIB_OBJ.$(1)): $$(XB.$(1))/%.o: %.c $$(DEPS_STAMPS) test/cross/cross.mk
	@mkdir -p $$(dir $$@)
	$$(TCC.$(1)) $$(XCFLAGS_LIB.$(1)) -MMD -MP -c $$< -o $$@
$$(XHOST_OBJ.$(1)) $$(XUPQ_OBJ.$(1)): $$(XB.$(1))/%.o: %.c $$(DEPS_STAMPS) test/cross/cross.mk
	@mkdir -p $$(dir $$@)
	$$(TCC.$(1)) $$(XCFLAGS_TEST.$(1)) -MMD -MP -c $$< -o $$@
$$(XTEST_OBJ.$(1)): $$(XB.$(1))/%.o: %.c $$(DEPS_STAMPS) test/cross/cross.mk
	@mkdir -p $$(dir $$@)
	@rm -f $$(@:.o=)
	$$(TCC.$(1)) $$(XCFLAGS_TEST.$(1)) -MMD -MP -c $$< -o $$@
$$(XLIB.$(1)): $$(XLIB_OBJ.$(1))
	@rm -f $$@
	$$(TAR.$(1)) rcs $$@ $$^
$$(XTEST_BINS.$(1)): $$(XB.$(1))/%: $$(XB.$(1))/%.o $$(XHOST_OBJ.$(1)) $$(XLIB.$(1)) $$(DEPS_LIBS.$(1))
	@rm -f $$@
	$$(TCC.$(1)) $$(TFLAGS.$(1)) -o $$@ $$(filter %.o,$$^) $$(XLIBS.$(1))
$$(XUPQ.$(1)): $$(XUPQ_OBJ.$(1)) $$(XHOST_OBJ.$(1)) $$(XLIB.$(1)) $$(DEPS_LIBS.$(1))
	$$(TCC.$(1)) $$(TFLAGS.$(1)) -o $$@ $$(XUPQ_OBJ.$(1)) $$(filter $$(XB.$(1))/port/%,$$(XHOST_OBJ.$(1))) $$(XLIBS.$(1))
$$(XB.$(1))/upq-run: test/cross/cross.mk
	@mkdir -p $$(dir $$@)
	@printf '#!/bin/sh\n# runs the $(1) upq under its emulator\nexec $$(QEMU.$(1)) "$$$$(dirname "$$$$0")/upq" "$$$$@"\n' >$$@
	@chmod +x $$@

.PHONY: cross-$(1) cross-$(1)-bins
cross-$(1)-bins: $$(XTEST_BINS.$(1))
cross-$(1): $$(XLIB.$(1)) $$(XUPQ.$(1)) $$(XB.$(1))/upq-run
	@$$(MAKE) --no-print-directory -k cross-$(1)-bins || true

endef
$(foreach t,$(CROSS_TEST_TARGETS),$(eval $(call upq_cross_rules,$(t))))

.PHONY: check-cross-aarch64 check-cross-aarch64-duckdb check-cross-armv7 check-cross-armv7-all check-cross-powerpc
CHECK_EXTRA_TARGETS += check-cross-aarch64 check-cross-armv7 check-cross-powerpc

# The programs, then upq's output equal to the host's on both corpora (the
# conformance stage checks the host's against DuckDB). Comparing with the
# host's output takes a sixth of the time of the DuckDB comparison under
# qemu (about 40 s against 280 s) and also covers the broken files;
# check-cross-aarch64-duckdb runs that comparison itself.
ARROW_TESTING_DIR ?= $(abspath ../shared/arrow-testing)
check-cross-aarch64: cross-aarch64 $(UPQ)
	@UPQ_TEST_REPEAT=$(CROSS_TEST_REPEAT) bash test/sum_counts.sh \
	    'bash test/run_tests.sh --label neon --logdir $(XB.aarch64)/check-logs --timeout $(CROSS_TEST_TIMEOUT) --runner "$(QEMU.aarch64)" -- $(XTEST_BINS.aarch64)' \
	    'bash test/cross/same_output.sh $(UPQ) $(XB.aarch64)/upq-run $(PARQUET_TESTING_DIR) $(ARROW_TESTING_DIR)/data/parquet'

check-cross-aarch64-duckdb: cross-aarch64 $(INTEROP_STAMP) $(UPQ)
	@UPQ_TEST_REPEAT=$(CROSS_TEST_REPEAT) bash test/sum_counts.sh \
	    'bash test/run_tests.sh --label neon --logdir $(XB.aarch64)/check-logs --timeout $(CROSS_TEST_TIMEOUT) --runner "$(QEMU.aarch64)" -- $(XTEST_BINS.aarch64)' \
	    '$(NODE) $(INTEROP_DIR)/cat_vs_duckdb.mjs --upq $(XB.aarch64)/upq-run --generated-dir $(XB.aarch64)/generated'

# ARMv7: what differs from AArch64 is the NEON code (neon_a32.h) and 32-bit
# sizes. Every program and the conformance take about 5 minutes under qemu-arm
# on 2 cores (check-cross-armv7-all), too much for `make check`, so this stage
# runs, in 70-90 s once built: the NEON kernels present in the library and each
# against its scalar twin (test_kernels), the decoders that call them (DELTA,
# BYTE_STREAM_SPLIT, dictionary, RLE unit programs) and the corpus reading
# programs (test/corpus). No CRC32 instructions on ARMv7: left out below.
XCHECK_BINS.armv7 := $(addprefix $(XB.armv7)/test/unit/,test_kernels test_delta test_bss test_dict test_rle) \
                     $(filter $(XB.armv7)/test/corpus/%,$(XTEST_BINS.armv7))
check-cross-armv7: $(XLIB.armv7)
	@$(MAKE) --no-print-directory -k $(XCHECK_BINS.armv7) || true
	@UPQ_TEST_REPEAT=$(CROSS_TEST_REPEAT) bash test/sum_counts.sh \
	    'bash test/cross/neon_symbols.sh $(TNM.armv7) $(XLIB.armv7) upq_neon_crc32_update' \
	    'bash test/run_tests.sh --label neon-arm --logdir $(XB.armv7)/check-logs --timeout $(CROSS_TEST_TIMEOUT) --runner "$(QEMU.armv7)" -- $(XCHECK_BINS.armv7)'

check-cross-armv7-all: cross-armv7 $(INTEROP_STAMP) $(UPQ)
	@UPQ_TEST_REPEAT=$(CROSS_TEST_REPEAT) bash test/sum_counts.sh \
	    'bash test/run_tests.sh --label neon-arm --logdir $(XB.armv7)/check-logs --timeout $(CROSS_TEST_TIMEOUT) --runner "$(QEMU.armv7)" -- $(XTEST_BINS.armv7)' \
	    '$(NODE) $(INTEROP_DIR)/cat_vs_duckdb.mjs --upq $(XB.armv7)/upq-run --generated-dir $(XB.armv7)/generated'

# Big-endian: the programs, then upq's output equal to the host's.
check-cross-powerpc: cross-powerpc $(UPQ)
	@UPQ_TEST_REPEAT=$(CROSS_TEST_REPEAT) bash test/sum_counts.sh \
	    'bash test/run_tests.sh --label big-endian --logdir $(XB.powerpc)/check-logs --timeout $(CROSS_TEST_TIMEOUT) --runner "$(QEMU.powerpc)" -- $(XTEST_BINS.powerpc)' \
	    'bash test/cross/same_output.sh $(UPQ) $(XB.powerpc)/upq-run'

# ---- x86-64 CPUs other than the build machine's -------------------------------
# The host library is built for the baseline ISA and chooses its CRC kernel
# at run time (port/x86/x86_crc32.c). make check-old-cpu (a `make check`
# stage, test/cross/old_cpu.sh): the host test programs under qemu-x86_64
# -cpu $(OLD_CPU), a model without AVX2 and PCLMULQDQ, but the eight that
# take 5 to 80 s natively (their code paths are the same; under emulation
# they would take 10 minutes); then upq and the sensor logger under
# valgrind's memcheck (a CPU without VPCLMULQDQ). About 2 minutes.
OLD_CPU ?= Nehalem
OLD_CPU_SLOW := test_record test_row_fetch test_lazy_rg test_codec_pages test_crypto_write \
                test_recover test_writer test_powerloss
OLD_CPU_BINS := $(filter-out $(foreach t,$(OLD_CPU_SLOW),%/$(t)),$(HOST_TEST_BINS))
.PHONY: check-old-cpu
check-old-cpu: $(OLD_CPU_BINS) $(UPQ) $(SENSOR)
	@OLD_CPU='$(OLD_CPU)' bash test/cross/old_cpu.sh $(UPQ) $(SENSOR) $(HOST)/old-cpu -- $(OLD_CPU_BINS)
CHECK_EXTRA_TARGETS += check-old-cpu

# ---- kernels: scalar twins against the build's selection -------------------
# make bench runs it on the host; make bench-aarch64 under qemu-aarch64, where
# the figures only show that NEON and scalar agree (emulated speed says
# nothing about a real core's).
XBENCH_KERNELS.aarch64 := $(XB.aarch64)/test/bench/bench_kernels
$(XBENCH_KERNELS.aarch64): $(XB.aarch64)/test/bench/bench_kernels.o $(XLIB.aarch64) $(DEPS_LIBS.aarch64)
	$(TCC.aarch64) $(TFLAGS.aarch64) -o $@ $< $(XLIBS.aarch64)
$(XB.aarch64)/test/bench/bench_kernels.o: test/bench/bench_kernels.c $(DEPS_STAMPS) test/cross/cross.mk
	@mkdir -p $(dir $@)
	$(TCC.aarch64) $(XCFLAGS_TEST.aarch64) -MMD -MP -c $< -o $@

.PHONY: bench-kernels bench-aarch64
bench: bench-kernels
bench-kernels: $(HOST)/test/bench/bench_kernels
	@$(HOST)/test/bench/bench_kernels $(BENCH_SECONDS)
bench-aarch64: $(XBENCH_KERNELS.aarch64)
	@echo "(under qemu-aarch64: emulated speed, not a real core's; the point is the same output)"
	@$(QEMU.aarch64) $(XBENCH_KERNELS.aarch64) 0.1

endif
