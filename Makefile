# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# make            the BPF object and the loader (build/csum-guard)
# make test       install what is needed, build, run the whole suite
# make demo       install what is needed, build, show the reproduction
# make test-matrix  the suite on every kernel of tests/guest/kernels.list,
#                 then make test-mutants
# make test-mutants  every mutant of tests/mutants.list must fail a case
# make bench      the benchmarks (never part of make test)
# make dist       build/dist: the BPF object, the loader, the DKMS source
#                 tarball, the .debs (csum-guard, csum-guard-dkms), each
#                 with a .sha256, and SHA256SUMS; on amd64 also the arm64
#                 loader (csum-guard-arm64) and its csum-guard .deb
# make all-arm64  the same for arm64 in build/arm64 (cross-built, on amd64)
# make build-deps only what building (make, make dist) needs
# make install    the loader, the object, the man page csum-guard(8) and
#                 csum-guard-watch.service (the module installs through
#                 the csum-guard-dkms .deb of make dist)
# make clean
#
# V=1 shows the commands.

VERSION := $(shell cat VERSION)
BUILD ?= build
DIST ?= $(BUILD)/dist
DIST_STAGE = $(DIST).stage
PREFIX ?= /usr/local
DESTDIR ?=

CC ?= cc
CLANG ?= clang
BPFTOOL ?= bpftool
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Wno-unused-parameter
INCLUDES := -Iinclude -Ilib -I$(BUILD)
# Paths in debug info and BTF name the tree relative to its top, so that two
# checkouts in different directories build the same bytes.
REPRO_FLAGS := -ffile-prefix-map=$(CURDIR)=. -ffile-prefix-map=$(abspath $(BUILD))=build
# The guard loads only where bpf_cast_to_kern_ctx() exists (6.2+), so it may
# use the v3 instruction set (5.1+): 32-bit jumps and compares against an
# immediate either way round, which keep its entry program within r0-r6.
GUARD_BPF_FLAGS := -g -O2 -target bpf -mcpu=v3 $(REPRO_FLAGS)
LIBS := $(shell pkg-config --libs libbpf 2>/dev/null || echo -lbpf -lelf -lz)
# The build machine's multiarch triplet (its asm/ headers for the BPF
# objects), whatever CC builds the loader for.
HOST_TRIPLET := $(shell cc -dumpmachine)
# The loader is linked statically (STATIC=0: against the shared libbpf, for
# development): one binary that runs on any x86_64 userland with glibc or
# none, whatever libbpf it has, such as Debian 11's 0.3.
STATIC ?= 1
LOADER_LIBS := $(if $(filter 1,$(STATIC)),-static $(shell pkg-config --static --libs libbpf 2>/dev/null || echo -lbpf -lelf -lz),$(LIBS))

