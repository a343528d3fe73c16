# Code size, stack and RAM budgets (included by freestanding.mk).
#
#   make size         the table: configuration x target flash (own code and
#                     packages apart), budgets, worst-case stack per entry
#                     point, public struct sizes, the sensor logger's arena
#   make size-check   the Cortex-M4 part against test/freestanding/budgets.txt
#                     (a `make check` stage): fails on a budget exceeded, on
#                     recursion in library code, or on an indirect call that
#                     stack_indirect.txt does not describe
#
# Sizes come from linking a bare image per configuration and target with
# --gc-sections, kept alive only by the configuration's entry points
# (size_refs.sh says which), and reading the linker map: every input section
# is counted as text, rodata, data or bss, and as our code or a package's.
#
# Configurations, and the object set each is compiled as; the sets are the
# option-set headers users pick (port/config/upq-*.h, through port/uparquet.mk,
# port/cmake or `make lib UPQ_SET=...`), so these rows are what they get:
#   reader-min   min-r  upq-reader-min.h: PLAIN, dictionary, RLE; UNCOMPRESSED and
#                       SNAPPY; no CRC; no error texts or names (UPQ_NO_ERRSTR);
#                       byte-loop memcpy/memset
#   reader-rows  min-rr reader-min's entry points and the row reader (upq_rows_*,
#                       UPQ_WITH_ROWS 1): what that option costs
#   writer-min   min-w  upq-writer-min.h: PLAIN, dictionary, RLE; UNCOMPRESSED; no
#                       CRC, texts or names; byte loops; no statistics, page index
#                       or DATA_PAGE_V2 written
#   writer-stats min-ws writer-min's entry points with statistics and the page
#                       index written: what those two options cost
#   logger       logger upq-logger.h, from the functions the sensor logger
#                       (examples/sensor_logger) calls: the firmware fragment's
#                       check (test/integration) links the same figure
#   reader-full, writer-full, everything
#                full   every option by default, every fetched package (what
#                       upq-everything.h sets, once `make deps` has run)
# A new UPQ_WITH_* module is on in `full` by default and off in the -min sets
# when their headers say so; new core files are compiled in every set.

SIZE := $(BUILD)/size
SIZE_TARGETS := cortex-m4 cortex-m0plus rv32imac
SIZE_CONFIGS := reader-min reader-rows reader-full writer-min writer-stats writer-full everything logger
SIZE_CHECK_TARGETS := cortex-m4

# $(call SIZE_OPTION_SET,NAME): compile with port/config/upq-NAME.h.
SIZE_OPTION_SET = -Iport/config -DUPQ_CONFIG_FILE='"upq-$(1).h"'
SIZE_DEFS.full = $(CODEC_DEFS_MCU)
SIZE_DEFS.min-r = $(call SIZE_OPTION_SET,reader-min)
SIZE_DEFS.min-rr = -DUPQ_WITH_ROWS=1 $(call SIZE_OPTION_SET,reader-min)
SIZE_DEFS.min-w = $(call SIZE_OPTION_SET,writer-min)
# a set's options are defaults: a -D before it wins
SIZE_DEFS.min-ws = -DUPQ_WITH_PAGE_INDEX=1 -DUPQ_WITH_STATISTICS=1 $(call SIZE_OPTION_SET,writer-min)
SIZE_DEFS.logger = $(call SIZE_OPTION_SET,logger)
# Every module off, reader and writer on (test/freestanding/options_off.c);
# checkpoint mode on, as it must work without statistics and page index.
SIZE_MIN_OFF = -DUPQ_WITH_SNAPPY=1 -DUPQ_WITH_CHECKPOINT=1 $(call SIZE_OPTION_SET,writer-min)
SIZE_SET.reader-min := min-r
SIZE_SET.reader-rows := min-rr
SIZE_SET.writer-min := min-w
SIZE_SET.writer-stats := min-ws
SIZE_SET.reader-full := full
SIZE_SET.writer-full := full
SIZE_SET.everything := full
SIZE_SET.logger := logger

