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
};

static int mmio_read(void *priv, uint64_t off, unsigned int width, uint64_t *val)
{
	struct mmio *m = priv;
	volatile uint8_t *p = m->base + m->delta + off;

	if (off + width > m->size || off % width)
		return -ERANGE;
	switch (width) {
	case 2: *val = *(volatile uint16_t *)p; return 0;
	case 4: *val = *(volatile uint32_t *)p; return 0;
	case 8: *val = *(volatile uint64_t *)p; return 0;
	}
	return -EINVAL;
}

static int mmio_write(void *priv, uint64_t off, unsigned int width, uint64_t val)
{
	struct mmio *m = priv;
	volatile uint8_t *p = m->base + m->delta + off;

	if (off + width > m->size || off % width)
		return -ERANGE;
	switch (width) {
	case 2: *(volatile uint16_t *)p = (uint16_t)val; return 0;
	case 4: *(volatile uint32_t *)p = (uint32_t)val; return 0;
	case 8: *(volatile uint64_t *)p = val; return 0;
	}
	return -EINVAL;
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

void hb_regwin_mmio_close(struct hb_regwin *w)
{
	struct mmio *m = w->priv;

	if (m) {
		munmap((void *)m->base, m->map_len);
		free(m);
	}
	w->priv = NULL;
}
