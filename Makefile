# tracer: a static flight recorder. `make` builds ./tracer with musl.
CROSS_COMPILE ?=
# CROSS_COMPILE=<Debian gnu triplet>- builds with the musl wrapper that
# test/setup-cross.sh ARCH installs (the gnu cross gcc alone has glibc's
# headers, not musl's); big-endian MIPS with the soft-float one, which
# runs on every MIPS. A musl triplet is taken as it is.
MUSL.x86_64-linux-gnu- := musl-
MUSL.i686-linux-gnu- := i386-linux-musl-
MUSL.aarch64-linux-gnu- := aarch64-linux-musl-
MUSL.arm-linux-gnueabihf- := arm-linux-musleabihf-
MUSL.arm-linux-gnueabi- := arm-linux-musleabi-
MUSL.riscv64-linux-gnu- := riscv64-linux-musl-
MUSL.mips-linux-gnu- := mips-linux-muslsf-
MUSL.mipsel-linux-gnu- := mipsel-linux-musl-
MUSL.mips64el-linux-gnuabi64- := mips64el-linux-musl-
MUSL.powerpc64le-linux-gnu- := powerpc64le-linux-musl-
MUSL.s390x-linux-gnu- := s390x-linux-musl-
# musl wrapper -> the test/setup-cross.sh ARCH that installs it
SETUP.musl-gcc := x86_64
SETUP.i386-linux-musl-gcc := i386
SETUP.aarch64-linux-musl-gcc := aarch64
SETUP.arm-linux-musleabihf-gcc := armhf
SETUP.arm-linux-musleabi-gcc := armel
SETUP.riscv64-linux-musl-gcc := riscv64
SETUP.mips-linux-muslsf-gcc := mips-sf
SETUP.mips-linux-musl-gcc := mips
SETUP.mipsel-linux-musl-gcc := mipsel
SETUP.mips64el-linux-musl-gcc := mips64el
SETUP.powerpc64le-linux-musl-gcc := ppc64el
SETUP.s390x-linux-musl-gcc := s390x
CC := $(or $(MUSL.$(CROSS_COMPILE)),$(CROSS_COMPILE),musl-)gcc
STRIP ?= $(CROSS_COMPILE)strip
CFLAGS ?= -Oz -Wall -Wextra -Wno-unused-parameter
CFLAGS += -flto -flto-partition=one -ffunction-sections -fdata-sections -fno-asynchronous-unwind-tables \
	-fno-unwind-tables -fno-stack-protector -fno-pie -fno-jump-tables $(GPR) $(SMALL)
# -Oz: gcc 12's smallest code (0.4 to 1 KiB under -Os). No FPU registers
# (tracer has no floating point): a variadic function (fmt, msg, die)
# then saves no vector registers on entry. Where the compiler has it
# (x86, arm, aarch64).
# -flto-partition=one: one LTRANS unit, so gcc 14 does not warn "using
# serial compilation of 2 LTRANS jobs", and gcc 12 inlines across the
# whole program (56 bytes less on x86_64 defconfig).
GPR := $(shell $(CC) -mgeneral-regs-only -Werror -c -x c /dev/null -o /dev/null 2>/dev/null && echo -mgeneral-regs-only)
# No shrink-wrapping (a prologue moved into the paths that need it is a
# prologue per path), no loop made a call of memset or memcpy, no tail
# call (an epilogue copied before each jump; tracer has no recursion a
# tail call would keep flat): 192 bytes less on x86_64 defconfig. No
# small function inlined where it is not called once (-Oz still does):
# 144 bytes less on allnoconfig, 36 more on defconfig.
# gcc's; another compiler goes without.
SMALLF := -fno-shrink-wrap -fno-tree-loop-distribute-patterns -fno-optimize-sibling-calls -fno-inline-small-functions
SMALL := $(shell $(CC) $(SMALLF) -Werror -c -x c /dev/null -o /dev/null 2>/dev/null && echo $(SMALLF))
# Debian's cross gcc builds PIE by default: position-independent code is
# bigger (GOT loads), and a static binary gains nothing from it.
# common-page-size=64: the data segment starts right after the code in
# the file, not at the next page (that padding was up to 4 KiB).
LDFLAGS += -static -no-pie -Wl,--gc-sections $(if $(NOSTRIP),,-s) -Wl,-z,noseparate-code -Wl,-z,norelro -Wl,--build-id=none \
	-Wl,-z,common-page-size=64
