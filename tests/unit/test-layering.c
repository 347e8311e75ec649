// SPDX-License-Identifier: MIT
/*
 * The layering: translate/, devices/ and kernel/ sit on daemon/util and on
 * nothing else of daemon/. Every #include of their .c and .h files is read
 * and refused when it reaches daemon/ outside util/:
 *  - "daemon/X" or <daemon/X>, X not below util/;
 *  - "core/X" and the like: a path whose first part is a daemon/ subfolder
 *    other than util/;
 *  - "../daemon/X" (any path with ..) landing in daemon/ outside util/;
 *  - a flat "X.h" that is not the folder's own but a daemon/ header,
 *    util's included: those are written "util/X.h".
 * And daemon/ includes of translate/, devices/ and kernel/ only their
 * public headers (translate.h; devices.h and hb-device.h; kernel.h): a
 * name that is a file below one of those folders, any other, is refused.
 * The real tree must be clean; tests/data/layering/bad must give exactly
 * the violations planted in it (so the scanner can fail).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#define MAX_FOUND 64
#define BUF (2 * PATH_MAX) /* a path joined to a name: no truncation warnings */

static const char *const layers[] = { "translate", "devices", "kernel" };

struct scan {
	const char *root;  /* the source tree */
	const char *layer; /* the folder being scanned */
	char found[MAX_FOUND][PATH_MAX + 128];
	size_t nfound;
};

static void report(struct scan *s, const char *file, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void report(struct scan *s, const char *file, unsigned line, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (s->nfound < MAX_FOUND)
		snprintf(s->found[s->nfound], sizeof(s->found[0]), "%s:%u: %s",
			 file + strlen(s->root) + 1, line, msg);
	s->nfound++;
}

static bool is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* a file called name somewhere below dir (skipping skip, a path below dir) */
static bool find_below(const char *dir, const char *name, const char *skip)
{
	char path[BUF];
	struct dirent *e;
	bool hit = false;
	DIR *d;

	if (skip && !strcmp(dir, skip))
		return false;
	d = opendir(dir);
	if (!d)
		return false;
	while (!hit && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (is_dir(path))
			hit = find_below(path, name, skip);
		else
			hit = !strcmp(e->d_name, name);
	}
	closedir(d);
	return hit;
}

/* "a/b/../c" -> "a/c", in place; leading "/" kept */
static void normalize(char *p)
{
	char *parts[PATH_MAX / 2], *save = NULL, *tok, out[PATH_MAX];
	bool abs = p[0] == '/';
	size_t n = 0, len = 0;

	for (tok = strtok_r(p, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (!strcmp(tok, "."))
			continue;
		if (!strcmp(tok, "..")) {
			if (n)
				n--;
			continue;
		}
		parts[n++] = tok;
	}
	out[0] = '\0';
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%s", abs || i ? "/" : "",
					parts[i]);
	strcpy(p, out);
}

static void check_include(struct scan *s, const char *file, unsigned line, const char *name)
{
	char daemon[PATH_MAX], util[PATH_MAX], path[BUF], first[NAME_MAX + 1];
	const char *slash = strchr(name, '/');
	char *dir;

	snprintf(daemon, sizeof(daemon), "%s/daemon", s->root);
	snprintf(util, sizeof(util), "%s/daemon/util", s->root);
	if (strstr(name, "..")) {
		snprintf(path, sizeof(path), "%s", file);
		dir = strrchr(path, '/');
		snprintf(dir + 1, sizeof(path) - (size_t)(dir + 1 - path), "%s", name);
		normalize(path);
		if (!strncmp(path, daemon, strlen(daemon)) && path[strlen(daemon)] == '/' &&
		    strncmp(path, util, strlen(util)))
			report(s, file, line,
			       "\"%s\" reaches into daemon/ (only daemon/util is "
			       "below %s/)",
			       name, s->layer);
		return;
	}
	if (!strncmp(name, "daemon/", 7)) {
		if (strncmp(name, "daemon/util/", 12))
			report(s, file, line, "\"%s\": %s/ may include only daemon/util of daemon/",
			       name, s->layer);
		return;
	}
	if (slash) {
		snprintf(first, sizeof(first), "%.*s", (int)(slash - name), name);
		snprintf(path, sizeof(path), "%s/%s", daemon, first);
		if (strcmp(first, "util") && is_dir(path))
			report(s, file, line, "\"%s\" is daemon/%s: %s/ may include only daemon/util",
			       name, name, s->layer);
		return;
	}
	/* flat: the file's own directory, then its folder, then daemon/ */
	snprintf(path, sizeof(path), "%s", file);
	dir = strrchr(path, '/');
	snprintf(dir + 1, sizeof(path) - (size_t)(dir + 1 - path), "%s", name);
	if (is_file(path))
		return;
	snprintf(path, sizeof(path), "%s/%s", s->root, s->layer);
	if (find_below(path, name, NULL))
		return;
	if (find_below(util, name, NULL))
		report(s, file, line, "\"%s\" by its flat name: write \"util/%s\"", name, name);
	else if (find_below(daemon, name, util))
		report(s, file, line, "\"%s\" is a daemon/ header: %s/ may include only daemon/util",
		       name, s->layer);
}

/* daemon/: only the public headers of translate/, devices/ and kernel/ */
static void check_public(struct scan *s, const char *file, unsigned line, const char *name)
{
	static const struct {
		const char *folder;
		const char *public[3];
	} pub[] = {
		{ "translate", { "translate.h" } },
		{ "devices", { "devices.h", "hb-device.h" } },
		{ "kernel", { "kernel.h" } },
	};
	char path[BUF], *dir;

	snprintf(path, sizeof(path), "%s", file);
	dir = strrchr(path, '/');
	snprintf(dir + 1, sizeof(path) - (size_t)(dir + 1 - path), "%s", name);
	if (is_file(path))
		return; /* beside the including file: daemon/'s own */
	for (size_t i = 0; i < sizeof(pub) / sizeof(pub[0]); i++) {
		bool ok = false;

		snprintf(path, sizeof(path), "%s/%s/%s", s->root, pub[i].folder, name);
		if (!is_file(path))
			continue;
		for (size_t k = 0; k < 3 && pub[i].public[k]; k++)
			ok |= !strcmp(name, pub[i].public[k]);
		if (!ok)
			report(s, file, line,
			       "\"%s\" is private to %s/: daemon/ includes only its "
			       "public header%s",
			       name, pub[i].folder, pub[i].public[1] ? "s" : "");
	}
}

static void scan_file(struct scan *s, const char *file)
{
	char buf[1024], name[PATH_MAX];
	unsigned line = 0;
	FILE *f = fopen(file, "re");

	assert_non_null(f);
	while (fgets(buf, sizeof(buf), f)) {
		const char *p = buf;
		char open, close;
		size_t n;

		line++;
		p += strspn(p, " \t");
		if (*p++ != '#')
			continue;
		p += strspn(p, " \t");
		if (strncmp(p, "include", 7))
			continue;
		p += 7;
		p += strspn(p, " \t");
		open = *p++;
		if (open != '"' && open != '<')
			continue;
		close = open == '"' ? '"' : '>';
		n = strcspn(p, (char[]){ close, '\n', '\0' });
		if (p[n] != close || n >= sizeof(name))
			continue;
		memcpy(name, p, n);
		name[n] = '\0';
		if (!strcmp(s->layer, "daemon"))
			check_public(s, file, line, name);
		else
			check_include(s, file, line, name);
	}
	fclose(f);
}

static void scan_dir(struct scan *s, const char *dir)
{
	char path[BUF];
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (is_dir(path))
			scan_dir(s, path);
		else if (len > 2 &&
			 (!strcmp(e->d_name + len - 2, ".c") || !strcmp(e->d_name + len - 2, ".h")))
			scan_file(s, path);
	}
	closedir(d);
}

