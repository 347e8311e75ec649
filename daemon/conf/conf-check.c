// SPDX-License-Identifier: MIT
/* The start-up checks shared by `run` and `check-config` (conf-check.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf/conf-check.h"
#include "conf/conf-keys.h"
#include "cycle/cycle.h"
#include "devices.h"
#include "platform/source-nodes.h"

uint64_t hb_config_mem_bytes(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), ps = sysconf(_SC_PAGESIZE);

	return pages > 0 && ps > 0 ? (uint64_t)pages * (uint64_t)ps : 0;
}

int hb_config_check_table(const struct hb_config *c, uint64_t mem_bytes, struct hb_err *err)
{
	uint64_t need = hb_heat_bytes_for(c->max_entries);

	if (mem_bytes && need > mem_bytes)
		return hb_config_err_where(
			c, err,
			hb_err_set(err, -ENOMEM,
				   "table.max_entries=%llu: the hotness table needs "
				   "%.1f GiB (%zu slots of 24 bytes), more than this machine's "
				   "%.1f GiB of memory",
				   (unsigned long long)c->max_entries, (double)need / (1 << 30),
				   hb_heat_slots(c->max_entries), (double)mem_bytes / (1 << 30)));
	return 0;
}

const char *hb_plugin_refusal_why(const char *path, const char *why)
{
	size_t len = strlen(path);

	if (!strncmp(why, path, len) && why[len] == ':' && why[len + 1] == ' ')
		return why + len + 2;
	return why;
}

int hb_plugin_refusal_note(struct hb_plugin_refusal *ret, const char *path, const char *why)
{
	const char *slash = strrchr(path, '/');
	const char *w = hb_plugin_refusal_why(path, why);
	size_t len;

	if (hb_plugin_file_name(slash ? slash + 1 : path, ret->name, sizeof(ret->name)) < 0)
		return -EINVAL;
	snprintf(ret->path, sizeof(ret->path), "%s", path);
	/* "...; refusing" says it twice: the caller says it was refused */
	len = strlen(w);
	if (len > 10 && !strcmp(w + len - 10, "; refusing"))
		len -= 10;
	snprintf(ret->why, sizeof(ret->why), "%.*s", (int)len, w);
	return 0;
}

static int source_nodes(const struct hb_config *c, uint64_t *ret_mask, struct hb_err *err)
{
	const char *s = c->source_nodes;
	uint64_t mask = 0;

	while (*s) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);
		char item[24];
		uint64_t n;
		int r;

		if (len >= sizeof(item))
			len = sizeof(item) - 1;
		memcpy(item, s, len);
		item[len] = '\0';
		r = hb_parse_u64(item, &n);
		if (r < 0 || n >= 64)
			return hb_err_set(err, -EINVAL,
					  "policy.source_nodes=%s: '%s' is not a node number (want "
					  "node numbers 0-63, comma-separated)%s%s",
					  c->source_nodes, item, r < 0 ? ": it " : "",
					  r < 0 ? hb_parse_u64_why(item, r) : "");
		if ((mask >> n) & 1)
			return hb_err_set(err, -EINVAL,
					  "policy.source_nodes=%s: lists node %llu "
					  "twice",
					  c->source_nodes, (unsigned long long)n);
		mask |= 1ULL << n;
		s = comma ? comma + 1 : s + len;
		if (comma && !*s)
			return hb_err_set(err, -EINVAL, "policy.source_nodes=%s: ends with a comma",
					  c->source_nodes);
	}
	*ret_mask = mask;
	return 0;
}

int hb_config_tenant_rules(const struct hb_config *c, struct hb_tenant_rules *ret, struct hb_err *err)
{
	return hb_config_err_where(c, err,
				   hb_tenant_rules_parse(c->tenant_allow, c->tenant_deny,
							 c->tenant_budget_mb, c->tenant_no_cgroup,
							 ret, err));
}

int hb_config_source_nodes(const struct hb_config *c, uint64_t *ret_mask, struct hb_err *err)
{
	return hb_config_err_where(c, err, source_nodes(c, ret_mask, err));
}

