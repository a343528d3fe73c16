# Cortex-M4 firmware images (make firmware), run under qemu's mps2-an386
# board in `make check` (stage firmware-check, test/firmware/run.sh).
#
#   $(BUILD)/firmware/sensor_logger.elf   the sensor logger (examples/sensor_logger
#                                         core and main loop) writing through semihosting
#   $(BUILD)/firmware/sensor_logger_fatfs.elf  the same, also with --fs fatfs: FatFs
#                                         (FATFS_DIR) and port/adapters/fatfs on a RAM disk
#   $(BUILD)/firmware/fw_reader.elf       any Parquet file -> `upq cat --raw` lines,
#                                         in a static arena of FW_READER_ARENA bytes
#   $(BUILD)/firmware/fw_reader_big.elf   the same with FW_READER_BIG_ARENA bytes
#                                         (reads the files the small arena cannot)
#   $(BUILD)/firmware/fw_reader_32k.elf   the same with a 32 KB arena (--lazy: files
#                                         of any number of row groups)
#   $(BUILD)/firmware/fw_ipv.elf          instructions per value of column decoding
#                                         (make bench: test/bench/fw_ipv.sh)
#   $(BUILD)/firmware/stm32f4/*.elf       the same programs linked for a 1 MB flash /
#                                         128 KB RAM part (linker/stm32f4.ld): the
#                                         size budget; the reader with a smaller arena
#
# Library and codec packages as built for Cortex-M4 by freestanding.mk and
# codecs.mk (the flags of `make deps TARGET=cortex-m4`); the startup
# (port/adapters/cortex-m) and semihosting adapter (port/adapters/semihost) are not part of
# the library. Include after codecs.mk, freestanding.mk, examples.mk and
# test.mk (the check stage needs their programs).

FW := $(BUILD)/firmware
FW_READER_ARENA ?= 262144
FW_READER_BIG_ARENA ?= 3145728
FW_STM32_READER_ARENA ?= 65536
FW_STM32_READER_OUT ?= 4096
# The budget part's stack; the check holds both images' measured stack
# high-water marks to it.
FW_STM32_STACK ?= 8192
FW_STM32_LDFLAGS = -Wl,--defsym=UPQ_CM_STACK_SIZE=$(FW_STM32_STACK)

QEMU_ARM ?= qemu-system-arm
# Everything the images need besides their own code; firmware code is
# compiled like library code (freestanding, the library's warnings).
FW_CFLAGS = $(CM4_CFLAGS) -Iexamples/firmware
FW_LDFLAGS = $(TOPT.cortex-m4) $(TFLAGS.cortex-m4) -nostdlib -nostartfiles -Llinker -Wl,--gc-sections
FW_LIBS = -Wl,--start-group $(CM4_LIB) $(DEPS_LIBS.cortex-m4) -lgcc -Wl,--end-group

FW_COMMON_SRC := port/adapters/cortex-m/startup.c port/adapters/semihost/io_semihost.c examples/firmware/fw_util.c \
                 examples/upq/rows_json.c
FW_COMMON_OBJ := $(patsubst %.c,$(FW)/obj/%.o,$(FW_COMMON_SRC))
FW_LOGGER_OBJ := $(FW)/obj/examples/firmware/logger_main.o \
                 $(FW)/obj/examples/sensor_logger/sensor_logger.o \
                 $(FW)/obj/examples/sensor_logger/logger_cli.o
