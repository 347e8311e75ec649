// SPDX-License-Identifier: MIT
/* The configuration's key table: defaults, values, diff, output and the man page. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config.h"
#include "conf/conf-keys.h"
#include "util/macro.h"

enum type { T_U64, T_I64, T_DOUBLE, T_BOOL, T_STR, T_ENUM };

struct hb_conf_key {
	const char *section, *name;
	enum type type;
	size_t off, size; /* into struct hb_config; size for strings */
	const char *def;
	double min, max;
	const char *choices; /* T_ENUM: "a|b|c" */
	const char *help;
};

#define K(sec, nm, ty, field, def, lo, hi, ch, help)                                  \
	{                                                                             \
		sec, nm, ty, offsetof(struct hb_config, field),                       \
			sizeof(((struct hb_config *)0)->field), def, lo, hi, ch, help \
	}

static const struct hb_conf_key keys[] = {
	K("daemon", "interval_ms", T_U64, interval_ms, "1000", 10, 3600000, NULL,
	  "cycle length: poll sources, decay, decide, migrate"),
	K("daemon", "dry_run", T_BOOL, dry_run, "false", 0, 0, NULL,
	  "decide and report, never migrate"),
	K("daemon", "log_level", T_ENUM, log_level, "info", 0, 0, "err|warning|notice|info|debug",
	  "messages at this level and above"),
	K("daemon", "log_target", T_ENUM, log_target, "stderr", 0, 0, "stderr|syslog",
	  "stderr (under systemd, the journal with SOURCE=, MEMDEV=, HPA= fields) or syslog(3)"),
	K("daemon", "plugin_dir", T_STR, plugin_dir, HB_PLUGINDIR, 0, 0, NULL,
	  "vendor source plugins (root-owned, not group/world-writable)"),
	K("daemon", "plugin_memory_limit", T_U64, plugin_memory_limit, "536870912", 0, 1ULL << 44,
	  NULL,
	  "address space (RLIMIT_AS, bytes) of each hotbridge-plugin-host, the process a vendor plugin runs in: the host stops when, after a call into the plugin, 90 % of it is in use, or when the plugin fails with ENOMEM or crashes with 75 % in use (a failed malloc usually comes first), and is started again, named \"memory limit\" in status; 0 = no limit"),
	K("daemon", "plugin_hang_ms", T_U64, plugin_hang_ms, "3000", 100, 600000, NULL,
	  "a plugin host that does not answer the daemon for this long (a plugin looping in poll or a callback) is killed and started again, named \"hung\" in status; loading and opening get 2000 ms more"),
	K("daemon", "control_socket", T_STR, control_socket, "/run/hotbridge/control", 0, 0, NULL,
	  "UNIX socket for hotbridge status/stats/explain (mode 0600, root only), and "
	  "<control_socket>.lock beside it, which keeps a second daemon out: an absolute path, in a "
	  "directory only root or the daemon's user may write (not /tmp); empty only for run --once"),
	K("daemon", "metrics_textfile", T_STR, metrics_textfile, "", 0, 0, NULL,
	  "Prometheus textfile rewritten each cycle (by rename; a temporary .NAME.XXXXXXXX a killed run left is removed at start): an absolute path in a directory that exists at start-up, the daemon may write and others may not (not /tmp); nothing there but a regular file, and none of the daemon's other files (its configuration, a feed, a state file, the control socket's lock); a failing write is logged once, and when it works again; empty = none"),
	K("daemon", "pause_state", T_STR, pause_state, "/var/lib/hotbridge/paused", 0, 0, NULL,
	  "file that keeps `hotbridge pause` across restarts (a crash, Restart=on-failure, the watchdog): written on pause, removed on resume, read by run at start (the unit's StateDirectory= makes /var/lib/hotbridge); empty = a pause lasts until the daemon stops"),
	K("daemon", "backlog", T_U64, backlog, "262144", 1024, 1 << 24, NULL,
	  "records waiting for ingestion (about 100 bytes each) at which the sources stop reading: a replay file, FIFO or socket is read again as the backlog drains, so a burst is pushed back, not dropped"),
	K("table", "max_entries", T_U64, max_entries, "1000000", 1, 1 << 30, NULL,
	  "hotness table budget in pages (about 50 bytes each, allocated at start: 24-byte slots, twice the budget rounded up to a power of two, which must fit in this machine's memory); the coldest are evicted"),
	K("table", "history_size", T_U64, history_size, "4096", 16, 1 << 20, NULL,
	  "decisions kept for hotbridge history/explain, half promotions, half refusals (64 bytes each, allocated at start)"),
	K("table", "decay", T_DOUBLE, decay, "0.8", 0.001, 1, NULL, "heat multiplier per cycle"),
	K("policy", "threshold", T_DOUBLE, threshold, "8", 0, 1e18, NULL,
	  "heat a page needs to be promoted; heat 0 (no access) never is"),
	K("policy", "top_k", T_U64, top_k, "0", 0, 1 << 24, NULL,
	  "promotions per cycle at most; 0 = no limit (rate_mbps and burst_mb bound promotion)"),
	K("policy", "hysteresis_ms", T_U64, hysteresis_ms, "60000", 0, 86400000, NULL,
	  "a page promoted or refused is not retried for this long"),
	K("policy", "min_epochs", T_U64, min_epochs, "1", 1, 255, NULL,
	  "cycles (interval_ms) a page must be reported hot in, each a distinct one, before it is promoted: a page a one-pass scan touched once is held (too_few_epochs in explain and history) until it is reported again; the count starts again once its heat decayed to nothing. 1 = the first report suffices. With a CHMU source whose epoch_ms is at least interval_ms, a cycle holds at most one of its epochs; a shorter epoch makes the rule stricter (two epochs a cycle apart)"),
	K("policy", "rate_mbps", T_DOUBLE, rate_mbps, "256", 0, 1e6, NULL,
	  "promotion rate limit per target node in MB/s; 0 = none"),
	K("policy", "burst_mb", T_DOUBLE, burst_mb, "0", 0, 1e6, NULL,
	  "token bucket depth per target node in MB; 0 = one interval_ms of rate_mbps (at least one second's). The bucket must hold one page"),
	K("policy", "watermark_mb", T_U64, watermark_mb, "1024", 0, 1 << 30, NULL,
	  "stop promoting to a node with less free memory than this"),
	K("policy", "target_node", T_I64, target_node, "-1", -1, 63, NULL,
	  "DRAM node to promote to; -1 = the nearest node with CPUs"),
	K("policy", "source_nodes", T_STR, source_nodes, "", 0, 0, NULL,
	  "CXL nodes to promote from, e.g. 2,3; empty = the topology's CXL nodes"),
	K("demote", "enabled", T_BOOL, demote_enabled, "false", 0, 0, NULL,
	  "demote the coldest pages of a DRAM node when it runs short: on the emulated host those hotbridge promoted, on a live host its idle pages (idle page tracking; or, without it and with backend damon, DAMON's coldness: pages of regions DAMON found unaccessed)"),
	K("demote", "room_mb", T_U64, demote_room_mb, "256", 0, 1 << 30, NULL,
	  "demote from a DRAM node while its free memory is below watermark_mb plus this"),
	K("demote", "rate_pages", T_U64, demote_rate_pages, "16384", 0, 1ULL << 32, NULL,
	  "demotions per DRAM node per second at most (its own token bucket, one second deep); 0 = no limit"),
	K("demote", "cxl_floor_mb", T_U64, demote_cxl_floor_mb, "1024", 0, 1 << 30, NULL,
	  "never demote onto a CXL node with less free memory than this"),
	K("demote", "cxl_node", T_I64, demote_cxl_node, "-1", -1, 63, NULL,
	  "the one CXL node demoted pages go to (a source node); -1 = the node each page was promoted from"),
	K("demote", "cold_cycles", T_U64, demote_cold_cycles, "2", 1, 65535, NULL,
	  "cycles in a row a page must be found idle (not accessed) before it may be demoted"),
	K("demote", "scan_mb", T_U64, demote_scan_mb, "1024", 1, 1 << 30, NULL,
	  "live hosts: MiB of each DRAM node whose page frames a cycle takes a census of (idle tracking covers what it found)"),
	K("demote", "idle_cpu_pct", T_U64, demote_idle_cpu_pct, "10", 1, 100, NULL,
	  "live hosts with idle page tracking: the share of one CPU its checks may take (rounds over the tracked frames on a thread of their own, the next one after a pause that keeps this share)"),
	K("demote", "track_mb", T_U64, demote_track_mb, "8192", 0, 1 << 30, NULL,
	  "live hosts: MiB of each DRAM node tracked for coldness at a time; a larger node is tracked a sample at a time (every k-th memory block, the next sample every 8 census passes), so a pass costs this much whatever the node's size; 0 = the whole node"),
	K("demote", "step_ms", T_U64, demote_step_ms, "20", 1, 60000, NULL,
	  "live hosts: the time a cycle spends at most on the frame census, in windows of up to 4 MiB a node (the next cycle goes on where it stopped); the census and the idle rounds' answers go 5 ms of the event loop's turn at a time, the idle checks on a thread of their own"),
	K("migrate", "backend", T_ENUM, backend, "auto", 0, 0, "auto|phys|damon|pagemap|dryrun",
	  "auto = phys when the kernel proves it has move_phys_pages, else damon (DAMON paddr with migrate_hot, 6.11+), else pagemap. Owners' memory policies: phys honours a mapping's mbind (or shared) policy on a kernel whose call checks it, never a task's set_mempolicy; pagemap both (numa_maps); damon neither (override_mempolicy)"),
	K("migrate", "syscall_nr", T_I64, syscall_nr, "0", 0, 4095, NULL,
	  "move_phys_pages number; 0 = the kernel's /sys/kernel/mm/move_phys_pages/syscall_nr. A number is called only when that file names it: without the file, or with another number there, phys is unavailable"),
	K("migrate", "rescan_ms", T_U64, rescan_ms, "1000", 0, 3600000, NULL,
	  "pagemap: minimum time between full reverse-map rescans"),
	K("migrate", "damon_takeover", T_BOOL, damon_takeover, "false", 0, 0, NULL,
	  "damon: stop and replace other DAMON sysfs users (damo, another tool) instead of refusing"),
	K("migrate", "damon_state", T_STR, damon_state, "/run/hotbridge/damon-state", 0, 0, NULL,
	  "damon: file naming the kdamond we set up, so a start after a crash recognises it "
	  "(without it, by the mark hotbridge writes into its scheme: watermarks/interval_us); "
	  "checked as metrics_textfile is"),
	K("migrate", "override_mempolicy", T_BOOL, override_mempolicy, "false", 0, 0, NULL,
	  "move a page even when the memory policy of every process mapping it keeps it off "
	  "the target node; off: such pages are refused (status EXDEV, counted as \"policy\") "
	  "by phys (move_phys_pages flag 0x100, on a kernel whose call checks policies: a "
	  "mapping's mbind or shared policy, not a task's set_mempolicy) and pagemap (the "
	  "owner's /proc/PID/numa_maps: mbind and set_mempolicy); damon cannot tell and moves "
	  "them either way; read at start (a reload says a restart is needed)"),
	K("tenant", "allow", T_STR, tenant_allow, "", 0, 0, NULL,
	  "cgroup v2 paths whose pages may be promoted, comma-separated, e.g. /k8s/web,/db-*: a path covers its descendants (pages are charged to leaf cgroups); '*' is fnmatch(3) with FNM_PATHNAME (within one component, never '/'); empty = every cgroup not denied. A path may be as long as the value (1023 characters: a Kubernetes container's, about 190, fits), at most 32 of them. A drop-in or --set that gives the key replaces the whole list, as for any key: to add a path, give the list with it. Needs a cgroup v2 host (/sys/fs/cgroup/cgroup.controllers listing memory) and /proc/kpagecgroup (CONFIG_MEMCG), else run and check-config refuse any tenant rule; so does the emulated host (topology.emulated), whose pages belong to no cgroup of this machine"),
	K("tenant", "deny", T_STR, tenant_deny, "", 0, 0, NULL,
	  "cgroup v2 paths whose pages are never promoted, as allow; deny wins over allow. With the damon backend the cgroups they cover also go to the kernel as DAMOS memcg filters, so DAMON never moves their pages even inside a committed range (kernel/docs/migrators.md)"),
	K("tenant", "budget_mb", T_STR, tenant_budget_mb, "", 0, 0, NULL,
	  "DRAM budgets for pages hotbridge promoted, PATTERN=MIB comma-separated, e.g. /k8s/batch=512: a page counts to the first pattern matching its cgroup (the cgroups one pattern matches share its budget; a pattern an earlier one covers, as /k8s/batch after /k8s, never counts a page, and run and check-config warn of it); a promotion that would pass it is refused (tenant_at_budget); a budget already passed (after a reload lowered it) refuses new promotions, and with demote.enabled the tenant's pages go back to the CXL node, coldest first (hot ones too), as many as it is over, whether or not the DRAM node needs room, before any other page, at demote.rate_pages and never within hysteresis_ms of their promotion (on a live host: the cgroup's pages on DRAM, which the daemon cannot tell from those it promoted)"),
	K("tenant", "no_cgroup", T_ENUM, tenant_no_cgroup, "allow", 0, 0, "allow|deny",
	  "pages charged to no memory cgroup (kpagecgroup inode 0: kernel memory, page cache charged to none): allow promotes them under the other rules, deny never"),
	K("topology", "snapshot", T_STR, topology, "", 0, 0, NULL,
	  "a saved `cxl list` JSON file; empty = live through libcxl"),
	K("topology", "cedt", T_STR, cedt, "", 0, 0, NULL,
	  "ACPI CEDT image for XOR windows; empty = /sys/firmware/acpi/tables/CEDT when readable"),
	K("topology", "emulated", T_BOOL, emulated, "false", 0, 0, NULL,
	  "use the built-in emulated CXL host (hotbridge demo's) instead of this machine's"),
};