int hb_source_memdev(const struct hb_topology *t, const struct hb_source_config *s, char *memdev,
		     size_t size, struct hb_err *err)
{
	const struct hb_memdev *of_pci = NULL;

	snprintf(memdev, size, "%s", s->memdev);
	if (!t)
		return 0;
	for (size_t i = 0; s->pci[0] && i < hb_topology_nr_memdevs(t) && !of_pci; i++)
		if (!strcmp(hb_topology_memdev(t, i)->host, s->pci))
			of_pci = hb_topology_memdev(t, i);
	if (of_pci && s->memdev[0] && strcmp(of_pci->name, s->memdev))
		return hb_err_set(err, -EINVAL,
				  "%s: [source %s]: memdev = %s, but PCI function %s "
				  "is %s",
				  s->where, s->name, s->memdev, s->pci, of_pci->name);
	if (of_pci) {
		snprintf(memdev, size, "%s", of_pci->name);
		return 0;
	}
	if (s->pci[0] && !s->memdev[0])
		return hb_err_set(err, -ENODEV,
				  "%s: [source %s]: PCI function %s is no memdev of the "
				  "CXL topology (no memdev's host); give memdev =",
				  s->where, s->name, s->pci);
	/* a device's own unit submits its records under its memdev: it needs one */
	if (!s->memdev[0] && !strcmp(s->type, "chmu"))
		return hb_err_set(err, -EINVAL,
				  "%s: [source %s]: type chmu names neither memdev = "
				  "nor pci =: its records would name no memdev",
				  s->where, s->name);
	return 0;
}

int hb_source_open_params(const struct hb_topology *t, const struct hb_source_config *s,
			  const char *memdev, const char **params, char *added, size_t added_size,
			  struct hb_err *err)
{
	const struct hb_memdev *md;
	const char *v = NULL;
	uint64_t size, cap;
	size_t n = 0;
	int i;

	for (; n < HB_MAX_SOURCE_PARAMS && s->params[n]; n++) {
		params[n] = s->params[n];
		if (!strncmp(s->params[n], "capacity=", 9))
			v = s->params[n] + 9;
	}
	params[n] = NULL;
	/* the sources of a device's hotlist bound its entries by the memdev's size */
	if ((strcmp(s->type, "emul-chmu") && strcmp(s->type, "chmu") && strcmp(s->type, "cxl-hmu")) ||
	    !memdev[0] || !t || (i = hb_topology_find_memdev(t, memdev)) < 0)
		return 0;
	md = hb_topology_memdev(t, (size_t)i);
	size = md->ram_size + md->pmem_size;
	if (!size)
		return 0;
	if (v) {
		if (hb_dev_param_parse_u64(v, &cap) == 0 && cap > size)
			return hb_err_set(err, -EINVAL,
					  "%s: [source %s]: capacity=%s is larger than "
					  "memdev %s (%llu MiB in the topology)",
					  s->where, s->name, v, memdev,
					  (unsigned long long)(size >> 20));
		return 0; /* the source checks the rest of it */
	}
	snprintf(added, added_size, "capacity=%llu", (unsigned long long)size);
	params[n++] = added;
	params[n] = NULL;
	return 0;
}

int hb_source_isolate(const char *const *params)
{
	int v = 1;

	for (size_t i = 0; params[i]; i++) {
		const char *p = params[i];

		if (strncmp(p, "isolate=", 8))
			continue;
		if (!strcmp(p + 8, "no") || !strcmp(p + 8, "false") || !strcmp(p + 8, "0"))
			v = 0;
		else if (!strcmp(p + 8, "yes") || !strcmp(p + 8, "true") || !strcmp(p + 8, "1"))
			v = 1;
		else
			v = -EINVAL;
	}
	return v;
}

bool hb_config_plugin_in_process(const struct hb_config *c, const char *type)
{
	for (size_t i = 0; i < c->nsources; i++)
		if (!strcmp(c->sources[i].type, type) &&
		    hb_source_isolate((const char *const *)c->sources[i].params) == 0)
			return true;
	return false;
}

static bool plugin_named(const struct hb_plugin_set *set, const char *name)
{
	for (size_t i = 0; set && i < set->n; i++)
		if (!strcmp(set->v[i].name, name))
			return true;
	return false;
}