# lib/: what the commands share, depending on nothing above it
LIB_SRCS := $(wildcard lib/*.c)
LIB_OBJS := $(LIB_SRCS:lib/%.c=$(BUILD)/lib/%.o)
LOADER_SRCS := $(wildcard loader/*.c)
LOADER_OBJS := $(LOADER_SRCS:loader/%.c=$(BUILD)/loader/%.o)
# syncookie/: the second guard, its program and its command
SC_SRCS := $(filter-out %.bpf.c,$(wildcard syncookie/*.c))
SC_OBJS := $(SC_SRCS:syncookie/%.c=$(BUILD)/syncookie/%.o)
# The tools the booted Debian hosts of tests/guest/hostroot.sh run: linked
# statically, since their glibc may be older than this machine's.
STATIC_TOOLS := $(BUILD)/tests/static/cg-inject $(BUILD)/tests/static/cg-udprecv
TOOLS := $(BUILD)/tests/cg-inject $(BUILD)/tests/cg-sniff $(BUILD)/tests/cg-nfq \
	$(BUILD)/tests/cg-stream $(BUILD)/tests/unit $(BUILD)/tests/guard-alt.bpf.o \
	$(BUILD)/tests/guard-abi-next.bpf.o $(BUILD)/tests/guard-helper.bpf.o \
	$(BUILD)/tests/sc-syn $(BUILD)/tests/xdp-pass.bpf.o $(BUILD)/tests/tc-pass.bpf.o \
	$(BUILD)/tests/xdp-redirect.bpf.o $(BUILD)/tests/cg-hooks \
	$(BUILD)/tests/cg-kdump $(BUILD)/tests/cg-sdrecv $(BUILD)/tests/csum-guard-next \
	$(BUILD)/tests/cg-udprecv $(BUILD)/tests/csum-guard-prev $(STATIC_TOOLS)
# What the benchmark tools and cg-stream share: netns, numbers, sockets.
BENCH_UTIL := tests/common/util.c lib/netns.c lib/log.c lib/json.c
# what the test tools and the bench tools share (tests/common/)
TESTCOMMON := -Itests/common
TESTCOMMON_H := $(wildcard tests/common/*.h)

# Debian packages each target needs on a fresh Debian 12 machine.
BUILD_DEPS := clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev pkg-config make gcc
TEST_DEPS := iproute2 kmod jq ethtool dkms util-linux nftables iptables curl strace debootstrap lintian \
	qemu-user

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

.PHONY: all clean test test-matrix test-mutants demo dist install deps build-deps tools unit
.DELETE_ON_ERROR:

all: $(BUILD)/csum_guard.bpf.o $(BUILD)/syncookie.bpf.o $(BUILD)/csum-guard tools

tools: $(TOOLS)

$(BUILD) $(BUILD)/lib $(BUILD)/loader $(BUILD)/syncookie $(BUILD)/tests $(BUILD)/tests/static $(BUILD)/next $(DIST):
	$(Q)mkdir -p $@

# vmlinux.h is generated from the build host's BTF, never committed.
$(BUILD)/vmlinux.h: | $(BUILD)
	$(call msg,GEN,$@)
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@

$(BUILD)/csum_guard.bpf.o: bpf/csum_guard.bpf.c include/csum_guard.h include/csum_guard_abi.h $(BUILD)/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(GUARD_BPF_FLAGS) $(INCLUDES) -c $< -o $@
	$(Q)llvm-strip -g $@ 2>/dev/null || true

$(BUILD)/csum_guard.skel.h: $(BUILD)/csum_guard.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name csum_guard_bpf > $@

# The SYN-cookie responder: uapi headers only (no CO-RE), so it loads on
# any kernel with bpf_tcp_gen_syncookie (5.3+).
$(BUILD)/syncookie.bpf.o: syncookie/syncookie.bpf.c syncookie/syncookie_abi.h | $(BUILD)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) -g -O2 -target bpf $(REPRO_FLAGS) -Isyncookie -I/usr/include/$(HOST_TRIPLET) -c $< -o $@
	$(Q)llvm-strip -g $@ 2>/dev/null || true

$(BUILD)/syncookie.skel.h: $(BUILD)/syncookie.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name syncookie_bpf > $@

$(BUILD)/lib/%.o: lib/%.c lib/*.h | $(BUILD)/lib
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(REPRO_FLAGS) $(WARN) -Ilib -c $< -o $@

# VERSION is compiled in: a new one rebuilds what prints it. LOADER_VERSION,
# and SKEL_INC (a csum_guard.skel.h found before $(BUILD)'s), change for
# csum-guard-next only.
LOADER_VERSION = $(VERSION)
SKEL_INC =
LOADER_CC = $(CC) $(CFLAGS) $(REPRO_FLAGS) $(WARN) $(SKEL_INC) $(INCLUDES) -Isyncookie \
	-DCG_VERSION='"$(LOADER_VERSION)"'
$(BUILD)/loader/%.o: loader/%.c loader/*.h lib/*.h include/*.h syncookie/syncookie.h \
		$(BUILD)/csum_guard.skel.h VERSION | $(BUILD)/loader
	$(call msg,CC,$@)
	$(Q)$(LOADER_CC) -c $< -o $@

$(BUILD)/syncookie/%.o: syncookie/%.c syncookie/*.h lib/*.h $(BUILD)/syncookie.skel.h | $(BUILD)/syncookie
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(REPRO_FLAGS) $(WARN) -Ilib -Isyncookie -I$(BUILD) -c $< -o $@

$(BUILD)/csum-guard: $(LOADER_OBJS) $(SC_OBJS) $(LIB_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LOADER_LIBS) -o $@

$(BUILD)/tests/%: tests/tools/%.c $(TESTCOMMON_H) tests/tools/capture.h | $(BUILD)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(WARN) $(TESTCOMMON) -o $@ $<

$(BUILD)/tests/static/%: tests/tools/%.c $(TESTCOMMON_H) tests/tools/capture.h | $(BUILD)/tests/static
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(WARN) $(TESTCOMMON) -static -o $@ $<

# cg-hooks asks the kernel which programs run on a device's tcx hooks.
$(BUILD)/tests/cg-hooks: tests/tools/cg-hooks.c lib/compat.h | $(BUILD)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(WARN) -o $@ $< $(LIBS)

# cg-kdump reads the module's device dump round by round, through lib/nl.
$(BUILD)/tests/cg-kdump: tests/tools/cg-kdump.c lib/nl.c lib/nl.h include/csum_guard_genl.h \
		include/csum_guard_abi.h | $(BUILD)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(WARN) -Ilib -Iinclude -o $@ $< lib/nl.c

$(BUILD)/tests/cg-stream: tests/tools/cg-stream.c $(BENCH_UTIL) $(TESTCOMMON_H) | $(BUILD)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(WARN) $(TESTCOMMON) -o $@ $< $(BENCH_UTIL) $(LIBS)

# The unit tests run the decision, the backend choice and the digest, no
# kernel needed.
# UNIT_LIB: the parts of lib/ the unit tests call, and what those need
UNIT_LIB := lib/sha256.c lib/nl.c lib/cli.c lib/log.c lib/state.c lib/netns.c lib/bpffs.c lib/json.c
$(BUILD)/tests/unit: tests/unit.c include/csum_guard.h loader/select.c loader/select.h \
		$(UNIT_LIB) lib/*.h | $(BUILD)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(WARN) $(INCLUDES) -Iloader -o $@ tests/unit.c loader/select.c \
		$(UNIT_LIB) $(LIBS)

# Variants of the guard the tests load, built from the same source with -D:
# another program of our ABI (one constant changed) and the guard claiming
# the next ABI version, which attach --object is tried with
# (tests/cases/60-object.sh); and the guard with direct packet access
# switched off, so that every header byte is read the slow way
# (judge_slow(), bpf_skb_load_bytes()): the sweep holds that path to the
# same oracle (tests/cases/25-sweep.sh).
$(BUILD)/tests/guard-alt.bpf.o: VARIANT := -DCG_MAX_DIRECT_OFF=0x3ffe
$(BUILD)/tests/guard-abi-next.bpf.o: VARIANT := '-DCG_OBJ_ABI_VERSION=(CG_ABI_VERSION + 1)'
$(BUILD)/tests/guard-helper.bpf.o: VARIANT := -DCG_MAX_DIRECT_OFF=0
$(BUILD)/tests/guard-%.bpf.o: bpf/csum_guard.bpf.c include/csum_guard.h include/csum_guard_abi.h \
		$(BUILD)/vmlinux.h | $(BUILD)/tests
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(GUARD_BPF_FLAGS) $(INCLUDES) $(VARIANT) -c $< -o $@

# A second loader that differs from this one as the next release would:
# another version (VERSION+next) and another program (guard-alt's
# instructions), for the upgrade tests (the upgrade case of
# tests/cases/60-object.sh, portable in tests/cases/90-dist.sh).
NEXT_OBJS := $(LOADER_SRCS:loader/%.c=$(BUILD)/next/%.o)
$(BUILD)/next/csum_guard.skel.h: $(BUILD)/tests/guard-alt.bpf.o | $(BUILD)/next
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name csum_guard_bpf > $@

$(BUILD)/next/%.o: LOADER_VERSION = $(VERSION)+next
$(BUILD)/next/%.o: SKEL_INC = -I$(BUILD)/next
$(BUILD)/next/%.o: loader/%.c loader/*.h lib/*.h include/*.h syncookie/syncookie.h \
		$(BUILD)/next/csum_guard.skel.h VERSION | $(BUILD)/next
	$(call msg,CC,$@)
	$(Q)$(LOADER_CC) -c $< -o $@

$(BUILD)/tests/csum-guard-next: $(NEXT_OBJS) $(SC_OBJS) $(LIB_OBJS) | $(BUILD)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LOADER_LIBS) -o $@

# The loader of the last commit whose guards each loaded a program of their
# own, before the host's shared one (tests/cases/60-object.sh,
# upgrade_layout), built from this tree's git history by that commit's own
# Makefile, for this machine, without this make's flags and in a BUILD of
# its own (it must not write this tree's files); without that history,
# or in a cross build (make all-arm64), csum-guard-prev.missing says why
# and the case skips.
PREV_COMMIT := 3a7323ec20970e59d21253f41b408c62861a8aa8
$(BUILD)/tests/csum-guard-prev: | $(BUILD)/tests
	$(call msg,PREV,$@)
	$(Q)if [ -n "$(filter $(addsuffix %,$(foreach a,$(CROSS_ARCHES),$(CROSS_$(a)))),$(CC))" ]; then \
		rm -f $@ && echo "not in a cross build: $(PREV_COMMIT)'s Makefile builds for the build machine" >$@.missing; \
	else \
		env -u MAKEFLAGS -u MAKEOVERRIDES -u MFLAGS MAKE="$(MAKE)" \
			tests/tools/prev-loader.sh $(PREV_COMMIT) "$(VERSION)~prev" $@; \
	fi

# An XDP program that passes everything: on a veth peer it turns NAPI on,
# which native XDP_TX toward that peer needs (tests/cases/80-sc-answer.sh).
# A tc program that passes everything, an XDP one that redirects: someone
# else's, ahead of a guard (tests/cases/20-edges.sh, 12-topology.sh).
$(BUILD)/tests/xdp-pass.bpf.o $(BUILD)/tests/tc-pass.bpf.o $(BUILD)/tests/xdp-redirect.bpf.o: \
		$(BUILD)/tests/%.bpf.o: \
		tests/tools/%.bpf.c | $(BUILD)/tests
	$(call msg,BPF,$@)
	$(Q)$(CLANG) -g -O2 -target bpf -I/usr/include/$(HOST_TRIPLET) -c $< -o $@

# $(call apt-need,PACKAGES): install from Debian those not installed yet
define apt-need
	@missing=$$(for p in $(1); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "  APT      $$missing"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi
endef

deps:
	$(call apt-need,$(BUILD_DEPS) $(CROSS_DEPS) $(TEST_DEPS))

build-deps:
	$(call apt-need,$(BUILD_DEPS) $(CROSS_DEPS))

# The suite checks the release artifacts too (tests/cases/90-dist.sh).
test: deps
	$(Q)$(MAKE) --no-print-directory all dist
	$(Q)tests/run.sh

# every kernel line of tests/guest/kernels.list; the one with both
# backends (6.12) boots once per backend, in parallel (tests/guests.sh);
# the arm64 lines (make all-arm64's tree) boot once each, for the bpf
# backend on 6.12 and the module on 6.1: TCG emulating another
# architecture is too slow for more within the matrix's time
test-matrix: deps
	$(Q)$(MAKE) --no-print-directory all dist all-arm64
	$(Q)CG_DEPTH=full CG_GUESTS="$$(awk '!/^#/ && NF { \
		if ($$1 == "deb6.12") print "deb6.12:bpf deb6.12:kmod"; \
		else if ($$1 == "deb6.12-arm64") print "deb6.12-arm64:bpf"; \
		else if ($$1 == "deb6.1-arm64") print "deb6.1-arm64:kmod"; \
		else print $$1 }' tests/guest/kernels.list)" tests/run.sh
	$(Q)tests/mutants.sh

# every mutant of tests/mutants.list must make a case fail (tests/mutants.sh)
test-mutants: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tests/mutants.sh

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tests/run.sh --demo

# --- dist ----------------------------------------------------------------
# One VERSION for every artifact. Archive timestamps are SOURCE_DATE_EPOCH,
# by default the last commit's date, and owners, modes and order are fixed:
# two builds of one tree give the same tarball and .deb, byte for byte.

DKMS_DIR := csum-guard-$(VERSION)
DKMS_TAR := $(DIST)/$(DKMS_DIR).tar.gz
DEB_ARCH := $(shell dpkg --print-architecture 2>/dev/null || uname -m)
DEB := $(DIST)/csum-guard-dkms_$(VERSION)_all.deb
LOADER_DEB := $(DIST)/csum-guard_$(VERSION)_$(DEB_ARCH).deb
# The arm64 loader and package, from an amd64 build machine (see below).
CROSS_ARCHES := $(if $(filter amd64,$(DEB_ARCH)),arm64)
CROSS_LOADERS := $(CROSS_ARCHES:%=$(DIST)/csum-guard-%)
CROSS_DEBS := $(CROSS_ARCHES:%=$(DIST)/csum-guard_$(VERSION)_%.deb)
DIST_FILES := $(DIST)/csum_guard.bpf.o $(DIST)/csum-guard $(DKMS_TAR) $(DEB) $(LOADER_DEB) \
	$(CROSS_LOADERS) $(CROSS_DEBS)
# What DKMS needs (see dkms.conf), never kbuild's products in kmod/.
DKMS_FILES = VERSION dkms.conf $(wildcard include/*.h) kmod/Kbuild kmod/Makefile \
	$(filter-out %.mod.c,$(wildcard kmod/*.c)) $(wildcard kmod/*.h)
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || stat -c %Y VERSION)
TAR_REPRO = --sort=name --format=gnu --mtime=@$(SOURCE_DATE_EPOCH) \
	--owner=0 --group=0 --numeric-owner --mode=u=rwX,go=rX
MKDEB = VERSION=$(VERSION) SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH) packaging/mkdeb.sh
DEB_COMMON := packaging/mkdeb.sh packaging/copyright packaging/changelog

dist: $(DIST_FILES:%=%.sha256) $(DIST)/SHA256SUMS

$(DIST)/csum_guard.bpf.o $(DIST)/csum-guard: $(DIST)/%: $(BUILD)/% | $(DIST)
	$(call msg,DIST,$@)
	$(Q)cp $< $@

# Unpacks into /usr/src/csum-guard-VERSION, ready for dkms add.
$(DKMS_TAR): $(DKMS_FILES) | $(DIST)
	$(call msg,TAR,$@)
	$(Q)rm -rf $(DIST_STAGE) && mkdir -p $(DIST_STAGE)/$(DKMS_DIR)
	$(Q)for f in $(DKMS_FILES); do \
		install -D -m 0644 $$f $(DIST_STAGE)/$(DKMS_DIR)/$$f || exit; done
	$(Q)tar -C $(DIST_STAGE) $(TAR_REPRO) -I 'gzip -9n' -cf $@ $(DKMS_DIR)
	$(Q)rm -rf $(DIST_STAGE)

# csum-guard-dkms: the tarball's very tree under /usr/src (packaging/dkms/).
$(DEB): $(DKMS_TAR) $(wildcard packaging/dkms/*) $(DEB_COMMON)
	$(call msg,DEB,$@)
	$(Q)rm -rf $(DIST_STAGE) && mkdir -p $(DIST_STAGE)/usr/src
	$(Q)tar -C $(DIST_STAGE)/usr/src -xzf $(DKMS_TAR)
	$(Q)$(MKDEB) $(DIST_STAGE) packaging/dkms $@
	$(Q)rm -rf $(DIST_STAGE)

# csum-guard: the loader (stripped, as Debian ships binaries), the object for
# --object, the man page, the watch unit and the libvirt hook example
# (packaging/loader/). One recipe for every architecture: the loader of
# architecture A is $(BUILD)/csum-guard (the build machine's) or
# $(BUILD)/A/csum-guard (cross-built), stripped by A's strip.
loader_of = $(if $(filter $(DEB_ARCH),$(1)),$(BUILD)/csum-guard,$(BUILD)/$(1)/csum-guard)
strip_of = $(if $(filter $(DEB_ARCH),$(1)),strip,$(CROSS_$(1))strip)
.SECONDEXPANSION:
$(LOADER_DEB) $(CROSS_DEBS): $(DIST)/csum-guard_$(VERSION)_%.deb: $$(call loader_of,$$*) \
		$(BUILD)/csum_guard.bpf.o doc/csum-guard.8 \
		packaging/csum-guard-watch.service packaging/libvirt-qemu-hook \
		$(wildcard packaging/loader/*) $(DEB_COMMON) | $(DIST)
	$(call msg,DEB,$@)
	$(Q)rm -rf $(DIST_STAGE) && mkdir -p $(DIST_STAGE)/usr/sbin \
		$(DIST_STAGE)/usr/share/man/man8 $(DIST_STAGE)/lib/systemd/system
	$(Q)$(call strip_of,$*) --strip-unneeded --remove-section=.comment --remove-section=.note \
		-o $(DIST_STAGE)/usr/sbin/csum-guard $(call loader_of,$*)
	$(Q)install -D -m 0644 $(BUILD)/csum_guard.bpf.o $(DIST_STAGE)/usr/lib/csum-guard/csum_guard.bpf.o
	$(Q)sed 's/@VERSION@/$(VERSION)/' doc/csum-guard.8 | gzip -9n \
		> $(DIST_STAGE)/usr/share/man/man8/csum-guard.8.gz
	$(Q)sed 's|@SBINDIR@|/usr/sbin|' packaging/csum-guard-watch.service \
		> $(DIST_STAGE)/lib/systemd/system/csum-guard-watch.service
	$(Q)install -D -m 0755 packaging/libvirt-qemu-hook \
		$(DIST_STAGE)/usr/share/doc/csum-guard/examples/libvirt-qemu-hook
	$(Q)ARCH=$* $(MKDEB) $(DIST_STAGE) packaging/loader $@
	$(Q)rm -rf $(DIST_STAGE)

# --- cross-built loaders ---------------------------------------------------
# The same sources, compiled by Debian's cross compiler for A (CROSS_A is
# its prefix) in a make of their own with BUILD=$(BUILD)/A, and linked
# statically against A's libbpf, libelf and zlib from Debian's packages,
# unpacked into $(BUILD)/cross/A by packaging/cross-sysroot.sh (nothing
# installed system-wide but the compiler). The BPF objects and skeletons
# are made again there from the same sources: the same bytes, one object
# for every architecture.
CROSS_arm64 := aarch64-linux-gnu-
CROSS_DEPS = $(foreach a,$(CROSS_ARCHES),gcc-$(patsubst %-,%,$(CROSS_$(a))))
$(CROSS_LOADERS): $(DIST)/csum-guard-%: $(BUILD)/%/csum-guard | $(DIST)
	$(call msg,DIST,$@)
	$(Q)cp $< $@

# cross_make A GOAL: make GOAL for A in $(BUILD)/A, with A's compiler and
# A's libraries (static) from its sysroot
define cross_make
	$(Q)command -v $(CROSS_$(1))gcc >/dev/null || \
		{ echo "make: no $(CROSS_$(1))gcc to build for $(1): make build-deps installs it" >&2; exit 1; }
	$(Q)sysroot=$$(packaging/cross-sysroot.sh $(1) $(BUILD)/cross/$(1)) && \
	libs="-static -L$$sysroot/usr/lib/$(patsubst %-,%,$(CROSS_$(1))) -lbpf -lelf -lz" && \
	$(MAKE) --no-print-directory BUILD=$(BUILD)/$(1) CC=$(CROSS_$(1))gcc \
		CFLAGS='$(CFLAGS) -isystem '$$sysroot/usr/include \
		LIBS="$$libs" LOADER_LIBS="$$libs" $(2)
endef

$(CROSS_ARCHES:%=$(BUILD)/%/csum-guard): $(BUILD)/%/csum-guard: $(LOADER_SRCS) $(SC_SRCS) $(LIB_SRCS) \
		$(wildcard lib/*.h loader/*.h syncookie/*.h include/*.h) bpf/csum_guard.bpf.c \
		syncookie/syncookie.bpf.c packaging/cross-sysroot.sh VERSION
	$(call msg,SYSROOT,$(BUILD)/cross/$*)
	$(call cross_make,$*,$(BUILD)/$*/csum-guard)

