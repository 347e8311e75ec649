// SPDX-License-Identifier: MIT
/*
 * tests/bench/textfile: what metrics_textfile costs the loop each cycle:
 * hb_write_file_atomic (temporary, write, fsync, rename, fsync of the
 * directory) of a metrics-sized text, in DIR (default: a fresh one in /tmp).
 *   bench-textfile [DIR]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"

#define WRITES 200
#define SIZE 6000 /* hotbridge_* metrics of a 2-node host: about 5.5 KB */

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	char tmpl[] = "/tmp/hb-bench-textfile-XXXXXX", path[4200];
	const char *dir = argc > 1 ? argv[1] : mkdtemp(tmpl);
	static char text[SIZE];
	double t0, worst = 0, total;

	if (!dir)
		return 1;
	for (size_t i = 0; i < sizeof(text); i++)
		text[i] = i % 64 == 63 ? '\n' : (char)('a' + i % 26);
	snprintf(path, sizeof(path), "%s/hotbridge.prom", dir);
	t0 = now_ms();
	for (int i = 0; i < WRITES; i++) {
		double t = now_ms();
		int r = hb_write_file_atomic(path, text, sizeof(text), 0644);

		if (r < 0) {
			fprintf(stderr, "bench-textfile: %s: %s\n", path, strerror(-r));
			return 1;
		}
		t = now_ms() - t;
		worst = t > worst ? t : worst;
	}
	total = now_ms() - t0;
	printf("metrics_textfile: %d atomic writes of %d bytes in %s: mean %.2f ms, worst %.2f ms\n",
	       WRITES, SIZE, dir, total / WRITES, worst);
	unlink(path);
	if (argc <= 1)
		rmdir(dir);
	return 0;
}
