#!/bin/sh
# /init of the hotbridge test initramfs (busybox). The kernel command line
# says what to run: hb.run=<program>,<arg>,<arg>... (commas become spaces).
# Output goes to the serial console and to /share (the host's 9p folder);
# the exit status leaves through isa-debug-exit.
/bin/busybox --install -s /bin
export PATH=/bin:/usr/bin:/hb
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
# a modular kernel: load what run.sh put in, in dependency order (a line is
# the module's path and its parameters, if any)
if [ -f /etc-modules ]; then
	# shellcheck disable=SC2086
	while read -r ko args; do insmod "$ko" $args 2>/dev/null; done </etc-modules
	echo "hb-init: $(wc -l </etc-modules) modules loaded"
fi
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mkdir -p /dev/shm /tmp /share
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /tmp
mount -t 9p -o trans=virtio,version=9p2000.L hbshare /share 2>/dev/null || echo "hb-init: no 9p share"
run=$(sed -n 's/.*hb\.run=\([^ ]*\).*/\1/p' /proc/cmdline | tr ',' ' ')
echo "hb-init: kernel $(uname -r), running: $run"
if [ -z "$run" ]; then
	rc=2
else
	# shellcheck disable=SC2086
	/hb/$run >/tmp/out 2>&1
	rc=$?
	cat /tmp/out
	cp /tmp/out /share/output 2>/dev/null
fi
dmesg >/share/dmesg 2>/dev/null
# A test may declare a warning it provoked on purpose and identified as the
# kernel's own: /tmp/hb-known-warnings holds such "WARNING:" lines verbatim
# (see hb-vm-oracle.sh). Those are reported, not failed; any other fails.
# Lockdep (run.sh --kernel debug) says most as "WARNING:" (circular locking,
# inconsistent lock state) or "BUG:" (sleeping in atomic context); these
# two lines of its own say it found a lock it cannot check, or stopped.
dmesg | grep -E "BUG:|WARNING:|Oops|kernel BUG|bad page|INFO: trying to register non-static key|turning off the locking correctness validator" >/tmp/problems
if [ -s /tmp/hb-known-warnings ]; then
	grep -F -x -f /tmp/hb-known-warnings /tmp/problems | sed 's/^/hb-init: known kernel warning: /'
	grep -v -F -x -f /tmp/hb-known-warnings /tmp/problems >/tmp/bugs
else
	cp /tmp/problems /tmp/bugs
fi
if [ -s /tmp/bugs ]; then
	echo "hb-init: kernel reported problems:"
	cat /tmp/bugs
	[ "$rc" -eq 0 ] && rc=3
fi
echo "hb-init: exit $rc"
sync
/hb/hb-vm-exit "$rc"
echo "hb-init: isa-debug-exit did not stop the machine"
poweroff -f