# Everything `make` builds, for A (the loader, the BPF objects, the test
# tools and the unit binary) in $(BUILD)/A: what a guest of architecture A
# runs the suite with (CG_BUILD_DIR=$(BUILD)/A, tests/guest/README.md).
# Every binary links statically against A's libraries, or only A's libc.
.PHONY: $(CROSS_ARCHES:%=all-%)
$(CROSS_ARCHES:%=all-%): all-%:
	$(call cross_make,$*,all)

$(DIST)/%.sha256: $(DIST)/%
	$(Q)cd $(DIST) && sha256sum $* > $*.sha256

# Only this version's artifacts stay: those of other versions go.
$(DIST)/SHA256SUMS: $(DIST_FILES)
	$(call msg,SUM,$@)
	$(Q)cd $(DIST) && for f in *; do \
		case " $(notdir $(DIST_FILES) $(DIST_FILES:%=%.sha256)) " in \
		*" $$f "*) ;; \
		*) rm -rf -- "$$f" ;; \
		esac; done
	$(Q)cd $(DIST) && sha256sum $(notdir $(DIST_FILES)) > SHA256SUMS
# --- end dist ------------------------------------------------------------

install: all
	install -D -m 0755 $(BUILD)/csum-guard $(DESTDIR)$(PREFIX)/sbin/csum-guard
	install -D -m 0644 $(BUILD)/csum_guard.bpf.o $(DESTDIR)$(PREFIX)/lib/csum-guard/csum_guard.bpf.o
	install -d $(DESTDIR)$(PREFIX)/share/man/man8
	sed 's/@VERSION@/$(VERSION)/' doc/csum-guard.8 > $(DESTDIR)$(PREFIX)/share/man/man8/csum-guard.8
	install -d $(DESTDIR)$(PREFIX)/lib/systemd/system
	sed 's|@SBINDIR@|$(PREFIX)/sbin|' packaging/csum-guard-watch.service \
		> $(DESTDIR)$(PREFIX)/lib/systemd/system/csum-guard-watch.service

