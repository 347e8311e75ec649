// SPDX-License-Identifier: MIT
/*
 * Mapping the CHMU block on kernels with STRICT_DEVMEM / IO_STRICT_DEVMEM:
 * over a fake tree (tests/data/chmu-map/<case>: /proc/iomem in the
 * kernel's format, lockdown, the function's driver link) plus a BAR
 * resource file and a sparse /dev/mem that both hold the emulator's
 * registers at the block's place. mmap is wrapped: it refuses the sysfs
 * resource file the way the kernel does (EINVAL: the BAR's first page is
 * claimed; EPERM: lockdown) and records what was mapped from /dev/mem.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <cap-ng.h>
#include <json-c/json.h>

#include "builtin.h"
#include "chmu/chmu.h"
#include "emul/emul.h"
#include "devices.h"

#define MS 1000000ULL
#define BDF "0000:0d:00.0"
#define BAR2 0xfe210000ULL  /* the dump's BAR 2 */
#define CHMU_OFF 0x10000ULL /* the dump's CHMU block */

/* ---- the mmap seam (mmap64: what mmap is with _FILE_OFFSET_BITS=64) ---- */

void *__real_mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off);
void *__wrap_mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off);

static int refuse_sysfs;  /* errno for mmap of a resourceN file, 0: allow */
static int refuse_devmem; /* errno for mmap of dev/mem, 0: allow */
static unsigned int devmem_maps;
static size_t sysfs_len;
static off_t devmem_off;
static size_t devmem_len;

static bool ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);

	return a >= b && !strcmp(s + a - b, tail);
}

void *__wrap_mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	char link[64], path[1024];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = fd >= 0 ? readlink(link, path, sizeof(path) - 1) : -1;
	if (n > 0) {
		path[n] = '\0';
		if (refuse_sysfs && strstr(path, "/resource")) {
			errno = refuse_sysfs;
			return MAP_FAILED;
		}
		if (strstr(path, "/resource"))
			sysfs_len = len;
		if (refuse_devmem && ends_with(path, "/dev/mem")) {
			errno = refuse_devmem;
			return MAP_FAILED;
		}
		if (ends_with(path, "/dev/mem")) {
			devmem_maps++;
			devmem_off = off;
			devmem_len = len;
		}
	}
	return __real_mmap64(addr, len, prot, flags, fd, off);
}

/* ---- the tree ---- */

static char root[64];
static uint64_t block_bytes;

static void write_at(const char *path, uint64_t off, const uint8_t *img, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, img, n, (off_t)off), (ssize_t)n);
	close(fd);
}

/* The emulator, programmed, with three hot units waiting, as register bytes. */
static uint8_t *device_image(size_t *ret_n)
{
	struct hb_chmu_emul_params p;
	struct hb_chmu_range whole = { 0, 1ULL << 30 };
	struct hb_chmu_config c = { .unit_size = 4096,
				    .epoch_ns = 100 * MS,
				    .threshold = 1,
				    .ds_factor = 1,
				    .mode = HB_CHMU_MODE_EPOCH,
				    .ranges = &whole,
				    .nranges = 1 };
	struct hb_chmu_emul *emu;
	struct hb_chmu *drv;
	struct hb_regwin w;
	struct hb_err err = { 0 };
	uint8_t *img;

	hb_chmu_emul_params_default(&p);
	p.ds_factors |= 1;
	assert_int_equal(hb_chmu_emul_new(&p, &emu, &err), 0);
	hb_chmu_emul_window(emu, &w);
	assert_int_equal(hb_chmu_open(&w, 0, "mem0", &drv, &err), 0);
	assert_int_equal(hb_chmu_configure(drv, &c, &err), 0);
	hb_chmu_emul_access(emu, 0x5000, 3);
	hb_chmu_emul_access(emu, 0x9000, 4);
	hb_chmu_emul_access(emu, 0x20000000, 5);
	hb_chmu_emul_advance(emu, 100 * MS);
	img = calloc(1, w.size);
	assert_non_null(img);
	for (uint64_t off = 0; off + 8 <= w.size; off += 8) {
		uint64_t v = 0, h16 = 0, t16 = 0;

		if (off >= 0x10 && (off - 0x10) % hb_chmu_caps(drv)->instance_len == 0x68) {
			w.read(w.priv, off, 2, &h16); /* HEAD / TAIL are 16-bit */
			w.read(w.priv, off + 2, 2, &t16);
			v = h16 | t16 << 16;
		} else {
			w.read(w.priv, off, 8, &v);
		}
		memcpy(img + off, &v, 8);
	}
	*ret_n = w.size;
	hb_chmu_free(drv);
	hb_chmu_emul_free(emu);
	return img;
}

