# Building the library for one target and option set, and installing it
# (included by the top-level Makefile, after codecs.mk, freestanding.mk and
# cross.mk, whose libraries it reuses).
#
#   make lib [TARGET=t] [UPQ_SET=s]
#         the library of target t (host, cortex-m4, cortex-m0plus, rv32imac,
#         aarch64, armv7, powerpc; the toolchains of codecs/codecs.mk) with option set s
#         (port/config/upq-s.h; none: every option at its default and every
#         fetched package on), and its include/uparquet/config_build.h
#   make install PREFIX=/usr/local [DESTDIR=...] [TARGET=t] [UPQ_SET=s]
#         $(PREFIX)/include/uparquet/   the public headers; config_build.h is
#                                       this build's options (see config.h)
#         $(PREFIX)/lib/libuparquet.a   the library, the objects of the
#                                       packages its options use and, on
#                                       targets with an OS, the POSIX file
#                                       adapter (uparquet/posix.h)
#         $(PREFIX)/lib/pkgconfig/uparquet.pc
#         $(PREFIX)/lib/cmake/uparquet/ find_package(uparquet): uparquet::uparquet
#         $(PREFIX)/share/uparquet/adapters/fatfs/, .../littlefs/
#                                       the FatFs and littlefs adapters as sources,
#                                       to compile with your own FatFs or littlefs
#
# One archive, not the library beside lz4's, zstd's, mbedtls' and zlib's: the
# library calls the packages and the packages call back into it (their
# memcpy is renamed upq_memcpy, codecs.mk), so two archives would need a link
# group or a repeated -l, which neither pkg-config's Libs nor an imported CMake
# target says well. Within one archive the linker resolves both ways by
# itself. Package objects keep their own symbol names (LZ4_*, ZSTD_*,
# mbedtls_*, z_*): a program that links its own copy of one of those packages
# as well should build the library with that codec off.

UPQ_TARGETS := host cortex-m4 cortex-m0plus rv32imac aarch64 armv7 powerpc
UPQ_SET ?=
UPQ_SETS := $(sort $(patsubst port/config/upq-%.h,%,$(wildcard port/config/upq-*.h)))
PREFIX ?= /usr/local
DESTDIR ?=

ifneq ($(filter lib install,$(MAKECMDGOALS)),)
ifeq ($(filter $(TARGET),$(UPQ_TARGETS)),)
$(error TARGET=$(TARGET): use one of $(UPQ_TARGETS))
endif
ifneq ($(UPQ_SET),)
ifeq ($(filter $(UPQ_SET),$(UPQ_SETS)),)
$(error UPQ_SET=$(UPQ_SET): use one of $(UPQ_SETS) (port/config))
endif
endif
endif

# The package each codec option needs.
UPQ_PKG_OPT.lz4 := UPQ_WITH_LZ4
UPQ_PKG_OPT.zstd := UPQ_WITH_ZSTD
UPQ_PKG_OPT.mbedtls := UPQ_WITH_CRYPTO
UPQ_PKG_OPT.zlib := UPQ_WITH_GZIP
UPQ_PKG_OPT.brotli := UPQ_WITH_BROTLI

# An option set's flags: its header, and the packages' headers and settings
# without their UPQ_WITH_* (the set says which codecs are on).
UPQ_SET_FLAGS = -Iport/config -DUPQ_CONFIG_FILE='"upq-$(1).h"' $(filter-out -DUPQ_WITH_%,$(CODEC_DEFS))

