/* SPDX-License-Identifier: MIT */
/*
 * translate/: what the folder offers.
 *
 *  - struct hb_topology: memdevs, endpoint decoders, regions and root
 *    decoders, loaded whole or not at all from libcxl (live), from a saved
 *    `cxl list` JSON document, and completed with the ACPI CEDT (CFMWS
 *    arithmetic, CXIMS XOR maps), which libcxl does not expose;
 *    hb_topology_open() chooses the loader and the CEDT (struct
 *    hb_topology_source), so other folders only ask for a topology.
 *  - DPA -> HPA and HPA -> (memdev, DPA) for every interleave the spec
 *    allows (1,2,3,4,6,8,12,16 ways; 256 B..16 KiB; modulo and XOR).
 *  - HPA -> NUMA node and page frame from sysfs memory blocks and dax
 *    devices, read below a root prefix so tests use a fixture tree.
 *
 * Functions return 0 (or an index) on success and a negative errno on
 * failure; where an hb_err is taken it names the object that was wrong.
 * Nothing here logs above debug.
 */
#ifndef HB_TRANSLATE_H
#define HB_TRANSLATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

#define HB_NAME_MAX 32
#define HB_MAX_WAYS 16
#define HB_MAX_XORMAPS 4

/* Distinct errors of a lookup (documented in translate/docs/topology.md). */
#define HB_E_NOMEMDEV (-ENODEV) /* memdev name not in the topology   */
/* HB_E_NOMEMDEV in words, the same from every command: takes the name */
#define HB_MEMDEV_UNKNOWN_FMT "memdev '%s' is not in the topology"
#define HB_E_UNMAPPED (-ENXIO)       /* address outside every decoder     */
#define HB_E_NOREGION (-ENOLINK)     /* decoder is not part of a region   */
#define HB_E_UNCOMMITTED (-ENOTCONN) /* region exists, decode not committed */
#define HB_E_REFUSED (-EOPNOTSUPP)   /* a case hotbridge cannot translate right */

enum hb_mode {
	HB_MODE_NONE,
	HB_MODE_RAM,
	HB_MODE_PMEM,
	HB_MODE_MIXED,
	_HB_MODE_MAX,
	_HB_MODE_INVALID = -EINVAL,
};

enum hb_arith {
	HB_ARITH_MODULO,
	HB_ARITH_XOR,
	_HB_ARITH_MAX,
	_HB_ARITH_INVALID = -EINVAL,
};

const char *hb_mode_to_string(enum hb_mode m);
enum hb_mode hb_mode_from_string(const char *s);
const char *hb_arith_to_string(enum hb_arith a);
enum hb_arith hb_arith_from_string(const char *s);

/* Legal ways (1,2,3,4,6,8,12,16) and granularities (256..16384, pow2). */
bool hb_ways_valid(unsigned ways);
bool hb_granularity_valid(unsigned gran);
/* CXL encodings (CEDT, HDM decoders): eiw <-> ways, eig/hbig <-> bytes. */
int hb_eiw_to_ways(unsigned eiw);
int hb_eig_to_granularity(unsigned eig);

/*
 * Pure interleave arithmetic for one region. Built once by
 * hb_interleave_init() (which rejects what is not legal), then each
 * translation is a few shifts, at most one division by 3 and <= 4
 * parity computations.
 */
struct hb_interleave {
	uint64_t base; /* region HPA base (absolute) */
	uint64_t size; /* region HPA size */
	unsigned ways, gran;
	uint8_t gshift; /* log2(gran) */
	uint8_t wshift; /* log2 of the power-of-two factor of ways */
	bool mod3;      /* ways is 3, 6 or 12 */
	/* unaligned MOD3 (root ways 3/6/12, base not hbw*256MiB aligned) */
	bool unaligned;
	unsigned hb_ways, hb_gran, dph, rot;
	uint8_t hb_gshift;
	/* XOR windows: maps applied to the absolute address */
	unsigned nr_xormaps;
	uint64_t xormaps[HB_MAX_XORMAPS];
};

struct hb_interleave_params {
	uint64_t base, size;
	unsigned ways, gran;           /* the region's */
	unsigned root_ways, root_gran; /* the root decoder's (0 = same as region) */
	enum hb_arith arith;
	unsigned nr_xormaps;
	const uint64_t *xormaps;
};

