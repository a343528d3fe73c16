# Third-party packages behind the codec and crypto adapters: lz4 (block API),
# zstd (decoder), mbedtls (AES-GCM/CTR), zlib (gzip), brotli (decoder) and
# libdeflate (the GZIP page decoder; compiled by codecs/upq_gzip.c). Never committed:
# `make deps` fetches the versions pinned in codecs/deps.lock into $(DEPS_DIR),
# verifies them and builds them as static libraries for one target.
#
#   make deps                      fetch, then build for the host
#   make deps TARGET=cortex-m4     ... for Cortex-M4 (arm-none-eabi, hard float)
#   make deps TARGET=rv32imac      ... for RV32IMAC microcontrollers (riscv64-unknown-elf)
#   make deps TARGET=aarch64       ... for aarch64 Linux
#   make deps TARGET=armv7         ... for ARMv7-A Linux (NEON, hard float)
#   make deps TARGET=powerpc       ... for 32-bit big-endian PowerPC Linux
#   make deps LZ4_SRC=/path ZSTD_SRC=... MBEDTLS_SRC=... ZLIB_SRC=... BROTLI_SRC=...
#            LIBDEFLATE_SRC=...
#                                  use these sources (directory or tarball)
#   make deps UPQ_DEPS="lz4 zstd"  only some packages
#   make deps-build-all            build the fetched packages for every target
#   make deps-clean                remove the built packages (all targets)
#   make deps-distclean            also remove the fetched sources
#
# Libraries: $(BUILD)/<target>/deps/{liblz4,libzstd,libmbedcrypto,libz,libbrotlidec}.a
# (the host's under $(HOST), which a CROSS_COMPILE build moves; see Makefile).
# Once a package is fetched, CODEC_DEFS turns its UPQ_WITH_* option on and adds
# its headers (as -isystem: the library's warnings stay on for its own code,
# off for package headers), and CODEC_LIBS lists the host libraries to link after
# libuparquet.a (DEPS_LIBS.<target> for the other targets).

DEPS_DIR ?= codecs/.deps
UPQ_DEPS ?= lz4 zstd mbedtls zlib brotli libdeflate
TARGET ?= host
DEPS_TARGETS := host cortex-m4 cortex-m0plus rv32imac aarch64 armv7 powerpc

# --- toolchains, one set per target ------------------------------------------
CROSS_CM4 ?= arm-none-eabi-
CROSS_A64 ?= aarch64-linux-gnu-
CROSS_A32 ?= arm-linux-gnueabihf-
CROSS_PPC ?= powerpc-linux-gnu-
CROSS_RV ?= riscv64-unknown-elf-
NM ?= nm
OBJCOPY ?= objcopy

# The build directory of each target's objects and packages.
$(foreach t,$(DEPS_TARGETS),$(eval TDIR.$(t) := $(BUILD)/$(t)))
TDIR.host := $(HOST)

# A GNU cross toolchain's programs for target $(1), by their prefix $(2).
define CROSS_TOOLS
TCC.$(1) = $(2)gcc
TAR.$(1) = $(2)ar
TNM.$(1) = $(2)nm
TOBJCOPY.$(1) = $(2)objcopy
TSIZE.$(1) = $(2)size
endef

TCC.host = $(CC)
TAR.host = $(AR)
TNM.host = $(NM)
TOBJCOPY.host = $(OBJCOPY)
TOPT.host ?= -O2
TFLAGS.host =

$(eval $(call CROSS_TOOLS,cortex-m4,$$(CROSS_CM4)))
TOPT.cortex-m4 ?= -Os
TFLAGS.cortex-m4 = -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -nostdlib \
                   -ffunction-sections -fdata-sections

# Cortex-M0+ (ARMv6-M, no FPU): built for `make size` only.
$(eval $(call CROSS_TOOLS,cortex-m0plus,$$(CROSS_CM4)))
TOPT.cortex-m0plus ?= -Os
TFLAGS.cortex-m0plus = -mcpu=cortex-m0plus -mthumb -nostdlib -ffunction-sections -fdata-sections

