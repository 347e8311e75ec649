// SPDX-License-Identifier: MIT
/*
 * One sub-buffer of the trace ring buffer, as read() from a CPU's
 * trace_pipe_raw returns it: its events walked with libtraceevent's
 * kbuffer (the kernel's page header, time extends and padding are
 * kbuffer's to skip), each decoded and handed on.
 */
#include <errno.h>
#include <stdlib.h>

#include <traceevent/kbuffer.h>

#include "cxl-events.h"

struct hb_cxl_ring {
	struct kbuffer *kbuf;
};

int hb_cxl_ring_new(struct hb_cxl_ring **ret)
{
	struct hb_cxl_ring *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	/* the ring buffer is written by the kernel we run on */
	r->kbuf = kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST, KBUFFER_ENDIAN_SAME_AS_HOST);
	if (!r->kbuf) {
		free(r);
		return -ENOMEM;
	}
	*ret = r;
	return 0;
}

struct hb_cxl_ring *hb_cxl_ring_free(struct hb_cxl_ring *r)
{
	if (r) {
		kbuffer_free(r->kbuf);
		free(r);
	}
	return NULL;
}

int hb_cxl_ring_walk(struct hb_cxl_ring *r, const struct hb_cxl_decoder *dec, void *page, size_t len,
		     void (*cb)(void *ud, const struct hb_cxl_record *rec, const struct hb_err *bad),
		     void *ud)
{
	unsigned long long ts;
	int n = 0;

	/* the header: a u64 time stamp and a long of commit (bytes of events) */
	if (len < 8 + sizeof(long) || kbuffer_load_subbuffer(r->kbuf, page) < 0)
		return -EBADMSG;
	if (kbuffer_subbuffer_size(r->kbuf) > (int)(len - 8 - sizeof(long)))
		return -EBADMSG;
	for (void *data = kbuffer_read_event(r->kbuf, &ts); data;
	     data = kbuffer_next_event(r->kbuf, &ts)) {
		struct hb_err err = { 0 };
		struct hb_cxl_record rec;
		int size = kbuffer_event_size(r->kbuf);

		if (size <= 0 || hb_cxl_decode(dec, data, (size_t)size, &rec, &err) < 0) {
			if (!err.code)
				hb_err_set(&err, -EBADMSG, "event of %d bytes", size);
			cb(ud, NULL, &err);
		} else {
			cb(ud, &rec, NULL);
		}
		n++;
	}
	return n;
}
