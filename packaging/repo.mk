# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# Included by packaging/dist.mk; run from the top.

# --- repo -----------------------------------------------------------------
#   make repo REPO_KEY=K MODULE_KEY=key.pem MODULE_CERT=cert.pem
# An apt repository in $(REPO) (packaging/repo.sh): csum-guard (amd64,
# arm64), csum-guard-dkms and csum-guard-modules (one per architecture of
# the kernels, and this machine's), the module prebuilt for each kernel of
# REPO_KERNELS (names of tests/guest/kernels.list), in a root
# of its release with its compiler and signed with MODULE_KEY/MODULE_CERT
# (packaging/kmods.sh). REPO_KEY signs the repository: a secret key file or
# a key ID of gpg's keyring. Nothing is downloaded but Debian's packages
# (the kernels' headers, the build roots).
REPO ?= $(BUILD)/repo
REPO_SUITE ?= stable
# amd64: bookworm's newest 6.1 (Debian 12), bullseye's 5.10 (Debian 11),
# bookworm-backports' newest 6.12 (the only backports ABI with headers),
# trixie's 6.12 (Debian 13, gcc-14); arm64: the same four ABIs
REPO_KERNELS ?= deb6.1-fixed deb5.10 deb6.12 deb6.12-trixie deb6.1-fixed-arm64 deb5.10-arm64 deb6.12-arm64 deb6.12-trixie-arm64
KMODS := $(BUILD)/kmods
# what repo.sh runs: apt-ftparchive, gpg
REPO_DEPS := apt-utils gnupg

.PHONY: repo
repo: $(DEB) $(LOADER_DEB) $(CROSS_DEBS)
	$(Q)[ -n "$(REPO_KEY)" ] && [ -n "$(MODULE_KEY)" ] && [ -n "$(MODULE_CERT)" ] || \
		{ echo "make repo: name the keys: REPO_KEY=<gpg key ID or secret key file> MODULE_KEY=<key.pem> MODULE_CERT=<cert.pem>" >&2; exit 1; }
	$(call apt-need,$(REPO_DEPS))
	$(call msg,KMODS,$(REPO_KERNELS))
	$(Q)rm -rf $(KMODS)/out
	$(Q)packaging/kmods.sh $(DKMS_TAR) $(MODULE_KEY) $(MODULE_CERT) $(KMODS)/out $(REPO_KERNELS)
	$(Q)rm -f $(KMODS)/csum-guard-modules_*.deb
	$(Q)for a in $$( { echo $(DEB_ARCH); cat $(KMODS)/out/*/arch 2>/dev/null; } | LC_ALL=C sort -u); do \
		deb=$(KMODS)/csum-guard-modules_$(VERSION)_$$a.deb; \
		$(if $(Q),echo "  DEB      $$deb";) \
		rm -rf $(STAGE) && mkdir -p $(STAGE)/usr/lib/csum-guard/modules && k= || exit; \
		for d in $(KMODS)/out/*/; do \
			[ -d "$$d" ] && [ "$$(cat $$d/arch)" = $$a ] || continue; \
			k="$$k $$(basename $$d)"; \
			install -D -m 0644 $$d/csum_guard.ko \
				$(STAGE)/usr/lib/csum-guard/modules/$$(basename $$d)/csum_guard.ko || exit; \
		done; \
		install -D -m 0755 packaging/modules/module-install $(STAGE)/usr/lib/csum-guard/module-install && \
		install -D -m 0755 packaging/modules/kernel-postinst $(STAGE)/etc/kernel/postinst.d/csum-guard-modules && \
		install -D -m 0755 packaging/modules/kernel-postrm $(STAGE)/etc/kernel/postrm.d/csum-guard-modules && \
		install -D -m 0644 packaging/modules/depmod.conf $(STAGE)/etc/depmod.d/csum-guard-modules.conf && \
		k=$$(echo $$k | tr ' ' '\n' | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $$//') && \
		KVERS="$${k:-none}" ARCH=$$a $(MKDEB) $(STAGE) packaging/modules $$deb || exit; \
	done
	$(Q)rm -rf $(STAGE)
	$(call msg,REPO,$(REPO))
	$(Q)SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH) packaging/repo.sh $(REPO) $(REPO_SUITE) \
		$(REPO_KEY) $(MODULE_CERT) $(DEB) $(LOADER_DEB) $(CROSS_DEBS) $(KMODS)/csum-guard-modules_*.deb
