# ipitrace - who interrupts my CPUs?
#
#   make            build/ipitrace, build/libipitrace.a, build/libipitrace.so*, man pages
#   make install    PREFIX=/usr/local DESTDIR= : binary, library, header, ipitrace.pc,
#                   man pages, bash completion, the ipitrace-serve systemd unit,
#                   the Prometheus rules (docs/prometheus.md)
#                   (make uninstall removes them)
#   make demo       install dependencies, build, run the demo on the embedded trace
#   make check      install dependencies, build, run every test (plain, then ASan+UBSan)
#   make check-fast the inner loop: unit tests and offline scripts, plain build
#   make check-qemu the qemu guests' test (tests/test_qemu.sh: Debian's
#                   x86_64 and arm64 kernels, 8 CPUs, then 96 and 64 with
#                   CPUs 4 and up isolated); CI runs it after make check
#   make bench      benchmarks against trace-cmd and perf
#   make fuzz       run every fuzz target for FUZZ_SECONDS (default 180) each
#   make deps       install the Debian packages the build and tests need
#   make soak       ipitrace serve under load for SOAK_SECONDS (default 600): RSS and maps flat

NPROC   := $(shell nproc 2>/dev/null || echo 2)
CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -std=gnu11 -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter
CPPFLAGS += -Iinclude -D_GNU_SOURCE
LDLIBS  := -lzstd -lz -lpthread -lm
B       ?= build
PREFIX  ?= /usr/local
DESTDIR ?=
BINDIR  ?= $(PREFIX)/bin
LIBDIR  ?= $(PREFIX)/lib
INCDIR  ?= $(PREFIX)/include
MANDIR  ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
SYSTEMDDIR ?= $(PREFIX)/lib/systemd/system
PROMDIR ?= $(PREFIX)/share/ipitrace/prometheus

# The version is the header's (IPT_VERSION_MAJOR/MINOR/PATCH): one place.
V_MAJOR := $(shell sed -n 's/^\#define IPT_VERSION_MAJOR //p' include/ipitrace.h)
V_MINOR := $(shell sed -n 's/^\#define IPT_VERSION_MINOR //p' include/ipitrace.h)
V_PATCH := $(shell sed -n 's/^\#define IPT_VERSION_PATCH //p' include/ipitrace.h)
VERSION := $(V_MAJOR).$(V_MINOR).$(V_PATCH)
SONAME  := libipitrace.so.$(V_MAJOR)
SOFILE  := libipitrace.so.$(VERSION)

