# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# Included by the top Makefile, whose variables it uses; run from the top.
#
# make image   the container image for Kubernetes nodes
#              (deploy/kubernetes/csum-guard.yaml, doc/container.md):
#              $(IMAGE_LAYER), its one layer, the same bytes from the same
#              tree; $(IMAGE_OCI), the image as an OCI archive (podman load,
#              skopeo copy oci-archive:...), tagged $(IMAGE_NAME). podman
#              builds it in a store of its own under $(BUILD)/image: the
#              host's images are not touched.

IMAGE_DIR := $(BUILD)/image
IMAGE_NAME := localhost/csum-guard:$(VERSION)
IMAGE_LAYER := $(IMAGE_DIR)/csum-guard-image_$(VERSION)_$(DEB_ARCH).layer.tar
IMAGE_OCI := $(IMAGE_DIR)/csum-guard-image_$(VERSION)_$(DEB_ARCH).oci.tar
IMAGE_BUSYBOX ?= /bin/busybox
IMAGE_PODMAN = podman --root $(IMAGE_DIR)/store --runroot $(IMAGE_DIR)/run --storage-driver vfs \
	--cgroup-manager cgroupfs --events-backend none

.PHONY: image
image: $(IMAGE_OCI)

$(IMAGE_LAYER): $(LOADER_DEB) deploy/container/mkimage.sh deploy/container/csum-guard-node \
		deploy/container/metrics
	$(call msg,IMAGE,$@)
	$(Q)mkdir -p $(IMAGE_DIR)
	$(Q)SOURCE_DATE_EPOCH=$(SOURCE_DATE_EPOCH) deploy/container/mkimage.sh $@ $(LOADER_DEB) \
		$(IMAGE_BUSYBOX)

$(IMAGE_OCI): $(IMAGE_LAYER)
	$(call msg,IMAGE,$@)
	$(Q)command -v podman >/dev/null || \
		{ echo "make: podman makes the image: make deps installs it" >&2; exit 1; }
	$(Q)$(IMAGE_PODMAN) rmi -f $(IMAGE_NAME) >/dev/null 2>&1 || true
	$(Q)$(IMAGE_PODMAN) import --quiet \
		--change 'ENTRYPOINT ["/usr/sbin/csum-guard-node"]' \
		--change 'LABEL org.opencontainers.image.title=csum-guard' \
		--change 'LABEL org.opencontainers.image.version=$(VERSION)' \
		--message 'csum-guard $(VERSION)' $< $(IMAGE_NAME) >/dev/null
	$(Q)rm -f $@ && $(IMAGE_PODMAN) save --quiet --format oci-archive -o $@ $(IMAGE_NAME)