int hb_interleave_init(struct hb_interleave *il, const struct hb_interleave_params *p,
		       struct hb_err *err);
/* dpa_off is the offset in the endpoint decoder (DPA - dpa_base). */
uint64_t hb_interleave_to_hpa(const struct hb_interleave *il, unsigned pos, uint64_t dpa_off);
/* hpa must lie in [base, base+size). */
void hb_interleave_to_dpa(const struct hb_interleave *il, uint64_t hpa, unsigned *ret_pos,
			  uint64_t *ret_dpa_off);
/* XOR step alone (absolute address); its own inverse with disjoint map bits. */
uint64_t hb_xormap_apply(const uint64_t *maps, unsigned n, uint64_t addr);
uint64_t hb_xormap_unapply(const uint64_t *maps, unsigned n, uint64_t addr);
/* How many maps a host-bridge ways count needs (CXL 3.1 9.18.1.x). */
int hb_xormap_count(unsigned hb_ways);

/* ---- topology model ---- */

struct hb_memdev {
	char name[HB_NAME_MAX];
	char host[HB_NAME_MAX];
	uint64_t serial; /* UINT64_MAX if unknown */
	int numa_node;   /* -1 if unknown */
	uint64_t ram_size, pmem_size;
};

struct hb_endpoint_decoder {
	char name[HB_NAME_MAX];
	char memdev_name[HB_NAME_MAX]; /* "" if the source did not say */
	int memdev;                    /* index into memdevs, -1 if unknown */
	uint64_t dpa_base, dpa_size;
	enum hb_mode mode;
	char region_name[HB_NAME_MAX]; /* "" when in no region */
	int region;                    /* index, -1 when in no region */
	unsigned pos;                  /* position in its region */
	unsigned ways, gran;           /* 0 when not reported */
	uint64_t hpa_base, hpa_size;   /* its programmed HPA range; size 0: not reported */
};

struct hb_root_decoder {
	char name[HB_NAME_MAX];
	uint64_t hpa_base, hpa_size;
	unsigned ways, gran;
	enum hb_arith arith;
	unsigned nr_xormaps;
	uint64_t xormaps[HB_MAX_XORMAPS];
};

struct hb_region {
	char name[HB_NAME_MAX];
	char root_name[HB_NAME_MAX]; /* "" if the source did not say */
	int root;                    /* index, -1 when no root decoder is known */
	uint64_t hpa_base, hpa_size;
	/* extended linear cache: the first cache_size bytes of the region are
	 * DRAM caching the CXL part that follows (0: none) */
	uint64_t cache_size;
	unsigned ways, gran;
	bool committed;
	enum hb_mode mode;
	/* set by finalize: why this committed region is not translated ("" if it is) */
	char refused[256];
	char target_names[HB_MAX_WAYS][HB_NAME_MAX];   /* endpoint decoder by position */
	char target_memdevs[HB_MAX_WAYS][HB_NAME_MAX]; /* its memdev, "" if not said */
	int targets[HB_MAX_WAYS];                      /* endpoint decoder index by position */
	struct hb_interleave il; /* valid once finalised, for committed regions */
};

struct hb_topology;

int hb_topology_new(struct hb_topology **ret);
struct hb_topology *hb_topology_free(struct hb_topology *t);
HB_DEFINE_CLEANUP(struct hb_topology *, hb_topology_free)
#define _hb_cleanup_topology_ _hb_cleanup_(hb_topology_freep)

/* Builders, used by the loaders and by tests. Names must be unique per kind. */
int hb_topology_add_memdev(struct hb_topology *t, const struct hb_memdev *m, struct hb_err *err);
int hb_topology_add_root(struct hb_topology *t, const struct hb_root_decoder *d, struct hb_err *err);
int hb_topology_add_endpoint(struct hb_topology *t, const struct hb_endpoint_decoder *d,
			     struct hb_err *err);
int hb_topology_add_region(struct hb_topology *t, const struct hb_region *r, struct hb_err *err);
/*
 * Resolve names, check every invariant (ways vs targets, overlaps, legal
 * interleave, decoders agree with their region) and precompute the
 * arithmetic. A topology is only usable after this returned 0.
 */
int hb_topology_finalize(struct hb_topology *t, struct hb_err *err);

