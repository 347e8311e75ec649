// SPDX-License-Identifier: MIT
/*
 * The replay formats and the replay source: good, bad and truncated text
 * and binary input (bad lines are skipped, counted and reported once per
 * burst with file:line; the good ones around them are kept), streaming in
 * arbitrary chunks, and the source over a file, a FIFO and a UNIX socket
 * through a host that implements watch_fd with poll(2). The emul-chmu
 * source runs through the same host.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>

#include "devices.h"
#include "replay/replay.h"

static struct hb_hot_record got[4096];
static size_t ngot;
static char reports[16][512];
static int nreports;

static int emit(void *ud, const struct hb_hot_record *r, size_t n)
{
	for (size_t i = 0; i < n && ngot < 4096; i++)
		got[ngot++] = r[i];
	return 0;
}

static void report(void *ud, const char *msg)
{
	if (nreports < 16)
		snprintf(reports[nreports], sizeof(reports[0]), "%s", msg);
	nreports++;
}

static void reset(void)
{
	ngot = 0;
	nreports = 0;
}

static char *slurp(const char *rel, size_t *len)
{
	char path[4096];
	FILE *f;
	char *buf = calloc(1, 1 << 16);

	snprintf(path, sizeof(path), "%s/%s", getenv("HB_TEST_DATA"), rel);
	f = fopen(path, "r");
	assert_non_null(f);
	*len = fread(buf, 1, (1 << 16) - 1, f);
	fclose(f);
	return buf;
}

static void check_mixed(void)
{
	assert_int_equal(ngot, 5);
	assert_string_equal(got[0].memdev, "mem0");
	assert_int_equal(got[0].space, HB_SPACE_DPA);
	assert_int_equal(got[0].addr, 0x1000);
	assert_int_equal(got[0].count, 12);
	assert_int_equal(got[1].timestamp_ns, 123456789);
	assert_int_equal(got[2].space, HB_SPACE_HPA);
	assert_int_equal(got[2].addr, 0x39000b000);
	assert_string_equal(got[2].memdev, "");
	assert_int_equal(got[3].len, 0x200000);
	assert_string_equal(got[4].memdev, "mem2");
}

static void test_replay_text_keeps_good_lines_around_bad_ones(void **state)
{
	size_t len;
	char *buf = slurp("replay/mixed.txt", &len);
	struct hb_replay_parser *p = hb_replay_parser_new("mixed.txt", emit, report, NULL);

	reset();
	assert_int_equal(hb_replay_parser_feed(p, buf, len), 0);
	hb_replay_parser_finish(p);
	check_mixed();
	assert_int_equal(hb_replay_parser_stats(p)->bad, 4);
	assert_int_equal(nreports, 2);
	assert_non_null(strstr(reports[0], "mixed.txt:7: missing count="));
	assert_non_null(strstr(reports[1], "3 more bad lines in this burst (the last at 10)"));
	hb_replay_parser_free(p);

	/* the same bytes one at a time: every line is its own burst */
	p = hb_replay_parser_new("mixed.txt", emit, report, NULL);
	reset();
	for (size_t i = 0; i < len; i++)
		assert_int_equal(hb_replay_parser_feed(p, buf + i, 1), 0);
	hb_replay_parser_finish(p);
	check_mixed();
	assert_int_equal(nreports, 4);
	assert_non_null(strstr(reports[1], "mixed.txt:8: dpa: 'zz' is not a number"));
	assert_non_null(strstr(reports[2], "mixed.txt:9: a second address (dpa=)"));
	assert_non_null(strstr(reports[3], "mixed.txt:10: unknown key 'colour'"));
	hb_replay_parser_free(p);
	free(buf);
}

