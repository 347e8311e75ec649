/* SPDX-License-Identifier: MIT */
/*
 * hb-device.h: the hotbridge device-source plugin ABI.
 *
 * The only header a hotness source (built in or a vendor plugin) includes.
 * A plugin is a shared object exporting one function,
 *
 *     const struct hb_device_ops *hb_device_entry_v1(void);
 *
 * which returns a static ops table. The host checks abi_major (must equal
 * its own), abi_minor and size before it touches any op: structs only ever
 * grow at the end, and an op added in minor N is used only when the
 * plugin's abi_minor >= N and size covers it. Plugins never see the
 * daemon's event loop, libcxl or internal structs: what they may do is in
 * struct hb_host_ops, injected at open().
 *
 * Sources report what they measure: device physical addresses (DPA, per
 * memdev) or host physical addresses (HPA). Nothing here translates.
 *
 * Parameters: a source reads its config keys through the inline
 * hb_dev_param*() helpers below (compiled into the plugin: they are not
 * part of the binary interface), so every source takes numbers the way the
 * daemon's config does.
 *
 * C99, no dependencies beyond <stdint.h>, <stddef.h>, <string.h> and
 * <errno.h>.
 */
#ifndef HB_DEVICE_H
#define HB_DEVICE_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HB_DEVICE_ABI_MAJOR 1 /* changed only by a breaking change */
#define HB_DEVICE_ABI_MINOR 4 /* bumped when something is appended */

#define HB_DEVICE_ENTRY_SYMBOL "hb_device_entry_v1"

/*
 * Whether the ops table at ops (a struct hb_host_ops or hb_device_ops) is
 * large enough to hold member: its size field covers the member's bytes.
 * Test it before touching any member appended after 1.0, and test a
 * function pointer for NULL as well (an optional op may be left out).
 * ops must be a valid pointer; it is evaluated more than once.
 */
#define HB_OPS_HAS(ops, member) \
	((size_t)(ops)->size >= \
	 (size_t)((const char *)&(ops)->member - (const char *)(ops)) + sizeof((ops)->member))

/* Address space of a record. */
#define HB_SPACE_DPA 1u /* addr is a DPA on record.memdev */
#define HB_SPACE_HPA 2u /* addr is a host physical address */

#define HB_MEMDEV_NAME_MAX 16 /* "mem0".."mem99999999999", NUL included */

/* What a source submits: addr..addr+len was accessed count times. */
struct hb_hot_record {
	uint32_t space;                  /* HB_SPACE_DPA or HB_SPACE_HPA */
	uint32_t flags;                  /* 0; reserved */
	char memdev[HB_MEMDEV_NAME_MAX]; /* DPA: the memdev ("mem0"); HPA: "" */
	uint64_t addr;
	uint64_t len;          /* bytes, > 0 */
	uint64_t count;        /* accesses (epoch mode) or threshold
					      crossings (always-on mode) */
	uint64_t timestamp_ns; /* CLOCK_MONOTONIC; 0 = "now" */
};

/*
 * What the host takes of a record (the rest is dropped and counted):
 *  - count at most HB_RECORD_COUNT_MAX (10^12; more is bad_record): a page's
 *    heat also stops at 10^18, the largest [policy] threshold;
 *  - timestamp_ns (CLOCK_MONOTONIC, this boot's: clock_gettime(), not the
 *    wall clock) at most HB_RECORD_TS_SKEW_NS (1 s) after the host's clock
 *    when submitted (later is bad_record), and at most HB_RECORD_MAX_AGE_NS
 *    (60 s) before it (older is dropped as stale: hotness that old says
 *    nothing of now). Only a timestamp taken goes into the latency summaries.
 */
#define HB_RECORD_COUNT_MAX 1000000000000ull
#define HB_RECORD_TS_SKEW_NS 1000000000ull
#define HB_RECORD_MAX_AGE_NS 60000000000ull

/* Capabilities (struct hb_device_ops.caps). */
#define HB_DEV_CAP_POLL (1ull << 0) /* poll() is called on a timer */
#define HB_DEV_CAP_FD (1ull << 1)   /* watches fds via host watch_fd() */
#define HB_DEV_CAP_DPA (1ull << 2)  /* submits DPA records */
#define HB_DEV_CAP_HPA (1ull << 3)  /* submits HPA records */
#define HB_DEV_CAP_ALL_V1 (HB_DEV_CAP_POLL | HB_DEV_CAP_FD | HB_DEV_CAP_DPA | HB_DEV_CAP_HPA)