# The one list of the library's sources: fuzz/run.sh asks `make print-lib-src`.
LIB_SRC := $(sort $(wildcard lib/*/*.c))
CLI_SRC := $(sort $(wildcard src/*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(B)/%.o)
PIC_OBJ := $(LIB_OBJ)
CLI_OBJ := $(CLI_SRC:%.c=$(B)/%.o)
# lib_obj F...: lib/F.c's objects (e.g. live/ustack)
lib_obj = $(foreach f,$(1),$(B)/lib/$(f).o)
TEST_SRC := $(sort $(wildcard tests/unit_*.c))
TEST_BIN := $(TEST_SRC:tests/%.c=$(B)/tests/%)
TOOL_SRC := $(sort $(wildcard tools/*.c))
TOOL_BIN := $(TOOL_SRC:tools/%.c=$(B)/tools/%)

all: $(B)/ipitrace $(B)/libipitrace.a $(B)/libipitrace.so $(TOOL_BIN) $(TEST_BIN) man

# lib/: everything hidden but what include/ipitrace.h declares (its
# `#pragma GCC visibility push(default)`); src/: the public header only.
# The library's objects are compiled once, position-independent, for the
# archive, the shared library and the Python module alike (one compile
# instead of two: 17 CPU-s less for the plain build, 25 for the ASan one);
# -fno-semantic-interposition keeps the calls between its exported functions
# direct, so the CLI runs the instructions it ran from non-PIC objects
# (callgrind: report and convert of a 300k-event trace within 0.001%).
# Each object depends on the headers it includes, as the compiler found
# them (-MMD writes OBJ.d beside it; -MP keeps a removed header from
# breaking the build): touching one header rebuilds only its includers.
DEPFLAGS = -MMD -MP
# (only the objects' own .d files: build/ also holds the qemu guests' trees,
# whose directories may be named *.d)
-include $(wildcard $(LIB_OBJ:.o=.d) $(PIC_OBJ:.o=.d) $(CLI_OBJ:.o=.d) \
	$(TEST_BIN:=.d) $(TOOL_BIN:=.d) $(B)/python/obj/*.d)

$(B)/lib/%.o: lib/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) $(WARN) $(DEPFLAGS) $(CPPFLAGS) -Ilib -fvisibility=hidden $(LIB_CFLAGS) -c -o $@ $<

# what the library's objects were compiled with, rewritten only when it
# changes: objects of another kind (the non-PIC ones of older trees, other
# CFLAGS) are rebuilt, not linked into the shared library
LIB_CFLAGS = $(CFLAGS) -fPIC -fno-semantic-interposition
$(LIB_OBJ): $(B)/lib/cflags
$(B)/lib/cflags: FORCE
	@mkdir -p $(dir $@)
	@v='$(LIB_CFLAGS)'; [ "$$(cat $@ 2>/dev/null)" = "$$v" ] || echo "$$v" > $@

$(B)/src/%.o: src/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) $(WARN) $(DEPFLAGS) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(B)/libipitrace.a: $(LIB_OBJ)
	@rm -f $@
	@ar rcs $@ $^

# The version script lists the functions the header declares (tools/api.py).
$(B)/libipitrace.map: include/ipitrace.h tools/api.py
	@mkdir -p $(dir $@)
	@$(PYTHON) tools/api.py include/ipitrace.h --map $(V_MAJOR) > $@.tmp && mv $@.tmp $@

$(B)/$(SOFILE): $(PIC_OBJ) $(B)/libipitrace.map $(B)/features
	@$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script,$(B)/libipitrace.map \
		-o $@ $(PIC_OBJ) $(LDFLAGS) $(LDLIBS)

$(B)/libipitrace.so: $(B)/$(SOFILE)
	@ln -sf $(SOFILE) $(B)/$(SONAME)
	@ln -sf $(SOFILE) $@

$(B)/ipitrace.pc: tools/ipitrace.pc.in Makefile include/ipitrace.h $(B)/features
	@sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(LIBDIR)|; s|@INCDIR@|$(INCDIR)|' \
		-e 's|@VERSION@|$(VERSION)|; s|@LIBS_PRIVATE@|$(LDLIBS)|' $< > $@

# Man pages and bash completion, made from the binary's --help and the
# header's comments (tools/mkman.py), so that they cannot disagree.
MAN_PAGES := $(B)/man/ipitrace.1 $(B)/man/ipitrace-filter.7 $(B)/man/libipitrace.3
man: $(MAN_PAGES) $(B)/ipitrace.bash-completion
$(MAN_PAGES) $(B)/ipitrace.bash-completion &: $(B)/ipitrace include/ipitrace.h tools/mkman.py tools/mkcomp.py \
		tools/api.py examples/count-events.c docs/man-examples.txt
	@mkdir -p $(B)/man
	@$(PYTHON) tools/mkman.py $(B)/ipitrace include/ipitrace.h $(B)/man $(B)/ipitrace.bash-completion

install: all $(B)/ipitrace.pc
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(MANDIR)/man7 \
		$(DESTDIR)$(BASHCOMPDIR)
	install -m 755 $(B)/ipitrace $(DESTDIR)$(BINDIR)/ipitrace
	install -m 644 $(B)/libipitrace.a $(DESTDIR)$(LIBDIR)/libipitrace.a
	install -m 755 $(B)/$(SOFILE) $(DESTDIR)$(LIBDIR)/$(SOFILE)
	ln -sf $(SOFILE) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SOFILE) $(DESTDIR)$(LIBDIR)/libipitrace.so
	install -m 644 include/ipitrace.h $(DESTDIR)$(INCDIR)/ipitrace.h
	install -m 644 $(B)/ipitrace.pc $(DESTDIR)$(LIBDIR)/pkgconfig/ipitrace.pc
	install -m 644 $(B)/man/ipitrace.1 $(DESTDIR)$(MANDIR)/man1/ipitrace.1
	install -m 644 $(B)/man/libipitrace.3 $(DESTDIR)$(MANDIR)/man3/libipitrace.3
	install -m 644 $(B)/man/ipitrace-filter.7 $(DESTDIR)$(MANDIR)/man7/ipitrace-filter.7
	install -m 644 $(B)/ipitrace.bash-completion $(DESTDIR)$(BASHCOMPDIR)/ipitrace
	install -d $(DESTDIR)$(SYSTEMDDIR)
	sed 's|@BINDIR@|$(BINDIR)|' tools/ipitrace-serve.service.in > $(DESTDIR)$(SYSTEMDDIR)/ipitrace-serve.service
	chmod 644 $(DESTDIR)$(SYSTEMDDIR)/ipitrace-serve.service
	install -d $(DESTDIR)$(PROMDIR)
	install -m 644 contrib/prometheus/ipitrace-rules.yml $(DESTDIR)$(PROMDIR)/ipitrace-rules.yml

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/ipitrace $(DESTDIR)$(LIBDIR)/libipitrace.a \
		$(DESTDIR)$(LIBDIR)/$(SOFILE) $(DESTDIR)$(LIBDIR)/$(SONAME) \
		$(DESTDIR)$(LIBDIR)/libipitrace.so $(DESTDIR)$(INCDIR)/ipitrace.h \
		$(DESTDIR)$(LIBDIR)/pkgconfig/ipitrace.pc $(DESTDIR)$(MANDIR)/man1/ipitrace.1 \
		$(DESTDIR)$(MANDIR)/man3/libipitrace.3 $(DESTDIR)$(MANDIR)/man7/ipitrace-filter.7 \
		$(DESTDIR)$(BASHCOMPDIR)/ipitrace $(DESTDIR)$(SYSTEMDDIR)/ipitrace-serve.service \
		$(DESTDIR)$(PROMDIR)/ipitrace-rules.yml

print-lib-src:
	@echo $(LIB_SRC)

# the libraries the library needs (tests/test_fuzz.sh links fuzz/mkseeds.c with them)
print-ldlibs:
	@echo $(LDLIBS)

$(B)/ipitrace: $(CLI_OBJ) $(B)/libipitrace.a $(B)/features
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJ) $(B)/libipitrace.a $(LDFLAGS) $(EXE_LDFLAGS) $(LDLIBS)

$(B)/tests/%: tests/%.c $(B)/libipitrace.a $(B)/features
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(DEPFLAGS) $(CPPFLAGS) -Ilib -Itests $(CFLAGS) -o $@ $< $(B)/libipitrace.a $(LDFLAGS) $(EXE_LDFLAGS) $(LDLIBS)

$(B)/tools/%: tools/%.c $(B)/libipitrace.a $(B)/features
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(DEPFLAGS) $(CPPFLAGS) -Ilib $(CFLAGS) -o $@ $< $(B)/libipitrace.a $(LDFLAGS) $(EXE_LDFLAGS) $(LDLIBS)

# the workload keeps frame pointers: its user stacks can be followed (tests
# of record --user-stacks)
$(B)/tools/ipi-workload: CFLAGS += -fno-omit-frame-pointer

# ASan+UBSan build of everything, in build/asan.  Its programs take the
# sanitizer runtimes in (-static-libasan -static-libubsan) and are not
# position-independent: LeakSanitizer then no longer scans libubsan's 6 MB
# of zeroed globals at every exit, nor relocations touch the 3 MB of
# sanitizer data, which took a --version from 68 to 39 ms here (2,900 fewer
# page faults; the ASan pass starts some 1,200 of them).  The shared
# library and the Python module keep the shared runtime (preloaded).
asan:
	$(MAKE) B=build/asan CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" LDFLAGS="-fsanitize=address,undefined" EXE_LDFLAGS="-no-pie -static-libasan -static-libubsan" all

deps:
	@sh tools/install-deps.sh

# the demo needs only the build's packages (not trace-cmd, clang, pandas)
demo:
	@IPITRACE_DEPS=build sh tools/install-deps.sh
	@$(MAKE) -s all
	@sh tools/demo.sh

# The test command: plain and ASan+UBSan builds, then the tests, one summary line.
# tests/run.sh runs the live scripts one at a time and the rest beside them
# (each script's head says which it is, and what the ASan pass leaves out).
# Both builds in one make: the ASan build's compiles fill the CPUs while the
# plain build links (its archive, binary, module and man pages one at a time).
check: deps
	@$(MAKE) -s -j$(NPROC) all asan
	@sh tests/run.sh build build/asan

test: check

# The inner loop: the plain build's unit tests and offline scripts (no
# live kernel, no ASan pass, no fuzzing smoke run), in under two minutes.
check-fast:
	@$(MAKE) -s -j$(NPROC) all
	@FAST=1 LIVE=0 sh tests/run.sh build

# The qemu guests (the scripts whose head says "suite: qemu").
check-qemu: deps
	@$(MAKE) -s -j$(NPROC) all
	@SUITE=qemu sh tests/run.sh build

bench: all
	@IPITRACE_DEPS=bench sh tools/install-deps.sh
	@sh bench/run.sh
	@sh bench/python.sh

FUZZ_SECONDS ?= 180
fuzz: all
	@IPITRACE_DEPS=fuzz sh tools/install-deps.sh
	@sh fuzz/run.sh $(FUZZ_SECONDS)

clean:
	rm -rf build

SOAK_SECONDS ?= 600
soak: all
	@sh tests/soak.sh build $(SOAK_SECONDS)

.PHONY: all asan deps demo check check-fast check-qemu test bench fuzz clean man install uninstall print-lib-src print-ldlibs soak

# ---- BPF (ipitrace top, lib/bpf/): built when clang, bpftool and libbpf are
# there; otherwise lib/bpf/counter.c says at run time that BPF is not built in.
# libbpf's headers are built against, not linked: counter.c opens
# libbpf.so.1 when counting starts (loading it at every exec cost 0.4 ms).
BPF_CLANG ?= clang
BPFTOOL ?= $(shell command -v bpftool 2>/dev/null || ls /usr/sbin/bpftool 2>/dev/null)
HAVE_BPF ?= $(shell pkg-config --exists libbpf 2>/dev/null && command -v $(BPF_CLANG) >/dev/null 2>&1 && \
	test -n "$(BPFTOOL)" && echo 1)
ifeq ($(HAVE_BPF),1)
BPF_ARCH := $(shell uname -m | sed 's/x86_64/x86/; s/aarch64/arm64/')
BPF_MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
$(call lib_obj,bpf/counter core/version): CPPFLAGS += -DIPT_HAVE_BPF
$(call lib_obj,bpf/counter): CPPFLAGS += -I$(B)/bpf
$(call lib_obj,bpf/counter): $(B)/bpf/ipitrace.skel.h
$(B)/bpf/ipitrace.bpf.o: lib/bpf/progs/ipitrace.bpf.c lib/bpf/progs/ipitrace.bpf.h
	@mkdir -p $(dir $@)
	@echo "  BPF     $@"
	@$(BPF_CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -Wall -Werror \
		$(if $(BPF_MULTIARCH),-I/usr/include/$(BPF_MULTIARCH)) -Ilib/bpf/progs -c -o $@ $<
$(B)/bpf/ipitrace.skel.h: $(B)/bpf/ipitrace.bpf.o
	@$(BPFTOOL) gen skeleton $< name ipitrace_bpf > $@.tmp && mv $@.tmp $@
endif

# ---- user stacks (record --user-stacks, lib/live/ustack.c): resolved with
# elfutils' libdwfl when libdw is there; otherwise record says so.  Built
# with its headers, not linked: ustack.c opens libdw.so.1 when the user
# stacks start (loading it at every exec cost each command 0.7 ms).
HAVE_DW ?= $(shell pkg-config --exists libdw 2>/dev/null && echo 1)
ifeq ($(HAVE_DW),1)
$(call lib_obj,live/ustack core/version): CPPFLAGS += -DIPT_HAVE_DW $(shell pkg-config --cflags libdw)
endif

# ---- what this build has: $(B)/feature/bpf and $(B)/feature/dw hold the
# answers above, 1 or 0 (HAVE_BPF=0 or HAVE_DW=0 on the command line is an
# answer too), each rewritten only when it changes; $(B)/features says both
# ("bpf=1 dw=0"; zstd and zlib are required, not looked for).  What an answer
# changes depends on it: the object compiled with its -DIPT_HAVE_*,
# lib/core/version.c (`ipitrace --version` lists them) and the links with
# $(LDLIBS).  So a library installed after a build (make demo, then make
# check's dependencies) rebuilds just those at the next make.  Each B
# (build/asan, ...) has its own.
FEATURES := bpf=$(if $(filter 1,$(HAVE_BPF)),1,0) dw=$(if $(filter 1,$(HAVE_DW)),1,0)
$(call lib_obj,bpf/counter): $(B)/feature/bpf
$(call lib_obj,live/ustack): $(B)/feature/dw
$(call lib_obj,core/version): $(B)/features
$(B)/feature/bpf $(B)/feature/dw: $(B)/feature/%: FORCE
	@mkdir -p $(dir $@)
	@v=$(patsubst $*=%,%,$(filter $*=%,$(FEATURES))); [ "$$(cat $@ 2>/dev/null)" = "$$v" ] || echo $$v > $@
$(B)/features: $(B)/feature/bpf $(B)/feature/dw
	@echo "$(FEATURES)" > $@
FORCE:
.PHONY: FORCE

# ---- Python module (issue 21): build/python/ipitrace, `import ipitrace` with
# PYTHONPATH=build/python.  Debian's python3 and its python3-dev and
# python3-numpy headers; left out (with a note) when they are missing.
PYTHON  ?= /usr/bin/python3
# One interpreter start for the four facts (make check runs make some 30
# times; importing numpy for numpy.get_include() took 0.25 s each): numpy's
# headers found where get_include() puts them (core/include, numpy 2:
# _core/include) without importing it.  "-" stands for a fact not there.
PY_FACTS := $(shell $(PYTHON) -c 'import importlib.util as u, os, sys, sysconfig; \
	s = u.find_spec("numpy"); d = s.submodule_search_locations[0] if s else ""; \
	n = [p for p in (os.path.join(d, "core", "include"), os.path.join(d, "_core", "include")) \
	     if d and os.path.isfile(os.path.join(p, "numpy", "arrayobject.h"))]; \
	print(sysconfig.get_paths()["include"] or "-", n[0] if n else "-", \
	      sysconfig.get_config_var("EXT_SUFFIX") or "-", "%d.%d" % sys.version_info[:2])' 2>/dev/null)
PY_INC  := $(filter-out -,$(word 1,$(PY_FACTS)))
PY_NPINC := $(filter-out -,$(word 2,$(PY_FACTS)))
PY_EXT  := $(filter-out -,$(word 3,$(PY_FACTS)))
PY_VER  := $(word 4,$(PY_FACTS))
# Debian's python3 reads /usr/lib/python3/dist-packages, and
# PREFIX/lib/python3.X/dist-packages for another PREFIX (/usr/local)
PYDIR   ?= $(if $(filter /usr,$(PREFIX)),$(PREFIX)/lib/python3/dist-packages,$(PREFIX)/lib/python$(PY_VER)/dist-packages)
PY_MOD  := $(B)/python/ipitrace/_ext$(PY_EXT)
PY_PKG  := $(B)/python/ipitrace/__init__.py
PY_BUILT := $(B)/python/ipitrace/_built.py
PY_OK   := $(and $(PY_EXT),$(wildcard $(PY_INC)/Python.h),$(wildcard $(PY_NPINC)/numpy/arrayobject.h))

ifneq ($(PY_OK),)
all: python
python: $(PY_MOD) $(PY_PKG) $(PY_BUILT)
else
python:
	@echo "  note: no Python module (needs python3-dev and python3-numpy for $(PYTHON))"
endif

# every python/*.c is one object of the module (python/ext.h: what they share)
PY_SRC  := $(sort $(wildcard python/*.c))
PY_OBJ  := $(PY_SRC:python/%.c=$(B)/python/obj/%.o)

$(B)/python/obj/%.o: python/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      $@"
	@$(CC) $(WARN) $(DEPFLAGS) $(CPPFLAGS) -isystem $(PY_INC) -isystem $(PY_NPINC) -fvisibility=hidden \
		$(CFLAGS) -fPIC -c -o $@ $<

# linked with the library's PIC objects: one file, no rpath, and it exports
# PyInit__ext alone (the library's ipt_* stay inside it)
$(PY_MOD): $(PY_OBJ) $(PIC_OBJ) Makefile $(B)/features
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	@printf '{ global: PyInit__ext; local: *; };\n' > $(B)/python/obj/ext.map
	@$(CC) -shared -Wl,--version-script,$(B)/python/obj/ext.map -o $@ $(PY_OBJ) $(PIC_OBJ) $(LDFLAGS) $(LDLIBS)

$(PY_PKG): python/ipitrace/__init__.py
	@mkdir -p $(dir $@)
	@cp $< $@

# which interpreter the module is for: its import errors name it (looked
# at on every make, written when it changes: make PYTHON=... builds for another)
$(PY_BUILT): FORCE
	@mkdir -p $(dir $@)
	@printf '# generated by make: the interpreter the module was built for\nPYTHON = "%s"\nVERSION = "%s"\n' \
		"$$($(PYTHON) -c 'import sys; print(sys.executable)')" "$(PY_VER)" > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
FORCE:
.PHONY: FORCE

install-python: python
	@if [ -n "$(PY_OK)" ]; then \
		install -d $(DESTDIR)$(PYDIR)/ipitrace && \
		install -m 644 $(PY_PKG) $(DESTDIR)$(PYDIR)/ipitrace/__init__.py && \
		install -m 644 $(PY_BUILT) $(DESTDIR)$(PYDIR)/ipitrace/_built.py && \
		install -m 644 $(PY_MOD) $(DESTDIR)$(PYDIR)/ipitrace/_ext$(PY_EXT); fi

uninstall-python:
	rm -f $(DESTDIR)$(PYDIR)/ipitrace/__init__.py $(DESTDIR)$(PYDIR)/ipitrace/_built.py \
		$(DESTDIR)$(PYDIR)/ipitrace/_ext$(PY_EXT)
	rm -rf $(DESTDIR)$(PYDIR)/ipitrace/__pycache__
	-rmdir $(DESTDIR)$(PYDIR)/ipitrace 2>/dev/null

install: install-python
uninstall: uninstall-python

# `make bench` runs the module's benchmark too (bench/python.sh), after
# bench/run.sh: it takes the real recordings that run.sh makes
bench-python: all
	@sh bench/python.sh

.PHONY: python install-python uninstall-python bench-python
