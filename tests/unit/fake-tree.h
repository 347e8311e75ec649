/* SPDX-License-Identifier: MIT */
/*
 * A scratch tree for unit tests of code that reads sysfs and procfs below
 * a root prefix (fake-tree.c). Failures are cmocka assertions.
 */
#ifndef HB_TEST_FAKE_TREE_H
#define HB_TEST_FAKE_TREE_H

#include <stddef.h>

/* mkdtemp("/tmp/hb-<name>-XXXXXX") into root (size bytes) */
void hb_fake_tree_new(char *root, size_t size, const char *name);
/* rm -rf root */
void hb_fake_tree_remove(const char *root);
/* root/rel holding text, its parents made; text NULL: rel is a directory */
void hb_fake_put(const char *root, const char *rel, const char *text);
/* root/rel holding len bytes of buf (mode 0600), its parent existing */
void hb_fake_put_bin(const char *root, const char *rel, const void *buf, size_t len);

#endif
