// SPDX-License-Identifier: MIT
/* Idle checks off the event loop's thread (idle-worker.h). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "cycle/idle-worker.h"
#include "util/util.h"

enum state { IDLE, PREPARED, RUNNING, FINISHED };

struct hb_idle_worker {
	const struct hb_coldness *c;
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	enum state st;
	bool quit;
	/* the job: written by the loop's thread in PREPARED, the worker's in RUNNING */
	size_t n, cap;
	uint64_t *pfn, *checked;
	bool *marked;
	uint8_t *idle, *idle_checked;
	int r;
	uint64_t took_ns;
};

/* the round: check the marked pages, then mark them all */
static void run(struct hb_idle_worker *w)
{
	uint64_t t0 = hb_now_ns();
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
}

static void *worker(void *arg)
{
	struct hb_idle_worker *w = arg;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (w->st != RUNNING && !w->quit)
			pthread_cond_wait(&w->cv, &w->mu);
		if (w->quit && w->st != RUNNING)
			break;
		pthread_mutex_unlock(&w->mu);
		run(w);
		pthread_mutex_lock(&w->mu);
		w->st = FINISHED;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

int hb_idle_worker_new(const struct hb_coldness *c, struct hb_idle_worker **ret)
{
	struct hb_idle_worker *w = calloc(1, sizeof(*w));
	int r;

	if (!w)
		return -ENOMEM;
	w->c = c;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	if ((r = pthread_create(&w->th, NULL, worker, w)) != 0) {
		pthread_cond_destroy(&w->cv);
		pthread_mutex_destroy(&w->mu);
		free(w);
		return -r;
	}
	*ret = w;
	return 0;
}

struct hb_idle_worker *hb_idle_worker_free(struct hb_idle_worker *w)
{
	if (!w)
		return NULL;
	pthread_mutex_lock(&w->mu);
	w->quit = true;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->th, NULL);
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
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
	bool busy;

	pthread_mutex_lock(&w->mu);
	busy = w->st == RUNNING;
	pthread_mutex_unlock(&w->mu);
	return busy;
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

	if (hb_idle_worker_busy(w))
		return -EBUSY;
	/* only this thread makes a round run: until it does, the job is ours */
	if (n > w->cap && (r = grow(w, n)) < 0)
		return r;
	pthread_mutex_lock(&w->mu);
	w->n = n;
	w->st = PREPARED;
	pthread_mutex_unlock(&w->mu);
	*pfn = w->pfn;
	*marked = w->marked;
	return 0;
}

void hb_idle_worker_start(struct hb_idle_worker *w, bool wait)
{
	if (wait)
		run(w);
	pthread_mutex_lock(&w->mu);
	w->st = wait ? FINISHED : RUNNING;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

int hb_idle_worker_take(struct hb_idle_worker *w, size_t *n, const uint64_t **pfn,
			const bool **marked, const uint8_t **idle, uint64_t *took_ns)
{
	enum state st;

	pthread_mutex_lock(&w->mu);
	st = w->st;
	if (st == FINISHED)
		w->st = IDLE;
	pthread_mutex_unlock(&w->mu);
	if (st != FINISHED)
		return -ENODATA;
	*n = w->n;
	*pfn = w->pfn;
	*marked = w->marked;
	*idle = w->idle;
	*took_ns = w->took_ns;
	return w->r;
}
