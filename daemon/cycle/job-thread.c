// SPDX-License-Identifier: MIT
/* One job at a time off the event loop's thread (job-thread.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cycle/job-thread.h"

enum state { IDLE, RUNNING, FINISHED };

struct hb_job_thread {
	void (*run)(void *arg);
	void *arg;
	pthread_mutex_t *serial;
	pthread_t th;
	bool started, quit;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	enum state st;
	int fd;
};

static void run_job(struct hb_job_thread *j)
{
	if (j->serial)
		pthread_mutex_lock(j->serial);
	j->run(j->arg);
	if (j->serial)
		pthread_mutex_unlock(j->serial);
}

static void *thread_main(void *arg)
{
	struct hb_job_thread *j = arg;
	id_t tid = (id_t)syscall(SYS_gettid);
	uint64_t one = 1;
	int prio;

	/* below the loop's priority; raising one's own nice value never needs a privilege */
	errno = 0;
	prio = getpriority(PRIO_PROCESS, tid);
	if (errno == 0)
		(void)setpriority(PRIO_PROCESS, tid, prio + HB_JOB_THREAD_NICE);

	pthread_mutex_lock(&j->mu);
	for (;;) {
		while (j->st != RUNNING && !j->quit)
			pthread_cond_wait(&j->cv, &j->mu);
		if (j->st != RUNNING)
			break; /* quit, with no job to finish */
		pthread_mutex_unlock(&j->mu);
		run_job(j);
		pthread_mutex_lock(&j->mu);
		j->st = FINISHED;
		pthread_cond_broadcast(&j->cv);
		/* an eventfd write of 1 cannot fail short of a full counter */
		(void)!write(j->fd, &one, sizeof(one));
	}
	pthread_mutex_unlock(&j->mu);
	return NULL;
}

int hb_job_thread_new(void (*run)(void *arg), void *arg, pthread_mutex_t *serial,
		      struct hb_job_thread **ret)
{
	struct hb_job_thread *j = calloc(1, sizeof(*j));

	if (!j)
		return -ENOMEM;
	j->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (j->fd < 0) {
		int r = -errno;

		free(j);
		return r;
	}
	j->run = run;
	j->arg = arg;
	j->serial = serial;
	pthread_mutex_init(&j->mu, NULL);
	pthread_cond_init(&j->cv, NULL);
	*ret = j;
	return 0;
}

struct hb_job_thread *hb_job_thread_free(struct hb_job_thread *j)
{
	if (!j)
		return NULL;
	if (j->started) {
		pthread_mutex_lock(&j->mu);
		j->quit = true;
		pthread_cond_broadcast(&j->cv);
		pthread_mutex_unlock(&j->mu);
		pthread_join(j->th, NULL);
	}
	pthread_cond_destroy(&j->cv);
	pthread_mutex_destroy(&j->mu);
	close(j->fd);
	free(j);
	return NULL;
}

int hb_job_thread_fd(const struct hb_job_thread *j)
{
	return j->fd;
}

int hb_job_thread_start(struct hb_job_thread *j, bool wait)
{
	int r;

	if (wait) {
		run_job(j);
		pthread_mutex_lock(&j->mu);
		j->st = FINISHED;
		pthread_mutex_unlock(&j->mu);
		return 0;
	}
	if (!j->started) {
		if ((r = pthread_create(&j->th, NULL, thread_main, j)) != 0)
			return -r;
		j->started = true;
	}
	pthread_mutex_lock(&j->mu);
	j->st = RUNNING;
	pthread_cond_broadcast(&j->cv);
	pthread_mutex_unlock(&j->mu);
	return 0;
}

static enum state state_of(struct hb_job_thread *j)
{
	enum state st;

	pthread_mutex_lock(&j->mu);
	st = j->st;
	pthread_mutex_unlock(&j->mu);
	return st;
}

bool hb_job_thread_pending(struct hb_job_thread *j)
{
	return state_of(j) != IDLE;
}

bool hb_job_thread_busy(struct hb_job_thread *j)
{
	return state_of(j) == RUNNING;
}

bool hb_job_thread_take(struct hb_job_thread *j)
{
	uint64_t n;
	bool done;

	pthread_mutex_lock(&j->mu);
	done = j->st == FINISHED;
	if (done)
		j->st = IDLE;
	pthread_mutex_unlock(&j->mu);
	if (done)
		(void)!read(j->fd, &n, sizeof(n)); /* empty it (EAGAIN: a waited job) */
	return done;
}

void hb_job_thread_wait(struct hb_job_thread *j)
{
	pthread_mutex_lock(&j->mu);
	while (j->st == RUNNING)
		pthread_cond_wait(&j->cv, &j->mu);
	pthread_mutex_unlock(&j->mu);
}