# -Werror: every configuration must keep compiling cleanly.
SIZE_CFLAGS = -std=c99 $(TOPT.$(1)) -g $(TFLAGS.$(1)) -ffreestanding -fno-builtin $(TNOLOOP.$(1)) \
              $(WARN_LIB) -Werror $(INCLUDES) $(SIZE_DEFS.$(2)) $(TSYSINC.$(1))
SIZE_IMAGE_CFLAGS = -std=c99 $(TOPT.$(1)) $(TFLAGS.$(1)) -ffreestanding -fno-builtin

# The Cortex-M4 full set is the library freestanding.mk builds.
SIZE_LIB.cortex-m4.full := $(CM4_LIB)

define upq_size_set
ifneq ($(1).$(2),cortex-m4.full)
SIZE_OBJ.$(1).$(2) := $$(patsubst %.c,$$(SIZE)/$(1)/$(2)/%.o,$$(LIB_SRC))
SIZE_LIB.$(1).$(2) := $$(SIZE)/$(1)/$(2)/libuparquet.a
$$(SIZE)/$(1)/$(2)/%.o: %.c $$(DEPS_STAMPS) test/freestanding/size.mk $$(wildcard port/config/upq-*.h port/config/upq_*.h)
	@mkdir -p $$(dir $$@)
	$$(TCC.$(1)) $$(call SIZE_CFLAGS,$(1),$(2)) -MMD -MP -c $$< -o $$@
$$(SIZE)/$(1)/$(2)/libuparquet.a: $$(SIZE_OBJ.$(1).$(2))
	@rm -f $$@
	$$(TAR.$(1)) rcs $$@ $$^
endif
endef
$(foreach t,$(SIZE_TARGETS),$(foreach s,full min-r min-rr min-w min-ws logger,$(eval $(call upq_size_set,$(t),$(s)))))
# freestanding-check looks at the full set's objects for Cortex-M0+ and
# RV32IMAC too: a libc call the compiler makes on one core only (a struct
# copy is a memcpy call there) is caught in make check.
freestanding-check: $(SIZE_OBJ.cortex-m0plus.full) $(RV_LIB_OBJ)

