/* SPDX-License-Identifier: MIT */
/*
 * One job at a time on a thread of its own, off the event loop's: the
 * owner fills the job's input, starts it, and takes it once it has
 * finished; between the two the job's data is the thread's, and the owner
 * touches none of it. The idle checks (idle-worker.h) and the batches of
 * moves (move.c) run so, and records keep reaching the table meanwhile.
 *
 *  - The thread is created by the first start that does not wait, so that
 *    it has the credentials its owner has by then: capabilities are per
 *    thread, and the daemon drops its own before the loop runs.
 *  - A start that waits runs the job on the caller's thread at once (one
 *    cycle at a time: --once, the tests).
 *  - fd: an eventfd that turns readable when a job has finished on the
 *    thread, for the loop to watch; hb_job_thread_take() empties it.
 *  - serial, when not NULL: a mutex the job holds while it runs, shared by
 *    two job threads whose jobs must not overlap (DAMON sysfs serves one
 *    command at a time and fails the next with EBUSY).
 *  - The thread runs HB_JOB_THREAD_NICE nice levels below the loop's
 *    thread: where CPUs are short (a 2-vCPU guest under TCG), the loop
 *    taking records goes first, and the jobs take what it leaves.
 */
#ifndef HB_JOB_THREAD_H
#define HB_JOB_THREAD_H

#include <pthread.h>
#include <stdbool.h>

struct hb_job_thread;

#define HB_JOB_THREAD_NICE 10

/* run(arg) is the job; 0 or -errno (the eventfd). Nothing runs yet. */
int hb_job_thread_new(void (*run)(void *arg), void *arg, pthread_mutex_t *serial,
		      struct hb_job_thread **ret);
/* Waits for a running job, then stops the thread. */
struct hb_job_thread *hb_job_thread_free(struct hb_job_thread *j);
/* readable once a job finished on the thread; -1 never (no thread yet is fine) */
int hb_job_thread_fd(const struct hb_job_thread *j);
/*
 * Runs the job (wait: on the caller's thread, finished on return); 0, or
 * -errno when the thread could not be created (nothing ran). Only when
 * neither running nor finished and untaken.
 */
int hb_job_thread_start(struct hb_job_thread *j, bool wait);
/* started and not yet taken (running, or finished and waiting to be taken) */
bool hb_job_thread_pending(struct hb_job_thread *j);
/* started and still running */
bool hb_job_thread_busy(struct hb_job_thread *j);
/* true, once, when a started job has finished: its data is the owner's again */
bool hb_job_thread_take(struct hb_job_thread *j);
/* Waits for a running job to finish (then take it). */
void hb_job_thread_wait(struct hb_job_thread *j);

#endif