# What push= says it is (x-amz-meta-tracer): the commit, or "unknown".
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo unknown)
.DELETE_ON_ERROR:
# The layers, bottom up: each file calls only the files before it, and
# nothing calls up into tracer.c (test/t_build.sh checks the objects).
# What the program shares lives in lib/, one file per concern, as in
# toybox; the perf ring ABI and the program are at the top.
LAYERS := lib/lib lib/memcg lib/room lib/zstd lib/sha lib/s3 ring lib/frame lib/sink lib/pull lib/pushcfg lib/push lib/dur lib/cfg lib/print lib/perfdata lib/convert \
	lib/buildid lib/seen lib/proc lib/track lib/lean lib/ftrace lib/boot lib/hotplug lib/dump tracer
SRCS := $(LAYERS:=.c)
HDRS := $(filter-out tracer.h,$(LAYERS:=.h)) lib/config.h

# .cc remembers the compiler and flags of the last build: another
# CROSS_COMPILE (or CFLAGS) rebuilds, where the sources alone would say
# "up to date" and keep the other arch.
.cc: FORCE
	@echo '$(CC) $(CFLAGS) $(LDFLAGS) $(VERSION)' | cmp -s - $@ || echo '$(CC) $(CFLAGS) $(LDFLAGS) $(VERSION)' >$@

# The old binary goes first: a failed build (another arch's, say) leaves
# no tracer that looks like the new one.
tracer: $(SRCS) $(HDRS) .cc
	@rm -f $@
	@command -v $(CC) >/dev/null || { echo "tracer: no $(CC) (for CROSS_COMPILE=$(CROSS_COMPILE)):" \
		"$(if $(SETUP.$(CC)),test/setup-cross.sh $(SETUP.$(CC)) installs it,give a musl toolchain's prefix or a Debian gnu triplet of test/setup-cross.sh)"; exit 1; }
	$(CC) -I. -Ilib $(CFLAGS) -DVERSION='"$(VERSION)"' -o $@ $(SRCS) $(LDFLAGS)
	@$(if $(NOSTRIP),:,$(call sstrip,$@))
	@echo "tracer: $$(wc -c < $@) bytes ($(or $(CROSS_COMPILE),native))"

# NOSTRIP=1 keeps symbols and section headers, for gdb and objdump.
# What the loader never reads goes, as ELFkickers' sstrip does: the
# section headers and what lies past the last segment (.comment,
# .shstrtab); about 1 KiB. readelf reads any arch's ELF; the header
# fields are zeroed, which reads the same in either byte order.
# ELF64: e_shoff at 40 (8 bytes), e_shnum and e_shstrndx at 60 (4);
# ELF32: e_shoff at 32 (4), e_shnum and e_shstrndx at 48 (4).
define sstrip
	command -v readelf >/dev/null || { echo "tracer: no readelf (apt-get install binutils): section headers kept, about 1 KiB" >&2; exit 0; }; \
	e=0; for x in $$(readelf -lW $(1) | awk '$$1 == "LOAD" { print $$2 "+" $$5 }'); do \
		[ $$(($$x)) -gt $$e ] && e=$$(($$x)); done; [ $$e -gt 0 ] || exit 1; \
	if [ "$$(od -An -tu1 -j4 -N1 $(1) | tr -d ' ')" = 2 ]; then o=40 n=8 s=60; else o=32 n=4 s=48; fi; \
	dd if=/dev/zero of=$(1) bs=1 seek=$$o count=$$n conv=notrunc 2>/dev/null && \
	dd if=/dev/zero of=$(1) bs=1 seek=$$s count=4 conv=notrunc 2>/dev/null && \
	truncate -s $$e $(1)
endef

# .config -> lib/config.h: every symbol is an always-defined 0/1 CFG_ macro.
# A symbol that .config does not mention (it predates it) takes its
# Kconfig default, as kconfig's olddefconfig would.
lib/config.h: .config Kconfig
	awk 'FNR == NR { if (/^CONFIG_.*=y/) { sub(/^CONFIG_/, ""); sub(/=y/, ""); v[$$0] = 1 } \
	                 else if (/^# CONFIG_.* is not set/) v[substr($$2, 8)] = 0; next } \
	     /^config / { if (n) out(); n = $$2; d = 0 } /^[ \t]+default y/ { d = 1 } END { if (n) out() } \
	     function out() { print "#define CFG_" n " " (n in v ? v[n] : d) }' .config Kconfig > $@