static void test_replay_text_reasons(void **state)
{
	static const struct {
		const char *line, *why;
	} cases[] = {
		{ "mem0 dpa=0x1000 len=0 count=1", "len=0: an empty range" },
		/* newuser r4 D24: the address is what is out of range, not len= */
		{ "mem0 dpa=0xffffffffffffffff len=2 count=1",
		  "dpa=0xffffffffffffffff len=2: the range runs past the end of the address space" },
		{ "hpa=0xfffffffffffff000 len=8192 count=1",
		  "hpa=0xfffffffffffff000 len=8192: the range" },
		{ "mem0 dpa=0x1 dpa=0x2 len=1 count=1", "a second address (dpa=)" },
		{ "mem0 dpa=0x1 len=1 len=2 count=1", "repeated key 'len'" },
		{ "mem0 dpa=99999999999999999999 len=1 count=1",
		  "dpa: '99999999999999999999' is above" },
		/* zero-padded: refused like everywhere else, never read as decimal (D2) */
		{ "mem1 dpa=00020000 len=4096 count=40",
		  "dpa: '00020000' is not a number: a leading zero" },
		{ "hpa=0390000000 len=4096 count=40",
		  "hpa: '0390000000' is not a number: a leading zero" },
		{ "mem0 dpa=0x1000 len=04096 count=1",
		  "len: '04096' is not a number: a leading zero" },
		{ "mem0 dpa=0x1000 len=4096 count=040",
		  "count: '040' is not a number: a leading zero" },
		{ "mem0 dpa=0x1000 len=4096 count=1 ts=0100",
		  "ts: '0100' is not a number: a leading zero" },
		{ "mem0 dpa=0x1000 len=4096 count=1e3", "count: '1e3' is not a number" },
		/* newuser r5 E3: one line made a heat of 1.8e19 */
		{ "mem0 dpa=0x205000 len=4096 count=18446744073709551615",
		  "count=18446744073709551615: above the largest, 10^12" },
		{ "hpa=0x1000 len=4096 count=1000000000001", "count=1000000000001: above" },
		{ "mem0 dpa=0x1000 len=4096 count=+1", "count: '+1' is not a number: no sign" },
		{ "mem0 hpa=0x1 len=1 count=1", "hpa= takes no memdev" },
		{ "len=1 count=1", "expected a memdev name or hpa= first" },
		{ "mem0123456789abcdef dpa=0x1 len=1 count=1", "longer than 15" },
		{ "mem0 dpa=0x1 len=1 count=1 junk", "'junk' is not key=value" },
		{ "mem0 len=1 count=1", "missing dpa=" },
	};
	struct hb_hot_record r;
	char why[160];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = hb_replay_parse_line(cases[i].line, strlen(cases[i].line), &r, why,
					      sizeof(why));

		if (rc != -EINVAL || !strstr(why, cases[i].why))
			fail_msg("'%s': rc %d, '%s' (want '%s')", cases[i].line, rc, why,
				 cases[i].why);
	}
	/* D6: a feed path naming another file logs no more than a short prefix of it */
	{
		const char *secret = "root:$6$SECRETHASHxyz:19000:0:99999:7:::";

		assert_int_equal(hb_replay_parse_line(secret, strlen(secret), &r, why, sizeof(why)),
				 -EINVAL);
		if (strstr(why, "HASHxyz") || strstr(why, "19000") || !strstr(why, "root:$6$"))
			fail_msg("'%s' shows more than a short prefix", why);
	}
	assert_int_equal(hb_replay_parse_line("  # only a comment", 18, &r, why, sizeof(why)), 1);
	assert_int_equal(hb_replay_parse_line("", 0, &r, why, sizeof(why)), 1);
}

static void test_replay_oversized_lines_are_bad_input(void **state)
{
	char *big = malloc(5000);
	struct hb_replay_parser *p = hb_replay_parser_new("big", emit, report, NULL);
	const char *ok = "mem0 dpa=0x1000 len=4096 count=1\n";

	reset();
	memset(big, 'x', 5000);
	big[4999] = '\n';
	assert_int_equal(hb_replay_parser_feed(p, ok, strlen(ok)), 0);
	/* an oversized line, split over feeds */
	assert_int_equal(hb_replay_parser_feed(p, big, 2500), 0);
	assert_int_equal(hb_replay_parser_feed(p, big + 2500, 2500), 0);
	assert_int_equal(hb_replay_parser_feed(p, ok, strlen(ok)), 0);
	/* and one in a single feed */
	assert_int_equal(hb_replay_parser_feed(p, big, 5000), 0);
	assert_int_equal(hb_replay_parser_feed(p, ok, strlen(ok)), 0);
	hb_replay_parser_finish(p);
	assert_int_equal(ngot, 3);
	assert_int_equal(hb_replay_parser_stats(p)->bad, 2);
	assert_non_null(strstr(reports[0], "big:2: line longer than 512 bytes"));
	hb_replay_parser_free(p);
	free(big);
}

