// SPDX-License-Identifier: MIT
/*
 * daemon/util/lock.c and socket.c: one holder per PID lock file, and the
 * refused one learns the holder's PID; the lock file is never a link or a
 * special file; a UNIX listener replaces only a dead socket and removes only
 * the socket it bound, and serves root and our own uid only.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "lock.h"
#include "util/util.h"

struct fixture {
	char dir[64];
	char path[128];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/hb-test-lock-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/control.lock", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	(void)!system(cmd);
	free(f);
	return 0;
}

static void test_lock_second_taker_gets_the_holders_pid(void **state)
{
	struct fixture *f = *state;
	struct hb_err err = { 0 };
	pid_t holder = 0;
	int fd = -1, fd2 = -1;
	char buf[32];

	assert_int_equal(hb_pid_lock_take(f->path, &fd, NULL, &err), 0);
	assert_true(fd >= 0);
	assert_true(hb_read_text(NULL, f->path, buf, sizeof(buf)) > 0);
	assert_int_equal(atoi(buf), getpid());
	/* another open file description, as a second daemon would have */
	assert_int_equal(hb_pid_lock_take(f->path, &fd2, &holder, &err), -EWOULDBLOCK);
	assert_int_equal(fd2, -1);
	assert_int_equal(holder, getpid());
	assert_non_null(strstr(err.msg, "held by pid"));
	fd = hb_pid_lock_release(fd);
	assert_int_equal(fd, -1);
	/* released: the next one takes it, the file stays */
	assert_int_equal(hb_pid_lock_take(f->path, &fd2, &holder, &err), 0);
	fd2 = hb_pid_lock_release(fd2);
}

static void test_lock_held_by_another_process(void **state)
{
	struct fixture *f = *state;
	struct hb_err err = { 0 };
	int go[2], done[2], fd = -1, status;
	pid_t child, holder = 0;
	char c;

	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(done), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		int cfd = -1;

		if (hb_pid_lock_take(f->path, &cfd, NULL, NULL) < 0)
			_exit(1);
		(void)!write(go[1], "x", 1);
		(void)!read(done[0], &c, 1);
		_exit(0);
	}
	assert_int_equal(read(go[0], &c, 1), 1);
	assert_int_equal(hb_pid_lock_take(f->path, &fd, &holder, &err), -EWOULDBLOCK);
	assert_int_equal(holder, child);
	assert_int_equal(write(done[1], "x", 1), 1);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* its holder is gone (as after kill -9): the stale PID in it means nothing */
	assert_int_equal(hb_pid_lock_take(f->path, &fd, &holder, &err), 0);
	fd = hb_pid_lock_release(fd);
	close(go[0]);
	close(go[1]);
	close(done[0]);
	close(done[1]);
}

static void test_lock_refuses_links_and_special_files(void **state)
{
	struct fixture *f = *state;
	struct hb_err err = { 0 };
	char victim[160];
	int fd = -1;

	snprintf(victim, sizeof(victim), "%s/victim", f->dir);
	assert_int_equal(close(open(victim, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)), 0);
	assert_int_equal(symlink(victim, f->path), 0);
	assert_int_equal(hb_pid_lock_take(f->path, &fd, NULL, &err), -ELOOP);
	assert_non_null(strstr(err.msg, "symbolic link"));
	assert_int_equal(fd, -1);
	assert_int_equal(unlink(f->path), 0);
	assert_int_equal(mkfifo(f->path, 0600), 0);
	assert_int_equal(hb_pid_lock_take(f->path, &fd, NULL, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "not a regular file"));
	assert_int_equal(unlink(f->path), 0);
	/* the victim was never written */
	{
		struct stat st;

		assert_int_equal(stat(victim, &st), 0);
		assert_int_equal(st.st_size, 0);
	}
}

static void test_lock_creates_its_directory(void **state)
{
	struct fixture *f = *state;
	struct hb_err err = { 0 };
	char path[160];
	struct stat st;
	int fd = -1;

	snprintf(path, sizeof(path), "%s/run/control.lock", f->dir);
	assert_int_equal(hb_pid_lock_take(path, &fd, NULL, &err), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	fd = hb_pid_lock_release(fd);
}

static int connect_to(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -errno;
	}
	return fd;
}