static int check_source(const struct hb_config *c, const struct hb_source_config *s,
			const char *memdev, const struct hb_config_facts *f, struct hb_err *err)
{
	const char *const *allowed = hb_builtin_params(s->type);
	const char *const *test_only = hb_builtin_test_params(s->type);
	const char *params[HB_MAX_SOURCE_PARAMS + 2];
	char added[48];
	/* what open is given (source-host.c): the memdev and parameters run uses */
	const struct hb_dev_info info = { .size = sizeof(info),
					  .name = s->name,
					  .memdev = memdev[0] ? memdev : NULL,
					  .pci_bdf = s->pci[0] ? s->pci : NULL,
					  .params = params };
	struct hb_err why = { 0 };
	char unavailable[256];
	int r;

	for (size_t i = 0; i < f->nrefused; i++)
		if (!hb_builtin_find(s->type) && !strcmp(f->refused[i].name, s->type))
			return hb_err_set(err, -ENOENT, "%s: [source %s]: plugin %s was refused (%s)",
					  s->where, s->name, s->type, f->refused[i].why);
	if (!hb_builtin_find(s->type) && !plugin_named(f->plugins, s->type))
		return hb_err_set(err, -ENOENT,
				  "%s: [source %s]: no source of type '%s' (neither "
				  "built-in nor a plugin in %s)",
				  s->where, s->name, s->type,
				  c->plugin_dir[0] ? c->plugin_dir : "(no plugin_dir)");
	if (!hb_builtin_find(s->type) && hb_source_isolate((const char *const *)s->params) < 0)
		return hb_err_set(err, -EINVAL, "%s: [source %s]: isolate: want yes or no",
				  s->where, s->name);
	/* a plugin's parameters are its own business: checked when it opens */
	for (size_t k = 0; allowed && k < s->nparams; k++) {
		const char *eq = strchr(s->params[k], '=');
		size_t len = eq ? (size_t)(eq - s->params[k]) : strlen(s->params[k]);
		bool ok = false;
		char list[256] = "";

		for (const char *const *a = allowed; *a && !ok; a++)
			ok = strlen(*a) == len && !strncmp(*a, s->params[k], len);
		if (ok)
			continue;
		for (const char *const *t = test_only; t && *t; t++)
			if (strlen(*t) == len && !strncmp(*t, s->params[k], len))
				return hb_err_set(err, -EINVAL,
						  "%s: [source %s]: %s= is a test-only "
						  "parameter of type %s; the daemon does not take it",
						  s->where, s->name, *t, s->type);
		for (const char *const *a = allowed; *a; a++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 a == allowed ? "" : ", ", *a);
		return hb_err_set(err, -EINVAL,
				  "%s: [source %s]: type %s takes no parameter "
				  "'%.*s' (it takes: %s)",
				  s->where, s->name, s->type, (int)len, s->params[k], list);
	}
	if ((r = hb_source_open_params(f->topology, s, memdev, params, added, sizeof(added), err)) < 0)
		return r;
	/* the built-in's own check, the one its open runs first */
	if (hb_builtin_check(s->type, &info, &why) < 0)
		return hb_err_set(err, why.code, "%s: [source %s]: %s", s->where, s->name, why.msg);
	if (f->warn && hb_builtin_available(s->type, unavailable, sizeof(unavailable)) == 0) {
		char msg[1024];

		snprintf(msg, sizeof(msg),
			 "%s: [source %s]: built-in %s cannot serve '%s' on this "
			 "host: %s; run goes on without it",
			 s->where, s->name, s->type, s->name, unavailable);
		f->warn(f->warn_ud, msg);
	}
	return 0;
}

void hb_topology_warn(const struct hb_topology *t, void (*warn)(void *ud, const char *msg), void *ud)
{
	const struct hb_region *rg;
	size_t cur = 0;
	char msg[HB_ERR_MSG_MAX * 2];

	if (!t)
		return;
	if (!hb_topology_nr_memdevs(t) && !hb_topology_nr_endpoints(t) &&
	    !hb_topology_nr_regions(t) && !hb_topology_nr_roots(t))
		warn(ud, "no CXL memdev, decoder or region in the topology: no record translates "
			 "until one appears");
	while ((rg = hb_topology_next_refused(t, &cur))) {
		snprintf(msg, sizeof(msg),
			 "region %s not translated: %s; its pages are never promoted", rg->name,
			 rg->refused);
		warn(ud, msg);
	}
}

/*
 * A file the daemon writes (key = path): not a directory, by a trailing
 * slash or by what is there now (lstat: a symlink to one is replaced by
 * the rename, not followed).
 */
static int check_file_path(const char *key, const char *path, struct hb_err *err)
{
	size_t len = strlen(path);
	struct stat st;

	if (!len)
		return 0;
	if (path[len - 1] == '/' || (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)))
		return hb_err_set(err, -EINVAL, "%s=%s: names a directory, not a file", key, path);
	return 0;
}

