// SPDX-License-Identifier: MIT
/*
 * daemon/util/create.c: hb_write_file_atomic replaces a file whole, with
 * its mode, never through a planted symbolic link (at the target or at any
 * likely temporary name), and leaves no temporary behind, even on error.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "util/util.h"

#define VICTIM_TEXT "precious, not to be overwritten\n"

struct fixture {
	char dir[64];
	char path[128];   /* dir/out.prom */
	char victim[128]; /* dir/victim */
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	FILE *v;

	if (!f)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/hb-test-file-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/out.prom", f->dir);
	snprintf(f->victim, sizeof(f->victim), "%s/victim", f->dir);
	v = fopen(f->victim, "we");
	if (!v)
		return -1;
	fputs(VICTIM_TEXT, v);
	fclose(v);
	chmod(f->victim, 0600);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	struct dirent *e;
	DIR *d = opendir(f->dir);

	while (d && (e = readdir(d))) {
		char p[512];

		if (e->d_name[0] == '.' && (!e->d_name[1] || !strcmp(e->d_name, "..")))
			continue;
		snprintf(p, sizeof(p), "%s/%s", f->dir, e->d_name);
		unlink(p);
	}
	if (d)
		closedir(d);
	rmdir(f->dir);
	free(f);
	return 0;
}

static void assert_file(const char *path, const char *text)
{
	char *buf = NULL;
	size_t len = 0;

	assert_int_equal(hb_read_file(path, 1 << 16, &buf, &len), 0);
	assert_int_equal(len, strlen(text));
	assert_memory_equal(buf, text, len);
	free(buf);
}

/* names in the directory other than the victim, the target and the given links */
static int count_entries(const char *dir)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void test_file_atomic_writes_content_and_mode(void **state)
{
	struct fixture *f = *state;
	struct stat st;
	mode_t old = umask(0077);

	assert_int_equal(hb_write_file_atomic(f->path, "one\n", 4, 0644), 0);
	assert_file(f->path, "one\n");
	assert_int_equal(hb_write_file_atomic(f->path, "two, longer\n", 12, 0644), 0);
	assert_file(f->path, "two, longer\n");
	assert_int_equal(lstat(f->path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	/* the mode asked for, whatever the umask */
	assert_int_equal(st.st_mode & 07777, 0644);
	umask(old);
	/* the victim and the target only: no temporary left */
	assert_int_equal(count_entries(f->dir), 2);
}

static void test_file_atomic_replaces_a_symlink_at_the_target_never_follows_it(void **state)
{
	struct fixture *f = *state;
	struct stat st;

	assert_int_equal(symlink(f->victim, f->path), 0);
	assert_int_equal(hb_write_file_atomic(f->path, "metrics\n", 8, 0644), 0);
	assert_file(f->victim, VICTIM_TEXT);
	assert_int_equal(lstat(f->path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_file(f->path, "metrics\n");
}

static void test_file_atomic_ignores_symlinks_planted_at_temporary_names(void **state)
{
	static const char *const names[] = {
		"out.prom.tmp", ".out.prom.tmp", "out.prom~", ".out.prom",
		"out.prom.new", ".out.prom.swp", "out.tmp",
	};
	struct fixture *f = *state;
	char link[256], target[256];

	for (size_t i = 0; i < HB_ARRAY_SIZE(names); i++) {
		snprintf(link, sizeof(link), "%s/%s", f->dir, names[i]);
		assert_int_equal(symlink(f->victim, link), 0);
	}
	for (int i = 0; i < 50; i++)
		assert_int_equal(hb_write_file_atomic(f->path, "m\n", 2, 0644), 0);
	assert_file(f->victim, VICTIM_TEXT);
	assert_file(f->path, "m\n");
	/* every planted link still there and still a link to the victim */
	for (size_t i = 0; i < HB_ARRAY_SIZE(names); i++) {
		ssize_t n;

		snprintf(link, sizeof(link), "%s/%s", f->dir, names[i]);
		n = readlink(link, target, sizeof(target) - 1);
		assert_true(n > 0);
		target[n] = '\0';
		assert_string_equal(target, f->victim);
	}
	assert_int_equal(count_entries(f->dir), 2 + (int)HB_ARRAY_SIZE(names));
}

static void test_file_atomic_errors_leave_nothing_behind(void **state)
{
	struct fixture *f = *state;
	char path[256];

	snprintf(path, sizeof(path), "%s/no-such-dir/out.prom", f->dir);
	assert_int_equal(hb_write_file_atomic(path, "x", 1, 0644), -ENOENT);
	/* a directory at the target: rename refuses, the temporary is removed */
	snprintf(path, sizeof(path), "%s/adir", f->dir);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_true(hb_write_file_atomic(path, "x", 1, 0644) < 0);
	assert_int_equal(rmdir(path), 0);
	snprintf(path, sizeof(path), "%s/", f->dir);
	assert_int_equal(hb_write_file_atomic(path, "x", 1, 0644), -EISDIR);
	assert_int_equal(count_entries(f->dir), 1);
}

static void test_file_atomic_relative_path(void **state)
{
	struct fixture *f = *state;
	char cwd[PATH_MAX];

	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(f->dir), 0);
	assert_int_equal(hb_write_file_atomic("rel.prom", "r\n", 2, 0600), 0);
	assert_int_equal(chdir(cwd), 0);
	snprintf(cwd, sizeof(cwd), "%s/rel.prom", f->dir);
	assert_file(cwd, "r\n");
}

static void test_file_mkdir_parent(void **state)
{
	struct fixture *f = *state;
	char path[256], dir[256];
	struct stat st;

	snprintf(dir, sizeof(dir), "%s/sub", f->dir);
	snprintf(path, sizeof(path), "%s/sub/sock", f->dir);
	assert_int_equal(hb_mkdir_parent(path, 0700), 0);
	assert_int_equal(stat(dir, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(hb_mkdir_parent(path, 0700), 0); /* exists: fine */
	assert_int_equal(hb_mkdir_parent("relative", 0700), 0);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_file_atomic_writes_content_and_mode, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_file_atomic_replaces_a_symlink_at_the_target_never_follows_it, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			test_file_atomic_ignores_symlinks_planted_at_temporary_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_atomic_errors_leave_nothing_behind, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_file_atomic_relative_path, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_mkdir_parent, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
