/* planted: a private header of kernel/ (daemon/private-include.c includes it) */
