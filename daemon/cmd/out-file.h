/* SPDX-License-Identifier: MIT */
/*
 * An output file named on the command line (heatmap -o, demo --heatmap),
 * opened before the work that fills it, so that a path that cannot be
 * written is said at once, not after a run of minutes or hours. Opened
 * without truncating: a run that fails leaves a file that was there as it
 * was, and removes one it created.
 */
#ifndef HB_OUT_FILE_H
#define HB_OUT_FILE_H

#include <stdbool.h>
#include <stdio.h>

struct hb_out_file {
	FILE *f;
	const char *path;
	bool created; /* by hb_out_file_open: removed when the run fails */
};

/* path opened for writing, its contents kept for now; 0 or -errno */
int hb_out_file_open(struct hb_out_file *o, const char *path);
/* the stream to write the whole output to, from its start (emptied): NULL and errno set */
FILE *hb_out_file_begin(struct hb_out_file *o);
/* closes it; !ok: removes a file it created. 0, or -errno of the close (the write's) */
int hb_out_file_close(struct hb_out_file *o, bool ok);

#endif
