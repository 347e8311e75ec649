// SPDX-License-Identifier: MIT
/* Output files opened before the work that fills them (out-file.h). */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "out-file.h"

int hb_out_file_open(struct hb_out_file *o, const char *path)
{
	int fd;

	*o = (struct hb_out_file){ .path = path };
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0666);
	if (fd >= 0) {
		o->created = true;
	} else if (errno == EEXIST) {
		/* there already (a file, /dev/stdout, a FIFO): kept until written */
		fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	}
	if (fd < 0)
		return -errno;
	o->f = fdopen(fd, "w");
	if (!o->f) {
		int r = -errno;

		close(fd);
		if (o->created)
			(void)unlink(path);
		o->created = false;
		return r;
	}
	return 0;
}

FILE *hb_out_file_begin(struct hb_out_file *o)
{
	struct stat st;

	if (!o->f) {
		errno = EBADF;
		return NULL;
	}
	/* a regular file is rewritten from its start; a FIFO or a device is not a file to cut */
	if (fstat(fileno(o->f), &st) == 0 && S_ISREG(st.st_mode) &&
	    (ftruncate(fileno(o->f), 0) < 0 || fseek(o->f, 0, SEEK_SET) < 0))
		return NULL;
	return o->f;
}

int hb_out_file_close(struct hb_out_file *o, bool ok)
{
	int r = 0;

	if (!o->f)
		return 0;
	if (fclose(o->f) != 0)
		r = -errno;
	o->f = NULL;
	if ((!ok || r < 0) && o->created)
		(void)unlink(o->path);
	o->created = false;
	return r;
}
