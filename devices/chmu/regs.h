/* SPDX-License-Identifier: MIT */
/*
 * CXL Hotness Monitoring Unit registers (CXL r3.2 section 8.2.8), as the
 * Linux RFC driver (drivers/cxl/hmu.c, 2024-11) and QEMU's emulation
 * (hw/cxl/cxl-chmu.c) lay them out. Offsets of per-instance registers are
 * relative to the instance base: CHMU_INST0 + i * INSTANCE_LENGTH.
 *
 * One field is reported differently by the two: CONF1's down-sampling
 * factor is 8 bits [39:32] in QEMU and 4 bits [35:32] in the driver. It
 * holds log2 of a factor from the 16-bit capability bitmap, so 4 bits hold
 * every legal value; we write [35:32] and keep [39:36] zero, which both
 * readings decode the same.
 */
#ifndef HB_CHMU_REGS_H
#define HB_CHMU_REGS_H

#include <stdint.h>

#define HB_CHMU_FIELD(v, hi, lo) (((v) >> (lo)) & ((1ULL << ((hi) - (lo) + 1)) - 1))
#define HB_CHMU_SET(hi, lo, x) (((uint64_t)(x) & ((1ULL << ((hi) - (lo) + 1)) - 1)) << (lo))

/* common */
#define CHMU_COMMON_CAP0 0x00 /* VERSION [3:0], NUM_INSTANCES [15:8] */
#define CHMU_COMMON_CAP1 0x08 /* INSTANCE_LENGTH [15:0] */
#define CHMU_INST0 0x10

/* per instance (relative) */
#define CHMU_CAP0 0x00
#define CAP0_MSI_N(v) HB_CHMU_FIELD(v, 3, 0)
#define CAP0_OVERFLOW_INT(v) HB_CHMU_FIELD(v, 4, 4)
#define CAP0_LEVEL_INT(v) HB_CHMU_FIELD(v, 5, 5)
#define CAP0_EPOCH_TYPE(v) HB_CHMU_FIELD(v, 7, 6)
#define CAP0_TRACKED_M2S(v) HB_CHMU_FIELD(v, 13, 8)
#define CAP0_MAX_EPOCH_SCALE(v) HB_CHMU_FIELD(v, 19, 16)
#define CAP0_MAX_EPOCH_VAL(v) HB_CHMU_FIELD(v, 31, 20)
#define CAP0_MIN_EPOCH_SCALE(v) HB_CHMU_FIELD(v, 35, 32)
#define CAP0_MIN_EPOCH_VAL(v) HB_CHMU_FIELD(v, 47, 36)
#define CAP0_HOTLIST_SIZE(v) HB_CHMU_FIELD(v, 63, 48)
#define CHMU_CAP1 0x08
#define CAP1_UNIT_SIZES(v) HB_CHMU_FIELD(v, 31, 0)  /* bit n: 2^(n+8) bytes */
#define CAP1_DS_FACTORS(v) HB_CHMU_FIELD(v, 47, 32) /* bit n: factor 2^n */
#define CAP1_EPOCH_BASED(v) HB_CHMU_FIELD(v, 48, 48)
#define CAP1_ALWAYS_ON(v) HB_CHMU_FIELD(v, 49, 49)
#define CAP1_RANDOMIZED_DS(v) HB_CHMU_FIELD(v, 50, 50)
#define CAP1_OVERLAPPING(v) HB_CHMU_FIELD(v, 51, 51)
#define CAP1_POSTPONED(v) HB_CHMU_FIELD(v, 52, 52)
#define CHMU_CAP2 0x10 /* range bitmap offset */
#define CHMU_CAP3 0x18 /* hotlist offset */
#define CHMU_CONF0 0x40
#define CONF0_M2S(x) HB_CHMU_SET(7, 0, x)
#define CONF0_RANDOMIZE_DS (1ULL << 8)
#define CONF0_INT_ON_OVERFLOW (1ULL << 9)
#define CONF0_INT_ON_FILL (1ULL << 10)
#define CONF0_ENABLE (1ULL << 16)
#define CONF0_RESET (1ULL << 17)
#define CONF0_THRESHOLD(x) HB_CHMU_SET(63, 32, x)
#define CONF0_GET_M2S(v) HB_CHMU_FIELD(v, 7, 0)
#define CONF0_GET_THRESHOLD(v) HB_CHMU_FIELD(v, 63, 32)
#define CHMU_CONF1 0x48
#define CONF1_UNIT_SIZE(x) HB_CHMU_SET(31, 0, x) /* log2 bytes */
#define CONF1_DS(x) HB_CHMU_SET(35, 32, x)       /* log2 factor */
#define CONF1_MODE(x) HB_CHMU_SET(47, 40, x)     /* 0 epoch, 1 always-on */
#define CONF1_EPOCH_SCALE(x) HB_CHMU_SET(51, 48, x)
#define CONF1_EPOCH_VAL(x) HB_CHMU_SET(63, 52, x)
#define CONF1_GET_UNIT_SIZE(v) HB_CHMU_FIELD(v, 31, 0)
#define CONF1_GET_DS(v) HB_CHMU_FIELD(v, 35, 32)
#define CONF1_GET_MODE(v) HB_CHMU_FIELD(v, 47, 40)
#define CONF1_GET_EPOCH_SCALE(v) HB_CHMU_FIELD(v, 51, 48)
#define CONF1_GET_EPOCH_VAL(v) HB_CHMU_FIELD(v, 63, 52)
#define CHMU_CONF2 0x50 /* fill (notification) threshold [15:0] */
#define CHMU_STATUS 0x60
#define STATUS_ENABLED (1ULL << 0)
#define STATUS_OP(v) HB_CHMU_FIELD(v, 31, 16)
#define STATUS_COUNTER_WIDTH(v) HB_CHMU_FIELD(v, 39, 32)
#define STATUS_SET_COUNTER_WIDTH(x) HB_CHMU_SET(39, 32, x)
#define STATUS_OVERFLOW (1ULL << 40) /* write 1 to clear */
#define STATUS_LEVEL (1ULL << 41)    /* write 1 to clear */
#define CHMU_HEAD 0x68               /* 16-bit: oldest entry, host-written */
#define CHMU_TAIL 0x6a               /* 16-bit: next slot the device writes */

#define CHMU_RANGE_GRANULE (256ULL << 20) /* one range-bitmap bit */

/* M2S request types to track (CONF0), and CAP0 support bit (type - 1) */
#define CHMU_M2S_NONTEE_R 1
#define CHMU_M2S_NONTEE_W 2
#define CHMU_M2S_NONTEE_RW 3
#define CHMU_M2S_ALL_R 4
#define CHMU_M2S_ALL_W 5
#define CHMU_M2S_ALL_RW 6

/* epoch scale codes */
static inline uint64_t hb_chmu_epoch_scale_ns(unsigned int code)
{
	static const uint64_t ns[] = { 0, 100000, 1000000, 10000000, 100000000, 1000000000 };

	return code < sizeof(ns) / sizeof(ns[0]) ? ns[code] : 0;
}

#endif