/* tests/data/chmu-map/<fixture> plus resource2 and dev/mem holding the device */
static void tree_make(const char *fixture)
{
	char cmd[1024], path[512];
	uint8_t *img;
	size_t n;

	snprintf(root, sizeof(root), "/tmp/hb-test-chmu-map-XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(cmd, sizeof(cmd), "cp -a %s/chmu-map/%s/. %s/ && mkdir -p %s/dev",
		 getenv("HB_TEST_DATA"), fixture, root, root);
	assert_int_equal(system(cmd), 0);
	img = device_image(&n);
	block_bytes = n;
	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/" BDF "/resource2", root);
	write_at(path, CHMU_OFF, img, n);
	snprintf(path, sizeof(path), "%s/dev/mem", root);
	write_at(path, BAR2 + CHMU_OFF, img, n); /* sparse: only the block's pages */
	free(img);
	refuse_sysfs = 0;
	refuse_devmem = 0;
	devmem_maps = 0;
}

static void tree_remove(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

/* ---- the chmu source ---- */

static struct hb_hot_record got[16];
static size_t ngot;
static char logbuf[4][512];
static unsigned int nlog;

static int submit(struct hb_host *h, const struct hb_hot_record *r, size_t n)
{
	for (size_t i = 0; i < n && ngot < 16; i++)
		got[ngot++] = r[i];
	return 0;
}

static void logf_(struct hb_host *h, int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(logbuf[nlog % 4], sizeof(logbuf[0]), fmt, ap);
	va_end(ap);
	nlog++;
}

static const char *last_log(void)
{
	return nlog ? logbuf[(nlog - 1) % 4] : "";
}

/* the last message containing needle, or "" */
static const char *find_log(const char *needle)
{
	for (unsigned int i = 0; i < 4 && i < nlog; i++)
		if (strstr(logbuf[(nlog - 1 - i) % 4], needle))
			return logbuf[(nlog - 1 - i) % 4];
	return "";
}

static int source_open(void **ret_priv)
{
	static const struct hb_host_ops host = {
		.abi_major = 1, .size = sizeof(host), .log = logf_, .submit = submit
	};
	char dump[512], sysroot[128];
	const char *prm[] = { dump,        sysroot, "dpa_ranges=0x0+0x40000000",
			      "unit=4096", "ds=1",  "threshold=1",
			      NULL };
	struct hb_dev_info info = {
		.size = sizeof(info), .name = "cxl0", .memdev = "mem0", .pci_bdf = BDF, .params = prm
	};

	snprintf(dump, sizeof(dump), "pci_dump=%s/pci/qemu72-cxl-type3-chmu-128k.lspci",
		 getenv("HB_TEST_DATA"));
	snprintf(sysroot, sizeof(sysroot), "sysfs_root=%s", root);
	ngot = 0;
	nlog = 0;
	return hb_source_chmu_test.open(&host, NULL, &info, ret_priv);
}

static void test_chmu_source_maps_only_the_block_from_devmem_when_sysfs_is_refused(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	void *priv = NULL;

	tree_make("unclaimed");
	refuse_sysfs = EINVAL; /* cxl_pci claims BAR 2's first page */
	if (source_open(&priv) != 0)
		fail_msg("open: %s", last_log());
	assert_non_null(strstr(find_log("CHMU block mapped from"), "CHMU block mapped from"));
	if (!strstr(find_log("CHMU block mapped from"),
		    "/dev/mem (" BDF " resource2: mmap refused (EINVAL): BAR 2's first "
		    "page is claimed by " BDF " (kernel driver cxl_pci))"))
		fail_msg("%s", find_log("CHMU block mapped from"));
	/* the block's own pages at its physical address, nothing more */
	assert_int_equal(devmem_maps, 2); /* the capabilities, then the block */
	assert_int_equal(devmem_off, BAR2 + CHMU_OFF);
	assert_int_equal(devmem_len, block_bytes); /* the kernel maps whole pages of it */
	assert_true(devmem_len < (size_t)page * 3);
	/* the driver reads the device's registers through it */
	assert_int_equal(hb_source_chmu_test.poll(priv), 0);
	assert_int_equal(ngot, 3);
	assert_int_equal(got[0].addr, 0x5000);
	assert_int_equal(got[1].count, 4);
	assert_int_equal(got[2].addr, 0x20000000);
	hb_source_chmu_test.close(priv);
	tree_remove();
}

/* sysfs refuses (EINVAL) or not: both mappings are revoked when a driver claims the range */
static void claimed_later(int sysfs)
{
	char cmd[1024];
	void *priv = NULL;

	tree_make("unclaimed");
	refuse_sysfs = sysfs;
	if (source_open(&priv) != 0)
		fail_msg("open: %s", last_log());
	assert_int_equal(hb_source_chmu_test.poll(priv), 0);
	assert_int_equal(ngot, 3);
	if (!sysfs)
		assert_int_equal(sysfs_len, block_bytes); /* the block, not 1 MiB of the BAR */
	/* a CHMU driver loads: the kernel revokes /dev/mem mappings of what it claims */
	snprintf(cmd, sizeof(cmd), "cp %s/chmu-map/claimed/proc/iomem %s/proc/iomem",
		 getenv("HB_TEST_DATA"), root);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(hb_source_chmu_test.poll(priv), -EBUSY);
	assert_non_null(strstr(last_log(), "are claimed by " BDF " (kernel driver cxl_pci); it was "
					   "claimed after hotbridge mapped it"));
	nlog = 0;
	assert_int_equal(hb_source_chmu_test.poll(priv), -EBUSY);
	assert_int_equal(nlog, 0); /* said once */
	hb_source_chmu_test.close(priv);
	tree_remove();
}

static void test_chmu_source_stops_touching_the_block_once_a_driver_claims_it(void **state)
{
	claimed_later(EINVAL); /* mapped from /dev/mem */
	claimed_later(0);      /* mapped from sysfs */
}

/*
 * review C1: a driver that claims the block after the source's /proc/iomem
 * check (request_mem_region() -> revoke_iomem()) leaves the drain to fault.
 * The fault here is a real SIGBUS: resource2 is truncated under its shared
 * mapping, and an access past a shared file mapping's end raises SIGBUS.
 * The polls run in a child with SIGBUS's default action (cmocka catches it
 * otherwise): the child must live, and the source say it lost the block.
 */
struct sigbus_result {
	int first, second;
	unsigned int logs_first, logs_second;
	char log[512];
};

static void test_chmu_source_survives_sigbus_when_the_mapping_is_revoked(void **state)
{
	struct sigbus_result res = { 0 };
	char path[512];
	void *priv = NULL;
	int fds[2], status;
	pid_t pid;

	tree_make("unclaimed"); /* mapped from the sysfs resource file */
	if (source_open(&priv) != 0)
		fail_msg("open: %s", last_log());
	assert_int_equal(hb_source_chmu_test.poll(priv), 0);
	assert_int_equal(ngot, 3);
	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/" BDF "/resource2", root);
	assert_int_equal(pipe(fds), 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		signal(SIGBUS, SIG_DFL);
		close(fds[0]);
		/* the kernel revokes the mapping: every page of it faults from now on */
		if (truncate(path, 0) < 0)
			_exit(3);
		nlog = 0;
		res.first = hb_source_chmu_test.poll(priv); /* /proc/iomem still unclaimed */
		res.logs_first = nlog;
		snprintf(res.log, sizeof(res.log), "%s", last_log());
		res.second = hb_source_chmu_test.poll(priv);
		res.logs_second = nlog - res.logs_first;
		hb_source_chmu_test.close(priv); /* does not touch the block either */
		if (write(fds[1], &res, sizeof(res)) != (ssize_t)sizeof(res))
			_exit(4);
		_exit(0);
	}
	close(fds[1]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status))
		fail_msg("the process died of signal %d (%s) when the mapping was revoked",
			 WTERMSIG(status), strsignal(WTERMSIG(status)));
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(read(fds[0], &res, sizeof(res)), (ssize_t)sizeof(res));
	close(fds[0]);
	/* the source stops, says why once, and never touches the block again */
	assert_int_equal(res.first, -ENXIO);
	assert_int_equal(res.logs_first, 1);
	if (!strstr(res.log, "faulted (SIGBUS)") || !strstr(res.log, "revoked") ||
	    !strstr(res.log, "not touching it again"))
		fail_msg("%s", res.log);
	assert_int_equal(res.second, -ENXIO);
	assert_int_equal(res.logs_second, 0);
	hb_source_chmu_test.close(priv);
	tree_remove();
}

