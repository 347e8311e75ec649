// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: a hostile CHMU. The input is the device's register
 * image (capabilities, offsets, head/tail, hotlist entries, counter
 * width); the driver opens it, programs it and drains it. Writes land in
 * the image, so the device "answers" with whatever the input says.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "chmu/chmu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct image {
	uint8_t regs[8192];
};

static int img_read(void *priv, uint64_t off, unsigned int width, uint64_t *val)
{
	struct image *im = priv;

	if (off > sizeof(im->regs) - width)
		return -ERANGE;
	*val = 0;
	memcpy(val, im->regs + off, width);
	return 0;
}

static int img_write(void *priv, uint64_t off, unsigned int width, uint64_t val)
{
	struct image *im = priv;

	if (off > sizeof(im->regs) - width)
		return -ERANGE;
	memcpy(im->regs + off, &val, width);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct image im;
	struct hb_regwin w = { img_read, img_write, &im, sizeof(im.regs) };
	struct hb_chmu_range range = { 0, 1ULL << 30 };
	struct hb_chmu_config cfg = { .unit_size = 4096,
				      .epoch_ns = 100000000,
				      .threshold = 1,
				      .ds_factor = 1,
				      .ranges = &range,
				      .nranges = 1 };
	struct hb_hot_record rec[64];
	struct hb_err err = { 0 };
	struct hb_chmu *c = NULL;
	size_t n;

	memset(&im, 0, sizeof(im));
	memcpy(im.regs, data, size < sizeof(im.regs) ? size : sizeof(im.regs));
	if (hb_chmu_open(&w, 0, "mem0", &c, &err) < 0)
		return 0;
	/* the image decides what is allowed: try what it advertises */
	cfg.unit_size = 1ULL << (8 + __builtin_ctz(hb_chmu_caps(c)->unit_sizes));
	cfg.ds_factor = 1u << __builtin_ctz(hb_chmu_caps(c)->ds_factors);
	cfg.mode = hb_chmu_caps(c)->epoch_based ? HB_CHMU_MODE_EPOCH : HB_CHMU_MODE_ALWAYS_ON;
	cfg.epoch_ns = hb_chmu_caps(c)->min_epoch_ns;
	hb_chmu_configure(c, &cfg, &err);
	/* configure may have failed only on "did not enable": drain anyway */
	memcpy(im.regs, data, size < sizeof(im.regs) ? size : sizeof(im.regs));
	for (int i = 0; i < 3; i++) {
		if (hb_chmu_drain(c, rec, 64, &n, &err) < 0)
			break;
		for (size_t k = 0; k < n; k++)
			if (rec[k].len != cfg.unit_size || rec[k].addr >= (1ULL << 30))
				__builtin_trap();
	}
	hb_chmu_free(c);
	return 0;
}