/* the directory the textfile is renamed into must be there */
static int check_textfile(const char *path, struct hb_err *err)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];
	struct stat st;
	int r;

	if (!path[0])
		return 0;
	if ((r = check_file_path("daemon.metrics_textfile", path, err)) < 0)
		return r;
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	if (stat(dir, &st) < 0)
		return hb_err_set(err, -errno, "daemon.metrics_textfile=%s: its directory %s: %s",
				  path, dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return hb_err_set(err, -ENOTDIR,
				  "daemon.metrics_textfile=%s: %s is not a directory", path, dir);
	return 0;
}

/*
 * Two replay sources reading one file, FIFO or socket: a file's records
 * would count twice, a FIFO's be split between them (newuser r4 D12).
 */
static int check_inputs(const struct hb_config *c, struct hb_err *err)
{
	for (size_t i = 0; i < c->nsources; i++) {
		const struct hb_source_config *a = &c->sources[i];
		struct hb_dev_info ia;
		char ka[PATH_MAX + 32];

		hb_source_info(a, &ia);
		if (strcmp(a->type, "replay") || hb_source_replay_input(&ia, ka, sizeof(ka)) < 0)
			continue;
		for (size_t j = 0; j < i; j++) {
			const struct hb_source_config *b = &c->sources[j];
			struct hb_dev_info ib;
			char kb[PATH_MAX + 32];

			hb_source_info(b, &ib);
			if (strcmp(b->type, "replay") ||
			    hb_source_replay_input(&ib, kb, sizeof(kb)) < 0 || strcmp(ka, kb))
				continue;
			return hb_err_set(err, -EINVAL,
					  "%s: [source %s]: reads the same %s as [source %s] "
					  "(%s): a file's records would count twice, a FIFO's "
					  "be split; one source per file, FIFO or socket",
					  a->where, a->name,
					  !strncmp(ka, "socket", 6) ? "socket" : "file or FIFO",
					  b->name, b->where);
		}
	}
	return 0;
}

double hb_config_burst_mb(const struct hb_config *c)
{
	double interval_s = (double)c->interval_ms / 1000;

	return c->burst_mb > 0 ? c->burst_mb : c->rate_mbps * (interval_s > 1 ? interval_s : 1);
}

/*
 * rate_mbps is the promotion limit users set (newuser r4 D7): a cap below
 * it that top_k, the candidates a cycle takes or burst_mb set a cycle of
 * interval_ms is said, with the value that lifts it
 */
static void warn_caps(const struct hb_config *c, const struct hb_config_facts *f, uint64_t page)
{
	double interval_s = (double)c->interval_ms / 1000, rate = c->rate_mbps * 1e6;
	uint64_t pages = c->top_k && c->top_k < MAX_CANDIDATES ? c->top_k : MAX_CANDIDATES;
	char msg[512];

	if (!f->warn || rate <= 0 || interval_s <= 0)
		return;
	if ((double)(pages * page) * (1 + 1e-9) < rate * interval_s) {
		if (pages == c->top_k)
			snprintf(msg, sizeof(msg),
				 "policy.top_k = %llu caps promotion at %.4g MB/s (%llu pages of "
				 "%llu bytes every interval_ms = %llu), below policy.rate_mbps = "
				 "%g: set top_k = 0 (no limit) or at least %.0f",
				 (unsigned long long)c->top_k,
				 (double)(pages * page) / interval_s / 1e6, (unsigned long long)pages,
				 (unsigned long long)page, (unsigned long long)c->interval_ms,
				 c->rate_mbps, rate * interval_s / (double)page + 0.5);
		else
			snprintf(msg, sizeof(msg),
				 "a cycle takes at most %d hot pages: promotion is capped at %.4g "
				 "MB/s at interval_ms = %llu, below policy.rate_mbps = %g; a "
				 "shorter interval_ms lifts it",
				 MAX_CANDIDATES, (double)(pages * page) / interval_s / 1e6,
				 (unsigned long long)c->interval_ms, c->rate_mbps);
		f->warn(f->warn_ud, msg);
	}
	if (c->burst_mb > 0 && c->burst_mb * 1e6 * (1 + 1e-9) < rate * interval_s) {
		snprintf(msg, sizeof(msg),
			 "policy.burst_mb = %g caps promotion at %.4g MB/s (one bucket every "
			 "interval_ms = %llu), below policy.rate_mbps = %g: set burst_mb = 0 "
			 "(one interval_ms of rate_mbps, at least one second's) or at least %g",
			 c->burst_mb, c->burst_mb / interval_s, (unsigned long long)c->interval_ms,
			 c->rate_mbps, c->rate_mbps * interval_s);
		f->warn(f->warn_ud, msg);
	}
}

