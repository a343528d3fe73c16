# µparquet in a firmware Makefile, the nanopb way: include this file, add
# the sources to your build and the flags to your compiler; no library step,
# no install.
#
#   UPQ_DIR := path/to/uparquet     # optional: found from this file's place
#   UPQ_SET := logger               # optional: port/config/upq-$(UPQ_SET).h
#                                   # (reader-min writer-min logger gateway
#                                   # everything); empty: config.h's defaults
#   include $(UPQ_DIR)/port/uparquet.mk
#
#   CFLAGS += $(UPQ_CFLAGS)                   # everything that includes uparquet/*.h
#   $(UPQ_OBJ): CFLAGS += $(UPQ_LIB_CFLAGS)   # the library's own objects
#   LDLIBS += $(UPQ_LIBS)                     # sets with codec packages or encryption
#
# Variables given:
#   UPQ_SRC              every library source (port/sources.txt, the list the
#                        Makefile and port/cmake read). Sources of components
#                        the set turns off compile to nothing, so take them all
#                        and link with --gc-sections.
#   UPQ_SRC_<component>  one component's (a folder): port common format codecs
#                        crypto decode encode bloom read predicate write
#                        checkpoint front variant (port/sources.txt)
#   UPQ_OBJ              $(UPQ_SRC) with .o for .c (rename if your objects live
#                        elsewhere: $(patsubst $(UPQ_DIR)/%.c,obj/%.o,$(UPQ_SRC)))
#   UPQ_CFLAGS           public include directories and the set: the same
#                        structs in your code and the library's
#   UPQ_LIB_CFLAGS       for the library's sources: its private include
#                        directories, the packages' headers and settings, and
#                        the flags that keep it off libc (-ffreestanding
#                        -fno-builtin, and gcc's loop-to-memcpy pass off:
#                        UPQ_NOLOOP, empty it for clang)
#   UPQ_PKGS             the packages the set uses (lz4 zstd mbedtls zlib brotli
#                        libdeflate)
#   UPQ_LIBS             their archives, built for the target by
#                        `make -C $(UPQ_DIR) deps TARGET=$(UPQ_TARGET)`
#                        (UPQ_TARGET: cortex-m4 unless set)
#   UPQ_FATFS_SRC        the FatFs file adapter (upq_fatfs.h: a upq_sink and
#   UPQ_LITTLEFS_SRC     upq_io over a FIL), the littlefs one (upq_littlefs.h,
#                        with port/adapters/append for checkpoint mode,
#   UPQ_ADAPTER_CFLAGS   over an lfs_file_t), and the include directories of
#                        their headers: compile them with your own FatFs or
#                        littlefs on the include path (ff.h, lfs.h)
#
# The include directories are few on purpose: -I core/include (uparquet/*.h)
# and -I port (upq_port.h, the porting seam) for everyone; the library's
# internal headers (core/, codecs/) only for its own sources, so a header of
# yours called stats.h or journal.h never meets one of ours.

ifndef UPQ_FRAGMENT_MK
UPQ_FRAGMENT_MK := 1

UPQ_DIR ?= $(patsubst %/port/uparquet.mk,%,$(abspath $(lastword $(MAKEFILE_LIST))))
UPQ_SET ?=
UPQ_TARGET ?= cortex-m4
UPQ_NOLOOP ?= -fno-tree-loop-distribute-patterns
UPQ_DEPS_DIR ?= $(UPQ_DIR)/codecs/.deps
UPQ_DEPS_LIBDIR ?= $(UPQ_DIR)/build/$(UPQ_TARGET)/deps

UPQ_SET_H := $(if $(UPQ_SET),$(UPQ_DIR)/port/config/upq-$(UPQ_SET).h)
ifneq ($(UPQ_SET),)
ifeq ($(wildcard $(UPQ_SET_H)),)
$(error uparquet.mk: UPQ_SET=$(UPQ_SET): no $(UPQ_SET_H); the sets are \
  $(patsubst upq-%.h,%,$(notdir $(wildcard $(UPQ_DIR)/port/config/upq-*.h))))
endif
endif

UPQ_COMPONENTS := $(shell awk '!/^\#/ && NF == 2 && !seen[$$1]++ { print $$1 }' $(UPQ_DIR)/port/sources.txt)
$(foreach c,$(UPQ_COMPONENTS),$(eval UPQ_SRC_$(c) := $(addprefix $(UPQ_DIR)/,\
    $(shell awk '$$1 == "$(c)" { print $$2 }' $(UPQ_DIR)/port/sources.txt))))
