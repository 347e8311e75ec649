# SPDX-License-Identifier: MIT
# The x86_64-softmmu devices the vm and e2e guests use (tests/vm/run.sh),
# nothing else. tests/qemu/build configures QEMU with
# --without-default-devices, so every option here is off unless named
# (Kconfig "select"s still follow); it copies this file into the source
# tree as configs/devices/x86_64-softmmu/hotbridge.mak.

# -M pc (guests without CXL) and -M q35,cxl=on
CONFIG_I440FX=y
CONFIG_Q35=y

# -device pxb-cxl, cxl-rp, cxl-type3; cxl-fmw windows (cxl-rp is a
# pcie-root-port-base: PCIE_PORT)
CONFIG_PXB=y
CONFIG_PCIE_PORT=y
CONFIG_CXL=y
CONFIG_CXL_MEM_DEVICE=y

# -virtfs local (virtio-9p-pci): the guests' output share
CONFIG_VIRTIO_PCI=y
CONFIG_VIRTIO_9P=y

# -device isa-debug-exit: the guest's exit status
CONFIG_ISA_DEBUG=y