# The FatFs logger: its own objects (FW_WITH_FATFS), FatFs built from its
# release with the logger's ffconf.h (examples.mk), and the few C library
# functions FatFs calls, which a board's C library would supply.
FW_FATFS_TREE := $(FW)/third_party/fatfs
$(eval $(call fatfs_tree_rules,$(FW_FATFS_TREE)))
FW_FATFS_HDRS := $(FW_FATFS_TREE)/ff.h $(FW_FATFS_TREE)/diskio.h $(FW_FATFS_TREE)/ffconf.h
FW_FATFS_CFLAGS = -DFW_WITH_FATFS=1 -DSENSOR_WITH_FATFS=1 -isystem $(FW_FATFS_TREE)
FW_LOGGER_FATFS_OBJ := $(FW)/obj/fatfs/logger_main.o $(FW)/obj/fatfs/fs_stores.o \
                       $(FW)/obj/fatfs/fatfs_disk.o $(FW)/obj/fatfs/ramdisk.o $(FW)/obj/fatfs/upq_fatfs.o \
                       $(FW)/obj/fatfs/fw_libc.o $(FW)/obj/examples/sensor_logger/sensor_logger.o \
                       $(FW)/obj/examples/sensor_logger/logger_cli.o $(FW_FATFS_TREE)/ff.o $(FW_FATFS_TREE)/ffunicode.o
# (a static pattern: as a plain pattern without a source it also matched
# X.d.o, which make's built-in `%: %.o` asked for to remake each included .d)
$(filter $(FW)/obj/fatfs/%,$(FW_LOGGER_FATFS_OBJ)): $(FW)/obj/fatfs/%.o: $(FW_FATFS_HDRS) $(DEPS_STAMPS) \
        examples/firmware/firmware.mk
	@mkdir -p $(dir $@)
	$(TCC.cortex-m4) $(FW_CFLAGS) $(FW_FATFS_CFLAGS) -MMD -MP -c $(firstword $(filter %/$(*F).c,$(FW_FATFS_SRC))) -o $@
FW_FATFS_SRC := examples/firmware/logger_main.c examples/sensor_logger/fs_stores.c \
                examples/sensor_logger/fatfs_disk.c examples/sensor_logger/ramdisk.c \
                port/adapters/fatfs/upq_fatfs.c examples/firmware/fw_libc.c
$(foreach s,$(FW_FATFS_SRC),$(eval $(FW)/obj/fatfs/$(notdir $(s:.c=.o)): $(s)))
$(FW_FATFS_TREE)/%.o: $(FW_FATFS_TREE)/%.c $(FW_FATFS_HDRS)
	$(TCC.cortex-m4) -std=c99 $(TOPT.cortex-m4) $(TFLAGS.cortex-m4) -ffreestanding -w -I$(FW_FATFS_TREE) -c $< -o $@
FW_READER_OBJ := $(FW)/obj/examples/firmware/reader_main.o
FW_READER_BIG_OBJ := $(FW)/obj/big/reader_main.o
FW_READER_32K_OBJ := $(FW)/obj/32k/reader_main.o
FW_STM32_READER_OBJ := $(FW)/obj/stm32f4/reader_main.o
FW_IPV_OBJ := $(FW)/obj/examples/firmware/ipv_main.o

FW_IMAGES := $(FW)/sensor_logger.elf $(FW)/fw_reader.elf $(FW)/fw_reader_big.elf \
             $(FW)/fw_reader_32k.elf $(if $(HAVE_FATFS),$(FW)/sensor_logger_fatfs.elf)
FW_BUDGET_IMAGES := $(FW)/stm32f4/sensor_logger.elf $(FW)/stm32f4/fw_reader.elf

$(FW)/obj/%.o: %.c $(DEPS_STAMPS) examples/firmware/firmware.mk
	@mkdir -p $(dir $@)
	$(TCC.cortex-m4) $(FW_CFLAGS) -MMD -MP -c $< -o $@
$(FW)/obj/examples/firmware/reader_main.o: FW_CFLAGS += -DFW_READER_ARENA_BYTES=$(FW_READER_ARENA)
$(FW_READER_BIG_OBJ): examples/firmware/reader_main.c $(DEPS_STAMPS) examples/firmware/firmware.mk
	@mkdir -p $(dir $@)
	$(TCC.cortex-m4) $(FW_CFLAGS) -DFW_READER_ARENA_BYTES=$(FW_READER_BIG_ARENA) -MMD -MP -c $< -o $@