clean:
	$(call msg,CLEAN,$(BUILD))
	$(Q)rm -rf $(BUILD)/vmlinux.h $(BUILD)/*.o $(BUILD)/*.skel.h $(BUILD)/lib $(BUILD)/loader $(BUILD)/syncookie $(BUILD)/tests $(DIST) $(DIST_STAGE) $(BUILD)/csum-guard

# --- bench ---------------------------------------------------------------
# make bench      install what the benchmarks need, build, run bench/run.sh;
#                 never part of make test. Tables go to bench/results/.
#                 RUNS=N PACKETS=N ONLY="prog-cost tap-path ..." for short runs.

BENCH_DEPS := gnuplot-nox ethtool jq bpftool iproute2
BENCH_TOOLS := $(BUILD)/bench/empty.bpf.o $(BUILD)/bench/minimal.bpf.o $(BUILD)/bench/minimal-tests.bpf.o $(BUILD)/bench/tapwrite \
	$(BUILD)/bench/attach-empty $(BUILD)/bench/testrun $(BUILD)/bench/tcpbulk \
	$(BUILD)/bench/synflood

.PHONY: bench bench-deps bench-tools bench-clean

bench-tools: $(BENCH_TOOLS)

clean: bench-clean
bench-clean:
	$(Q)rm -rf $(BUILD)/bench

$(BUILD)/bench:
	$(Q)mkdir -p $@

# empty: the floor; minimal: the simplest correct guard, the guard's anchor
$(BUILD)/bench/empty.bpf.o $(BUILD)/bench/minimal.bpf.o: $(BUILD)/bench/%.bpf.o: bench/%.bpf.c \
		$(BUILD)/vmlinux.h | $(BUILD)/bench
	$(call msg,BPF,$@)
	$(Q)$(CLANG) -g -O2 -target bpf $(INCLUDES) -c $< -o $@

# the anchor with the three tests the guard's IPv4 pass path adds to it
$(BUILD)/bench/minimal-tests.bpf.o: bench/minimal.bpf.c $(BUILD)/vmlinux.h | $(BUILD)/bench
	$(call msg,BPF,$@)
	$(Q)$(CLANG) -g -O2 -target bpf -DMINIMAL_TESTS $(INCLUDES) -c $< -o $@

$(BUILD)/bench/tapwrite $(BUILD)/bench/tcpbulk: $(BUILD)/bench/%: bench/%.c $(BENCH_UTIL) $(TESTCOMMON_H) | $(BUILD)/bench
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(WARN) $(TESTCOMMON) -o $@ $< $(BENCH_UTIL) $(LIBS)

$(BUILD)/bench/synflood: bench/synflood.c $(BENCH_UTIL) $(TESTCOMMON_H) | $(BUILD)/bench
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(WARN) $(TESTCOMMON) -o $@ $< $(BENCH_UTIL) $(LIBS) -lpthread

$(BUILD)/bench/attach-empty $(BUILD)/bench/testrun: $(BUILD)/bench/%: bench/%.c $(BENCH_UTIL) $(TESTCOMMON_H) | $(BUILD)/bench
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(WARN) $(TESTCOMMON) -Ilib -o $@ $< $(BENCH_UTIL) $(LIBS)

# the tcx attach type and flags that libbpf 1.1's headers lack
$(BUILD)/bench/attach-empty: lib/compat.h

bench-deps:
	$(call apt-need,$(BENCH_DEPS))

bench: deps bench-deps
	$(Q)$(MAKE) --no-print-directory all bench-tools
	$(Q)RUNS="$(RUNS)" PACKETS="$(PACKETS)" ONLY="$(ONLY)" SCALE_N="$(SCALE_N)" BUILD="$(abspath $(BUILD))" bench/run.sh
# --- end bench ----------------------------------------------------------