# KCONF_ALL: y = allyes, n = allno, empty = each symbol's default.
define kconf
	awk -v all=$(1) '/^config / { if (n) out(); n = $$2; d = "n" } \
	  /^[ \t]+default y/ { d = "y" } END { if (n) out() } \
	  function out() { v = all ? all : d; \
	    print (v == "y" ? "CONFIG_" n "=y" : "# CONFIG_" n " is not set") }' Kconfig > .config
endef
.config:	# kept as it is under make -B
	@test -f .config || $(call kconf,)
defconfig:
	$(call kconf,)
allnoconfig:
	$(call kconf,n)
allyesconfig:
	$(call kconf,y)
menuconfig: .config
	@command -v kconfig-mconf >/dev/null || { echo "menuconfig needs kconfig-mconf (apt-get install kconfig-frontends)"; exit 1; }
	kconfig-mconf Kconfig

# Quick start: install what the build and the reader need and is
# missing (a minimal Debian 13 has no binutils: gcc's recommends), build,
# record with the default config until Ctrl-C, which dumps to the first
# free name of tracer.data, tracer.data.1, ... (never overwritten), said
# before and after (the shell outlives the Ctrl-C, or the SIGTERM of
# timeout(1) to the whole group, that ends tracer, and make waits for it).
# readelf: sstrip below.
APT_GET = DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends
RUNOUT ?= tracer.data
run:
	@p=; command -v musl-gcc >/dev/null || p="$$p musl-tools"; \
	command -v gcc >/dev/null || p="$$p gcc"; \
	for t in as ld readelf; do command -v $$t >/dev/null || { p="$$p binutils"; break; }; done; \
	command -v perf >/dev/null || p="$$p linux-perf"; \
	[ -z "$$p" ] || { echo "make run: installing$$p"; $(APT_GET) $$p || { apt-get update -q && $(APT_GET) $$p; }; }
	$(MAKE) tracer
	@n=$(RUNOUT); i=0; while [ -e "$$n" ]; do i=$$((i + 1)); n=$(RUNOUT).$$i; done; \
	echo "make run: recording; Ctrl-C dumps to $$n"; \
	trap : INT TERM; ./tracer -o $(RUNOUT); \
	while [ -e $(RUNOUT).$$((i + 1)) ]; do i=$$((i + 1)); n=$(RUNOUT).$$i; done; \
	[ ! -e "$$n" ] || echo "make run: the newest dump is $$n: perf script -i $$n"

test:
	bash test/run.sh

layers:		# for the tests (test/t_build.sh, test/fuzz/run.sh)
	@echo $(LAYERS)

clean:
	rm -f tracer lib/config.h .cc test/ringtest test/work *.o

.PHONY: layers defconfig allnoconfig allyesconfig menuconfig run test clean FORCE

# End to end in QEMU guests (test/qemu.sh): every guest of the set, or
# ARCH=x86_64|aarch64|armhf|s390x|i386|mipsel|mips64el|ppc64el|riscv64|mips
# with KERNEL=4.4|4.9|5.10|6.1|6.12 and, for mips, CPU=24Kc
test-qemu:
	KERNEL=$(KERNEL) CPU=$(CPU) bash test/qemu.sh $(or $(ARCH),all)

.PHONY: test-qemu

# dist/tracer-ARCH (defconfig) for every arch of test-qemu (ARCHS="aarch64
# mips": those) and dist/SHA256SUMS; installs the toolchains (test/dist.sh). test-dist
# judges them too (the last step of test-qemu).
dist:
	ARCHS='$(ARCHS)' bash test/dist.sh

test-dist:
	bash test/dist.sh --test

.PHONY: dist test-dist

# Benchmarks: hot path, idle, dump, size, memory -> test/bench/results.md (~8 min, root; never part of test)
bench:
	bash test/bench/run.sh

.PHONY: bench

# libFuzzer targets with ASan+UBSan (glibc clang; installs it if missing):
# each runs FUZZTIME seconds (600) after its corpus; a crash is saved into test/fuzz/corpus/TARGET/
fuzz:
	bash test/fuzz/run.sh $(or $(FUZZTIME),600) $(FUZZTARGETS)

.PHONY: fuzz
