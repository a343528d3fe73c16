# µparquet — one entry point.
#
#   make            host library (build/host/libuparquet.a) and the upq tool
#   make lib        the library alone; TARGET=host|cortex-m4|cortex-m0plus|aarch64|
#                   armv7|powerpc picks a target's toolchain and flags,
#                   UPQ_SET=reader-min|writer-min|logger|gateway|everything an
#                   option set (port/config), CROSS_COMPILE=prefix- any gcc
#   make install    PREFIX=/usr/local: headers, libuparquet.a, uparquet.pc and
#                   the CMake package of that build (port/install.mk)
#   make check      every test (unit, corpus, interop, sanitizers, fuzz, freestanding);
#                   installs what the tests need first when it is missing (.ci/prepare)
#   make demo       the main job: shows what µparquet does on real files
#   make deps       fetch and verify the pinned codec/crypto packages
#   make firmware   Cortex-M4 images
#   make size       code/data size report
#   make bench      benchmarks
#   make fuzz       long fuzzing runs
#   make clean
#
# Area fragments (test/test.mk, codecs/codecs.mk, examples/examples.mk) add
# their own targets; this file holds the shared variables and library rules.

.DEFAULT_GOAL := all
SHELL := /bin/bash

# `make check` on a machine that may lack what the tests need: .ci/prepare
# installs the missing Debian packages (as root, or through sudo -n; else it
# names them and fails) and fetches the codec packages, then the tests run in
# a make of their own, which sees what was installed. UPQ_CHECK_READY=1 skips
# the preparation (.ci/run prepares first).
ifeq ($(MAKECMDGOALS)$(UPQ_CHECK_READY),check)
UPQ_CHECK_OUTER := 1
.PHONY: check
check:
	@bash .ci/prepare
	@$(MAKE) --no-print-directory UPQ_CHECK_READY=1 check
endif
ifndef UPQ_CHECK_OUTER

PARQUET_TESTING_DIR ?= $(abspath ../shared/parquet-testing)
export PARQUET_TESTING_DIR

BUILD ?= build

# CROSS_COMPILE=aarch64-linux-gnu- (any gcc's prefix) names the whole
# toolchain, as the Linux kernel's and U-Boot's builds take it; the "host"
# build then goes to its own directory so it never mixes with this machine's.
# CC=prefix-gcc alone is read the same way: AR, NM and OBJCOPY (objcopy
# renames the packages' libc symbols) follow its prefix unless given too.
ifeq ($(CROSS_COMPILE)$(origin CC),command line)
ifneq ($(filter %-gcc,$(notdir $(CC))),)
CROSS_COMPILE := $(patsubst %gcc,%,$(CC))
endif
endif
ifneq ($(CROSS_COMPILE),)
CC := $(CROSS_COMPILE)gcc
AR := $(CROSS_COMPILE)ar
NM := $(CROSS_COMPILE)nm
OBJCOPY := $(CROSS_COMPILE)objcopy
HOST := $(BUILD)/$(patsubst %-,%,$(notdir $(CROSS_COMPILE)))
else
HOST := $(BUILD)/host
endif

CC ?= cc
AR ?= ar
ifeq ($(origin CC),default)
CC := gcc
endif