size_t hb_topology_nr_memdevs(const struct hb_topology *t);
size_t hb_topology_nr_endpoints(const struct hb_topology *t);
size_t hb_topology_nr_regions(const struct hb_topology *t);
size_t hb_topology_nr_roots(const struct hb_topology *t);
const struct hb_memdev *hb_topology_memdev(const struct hb_topology *t, size_t i);
const struct hb_endpoint_decoder *hb_topology_endpoint(const struct hb_topology *t, size_t i);
const struct hb_region *hb_topology_region(const struct hb_topology *t, size_t i);
/*
 * The next region from *cursor (start at 0) that hotbridge refuses to
 * translate (its refused[] says why), or NULL; t NULL: none.
 */
const struct hb_region *hb_topology_next_refused(const struct hb_topology *t, size_t *cursor);
const struct hb_root_decoder *hb_topology_root(const struct hb_topology *t, size_t i);
/* Mutable root access for the CEDT step before finalize. */
struct hb_root_decoder *hb_topology_root_mut(struct hb_topology *t, size_t i);

int hb_topology_find_memdev(const struct hb_topology *t, const char *name);
int hb_topology_find_region(const struct hb_topology *t, const char *name);

/* ---- loaders: each returns a finalised topology or nothing ---- */
struct hb_cedt;
/* cedt (may be NULL) supplies XOR arithmetic and maps for the root decoders. */
int hb_topology_load_json(const char *buf, size_t len, const struct hb_cedt *cedt,
			  struct hb_topology **ret, struct hb_err *err);
int hb_topology_load_json_file(const char *path, const struct hb_cedt *cedt,
			       struct hb_topology **ret, struct hb_err *err);
/* Live, through libcxl (sysfs under /sys/bus/cxl, as libcxl hard-codes it). */
int hb_topology_load_libcxl(const struct hb_cedt *cedt, struct hb_topology **ret, struct hb_err *err);

/* Where a topology comes from (hotbridge translate/topology, [topology]). */
struct hb_topology_source {
	const char *topology; /* saved cxl list JSON, NULL = live */
	const char *cedt;     /* CEDT binary, NULL = the ACPI one when live */
};

#define HB_DEFAULT_CEDT "/sys/firmware/acpi/tables/CEDT"

/*
 * Load as src says: the snapshot src->topology, or live through libcxl.
 * The CEDT is src->cedt, else live the firmware's (HB_DEFAULT_CEDT) when it
 * is readable (root), else none (every window modulo). Prints nothing.
 */
int hb_topology_open(const struct hb_topology_source *src, struct hb_topology **ret,
		     struct hb_err *err);

/* CEDT (ACPI): CFMWS windows and CXIMS XOR maps. */
struct hb_cedt_window {
	uint64_t base, size;
	unsigned ways, gran; /* decoded */
	enum hb_arith arith;
	uint16_t restrictions;
	uint16_t qtg_id;
	uint32_t targets[HB_MAX_WAYS];
	unsigned nr_xormaps; /* filled from the matching CXIMS */
	uint64_t xormaps[HB_MAX_XORMAPS];
};

struct hb_cedt {
	size_t nr_windows;
	struct hb_cedt_window windows[64];
};

int hb_cedt_parse(const void *buf, size_t len, struct hb_cedt *ret, struct hb_err *err);
/* Read and parse a CEDT file (e.g. /sys/firmware/acpi/tables/CEDT). */
int hb_cedt_load_file(const char *path, struct hb_cedt *ret, struct hb_err *err);
/*
 * Give each root decoder the arithmetic and maps of the CFMWS with the same
 * base and size (before hb_topology_finalize()). Returns how many matched;
 * the windows that matched none are kept for hb_topology_cedt_unmatched().
 */
int hb_topology_apply_cedt(struct hb_topology *t, const struct hb_cedt *c, struct hb_err *err);
/*
 * The i-th CEDT window (CEDT order) that matched no root decoder of t: its
 * arithmetic went unused (a CEDT of another host, or a snapshot without that
 * root decoder). NULL past the last; none when t had no CEDT. The commands
 * warn about each (hotbridge translate, topology, run).
 */
const struct hb_cedt_window *hb_topology_cedt_unmatched(const struct hb_topology *t, size_t i);