/* every layer of root; the number of violations (s->found holds the first ones) */
static size_t scan_tree(struct scan *s, const char *root)
{
	char dir[PATH_MAX];

	s->root = root;
	s->nfound = 0;
	for (size_t i = 0; i < sizeof(layers) / sizeof(layers[0]); i++) {
		s->layer = layers[i];
		snprintf(dir, sizeof(dir), "%s/%s", root, layers[i]);
		assert_true(is_dir(dir));
		scan_dir(s, dir);
	}
	s->layer = "daemon";
	snprintf(dir, sizeof(dir), "%s/daemon", root);
	scan_dir(s, dir);
	return s->nfound;
}

static bool found(const struct scan *s, const char *prefix)
{
	for (size_t i = 0; i < s->nfound && i < MAX_FOUND; i++)
		if (!strncmp(s->found[i], prefix, strlen(prefix)))
			return true;
	return false;
}

static void test_layering_source_tree_uses_only_util_of_daemon(void **state)
{
	const char *root = getenv("HB_SOURCE_ROOT");
	struct scan *s = calloc(1, sizeof(*s));

	assert_non_null(root);
	assert_non_null(s);
	if (scan_tree(s, root)) {
		for (size_t i = 0; i < s->nfound && i < MAX_FOUND; i++)
			print_message("%s\n", s->found[i]);
		fail_msg("%zu includes break the layering", s->nfound);
	}
	free(s);
}

static void test_layering_rejects_every_planted_include(void **state)
{
	char root[PATH_MAX];
	struct scan *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	snprintf(root, sizeof(root), "%s/layering/bad", getenv("HB_TEST_DATA"));
	scan_tree(s, root);
	for (size_t i = 0; i < s->nfound && i < MAX_FOUND; i++)
		print_message("# %s\n", s->found[i]);
	assert_true(found(s, "translate/flat-util.c:3: \"util.h\" by its flat name"));
	assert_true(found(s, "devices/sub/flat-daemon.c:3: \"daemon.h\" is a daemon/ header"));
	assert_true(found(s, "devices/core-path.c:3: \"core/core.h\" is daemon/core/core.h"));
	assert_true(found(s, "kernel/relative.c:3: \"../daemon/conf.h\" reaches into daemon/"));
	assert_true(found(s, "kernel/qualified.c:3: \"daemon/conf.h\": kernel/ may include"));
	assert_true(found(s, "daemon/private-include.c:4: \"chmu/chmu.h\" is private to devices/"));
	assert_true(found(s, "daemon/private-include.c:5: \"translate-private.h\" is private to "
			     "translate/"));
	assert_true(found(s, "daemon/private-include.c:7: \"coldness/frames.h\" is private to "
			     "kernel/: daemon/ includes only its public header"));
	/* ok.c (util/, its own private.h, <stdio.h>, ../daemon/util/) and
	   private-include.c's public headers add nothing */
	assert_int_equal(s->nfound, 8);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layering_source_tree_uses_only_util_of_daemon),
		cmocka_unit_test(test_layering_rejects_every_planted_include),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