_Static_assert(HB_ARRAY_SIZE(keys) <= HB_CONF_MAX_KEYS, "raise HB_CONF_MAX_KEYS");

size_t hb_conf_key_index(const struct hb_conf_key *k)
{
	return (size_t)(k - keys);
}

const struct hb_conf_key *hb_conf_key_find(const char *section, const char *name)
{
	for (size_t i = 0; i < HB_ARRAY_SIZE(keys); i++)
		if (!strcmp(keys[i].section, section) && !strcmp(keys[i].name, name))
			return &keys[i];
	return NULL;
}

/* "'V' is not a number: REASON; " when r refused v, else "" */
static const char *number_why(char *buf, size_t size, const char *v, int r,
			      const char *(*why)(const char *, int))
{
	if (r >= 0)
		return "";
	snprintf(buf, size, "'%.32s%s' %s; ", v, strlen(v) > 32 ? "..." : "", why(v, r));
	return buf;
}

int hb_conf_key_set(struct hb_config *c, const struct hb_conf_key *k, const char *v, char *why,
		    size_t why_size)
{
	void *p = (char *)c + k->off;

	switch (k->type) {
	case T_U64: {
		char said[128];
		uint64_t x;
		int r = hb_parse_u64(v, &x);

		/* util.h's one number grammar, and its reason, as on the command line */
		if (r < 0 || (double)x < k->min || (double)x > k->max) {
			snprintf(why, why_size,
				 "%s.%s=%s: %swant an integer in %.0f..%.0f (decimal or 0x hex)",
				 k->section, k->name, v,
				 number_why(said, sizeof(said), v, r, hb_parse_u64_why), k->min,
				 k->max);
			return -EINVAL;
		}
		*(uint64_t *)p = x;
		return 0;
	}
	case T_I64: {
		char said[128];
		int64_t x;
		int r = hb_parse_i64(v, &x);

		if (r < 0 || (double)x < k->min || (double)x > k->max) {
			snprintf(why, why_size,
				 "%s.%s=%s: %swant an integer in %.0f..%.0f (decimal or 0x hex)",
				 k->section, k->name, v,
				 number_why(said, sizeof(said), v, r, hb_parse_i64_why), k->min,
				 k->max);
			return -EINVAL;
		}
		*(int64_t *)p = x;
		return 0;
	}
	case T_DOUBLE: {
		char said[128];
		double x;
		int r = hb_parse_double(v, &x);

		/* as for integers: a sign only where the key takes negatives, so never -0 */
		if (r == 0 && *v == '-' && k->min >= 0)
			r = -EDOM;
		if (r < 0 || !(x >= k->min && x <= k->max)) {
			snprintf(why, why_size,
				 "%s.%s=%s: %swant a decimal number in %g..%g (no "
				 "leading zero: 0.5, not 00.5 or 010)",
				 k->section, k->name, v,
				 number_why(said, sizeof(said), v, r, hb_parse_double_why), k->min,
				 k->max);
			return -EINVAL;
		}
		*(double *)p = x == 0 ? 0.0 : x; /* -0 is 0 */
		return 0;
	}
	case T_BOOL:
		if (hb_parse_bool(v, (bool *)p) < 0) {
			snprintf(why, why_size, "%s.%s=%s: " HB_BOOL_WANT, k->section, k->name, v);
			return -EINVAL;
		}
		return 0;
	case T_ENUM: {
		size_t len = strlen(v);
		const char *s = k->choices;
		bool ok = false;

		while (s && *s && !ok) {
			const char *bar = strchr(s, '|');
			size_t l = bar ? (size_t)(bar - s) : strlen(s);

			ok = l == len && !strncmp(s, v, l);
			s = bar ? bar + 1 : NULL;
		}
		if (!ok) {
			snprintf(why, why_size, "%s.%s=%s: want one of %s", k->section, k->name, v,
				 k->choices);
			return -EINVAL;
		}
	}
		/* fall through */
	case T_STR:
		if (strlen(v) >= k->size) {
			snprintf(why, why_size, "%s.%s: longer than %zu characters", k->section,
				 k->name, k->size - 1);
			return -EINVAL;
		}
		memcpy(p, v, strlen(v) + 1);
		return 0;
	}
	return -EINVAL;
}