static size_t make_binary(uint8_t *out, size_t nrec)
{
	size_t off = HB_REPLAY_HEADER_LEN;

	hb_replay_binary_header(out);
	for (size_t i = 0; i < nrec; i++) {
		struct hb_hot_record r = { .space = HB_SPACE_DPA,
					   .addr = i * 4096,
					   .len = 4096,
					   .count = i + 1,
					   .timestamp_ns = 1000 + i };

		snprintf(r.memdev, sizeof(r.memdev), "mem%zu", i % 3);
		hb_replay_binary_record(&r, out + off);
		off += HB_REPLAY_RECORD_LEN;
	}
	return off;
}

static void test_replay_binary_good_bad_truncated(void **state)
{
	uint8_t buf[16 + 56 * 10];
	size_t len = make_binary(buf, 10);
	struct hb_replay_parser *p = hb_replay_parser_new("feed.bin", emit, report, NULL);

	buf[16 + 56 * 3] = 9;                   /* record 4: space 9 */
	memset(buf + 16 + 56 * 6 + 8, 'a', 16); /* record 7: memdev not terminated */
	reset();
	/* in chunks of 7 bytes, leaving the last record 20 bytes short */
	for (size_t off = 0; off < len - 20; off += 7)
		assert_int_equal(hb_replay_parser_feed(p, buf + off,
						       off + 7 > len - 20 ? len - 20 - off : 7),
				 0);
	hb_replay_parser_finish(p);
	assert_int_equal(ngot, 7);
	assert_int_equal(got[0].addr, 0);
	assert_string_equal(got[1].memdev, "mem1");
	assert_int_equal(got[3].count, 5); /* record 4 was dropped */
	assert_int_equal(hb_replay_parser_stats(p)->bad, 3);
	assert_non_null(strstr(reports[0], "feed.bin:record 4: address space"));
	assert_non_null(strstr(reports[1], "feed.bin:record 7: memdev name not NUL-terminated"));
	assert_non_null(strstr(reports[2], "record 10: truncated record (36 of 56 bytes)"));
	hb_replay_parser_free(p);

	/* a header from the future: refused, nothing is made up */
	make_binary(buf, 2);
	buf[4] = 3;
	p = hb_replay_parser_new("v3.bin", emit, report, NULL);
	reset();
	assert_int_equal(hb_replay_parser_feed(p, buf, 16 + 112), 0);
	hb_replay_parser_finish(p);
	assert_int_equal(ngot, 0);
	assert_non_null(strstr(reports[0], "v3.bin:byte 0: binary header: version 3"));
	hb_replay_parser_free(p);

	/* a truncated header */
	p = hb_replay_parser_new("short.bin", emit, report, NULL);
	reset();
	assert_int_equal(hb_replay_parser_feed(p, buf, 9), 0);
	hb_replay_parser_finish(p);
	assert_int_equal(ngot, 0);
	assert_non_null(strstr(reports[0], "truncated binary header"));
	hb_replay_parser_free(p);
}

static struct hb_hot_record rec(uint64_t i)
{
	struct hb_hot_record r = { .space = HB_SPACE_DPA, .addr = i << 12, .len = 4096, .count = i + 1 };

	snprintf(r.memdev, sizeof(r.memdev), "mem%u", (unsigned int)(i % 2));
	return r;
}

/* frame of n records numbered from first into out; returns its size */
static size_t frame(uint8_t *out, uint64_t first, size_t n)
{
	struct hb_hot_record r[64];

	for (size_t i = 0; i < n; i++)
		r[i] = rec(first + i);
	return hb_replay_frame(r, n, out);
}

/* every record got is one of want[] (by addr), each exactly once */
static void check_exactly(const uint64_t *want, size_t n)
{
	int seen[4096] = { 0 };

	assert_int_equal(ngot, n);
	for (size_t i = 0; i < ngot; i++) {
		size_t k;

		for (k = 0; k < n && got[i].addr != want[k] << 12; k++)
			;
		if (k == n || seen[k]++)
			fail_msg("record %zu: addr %#llx not wanted or twice", i,
				 (unsigned long long)got[i].addr);
		if (got[i].count != want[k] + 1 || got[i].len != 4096)
			fail_msg("record %zu misread", i);
	}
}

/*
 * Writers sharing a FIFO: whole frames and lines of live writers around a
 * writer that died in the middle of a record (header and 20 bytes of a
 * frame), a line right after its bytes, a second v1 writer, a text line
 * cut short by a frame. Read in one piece, byte by byte and in 7-byte
 * chunks: the same records every time, the torn frame counted bad.
 */
