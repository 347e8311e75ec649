// SPDX-License-Identifier: MIT
/* A scratch tree for unit tests (fake-tree.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "fake-tree.h"

void hb_fake_tree_new(char *root, size_t size, const char *name)
{
	assert_true((size_t)snprintf(root, size, "/tmp/hb-%s-XXXXXX", name) < size);
	assert_non_null(mkdtemp(root));
}

void hb_fake_tree_remove(const char *root)
{
	char cmd[4200];

	assert_true((size_t)snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root) < sizeof(cmd));
	assert_int_equal(system(cmd), 0);
}

void hb_fake_put(const char *root, const char *rel, const char *text)
{
	char p[4096];
	FILE *f;

	assert_true((size_t)snprintf(p, sizeof(p), "%s%s", root, rel) < sizeof(p));
	for (char *s = p + strlen(root) + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		(void)mkdir(p, 0755);
		*s = '/';
	}
	if (!text) {
		(void)mkdir(p, 0755);
		return;
	}
	assert_non_null(f = fopen(p, "w"));
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

void hb_fake_put_bin(const char *root, const char *rel, const void *buf, size_t len)
{
	char p[4096];
	int fd;

	assert_true((size_t)snprintf(p, sizeof(p), "%s%s", root, rel) < sizeof(p));
	assert_true((fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600)) >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
}
