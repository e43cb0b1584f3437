# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# make            the product: the BPF objects and the loader (build/csum-guard)
# make tools      what the suite runs besides: test tools, the guard's
#                 variants, the next and the previous loader, the unit tests
# make test       install what is needed, build, run the whole suite
# make demo       install what is needed, build, show the reproduction
# make test-matrix  the suite on every kernel of tests/guest/kernels.list,
#                 then make test-mutants
# make test-mutants  every mutant of tests/mutants.list must fail a case
# make bench      the benchmarks (never part of make test; bench/bench.mk)
# make dist       build/dist: the BPF object, the loader, the DKMS source
#                 tarball, the .debs (csum-guard, csum-guard-dkms), each
#                 with a .sha256, and SHA256SUMS; on amd64 also the arm64
#                 loader (csum-guard-arm64) and its csum-guard .deb
#                 (packaging/dist.mk)
# make image     the container image of the DaemonSet (deploy/deploy.mk)
# make repo      build/repo: a signed apt repository with the packages and
#                 csum-guard-modules, the module prebuilt and signed for
#                 Debian's kernels (REPO_KEY, MODULE_KEY, MODULE_CERT;
#                 packaging/repo.mk)
# make all-arm64  the product and the tools for arm64 in build/arm64
#                 (cross-built, on amd64)
# make build-deps only what building (make, make dist) needs
# make install    the loader, the object, the man page csum-guard(8),
#                 csum-guard-watch.service and csum-guard-syncookie.service
#                 (the module installs through
#                 the csum-guard-dkms .deb of make dist)
# make clean      everything built; the downloaded kernels and roots of
#                 the guests (build/kernels, build/roots) stay: make
#                 distclean removes them too
#
# V=1 shows the commands.