$(FW_READER_32K_OBJ): examples/firmware/reader_main.c $(DEPS_STAMPS) examples/firmware/firmware.mk
	@mkdir -p $(dir $@)
	$(TCC.cortex-m4) $(FW_CFLAGS) -DFW_READER_ARENA_BYTES=32768 -MMD -MP -c $< -o $@
$(FW_STM32_READER_OBJ): examples/firmware/reader_main.c $(DEPS_STAMPS) examples/firmware/firmware.mk
	@mkdir -p $(dir $@)
	$(TCC.cortex-m4) $(FW_CFLAGS) -DFW_READER_ARENA_BYTES=$(FW_STM32_READER_ARENA) \
	    -DFW_READER_OUT_BYTES=$(FW_STM32_READER_OUT) -MMD -MP -c $< -o $@

# $(call fw_link,LDSCRIPT,OBJECTS[,LDFLAGS])
define fw_link
	@mkdir -p $(dir $@)
	$(TCC.cortex-m4) $(FW_LDFLAGS) $(3) -T $(1) -Wl,-Map=$(@:.elf=.map) -o $@ $(2) $(FW_LIBS)
endef
FW_LINK_DEPS = $(FW_COMMON_OBJ) $(CM4_LIB) $(DEPS_LIBS.cortex-m4) linker/cortex_m_sections.ld

$(FW)/sensor_logger.elf: $(FW_LOGGER_OBJ) $(FW_LINK_DEPS) linker/mps2_an386.ld
	$(call fw_link,mps2_an386.ld,$(FW_LOGGER_OBJ) $(FW_COMMON_OBJ))
$(FW)/sensor_logger_fatfs.elf: $(FW_LOGGER_FATFS_OBJ) $(FW_LINK_DEPS) linker/mps2_an386.ld
	$(call fw_link,mps2_an386.ld,$(FW_LOGGER_FATFS_OBJ) $(FW_COMMON_OBJ))
$(FW)/fw_reader.elf: $(FW_READER_OBJ) $(FW_LINK_DEPS) linker/mps2_an386.ld
	$(call fw_link,mps2_an386.ld,$(FW_READER_OBJ) $(FW_COMMON_OBJ))
$(FW)/fw_reader_big.elf: $(FW_READER_BIG_OBJ) $(FW_LINK_DEPS) linker/mps2_an386.ld
	$(call fw_link,mps2_an386.ld,$(FW_READER_BIG_OBJ) $(FW_COMMON_OBJ))
$(FW)/fw_reader_32k.elf: $(FW_READER_32K_OBJ) $(FW_LINK_DEPS) linker/mps2_an386.ld
	$(call fw_link,mps2_an386.ld,$(FW_READER_32K_OBJ) $(FW_COMMON_OBJ))
# instructions per value (test/bench/fw_ipv.sh, make bench)
$(FW)/fw_ipv.elf: $(FW_IPV_OBJ) $(FW_LINK_DEPS) linker/mps2_an386.ld
	$(call fw_link,mps2_an386.ld,$(FW_IPV_OBJ) $(FW_COMMON_OBJ))
$(FW)/stm32f4/sensor_logger.elf: $(FW_LOGGER_OBJ) $(FW_LINK_DEPS) linker/stm32f4.ld
	$(call fw_link,stm32f4.ld,$(FW_LOGGER_OBJ) $(FW_COMMON_OBJ),$(FW_STM32_LDFLAGS))
$(FW)/stm32f4/fw_reader.elf: $(FW_STM32_READER_OBJ) $(FW_LINK_DEPS) linker/stm32f4.ld
	$(call fw_link,stm32f4.ld,$(FW_STM32_READER_OBJ) $(FW_COMMON_OBJ),$(FW_STM32_LDFLAGS))