void hb_config_defaults(struct hb_config *c)
{
	char why[256];

	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < HB_ARRAY_SIZE(keys); i++)
		(void)hb_conf_key_set(c, &keys[i], keys[i].def, why, sizeof(why));
}

const char *hb_conf_key_case_hint(const char *section, const char *name, char *buf, size_t size)
{
	for (size_t i = 0; i < HB_ARRAY_SIZE(keys); i++)
		if (!strcasecmp(keys[i].section, section) && !strcasecmp(keys[i].name, name)) {
			snprintf(buf, size, "%s.%s", keys[i].section, keys[i].name);
			return buf;
		}
	return NULL;
}

int hb_config_err_where(const struct hb_config *c, struct hb_err *err, int r)
{
	char msg[HB_ERR_MSG_MAX];

	if (r >= 0 || !err || !err->code)
		return r;
	for (size_t i = 0; i < HB_ARRAY_SIZE(keys); i++) {
		size_t ls = strlen(keys[i].section), ln = strlen(keys[i].name);
		const char *m = err->msg;

		if (strncmp(m, keys[i].section, ls) || m[ls] != '.' ||
		    strncmp(m + ls + 1, keys[i].name, ln) || !strchr("=: ", m[ls + 1 + ln]))
			continue;
		if (!c->key_where[i][0])
			return r;
		snprintf(msg, sizeof(msg), "%s", err->msg);
		return hb_err_set(err, r, "%s: %s", c->key_where[i], msg);
	}
	return r;
}

