// SPDX-License-Identifier: MIT
/*
 * hb-vm-exit <status>: leave the guest through QEMU's isa-debug-exit device
 * (iobase 0xf4); QEMU then exits with (status << 1) | 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/io.h>

int main(int argc, char **argv)
{
	int status = argc > 1 ? atoi(argv[1]) : 1;

	if (ioperm(0xf4, 4, 1) < 0) {
		perror("hb-vm-exit: ioperm");
		return 1;
	}
	outl((unsigned int)status, 0xf4);
	return 1;
}