static void touch(void *arg)
{
	(void)*(volatile uint8_t *)arg;
}

/*
 * The SIGBUS window catches only its own access: a fault elsewhere still
 * kills the process (a crash stays a crash), and SIGBUS's disposition is
 * the one from before once the window closes.
 */
static void test_chmu_sigbus_window_catches_only_its_own_access(void **state)
{
	char path[] = "/tmp/hb-test-sigbus-XXXXXX";
	long page = sysconf(_SC_PAGESIZE);
	int fd = mkstemp(path), status;
	uint8_t *map, *other;
	pid_t pid;

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 2 * page), 0);
	map = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED, fd, 0);
	other = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED, fd, page);
	assert_true(map != MAP_FAILED && other != MAP_FAILED);
	assert_int_equal(ftruncate(fd, 0), 0); /* both pages fault from now on */
	close(fd);
	unlink(path);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct sigaction now;

		signal(SIGBUS, SIG_DFL);
		if (hb_sigbus_guard(touch, map, map, (size_t)page) != -EFAULT)
			_exit(2);
		if (sigaction(SIGBUS, NULL, &now) < 0 || now.sa_handler != SIG_DFL)
			_exit(3);
		/* a fault at an address outside the window's mapping is not its own */
		(void)hb_sigbus_guard(touch, other, map, (size_t)page);
		_exit(4);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFSIGNALED(status))
		fail_msg("the child exited %d: the window swallowed a fault not its own",
			 WEXITSTATUS(status));
	assert_int_equal(WTERMSIG(status), SIGBUS);
	munmap(map, (size_t)page);
	munmap(other, (size_t)page);
}