# RISC-V microcontrollers (ESP32-C3, GD32VF103 class): RV32IMAC, no FPU,
# Debian's riscv64-unknown-elf-gcc (its rv32imac/ilp32 multilib has the
# libgcc the images link); run under qemu-system-riscv32 (firmware.mk).
$(eval $(call CROSS_TOOLS,rv32imac,$$(CROSS_RV)))
TOPT.rv32imac ?= -Os
TFLAGS.rv32imac = -march=rv32imac -mabi=ilp32 -nostdlib -ffunction-sections -fdata-sections
# The packages' sources include C library headers (assert.h, string.h), which
# this compiler takes from Debian's picolibc-riscv64-unknown-elf; nothing of
# picolibc is linked.
PICOLIBC_RV ?= /usr/lib/picolibc/riscv64-unknown-elf
DEPS_EXTRA_CFLAGS.rv32imac = -isystem $(PICOLIBC_RV)/include
# ... and so do the package headers the codec adapters include (as
# arm-none-eabi's newlib serves them on Cortex-M): last in the search
TSYSINC.rv32imac = -idirafter $(PICOLIBC_RV)/include

$(eval $(call CROSS_TOOLS,aarch64,$$(CROSS_A64)))
TOPT.aarch64 ?= -O2
# ARMv8 with the CRC32 instructions (every ARMv8.1 core has them; qemu too)
TFLAGS.aarch64 = -march=armv8-a+crc

# 32-bit ARMv7-A with NEON: the kernels' ARMv7 forms, no CRC32 instructions.
$(eval $(call CROSS_TOOLS,armv7,$$(CROSS_A32)))
TOPT.armv7 ?= -O2
TFLAGS.armv7 = -march=armv7-a -mfpu=neon -mfloat-abi=hard

# Big-endian: the test that the code never assumes the host's byte order.
$(eval $(call CROSS_TOOLS,powerpc,$$(CROSS_PPC)))
TOPT.powerpc ?= -O2
TFLAGS.powerpc =

# gcc turns copy and fill loops into memcpy/memset calls unless told not to;
# clang does not do that under -ffreestanding and rejects the gcc flag.
DEPS_HOST_IS_CLANG := $(shell $(CC) -dM -E -x c /dev/null 2>/dev/null | grep -c __clang__)
TNOLOOP.host = $(if $(filter 0,$(DEPS_HOST_IS_CLANG)),-fno-tree-loop-distribute-patterns)
TNOLOOP.cortex-m4 = -fno-tree-loop-distribute-patterns
TNOLOOP.cortex-m0plus = -fno-tree-loop-distribute-patterns
TNOLOOP.rv32imac = -fno-tree-loop-distribute-patterns
TNOLOOP.aarch64 = -fno-tree-loop-distribute-patterns
TNOLOOP.armv7 = -fno-tree-loop-distribute-patterns
TNOLOOP.powerpc = -fno-tree-loop-distribute-patterns

# Package code is not ours: built freestanding like the library, warnings off.
DEPS_CFLAGS.t = -std=gnu99 $(TOPT.$1) $(TFLAGS.$1) -ffreestanding -fno-builtin $(TNOLOOP.$1) \
                -w -Icore/include -Iport -Icodecs $(DEPS_SU.$1) $(DEPS_EXTRA_CFLAGS.$1) $(DEPS_EXTRA_CFLAGS)
# Stack usage and call graph of the Cortex-M4 package code, for the stack
# check of `make size` (test/freestanding/size.mk).
DEPS_SU.cortex-m4 = -fstack-usage -fcallgraph-info=su

# The seam headers rename every libc call written in the package sources, but
# the compiler itself still emits memset/memcpy for some aggregate copies and
# initialisers (zstd's ZSTD_frameHeader zero-init at -Os on Cortex-M, for
# one). Each package object therefore has those references renamed to the port
# functions, which have the same contracts.
DEPS_REDEFINE := $(foreach f,memcpy memmove memset memcmp,--redefine-sym $(f)=upq_$(f))

