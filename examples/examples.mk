# Host examples: the upq tool (examples/upq) over the POSIX file adapter.
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

# What `make demo` shows until the writer exists: schema and footer of a few
# corpus files, read through upq.
DEMO_DATA := $(PARQUET_TESTING_DIR)/data
DEMO_SCHEMA_FILES := alltypes_plain.parquet nested_lists.snappy.parquet \
                     data_index_bloom_encoding_stats.parquet delta_encoding_required_column.parquet
DEMO_META_FILES := alltypes_plain.parquet data_index_bloom_encoding_stats.parquet

demo: $(UPQ)
	@set -e; \
	for f in $(DEMO_SCHEMA_FILES); do \
	    echo "== upq schema $$f"; \
	    $(UPQ) schema "$(DEMO_DATA)/$$f"; \
	    echo; \
	done; \
	for f in $(DEMO_META_FILES); do \
	    echo "== upq meta $$f"; \
	    $(UPQ) meta "$(DEMO_DATA)/$$f"; \
	    echo; \
	done; \
	echo "== upq meta --json nested_lists.snappy.parquet (one JSON object)"; \
	$(UPQ) meta --json "$(DEMO_DATA)/nested_lists.snappy.parquet"