# Library sources: the one list (port/sources.txt) the CMake file and the
# firmware fragment read too. Not the OS adapters (port/adapters/posix, port/adapters/semihost)
# nor the board startup (port/adapters/cortex-m).
UPQ_SOURCES := $(shell awk '!/^\#/ && NF == 2 { print $$2 }' port/sources.txt)
CORE_SRC := $(sort $(filter core/%,$(UPQ_SOURCES)))
PORT_SRC := $(sort $(filter port/%,$(UPQ_SOURCES)))
CODEC_SRC := $(sort $(filter codecs/%,$(UPQ_SOURCES)))
LIB_SRC := $(CORE_SRC) $(PORT_SRC) $(CODEC_SRC)
# Host adapters: used by host tools and tests, allowed to call libc: the
# OS's files (port/adapters/posix) and parquet-java's key-tools key material
# (port/adapters/keytools: JSON, malloc, side files).
POSIX_SRC := $(sort $(wildcard port/adapters/posix/*.c port/adapters/keytools/*.c))

INCLUDES := -Icore/include -Icore -Iport -Iport/adapters -Icodecs

WARN_LIB := -Wall -Wextra -Wconversion -Wsign-conversion -Wundef -Wshadow \
            -Wstrict-prototypes -Wmissing-prototypes -Wcast-align -Wvla -Werror=implicit-function-declaration
WARN_TEST := -Wall -Wextra -Wundef -Wno-unused-parameter

OPT ?= -O2 -g
# Freestanding: the library must not rely on libc even where the compiler
# would like to turn loops into memcpy/memset calls.
FREESTANDING := -ffreestanding -fno-builtin
# gcc (whatever it is called: cc, gcc-12, ...) also needs its loop-idiom pass
# off; clang does not know the flag. Ask the preprocessor, not the name.
CC_IS_CLANG := $(shell $(CC) -dM -E - </dev/null 2>/dev/null | grep -c __clang__)
ifeq ($(CC_IS_CLANG),0)
FREESTANDING += -fno-tree-loop-distribute-patterns
# gcc's -O2 vectorises only loops that need no remainder code, which leaves
# out the fills, gathers and sums over a batch of any length; its cost model
# then decides loop by loop (clang vectorises these at -O2 already).
LIB_VEC := -fvect-cost-model=dynamic
endif

# The host library is built for the baseline of its architecture, so it
# runs on every CPU of it: on x86-64 the page CRC's PCLMULQDQ and VPCLMULQDQ
# kernels are chosen at run time (port/x86/x86_crc32.c) and the rest is
# SSE2. HOST_ISA adds instruction sets for a machine the library will run
# on alone (HOST_ISA=-march=native; it then also skips the CPU question).
HOST_ISA ?=
# x86-64 fetches code in aligned 32-byte blocks: a short hot loop (a
# dictionary gather is six instructions) that gcc's 16-byte alignment lets
# straddle two costs a cycle more a value, so its speed moved by 5-15% with
# the code linked before it. Loops start on 32 bytes here (zstd aligns its
# decoder's loop the same way, in its source); a little padding, on a host only.
HOST_ALIGN ?= $(shell $(CC) -dM -E - </dev/null 2>/dev/null | grep -q __x86_64__ && echo -falign-loops=32)
CODEC_DEFS ?=
LIB_CFLAGS = -std=c99 $(OPT) $(LIB_VEC) $(WARN_LIB) $(FREESTANDING) $(HOST_ISA) $(HOST_ALIGN) $(INCLUDES) $(CODEC_DEFS) $(EXTRA_CFLAGS)
TEST_CFLAGS = -std=c99 $(OPT) $(WARN_TEST) $(INCLUDES) -Itest $(CODEC_DEFS) $(EXTRA_CFLAGS)

LIB_OBJ := $(patsubst %.c,$(HOST)/%.o,$(LIB_SRC))
POSIX_OBJ := $(patsubst %.c,$(HOST)/%.o,$(POSIX_SRC))
LIB := $(HOST)/libuparquet.a
UPQ := $(HOST)/upq

.PHONY: all lib clean check demo deps firmware size bench fuzz
all: lib $(UPQ)

$(HOST)/core/%.o $(HOST)/port/%.o $(HOST)/codecs/%.o: CFLAGS_USE = $(LIB_CFLAGS)
$(HOST)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(if $(CFLAGS_USE),$(CFLAGS_USE),$(TEST_CFLAGS)) -MMD -MP -c $< -o $@

# posix adapters are host code, not freestanding library code; the key-tools
# adapter keeps the library's warnings but not its freestanding flags
$(HOST)/port/adapters/posix/%.o: CFLAGS_USE = $(TEST_CFLAGS)
$(HOST)/port/adapters/keytools/%.o: CFLAGS_USE = -std=c99 $(OPT) $(WARN_LIB) $(INCLUDES) $(CODEC_DEFS) $(EXTRA_CFLAGS)

$(LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	$(AR) rcs $@ $^

-include codecs/codecs.mk
-include test/freestanding/freestanding.mk
-include examples/examples.mk
-include test/test.mk
-include test/storage/storage.mk
-include examples/firmware/firmware.mk
-include test/cross/cross.mk
include port/install.mk

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

endif # UPQ_CHECK_OUTER
