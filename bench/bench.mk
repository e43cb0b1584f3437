# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# Included by the top Makefile, whose variables it uses; run from the top.

# --- bench ---------------------------------------------------------------
# make bench      install what the benchmarks need, build, run bench/run.sh;
#                 never part of make test. Tables go to bench/results/.
#                 RUNS=N PACKETS=N ONLY="prog-cost tap-path ..." for short runs.

BENCH_DEPS := gnuplot-nox ethtool jq bpftool iproute2
BENCH_TOOLS := $(BUILD)/bench/empty.bpf.o $(BUILD)/bench/minimal.bpf.o $(BUILD)/bench/minimal-tests.bpf.o $(BUILD)/bench/tapwrite \
	$(BUILD)/bench/attach-empty $(BUILD)/bench/testrun $(BUILD)/bench/tcpbulk \
	$(BUILD)/bench/synflood $(BUILD)/bench/sc-cost

.PHONY: bench bench-deps bench-tools bench-clean bench-watch

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

# --ack tags its ACKs as the responder tags its SYN-ACKs (syncookie_abi.h)
$(BUILD)/bench/synflood: bench/synflood.c syncookie/syncookie_abi.h $(BENCH_UTIL) $(TESTCOMMON_H) | $(BUILD)/bench
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(WARN) $(TESTCOMMON) -Isyncookie -o $@ $< $(BENCH_UTIL) $(LIBS) -lpthread

$(BUILD)/bench/sc-cost: bench/sc-cost.c $(BENCH_UTIL) $(TESTCOMMON_H) | $(BUILD)/bench
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(WARN) $(TESTCOMMON) -o $@ $< $(BENCH_UTIL) $(LIBS)

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

# make bench-watch  watch's descriptors and memory with WATCH_N namespaces
#                   (10 1000 5000): bench/results/watch.md
bench-watch: all
	$(Q)WATCH_N="$(WATCH_N)" BUILD="$(abspath $(BUILD))" bench/watch.sh
