// SPDX-License-Identifier: MIT
/*
 * Finding CHMUs: CXL memory devices (class 0x0502, programming interface
 * 0x10) through libpci, then each one's Register Locator DVSEC (vendor
 * 0x1E98, DVSEC ID 8), whose entries name a BAR, a block identifier and an
 * offset. Block identifier 5 is the CHMU (4 the CPMU, 3 device registers,
 * 1 the component registers).
 *
 * libpci reports fatal errors through a callback that must not return; a
 * jump buffer (this file's only state, per thread) brings them back here
 * as an error code.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pci/pci.h>

#include "cxlpci.h"

#define DVSEC_ID_REGLOC 8

static __thread jmp_buf *pci_jmp;
static __thread char pci_errmsg[256];

static void PCI_NONRET on_error(char *msg, ...)
{
	va_list ap;

	va_start(ap, msg);
	vsnprintf(pci_errmsg, sizeof(pci_errmsg), msg, ap);
	va_end(ap);
	longjmp(*pci_jmp, 1);
}

static void on_warning(char *msg, ...)
{
	(void)msg;
}

static void walk_dvsecs(struct pci_dev *d, struct hb_cxl_pcidev *out)
{
	for (struct pci_cap *c = d->first_cap; c; c = c->next) {
		uint32_t h1;
		uint16_t id;
		unsigned int len;

		if (c->type != PCI_CAP_EXTENDED || c->id != PCI_EXT_CAP_ID_DVSEC)
			continue;
		h1 = pci_read_long(d, c->addr + PCI_DVSEC_HEADER1);
		id = pci_read_word(d, c->addr + PCI_DVSEC_HEADER2);
		len = h1 >> 20;
		if ((h1 & 0xffff) != PCI_DVSEC_VENDOR_ID_CXL || id != DVSEC_ID_REGLOC || len < 0x0c)
			continue;
		out->has_regloc = true;
		for (unsigned int i = 0; i < (len - 0x0c) / 8 && out->nblocks < HB_CXL_MAX_BLOCKS;
		     i++) {
			uint32_t lo = pci_read_long(d, c->addr + 0x0c + (int)i * 8);
			uint32_t hi = pci_read_long(d, c->addr + 0x10 + (int)i * 8);
			struct hb_cxl_regblock *b = &out->blocks[out->nblocks];

			b->bir = lo & 7;
			b->id = (lo >> 8) & 0xff;
			b->offset = (uint64_t)hi << 32 | (lo & 0xffff0000u);
			if (b->id == 0)
				continue; /* an empty entry */
			out->nblocks++;
		}
	}
}

struct scan {
	struct hb_cxl_pcidev *v;
	size_t n;
	const char *want; /* a BDF to look for among every device */
	bool present;
};

/* Everything that runs while libpci may longjmp back: state in *st only. */
static int scan_devices(struct pci_access *a, struct scan *st)
{
	pci_init(a);
	pci_scan_bus(a);
	for (struct pci_dev *d = a->devices; d; d = d->next) {
		struct hb_cxl_pcidev *nv, *out;

		if (st->want) {
			char bdf[16];

			snprintf(bdf, sizeof(bdf), "%04x:%02x:%02x.%d", d->domain & 0xffff, d->bus,
				 d->dev, d->func);
			st->present |= !strcmp(bdf, st->want);
		}
		pci_fill_info(d, PCI_FILL_IDENT | PCI_FILL_CLASS | PCI_FILL_BASES | PCI_FILL_SIZES |
					 PCI_FILL_EXT_CAPS);
		if (d->device_class != 0x0502 || pci_read_byte(d, PCI_CLASS_PROG) != 0x10)
			continue;
		nv = realloc(st->v, (st->n + 1) * sizeof(*st->v));
		if (!nv)
			return -ENOMEM;
		st->v = nv;
		out = &st->v[st->n++];
		memset(out, 0, sizeof(*out));
		snprintf(out->bdf, sizeof(out->bdf), "%04x:%02x:%02x.%d", d->domain & 0xffff,
			 d->bus, d->dev, d->func);
		out->vendor = d->vendor_id;
		out->device = d->device_id;
		for (int i = 0; i < 6; i++) {
			out->bar_base[i] = d->base_addr[i] & PCI_ADDR_MEM_MASK;
			out->bar_size[i] = d->size[i];
		}
		walk_dvsecs(d, out);
		for (unsigned int i = 0; i < out->nblocks; i++) {
			if (out->blocks[i].id == HB_CXL_REGBLOCK_CHMU && !out->has_chmu) {
				out->has_chmu = true;
				out->chmu = out->blocks[i];
			}
		}
	}
	return 0;
}

int hb_cxl_pci_scan(const char *dump, struct hb_cxl_pcidev **ret, size_t *ret_n, struct hb_err *err)
{
	bool present;

	return hb_cxl_pci_scan_for(dump, NULL, ret, ret_n, &present, err);
}

int hb_cxl_pci_scan_for(const char *dump, const char *bdf, struct hb_cxl_pcidev **ret,
			size_t *ret_n, bool *ret_present, struct hb_err *err)
{
	struct pci_access *a;
	struct scan *st;
	jmp_buf jb;
	int r;

	*ret = NULL;
	*ret_n = 0;
	if (dump && access(dump, R_OK) < 0)
		return hb_err_set(err, -errno, "%s: %s", dump, strerror(errno));
	*ret_present = false;
	st = calloc(1, sizeof(*st));
	a = pci_alloc();
	if (!a || !st) {
		free(st);
		if (a)
			pci_cleanup(a);
		return hb_err_set(err, -ENOMEM, "out of memory");
	}
	st->want = bdf;
	a->error = on_error;
	a->warning = on_warning;
	a->debug = on_warning;
	if (dump) {
		a->method = PCI_ACCESS_DUMP;
		pci_set_param(a, "dump.name", (char *)dump);
	}
	pci_jmp = &jb;
	if (setjmp(jb))
		r = hb_err_set(err, -EIO, "libpci: %s", pci_errmsg);
	else
		r = scan_devices(a, st);
	pci_jmp = NULL;
	pci_cleanup(a);
	if (r < 0) {
		if (r == -ENOMEM)
			hb_err_set(err, r, "out of memory");
		free(st->v);
		free(st);
		return r;
	}
	*ret = st->v;
	*ret_n = st->n;
	*ret_present = st->present;
	free(st);
	return 0;
}

const char *hb_cxl_regblock_name(unsigned int id)
{
	switch (id) {
	case 1: return "component";
	case 2: return "bar-virtualization";
	case 3: return "device";
	case 4: return "cpmu";
	case HB_CXL_REGBLOCK_CHMU: return "chmu";
	default: return "unknown";
	}
}