static void test_socket_mode_stale_live_and_removal(void **state)
{
	struct fixture *f = *state;
	struct hb_unix_listener a = { .fd = -1 }, b = { .fd = -1 };
	struct hb_err err = { 0 };
	char path[160];
	struct stat st;
	mode_t old;
	int c;

	snprintf(path, sizeof(path), "%s/ctl.sock", f->dir);
	/* the one policy, owner only, whatever the umask */
	old = umask(0);
	assert_int_equal(hb_unix_listen(path, 4, &a, &err), 0);
	umask(old);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(HB_UNIX_SOCKET_MODE, 0600);
	/* a live listener is not replaced */
	assert_int_equal(hb_unix_listen(path, 4, &b, &err), -EADDRINUSE);
	assert_non_null(strstr(err.msg, "another process listens"));
	c = connect_to(path);
	assert_true(c >= 0);
	close(c);
	/* a dead one (its fd closed without unlinking, as after kill -9) is */
	close(a.fd);
	assert_int_equal(connect_to(path), -ECONNREFUSED);
	/* past the file system's timestamp granularity: the new node's ctime differs */
	usleep(20000);
	assert_int_equal(hb_unix_listen(path, 4, &b, &err), 0);
	c = connect_to(path);
	assert_true(c >= 0);
	close(c);
	/* a's close must not remove b's socket: it is not the one a bound */
	a.fd = dup(b.fd);
	hb_unix_listener_close(&a);
	assert_int_equal(lstat(path, &st), 0);
	hb_unix_listener_close(&b);
	assert_int_equal(lstat(path, &st), -1);
	assert_int_equal(errno, ENOENT);
}

static void test_socket_never_replaces_a_file_or_a_link(void **state)
{
	struct fixture *f = *state;
	struct hb_unix_listener l = { .fd = -1 };
	struct hb_err err = { 0 };
	char path[160], victim[160];
	struct stat st;

	snprintf(path, sizeof(path), "%s/feed.sock", f->dir);
	snprintf(victim, sizeof(victim), "%s/victim", f->dir);
	assert_int_equal(close(open(victim, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)), 0);
	assert_int_equal(symlink(victim, path), 0);
	assert_int_equal(hb_unix_listen(path, 4, &l, &err), -EEXIST);
	assert_non_null(strstr(err.msg, "is not a socket"));
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(hb_unix_unlink(path), -ENOTSOCK);
	assert_int_equal(hb_unix_unlink(victim), -ENOTSOCK);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(hb_unix_listen(victim, 4, &l, &err), -EEXIST);
	assert_int_equal(stat(victim, &st), 0);
	assert_true(S_ISREG(st.st_mode));
}

/* The peer policy both sockets share: root and our own uid, nobody else. */
static void test_socket_peers_root_and_own_uid_only(void **state)
{
	struct fixture *f = *state;
	struct hb_unix_listener l = { .fd = -1 };
	struct hb_err err = { 0 };
	char path[160];
	uid_t uid = 12345;
	int c, s, st;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/feed.sock", f->dir);
	assert_int_equal(hb_unix_listen(path, 4, &l, &err), 0);
	c = connect_to(path);
	assert_true(c >= 0);
	s = hb_unix_accept(&l);
	assert_true(s >= 0);
	assert_true(fcntl(s, F_GETFD) & FD_CLOEXEC);
	assert_true(fcntl(s, F_GETFL) & O_NONBLOCK);
	assert_int_equal(hb_unix_peer_check(s, &uid), 0);
	assert_int_equal(uid, geteuid());
	close(s);
	close(c);
	/* nobody queued: -EAGAIN, not a blocked test */
	assert_int_equal(hb_unix_accept(&l), -EAGAIN);
	if (geteuid() != 0) {
		print_message("# not root: the other-uid peer is not tried\n");
		hb_unix_listener_close(&l);
		return;
	}
	/* another user, let through the mode (0711 directory, 0666 node) to reach the check */
	assert_int_equal(chmod(f->dir, 0711), 0);
	assert_int_equal(chmod(path, 0666), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char b;

		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(2);
		c = connect_to(path);
		_exit(c >= 0 && read(c, &b, 1) >= 0 ? 0 : 1); /* until the test hangs up */
	}
	for (int i = 0; i < 500 && (s = hb_unix_accept(&l)) == -EAGAIN; i++)
		usleep(10000);
	assert_true(s >= 0);
	assert_int_equal(hb_unix_peer_check(s, &uid), -EPERM);
	assert_int_equal(uid, 65534);
	close(s);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	hb_unix_listener_close(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_lock_second_taker_gets_the_holders_pid, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_lock_held_by_another_process, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_refuses_links_and_special_files, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_lock_creates_its_directory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_socket_peers_root_and_own_uid_only, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_socket_mode_stale_live_and_removal, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_socket_never_replaces_a_file_or_a_link, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