UPQ_SRC := $(foreach c,$(UPQ_COMPONENTS),$(UPQ_SRC_$(c)))
UPQ_OBJ := $(UPQ_SRC:.c=.o)

UPQ_CFLAGS := -I$(UPQ_DIR)/core/include -I$(UPQ_DIR)/port \
    $(if $(UPQ_SET),-I$(UPQ_DIR)/port/config -DUPQ_CONFIG_FILE='"upq-$(UPQ_SET).h"')

# The packages a set turns on, read from its header; each one's headers and
# settings as codecs/codecs.mk builds it (DEPS_DEFS there).
UPQ_PKG_OPT.lz4 := UPQ_WITH_LZ4
UPQ_PKG_OPT.zstd := UPQ_WITH_ZSTD
UPQ_PKG_OPT.mbedtls := UPQ_WITH_CRYPTO
UPQ_PKG_OPT.zlib := UPQ_WITH_GZIP
UPQ_PKG_OPT.brotli := UPQ_WITH_BROTLI
UPQ_PKG_OPT.libdeflate := UPQ_WITH_LIBDEFLATE
UPQ_PKG_FLAGS.lz4 = -DLZ4_MEMORY_USAGE=12 -isystem $(UPQ_DEPS_DIR)/lz4/lib
UPQ_PKG_FLAGS.zstd = -isystem $(UPQ_DEPS_DIR)/zstd/lib
UPQ_PKG_FLAGS.mbedtls = -DMBEDTLS_CONFIG_FILE='"upq_mbedtls_config.h"' -isystem $(UPQ_DEPS_DIR)/mbedtls/include
UPQ_PKG_FLAGS.zlib = -DZ_SOLO -DZ_PREFIX -isystem $(UPQ_DEPS_DIR)/zlib
UPQ_PKG_FLAGS.brotli = -isystem $(UPQ_DEPS_DIR)/brotli/c/include -isystem $(UPQ_DEPS_DIR)/brotli/c
UPQ_PKG_FLAGS.libdeflate = -isystem $(UPQ_DEPS_DIR)/libdeflate
UPQ_PKG_LIB.lz4 := liblz4.a
UPQ_PKG_LIB.zstd := libzstd.a
UPQ_PKG_LIB.mbedtls := libmbedcrypto.a
UPQ_PKG_LIB.zlib := libz.a
UPQ_PKG_LIB.brotli := libbrotlidec.a
# (libdeflate has no archive: codecs/upq_gzip.c compiles its decompressor)
UPQ_PKG_LIB.libdeflate :=
# The set's header, then the ones it includes itself (port/config/upq_*.h, after
# its own options): an option's first definition in them holds, as it does for
# the compiler.
UPQ_SET_FILES := $(if $(UPQ_SET_H),$(UPQ_SET_H) $(addprefix $(UPQ_DIR)/port/config/,\
    $(shell sed -n 's/^\#include "\(upq_[a-z_]*\.h\)"$$/\1/p' $(UPQ_SET_H))))
UPQ_PKGS := $(if $(UPQ_SET_H),$(foreach p,lz4 zstd mbedtls zlib brotli libdeflate,\
    $(if $(filter 1,$(shell cat $(UPQ_SET_FILES) | \
        sed -n 's/^\#define $(UPQ_PKG_OPT.$(p)) \(.*\)$$/\1/p' | head -n 1)),$(p))))

# The file adapters: the caller's side, compiled against the caller's FatFs
# or littlefs (port/adapters/).
UPQ_FATFS_SRC := $(UPQ_DIR)/port/adapters/fatfs/upq_fatfs.c
UPQ_LITTLEFS_SRC := $(UPQ_DIR)/port/adapters/littlefs/upq_littlefs.c $(UPQ_DIR)/port/adapters/append/upq_append.c
UPQ_ADAPTER_CFLAGS := -I$(UPQ_DIR)/port/adapters/fatfs -I$(UPQ_DIR)/port/adapters/littlefs

UPQ_LIB_CFLAGS := -ffreestanding -fno-builtin $(UPQ_NOLOOP) -I$(UPQ_DIR)/core -I$(UPQ_DIR)/codecs \
    $(foreach p,$(UPQ_PKGS),$(UPQ_PKG_FLAGS.$(p)))
# After the objects: the library's objects are all linked, so what the
# packages call back (upq_memcpy, ...) is there whatever the order.
UPQ_LIBS := $(foreach p,$(UPQ_PKGS),$(if $(UPQ_PKG_LIB.$(p)),$(UPQ_DEPS_LIBDIR)/$(UPQ_PKG_LIB.$(p))))

endif