static void test_chmu_source_refuses_a_block_a_driver_claimed_and_names_it(void **state)
{
	void *priv = NULL;

	tree_make("claimed");
	refuse_sysfs = EINVAL;
	assert_int_equal(source_open(&priv), -EBUSY);
	assert_non_null(strstr(last_log(), "CHMU registers at 0xfe220000-0xfe2"));
	assert_non_null(strstr(last_log(), "are claimed by " BDF " (kernel driver cxl_pci); the "
					   "kernel refuses user mappings of claimed MMIO under "
					   "IO_STRICT_DEVMEM"));
	assert_int_equal(devmem_maps, 0);
	tree_remove();
}

static void test_chmu_source_refuses_a_claimed_block_even_when_sysfs_maps_it(void **state)
{
	void *priv = NULL;

	tree_make("claimed"); /* iomem=relaxed, or a claim past the first page */
	assert_int_equal(source_open(&priv), -EBUSY);
	assert_non_null(strstr(last_log(), "are claimed by " BDF " (kernel driver cxl_pci); "
					   "refusing to drive registers a kernel driver owns"));
	tree_remove();
}

/* /proc/iomem does not show every reason (System RAM, IORESOURCE_EXCLUSIVE) */
static void test_chmu_source_says_when_the_kernel_refuses_the_devmem_pages(void **state)
{
	void *priv = NULL;

	tree_make("unclaimed");
	refuse_sysfs = EINVAL;
	refuse_devmem = EPERM;
	assert_int_equal(source_open(&priv), -EPERM);
	if (!strstr(last_log(), "/dev/mem: the kernel refused 0xfe220000-0xfe22000f (STRICT_DEVMEM"))
		fail_msg("%s", last_log());
	assert_non_null(strstr(last_log(), "resource2: mmap refused (EINVAL"));
	tree_remove();
}