/* ---- lookups ---- */
struct hb_xlat {
	int memdev;   /* index */
	int endpoint; /* endpoint decoder index */
	int region;   /* index */
	unsigned pos;
	uint64_t dpa, hpa;
};

int hb_topology_dpa_to_hpa(const struct hb_topology *t, int memdev, uint64_t dpa,
			   struct hb_xlat *ret, struct hb_err *err);
int hb_topology_hpa_to_dpa(const struct hb_topology *t, uint64_t hpa, struct hb_xlat *ret,
			   struct hb_err *err);
/*
 * The first piece of the DPA range [dpa, dpa + len) on memdev whose HPA is
 * one contiguous run: up to the end of dpa's interleave granule or of its
 * endpoint decoder, whichever comes first (at most len). ret gets dpa's
 * translation, ret_len the piece's length (> 0). A range is cut into such
 * pieces by calling again from dpa + *ret_len. Errors are those of
 * hb_topology_dpa_to_hpa(), or -EINVAL for a zero len; err may be NULL.
 */
int hb_topology_dpa_piece(const struct hb_topology *t, int memdev, uint64_t dpa, uint64_t len,
			  struct hb_xlat *ret, uint64_t *ret_len, struct hb_err *err);

/* JSON of the whole model (json-c object, caller puts it). */
struct json_object;
struct json_object *hb_topology_to_json(const struct hb_topology *t);
/* An address or size as JSON: "0x..." (exact in every reader), zero as "0x0":
 * the one spelling of every address hotbridge prints. */
struct json_object *hb_json_hex(uint64_t v);
/*
 * A measured or computed double as JSON, printed with at most decimals
 * digits after the point (trailing zeros dropped, one kept): 7.773 rather
 * than json-c's 7.7730712500000001. NaN and infinities are null. Every
 * double hotbridge prints goes through it.
 */
struct json_object *hb_json_double(double v, int decimals);

/* ---- HPA -> NUMA node and PFN ---- */
struct hb_node_map;

/* root: prefix before /sys (NULL or "" for the live system). */
int hb_node_map_load(const char *root, struct hb_node_map **ret, struct hb_err *err);
struct hb_node_map *hb_node_map_free(struct hb_node_map *m);
HB_DEFINE_CLEANUP(struct hb_node_map *, hb_node_map_free)
#define _hb_cleanup_node_map_ _hb_cleanup_(hb_node_map_freep)

struct hb_node_info {
	int node; /* NUMA node, -1 unknown */
	uint64_t pfn;
	bool online;              /* in an online memory block (System RAM) */
	char source[HB_NAME_MAX]; /* "memory123" or "dax0.0" */
};

/* -ENOENT when no memory block or dax device covers hpa. */
int hb_node_map_lookup(const struct hb_node_map *m, uint64_t hpa, struct hb_node_info *ret);
uint64_t hb_node_map_block_size(const struct hb_node_map *m);

/*
 * This host's CXL windows (windows.c): the CEDT's CFMWS, as the kernel
 * lists them in /proc/iomem ("CXL Window N") and as the CEDT itself does.
 */
struct hb_cxl_window {
	uint64_t start, end; /* [start, end) */
};

struct hb_cxl_windows {
	size_t n;
	struct hb_cxl_window v[64];
};

struct hb_iomem;
void hb_cxl_windows_add_iomem(struct hb_cxl_windows *w, const struct hb_iomem *m);
void hb_cxl_windows_add_cedt(struct hb_cxl_windows *w, const struct hb_cedt *c);
/* is [start, start + len) inside one window? */
bool hb_cxl_windows_contain(const struct hb_cxl_windows *w, uint64_t start, uint64_t len);
/*
 * The windows of iomem (read from iomem_fd when >= 0, opened at start-up
 * with the rights to see addresses) and of the CEDT file cedt (NULL: none),
 * together; an error only when neither can be read, naming both reasons.
 */
int hb_cxl_windows_load(const char *iomem, int iomem_fd, const char *cedt,
			struct hb_cxl_windows *ret, struct hb_err *err);
/*
 * The nodes (bit n) whose memory, every memory block and dax range the map
 * puts on them, lies inside w: a node with memory outside every window, or
 * with none, is not one of them.
 */
uint64_t hb_node_map_window_nodes(const struct hb_node_map *m, const struct hb_cxl_windows *w);

#endif /* HB_TRANSLATE_H */
