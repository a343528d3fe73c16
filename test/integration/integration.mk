# µparquet as a project outside this tree uses it (included by test/test.mk):
#
#   make check-integration   (a `make check` stage) test/integration/run.sh:
#                            make install and a pkg-config consumer, a
#                            conflicting option refused at compile time, CMake
#                            find_package and add_subdirectory(port/cmake), a
#                            Cortex-M4 firmware project through port/uparquet.mk
#                            (logger set) under qemu against the make size
#                            logger row, and make CROSS_COMPILE=aarch64-linux-gnu-
#                            install with a consumer under qemu-aarch64
#
# The consumers are examples/integration/; each is built in a temporary
# directory. Needs cmake, pkg-config, arm-none-eabi-gcc, aarch64-linux-gnu-gcc,
# qemu-system-arm, qemu-aarch64 and the interop packages (DuckDB).

QEMU_AARCH64 ?= qemu-aarch64 -L /usr/aarch64-linux-gnu

.PHONY: check-integration
check-integration: $(LIB) $(CODEC_LIBS) $(SENSOR) $(INTEROP_STAMP) $(SIZE)/cortex-m4/logger/image.elf
	@TOP='$(CURDIR)' MAKE='$(MAKE)' HOST_DIR='$(HOST)' HOST_CC='$(CC)' CM4_PREFIX='$(CROSS_CM4)' \
	  A64_PREFIX='$(CROSS_A64)' SENSOR='$(CURDIR)/$(SENSOR)' NODE='$(NODE)' \
	  SIZE_DIR='$(SIZE)' QEMU_SYSTEM_ARM='$(QEMU_SYSTEM_ARM)' QEMU_AARCH64='$(QEMU_AARCH64)' \
	  CODEC_DEFS="$(CODEC_DEFS)" bash test/integration/run.sh

CHECK_EXTRA_TARGETS += check-integration

# ---- make check-builds: the build systems projects already use ----------------------
#
#   make check-builds   (a `make check` stage) test/integration/builds.sh: the
#                       option lists (zephyr/Kconfig, meson_options.txt, the
#                       sets) current; the Zephyr Kconfig under kconfiglib
#                       against every option set's config_build.h, and the
#                       module's CMake for Cortex-M4; the consumer through the
#                       root CMakeLists.txt (add_subdirectory, FetchContent),
#                       Meson (a subproject) and port/uparquet.mk
#
# Needs cmake, meson, ninja, python3-kconfiglib, arm-none-eabi-gcc, the codec
# packages (make deps) and the interop packages (DuckDB).
.PHONY: check-builds
check-builds: $(CODEC_LIBS) $(INTEROP_STAMP)
	@TOP='$(CURDIR)' HOST_DIR='$(HOST)' HOST_CC='$(CC)' CM4_PREFIX='$(CROSS_CM4)' NODE='$(NODE)' \
	  FATFS_DIR='$(FATFS_DIR)' LITTLEFS_DIR='$(LITTLEFS_DIR)' bash test/integration/builds.sh

CHECK_EXTRA_TARGETS += check-builds