# ---- which library: the ones other fragments build already, or a build of its own
UPQ_OUT := $(TDIR.$(TARGET))$(if $(UPQ_SET),-$(UPQ_SET))
ifeq ($(UPQ_SET),)
UPQ_LIB.host := $(LIB)
UPQ_LIB_CC.host = $(CC)
UPQ_LIB_CFLAGS.host = $(LIB_CFLAGS)
UPQ_LIB.cortex-m4 := $(CM4_LIB)
UPQ_LIB_CC.cortex-m4 = $(TCC.cortex-m4)
UPQ_LIB_CFLAGS.cortex-m4 = $(CM4_CFLAGS)
UPQ_LIB.rv32imac := $(RV_LIB)
UPQ_LIB_CC.rv32imac = $(TCC.rv32imac)
UPQ_LIB_CFLAGS.rv32imac = $(RV_CFLAGS)
$(foreach t,$(CROSS_TEST_TARGETS),$(eval UPQ_LIB.$(t) := $(XLIB.$(t))))
$(foreach t,$(CROSS_TEST_TARGETS),$(eval UPQ_LIB_CC.$(t) = $$(TCC.$(t))))
$(foreach t,$(CROSS_TEST_TARGETS),$(eval UPQ_LIB_CFLAGS.$(t) = $$(XCFLAGS_LIB.$(t))))
endif
UPQ_LIB := $(UPQ_LIB.$(TARGET))
ifeq ($(UPQ_LIB),)
UPQ_LIB := $(UPQ_OUT)/libuparquet.a
UPQ_LIB_CC.$(TARGET) = $(TCC.$(TARGET))
UPQ_LIB_CFLAGS.$(TARGET) = -std=c99 $(TOPT.$(TARGET)) -g $(TFLAGS.$(TARGET)) -ffreestanding -fno-builtin \
    $(TNOLOOP.$(TARGET)) $(WARN_LIB) $(INCLUDES) \
    $(if $(UPQ_SET),$(call UPQ_SET_FLAGS,$(UPQ_SET)),$(CODEC_DEFS)) $(EXTRA_CFLAGS) $(TSYSINC.$(TARGET))
UPQ_LIB_OBJ := $(patsubst %.c,$(UPQ_OUT)/%.o,$(LIB_SRC))
$(UPQ_LIB_OBJ): $(UPQ_OUT)/%.o: %.c $(DEPS_STAMPS) port/install.mk $(wildcard port/config/upq-$(UPQ_SET).h port/config/upq_*.h)
	@mkdir -p $(dir $@)
	$(UPQ_LIB_CC.$(TARGET)) $(UPQ_LIB_CFLAGS.$(TARGET)) -MMD -MP -c $< -o $@
$(UPQ_LIB): $(UPQ_LIB_OBJ)
	@rm -f $@
	$(TAR.$(TARGET)) rcs $@ $^
endif

# ---- what the library was built with: uparquet/config_build.h --------------------
UPQ_CONFIG_OUT := $(UPQ_OUT)/include/uparquet/config_build.h
$(UPQ_CONFIG_OUT): $(UPQ_LIB) port/config/config_build.sh core/include/uparquet/config.h
	@mkdir -p $(dir $@)
	@bash port/config/config_build.sh $@ $(UPQ_LIB_CC.$(TARGET)) $(UPQ_LIB_CFLAGS.$(TARGET))

# ---- the POSIX file adapter (uparquet/posix.h), on targets with an OS ---------------
# Not library code (it calls the OS), but an installed program reading or
# writing files needs it, so it goes into the installed archive, built with
# the library's own options (the upq_io it fills has the library's layout).
UPQ_OS_TARGETS := host aarch64 armv7 powerpc
UPQ_ADAPTER_OBJ := $(if $(filter $(TARGET),$(UPQ_OS_TARGETS)),$(UPQ_OUT)/install-adapters/io_posix.o)
$(UPQ_OUT)/install-adapters/io_posix.o: port/adapters/posix/io_posix.c $(UPQ_LIB) port/install.mk
	@mkdir -p $(dir $@)
	$(UPQ_LIB_CC.$(TARGET)) $(filter-out -ffreestanding,$(UPQ_LIB_CFLAGS.$(TARGET))) -MMD -MP -c $< -o $@