static void test_chmu_source_does_not_try_devmem_under_lockdown(void **state)
{
	void *priv = NULL;

	tree_make("integrity");
	refuse_sysfs = EPERM;
	assert_int_equal(source_open(&priv), -EPERM);
	assert_non_null(strstr(last_log(), "kernel lockdown is 'integrity'"));
	assert_non_null(strstr(last_log(), "resource2: mmap refused (EPERM"));
	assert_int_equal(devmem_maps, 0);
	tree_remove();
}

static void test_chmu_source_says_iomem_addresses_need_cap_sys_admin(void **state)
{
	void *priv = NULL;

	tree_make("nonroot");
	refuse_sysfs = EINVAL;
	assert_int_equal(source_open(&priv), -EPERM);
	assert_non_null(strstr(last_log(), "the claims on the CHMU block are unknown"));
	if (!strstr(last_log(), "needs CAP_SYS_ADMIN"))
		fail_msg("%s", last_log());
	assert_int_equal(devmem_maps, 0);
	tree_remove();
}

/* ---- /proc/iomem ---- */

static void test_chmu_iomem_claims_are_the_resources_nested_under_the_bar(void **state)
{
	const struct hb_iomem_entry *c = NULL;
	struct hb_err err = { 0 };
	struct hb_iomem m;
	char path[512];

	snprintf(path, sizeof(path), "%s/chmu-map/claimed/proc/iomem", getenv("HB_TEST_DATA"));
	assert_int_equal(hb_iomem_load(path, &m, &err), 0);
	/* BAR 2's first page: the device registers cxl_pci mapped */
	assert_int_equal(hb_iomem_find_claim(&m, BDF, BAR2, BAR2, BAR2 + 0xfff, &c), 1);
	assert_int_equal(c->start, 0xfe210080);
	assert_int_equal(c->depth, 4);
	/* the CHMU block */
	assert_int_equal(hb_iomem_find_claim(&m, BDF, BAR2, 0xfe220000, 0xfe220fff, &c), 1);
	assert_string_equal(c->name, BDF);
	/* between them, inside the BAR: free */
	assert_int_equal(hb_iomem_find_claim(&m, BDF, BAR2, 0xfe211000, 0xfe21ffff, &c), 0);
	/* the BAR entry itself and the bridge windows above it are no claim */
	assert_int_equal(hb_iomem_find_claim(&m, BDF, 0xfe230000, 0xfe230000, 0xfe230fff, &c), 0);
	/* a BAR that is not listed */
	assert_int_equal(hb_iomem_find_claim(&m, BDF, 0xfe240000, 0xfe240000, 0xfe240fff, &c),
			 -ENOENT);
	hb_iomem_done(&m);

	snprintf(path, sizeof(path), "%s/chmu-map/unclaimed/proc/iomem", getenv("HB_TEST_DATA"));
	assert_int_equal(hb_iomem_load(path, &m, &err), 0);
	assert_int_equal(hb_iomem_find_claim(&m, BDF, BAR2, 0xfe220000, 0xfe222fff, &c), 0);
	assert_int_equal(m.v[m.n - 1].start, 0x290000000ULL); /* 9-digit addresses */
	assert_string_equal(m.v[m.n - 1].name, "CXL Window 0");
	hb_iomem_done(&m);
}

/* captured from this build host's kernel (6.18, as root): a driver's claim on a BAR */
static void test_chmu_iomem_reads_a_captured_kernel_iomem(void **state)
{
	const struct hb_iomem_entry *c = NULL;
	struct hb_err err = { 0 };
	struct hb_iomem m;
	char path[512];

	snprintf(path, sizeof(path), "%s/chmu-map/iomem-firecracker-6.18-virtio",
		 getenv("HB_TEST_DATA"));
	assert_int_equal(hb_iomem_load(path, &m, &err), 0);
	assert_int_equal(m.n, 27);
	assert_int_equal(hb_iomem_find_claim(&m, "0000:00:03.0", 0x4000100000ULL, 0x4000100000ULL,
					     0x4000100fffULL, &c),
			 1);
	assert_string_equal(c->name, "virtio-pci-modern");
	assert_int_equal(c->end, 0x400017ffffULL);
	assert_int_equal(c->depth, 2);
	hb_iomem_done(&m);
}

