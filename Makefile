# ipitrace - who interrupts my CPUs?
#
#   make            build/ipitrace, build/libipitrace.a, build/libipitrace.so
#   make demo       install dependencies, build, run the demo on the embedded trace
#   make check      install dependencies, build, run every test (plain, then ASan+UBSan)
#   make bench      benchmarks against trace-cmd and perf
#   make fuzz       run every fuzz target for FUZZ_SECONDS (default 180) each
#   make deps       install the Debian packages the build and tests need

CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -std=gnu11 -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter
CPPFLAGS += -Iinclude -Ilib -D_GNU_SOURCE
LDLIBS  := -lzstd -lz -lpthread -lm
B       ?= build

LIB_SRC := $(sort $(wildcard lib/*/*.c))
CLI_SRC := $(sort $(wildcard src/*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(B)/%.o)
PIC_OBJ := $(LIB_SRC:%.c=$(B)/pic/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(B)/%.o)
TEST_SRC := $(sort $(wildcard tests/unit_*.c))
TEST_BIN := $(TEST_SRC:tests/%.c=$(B)/tests/%)
TOOL_SRC := $(sort $(wildcard tools/*.c))
TOOL_BIN := $(TOOL_SRC:tools/%.c=$(B)/tools/%)

all: $(B)/ipitrace $(B)/libipitrace.a $(B)/libipitrace.so $(TOOL_BIN) $(TEST_BIN)

$(B)/%.o: %.c $(wildcard include/*.h lib/*/*.h src/*.h)
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) $(WARN) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(B)/pic/%.o: %.c $(wildcard include/*.h lib/*/*.h)
	@mkdir -p $(dir $@)
	@$(CC) $(WARN) $(CPPFLAGS) $(CFLAGS) -fPIC -c -o $@ $<

$(B)/libipitrace.a: $(LIB_OBJ)
	@rm -f $@
	@ar rcs $@ $^

$(B)/libipitrace.so: $(PIC_OBJ)
	@$(CC) -shared -o $@ $^ $(LDFLAGS) $(LDLIBS)

$(B)/ipitrace: $(CLI_OBJ) $(B)/libipitrace.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDFLAGS) $(LDLIBS)

$(B)/tests/%: tests/%.c tests/testlib.h $(B)/libipitrace.a
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CPPFLAGS) -Itests $(CFLAGS) -o $@ $< $(B)/libipitrace.a $(LDFLAGS) $(LDLIBS)

$(B)/tools/%: tools/%.c $(B)/libipitrace.a
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(B)/libipitrace.a $(LDFLAGS) $(LDLIBS)

# ASan+UBSan build of everything, in build/asan
asan:
	$(MAKE) B=build/asan CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" LDFLAGS="-fsanitize=address,undefined" all

deps:
	@sh tools/install-deps.sh

demo: deps all
	@sh tools/demo.sh

# The test command: plain build, then ASan+UBSan build, one summary line.
check: deps
	@$(MAKE) -s all
	@$(MAKE) -s asan
	@sh tests/run.sh build build/asan

test: check

bench: all
	@IPITRACE_DEPS=bench sh tools/install-deps.sh
	@sh bench/run.sh

FUZZ_SECONDS ?= 180
fuzz: all
	@IPITRACE_DEPS=fuzz sh tools/install-deps.sh
	@sh fuzz/run.sh $(FUZZ_SECONDS)

clean:
	rm -rf build

.PHONY: all asan deps demo check test bench fuzz clean