# --- the packages -------------------------------------------------------------
DEPS_LIBNAME.lz4 := liblz4.a
DEPS_LIBNAME.zstd := libzstd.a
DEPS_LIBNAME.mbedtls := libmbedcrypto.a
DEPS_LIBNAME.zlib := libz.a
DEPS_LIBNAME.brotli := libbrotlidec.a

# lz4: the block API only, with no heap and no libc (see upq_lz4_deps.h).
DEPS_FILES.lz4 := lib/lz4.c
DEPS_CFLAGS.lz4 = -include codecs/upq_lz4_deps.h -DLZ4_FREESTANDING=1 -DLZ4_MEMORY_USAGE=12
DEPS_DEFS.lz4 = -DUPQ_WITH_LZ4=1 -DLZ4_MEMORY_USAGE=12 -isystem $(DEPS_DIR)/lz4/lib

# zstd: the decoder only (no compressor, dictBuilder, legacy formats or
# threads); libc replaced by upq_zstd_deps.h, used through ZSTD_initStaticDCtx.
# The host build also assembles the x86-64 Huffman decoder loops (they take
# most of a ZSTD page read's time in C); the file assembles to nothing on
# other hosts, and the cross targets have no such file.
DEPS_FILES.zstd := lib/common/entropy_common.c lib/common/error_private.c \
                   lib/common/fse_decompress.c lib/common/xxhash.c lib/common/zstd_common.c \
                   lib/decompress/huf_decompress.c lib/decompress/zstd_ddict.c \
                   lib/decompress/zstd_decompress.c lib/decompress/zstd_decompress_block.c
DEPS_CFLAGS.zstd = -include codecs/upq_zstd_deps.h -DZSTD_LEGACY_SUPPORT=0 \
                   -DZSTD_NO_UNUSED_FUNCTIONS -DZSTD_TRACE=0 -DDEBUGLEVEL=0 -DXXH_NAMESPACE=ZSTD_ \
                   -I$(DEPS_DIR)/zstd/lib -I$(DEPS_DIR)/zstd/lib/common
# On microcontrollers: the smaller Huffman and sequence decoders, no error strings.
DEPS_CFLAGS.zstd.cortex-m4 = -DHUF_FORCE_DECOMPRESS_X1 -DZSTD_FORCE_DECOMPRESS_SEQUENCES_SHORT \
                             -DZSTD_STRIP_ERROR_STRINGS
DEPS_CFLAGS.zstd.cortex-m0plus = $(DEPS_CFLAGS.zstd.cortex-m4)
DEPS_CFLAGS.zstd.rv32imac = $(DEPS_CFLAGS.zstd.cortex-m4)
DEPS_FILES.zstd.host := lib/decompress/huf_decompress_amd64.S
DEPS_ASFLAGS.zstd = -I$(DEPS_DIR)/zstd/lib -I$(DEPS_DIR)/zstd/lib/common
DEPS_DEFS.zstd = -DUPQ_WITH_ZSTD=1 -isystem $(DEPS_DIR)/zstd/lib

# mbedtls: the AES block cipher only (upq_mbedtls_config.h); GCM and CTR are
# built on it by codecs/upq_aes.c so no cipher context is ever allocated. The
# libc names it calls are renamed by upq_mbedtls_deps.h on this build only.
DEPS_FILES.mbedtls := library/aes.c library/platform_util.c
DEPS_MBEDTLS_CONFIG := -DMBEDTLS_CONFIG_FILE='"upq_mbedtls_config.h"'
DEPS_CFLAGS.mbedtls = -include codecs/upq_mbedtls_deps.h $(DEPS_MBEDTLS_CONFIG) \
                      -I$(DEPS_DIR)/mbedtls/include
DEPS_DEFS.mbedtls = -DUPQ_WITH_CRYPTO=1 $(DEPS_MBEDTLS_CONFIG) -isystem $(DEPS_DIR)/mbedtls/include

