// SPDX-License-Identifier: MIT
/*
 * tests/bench/devices: records per second on one core
 *   - parsed from replay text and binary feeds (goal >= 5 M/s), against a
 *     baseline that only finds the line ends (memchr) or copies the bytes;
 *   - drained from the emulated CHMU's hotlist by the driver, against a
 *     baseline memcpy of the same entries.
 * Prints figures; never fails on time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "chmu/chmu.h"
#include "emul/emul.h"
#include "replay/replay.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t sink;

static int emit(void *ud, const struct hb_hot_record *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sink += r[i].addr ^ r[i].count;
	return 0;
}

static double parse(const char *buf, size_t len, size_t *records)
{
	struct hb_replay_parser *p = hb_replay_parser_new("bench", emit, NULL, NULL);
	double t = now();

	for (size_t off = 0; off < len; off += 65536)
		hb_replay_parser_feed(p, buf + off, len - off < 65536 ? len - off : 65536);
	hb_replay_parser_finish(p);
	t = now() - t;
	*records = hb_replay_parser_stats(p)->records;
	hb_replay_parser_free(p);
	return t;
}

static void bench_replay(size_t n)
{
	char *text = malloc(n * 64);
	uint8_t *bin = malloc(16 + n * 56);
	size_t tlen = 0, blen = 16, records, lines = 0;
	double t, base;

	hb_replay_binary_header(bin);
	for (size_t i = 0; i < n; i++) {
		struct hb_hot_record r = { .space = HB_SPACE_DPA,
					   .addr = (i * 7919 % n) << 12,
					   .len = 4096,
					   .count = i % 1000 + 1 };

		snprintf(r.memdev, sizeof(r.memdev), "mem%zu", i % 4);
		tlen += (size_t)sprintf(text + tlen, "%s dpa=0x%llx len=4096 count=%llu\n", r.memdev,
					(unsigned long long)r.addr, (unsigned long long)r.count);
		hb_replay_binary_record(&r, bin + blen);
		blen += 56;
	}
	base = now();
	for (const char *p = text; (p = memchr(p, '\n', (size_t)(text + tlen - p))); p++)
		lines++;
	base = now() - base;
	t = parse(text, tlen, &records);
	printf("replay text:   %zu records (%.1f MB) in %.3f s = %.2f M records/s "
	       "(baseline memchr over the lines: %.2f M lines/s, %.1fx faster than parsing)\n",
	       records, tlen / 1e6, t, records / t / 1e6, lines / base / 1e6, t / base);
	{
		uint8_t *copy = malloc(blen);

		memset(copy, 1, blen);
		base = now();
		memcpy(copy, bin, blen);
		base = now() - base;
		sink += copy[blen - 1];
		free(copy);
	}
	t = parse((const char *)bin, blen, &records);
	printf("replay binary: %zu records (%.1f MB) in %.3f s = %.2f M records/s "
	       "(baseline memcpy: %.2f GB/s, %.1fx faster)\n",
	       records, blen / 1e6, t, records / t / 1e6, blen / base / 1e9, t / base);
	{
		/* v2: frames of 72 records (one PIPE_BUF write each), CRC-checked */
		size_t per = HB_REPLAY_FRAME_ATOMIC_RECORDS, flen = 0;
		uint8_t *frames = malloc((n / per + 1) * HB_REPLAY_FRAME_SIZE(per));
		struct hb_hot_record r[HB_REPLAY_FRAME_ATOMIC_RECORDS];

		for (size_t i = 0; i < n; i += per) {
			size_t k = n - i < per ? n - i : per;

			for (size_t j = 0; j < k; j++) {
				r[j] = (struct hb_hot_record){ .space = HB_SPACE_DPA,
							       .addr = ((i + j) * 7919 % n) << 12,
							       .len = 4096,
							       .count = (i + j) % 1000 + 1 };
				snprintf(r[j].memdev, sizeof(r[j].memdev), "mem%zu", (i + j) % 4);
			}
			flen += hb_replay_frame(r, k, frames + flen);
		}
		t = parse((const char *)frames, flen, &records);
		printf("replay frames: %zu records (%.1f MB) in %.3f s = %.2f M records/s "
		       "(v2, %zu records a frame)\n",
		       records, flen / 1e6, t, records / t / 1e6, per);
		free(frames);
	}
	free(text);
	free(bin);
}