/* Log priorities: syslog's. */
#define HB_LOG_ERR 3
#define HB_LOG_WARNING 4
#define HB_LOG_NOTICE 5
#define HB_LOG_INFO 6
#define HB_LOG_DEBUG 7

/* fd events for watch_fd(). */
#define HB_FD_READ 1u
#define HB_FD_WRITE 2u
#define HB_FD_HUP \
	4u /* only ever reported, never asked for: the peer
				   hung up (a socket's or pipe's other end closed);
				   reported with HB_FD_READ, data may remain */

/*
 * 1.2+: what a device reports about its media besides hotness, through
 * hb_host_ops.submit_event. The daemon checks hpa against its own
 * translation of memdev:dpa (it never takes the reporter's value instead
 * of its own) and keeps poisoned or uncorrectable pages out of promotion.
 */
#define HB_ADDR_NONE UINT64_MAX /* no address (e.g. the reporter has no HPA) */

#define HB_EVENT_MEDIA 1u    /* a media error record on dpa..dpa+len */
#define HB_EVENT_POISON 2u   /* dpa..dpa+len is poisoned */
#define HB_EVENT_OVERFLOW 3u /* the device lost count event records */

#define HB_EVENT_F_UNCORRECTABLE (1u << 0) /* MEDIA: the data is lost */
#define HB_EVENT_F_THRESHOLD (1u << 1)     /* MEDIA: a correctable-error threshold was crossed */
#define HB_EVENT_F_CLEARED (1u << 2)       /* POISON: the poison was cleared */

struct hb_device_event {
	uint32_t size;                   /* sizeof(struct hb_device_event) of the source */
	uint32_t kind;                   /* HB_EVENT_* */
	uint32_t flags;                  /* HB_EVENT_F_* */
	uint32_t count;                  /* OVERFLOW: records lost; else 0 */
	char memdev[HB_MEMDEV_NAME_MAX]; /* "mem0" */
	uint64_t dpa;                    /* OVERFLOW: 0 */
	uint64_t len;                    /* bytes at dpa; OVERFLOW: 0 */
	uint64_t hpa;                    /* the reporter's own translation of dpa,
					      or HB_ADDR_NONE */
	uint64_t timestamp_ns;           /* CLOCK_MONOTONIC; 0 = "now" */
};

struct hb_host; /* opaque: the daemon's handle */

/* Services the host offers a source. All return 0 or a negative errno. */
struct hb_host_ops {
	uint32_t abi_major, abi_minor;
	uint32_t size; /* sizeof(struct hb_host_ops) of the host */
	uint32_t reserved;
	void (*log)(struct hb_host *h, int prio, const char *fmt, ...)
#if defined(__GNUC__)
		__attribute__((format(printf, 3, 4)))
#endif
		;
	/* cb runs on the daemon's loop when fd has one of the events */
	int (*watch_fd)(struct hb_host *h, int fd, uint32_t events,
			void (*cb)(void *priv, int fd, uint32_t revents), void *priv);
	int (*unwatch_fd)(struct hb_host *h, int fd);
	/* one-shot; re-arm from cb for periodic work */
	int (*arm_timer)(struct hb_host *h, uint64_t after_ns, void (*cb)(void *priv), void *priv);
	/* copies the records; may be called from poll() and fd/timer callbacks */
	int (*submit)(struct hb_host *h, const struct hb_hot_record *r, size_t n);
	/*
	 * 1.1+ (check abi_minor and size first): n units of input the source
	 * could not make records of (lines, records, frames); the host counts
	 * them as bad input
	 */
	void (*count_bad)(struct hb_host *h, uint64_t n);
	/*
	 * 1.2+ (check abi_minor and size first): one media event (copied);
	 * -EINVAL for an event the host cannot use (counted as bad input)
	 */
	int (*submit_event)(struct hb_host *h, const struct hb_device_event *ev);
	/*
	 * 1.3+ (check size first): the device dropped hotness it measured, n
	 * times, because the source did not take it in time (a CHMU's hotlist
	 * overflow: each drain that finds STATUS overflow set counts 1). The
	 * host counts it per source; how many records were lost is unknown.
	 */
	void (*count_overflow)(struct hb_host *h, uint64_t n);
	/*
	 * 1.4+ (check size first): 1 while the host's ingestion backlog is
	 * full, else 0. A source that can leave its input where it lies (a
	 * file, a pipe, a socket: the kernel holds it, and writers feel the
	 * push-back) asks before each read and reads no more while it is 1:
	 * the host calls its fd callbacks and its poll again once the
	 * backlog has room. The host still takes HB_HOST_BACKLOG_HEADROOM
	 * records after it first says 1, so a source whose every read makes
	 * at most that many records never loses one; past that, submit()
	 * drops them (counted as backlog_full) and returns -ENOBUFS.
	 */
	int (*backlog_full)(struct hb_host *h);
};

