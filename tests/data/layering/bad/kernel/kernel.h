/* planted: kernel/'s public header (daemon/private-include.c may include it) */