static void test_replay_frames_resynchronise_after_a_dead_writer(void **state)
{
	static uint8_t s[8192];
	const char *l1 = "mem0 dpa=0x64000 len=4096 count=101\n"; /* record 100 */
	const char *l2 = "mem1 dpa=0x65000 len=4096 count=102\n"; /* record 101 */
	const char *l3 = "mem0 dpa=0x66000 len=4096 count=103\n"; /* record 102 */
	const char *cut = "mem0 dpa=0x66";                        /* a dead text writer */
	uint64_t want[64];
	size_t n = 0, nw = 0, torn;
	uint8_t tmp[1024];

	n += frame(s + n, 0, 3); /* writer A: 0..2 */
	for (int i = 0; i < 3; i++)
		want[nw++] = (uint64_t)i;
	memcpy(s + n, l1, strlen(l1)); /* writer T */
	n += strlen(l1);
	want[nw++] = 100;
	torn = frame(tmp, 50, 4); /* writer D dies in its second record */
	memcpy(s + n, tmp, HB_REPLAY_FRAME_HEADER_LEN + 56 + 20);
	n += HB_REPLAY_FRAME_HEADER_LEN + 56 + 20;
	memcpy(s + n, l2, strlen(l2)); /* T again, right after D's bytes */
	n += strlen(l2);
	want[nw++] = 101;
	n += frame(s + n, 10, 5); /* writer B: 10..14 */
	for (int i = 10; i < 15; i++)
		want[nw++] = (uint64_t)i;
	memcpy(s + n, cut, strlen(cut)); /* a text writer dies mid-line */
	n += strlen(cut);
	n += frame(s + n, 20, 2); /* writer C: 20, 21 */
	want[nw++] = 20;
	want[nw++] = 21;
	hb_replay_binary_header(s + n); /* a v1 writer: 30, 31 */
	n += HB_REPLAY_HEADER_LEN;
	for (int i = 30; i < 32; i++) {
		struct hb_hot_record r = rec((uint64_t)i);

		hb_replay_binary_record(&r, s + n);
		n += HB_REPLAY_RECORD_LEN;
		want[nw++] = (uint64_t)i;
	}
	hb_replay_binary_header(s + n); /* and another, after it: 40 */
	n += HB_REPLAY_HEADER_LEN;
	{
		struct hb_hot_record r = rec(40);

		hb_replay_binary_record(&r, s + n);
		n += HB_REPLAY_RECORD_LEN;
		want[nw++] = 40;
	}
	memcpy(s + n, l3, strlen(l3)); /* text after v1 records */
	n += strlen(l3);
	want[nw++] = 102;
	assert_true(torn > 0);

	for (size_t chunk = 0; chunk < 3; chunk++) {
		size_t step = chunk == 0 ? n : chunk == 1 ? 1 : 7;
		struct hb_replay_parser *p = hb_replay_parser_new("fifo", emit, report, NULL);

		reset();
		for (size_t off = 0; off < n; off += step)
			assert_int_equal(hb_replay_parser_feed(p, s + off,
							       off + step > n ? n - off : step),
					 0);
		assert_int_equal(hb_replay_parser_pending(p), 0);
		hb_replay_parser_finish(p);
		check_exactly(want, nw);
		/* the torn frame and the cut line, each once */
		if (hb_replay_parser_stats(p)->bad != 2)
			fail_msg("step %zu: %llu bad", step,
				 (unsigned long long)hb_replay_parser_stats(p)->bad);
		assert_int_equal(hb_replay_parser_stats(p)->frames, 3);
		hb_replay_parser_free(p);
	}
}

/*
 * A writer dies in a frame and nobody writes after it: the frame is held
 * until the input goes quiet, then counted bad; the live writers' bytes
 * held behind it (a line) are read, and later frames are too.
 */
