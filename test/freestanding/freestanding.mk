# Freestanding checks and the Cortex-M4 library build.
#
#   make freestanding-check   (a `make check` stage) see check.sh: nm checks of
#                             every library and package object, Cortex-M4 and
#                             host, and a bare -nostdlib Cortex-M4 image link
#   make size                 code/data/stack/RAM table and budgets (size.mk)
#   $(BUILD)/cortex-m4/libuparquet.a   the library for Cortex-M4 (-Os, thumb,
#                             hard float), the flags of `make deps TARGET=cortex-m4`
#
# Uses the toolchain variables of codecs/codecs.mk: include this file after it.
ifndef UPQ_FREESTANDING_MK
UPQ_FREESTANDING_MK := 1

CM4 := $(BUILD)/cortex-m4
CM4_LIB := $(CM4)/libuparquet.a
CM4_LIB_OBJ := $(patsubst %.c,$(CM4)/%.o,$(LIB_SRC))
# -g costs no target memory and lets the check name the source line of a
# stray libc reference; the stack usage and call graph files (.su, .ci beside
# each object) feed the stack check of size.mk.
CM4_CFLAGS = -std=c99 $(TOPT.cortex-m4) -g $(TFLAGS.cortex-m4) -ffreestanding -fno-builtin \
             $(TNOLOOP.cortex-m4) $(WARN_LIB) $(INCLUDES) $(CODEC_DEFS_MCU) $(CM4_EXTRA_CFLAGS) \
             -fstack-usage -fcallgraph-info=su

define upq_cm4_compile
	@mkdir -p $(dir $@)
	$(TCC.cortex-m4) $(CM4_CFLAGS) -MMD -MP -c $< -o $@
endef
$(CM4)/core/%.o: core/%.c
	$(upq_cm4_compile)
$(CM4)/port/%.o: port/%.c
	$(upq_cm4_compile)
$(CM4)/codecs/%.o: codecs/%.c
	$(upq_cm4_compile)

# The codec options change with the fetched packages.
$(CM4_LIB_OBJ): $(DEPS_STAMPS) test/freestanding/freestanding.mk

$(CM4_LIB): $(CM4_LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	$(TAR.cortex-m4) rcs $@ $^

# The library for RV32IMAC microcontrollers (-Os, the flags of `make deps
# TARGET=rv32imac`): the RISC-V firmware images (firmware.mk) link it.
RV := $(BUILD)/rv32imac
RV_LIB := $(RV)/libuparquet.a
RV_LIB_OBJ := $(patsubst %.c,$(RV)/%.o,$(LIB_SRC))
RV_CFLAGS = -std=c99 $(TOPT.rv32imac) -g $(TFLAGS.rv32imac) -ffreestanding -fno-builtin \
            $(TNOLOOP.rv32imac) $(WARN_LIB) $(INCLUDES) $(CODEC_DEFS_MCU) $(RV_EXTRA_CFLAGS) \
            $(TSYSINC.rv32imac)
$(RV_LIB_OBJ): $(RV)/%.o: %.c $(DEPS_STAMPS) test/freestanding/freestanding.mk
	@mkdir -p $(dir $@)
	$(TCC.rv32imac) $(RV_CFLAGS) -MMD -MP -c $< -o $@
$(RV_LIB): $(RV_LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	$(TAR.rv32imac) rcs $@ $^

.PHONY: freestanding-check size size-lib
# A stage of `make check` (test/test.mk runs CHECK_EXTRA_TARGETS).
CHECK_EXTRA_TARGETS += freestanding-check

freestanding-check: $(CM4_LIB) $(DEPS_LIBS.cortex-m4) $(LIB) $(CODEC_LIBS)
	@FS_OUT='$(CM4)/freestanding' FS_LDSCRIPT=linker/check_image.ld \
	  FS_CM4_CC='$(TCC.cortex-m4)' FS_CM4_NM='$(TNM.cortex-m4)' FS_CM4_SIZE='$(TSIZE.cortex-m4)' \
	  FS_CM4_CFLAGS='-std=c99 $(TOPT.cortex-m4) $(TFLAGS.cortex-m4) -ffreestanding -fno-builtin $(TNOLOOP.cortex-m4) -Wall -Wextra' \
	  FS_CM4_LIB='$(CM4_LIB)' FS_CM4_OBJS='$(CM4_LIB_OBJ)' FS_CM4_DEPS='$(DEPS_LIBS.cortex-m4)' \
	  FS_HOST_NM='$(TNM.host)' FS_HOST_OBJS='$(LIB_OBJ)' FS_HOST_DEPS='$(CODEC_LIBS)' \
	  FS_M0_NM='$(TNM.cortex-m0plus)' FS_M0_OBJS='$(SIZE_OBJ.cortex-m0plus.full)' \
	  FS_RV_NM='$(TNM.rv32imac)' FS_RV_OBJS='$(RV_LIB_OBJ)' \
	  $(SHELL) test/freestanding/check.sh

# Sizes come from this target, never from memory. Other fragments may add
# their own prerequisites to `size` (firmware images).
size: size-lib

include test/freestanding/size.mk

endif