bool hb_conf_section_known(const char *section)
{
	bool known_section = false;

	for (size_t i = 0; i < HB_ARRAY_SIZE(keys); i++)
		known_section |= !strcmp(keys[i].section, section);
	return known_section;
}

static bool source_equal(const struct hb_source_config *a, const struct hb_source_config *b)
{
	if (strcmp(a->name, b->name) || strcmp(a->type, b->type) || strcmp(a->memdev, b->memdev) ||
	    strcmp(a->pci, b->pci) || a->nparams != b->nparams)
		return false;
	for (size_t k = 0; k < a->nparams; k++)
		if (strcmp(a->params[k], b->params[k]))
			return false;
	return true;
}

void hb_config_diff(const struct hb_config *a, const struct hb_config *b,
		    void (*changed)(void *ud, const char *section, const char *key), void *ud)
{
	bool sources = a->nsources != b->nsources;

	for (size_t i = 0; i < HB_ARRAY_SIZE(keys); i++) {
		const struct hb_conf_key *k = &keys[i];
		const char *pa = (const char *)a + k->off, *pb = (const char *)b + k->off;
		bool differ;

		switch (k->type) {
		case T_DOUBLE: differ = *(const double *)pa != *(const double *)pb; break;
		case T_STR:
		case T_ENUM: differ = strcmp(pa, pb) != 0; break;
		default: differ = memcmp(pa, pb, k->size) != 0; break;
		}
		if (differ)
			changed(ud, k->section, k->name);
	}
	for (size_t i = 0; !sources && i < a->nsources; i++)
		sources = !source_equal(&a->sources[i], &b->sources[i]);
	if (sources)
		changed(ud, "source", NULL);
}

