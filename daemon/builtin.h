/* SPDX-License-Identifier: MIT */
/* The hotbridge subcommands, cxl-cli style: cmd_X(argc, argv). */
#ifndef HB_BUILTIN_H
#define HB_BUILTIN_H

int hb_cmd_translate(int argc, char **argv);
int hb_cmd_topology(int argc, char **argv);
int hb_cmd_list(int argc, char **argv);
int hb_cmd_check_config(int argc, char **argv);
int hb_cmd_run(int argc, char **argv);
int hb_cmd_demo(int argc, char **argv);

#endif
