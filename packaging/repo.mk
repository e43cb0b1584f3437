# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# Included by packaging/dist.mk; run from the top.

# --- repo -----------------------------------------------------------------
#   make repo REPO_KEY=K MODULE_KEY=key.pem MODULE_CERT=cert.pem
# An apt repository in $(REPO) (packaging/repo.sh): csum-guard (amd64,
# arm64), csum-guard-dkms and csum-guard-modules, the module prebuilt for
# each kernel of REPO_KERNELS (names of tests/guest/kernels.list), in a root
# of its release with its compiler and signed with MODULE_KEY/MODULE_CERT
# (packaging/kmods.sh). REPO_KEY signs the repository: a secret key file or
# a key ID of gpg's keyring. Nothing is downloaded but Debian's packages
# (the kernels' headers, the build roots).
REPO ?= $(BUILD)/repo
REPO_SUITE ?= stable
# amd64: bookworm's newest 6.1 (Debian 12), bullseye's 5.10 (Debian 11),
# bookworm-backports' newest 6.12 (the only backports ABI with headers),
# trixie's 6.12 (Debian 13, gcc-14)
REPO_KERNELS ?= deb6.1-fixed deb5.10 deb6.12 deb6.12-trixie
KMODS := $(BUILD)/kmods
MODULES_DEB := $(KMODS)/csum-guard-modules_$(VERSION)_$(DEB_ARCH).deb
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
	$(call msg,DEB,$(MODULES_DEB))
	$(Q)rm -rf $(STAGE) && mkdir -p $(STAGE)/usr/lib/csum-guard/modules
	$(Q)for d in $(KMODS)/out/*/; do [ -d "$$d" ] || continue; k=$$(basename $$d); \
		install -D -m 0644 $$d/csum_guard.ko \
			$(STAGE)/usr/lib/csum-guard/modules/$$k/csum_guard.ko || exit; done
	$(Q)install -D -m 0755 packaging/modules/module-install $(STAGE)/usr/lib/csum-guard/module-install
	$(Q)install -D -m 0755 packaging/modules/kernel-postinst $(STAGE)/etc/kernel/postinst.d/csum-guard-modules
	$(Q)install -D -m 0755 packaging/modules/kernel-postrm $(STAGE)/etc/kernel/postrm.d/csum-guard-modules
	$(Q)install -D -m 0644 packaging/modules/depmod.conf $(STAGE)/etc/depmod.d/csum-guard-modules.conf
	$(Q)k=$$(ls $(KMODS)/out | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $$//'); \
		KVERS="$${k:-none}" ARCH=$(DEB_ARCH) $(MKDEB) $(STAGE) packaging/modules $(MODULES_DEB)
	$(Q)rm -rf $(STAGE)
	$(call msg,REPO,$(REPO))
	$(Q)SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH) packaging/repo.sh $(REPO) $(REPO_SUITE) \
		$(REPO_KEY) $(MODULE_CERT) $(DEB) $(LOADER_DEB) $(CROSS_DEBS) $(MODULES_DEB)