/*
 * The kernel decides whether /proc/iomem shows addresses by the opener's
 * credentials, so the source keeps the file it opened at start-up: after
 * the daemon drops CAP_SYS_ADMIN a fresh open shows zeros, the kept one
 * still shows them. Runs against this host's kernel, as root.
 */
static void test_chmu_iomem_kept_open_shows_addresses_after_the_capability_drop(void **state)
{
	int fd, status;
	pid_t pid;

	if (geteuid() != 0)
		skip();
	fd = open("/proc/iomem", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct hb_err err = { 0 };
		struct hb_iomem m;
		int r;

		capng_clear(CAPNG_SELECT_BOTH);
		if (capng_apply(CAPNG_SELECT_BOTH) < 0)
			_exit(77);
		r = hb_iomem_load("/proc/iomem", &m, &err);
		if (r != -EPERM)
			_exit(1); /* a fresh open must show zeros now */
		if (hb_iomem_load_fd(fd, "/proc/iomem", &m, &err) < 0 || !m.n)
			_exit(2);
		hb_iomem_done(&m);
		if (hb_iomem_load_fd(fd, "/proc/iomem", &m, &err) < 0 || !m.n)
			_exit(3); /* and again: it is read from the start each time */
		hb_iomem_done(&m);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	close(fd);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		skip();
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* behind two switches the kernel prints the BAR and its claims at the same depth, 5 */
static void test_chmu_iomem_claims_are_found_below_the_printed_depth_cap(void **state)
{
	static const char text[] = "c0000000-febfffff : PCI Bus 0000:00\n"
				   "  fe000000-fe3fffff : PCI Bus 0000:0c\n"
				   "    fe000000-fe3fffff : PCI Bus 0000:0d\n"
				   "      fe000000-fe3fffff : PCI Bus 0000:0e\n"
				   "        fe000000-fe3fffff : PCI Bus 0000:0f\n"
				   "          fe200000-fe20ffff : 0000:10:00.0\n"
				   "          fe210000-fe22ffff : 0000:10:00.0\n"
				   "          fe210080-fe21008f : 0000:10:00.0\n"
				   "          fe220000-fe22ffff : cxl_hmu\n"
				   "          fe230000-fe230fff : 0000:10:00.0\n"
				   "fec00000-fec003ff : IOAPIC 0\n";
	char path[] = "/tmp/hb-test-iomem-XXXXXX";
	const struct hb_iomem_entry *c = NULL;
	struct hb_err err = { 0 };
	struct hb_iomem m;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
	close(fd);
	assert_int_equal(hb_iomem_load(path, &m, &err), 0);
	unlink(path);
	assert_int_equal(m.v[5].depth, 5);
	assert_int_equal(hb_iomem_find_claim(&m, "0000:10:00.0", BAR2, 0xfe220000, 0xfe220fff, &c),
			 1);
	assert_string_equal(c->name, "cxl_hmu");
	assert_int_equal(hb_iomem_find_claim(&m, "0000:10:00.0", BAR2, BAR2, BAR2 + 0xfff, &c), 1);
	assert_int_equal(c->start, 0xfe210080);
	/* the BAR after it, at the same depth, is not nested in it */
	assert_int_equal(hb_iomem_find_claim(&m, "0000:10:00.0", 0xfe200000, 0xfe200000, 0xfe20ffff,
					     &c),
			 0);
	hb_iomem_done(&m);
}

static void test_chmu_iomem_bad_input_is_named(void **state)
{
	char path[] = "/tmp/hb-test-iomem-XXXXXX";
	struct hb_err err = { 0 };
	struct hb_iomem m;
	char mode[32];
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "00000000-00000fff : Reserved\nfe200000 : broken\n", 47), 47);
	close(fd);
	assert_int_equal(hb_iomem_load(path, &m, &err), -EINVAL);
	assert_non_null(strstr(err.msg, ":2: not '<start>-<end> : <name>'"));
	assert_int_equal(hb_lockdown_mode(path, mode, sizeof(mode)), -EINVAL);
	unlink(path);
	assert_int_equal(hb_iomem_load(path, &m, &err), -ENOENT);
	snprintf(path, sizeof(path), "%s", "/nonexistent");
	assert_int_equal(hb_lockdown_mode(path, mode, sizeof(mode)), -ENOENT);
}

