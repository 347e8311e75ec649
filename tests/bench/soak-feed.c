// SPDX-License-Identifier: MIT
/*
 * soak-feed: writes binary replay records (devices/replay/replay.h) to a
 * path (a FIFO) at a target rate, each stamped with CLOCK_MONOTONIC when
 * its batch was made, so the daemon's record -> decision latency is real.
 * The records go in v2 frames of HB_REPLAY_FRAME_ATOMIC_RECORDS (72; 4056
 * bytes, within PIPE_BUF), so other writers may share the FIFO; 14 frames
 * go in one write(). HB_SOAK_V1=1 writes the v1 stream instead (one
 * header, then bare records), for readers older than frames.
 * Pages spread over 2^17 4 KiB units of mem0 and mem1 (a golden-ratio hash),
 * one in 97 with count 51, the rest 1. It paces itself to RATE records/s; a
 * reader slower than that blocks the writes (FIFO back-pressure) and the
 * offered rate falls: the last line says how far.
 *   soak-feed PATH RATE SECONDS
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "replay/replay.h"

#define PER HB_REPLAY_FRAME_ATOMIC_RECORDS
#define FRAMES 14
#define BATCH (PER * FRAMES)

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static uint8_t buf[FRAMES * HB_REPLAY_FRAME_SIZE(PER)];
	static struct hb_hot_record recs[BATCH];
	uint64_t rate, secs, start, end, sent = 0, i = 0, blocked = 0, t1;
	const char *v1 = getenv("HB_SOAK_V1");
	bool frames = !v1 || strcmp(v1, "1");
	size_t len;
	int fd, r;

	if (argc != 4 || !(rate = strtoull(argv[2], NULL, 0)) ||
	    !(secs = strtoull(argv[3], NULL, 0))) {
		fprintf(stderr, "usage: soak-feed PATH RATE SECONDS\n");
		return 2;
	}
	fd = open(argv[1], O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "soak-feed: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	hb_replay_binary_header(buf);
	if (!frames && (r = write_all(fd, buf, HB_REPLAY_HEADER_LEN)) < 0)
		goto fail;
	start = now_ns();
	end = start + secs * 1000000000ull;
	for (;;) {
		uint64_t t = now_ns(), due = start + sent * 1000000000ull / rate;

		if (t >= end)
			break;
		if (t < due) {
			struct timespec ts = { .tv_sec = (time_t)((due - t) / 1000000000ull),
					       .tv_nsec = (long)((due - t) % 1000000000ull) };

			nanosleep(&ts, NULL);
			t = now_ns();
		}
		for (size_t k = 0; k < BATCH; k++, i++) {
			struct hb_hot_record rec = {
				.space = HB_SPACE_DPA,
				.addr = ((i * 2654435761u) % (1u << 17)) << 12,
				.len = 4096,
				.count = i % 97 == 0 ? 51 : 1,
				.timestamp_ns = t,
			};

			rec.memdev[0] = 'm', rec.memdev[1] = 'e', rec.memdev[2] = 'm';
			rec.memdev[3] = (char)('0' + (i & 1));
			recs[k] = rec;
		}
		len = 0;
		for (size_t f = 0; f < FRAMES; f++) {
			if (frames) {
				len += hb_replay_frame(recs + f * PER, PER, buf + len);
				continue;
			}
			for (size_t k = 0; k < PER; k++, len += HB_REPLAY_RECORD_LEN)
				hb_replay_binary_record(&recs[f * PER + k], buf + len);
		}
		t1 = now_ns();
		if ((r = write_all(fd, buf, len)) < 0)
			goto fail;
		blocked += now_ns() - t1;
		sent += BATCH;
	}
	t1 = now_ns();
	printf("soak-feed: %llu records in %.1f s = %.2f M records/s offered (target %.2f M/s); "
	       "%.1f s blocked in write (back-pressure)\n",
	       (unsigned long long)sent, (double)(t1 - start) / 1e9,
	       (double)sent / ((double)(t1 - start) / 1e9) / 1e6, (double)rate / 1e6,
	       (double)blocked / 1e9);
	close(fd);
	return 0;
fail:
	fprintf(stderr, "soak-feed: write %s: %s\n", argv[1], strerror(-r));
	return 1;
}