/*
 * The emulated host knows a page is cold from its emul-chmu sources' ground
 * truth only: with none, no page is ever cold and demotion never fires
 * (newuser r4 D9); run goes on, each short cycle saying not_cold
 */
static void warn_coldness(const struct hb_config *c, const struct hb_config_facts *f)
{
	if (!f->warn || !c->emulated || !c->demote_enabled)
		return;
	for (size_t i = 0; i < c->nsources; i++)
		if (!strcmp(c->sources[i].type, "emul-chmu"))
			return;
	f->warn(f->warn_ud, "demote.enabled = true on the emulated host with no emul-chmu "
			    "source: its coldness comes from their ground truth only, so no page "
			    "is ever cold and nothing is demoted (decisions: not_cold)");
}

/*
 * override_mempolicy acts through phys (flag 0x100) and pagemap (no
 * numa_maps check); damon cannot tell a page's policy either way and a dry
 * run moves nothing, so the key changes nothing there
 */
static void warn_mempolicy(const struct hb_config *c, const struct hb_config_facts *f)
{
	if (!c->override_mempolicy || !f->warn)
		return;
	if (!strcmp(c->backend, "damon"))
		f->warn(f->warn_ud, "migrate.override_mempolicy = true with backend = damon: DAMON "
				    "moves pages whatever their memory policy, with or without it, "
				    "ignoring");
	else if (c->dry_run || !strcmp(c->backend, "dryrun"))
		f->warn(f->warn_ud, "migrate.override_mempolicy = true in a dry run: nothing is "
				    "moved, ignoring");
}

void hb_config_warn_limits(const struct hb_config *c, const struct hb_config_facts *f)
{
	warn_caps(c, f, f->page_size ? f->page_size : 4096);
	warn_coldness(c, f);
	warn_mempolicy(c, f);
}

int hb_config_check_control_socket(const struct hb_config *c, bool running, struct hb_err *err)
{
	const char *path = c->control_socket;
	struct hb_err why = { 0 };

	if (!path[0])
		return running ? hb_err_set(err, -EINVAL,
					    "daemon.control_socket is empty: run needs its control "
					    "socket, and the <control_socket>.lock that keeps a "
					    "second daemon out (empty is for run --once only)") :
				 0;
	if (path[0] != '/')
		return hb_err_set(err, -EINVAL, "daemon.control_socket=%s: not an absolute path",
				  path);
	if (hb_trust_parent(path, HB_TRUST_ROOT, geteuid(), &why) < 0 && why.code != -ENOENT)
		return hb_err_set(err, why.code,
				  "daemon.control_socket=%s: %s (the socket and its lock, as "
				  "configuration files, only where others cannot write)",
				  path, why.msg);
	return 0;
}

