// SPDX-License-Identifier: MIT
/* A register window over a PCI BAR, mapped from its sysfs resource file. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "chmu.h"

struct mmio {
	volatile uint8_t *base; /* page-aligned mapping */
	size_t map_len;
	uint64_t delta; /* offset of the window inside the mapping */
	uint64_t size;
	bool revoked; /* an access faulted: the mapping is gone, never touched again */
};

struct access {
	volatile uint8_t *p;
	unsigned int width;
	bool write;
	uint64_t val;
};

/* the access itself, and nothing else: it runs under hb_sigbus_guard() */
static void do_access(void *arg)
{
	struct access *a = arg;

	if (a->write) {
		switch (a->width) {
		case 2: *(volatile uint16_t *)a->p = (uint16_t)a->val; return;
		case 4: *(volatile uint32_t *)a->p = (uint32_t)a->val; return;
		case 8: *(volatile uint64_t *)a->p = a->val; return;
		}
	}
	switch (a->width) {
	case 2: a->val = *(volatile uint16_t *)a->p; return;
	case 4: a->val = *(volatile uint32_t *)a->p; return;
	case 8: a->val = *(volatile uint64_t *)a->p; return;
	}
}

static int mmio_access(struct mmio *m, uint64_t off, unsigned int width, bool write, uint64_t *val)
{
	struct access a = { .p = m->base + m->delta + off, .width = width, .write = write };

	if (off + width > m->size || off % width)
		return -ERANGE;
	if (width != 2 && width != 4 && width != 8)
		return -EINVAL;
	if (m->revoked)
		return -ENXIO;
	if (write)
		a.val = *val;
	if (hb_sigbus_guard(do_access, &a, m->base, m->map_len) < 0) {
		m->revoked = true;
		return -ENXIO;
	}
	*val = a.val;
	return 0;
}

static int mmio_read(void *priv, uint64_t off, unsigned int width, uint64_t *val)
{
	return mmio_access(priv, off, width, false, val);
}

static int mmio_write(void *priv, uint64_t off, unsigned int width, uint64_t val)
{
	return mmio_access(priv, off, width, true, &val);
}

int hb_regwin_mmio_open(const char *resource, uint64_t offset, uint64_t size, struct hb_regwin *ret,
			struct hb_err *err)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t start = offset & ~((uint64_t)page - 1);
	struct mmio *m;
	void *p;
	int fd;

	fd = open(resource, O_RDWR | O_SYNC | O_CLOEXEC);
	if (fd < 0)
		return hb_err_set(err, -errno, "%s: %s%s", resource, strerror(errno),
				  errno == EACCES || errno == EPERM ?
					  " (mapping a BAR needs root: CAP_SYS_ADMIN)" :
					  "");
	m = calloc(1, sizeof(*m));
	if (!m) {
		close(fd);
		return hb_err_set(err, -ENOMEM, "out of memory");
	}
	m->delta = offset - start;
	m->map_len = (size_t)(m->delta + size);
	p = mmap(NULL, m->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)start);
	close(fd);
	if (p == MAP_FAILED) {
		int e = errno;

		free(m);
		return hb_err_set(err, -e, "%s: mmap 0x%llx+0x%llx: %s", resource,
				  (unsigned long long)offset, (unsigned long long)size, strerror(e));
	}
	m->base = p;
	m->size = size;
	*ret = (struct hb_regwin){ .read = mmio_read, .write = mmio_write, .priv = m, .size = size };
	return 0;
}

bool hb_regwin_mmio_revoked(const struct hb_regwin *w)
{
	const struct mmio *m = w->priv;

	return m && m->revoked;
}

void hb_regwin_mmio_close(struct hb_regwin *w)
{
	struct mmio *m = w->priv;

	if (m) {
		munmap((void *)m->base, m->map_len);
		free(m);
	}
	w->priv = NULL;
}