# ---- the installed archive: the library, the adapter and the packages its options use
UPQ_ARCHIVE := $(UPQ_OUT)/install/libuparquet.a
$(UPQ_ARCHIVE): $(UPQ_LIB) $(UPQ_CONFIG_OUT) $(DEPS_LIBS.$(TARGET)) $(UPQ_ADAPTER_OBJ)
	@set -e; rm -rf $(@D); mkdir -p $(@D)/pkg; cp $(UPQ_LIB) $@.tmp; \
	$(if $(UPQ_ADAPTER_OBJ),$(TAR.$(TARGET)) qs $@.tmp $(UPQ_ADAPTER_OBJ);) \
	$(foreach p,$(DEPS_READY),if grep -q '^#define $(UPQ_PKG_OPT.$(p)) 1$$' $(UPQ_CONFIG_OUT); then \
	    for o in $(DEPS_OBJ.$(TARGET).$(p)); do cp $$o $(@D)/pkg/$(p)_$$(basename $$o); done; fi;) \
	if [ -n "$$(ls $(@D)/pkg)" ]; then $(TAR.$(TARGET)) qs $@.tmp $(@D)/pkg/*.o; fi; \
	mv $@.tmp $@; echo "lib: $@ ($(TARGET)$(if $(UPQ_SET), $(UPQ_SET)), packages: $$(ls $(@D)/pkg | sed 's/_.*//' | sort -u | tr '\n' ' '))"

.PHONY: lib install
lib: $(UPQ_LIB) $(UPQ_CONFIG_OUT) $(DEPS_LIBS.$(TARGET))

UPQ_VERSION := $(shell sed -n 's/^\#define UPQ_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$$/\2/p' \
                 core/include/uparquet/uparquet.h | paste -sd.)
# The adapter's header only where its object is installed too.
UPQ_PUBLIC_H := $(filter-out %/config_build.h $(if $(UPQ_ADAPTER_OBJ),,%/posix.h),$(wildcard core/include/uparquet/*.h))
# A CROSS_COMPILE build is "host" to the Makefile but its prefix to the user.
UPQ_TARGET_NAME := $(if $(and $(filter host,$(TARGET)),$(CROSS_COMPILE)),$(notdir $(HOST)),$(TARGET))
UPQ_INSTALL_SUBST = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(UPQ_VERSION)|g' \
    -e 's|@TARGET@|$(UPQ_TARGET_NAME)|g' -e 's|@SET@|$(if $(UPQ_SET),$(UPQ_SET),default)|g'

install: $(UPQ_ARCHIVE) $(UPQ_CONFIG_OUT)
	install -d $(DESTDIR)$(PREFIX)/include/uparquet $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	    $(DESTDIR)$(PREFIX)/lib/cmake/uparquet
	install -m 644 $(UPQ_PUBLIC_H) $(DESTDIR)$(PREFIX)/include/uparquet/
	install -m 644 $(UPQ_CONFIG_OUT) $(DESTDIR)$(PREFIX)/include/uparquet/config_build.h
	install -m 644 $(UPQ_ARCHIVE) $(DESTDIR)$(PREFIX)/lib/libuparquet.a
	$(UPQ_INSTALL_SUBST) port/uparquet.pc.in >$(DESTDIR)$(PREFIX)/lib/pkgconfig/uparquet.pc
	$(UPQ_INSTALL_SUBST) port/cmake/uparquetConfig.cmake.in >$(DESTDIR)$(PREFIX)/lib/cmake/uparquet/uparquetConfig.cmake
	$(UPQ_INSTALL_SUBST) port/cmake/uparquetConfigVersion.cmake.in \
	    >$(DESTDIR)$(PREFIX)/lib/cmake/uparquet/uparquetConfigVersion.cmake
	install -m 644 $(UPQ_CONFIG_OUT).cmake $(DESTDIR)$(PREFIX)/lib/cmake/uparquet/uparquetOptions.cmake
	for a in fatfs littlefs; do install -d $(DESTDIR)$(PREFIX)/share/uparquet/adapters/$$a && \
	    install -m 644 port/adapters/$$a/upq_$$a.[ch] $(DESTDIR)$(PREFIX)/share/uparquet/adapters/$$a/; done