static int config_check(const struct hb_config *c, const struct hb_config_facts *f, struct hb_err *err)
{
	uint64_t mask, cxl, page = f->page_size ? f->page_size : 4096;
	double depth = hb_config_burst_mb(c);
	int r;

	if (!c->nsources)
		return hb_err_set(err, -EINVAL, "no [source NAME] section: nothing to listen to");
	if (c->emulated && !c->dry_run && strcmp(c->backend, "dryrun") && !f->migrator_given)
		return hb_err_set(err, -EPERM,
				  "[topology] emulated = true: the emulated host's "
				  "addresses are not this machine's memory, so it runs with the "
				  "dry-run migrator only (--dry-run, [daemon] dry_run = true or "
				  "[migrate] backend = dryrun)");
	/* the emulated host has its own topology: a saved one would be ignored */
	if (c->emulated && (c->topology[0] || c->cedt[0]))
		return hb_err_set(err, -EINVAL,
				  "[topology] emulated = true and %s = %s: the "
				  "emulated host has a topology of its own and would ignore it; "
				  "set one of them",
				  c->topology[0] ? "snapshot" : "cedt",
				  c->topology[0] ? c->topology : c->cedt);
	if ((r = hb_config_check_table(c, f->mem_bytes, err)) < 0)
		return r;
	if ((r = check_textfile(c->metrics_textfile, err)) < 0 ||
	    (r = check_file_path("migrate.damon_state", c->damon_state, err)) < 0 ||
	    (r = check_file_path("daemon.pause_state", c->pause_state, err)) < 0)
		return r;
	if (c->pause_state[0] && c->pause_state[0] != '/')
		return hb_err_set(err, -EINVAL, "daemon.pause_state=%s: not an absolute path",
				  c->pause_state);
	if ((r = hb_config_check_control_socket(c, false, err)) < 0 ||
	    (r = hb_config_check_paths(c, f->config_path, err)) < 0)
		return r;
	if (!c->control_socket[0] && f->warn)
		f->warn(f->warn_ud, "daemon.control_socket is empty: run refuses it, "
				    "only run --once goes without one");
	r = hb_config_source_nodes(c, &mask, err);
	if (r < 0)
		return r;
	{
		struct hb_tenant_rules *tr = malloc(sizeof(*tr));

		if (!tr)
			return hb_err_set(err, -ENOMEM, "out of memory");
		r = hb_tenant_rules_parse(c->tenant_allow, c->tenant_deny, c->tenant_budget_mb,
					  c->tenant_no_cgroup, tr, err);
		/* run says it too (tenant-step.c), in these words */
		for (size_t b = 0; r == 0 && f->warn && b < tr->nbudget; b++) {
			int by = hb_tenant_budget_shadowed_by(tr, (int)b);
			char msg[3 * HB_TENANT_PATTERN_MAX];

			if (by < 0)
				continue;
			hb_tenant_shadow_describe(tr, (int)b, by, msg, sizeof(msg));
			f->warn(f->warn_ud, msg);
		}
		free(tr);
		if (r < 0)
			return r;
	}
	/* the one source-node rule (source-nodes.h), as for the topology's nodes */
	if (mask && f->nodes) {
		struct hb_source_facts sf = { .nodes = f->nodes,
					      .window_nodes = f->window_nodes,
					      .windows_why = f->windows_why };

		r = hb_source_nodes_check(mask, "policy.source_nodes", c->source_nodes, &sf, err);
		if (r < 0)
			return r;
	}
	/* the bucket must hold one page, or nothing is ever promoted */
	if (c->rate_mbps > 0 && depth * 1e6 < (double)page)
		return hb_err_set(err, -EINVAL,
				  "policy.%s=%g: the token bucket (%g bytes%s) is "
				  "smaller than one page (%llu bytes): nothing would be promoted",
				  c->burst_mb > 0 ? "burst_mb" : "rate_mbps", depth, depth * 1e6,
				  c->burst_mb > 0 ? "" :
						    "; burst_mb = 0: one second of rate_mbps, or "
						    "interval_ms when longer",
				  (unsigned long long)page);
	for (size_t i = 0; i < c->nsources; i++) {
		char memdev[sizeof(c->sources[i].memdev)];

		if ((r = hb_source_memdev(f->topology, &c->sources[i], memdev, sizeof(memdev), err)) <
			    0 ||
		    (r = check_source(c, &c->sources[i], memdev, f, err)) < 0)
			return r;
	}
	if ((r = check_inputs(c, err)) < 0)
		return r;
	cxl = mask ? mask : f->cxl_nodes;
	if (c->target_node >= 0) {
		int t = (int)c->target_node;

		if (f->nodes && (t >= HB_MAX_NODES || !f->nodes[t].present))
			return hb_err_set(err, -ENOENT,
					  "policy.target_node=%d: no such NUMA node "
					  "on this host",
					  t);
		if (t < 64 && (cxl >> t) & 1)
			return hb_err_set(err, -EINVAL,
					  "policy.target_node=%d: a CXL node (one "
					  "promoted from), not DRAM",
					  t);
	}
	/* demotion goes to one CXL node only: a source node, never DRAM */
	if (c->demote_enabled && c->demote_cxl_node >= 0 && cxl &&
	    !((cxl >> c->demote_cxl_node) & 1)) {
		char set[HB_NODE_SET_MAX];

		return hb_err_set(err, -EINVAL,
				  "demote.cxl_node=%lld: not a CXL node promoted from "
				  "(the source nodes are %s)",
				  (long long)c->demote_cxl_node,
				  hb_node_set_format(cxl, set, sizeof(set)));
	}
	hb_config_warn_limits(c, f);
	return 0;
}

int hb_config_check(const struct hb_config *c, const struct hb_config_facts *f, struct hb_err *err)
{
	/* an error about one key names where it was set (file:line or --set) */
	return hb_config_err_where(c, err, config_check(c, f, err));
}