VERSION := $(shell cat VERSION)
BUILD ?= build
DIST ?= $(BUILD)/dist
DIST_STAGE = $(DIST).stage
# each artifact stages in a directory of its own (make -j builds them at once)
STAGE = $(DIST_STAGE)/$(@F)
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
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
# loader/: the commands, and a folder for each part of them (bpf/, kmod/,
# check/, watch/: doc/design.md draws the map)
LOADER_SRCS := $(wildcard loader/*.c loader/*/*.c)
LOADER_OBJS := $(LOADER_SRCS:%.c=$(BUILD)/%.o)
# syncookie/: the second guard, its program and its command
SC_SRCS := $(filter-out %.bpf.c,$(wildcard syncookie/*.c))
SC_OBJS := $(SC_SRCS:%.c=$(BUILD)/%.o)
# The tools the booted Debian hosts of tests/guest/hostroot.sh run: linked
# statically, since their glibc may be older than this machine's.
STATIC_TOOLS := $(BUILD)/tests/static/cg-inject $(BUILD)/tests/static/cg-udprecv
TOOLS := $(BUILD)/tests/cg-inject $(BUILD)/tests/cg-sniff $(BUILD)/tests/cg-nfq \
	$(BUILD)/tests/cg-stream $(BUILD)/tests/unit $(BUILD)/tests/guard-alt.bpf.o \
	$(BUILD)/tests/guard-abi-next.bpf.o $(BUILD)/tests/guard-helper.bpf.o \
	$(BUILD)/tests/sc-syn $(BUILD)/tests/xdp-pass.bpf.o $(BUILD)/tests/tc-pass.bpf.o \
	$(BUILD)/tests/xdp-redirect.bpf.o $(BUILD)/tests/cg-hooks \
	$(BUILD)/tests/cg-kdump $(BUILD)/tests/cg-sdrecv $(BUILD)/tests/csum-guard-next \
	$(BUILD)/tests/csum-guard-rebuild \
	$(BUILD)/tests/cg-udprecv $(BUILD)/tests/csum-guard-prev $(BUILD)/tests/cg-userns \
	$(BUILD)/tests/cg-netkit \
	$(STATIC_TOOLS)
# The fuzz targets of tests/fuzz/ (libFuzzer, AddressSanitizer, UBSan):
# built with the tools where clang has its fuzzer runtime (tests/cases/
# 05-fuzz.sh runs them over their corpora and says SKIP where it has not);
# make fuzz runs each for FUZZ_SECONDS.
FUZZ_TARGETS := nl verdict escape tcpopt
FUZZ_BINS := $(FUZZ_TARGETS:%=$(BUILD)/fuzz/fuzz_%)
FUZZ_CC = $(CLANG) -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -g -O1
FUZZ_SECONDS ?= 300
ifneq ($(filter tools fuzz,$(MAKECMDGOALS)),)
FUZZ_OK := $(shell printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' | \
	$(FUZZ_CC) -x c - -o /dev/null 2>/dev/null && echo yes)
endif
# What the benchmark tools and cg-stream share: netns, numbers, sockets.
BENCH_UTIL := tests/common/util.c lib/netns.c lib/log.c lib/journal.c lib/json.c
# what the test tools and the bench tools share (tests/common/)
TESTCOMMON := -Itests/common
TESTCOMMON_H := $(wildcard tests/common/*.h)

# Debian packages each target needs on a fresh Debian 12 machine.
BUILD_DEPS := clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev pkg-config make gcc
TEST_DEPS := iproute2 kmod jq ethtool dkms util-linux nftables iptables curl strace debootstrap lintian \
	apt-utils \
	podman runc catatonit \
	ansible-core openssh-client \
	qemu-user

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

.PHONY: all clean distclean test test-matrix test-mutants demo dist install deps build-deps tools fuzz
.DELETE_ON_ERROR:

all: $(BUILD)/csum_guard.bpf.o $(BUILD)/syncookie.bpf.o $(BUILD)/csum-guard

tools: $(TOOLS) $(if $(FUZZ_OK),$(FUZZ_BINS))

$(BUILD) $(BUILD)/tests $(BUILD)/tests/static $(BUILD)/next $(DIST):
	$(Q)mkdir -p $@

# vmlinux.h is generated from the build host's BTF, never committed.
$(BUILD)/vmlinux.h: | $(BUILD)
	$(call msg,GEN,$@)
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@

$(BUILD)/csum_guard.bpf.o: bpf/csum_guard.bpf.c $(BUILD)/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(GUARD_BPF_FLAGS) $(INCLUDES) -MMD -MP -c $< -o $@
	$(Q)llvm-strip -g $@ 2>/dev/null || true

$(BUILD)/csum_guard.skel.h: $(BUILD)/csum_guard.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name csum_guard_bpf > $@

# The SYN-cookie responder: uapi headers only (no CO-RE), so it loads on
# any kernel with bpf_tcp_gen_syncookie (5.3+).
$(BUILD)/syncookie.bpf.o: syncookie/syncookie.bpf.c | $(BUILD)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) -g -O2 -target bpf $(REPRO_FLAGS) -Isyncookie -I/usr/include/$(HOST_TRIPLET) \
		-MMD -MP -c $< -o $@
	$(Q)llvm-strip -g $@ 2>/dev/null || true

$(BUILD)/syncookie.skel.h: $(BUILD)/syncookie.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name syncookie_bpf > $@

# One rule for every C object of the product: what a folder may include is
# set per folder (lib/ sees only lib/; syncookie/ lib/ and itself; loader/
# everything, for its commands, and syncookie.h), which keeps the layers
# from calling up. Header dependencies are the compiler's (-MMD -MP).
# VERSION is compiled in: a new one rebuilds what prints it. LOADER_VERSION,
# and SKEL_INC (a csum_guard.skel.h found before $(BUILD)'s), change for
# csum-guard-next only.
LOADER_VERSION = $(VERSION)
SKEL_INC =
$(BUILD)/lib/%.o: DIR_FLAGS = -Ilib
$(BUILD)/syncookie/%.o: DIR_FLAGS = -Ilib -Isyncookie -I$(BUILD)
$(BUILD)/loader/%.o $(BUILD)/next/loader/%.o: DIR_FLAGS = $(SKEL_INC) $(INCLUDES) -Iloader \
	-Isyncookie -DCG_VERSION='"$(LOADER_VERSION)"'
COMPILE = $(CC) $(CFLAGS) $(REPRO_FLAGS) $(WARN) $(DIR_FLAGS) -MMD -MP -c $< -o $@
# Generated headers every object of a folder may include: made first.
$(LOADER_OBJS): | $(BUILD)/csum_guard.skel.h
$(SC_OBJS): | $(BUILD)/syncookie.skel.h
$(filter $(patsubst %,$(BUILD)/%.o,$(basename $(shell grep -l CG_VERSION $(LOADER_SRCS)))),$(LOADER_OBJS)): VERSION

$(BUILD)/%.o: %.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(COMPILE)

-include $(LIB_OBJS:.o=.d) $(LOADER_OBJS:.o=.d) $(SC_OBJS:.o=.d) \
	$(BUILD)/csum_guard.bpf.d $(BUILD)/syncookie.bpf.d

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

# cg-netkit makes a netkit pair, which Debian 12's iproute2 cannot.
$(BUILD)/tests/cg-netkit: tests/tools/cg-netkit.c lib/nl.c lib/nl.h | $(BUILD)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(WARN) -Ilib -o $@ $< lib/nl.c

$(BUILD)/tests/cg-stream $(BUILD)/tests/cg-userns: $(BUILD)/tests/%: tests/tools/%.c $(BENCH_UTIL) \
		$(TESTCOMMON_H) | $(BUILD)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(WARN) $(TESTCOMMON) -o $@ $< $(BENCH_UTIL) $(LIBS)

$(BUILD)/fuzz:
	$(Q)mkdir -p $@

$(BUILD)/fuzz/fuzz_nl: tests/fuzz/fuzz_nl.c lib/nl.c lib/nl.h | $(BUILD)/fuzz
	$(call msg,FUZZ,$@)
	$(Q)$(FUZZ_CC) $(WARN) -Ilib -o $@ $< lib/nl.c
$(BUILD)/fuzz/fuzz_verdict: tests/fuzz/fuzz_verdict.c include/csum_guard.h | $(BUILD)/fuzz
	$(call msg,FUZZ,$@)
	$(Q)$(FUZZ_CC) $(WARN) -Iinclude -o $@ $<
$(BUILD)/fuzz/fuzz_escape: tests/fuzz/fuzz_escape.c lib/json.c lib/json.h lib/log.c lib/log.h \
		lib/journal.c | $(BUILD)/fuzz
	$(call msg,FUZZ,$@)
	$(Q)$(FUZZ_CC) $(WARN) -Ilib -o $@ $< lib/json.c lib/log.c lib/journal.c $(LIBS)
$(BUILD)/fuzz/fuzz_tcpopt: tests/fuzz/fuzz_tcpopt.c syncookie/sc_syn.bpf.h syncookie/syncookie_abi.h \
		| $(BUILD)/fuzz
	$(call msg,FUZZ,$@)
	$(Q)$(FUZZ_CC) $(WARN) -Isyncookie -o $@ $<

# Each target for FUZZ_SECONDS from its corpus in the tree; what it adds
# goes to $(BUILD)/fuzz/corpus-NAME, a crash to $(BUILD)/fuzz/NAME-crash-*
# (and make fails). The last lines of each run: its figures.
fuzz:
	$(Q)[ "$(FUZZ_OK)" = yes ] || { echo "make fuzz: $(CLANG) cannot link -fsanitize=fuzzer (no libFuzzer runtime)" >&2; exit 1; }
	$(Q)$(MAKE) --no-print-directory $(FUZZ_BINS) FUZZ_OK=yes
	$(Q)for t in $(FUZZ_TARGETS); do \
		mkdir -p $(BUILD)/fuzz/corpus-$$t; \
		echo "fuzz_$$t: $(FUZZ_SECONDS) s"; \
		$(BUILD)/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
			-artifact_prefix=$(BUILD)/fuzz/$$t- $(BUILD)/fuzz/corpus-$$t \
			tests/fuzz/corpus/$$t >$(BUILD)/fuzz/$$t.log 2>&1 || \
			{ tail -40 $(BUILD)/fuzz/$$t.log; exit 1; }; \
		grep -E '^#[0-9]+.*(pulse|DONE)|^Done|stat::number_of_executed_units|stat::peak_rss_mb' \
			$(BUILD)/fuzz/$$t.log | tail -4; \
	done

# The unit tests run the decision, the backend choice and the digest, no
# kernel needed.
# UNIT_LIB: the parts of lib/ the unit tests call, and what those need
UNIT_LIB := lib/sha256.c lib/nl.c lib/cli.c lib/log.c lib/journal.c lib/state.c lib/netns.c lib/bpffs.c lib/json.c
$(BUILD)/tests/unit: tests/unit.c include/csum_guard.h loader/select.c loader/select.h \
		syncookie/rtab.c syncookie/rtab.h syncookie/syncookie_abi.h \
		$(UNIT_LIB) lib/*.h $(TESTCOMMON_H) | $(BUILD)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(WARN) $(INCLUDES) -Iloader -Isyncookie $(TESTCOMMON) -o $@ tests/unit.c \
		loader/select.c syncookie/rtab.c $(UNIT_LIB) $(LIBS)

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
NEXT_OBJS := $(LOADER_SRCS:%.c=$(BUILD)/next/%.o)
$(BUILD)/next/csum_guard.skel.h: $(BUILD)/tests/guard-alt.bpf.o | $(BUILD)/next
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name csum_guard_bpf > $@

$(BUILD)/next/%.o: LOADER_VERSION = $(VERSION)+next
$(BUILD)/next/%.o: SKEL_INC = -I$(BUILD)/next
$(NEXT_OBJS): VERSION | $(BUILD)/next/csum_guard.skel.h $(BUILD)/csum_guard.skel.h

$(BUILD)/next/%.o: %.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(COMPILE)

-include $(NEXT_OBJS:.o=.d)

$(BUILD)/tests/csum-guard-next: $(NEXT_OBJS) $(SC_OBJS) $(LIB_OBJS) | $(BUILD)/tests
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LOADER_LIBS) -o $@

# A loader of this very version with another program (guard-alt's, as
# csum-guard-next): a distribution's patched rebuild. Only loader/bpf/object.c
# embeds the program; the rest is this loader's (tests/cases/62-rebuild.sh).
$(BUILD)/rebuild/loader/bpf/object.o: SKEL_INC = -I$(BUILD)/next
$(BUILD)/rebuild/loader/bpf/object.o: DIR_FLAGS = $(SKEL_INC) $(INCLUDES) -Iloader \
	-Isyncookie -DCG_VERSION='"$(LOADER_VERSION)"'
$(BUILD)/rebuild/loader/bpf/object.o: loader/bpf/object.c VERSION | $(BUILD)/next/csum_guard.skel.h \
		$(BUILD)/csum_guard.skel.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(COMPILE)

-include $(BUILD)/rebuild/loader/bpf/object.d

$(BUILD)/tests/csum-guard-rebuild: $(filter-out $(BUILD)/loader/bpf/object.o,$(LOADER_OBJS)) \
		$(BUILD)/rebuild/loader/bpf/object.o $(SC_OBJS) $(LIB_OBJS) | $(BUILD)/tests
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
	$(Q)$(MAKE) --no-print-directory all tools dist image
	$(Q)tests/run.sh

# every kernel line of tests/guest/kernels.list; those with both
# backends (6.12, 7.2, and 7.2 on arm64) boot once per backend, in parallel
# (tests/guests.sh); the other arm64 lines (make all-arm64's tree) boot
# once each, for the bpf backend on 6.12 and the module on 6.1 (built by
# DKMS in a guest of its kernel, in an arm64 root of its release: sid's
# gcc-16 for 7.2): TCG emulating another architecture is too slow for more
# within the matrix's time (the arm64 lines of 6.1.0-57, 5.10 and trixie's
# 6.12 are the repository's: repo-modules boots them with their prebuilt
# modules)
test-matrix: deps
	$(Q)$(MAKE) --no-print-directory all tools dist image all-arm64
	$(Q)CG_DEPTH=full CG_GUESTS="$$(awk '!/^#/ && NF { \
		if ($$1 == "deb6.12" || $$1 ~ /^deb7\.2(-arm64)?$$/) print $$1 ":bpf " $$1 ":kmod"; \
		else if ($$1 == "deb6.12-arm64") print "deb6.12-arm64:bpf"; \
		else if ($$1 == "deb6.1-arm64") print $$1 ":kmod"; \
		else if ($$1 ~ /^deb(6\.1-fixed|5\.10|6\.12-trixie)-arm64$$/) next; \
		else print $$1 }' tests/guest/kernels.list)" tests/run.sh
	$(Q)tests/mutants.sh

# every mutant of tests/mutants.list must make a case fail (tests/mutants.sh)
test-mutants: deps
	$(Q)$(MAKE) --no-print-directory all tools
	$(Q)tests/mutants.sh

demo: deps
	$(Q)$(MAKE) --no-print-directory all tools
	$(Q)tests/run.sh --demo

# make dist, and the cross-built loaders it ships
include packaging/dist.mk
# make image, the container image for Kubernetes nodes
include deploy/deploy.mk

install: all
	install -D -m 0755 $(BUILD)/csum-guard $(DESTDIR)$(PREFIX)/sbin/csum-guard
	install -D -m 0644 $(BUILD)/csum_guard.bpf.o $(DESTDIR)$(PREFIX)/lib/csum-guard/csum_guard.bpf.o
	install -d $(DESTDIR)$(PREFIX)/share/man/man8
	sed 's/@VERSION@/$(VERSION)/' doc/csum-guard.8 > $(DESTDIR)$(PREFIX)/share/man/man8/csum-guard.8
	install -d $(DESTDIR)$(PREFIX)/lib/systemd/system
	sed 's|@SBINDIR@|$(PREFIX)/sbin|' packaging/csum-guard-watch.service \
		> $(DESTDIR)$(PREFIX)/lib/systemd/system/csum-guard-watch.service
	sed 's|@SBINDIR@|$(PREFIX)/sbin|' packaging/csum-guard-syncookie.service \
		> $(DESTDIR)$(PREFIX)/lib/systemd/system/csum-guard-syncookie.service

# What the guests' harness downloads and unpacks (tests/guest/): kept by
# clean, which removes everything else under $(BUILD) and kbuild's
# products in kmod/.
BUILD_CACHES := kernels roots
clean:
	$(call msg,CLEAN,$(BUILD))
	$(Q)[ ! -d $(BUILD) ] || find $(BUILD) -mindepth 1 -maxdepth 1 \
		$(foreach c,$(BUILD_CACHES),! -name $(c)) -exec rm -rf {} +
	$(Q)rm -rf $(DIST) $(DIST_STAGE)
	$(Q)$(MAKE) --no-print-directory -C kmod clean >/dev/null 2>&1 || true

distclean: clean
	$(Q)rm -rf $(BUILD)

# make bench
include bench/bench.mk
