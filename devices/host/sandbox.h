/* SPDX-License-Identifier: MIT */
/*
 * The plugin host's confinement (sandbox.c), applied before the plugin is
 * loaded, so its constructors run confined too.
 */
#ifndef HB_HOST_SANDBOX_H
#define HB_HOST_SANDBOX_H

#include <stdint.h>

#include "util/util.h"

/*
 * rlimits (address space mem_limit bytes, 0: none; no core files; 256
 * fds), every capability but file access (CAP_DAC_OVERRIDE,
 * CAP_DAC_READ_SEARCH) and register access (CAP_SYS_RAWIO) dropped, the
 * bounding set too, PR_SET_NO_NEW_PRIVS, then a seccomp filter that
 * refuses (EPERM) what a telemetry reader never needs: ptrace and the
 * process_vm_* calls, mount and namespaces, kexec, kernel modules, bpf,
 * keys, reboot, swap, the clocks, moving pages, and signals to any process
 * but the host itself. 0, or -errno with err saying which step failed.
 */
int hb_host_sandbox(uint64_t mem_limit, struct hb_err *err);

#endif