# $(call upq_size_image,TARGET,CONFIG)
define upq_size_image
SIZE_PKG.$(1).$(2) := $$(if $$(filter full,$$(SIZE_SET.$(2))),$$(DEPS_LIBS.$(1)))
$$(SIZE)/$(1)/$(2)/image.elf: $$(SIZE_LIB.$(1).$$(SIZE_SET.$(2))) $$(SIZE_PKG.$(1).$(2)) \
        test/freestanding/size_refs.sh test/freestanding/image_main.c linker/check_image.ld \
        $$(wildcard core/include/uparquet/*.h)
	@mkdir -p $$(dir $$@)
	@bash test/freestanding/size_refs.sh $(2) $$(TNM.$(1)) $$(SIZE_LIB.$(1).$$(SIZE_SET.$(2))) \
	    $$(@D)/refs.c $$(@D)/refs.list
	@$$(TCC.$(1)) $$(call SIZE_IMAGE_CFLAGS,$(1)) -c test/freestanding/image_main.c -o $$(@D)/image_main.o
	@$$(TCC.$(1)) $$(call SIZE_IMAGE_CFLAGS,$(1)) -w -c $$(@D)/refs.c -o $$(@D)/refs.o
	$$(TCC.$(1)) $$(TFLAGS.$(1)) -nostdlib -nostartfiles -T linker/check_image.ld \
	    -Wl,--gc-sections -Wl,-Map=$$(@D)/image.map -o $$@ $$(@D)/image_main.o $$(@D)/refs.o \
	    -Wl,--start-group $$(SIZE_LIB.$(1).$$(SIZE_SET.$(2))) $$(SIZE_PKG.$(1).$(2)) -lgcc -Wl,--end-group
endef
$(foreach t,$(SIZE_TARGETS),$(foreach c,$(SIZE_CONFIGS),$(eval $(call upq_size_image,$(t),$(c)))))

SIZE_IMAGES = $(foreach t,$(1),$(foreach c,$(SIZE_CONFIGS),$(SIZE)/$(t)/$(c)/image.elf))

# ---- the probe: struct sizes and arenas, run on the Cortex-M4 under qemu ----------
SIZE_PROBE := $(SIZE)/cortex-m4/probe
QEMU_SYSTEM_ARM ?= qemu-system-arm

# Every `typedef struct upq_x {` of the public headers.
$(SIZE)/size_structs.h: $(wildcard core/include/uparquet/*.h) test/freestanding/size.mk
	@mkdir -p $(dir $@)
	@{ echo '/* Generated by test/freestanding/size.mk: the public structs. */'; \
	   echo '#define UPQ_PROBE_STRUCTS \'; \
	   sed -n 's/^typedef struct \(upq_[a-z0-9_]*\) {.*/    UPQ_PROBE_STRUCT(\1) \\/p' \
	       $(filter-out %/posix.h,$(wildcard core/include/uparquet/*.h)) | sort -u; \
	   echo; } >$@

$(SIZE_PROBE).elf: test/freestanding/size_probe.c examples/sensor_logger/sensor_logger.c \
        $(SIZE)/size_structs.h $(CM4_LIB) $(DEPS_LIBS.cortex-m4) linker/check_image.ld
	@mkdir -p $(dir $@)
	$(TCC.cortex-m4) $(CM4_CFLAGS) -Wno-missing-prototypes -I$(SIZE) -Iexamples/sensor_logger \
	    -c test/freestanding/size_probe.c -o $(SIZE_PROBE)_main.o
	$(TCC.cortex-m4) $(CM4_CFLAGS) -c examples/sensor_logger/sensor_logger.c -o $(SIZE_PROBE)_logger.o
	$(TCC.cortex-m4) $(TFLAGS.cortex-m4) -nostdlib -nostartfiles -T linker/check_image.ld \
	    -Wl,--gc-sections -o $@ $(SIZE_PROBE)_main.o $(SIZE_PROBE)_logger.o \
	    -Wl,--start-group $(CM4_LIB) $(DEPS_LIBS.cortex-m4) -lgcc -Wl,--end-group

$(SIZE_PROBE).txt: $(SIZE_PROBE).elf
	@timeout 120 $(QEMU_SYSTEM_ARM) -M mps2-an386 -nographic -monitor none -serial none \
	    -semihosting-config enable=on,target=native -kernel $< >$@.tmp 2>&1 || \
	    { cat $@.tmp; rm -f $@.tmp; echo "size: the probe failed under qemu"; exit 1; }
	@mv $@.tmp $@

# ---- reading the logger's day: the closed file of the 24 h run at 10 Hz (864,000
# rows, the logger's defaults), read one column at a time by the reader
# firmware (fw_reader.elf --column K) on the Cortex-M4 under qemu; its arena's
# high-water mark per column ---------------------------------------------------------
SIZE_DAY := $(SIZE)/logger-day.parquet
SIZE_READ := $(SIZE)/cortex-m4/logger_read.txt

$(SIZE_DAY): $(HOST)/sensor_logger
	@mkdir -p $(dir $@)
	@rm -f $@
	@$(HOST)/sensor_logger --rows 864000 $@ >$@.log || { cat $@.log; exit 1; }

$(SIZE_READ): $(BUILD)/firmware/fw_reader.elf $(SIZE_DAY)
	@mkdir -p $(dir $@)
	@rm -f $@.tmp
	@for k in 0 1 2 3 4 5 6 7 8 9 10; do \
	    timeout 300 $(QEMU_SYSTEM_ARM) -M mps2-an386 -nographic -monitor none \
	        -semihosting-config enable=on,target=native -kernel $(BUILD)/firmware/fw_reader.elf \
	        -append "--column $$k $(SIZE_DAY) /dev/null" </dev/null >$@.col 2>&1 || \
	        { cat $@.col; echo "size: fw_reader --column $$k failed"; exit 1; }; \
	    grep -q '^rows: 864000$$' $@.col || { cat $@.col; echo "size: column $$k: not every row read"; exit 1; }; \
	    echo "logger-read $$k $$(sed -n 's/^arena: .*high water \([0-9]*\)$$/\1/p' $@.col)" >>$@.tmp; \
	done
	@rm -f $@.col
	@mv $@.tmp $@

# ---- the report ---------------------------------------------------------------------
SIZE_REPORT = $(NODE) test/freestanding/size_report.mjs --size-dir $(SIZE) \
    --targets '$(1)' --configs '$(SIZE_CONFIGS)' --budgets test/freestanding/budgets.txt \
    --stack-objs '$(CM4_LIB_OBJ)' --stack-deps '$(foreach l,$(DEPS_LIBS.cortex-m4),$(dir $(l)))' \
    --indirect test/freestanding/stack_indirect.txt --probe $(SIZE_PROBE).txt --read $(SIZE_READ) \
    --entries $(SIZE)/cortex-m4/everything/refs.list $(2)

.PHONY: size-check
size-lib: $(call SIZE_IMAGES,$(SIZE_TARGETS)) $(SIZE_PROBE).txt $(SIZE_READ)
	@$(call SIZE_REPORT,$(SIZE_TARGETS))

# The stack check's own test: it must find the fixture's recursion and its
# undescribed indirect call.
SIZE_FIXTURE := $(SIZE)/cortex-m4/stack_fixture
$(SIZE_FIXTURE).o: test/freestanding/stack_fixture.c
	@mkdir -p $(dir $@)
	$(TCC.cortex-m4) $(CM4_CFLAGS) -c $< -o $@

# The -min sets' options on the host: encryption, bloom filters, a page
# index, statistics' bounds and DATA_PAGE_V2 asked of such a build give
# UPQ_ERR_UNSUPPORTED (test/freestanding/options_off.c).
SIZE_OPTIONS_OFF := $(SIZE)/host/options_off
$(SIZE_OPTIONS_OFF): test/freestanding/options_off.c $(LIB_SRC) port/adapters/posix/io_posix.c \
        $(wildcard core/include/uparquet/*.h core/*/*.h port/config/upq-*.h port/config/upq_*.h) test/freestanding/size.mk
	@mkdir -p $(dir $@)
	$(CC) -std=c99 -O1 $(WARN_LIB) -Wno-missing-prototypes -Werror $(INCLUDES) $(SIZE_MIN_OFF) \
	    -o $@ test/freestanding/options_off.c $(LIB_SRC) port/adapters/posix/io_posix.c

# The logger set on the host (UPQ_WITH_BUFFERED 0): buffered and direct mode
# asked of it give UPQ_ERR_UNSUPPORTED, checkpoint mode starts
# (test/freestanding/logger_only.c). About 40 s of compiling.
SIZE_LOGGER_ONLY := $(SIZE)/host/logger_only
$(SIZE_LOGGER_ONLY): test/freestanding/logger_only.c $(LIB_SRC) \
        $(wildcard core/include/uparquet/*.h core/*/*.h port/config/upq-*.h port/config/upq_*.h) test/freestanding/size.mk
	@mkdir -p $(dir $@)
	$(CC) -std=c99 -O1 $(WARN_LIB) -Wno-missing-prototypes -Werror $(INCLUDES) $(call SIZE_OPTION_SET,logger) \
	    -o $@ test/freestanding/logger_only.c $(LIB_SRC)

# The same test built with writer-min's options as they are (checkpoint
# mode off, as the set ships; snappy on for the corpus files it reads): the
# minimal writer runs, not only links, and a plain cc link without
# --gc-sections resolves it.
SIZE_WRITER_MIN := $(SIZE)/host/options_off_wmin
$(SIZE_WRITER_MIN): test/freestanding/options_off.c $(LIB_SRC) port/adapters/posix/io_posix.c \
        $(wildcard core/include/uparquet/*.h core/*/*.h port/config/upq-*.h port/config/upq_*.h) test/freestanding/size.mk
	@mkdir -p $(dir $@)
	$(CC) -std=c99 -O1 $(WARN_LIB) -Wno-missing-prototypes -Werror $(INCLUDES) \
	    -DUPQ_WITH_SNAPPY=1 $(call SIZE_OPTION_SET,writer-min) \
	    -o $@ test/freestanding/options_off.c $(LIB_SRC) port/adapters/posix/io_posix.c

.PHONY: size-options-off
size-options-off: $(SIZE_OPTIONS_OFF) $(SIZE_WRITER_MIN) $(SIZE_LOGGER_ONLY)
	@$(SIZE_OPTIONS_OFF) $(PARQUET_TESTING_DIR)
	@$(SIZE_WRITER_MIN) $(PARQUET_TESTING_DIR)
	@$(SIZE_LOGGER_ONLY)

# The CRC-32 port seam (UPQ_CRC32_PORT) with a test double for a CRC unit
# (test/freestanding/crc_port.c): core/common/crc32.c built with the seam on,
# once per UPQ_CRC32_TABLE form (what the table does for a unit's leftovers),
# linked ahead of the host library, whose reader and writer then checksum
# through it. About 2 s.
CRC_PORT := $(SIZE)/host/crc_port
CRC_PORT_TABLES := 0 1 4 8
$(CRC_PORT)/crc32_t%.o: core/common/crc32.c core/common/crc32.h core/common/crc32_tab8.h port/upq_port.h port/upq_simd.h         test/freestanding/size.mk
	@mkdir -p $(dir $@)
	$(CC) -std=c99 -O2 $(WARN_LIB) -Werror $(FREESTANDING) $(INCLUDES) -DUPQ_CRC32_PORT=1 \
	    -DUPQ_CRC32_TABLE=$* -c $< -o $@
$(CRC_PORT)/crc_port_t%: test/freestanding/crc_port.c $(CRC_PORT)/crc32_t%.o $(HOST_TEST_UTIL_OBJ) $(LIB) \
        $(CODEC_LIBS)
	$(CC) $(TEST_CFLAGS) -DUPQ_CRC32_PORT=1 -DUPQ_CRC32_TABLE=$* -o $@ $< $(CRC_PORT)/crc32_t$*.o \
	    $(HOST_TEST_UTIL_OBJ) $(LIB) $(CODEC_LIBS) -lm

.SECONDARY: $(foreach t,$(CRC_PORT_TABLES),$(CRC_PORT)/crc32_t$(t).o)
.PHONY: check-crc-port
check-crc-port: $(foreach t,$(CRC_PORT_TABLES),$(CRC_PORT)/crc_port_t$(t))
	@bash test/sum_counts.sh $(foreach t,$(CRC_PORT_TABLES),'$(CRC_PORT)/crc_port_t$(t) $(PARQUET_TESTING_DIR)')
CHECK_EXTRA_TARGETS += check-crc-port

size-check: $(call SIZE_IMAGES,$(SIZE_CHECK_TARGETS)) $(SIZE_PROBE).txt $(SIZE_READ) $(SIZE_FIXTURE).o \
        size-options-off
	@echo upq_fixture_a upq_fixture_c >$(SIZE_FIXTURE).entries
	@if $(NODE) test/freestanding/size_report.mjs --size-dir $(SIZE) --targets '' --configs '' \
	        --budgets test/freestanding/budgets.txt --stack-objs $(SIZE_FIXTURE).o \
	        --indirect test/freestanding/stack_indirect.txt --probe $(SIZE_PROBE).txt \
	        --entries $(SIZE_FIXTURE).entries --check >$(SIZE_FIXTURE).log 2>&1 || \
	    ! grep -q 'recursion: upq_fixture_. -> upq_fixture_. -> upq_fixture_.' $(SIZE_FIXTURE).log || \
	    ! grep -q 'upq_fixture_c makes an indirect call' $(SIZE_FIXTURE).log; then \
	    cat $(SIZE_FIXTURE).log; echo "size: the stack check missed the fixture's recursion"; \
	    echo "0 passed, 1 failed"; exit 1; fi
	@$(call SIZE_REPORT,$(SIZE_CHECK_TARGETS),--check)

CHECK_EXTRA_TARGETS += size-check
