// SPDX-License-Identifier: MIT
/*
 * One access to mapped device registers with SIGBUS caught (review C1).
 *
 * A kernel driver that claims an MMIO range (request_mem_region()) makes
 * the kernel revoke every user mapping of it, /dev/mem and sysfs resource
 * files alike, and the next access through such a mapping raises SIGBUS.
 * Reading /proc/iomem before an access cannot close that window: the claim
 * may come between the check and the access. So each access runs here:
 * a SIGBUS handler is installed for as long as the access lasts, and a
 * fault at an address of the caller's mapping jumps back out of it
 * (sigsetjmp/siglongjmp) and is returned as -EFAULT. The caller (mmio.c)
 * keeps what that means, the mapping is gone, in its own state.
 *
 * Threads: the daemon has threads, and a signal's disposition is the
 * process's. Every access that is under way holds the handler installed
 * (a count under a mutex: the first installs it, the last puts back what
 * was there before), and the handler finds the faulting thread's access
 * through a thread-local pointer. A SIGBUS that is not one of ours (another
 * thread, another address, one sent with kill) goes to the disposition
 * that was there before: the handler puts it back and returns, so the
 * faulting instruction runs again and faults into it, or re-raises a sent
 * one. A process that survives such a foreign SIGBUS (its previous handler
 * returned) runs further accesses without the handler until the last
 * access under way ends.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>

#include "chmu.h"

struct armed {
	sigjmp_buf jb;
	uintptr_t lo;
	size_t len;
};

/*
 * The state a signal handler strictly needs, and so the only globals here:
 *  - armed: the faulting thread's access. It must be per thread (a fault
 *    in one thread must never jump onto another thread's stack) and
 *    reachable from the handler, which gets no argument of ours: a
 *    thread-local pointer. initial-exec, so reading it in the handler
 *    never allocates (a dynamic TLS block could be allocated on first use).
 *  - saved, users, lock: the process-wide disposition of SIGBUS from
 *    before the first access under way, handed back by the last one and
 *    by the handler for a fault that is not ours.
 */
static __thread struct armed *armed __attribute__((tls_model("initial-exec")));
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned int users;
static struct sigaction saved;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	struct armed *a = armed;

	(void)uc;
	/* si_code > 0: the kernel's own (a fault), not a kill() or sigqueue() */
	if (a && si->si_code > 0 && (uintptr_t)si->si_addr - a->lo < a->len) {
		armed = NULL;
		siglongjmp(a->jb, 1);
	}
	(void)sigaction(SIGBUS, &saved, NULL);
	if (si->si_code <= 0)
		(void)raise(sig);
}

static int window_enter(void)
{
	/*
	 * SA_NODEFER and an empty sa_mask: the handler runs with the thread's
	 * own mask, so jumping out of it without restoring a mask (sigsetjmp's
	 * savemask 0, no system call per access) leaves the mask as it was.
	 */
	struct sigaction sa = { .sa_sigaction = on_sigbus, .sa_flags = SA_SIGINFO | SA_NODEFER };
	int r = 0;

	sigemptyset(&sa.sa_mask);
	pthread_mutex_lock(&lock);
	if (users == 0 && sigaction(SIGBUS, &sa, &saved) < 0)
		r = -errno;
	else
		users++;
	pthread_mutex_unlock(&lock);
	return r;
}

static void window_leave(void)
{
	pthread_mutex_lock(&lock);
	if (--users == 0)
		(void)sigaction(SIGBUS, &saved, NULL);
	pthread_mutex_unlock(&lock);
}

int hb_sigbus_guard(void (*fn)(void *), void *arg, const volatile void *map, size_t len)
{
	struct armed a = { .lo = (uintptr_t)map, .len = len };
	int r = window_enter();

	if (r < 0)
		return r;
	if (sigsetjmp(a.jb, 0) == 0) {
		armed = &a;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		fn(arg);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		armed = NULL;
		window_leave();
		return 0;
	}
	/* the handler jumped here and disarmed */
	window_leave();
	return -EFAULT;
}
