// SPDX-License-Identifier: MIT
/* Idle checks off the event loop's thread (idle-worker.h). */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "cycle/idle-worker.h"
#include "cycle/job-thread.h"
#include "util/util.h"

struct hb_idle_worker {
	const struct hb_coldness *c;
	struct hb_job_thread *job;
	/* the job: the loop's thread's until started, the job thread's until taken */
	size_t n, cap;
	uint64_t *pfn, *checked;
	bool *marked;
	uint8_t *idle, *idle_checked;
	int r;
	uint64_t took_ns, cpu_ns;
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* the round: check the marked pages, then mark them all */
static void run(void *arg)
{
	struct hb_idle_worker *w = arg;
	uint64_t t0 = hb_now_ns(), c0 = thread_cpu_ns();
	size_t m = 0;

	for (size_t i = 0; i < w->n; i++)
		if (w->marked[i])
			w->checked[m++] = w->pfn[i];
	w->r = m ? w->c->ops->check_idle(w->c->priv, m, w->checked, w->idle_checked) : 0;
	if (w->r == 0) {
		m = 0;
		for (size_t i = 0; i < w->n; i++)
			w->idle[i] = w->marked[i] ? w->idle_checked[m++] : 0;
		w->r = w->c->ops->mark_idle(w->c->priv, w->n, w->pfn);
	}
	w->took_ns = hb_now_ns() - t0;
	w->cpu_ns = thread_cpu_ns() - c0;
}

int hb_idle_worker_new(const struct hb_coldness *c, pthread_mutex_t *serial,
		       struct hb_idle_worker **ret)
{
	struct hb_idle_worker *w = calloc(1, sizeof(*w));
	int r;

	if (!w)
		return -ENOMEM;
	w->c = c;
	if ((r = hb_job_thread_new(run, w, serial, &w->job)) < 0) {
		free(w);
		return r;
	}
	*ret = w;
	return 0;
}

struct hb_idle_worker *hb_idle_worker_free(struct hb_idle_worker *w)
{
	if (!w)
		return NULL;
	hb_job_thread_free(w->job);
	free(w->pfn);
	free(w->checked);
	free(w->marked);
	free(w->idle);
	free(w->idle_checked);
	free(w);
	return NULL;
}

bool hb_idle_worker_busy(struct hb_idle_worker *w)
{
	return hb_job_thread_busy(w->job);
}

static int grow(struct hb_idle_worker *w, size_t n)
{
	size_t cap = n + n / 4;
	uint64_t *pfn, *checked;
	uint8_t *idle, *idle_checked;
	bool *marked;

	if ((pfn = realloc(w->pfn, cap * sizeof(*pfn))))
		w->pfn = pfn;
	if ((checked = realloc(w->checked, cap * sizeof(*checked))))
		w->checked = checked;
	if ((marked = realloc(w->marked, cap * sizeof(*marked))))
		w->marked = marked;
	if ((idle = realloc(w->idle, cap)))
		w->idle = idle;
	if ((idle_checked = realloc(w->idle_checked, cap)))
		w->idle_checked = idle_checked;
	if (!pfn || !checked || !marked || !idle || !idle_checked)
		return -ENOMEM;
	w->cap = cap;
	return 0;
}

int hb_idle_worker_prepare(struct hb_idle_worker *w, size_t n, uint64_t **pfn, bool **marked)
{
	int r;

	if (hb_job_thread_pending(w->job))
		return -EBUSY;
	/* only this thread starts a round: until it does, the job is ours */
	if (n > w->cap && (r = grow(w, n)) < 0)
		return r;
	w->n = n;
	*pfn = w->pfn;
	*marked = w->marked;
	return 0;
}

int hb_idle_worker_start(struct hb_idle_worker *w, bool wait)
{
	return hb_job_thread_start(w->job, wait);
}

int hb_idle_worker_take(struct hb_idle_worker *w, size_t *n, const uint64_t **pfn,
			const bool **marked, const uint8_t **idle, uint64_t *took_ns,
			uint64_t *cpu_ns)
{
	if (!hb_job_thread_take(w->job))
		return -ENODATA;
	*n = w->n;
	*pfn = w->pfn;
	*marked = w->marked;
	*idle = w->idle;
	*took_ns = w->took_ns;
	*cpu_ns = w->cpu_ns;
	return w->r;
}
