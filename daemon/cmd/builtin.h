/* SPDX-License-Identifier: MIT */
/* The hotbridge subcommands, cxl-cli style: cmd_X(argc, argv). */
#ifndef HB_BUILTIN_H
#define HB_BUILTIN_H

/* Exit status of translate/topology when an address or region lies in a case
 * hotbridge refuses to translate (normalized addressing, ...): see hotbridge(8). */
#define HB_EXIT_REFUSED 3

/*
 * An empty model (no CXL here, or a snapshot saved before any): loaded like
 * any other, live or from a file, with this warning on stderr, as cxl-cli
 * warns that it found no devices. topology and translate say it.
 */
struct hb_topology;
void hb_cmd_warn_empty_topology(const struct hb_topology *t, const char *prog);
/*
 * Each window of the CEDT src named (or the firmware's, live) that matched no
 * root decoder of t, warned about on stderr with the root decoder it overlaps,
 * if any: its arithmetic is not used. translate, topology and run say it.
 */
struct hb_topology_source;
void hb_cmd_warn_cedt_unmatched(const struct hb_topology *t, const struct hb_topology_source *src,
				const char *prog);

int hb_cmd_translate(int argc, char **argv);
int hb_cmd_topology(int argc, char **argv);
int hb_cmd_list(int argc, char **argv);
int hb_cmd_check_config(int argc, char **argv);
int hb_cmd_run(int argc, char **argv);
int hb_cmd_demo(int argc, char **argv);
int hb_cmd_status(int argc, char **argv);
int hb_cmd_stats(int argc, char **argv);
int hb_cmd_sources(int argc, char **argv);
int hb_cmd_explain(int argc, char **argv);
int hb_cmd_history(int argc, char **argv);
int hb_cmd_pause(int argc, char **argv);
int hb_cmd_resume(int argc, char **argv);
int hb_cmd_reload(int argc, char **argv);
int hb_cmd_metrics(int argc, char **argv);
int hb_cmd_top(int argc, char **argv);
int hb_cmd_heatmap(int argc, char **argv);

#endif