static void test_replay_idle_ends_a_frame_whose_writer_died(void **state)
{
	struct hb_replay_parser *p = hb_replay_parser_new("fifo", emit, report, NULL);
	const char *l1 = "mem0 dpa=0x64000 len=4096 count=101\n";
	uint8_t b[2048];
	size_t n = frame(b, 0, 8);

	reset();
	assert_int_equal(hb_replay_parser_feed(p, b, 100), 0); /* header + 76 bytes */
	assert_int_equal(hb_replay_parser_feed(p, l1, strlen(l1)), 0);
	assert_int_equal(ngot, 0);
	assert_int_equal(hb_replay_parser_pending(p), 100 + strlen(l1));
	assert_int_equal(hb_replay_parser_idle(p), 100 + strlen(l1));
	assert_int_equal(ngot, 1);
	assert_int_equal(got[0].addr, 0x64000);
	assert_int_equal(hb_replay_parser_stats(p)->bad, 1);
	assert_non_null(strstr(reports[0], "fifo:byte 0: truncated frame (136 of 472 bytes)"));
	/* a live text writer that is only slow: its line is not made up */
	assert_int_equal(hb_replay_parser_feed(p, "mem0 dpa=0x1000 len=40", 22), 0);
	assert_int_equal(hb_replay_parser_idle(p), 22);
	assert_int_equal(ngot, 1);
	assert_int_equal(hb_replay_parser_stats(p)->bad, 2);
	reset();
	assert_int_equal(hb_replay_parser_feed(p, b, n), 0);
	assert_int_equal(ngot, 8);
	assert_int_equal(hb_replay_parser_idle(p), 0);
	hb_replay_parser_free(p);
}

/* Frames that fail a check are counted and skipped; the records around them are kept. */
static void test_replay_frame_checks(void **state)
{
	uint8_t b[4096], big[HB_REPLAY_FRAME_PAYLOAD_MAX + 512];
	size_t n1, n2, n3;
	struct hb_replay_parser *p;

	n1 = frame(b, 0, 2);
	n2 = frame(b + n1, 2, 2);
	n3 = frame(b + n1 + n2, 4, 2);
	b[n1 + HB_REPLAY_FRAME_HEADER_LEN + 30] ^= 1; /* frame 2: a payload bit flipped */
	b[n1 + n2 + 12] = 3;                          /* frame 3: nrecords changed */
	p = hb_replay_parser_new("f", emit, report, NULL);
	reset();
	assert_int_equal(hb_replay_parser_feed(p, b, n1 + n2 + n3), 0);
	hb_replay_parser_finish(p);
	assert_int_equal(ngot, 2);
	assert_int_equal(hb_replay_parser_stats(p)->bad, 2);
	assert_non_null(strstr(reports[0], "f:byte 136: frame payload checksum mismatch"));
	assert_non_null(strstr(reports[1], "1 more bad units in this burst (the last at byte 272)"));
	hb_replay_parser_free(p);

	/* the largest frame is read; a record inside a good frame can still be bad */
	{
		static struct hb_hot_record r[HB_REPLAY_FRAME_PAYLOAD_MAX / 56];
		size_t nr = HB_REPLAY_FRAME_PAYLOAD_MAX / 56, sz;

		for (size_t i = 0; i < nr; i++)
			r[i] = rec(i);
		r[7].space = 9;
		sz = hb_replay_frame(r, nr, big);
		assert_int_equal(sz, HB_REPLAY_FRAME_SIZE(nr));
		assert_int_equal(hb_replay_frame(r, nr + 1, big), 0);
		assert_int_equal(hb_replay_frame(r, 0, big), 0);
		p = hb_replay_parser_new("big", emit, report, NULL);
		reset();
		for (size_t off = 0; off < sz; off += 4096)
			assert_int_equal(hb_replay_parser_feed(p, big + off,
							       off + 4096 > sz ? sz - off : 4096),
					 0);
		hb_replay_parser_finish(p);
		assert_int_equal(hb_replay_parser_stats(p)->records, nr - 1);
		assert_int_equal(hb_replay_parser_stats(p)->bad, 1);
		assert_non_null(strstr(reports[0], "big:record 8: address space"));
		hb_replay_parser_free(p);
	}
	/* NUL and other non-text bytes in a memdev name are bad, not cut off */
	{
		static const char line[] =
			"mem0\0x dpa=0x1000 len=4096 count=1\nmem1 dpa=0x0 len=1 count=1\n";

		p = hb_replay_parser_new("nul", emit, report, NULL);
		reset();
		assert_int_equal(hb_replay_parser_feed(p, line, sizeof(line) - 1), 0);
		hb_replay_parser_finish(p);
		assert_int_equal(ngot, 1);
		assert_string_equal(got[0].memdev, "mem1");
		assert_non_null(
			strstr(reports[0], "nul:1: memdev name 'mem0\\x00x' has a non-text byte"));
		hb_replay_parser_free(p);
	}
	/* newuser r5 E16: feed bytes reach the log escaped, in every field, one way */
	{
		static const struct {
			const char *line, *why;
		} cases[] = {
			{ "mem0 dpa=0x1000 len=4096 count=40 \033[31mx=1",
			  "unknown key '\\x1b[31mx'" },
			{ "mem0 dpa=0x1000 len=4096 count=4\033[2J0",
			  "count: '4\\x1b[2J0' is not a number" },
			{ "mem0 dpa=0x1000 len=4096 count=4 \033]0;x\007",
			  "'\\x1b]0;x\\x07' is not key=value" },
			{ "m\033x=1 dpa=0x1000", "not 'm\\x1bx'" },
			{ "mem0 dpa=0x1 len=1 count=1 a\\b=1", "unknown key 'a\\x5cb'" },
		};
		struct hb_hot_record r;
		char why[160];

		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			int rc = hb_replay_parse_line(cases[i].line, strlen(cases[i].line), &r, why,
						      sizeof(why));

			if (rc != -EINVAL || !strstr(why, cases[i].why) || strchr(why, '\033'))
				fail_msg("'%s': rc %d, '%s' (want '%s')", cases[i].line, rc, why,
					 cases[i].why);
		}
	}
}