/* "# text", wrapped at 78 columns */
static void comment(FILE *f, const char *text)
{
	while (*text) {
		size_t len = strlen(text), cut = len;

		if (len > 76) {
			for (cut = 76; cut > 0 && text[cut] != ' '; cut--)
				;
			if (!cut)
				cut = 76;
		}
		fprintf(f, "# %.*s\n", (int)cut, text);
		text += cut;
		while (*text == ' ')
			text++;
	}
}

/* "; FILE:LINE", "; --set" or "; default": an inline comment inih skips */
static void where(FILE *f, const char *w)
{
	fprintf(f, "   ; %s\n", w[0] ? w : "default");
}

void hb_config_write(const struct hb_config *c, FILE *f)
{
	const char *section = "";

	for (size_t i = 0; i < HB_ARRAY_SIZE(keys); i++) {
		const struct hb_conf_key *k = &keys[i];
		const void *p = (const char *)c + k->off;

		if (strcmp(section, k->section))
			fprintf(f, "%s[%s]\n", i ? "\n" : "", section = k->section);
		{
			/* as long as the help is: none is cut (budget_mb's passed 511) */
			size_t size = strlen(k->help) + strlen(k->def) + sizeof(" (default )");
			char *text = malloc(size);

			if (text) {
				snprintf(text, size, "%s (default %s)", k->help, k->def);
				comment(f, text);
			} else {
				comment(f, k->help);
			}
			free(text);
		}
		fprintf(f, "%s = ", k->name);
		switch (k->type) {
		case T_U64: fprintf(f, "%llu", (unsigned long long)*(const uint64_t *)p); break;
		case T_I64: fprintf(f, "%lld", (long long)*(const int64_t *)p); break;
		case T_DOUBLE: {
			double x = *(const double *)p;
			char buf[40];

			/* the shortest that reads back as the same number */
			for (int prec = 6; prec <= 17; prec++) {
				snprintf(buf, sizeof(buf), "%.*g", prec, x);
				if (strtod(buf, NULL) == x)
					break;
			}
			fputs(buf, f);
			break;
		}
		case T_BOOL: fputs(*(const bool *)p ? "true" : "false", f); break;
		case T_STR:
		case T_ENUM: fputs((const char *)p, f); break;
		}
		where(f, c->key_where[i]);
	}
	for (size_t i = 0; i < c->nsources; i++) {
		const struct hb_source_config *s = &c->sources[i];

		fprintf(f, "\n[source %s]\ntype = %s", s->name, s->type);
		where(f, s->fixed_where[0]);
		if (s->memdev[0]) {
			fprintf(f, "memdev = %s", s->memdev);
			where(f, s->fixed_where[1]);
		}
		if (s->pci[0]) {
			fprintf(f, "pci = %s", s->pci);
			where(f, s->fixed_where[2]);
		}
		for (size_t k = 0; k < s->nparams; k++) {
			const char *eq = strchr(s->params[k], '=');

			fprintf(f, "%.*s = %s", (int)(eq - s->params[k]), s->params[k], eq + 1);
			where(f, s->param_where[k] ? s->param_where[k] : "");
		}
	}
}