/* records the host takes past a full backlog (hb_host_ops.backlog_full) */
#define HB_HOST_BACKLOG_HEADROOM 65536u

/* What the host knows about one configured source instance. */
struct hb_dev_info {
	uint32_t size; /* sizeof(struct hb_dev_info) of the host */
	uint32_t reserved;
	const char *name;          /* instance name from the config */
	const char *memdev;        /* "mem0", or NULL */
	const char *pci_bdf;       /* "0000:0d:00.0", or NULL */
	const char *const *params; /* "key=value" strings, NULL-terminated */
};

struct hb_device_ops {
	uint32_t abi_major, abi_minor;
	uint32_t size; /* sizeof(struct hb_device_ops) of the plugin */
	uint32_t reserved;
	const char *name; /* "chmu", "replay", "acme-telemetry" */
	uint64_t caps;    /* HB_DEV_CAP_* */
	/* 1: this source can serve info, 0: not here, < 0: -errno. Optional. */
	int (*probe)(const struct hb_dev_info *info);
	int (*open)(const struct hb_host_ops *ops, struct hb_host *h,
		    const struct hb_dev_info *info, void **ret_priv);
	/* required iff HB_DEV_CAP_POLL: gather and submit(); 0 or -errno */
	int (*poll)(void *priv);
	void (*close)(void *priv);
	/* 1.1+: append here only */
};

const struct hb_device_ops *hb_device_entry_v1(void);

/*
 * Parameter helpers (inline; the daemon's built-in sources use them too).
 * A parameter is a "key=value" string of hb_dev_info.params.
 */

/* The value of parameter key, or NULL when the instance has none. */
static inline const char *hb_dev_param(const struct hb_dev_info *info, const char *key)
{
	size_t klen = strlen(key);
	const char *const *p;

	for (p = info->params; p && *p; p++)
		if (!strncmp(*p, key, klen) && (*p)[klen] == '=')
			return *p + klen + 1;
	return NULL;
}

/*
 * The first parameter ("key=value") whose key is not in allowed
 * (NULL-terminated), or NULL when all are known: refuse the instance
 * naming it rather than ignore a typo.
 */
static inline const char *hb_dev_param_unknown(const struct hb_dev_info *info,
					       const char *const *allowed)
{
	const char *const *p, *const *a;

	for (p = info->params; p && *p; p++) {
		const char *eq = strchr(*p, '=');
		int ok = 0;

		for (a = allowed; eq && a && *a && !ok; a++)
			ok = strlen(*a) == (size_t)(eq - *p) && !strncmp(*a, *p, (size_t)(eq - *p));
		if (!ok)
			return *p;
	}
	return NULL;
}

/*
 * A number as the daemon's config writes it: decimal, or hexadecimal after
 * 0x/0X; never octal ("010" is refused), no sign, no blanks. 0, -EINVAL
 * (not such a number) or -ERANGE (above UINT64_MAX); *ret is set only on 0.
 */
static inline int hb_dev_param_parse_u64(const char *s, uint64_t *ret)
{
	int hex = s && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	uint64_t v = 0, base = hex ? 16 : 10;
	const char *q = hex ? s + 2 : s;

	if (!s || !*q || (!hex && q[0] == '0' && q[1]))
		return -EINVAL;
	for (; *q; q++) {
		uint64_t d;

		if (*q >= '0' && *q <= '9')
			d = (uint64_t)(*q - '0');
		else if (hex && *q >= 'a' && *q <= 'f')
			d = (uint64_t)(*q - 'a' + 10);
		else if (hex && *q >= 'A' && *q <= 'F')
			d = (uint64_t)(*q - 'A' + 10);
		else
			return -EINVAL;
		if (v > (UINT64_MAX - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	*ret = v;
	return 0;
}

/*
 * Parameter key as a number (hb_dev_param_parse_u64()), def when the
 * instance does not give it: 0, or -EINVAL/-ERANGE with *ret untouched.
 */
static inline int hb_dev_param_get_u64(const struct hb_dev_info *info, const char *key,
				       uint64_t def, uint64_t *ret)
{
	const char *v = hb_dev_param(info, key);

	if (!v) {
		*ret = def;
		return 0;
	}
	return hb_dev_param_parse_u64(v, ret);
}

#ifdef __cplusplus
}
#endif

#endif
