// SPDX-License-Identifier: MIT
/*
 * Idle page tracking over sorted PFN sets (kernel.h): the sets are cut into
 * runs of bitmap words, each run one pread or pwrite at its word-aligned
 * offset.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel.h"
#include "util/macro.h"

#define WORD_BITS 64
#define RUN_WORDS 512 /* one page: kernfs moves at most that per call */
#define GAP_WORDS 1   /* unused words a run may bridge */

struct hb_idle {
	int fd;
	char path[PATH_MAX];
	struct hb_idle_stats st;
	uint64_t buf[RUN_WORDS];
};

static const char *nz(const char *s)
{
	return s ? s : "";
}

int hb_idle_open(const char *root, struct hb_idle **ret, struct hb_err *err)
{
	_hb_cleanup_free_ struct hb_idle *t = calloc(1, sizeof(*t));
	char sys[PATH_MAX];
	int r;

	if (!t)
		return hb_err_set(err, -ENOMEM, "out of memory");
	snprintf(t->path, sizeof(t->path), "%s%s", nz(root), HB_IDLE_BITMAP);
	t->fd = open(t->path, O_RDWR | O_CLOEXEC);
	if (t->fd >= 0) {
		*ret = HB_TAKE_PTR(t);
		return 0;
	}
	r = -errno;
	if (r == -ENOENT) {
		snprintf(sys, sizeof(sys), "%s/sys/kernel", nz(root));
		if (access(sys, F_OK) < 0)
			return hb_err_set(err, r, "idle pages: sysfs is not mounted (no %s)", sys);
		return hb_err_set(err, r,
				  "idle pages: no %s: the kernel was built without "
				  "CONFIG_IDLE_PAGE_TRACKING (Debian's stock 6.12 is)",
				  t->path);
	}
	if (r == -EACCES || r == -EPERM)
		return hb_err_set(err, r,
				  "idle pages: cannot open %s: %s (mode 0600, owned by "
				  "root: needs root)",
				  t->path, strerror(-r));
	return hb_err_set(err, r, "idle pages: cannot open %s: %s", t->path, strerror(-r));
}

struct hb_idle *hb_idle_free(struct hb_idle *t)
{
	if (!t)
		return NULL;
	if (t->fd >= 0)
		(void)close(t->fd);
	free(t);
	return NULL;
}

void hb_idle_get_stats(const struct hb_idle *t, struct hb_idle_stats *ret)
{
	*ret = t->st;
}

static int check_sorted(size_t n, const uint64_t *pfn, struct hb_err *err)
{
	for (size_t i = 1; i < n; i++)
		if (pfn[i] < pfn[i - 1])
			return hb_err_set(err, -EINVAL,
					  "idle pages: PFN 0x%llx (entry %zu) comes after "
					  "0x%llx: the set must be sorted ascending",
					  (unsigned long long)pfn[i], i,
					  (unsigned long long)pfn[i - 1]);
	if (n && pfn[n - 1] / WORD_BITS > (uint64_t)(INT64_MAX / 8))
		return hb_err_set(err, -EINVAL, "idle pages: PFN 0x%llx is past any bitmap offset",
				  (unsigned long long)pfn[n - 1]);
	return 0;
}

/* The run that starts at pfn[i]: its first word, its word count, its end index. */
static size_t run_of(size_t n, const uint64_t *pfn, size_t i, uint64_t *ret_word, size_t *ret_words)
{
	uint64_t first = pfn[i] / WORD_BITS, last = first;
	size_t j = i + 1;

	for (; j < n; j++) {
		uint64_t w = pfn[j] / WORD_BITS;

		if (w > last + 1 + GAP_WORDS || w - first >= RUN_WORDS)
			break;
		last = w;
	}
	*ret_word = first;
	*ret_words = (size_t)(last - first + 1);
	return j;
}

/* pfn[i..end) hit the end of the bitmap at word end_word: name the first PFN past it */
static int beyond_end(const struct hb_idle *t, const uint64_t *pfn, size_t i, size_t end,
		      uint64_t end_word, struct hb_err *err)
{
	while (i + 1 < end && pfn[i] / WORD_BITS < end_word)
		i++;
	return hb_err_set(err, -ENXIO,
			  "idle pages: PFN 0x%llx is beyond the end of %s "
			  "(the kernel's last PFN: it ends before PFN 0x%llx)",
			  (unsigned long long)pfn[i], t->path,
			  (unsigned long long)(end_word * WORD_BITS));
}

/*
 * Reads (write = false) or writes t->buf as words [word, word + words).
 * Returns the words done: fewer at the end of the bitmap; or -errno.
 */
static ssize_t io_words(struct hb_idle *t, bool write, uint64_t word, size_t words)
{
	size_t done = 0, want = words * 8;

	while (done < want) {
		off_t off = (off_t)(word * 8 + done);
		ssize_t k = write ? pwrite(t->fd, (const char *)t->buf + done, want - done, off) :
				    pread(t->fd, (char *)t->buf + done, want - done, off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == ENXIO)
			break;
		if (k < 0)
			return -errno;
		*(write ? &t->st.pwrites : &t->st.preads) += 1;
		if (k == 0)
			break;
		done += (size_t)k;
	}
	*(write ? &t->st.words_written : &t->st.words_read) += done / 8;
	return (ssize_t)(done / 8);
}

/* One run: pfn[i..end) in words [word, word + words). */
static int run_io(struct hb_idle *t, bool write, const uint64_t *pfn, size_t i, size_t end,
		  uint64_t word, size_t words, struct hb_err *err)
{
	ssize_t k = io_words(t, write, word, words);

	if (k < 0)
		return hb_err_set(err, (int)k, "idle pages: %s %s at PFN 0x%llx: %s",
				  write ? "writing" : "reading", t->path,
				  (unsigned long long)pfn[i], strerror((int)-k));
	if ((size_t)k < words)
		return beyond_end(t, pfn, i, end, word + (uint64_t)k, err);
	return 0;
}

int hb_idle_mark(struct hb_idle *t, size_t n, const uint64_t *pfn, struct hb_err *err)
{
	int r = check_sorted(n, pfn, err);

	for (size_t i = 0, end; r == 0 && i < n; i = end) {
		uint64_t word;
		size_t words;

		end = run_of(n, pfn, i, &word, &words);
		memset(t->buf, 0, words * 8);
		for (size_t j = i; j < end; j++)
			t->buf[pfn[j] / WORD_BITS - word] |= 1ULL << (pfn[j] % WORD_BITS);
		r = run_io(t, true, pfn, i, end, word, words, err);
	}
	return r;
}

long hb_idle_read(struct hb_idle *t, size_t n, const uint64_t *pfn, bool *ret_idle, struct hb_err *err)
{
	long idle = 0;
	int r = check_sorted(n, pfn, err);

	for (size_t i = 0, end; r == 0 && i < n; i = end) {
		uint64_t word;
		size_t words;

		end = run_of(n, pfn, i, &word, &words);
		r = run_io(t, false, pfn, i, end, word, words, err);
		for (size_t j = i; r == 0 && j < end; j++) {
			ret_idle[j] = (t->buf[pfn[j] / WORD_BITS - word] >> (pfn[j] % WORD_BITS)) & 1;
			idle += ret_idle[j];
		}
	}
	return r < 0 ? r : idle;
}
