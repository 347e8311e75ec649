/* SPDX-License-Identifier: MIT */
/* CXL memory devices on PCI and their register blocks (pci.c, libpci). */
#ifndef HB_CXLPCI_H
#define HB_CXLPCI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

#define HB_CXL_MAX_BLOCKS 8
#define HB_CXL_REGBLOCK_CHMU 5

struct hb_cxl_regblock {
	unsigned int bir; /* BAR index */
	unsigned int id;  /* block identifier */
	uint64_t offset;  /* within the BAR */
};

struct hb_cxl_pcidev {
	char bdf[16]; /* "0000:0d:00.0" */
	uint16_t vendor, device;
	uint64_t bar_base[6], bar_size[6]; /* 0 when read from a dump */
	bool has_regloc, has_chmu;
	unsigned int nblocks;
	struct hb_cxl_regblock blocks[HB_CXL_MAX_BLOCKS];
	struct hb_cxl_regblock chmu; /* the first CHMU block, if has_chmu */
};

/*
 * Every CXL memory device (class 0x0502, prog-if 0x10) with its Register
 * Locator blocks. dump: a file in `lspci -xxxx` format read through
 * libpci's dump method, or NULL for the live system.
 */
int hb_cxl_pci_scan(const char *dump, struct hb_cxl_pcidev **ret, size_t *ret_n, struct hb_err *err);
/* the same, and whether any PCI device (CXL or not) has BDF bdf */
int hb_cxl_pci_scan_for(const char *dump, const char *bdf, struct hb_cxl_pcidev **ret,
			size_t *ret_n, bool *ret_present, struct hb_err *err);
const char *hb_cxl_regblock_name(unsigned int id);

#endif