static void bench_chmu(unsigned int rounds)
{
	struct hb_chmu_emul_params p;
	struct hb_chmu_emul *emu;
	struct hb_chmu *drv;
	struct hb_regwin w;
	struct hb_err err = { 0 };
	struct hb_chmu_range range = { 0, 1ULL << 30 };
	struct hb_chmu_config cfg = { .unit_size = 4096,
				      .epoch_ns = 100000000,
				      .threshold = 1,
				      .ds_factor = 1,
				      .ranges = &range,
				      .nranges = 1 };
	struct hb_hot_record *rec = calloc(8176, sizeof(*rec));
	uint64_t *copy = calloc(8176, 8), *src = calloc(8176, 8);
	double t = 0, base = 0;
	size_t total = 0;

	memset(copy, 0, 8176 * 8);
	memset(src, 1, 8176 * 8);
	hb_chmu_emul_params_default(&p);
	p.hotlist_size = 8176;
	p.ds_factors |= 1;
	if (hb_chmu_emul_new(&p, &emu, &err) < 0)
		return;
	hb_chmu_emul_window(emu, &w);
	if (hb_chmu_open(&w, 0, "mem0", &drv, &err) < 0 || hb_chmu_configure(drv, &cfg, &err) < 0) {
		fprintf(stderr, "bench: %s\n", err.msg);
		return;
	}
	for (unsigned int r = 0; r < rounds; r++) {
		size_t n;
		double t0;

		for (uint64_t u = 0; u < 8175; u++)
			hb_chmu_emul_access(emu, ((u * 2654435761u) % 262144) << 12, 1 + u % 7);
		hb_chmu_emul_advance(emu, cfg.epoch_ns);
		t0 = now();
		hb_chmu_drain(drv, rec, 8176, &n, &err);
		t += now() - t0;
		total += n;
		t0 = now();
		memcpy(copy, src, n * 8);
		base += now() - t0;
		sink += copy[n ? n - 1 : 0];
	}
	printf("chmu drain:    %zu hotlist entries in %.3f s = %.2f M records/s through the "
	       "register window (baseline memcpy of the entries: %.1fx faster)\n",
	       total, t, total / t / 1e6, base > 0 ? t / base : 0.0);
	hb_chmu_free(drv);
	hb_chmu_emul_free(emu);
	free(rec);
	free(copy);
	free(src);
}

/* the per-poll claim recheck: /proc/iomem, and one of `lines` lines */
static void bench_iomem(const char *path, size_t lines)
{
	static const char line[] = "      fe210000-fe22ffff : 0000:0d:00.0\n";
	char tmp[] = "/tmp/hb-bench-iomem-XXXXXX";
	const char *paths[2] = { path, tmp };
	struct hb_err err = { 0 };
	struct hb_iomem m;
	int fd = mkstemp(tmp);

	if (fd < 0)
		return;
	for (size_t i = 0; i < lines; i++)
		if (write(fd, line, sizeof(line) - 1) != (ssize_t)sizeof(line) - 1)
			break;
	close(fd);
	for (unsigned int k = 0; k < 2; k++) {
		size_t n = 0;
		double t0 = now();

		for (unsigned int i = 0; i < 2000; i++) {
			if (hb_iomem_load(paths[k], &m, &err) < 0) {
				printf("iomem:         %s\n", err.msg);
				break;
			}
			n = m.n;
			hb_iomem_done(&m);
		}
		printf("iomem load:    %zu entries (%s) in %.1f us\n", n, k ? "synthetic" : path,
		       (now() - t0) / 2000 * 1e6);
	}
	unlink(tmp);
}

int main(void)
{
	bench_replay(5000000);
	bench_chmu(200);
	bench_iomem("/proc/iomem", 1000);
	return sink == 42 ? 1 : 0;
}
