# Host examples: the upq tool (examples/upq) and the sensor logger
# (examples/sensor_logger) over POSIX files, and `make demo`.
# Included by the top-level Makefile.

UPQ_SRC := $(sort $(wildcard examples/upq/*.c))
UPQ_OBJ := $(patsubst %.c,$(HOST)/%.o,$(UPQ_SRC))
UPQ_LDLIBS := -lm

# Host code: libc is fine, but keep the warnings close to the library's.
WARN_UPQ := -Wall -Wextra -Wshadow -Wundef -Wstrict-prototypes -Wmissing-prototypes \
            -Wformat=2 -Wno-format-nonliteral
$(UPQ_OBJ): CFLAGS_USE = -std=c99 $(OPT) $(WARN_UPQ) $(INCLUDES) $(CODEC_DEFS) $(EXTRA_CFLAGS)

$(UPQ): $(UPQ_OBJ) $(POSIX_OBJ) $(LIB) $(CODEC_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(EXTRA_CFLAGS) $(LDFLAGS) -o $@ $(UPQ_OBJ) $(POSIX_OBJ) -Wl,--start-group $(LIB) $(CODEC_LIBS) -Wl,--end-group $(UPQ_LDLIBS)

# ---- sensor logger ------------------------------------------------------------
# The core is built exactly like library code (freestanding, the library's
# warnings): firmware compiles the same file and only swaps host_main.c.
SENSOR := $(HOST)/sensor_logger
SENSOR_CORE_OBJ := $(HOST)/examples/sensor_logger/sensor_logger.o
SENSOR_HOST_OBJ := $(HOST)/examples/sensor_logger/host_main.o
$(SENSOR_CORE_OBJ): CFLAGS_USE = $(LIB_CFLAGS)
$(SENSOR_HOST_OBJ): CFLAGS_USE = -std=c99 $(OPT) $(WARN_UPQ) $(INCLUDES) $(CODEC_DEFS) $(EXTRA_CFLAGS)

$(SENSOR): $(SENSOR_CORE_OBJ) $(SENSOR_HOST_OBJ) $(POSIX_OBJ) $(LIB) $(CODEC_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(EXTRA_CFLAGS) $(LDFLAGS) -o $@ $(SENSOR_CORE_OBJ) $(SENSOR_HOST_OBJ) $(POSIX_OBJ) -Wl,--start-group $(LIB) $(CODEC_LIBS) -Wl,--end-group

all: $(SENSOR)

# ---- gateway reader ---------------------------------------------------------------
# Selective reading over non-blocking remote storage (a range server process)
# in one fixed arena: examples/gateway_reader.
GATEWAY := $(HOST)/gateway_reader
GATEWAY_OBJ := $(HOST)/examples/gateway_reader/gateway_reader.o
$(GATEWAY_OBJ): CFLAGS_USE = -std=c99 -D_DEFAULT_SOURCE $(OPT) $(WARN_UPQ) $(INCLUDES) $(CODEC_DEFS) $(EXTRA_CFLAGS)

$(GATEWAY): $(GATEWAY_OBJ) $(LIB) $(CODEC_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(EXTRA_CFLAGS) $(LDFLAGS) -o $@ $(GATEWAY_OBJ) -Wl,--start-group $(LIB) $(CODEC_LIBS) -Wl,--end-group

all: $(GATEWAY)

# ---- make demo ------------------------------------------------------------------
# Fetches the codec packages when they are missing (the demo's own file needs
# none, so it goes on without them if they cannot be had), builds everything,
# logs 10000 sensor rows with checkpoints into build/demo/sensor.parquet and
# shows the file through upq.
DEMO_DIR := $(BUILD)/demo
DEMO_FILE := $(DEMO_DIR)/sensor.parquet

.PHONY: demo-run
demo:
	@$(MAKE) --no-print-directory deps || \
	    echo "demo: the codec packages could not be fetched; going on without them"
	@$(MAKE) --no-print-directory demo-run

demo-run: $(UPQ) $(SENSOR)
	@set -e; mkdir -p $(DEMO_DIR); rm -f $(DEMO_FILE); \
	echo; echo "== sensor_logger: 10000 rows, a row group and checkpoint every 250 rows"; \
	$(SENSOR) --rows 10000 --row-group-rows 250 $(DEMO_FILE); \
	echo; echo "== upq schema $(DEMO_FILE)"; \
	$(UPQ) schema $(DEMO_FILE); \
	echo; echo "== upq meta $(DEMO_FILE)"; \
	$(UPQ) meta $(DEMO_FILE); \
	echo; echo "== upq cat --head 5 $(DEMO_FILE)"; \
	$(UPQ) cat --head 5 $(DEMO_FILE)