# zlib: inflate and deflate with Z_SOLO (no libc, no default allocator: the
# adapter must set zalloc/zfree) and Z_PREFIX (z_inflate...) so a host program
# can also link the system's zlib.
DEPS_FILES.zlib := adler32.c crc32.c deflate.c inffast.c inflate.c inftrees.c trees.c zutil.c
DEPS_CFLAGS.zlib = -DZ_SOLO -DZ_PREFIX -I$(DEPS_DIR)/zlib
DEPS_DEFS.zlib = -DUPQ_WITH_GZIP=1 -DZ_SOLO -DZ_PREFIX -isystem $(DEPS_DIR)/zlib
# Z_SOLO also leaves zlib without its word types, and without them crc32.c
# falls back to a byte at a time, most of a GZIP page read's time. The 64-bit
# targets name them (crc32.c then runs its braided word CRC, or the CRC32
# instructions on AArch64 when the target has them); the 32-bit ones keep the
# byte loop, whose table is 8 KB smaller.
DEPS_ZWORDS := -DZ_U4=__UINT32_TYPE__ -DZ_U8=__UINT64_TYPE__
DEPS_CFLAGS.zlib.host = $(DEPS_ZWORDS)
DEPS_CFLAGS.zlib.aarch64 = $(DEPS_ZWORDS)

# brotli: the decoder only (c/common without the encoder's parts, c/dec);
# libc renamed by upq_brotli_deps.h, memory from the arena through the
# allocator hooks (codecs/upq_brotli.c). The 120 KB static dictionary is
# rodata. On microcontrollers: the portable build (no unaligned access
# tricks).
DEPS_FILES.brotli := c/common/constants.c c/common/context.c c/common/dictionary.c \
                     c/common/platform.c c/common/transform.c \
                     c/dec/bit_reader.c c/dec/decode.c c/dec/huffman.c c/dec/state.c
DEPS_CFLAGS.brotli = -include codecs/upq_brotli_deps.h -I$(DEPS_DIR)/brotli/c/include
DEPS_CFLAGS.brotli.cortex-m4 = -DBROTLI_BUILD_PORTABLE
DEPS_CFLAGS.brotli.cortex-m0plus = -DBROTLI_BUILD_PORTABLE
DEPS_CFLAGS.brotli.rv32imac = -DBROTLI_BUILD_PORTABLE
# The adapter reads brotli's state layout (c/dec/state.h) for its figures.
DEPS_DEFS.brotli = -DUPQ_WITH_BROTLI=1 -isystem $(DEPS_DIR)/brotli/c/include -isystem $(DEPS_DIR)/brotli/c

# libdeflate: its decompressor only, compiled inside codecs/upq_gzip.c (no
# library of its own: that is how its state is placed in the arena and its
# CPU dispatch left out; see there). GZIP pages then decode through it,
# 1.5-4.6x zlib's inflate on whole pages (test/bench/libs/gzip_libs.sh);
# zlib stays for writing and for zlib-wrapped pages. Needs zlib: without
# UPQ_WITH_GZIP the option does nothing.
DEPS_DEFS.libdeflate = -DUPQ_WITH_LIBDEFLATE=1 -isystem $(DEPS_DIR)/libdeflate

# --- what is available ----------------------------------------------------------
# A package counts once fetch.sh has written its stamp.
DEPS_READY := $(foreach p,$(UPQ_DEPS),$(if $(wildcard $(DEPS_DIR)/$(p).stamp),$(p)))
DEPS_STAMPS := $(foreach p,$(DEPS_READY),$(DEPS_DIR)/$(p).stamp)
# (packages without a library of their own, libdeflate, add only options)
DEPS_WITH_LIB := $(foreach p,$(DEPS_READY),$(if $(DEPS_LIBNAME.$(p)),$(p)))
$(foreach t,$(DEPS_TARGETS),$(eval DEPS_LIBS.$(t) := \
    $(foreach p,$(DEPS_WITH_LIB),$(TDIR.$(t))/deps/$(DEPS_LIBNAME.$(p)))))

CODEC_DEFS += $(foreach p,$(DEPS_READY),$(DEPS_DEFS.$(p)))
# The Cortex-M builds of this Makefile (the Cortex-M4 library, the size
# sets) keep reading GZIP pages with zlib's inflate: libdeflate's
# decompressor takes ~11.5 KB of arena per page read against inflate's ~7 KB,
# and zlib stays linked for writing and zlib-wrapped pages anyway.
CODEC_DEFS_MCU = $(filter-out -DUPQ_WITH_LIBDEFLATE=1,$(CODEC_DEFS))
CODEC_LIBS := $(DEPS_LIBS.host)