/* ---- a host: watch_fd over poll(2), submit into got[] ---- */

struct watch {
	int fd;
	void (*cb)(void *priv, int fd, uint32_t revents);
	void *priv;
};
static struct watch watches[80];
static int nwatches;
static char logs[8][512];
static int nlogs;

static void host_log(struct hb_host *h, int prio, const char *fmt, ...)
{
	va_list ap;

	if (nlogs >= 8)
		return;
	va_start(ap, fmt);
	vsnprintf(logs[nlogs++], sizeof(logs[0]), fmt, ap);
	va_end(ap);
}

static int host_watch(struct hb_host *h, int fd, uint32_t ev,
		      void (*cb)(void *priv, int fd, uint32_t revents), void *priv)
{
	watches[nwatches++] = (struct watch){ fd, cb, priv };
	return 0;
}

static int host_unwatch(struct hb_host *h, int fd)
{
	for (int i = 0; i < nwatches; i++)
		if (watches[i].fd == fd)
			watches[i] = watches[--nwatches];
	return 0;
}

static int host_submit(struct hb_host *h, const struct hb_hot_record *r, size_t n)
{
	return emit(NULL, r, n);
}

static const struct hb_host_ops host = {
	.abi_major = 1,
	.size = sizeof(host),
	.log = host_log,
	.watch_fd = host_watch,
	.unwatch_fd = host_unwatch,
	.submit = host_submit,
};

static void run_loop(int rounds)
{
	for (int k = 0; k < rounds; k++) {
		struct pollfd pfd[80];
		int n = nwatches;

		for (int i = 0; i < n; i++)
			pfd[i] = (struct pollfd){ .fd = watches[i].fd, .events = POLLIN };
		if (poll(pfd, (nfds_t)n, 50) <= 0)
			continue;
		for (int i = n - 1; i >= 0; i--)
			if (pfd[i].revents && i < nwatches && watches[i].fd == pfd[i].fd)
				watches[i].cb(watches[i].priv, pfd[i].fd,
					      (pfd[i].revents & POLLHUP) ? HB_FD_HUP | HB_FD_READ :
									   HB_FD_READ);
	}
}

