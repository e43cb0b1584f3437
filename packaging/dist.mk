# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# Included by the top Makefile, whose variables it uses; run from the top.

# --- dist ---------------------------------------------------------------
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
	$(Q)rm -rf $(STAGE) && mkdir -p $(STAGE)/$(DKMS_DIR)
	$(Q)for f in $(DKMS_FILES); do \
		install -D -m 0644 $$f $(STAGE)/$(DKMS_DIR)/$$f || exit; done
	$(Q)tar -C $(STAGE) $(TAR_REPRO) -I 'gzip -9n' -cf $@ $(DKMS_DIR)
	$(Q)rm -rf $(STAGE)

# csum-guard-dkms: the tarball's very tree under /usr/src (packaging/dkms/).
$(DEB): $(DKMS_TAR) $(wildcard packaging/dkms/*) $(DEB_COMMON)
	$(call msg,DEB,$@)
	$(Q)rm -rf $(STAGE) && mkdir -p $(STAGE)/usr/src
	$(Q)tar -C $(STAGE)/usr/src -xzf $(DKMS_TAR)
	$(Q)$(MKDEB) $(STAGE) packaging/dkms $@
	$(Q)rm -rf $(STAGE)

# csum-guard: the loader (stripped, as Debian ships binaries), the object for
# --object, the man page, the watch and syncookie units and the libvirt hook
# example, and the opt-in drop-in that makes libvirtd require the watcher
# (packaging/loader/). One recipe for every architecture: the loader of
# architecture A is $(BUILD)/csum-guard (the build machine's) or
# $(BUILD)/A/csum-guard (cross-built), stripped by A's strip.
loader_of = $(if $(filter $(DEB_ARCH),$(1)),$(BUILD)/csum-guard,$(BUILD)/$(1)/csum-guard)
strip_of = $(if $(filter $(DEB_ARCH),$(1)),strip,$(CROSS_$(1))strip)
.SECONDEXPANSION:
$(LOADER_DEB) $(CROSS_DEBS): $(DIST)/csum-guard_$(VERSION)_%.deb: $$(call loader_of,$$*) \
		$(BUILD)/csum_guard.bpf.o doc/csum-guard.8 \
		packaging/csum-guard-watch.service packaging/csum-guard-syncookie.service \
		packaging/libvirt-qemu-hook packaging/libvirtd-require-watch.conf \
		$(wildcard packaging/loader/*) $(DEB_COMMON) $(wildcard deploy/monitoring/*) | $(DIST)
	$(call msg,DEB,$@)
	$(Q)rm -rf $(STAGE) && mkdir -p $(STAGE)/usr/sbin \
		$(STAGE)/usr/share/man/man8 $(STAGE)/lib/systemd/system
	$(Q)$(call strip_of,$*) --strip-unneeded --remove-section=.comment --remove-section=.note \
		-o $(STAGE)/usr/sbin/csum-guard $(call loader_of,$*)
	$(Q)install -D -m 0644 $(BUILD)/csum_guard.bpf.o $(STAGE)/usr/lib/csum-guard/csum_guard.bpf.o
	$(Q)sed 's/@VERSION@/$(VERSION)/' doc/csum-guard.8 | gzip -9n \
		> $(STAGE)/usr/share/man/man8/csum-guard.8.gz
	$(Q)sed 's|@SBINDIR@|/usr/sbin|' packaging/csum-guard-watch.service \
		> $(STAGE)/lib/systemd/system/csum-guard-watch.service
	$(Q)sed 's|@SBINDIR@|/usr/sbin|' packaging/csum-guard-syncookie.service \
		> $(STAGE)/lib/systemd/system/csum-guard-syncookie.service
	$(Q)install -D -m 0755 packaging/libvirt-qemu-hook \
		$(STAGE)/usr/share/doc/csum-guard/examples/libvirt-qemu-hook
	$(Q)install -D -m 0644 -t $(STAGE)/usr/share/csum-guard/monitoring \
		deploy/monitoring/csum-guard.rules.yml deploy/monitoring/csum-guard-dashboard.json
	$(Q)install -D -m 0644 packaging/libvirtd-require-watch.conf \
		$(STAGE)/usr/share/doc/csum-guard/examples/libvirtd-require-watch.conf
	$(Q)ARCH=$* $(MKDEB) $(STAGE) packaging/loader $@
	$(Q)rm -rf $(STAGE)

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
# A's libraries (static) from its sysroot; without the fuzz targets, whose
# clang and sanitizer runtimes are the build machine's
define cross_make
	$(Q)command -v $(CROSS_$(1))gcc >/dev/null || \
		{ echo "make: no $(CROSS_$(1))gcc to build for $(1): make build-deps installs it" >&2; exit 1; }
	$(Q)+sysroot=$$(packaging/cross-sysroot.sh $(1) $(BUILD)/cross/$(1)) && \
	libs="-static -L$$sysroot/usr/lib/$(patsubst %-,%,$(CROSS_$(1))) -lbpf -lelf -lz" && \
	$(MAKE) --no-print-directory BUILD=$(BUILD)/$(1) CC=$(CROSS_$(1))gcc \
		CFLAGS='$(CFLAGS) -isystem '$$sysroot/usr/include \
		LIBS="$$libs" LOADER_LIBS="$$libs" FUZZ_OK= $(2)
endef

$(CROSS_ARCHES:%=$(BUILD)/%/csum-guard): $(BUILD)/%/csum-guard: $(LOADER_SRCS) $(SC_SRCS) $(LIB_SRCS) \
		$(wildcard lib/*.h loader/*.h loader/*/*.h syncookie/*.h include/*.h) bpf/csum_guard.bpf.c \
		syncookie/syncookie.bpf.c packaging/cross-sysroot.sh VERSION
	$(call msg,SYSROOT,$(BUILD)/cross/$*)
	$(call cross_make,$*,$(BUILD)/$*/csum-guard)

# Everything `make` builds, for A (the loader, the BPF objects, the test
# tools and the unit binary) in $(BUILD)/A: what a guest of architecture A
# runs the suite with (CG_BUILD_DIR=$(BUILD)/A, tests/guest/README.md).
# Every binary links statically against A's libraries, or only A's libc.
.PHONY: $(CROSS_ARCHES:%=all-%)
$(CROSS_ARCHES:%=all-%): all-%:
	$(call cross_make,$*,all tools)

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
include packaging/repo.mk