# ---- RV32IMAC images (qemu-system-riscv32 -M virt) ------------------------------
# The same programs for a RISC-V microcontroller core, on the library and
# packages built for rv32imac (freestanding.mk, codecs.mk), with the RV32
# startup (port/adapters/riscv) and the same semihosting adapter:
#   $(FW)/riscv/sensor_logger.elf  fw_reader.elf  fw_reader_big.elf  fw_ipv.elf
# Firmware objects get the Zicsr extension (the instret counter); the link
# names the plain rv32imac multilib.
FW_RV := $(FW)/riscv
QEMU_RISCV32 ?= qemu-system-riscv32
FW_RV_CFLAGS = $(subst -march=rv32imac,-march=rv32imac_zicsr,$(RV_CFLAGS)) -Iexamples/firmware
FW_RV_LDFLAGS = $(TOPT.rv32imac) $(TFLAGS.rv32imac) -nostdlib -nostartfiles -Llinker -Wl,--gc-sections \
                -Wl,--no-warn-rwx-segments
FW_RV_LIBS = -Wl,--start-group $(RV_LIB) $(DEPS_LIBS.rv32imac) -lgcc -Wl,--end-group
FW_RV_COMMON_SRC := port/adapters/riscv/startup.c port/adapters/semihost/io_semihost.c \
                    examples/firmware/fw_util.c examples/upq/rows_json.c
FW_RV_COMMON_OBJ := $(patsubst %.c,$(FW_RV)/obj/%.o,$(FW_RV_COMMON_SRC))
# (gcc makes the logger's struct assignments memcpy calls on RV32: the
# image links the C functions a board's C library would give it,
# fw_libc.c; the library itself needs none, which the reader images and
# `make size`'s rv32imac images, linked without them, show)
FW_RV_LOGGER_OBJ := $(FW_RV)/obj/examples/firmware/logger_main.o \
                    $(FW_RV)/obj/examples/sensor_logger/sensor_logger.o \
                    $(FW_RV)/obj/examples/sensor_logger/logger_cli.o \
                    $(FW_RV)/obj/examples/firmware/fw_libc.o
FW_RV_IMAGES := $(FW_RV)/sensor_logger.elf $(FW_RV)/fw_reader.elf $(FW_RV)/fw_reader_big.elf \
                $(FW_RV)/fw_ipv.elf

$(FW_RV)/obj/%.o: %.c $(DEPS_STAMPS) examples/firmware/firmware.mk
	@mkdir -p $(dir $@)
	$(TCC.rv32imac) $(FW_RV_CFLAGS) -MMD -MP -c $< -o $@
$(FW_RV)/obj/examples/firmware/reader_main.o: FW_RV_CFLAGS += -DFW_READER_ARENA_BYTES=$(FW_READER_ARENA)
$(FW_RV)/obj/big/reader_main.o: examples/firmware/reader_main.c $(DEPS_STAMPS) examples/firmware/firmware.mk
	@mkdir -p $(dir $@)
	$(TCC.rv32imac) $(FW_RV_CFLAGS) -DFW_READER_ARENA_BYTES=$(FW_READER_BIG_ARENA) -MMD -MP -c $< -o $@

# $(call fw_rv_link,OBJECTS)
define fw_rv_link
	@mkdir -p $(dir $@)
	$(TCC.rv32imac) $(FW_RV_LDFLAGS) -T riscv_virt.ld -Wl,-Map=$(@:.elf=.map) -o $@ $(1) $(FW_RV_LIBS)
endef
FW_RV_LINK_DEPS = $(FW_RV_COMMON_OBJ) $(RV_LIB) $(DEPS_LIBS.rv32imac) linker/riscv_virt.ld
$(FW_RV)/sensor_logger.elf: $(FW_RV_LOGGER_OBJ) $(FW_RV_LINK_DEPS)
	$(call fw_rv_link,$(FW_RV_LOGGER_OBJ) $(FW_RV_COMMON_OBJ))
$(FW_RV)/fw_reader.elf: $(FW_RV)/obj/examples/firmware/reader_main.o $(FW_RV_LINK_DEPS)
	$(call fw_rv_link,$(FW_RV)/obj/examples/firmware/reader_main.o $(FW_RV_COMMON_OBJ))
$(FW_RV)/fw_reader_big.elf: $(FW_RV)/obj/big/reader_main.o $(FW_RV_LINK_DEPS)
	$(call fw_rv_link,$(FW_RV)/obj/big/reader_main.o $(FW_RV_COMMON_OBJ))