static void test_replay_source_file_fifo_socket(void **state)
{
	const struct hb_device_ops *ops = hb_builtin_find("replay");
	char dir[] = "/tmp/hb-test-replay-XXXXXX", path[256], param[300];
	const char *params[3] = { param, "from=start", NULL };
	struct hb_dev_info info = { .size = sizeof(info), .name = "feed", .params = params };
	const char *line = "mem0 dpa=0x1000 len=4096 count=2\n";
	void *priv;
	int fd;

	assert_non_null(ops);
	assert_non_null(mkdtemp(dir));

	/* a regular file, from its start: read on poll, appended lines come with later polls */
	snprintf(path, sizeof(path), "%s/feed.txt", dir);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	assert_int_equal(write(fd, line, strlen(line)), (ssize_t)strlen(line));
	snprintf(param, sizeof(param), "path=%s", path);
	reset();
	assert_int_equal(ops->open(&host, NULL, &info, &priv), 0);
	assert_int_equal(ops->poll(priv), 0);
	assert_int_equal(ngot, 1);
	assert_int_equal(write(fd, line, strlen(line)), (ssize_t)strlen(line));
	assert_int_equal(ops->poll(priv), 0);
	assert_int_equal(ngot, 2);
	close(fd);
	ops->close(priv);
	params[1] = NULL;

	/* a FIFO: watched; writers may come and go */
	snprintf(path, sizeof(path), "%s/feed.fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	snprintf(param, sizeof(param), "path=%s", path);
	reset();
	nwatches = 0;
	assert_int_equal(ops->open(&host, NULL, &info, &priv), 0);
	assert_int_equal(nwatches, 1);
	for (int w = 0; w < 2; w++) {
		fd = open(path, O_WRONLY);
		assert_int_equal(write(fd, line, strlen(line)), (ssize_t)strlen(line));
		close(fd);
		run_loop(2);
	}
	assert_int_equal(ngot, 2);
	ops->close(priv);
	assert_int_equal(nwatches, 0);

	/* a UNIX socket: two clients, one sends a bad line first */
	snprintf(path, sizeof(path), "%s/feed.sock", dir);
	snprintf(param, sizeof(param), "socket=%s", path);
	reset();
	nlogs = 0;
	assert_int_equal(ops->open(&host, NULL, &info, &priv), 0);
	{
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		struct stat st;
		int c[2];

		assert_int_equal(stat(path, &st), 0);
		assert_int_equal(st.st_mode & 0777, 0600);
		strcpy(sa.sun_path, path);
		for (int i = 0; i < 2; i++) {
			c[i] = socket(AF_UNIX, SOCK_STREAM, 0);
			assert_int_equal(connect(c[i], (struct sockaddr *)&sa, sizeof(sa)), 0);
			run_loop(1);
		}
		assert_int_equal(write(c[0], "garbage\n", 8), 8);
		assert_int_equal(write(c[0], line, strlen(line)), (ssize_t)strlen(line));
		assert_int_equal(write(c[1], "hpa=0x2000 len=4096 count=9\n", 28), 28);
		run_loop(3);
		close(c[0]);
		close(c[1]);
		run_loop(3);
	}
	assert_int_equal(ngot, 2);
	assert_true(nlogs >= 1);
	assert_non_null(strstr(logs[0], "feed.sock[client"));
	assert_non_null(strstr(logs[0], ":1: missing dpa="));
	ops->close(priv);
	assert_int_equal(access(path, F_OK), -1);

	/* bad parameters */
	params[0] = "path=/nonexistent/feed";
	assert_true(ops->open(&host, NULL, &info, &priv) < 0);
	params[0] = "colour=blue";
	assert_int_equal(ops->open(&host, NULL, &info, &priv), -EINVAL);
	snprintf(param, sizeof(param), "rm -rf %s", dir);
	assert_int_equal(system(param), 0);
}

static void test_replay_emul_chmu_source_submits_hot_units(void **state)
{
	const struct hb_device_ops *ops = hb_builtin_find("emul-chmu");
	const char *params[] = { "capacity=268435456", "accesses=50000", "workload=zipf:1.2", NULL };
	struct hb_dev_info info = {
		.size = sizeof(info), .name = "emu", .memdev = "mem7", .params = params
	};
	void *priv;

	reset();
	assert_int_equal(ops->open(&host, NULL, &info, &priv), 0);
	assert_int_equal(ops->poll(priv), 0);
	assert_true(ngot > 10);
	for (size_t i = 0; i < ngot; i++) {
		assert_string_equal(got[i].memdev, "mem7");
		assert_int_equal(got[i].len, 4096);
		assert_true(got[i].addr < 268435456);
		assert_true(got[i].count >= 16);
	}
	ops->close(priv);
	params[2] = "workload=pareto";
	nlogs = 0;
	assert_int_equal(ops->open(&host, NULL, &info, &priv), -EINVAL);
	assert_non_null(strstr(logs[0], "workload=pareto"));
}

/*
 * hotlist= sizes the emulated device's hotlist: QEMU's 1024 entries hold
 * 1023 hot units an epoch (one slot stays empty) and lose the rest; 4096
 * hold all of this epoch's. Out of range, or past what the 16-bit instance
 * length allows, is refused by name.
 */
static void test_replay_emul_chmu_hotlist_is_the_devices_size(void **state)
{
	const struct hb_device_ops *ops = hb_builtin_find("emul-chmu");
	const char *params[] = { "capacity=268435456",
				 "accesses=50000",
				 "workload=zipf:1.1",
				 "threshold=2",
				 NULL,
				 NULL };
	struct hb_dev_info info = {
		.size = sizeof(info), .name = "emu", .memdev = "mem7", .params = params
	};
	static const struct {
		const char *param, *why;
	} bad[] = {
		{ "hotlist=1", "emul-chmu: hotlist=1: want 2..8176 entries" },
		{ "hotlist=65536", "emul-chmu: hotlist=65536: want 2..8176 entries" },
		{ "hotlist=9000", "hotlist=9000: want 2..8176 entries (what fits the CHMU's 16-bit" },
		{ "hotlist=lots", "hotlist" },
	};
	void *priv;

	reset();
	assert_int_equal(ops->open(&host, NULL, &info, &priv), 0);
	assert_int_equal(ops->poll(priv), 0);
	assert_int_equal(ngot, 1023);
	ops->close(priv);

	params[4] = "hotlist=4096";
	reset();
	assert_int_equal(ops->open(&host, NULL, &info, &priv), 0);
	assert_int_equal(ops->poll(priv), 0);
	assert_true(ngot > 1023 && ngot < 4095);
	for (size_t i = 0; i < ngot; i++)
		assert_true(got[i].count >= 2);
	ops->close(priv);

	for (size_t i = 0; i < HB_ARRAY_SIZE(bad); i++) {
		params[4] = bad[i].param;
		nlogs = 0;
		assert_int_equal(ops->open(&host, NULL, &info, &priv), -EINVAL);
		assert_int_equal(nlogs, 1);
		assert_non_null(strstr(logs[0], bad[i].why));
	}
}

static bool low_half_away(void *ud, uint64_t dpa)
{
	return dpa < *(const uint64_t *)ud / 2;
}

/*
 * Pages the host moved away (hb_source_emul_set_away()): the device
 * reports none of them, the ground truth counts every access to them.
 */
static void test_replay_emul_chmu_pages_away_are_not_seen(void **state)
{
	const struct hb_device_ops *ops = hb_builtin_find("emul-chmu");
	const char *params[] = { "capacity=268435456", "accesses=50000", "workload=uniform",
				 "threshold=1",        "hotlist=8000",   NULL };
	struct hb_dev_info info = {
		.size = sizeof(info), .name = "emu", .memdev = "mem7", .params = params
	};
	static const uint64_t cap = 268435456;
	uint64_t low = 0, all = 0, unit;
	const uint64_t *truth;
	size_t n, seen_low = 0;
	void *priv;

	reset();
	assert_int_equal(ops->open(&host, NULL, &info, &priv), 0);
	hb_source_emul_set_away(priv, low_half_away, (void *)&cap);
	assert_int_equal(ops->poll(priv), 0);
	assert_true(ngot > 1000);
	for (size_t i = 0; i < ngot; i++)
		assert_true(got[i].addr >= cap / 2);
	n = hb_source_emul_truth(priv, &truth, &unit);
	assert_int_equal(n * unit, cap);
	for (size_t u = 0; u < n; u++) {
		all += truth[u];
		low += u * unit < cap / 2 ? truth[u] : 0;
	}
	assert_int_equal(all, 50000);
	assert_true(low > 20000 && low < 30000);
	/* NULL: every page on the device again */
	hb_source_emul_set_away(priv, NULL, NULL);
	reset();
	assert_int_equal(ops->poll(priv), 0);
	for (size_t i = 0; i < ngot; i++)
		seen_low += got[i].addr < cap / 2;
	assert_true(seen_low > 1000);
	ops->close(priv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replay_text_keeps_good_lines_around_bad_ones),
		cmocka_unit_test(test_replay_text_reasons),
		cmocka_unit_test(test_replay_oversized_lines_are_bad_input),
		cmocka_unit_test(test_replay_binary_good_bad_truncated),
		cmocka_unit_test(test_replay_frames_resynchronise_after_a_dead_writer),
		cmocka_unit_test(test_replay_idle_ends_a_frame_whose_writer_died),
		cmocka_unit_test(test_replay_frame_checks),
		cmocka_unit_test(test_replay_source_file_fifo_socket),
		cmocka_unit_test(test_replay_emul_chmu_source_submits_hot_units),
		cmocka_unit_test(test_replay_emul_chmu_hotlist_is_the_devices_size),
		cmocka_unit_test(test_replay_emul_chmu_pages_away_are_not_seen),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
