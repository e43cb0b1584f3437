# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# make            the BPF object and the loader (build/csum-guard)
# make test       install what is needed, build, run the whole suite
# make demo       install what is needed, build, show the reproduction
# make test-matrix  the suite on every kernel of tests/guest/kernels.list
# make bench      the benchmarks (never part of make test)
# make dist       build/dist: the object and its SHA-256
# make install    the loader, the object and the DKMS source
# make clean
#
# V=1 shows the commands.

VERSION := $(shell cat VERSION)
BUILD ?= build
PREFIX ?= /usr/local
DESTDIR ?=

CC ?= cc
CLANG ?= clang
BPFTOOL ?= bpftool
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Wno-unused-parameter
INCLUDES := -Iinclude -I$(BUILD)
LIBS := $(shell pkg-config --libs libbpf 2>/dev/null || echo -lbpf -lelf -lz)

LOADER_SRCS := $(wildcard loader/*.c)
LOADER_OBJS := $(LOADER_SRCS:loader/%.c=$(BUILD)/loader/%.o)
TOOLS := $(BUILD)/tests/cg-inject $(BUILD)/tests/cg-sniff $(BUILD)/tests/cg-nfq \
	$(BUILD)/tests/unit

# Debian packages each target needs on a fresh Debian 12 machine.
BUILD_DEPS := clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev pkg-config make gcc
TEST_DEPS := iproute2 kmod jq ethtool dkms util-linux nftables iptables

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

.PHONY: all clean test test-matrix demo dist install deps tools unit
.DELETE_ON_ERROR:

all: $(BUILD)/csum_guard.bpf.o $(BUILD)/csum-guard tools

tools: $(TOOLS)

$(BUILD) $(BUILD)/loader $(BUILD)/tests $(BUILD)/dist:
	$(Q)mkdir -p $@

# vmlinux.h is generated from the build host's BTF, never committed.
$(BUILD)/vmlinux.h: | $(BUILD)
	$(call msg,GEN,$@)
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@

$(BUILD)/csum_guard.bpf.o: bpf/csum_guard.bpf.c include/csum_guard.h include/csum_guard_abi.h $(BUILD)/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)$(CLANG) -g -O2 -target bpf $(INCLUDES) -c $< -o $@
	$(Q)llvm-strip -g $@ 2>/dev/null || true

$(BUILD)/csum_guard.skel.h: $(BUILD)/csum_guard.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name csum_guard_bpf > $@

$(BUILD)/loader/%.o: loader/%.c loader/*.h include/*.h $(BUILD)/csum_guard.skel.h | $(BUILD)/loader
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(WARN) $(INCLUDES) -DCG_VERSION='"$(VERSION)"' -c $< -o $@

$(BUILD)/csum-guard: $(LOADER_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LIBS) -o $@

$(BUILD)/tests/%: tests/tools/%.c tests/tools/csum.h | $(BUILD)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(WARN) -o $@ $<

# The unit tests run the decision and the backend choice, no kernel needed.
$(BUILD)/tests/unit: tests/unit.c include/csum_guard.h loader/select.c loader/select.h | $(BUILD)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(WARN) $(INCLUDES) -Iloader -o $@ tests/unit.c loader/select.c

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
	$(call apt-need,$(BUILD_DEPS) $(TEST_DEPS))

test: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tests/run.sh

# every kernel line of tests/guest/kernels.list
test-matrix: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)CG_GUESTS="$$(awk '!/^#/ && NF { print $$1 }' tests/guest/kernels.list)" tests/run.sh

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)tests/run.sh --demo

dist: $(BUILD)/csum_guard.bpf.o | $(BUILD)/dist
	$(call msg,DIST,$(BUILD)/dist)
	$(Q)cp $(BUILD)/csum_guard.bpf.o $(BUILD)/dist/
	$(Q)cd $(BUILD)/dist && sha256sum csum_guard.bpf.o > csum_guard.bpf.o.sha256

install: all
	install -D -m 0755 $(BUILD)/csum-guard $(DESTDIR)$(PREFIX)/sbin/csum-guard
	install -D -m 0644 $(BUILD)/csum_guard.bpf.o $(DESTDIR)$(PREFIX)/lib/csum-guard/csum_guard.bpf.o

clean:
	$(call msg,CLEAN,$(BUILD))
	$(Q)rm -rf $(BUILD)/vmlinux.h $(BUILD)/*.o $(BUILD)/*.skel.h $(BUILD)/loader $(BUILD)/tests $(BUILD)/dist $(BUILD)/csum-guard

# --- bench ---------------------------------------------------------------
# make bench      install what the benchmarks need, build, run bench/run.sh;
#                 never part of make test. Tables go to bench/results/.
#                 RUNS=N PACKETS=N ONLY="prog-cost tap-path ..." for short runs.

BENCH_DEPS := gnuplot-nox ethtool jq bpftool iproute2
BENCH_TOOLS := $(BUILD)/bench/empty.bpf.o $(BUILD)/bench/tapwrite \
	$(BUILD)/bench/attach-empty $(BUILD)/bench/testrun $(BUILD)/bench/tcpbulk

.PHONY: bench bench-deps bench-tools bench-clean

bench-tools: $(BENCH_TOOLS)

clean: bench-clean
bench-clean:
	$(Q)rm -rf $(BUILD)/bench

$(BUILD)/bench:
	$(Q)mkdir -p $@

$(BUILD)/bench/empty.bpf.o: bench/empty.bpf.c $(BUILD)/vmlinux.h | $(BUILD)/bench
	$(call msg,BPF,$@)
	$(Q)$(CLANG) -g -O2 -target bpf $(INCLUDES) -c $< -o $@

BENCH_UTIL := bench/util.c loader/netns.c

$(BUILD)/bench/tapwrite $(BUILD)/bench/tcpbulk: $(BUILD)/bench/%: bench/%.c $(BENCH_UTIL) bench/util.h | $(BUILD)/bench
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(WARN) -o $@ $< $(BENCH_UTIL)

$(BUILD)/bench/attach-empty $(BUILD)/bench/testrun: $(BUILD)/bench/%: bench/%.c $(BENCH_UTIL) bench/util.h | $(BUILD)/bench
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(WARN) -Iloader -o $@ $< $(BENCH_UTIL) $(LIBS)

# the tcx attach type and flags that libbpf 1.1's headers lack
$(BUILD)/bench/attach-empty: loader/compat.h

bench-deps:
	$(call apt-need,$(BENCH_DEPS))

bench: deps bench-deps
	$(Q)$(MAKE) --no-print-directory all bench-tools
	$(Q)RUNS="$(RUNS)" PACKETS="$(PACKETS)" ONLY="$(ONLY)" BUILD="$(abspath $(BUILD))" bench/run.sh
# --- end bench ----------------------------------------------------------