/* ---- hotbridge list ---- */

static json_object *run_list(void)
{
	char dump[512], out[] = "/tmp/hb-test-list-XXXXXX";
	char *argv[] = { "list", "--pci-dump",   dump,           "--sysfs-root",
			 root,   "--plugin-dir", "/nonexistent", NULL };
	int fd = mkstemp(out), saved;
	json_object *j;

	assert_true(fd >= 0);
	snprintf(dump, sizeof(dump), "%s/pci/qemu72-cxl-type3-chmu-128k.lspci",
		 getenv("HB_TEST_DATA"));
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	dup2(fd, STDOUT_FILENO);
	optind = 0;
	(void)hb_cmd_list(7, argv);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	close(fd);
	j = json_object_from_file(out);
	unlink(out);
	assert_non_null(j);
	return j;
}

static json_object *memdev0(json_object *top)
{
	json_object *a, *o;

	assert_true(json_object_object_get_ex(top, "cxl_memdevs", &a));
	assert_int_equal(json_object_array_length(a), 1);
	o = json_object_array_get_idx(a, 0);
	return o;
}

static void test_chmu_list_says_why_the_block_cannot_be_mapped(void **state)
{
	json_object *top, *v;

	tree_make("claimed");
	refuse_sysfs = EINVAL;
	top = run_list();
	assert_true(json_object_object_get_ex(memdev0(top), "chmu_error", &v));
	assert_non_null(strstr(json_object_get_string(v),
			       "are claimed by " BDF
			       " (kernel driver cxl_pci); the kernel refuses user mappings of "
			       "claimed MMIO under IO_STRICT_DEVMEM"));
	json_object_put(top);
	tree_remove();

	tree_make("unclaimed");
	refuse_sysfs = EINVAL;
	top = run_list();
	assert_false(json_object_object_get_ex(memdev0(top), "chmu_error", &v));
	assert_true(json_object_object_get_ex(memdev0(top), "chmu_mapping", &v));
	assert_non_null(strstr(json_object_get_string(v),
			       "/dev/mem (" BDF " resource2: mmap "
			       "refused (EINVAL): BAR 2's first page is claimed by " BDF
			       " (kernel driver cxl_pci))"));
	assert_true(json_object_object_get_ex(memdev0(top), "chmu_capabilities", &v));
	json_object_put(top);
	tree_remove();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			test_chmu_source_maps_only_the_block_from_devmem_when_sysfs_is_refused),
		cmocka_unit_test(test_chmu_source_stops_touching_the_block_once_a_driver_claims_it),
		cmocka_unit_test(test_chmu_source_survives_sigbus_when_the_mapping_is_revoked),
		cmocka_unit_test(test_chmu_sigbus_window_catches_only_its_own_access),
		cmocka_unit_test(test_chmu_source_refuses_a_block_a_driver_claimed_and_names_it),
		cmocka_unit_test(test_chmu_source_refuses_a_claimed_block_even_when_sysfs_maps_it),
		cmocka_unit_test(test_chmu_source_says_when_the_kernel_refuses_the_devmem_pages),
		cmocka_unit_test(test_chmu_source_does_not_try_devmem_under_lockdown),
		cmocka_unit_test(test_chmu_source_says_iomem_addresses_need_cap_sys_admin),
		cmocka_unit_test(test_chmu_iomem_claims_are_the_resources_nested_under_the_bar),
		cmocka_unit_test(test_chmu_iomem_reads_a_captured_kernel_iomem),
		cmocka_unit_test(test_chmu_iomem_kept_open_shows_addresses_after_the_capability_drop),
		cmocka_unit_test(test_chmu_iomem_claims_are_found_below_the_printed_depth_cap),
		cmocka_unit_test(test_chmu_iomem_bad_input_is_named),
		cmocka_unit_test(test_chmu_list_says_why_the_block_cannot_be_mapped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