# Library objects see the codec options: rebuild them when a package arrives.
$(LIB_OBJ): $(DEPS_STAMPS)

# --- build rules: $(call upq_deps_rules,TARGET,PACKAGE) -----------------------------
define upq_deps_rules
DEPS_OBJ.$(1).$(2) := $$(patsubst %.c,$$(TDIR.$(1))/deps/$(2)/%.o,$$(filter %.c,$$(DEPS_FILES.$(2)) $$(DEPS_FILES.$(2).$(1)))) \
                      $$(patsubst %.S,$$(TDIR.$(1))/deps/$(2)/%.o,$$(filter %.S,$$(DEPS_FILES.$(2).$(1))))
$$(TDIR.$(1))/deps/$(2)/%.o: $$(DEPS_DIR)/$(2)/%.c $$(DEPS_DIR)/$(2).stamp codecs/codecs.mk
	@mkdir -p $$(dir $$@)
	$$(TCC.$(1)) $$(call DEPS_CFLAGS.t,$(1)) $$(DEPS_CFLAGS.$(2)) $$(DEPS_CFLAGS.$(2).$(1)) -MMD -MP -c $$< -o $$@
	$$(TOBJCOPY.$(1)) $$(DEPS_REDEFINE) $$@ || { rm -f $$@; exit 1; }
$$(TDIR.$(1))/deps/$(2)/%.o: $$(DEPS_DIR)/$(2)/%.S $$(DEPS_DIR)/$(2).stamp codecs/codecs.mk
	@mkdir -p $$(dir $$@)
	$$(TCC.$(1)) $$(TFLAGS.$(1)) $$(DEPS_ASFLAGS.$(2)) -MMD -MP -c $$< -o $$@
$$(TDIR.$(1))/deps/$$(DEPS_LIBNAME.$(2)): $$(DEPS_OBJ.$(1).$(2))
	@mkdir -p $$(dir $$@)
	rm -f $$@
	$$(TAR.$(1)) rcs $$@ $$^
endef
$(foreach t,$(DEPS_TARGETS),$(foreach p,$(UPQ_DEPS),$(if $(DEPS_LIBNAME.$(p)),\
    $(eval $(call upq_deps_rules,$(t),$(p))))))

# --- targets ------------------------------------------------------------------------
.PHONY: deps deps-fetch deps-build deps-build-all deps-clean deps-distclean

ifeq ($(filter $(TARGET),$(DEPS_TARGETS)),)
$(if $(filter deps deps-build,$(MAKECMDGOALS)),$(error TARGET=$(TARGET): use one of $(DEPS_TARGETS)))
endif

# Fetching is a separate make run so the build below sees the fresh stamps.
deps: deps-fetch
	@$(MAKE) --no-print-directory deps-build TARGET=$(TARGET)

deps-fetch:
	@LZ4_SRC='$(LZ4_SRC)' ZSTD_SRC='$(ZSTD_SRC)' MBEDTLS_SRC='$(MBEDTLS_SRC)' ZLIB_SRC='$(ZLIB_SRC)' \
	  BROTLI_SRC='$(BROTLI_SRC)' LIBDEFLATE_SRC='$(LIBDEFLATE_SRC)' \
	  UPQ_DEPS_DIR='$(DEPS_DIR)' $(SHELL) codecs/fetch.sh $(UPQ_DEPS)

deps-build: $(DEPS_LIBS.$(TARGET))
	@echo "deps: $(TARGET): $(if $(DEPS_LIBS.$(TARGET)),$(DEPS_LIBS.$(TARGET)),nothing fetched; run make deps)"

deps-build-all: $(foreach t,$(DEPS_TARGETS),$(DEPS_LIBS.$(t)))

deps-clean:
	rm -rf $(foreach t,$(DEPS_TARGETS),$(TDIR.$(t))/deps)

deps-distclean: deps-clean
	rm -rf $(DEPS_DIR)