$(FW_RV)/fw_ipv.elf: $(FW_RV)/obj/examples/firmware/ipv_main.o $(FW_RV_LINK_DEPS)
	$(call fw_rv_link,$(FW_RV)/obj/examples/firmware/ipv_main.o $(FW_RV_COMMON_OBJ))

.PHONY: firmware-riscv check-riscv
firmware-riscv: $(FW_RV_IMAGES)

# A `make check` stage (test/cross/riscv_firmware.sh): the logger's files and
# the reader's output on every corpus file byte-identical to the host's.
check-riscv: $(FW_RV_IMAGES) $(UPQ) $(SENSOR)
	@FW_RV_DIR='$(FW_RV)' QEMU_RISCV32='$(QEMU_RISCV32)' UPQ='$(UPQ)' SENSOR='$(SENSOR)' \
	  FW_READER_ARENA='$(FW_READER_ARENA)' bash test/cross/riscv_firmware.sh
CHECK_EXTRA_TARGETS += check-riscv

.PHONY: size-firmware firmware-check
firmware: $(FW_IMAGES) $(FW_BUDGET_IMAGES)
	@$(MAKE) --no-print-directory size-firmware
	@echo "run one: $(QEMU_ARM) -M mps2-an386 -nographic -monitor none" \
	    "-semihosting-config enable=on,target=native -kernel $(FW)/fw_reader.elf -append 'IN.parquet OUT.jsonl'"

size: size-firmware
size-firmware: $(FW_IMAGES) $(FW_BUDGET_IMAGES)
	@echo "Firmware images (text = code + constants in flash; data + bss in RAM, stack not included):"
	@$(TSIZE.cortex-m4) $(FW_IMAGES) $(FW_BUDGET_IMAGES) | sed 's|$(FW)/||'

# Instructions per value of column decoding and per row of the sensor
# logger on the Cortex-M4 (qemu -icount):
# printed by `make bench`, kept working by `make check` (the script fails
# when an image run gives no figure).
# The same figures for the RV32IMAC images (qemu-system-riscv32, instret).
.PHONY: bench-fw check-fw-ipv
bench-fw check-fw-ipv: $(FW)/fw_ipv.elf $(FW)/sensor_logger.elf $(UPQ) $(FW)/riscv/fw_ipv.elf \
        $(FW)/riscv/sensor_logger.elf
	@QEMU_ARM='$(QEMU_ARM)' QEMU_RISCV32='$(QEMU_RISCV32)' RV_IPV=$(abspath $(FW)/riscv/fw_ipv.elf) \
	  RV_LOGGER=$(abspath $(FW)/riscv/sensor_logger.elf) \
	  bash test/bench/fw_ipv.sh $(abspath $(UPQ)) $(abspath $(FW)/fw_ipv.elf) \
	    $(abspath $(FW)/ipv) $(abspath $(FW)/sensor_logger.elf)
bench: bench-fw
CHECK_EXTRA_TARGETS += check-fw-ipv

# A `make check` stage: the images under qemu against the host tools.
CHECK_EXTRA_TARGETS += firmware-check
# The budget images only have to link.
firmware-check: $(FW_IMAGES) $(FW_BUDGET_IMAGES) $(UPQ) $(SENSOR) $(INTEROP_STAMP)
	@FW_DIR='$(FW)' QEMU_ARM='$(QEMU_ARM)' UPQ='$(UPQ)' SENSOR='$(SENSOR)' NODE='$(NODE)' \
	  FW_READER_ARENA='$(FW_READER_ARENA)' FW_STACK_BUDGET='$(FW_STM32_STACK)' TSIZE='$(TSIZE.cortex-m4)' \
	  bash test/firmware/run.sh


# `make check` runs the extra stages in a sub-make: the host programs this
# one shares with other stages are built first, never twice at once.
stage-extra: $(UPQ) $(SENSOR) $(INTEROP_STAMP)