static void roff(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else
			fputc(*s, f);
	}
}

void hb_config_write_man(FILE *f)
{
	const char *section = "";

	fputs(".TH HOTBRIDGE.CONF 5 \"\" \"hotbridge " HB_VERSION "\" \"File formats\"\n"
	      ".SH NAME\nhotbridge.conf \\- configuration of the hotbridge daemon\n"
	      ".SH SYNOPSIS\n",
	      f);
	roff(f, HB_CONFIG_DEFAULT ", " HB_CONFIG_DEFAULT ".d/*.conf");
	fputs("\n.SH DESCRIPTION\nINI files read by \\fBhotbridge run\\fR and "
	      "\\fBhotbridge check\\-config\\fR: the main file, then the drop\\-ins in lexical "
	      "order, then \\fB\\-\\-set\\fR \\fISECTION.KEY=VALUE\\fR options. An unknown key or "
	      "a value out of range is an error naming the file and line. Every file, and "
	      "the drop\\-in directory, must be owned by root or by the user running hotbridge "
	      "(under systemd both are root), not be a symlink, and not be group\\- or "
	      "world\\-writable, as plugins; the main file's directory must not be group\\- or "
	      "world\\-writable either, sticky (like /tmp) or not. "
	      "A running daemon keeps its configuration when a reload fails.\n"
	      ".PP\nPrecedence: within one file, each key and each \\fB[source \\fINAME\\fB]\\fR "
	      "section may appear once; a second one is an error naming both lines. A later "
	      "file overrides an earlier one key by key: a drop\\-in may set a key of the main "
	      "file again, and its \\fB[source \\fINAME\\fB]\\fR replaces the keys it gives of the "
	      "main file's section of that name and adds the others. \\fB\\-\\-set\\fR overrides "
	      "every file, each key given once (a key given twice is an error naming both); \\fB\\-\\-set source.\\fINAME\\fB.\\fIKEY\\fB=\\fIVALUE\\fR sets one "
	      "parameter (or \\fBtype\\fR, \\fBmemdev\\fR, \\fBpci\\fR) of a configured source; "
	      "a NAME no file configures is an error. \\fBhotbridge check\\-config\\fR prints after "
	      "each value where it was set (\\fB; \\fIFILE\\fB:\\fILINE\\fR, \\fB; \\-\\-set\\fR or "
	      "\\fB; default\\fR).\n"
	      ".PP\nAn \\fIinteger\\fR is decimal or hexadecimal with \\fB0x\\fR, never octal: "
	      "a decimal with a leading zero (\\fB010\\fR) is refused. A \\fInumber\\fR is "
	      "decimal with an optional fraction and exponent (\\fB0.5\\fR, \\fB12\\fR, "
	      "\\fB1e3\\fR); a leading zero before more digits (\\fB010\\fR, \\fB00.5\\fR), hex, "
	      "inf and nan are refused.\n"
	      ".PP\n\\fB[source \\fINAME\\fB]\\fR sections open hotness sources: "
	      "\\fBtype\\fR (a built\\-in: chmu, emul\\-chmu, replay, cxl\\-events, cxl\\-hmu; "
	      "or a plugin's name), \\fBmemdev\\fR, "
	      "\\fBpci\\fR; every other key is passed to the source as a parameter "
	      "(see \\fBhotbridge list\\fR and the sources' documentation), except "
	      "\\fBisolate\\fR: a vendor plugin's source runs in a process of its own, "
	      "\\fBhotbridge\\-plugin\\-host\\fR (confined: rlimits, no capabilities but "
	      "file and register access, no new privileges, a seccomp filter), restarted "
	      "with a back\\-off of 1 s doubling to 60 s when it crashes, hangs or reaches "
	      "\\fBplugin_memory_limit\\fR, each failure named in \\fBhotbridge status\\fR; "
	      "\\fBisolate = no\\fR runs it in the daemon instead (for debugging: a crash "
	      "there takes the daemon down). Built\\-in sources always run in the daemon. Section and key "
	      "names are case\\-sensitive, lowercase as written here (\\fBType\\fR is an unknown "
	      "key); a \\fB[source \\fINAME\\fB]\\fR section without keys, or a section not "
	      "named here, is an error. A line may be up to 65536 characters long. The start\\-up checks "
	      "(\\fBhotbridge check\\-config\\fR too) check each built\\-in's parameters and the "
	      "files they name without opening the device; a source that cannot run on this "
	      "host (no tracefs) is a warning, and \\fBrun\\fR goes on without it.\n",
	      f);
	for (size_t i = 0; i < HB_ARRAY_SIZE(keys); i++) {
		const struct hb_conf_key *k = &keys[i];

		if (strcmp(section, k->section)) {
			section = k->section;
			fprintf(f, ".SH [%s]\n", section);
		}
		fprintf(f, ".TP\n\\fB%s\\fR = ", k->name);
		switch (k->type) {
		case T_U64:
		case T_I64: fprintf(f, "\\fIinteger\\fR (%.0f..%.0f)", k->min, k->max); break;
		case T_DOUBLE: fprintf(f, "\\fInumber\\fR (%g..%g)", k->min, k->max); break;
		case T_BOOL:
			fputs("\\fBtrue\\fR|\\fBfalse\\fR (or \\fByes\\fR|\\fBno\\fR, "
			      "\\fB1\\fR|\\fB0\\fR; any case)",
			      f);
			break;
		case T_STR: fprintf(f, "\\fIstring\\fR (up to %zu characters)", k->size - 1); break;
		case T_ENUM: roff(f, k->choices); break;
		}
		fputs("\n", f);
		roff(f, k->help);
		fputs(". Default: ", f);
		roff(f, k->def[0] ? k->def : "(empty)");
		fputs(".\n", f);
	}
	fputs(".SH [source NAME] of type replay\n"
	      "Hotness records from a file, a FIFO or a UNIX socket (the formats: the source "
	      "tree's devices/replay/replay.h).\n"
	      ".TP\n\\fBpath\\fR = \\fIfile or FIFO\\fR, or \\fBsocket\\fR = \\fIpath\\fR\n"
	      "One of them. A file is followed like \\fBtail \\-F\\fR: appended lines are read "
	      "at each poll; a file truncated or rotated (renamed or removed, and made anew) is "
	      "read again from its start. A FIFO is read as it comes; writers may come and go. "
	      "A socket takes up to 64 clients; a 65th takes the place of the one that has "
	      "sent nothing for the longest time (logged; its part of a line counts as bad "
	      "input). Two sources may not read one file, FIFO or "
	      "socket (by any path): its records would count twice.\n"
	      ".TP\n\\fBfrom\\fR = end|start|saved\n"
	      "Where a file is first read at start\\-up: \\fBend\\fR, only lines written from "
	      "now on (a line its writer is in the middle of is read whole); \\fBstart\\fR, "
	      "every line in it; \\fBsaved\\fR, where the last run stopped reading it (its "
	      "device, inode and offset, kept in \\fBstate\\fR at each poll and at the stop: "
	      "a file rotated or truncated since is read from its start; with nothing saved yet, "
	      "from its end). Not for a FIFO or a socket. Records still waiting in the backlog "
	      "at a stop are not read again. Default: end.\n"
	      ".TP\n\\fBstate\\fR = \\fIfile\\fR\n"
	      "\\fBfrom = saved\\fR only: where the offset is kept (by rename), checked as "
	      "\\fBmetrics_textfile\\fR is: its directory must exist and be writable. "
	      "Default: /var/lib/hotbridge/replay\\-\\fINAME\\fR.offset (the unit's "
	      "StateDirectory=, kept across restarts, unlike /run).\n"
	      ".TP\n\\fBsocket_group\\fR = \\fIgroup\\fR, \\fBsocket_mode\\fR = \\fIoctal mode\\fR\n"
	      "\\fBsocket\\fR only, as systemd's SocketGroup= and SocketMode=: the socket's "
	      "group (a name, or a number as every number here: decimal or 0x hex, no leading "
	      "zero) and mode (octal by design, the one number so read: 0660 with a group, "
	      "else 0600). Clients of "
	      "root, of the daemon's user, or whose group or a supplementary group is "
	      "\\fBsocket_group\\fR may feed it; others are refused and logged. The socket's "
	      "directory must let the group in, and the unit must let the daemon write it: "
	      "under ProtectSystem=strict it writes only /run/hotbridge (mode 0700: no group "
	      "gets in), /var/lib/hotbridge and its ReadWritePaths=, so a directory of its "
	      "own is made at boot (tmpfiles.d: \\fBd /run/hotbridge\\-feed 0710 root "
	      "\\fIgroup\\fR) and added in a drop-in (\\fBsystemctl edit hotbridge\\fR: "
	      "\\fBReadWritePaths=/run/hotbridge\\-feed\\fR); check\\-config refuses a "
	      "socket, \\fBstate\\fR or textfile whose directory is not writable, or "
	      "that others can write (as /tmp).\n"
	      ".SH SEE ALSO\n\\fBhotbridge\\fR(8)\n",
	      f);
}
