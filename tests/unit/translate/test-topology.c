// SPDX-License-Identifier: MIT
/*
 * The JSON loader, the CEDT parser and the lookups: good documents load
 * and translate; broken ones fail with a message naming the object, and
 * no topology is handed out.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <json-c/json.h>

#include "translate.h"

static char *data_path(const char *rel)
{
	const char *dir = getenv("HB_TEST_DATA");
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s/%s", dir ? dir : "tests/data", rel);
	return buf;
}

/* The real `cxl list -vvv` output of ndctl 76.1 for a 2-way region (notes 4.4) */
static void test_topology_loads_nested_cxl_list(void **state)
{
	_hb_cleanup_topology_ struct hb_topology *t = NULL;
	struct hb_err err = { 0 };
	struct hb_xlat x;
	int md;

	assert_int_equal(hb_topology_load_json_file(data_path("snapshots/x2-vvv-notes.json"), NULL,
						    &t, &err),
			 0);
	assert_int_equal(hb_topology_nr_memdevs(t), 2);
	assert_int_equal(hb_topology_nr_regions(t), 1);
	assert_int_equal(hb_topology_nr_roots(t), 1);
	md = hb_topology_find_memdev(t, "mem1");
	assert_true(md >= 0);
	assert_int_equal(hb_topology_dpa_to_hpa(t, md, 0x5123, &x, &err), 0);
	assert_int_equal(x.hpa, 0x39000B123ull);
	assert_int_equal(x.pos, 1);
	assert_int_equal(hb_topology_hpa_to_dpa(t, 0x39000B123ull, &x, &err), 0);
	assert_int_equal(x.memdev, md);
	assert_int_equal(x.dpa, 0x5123);
}

static const char flat_u[] =
	"[{\"memdevs\":[{\"memdev\":\"mem0\",\"pmem_size\":\"512.00 MiB (536.87 MB)\"},"
	"{\"memdev\":\"mem1\"}]},"
	"{\"root decoders\":[{\"decoder\":\"decoder0.0\",\"resource\":\"0x390000000\","
	"\"size\":\"4.00 GiB (4.29 GB)\",\"interleave_ways\":1,"
	"\"regions:decoder0.0\":[{\"region\":\"region0\",\"resource\":\"0x390000000\","
	"\"size\":\"512.00 MiB (536.87 MB)\",\"interleave_ways\":1,\"interleave_granularity\":4096,"
	"\"decode_state\":\"commit\",\"mappings\":[{\"position\":0,\"memdev\":\"mem0\","
	"\"decoder\":\"decoder2.0\"}]},"
	"{\"region\":\"region1\",\"resource\":\"0x3b0000000\",\"size\":\"256.00 MiB (268.44 MB)\","
	"\"interleave_ways\":1,\"interleave_granularity\":256,\"decode_state\":\"reset\"}]}]},"
	"{\"endpoint decoders\":[{\"decoder\":\"decoder2.0\",\"resource\":\"0x390000000\","
	"\"size\":\"512.00 MiB (536.87 MB)\",\"interleave_ways\":1,\"region\":\"region0\","
	"\"dpa_resource\":\"0\",\"dpa_size\":\"512.00 MiB (536.87 MB)\",\"mode\":\"pmem\"},"
	"{\"decoder\":\"decoder3.0\",\"memdev\":\"mem1\",\"dpa_resource\":\"0x10000000\","
	"\"dpa_size\":\"256.00 MiB (268.44 MB)\",\"mode\":\"ram\"},"
	"{\"decoder\":\"decoder3.1\",\"memdev\":\"mem1\",\"dpa_resource\":\"0x20000000\","
	"\"dpa_size\":\"256.00 MiB (268.44 MB)\",\"mode\":\"ram\",\"region\":\"region1\"}]}]";

/* -u strings, wrapper objects, and the three distinct "no HPA" errors */
static void test_topology_flat_human_and_distinct_errors(void **state)
{
	_hb_cleanup_topology_ struct hb_topology *t = NULL;
	struct hb_err err = { 0 };
	struct hb_xlat x;
	int m0, m1;

	assert_int_equal(hb_topology_load_json(flat_u, sizeof(flat_u) - 1, NULL, &t, &err), 0);
	m0 = hb_topology_find_memdev(t, "mem0");
	m1 = hb_topology_find_memdev(t, "mem1");
	assert_int_equal(hb_topology_dpa_to_hpa(t, m0, 0x1fffffff, &x, &err), 0);
	assert_int_equal(x.hpa, 0x3afffffffull);
	assert_int_equal(hb_topology_dpa_to_hpa(t, m0, 0x20000000, &x, &err), HB_E_UNMAPPED);
	assert_string_equal(err.msg, "mem0: DPA 0x20000000 is not in any committed CXL region: "
				     "no committed decoder maps it");
	assert_int_equal(hb_topology_dpa_to_hpa(t, m1, 0x10000000, &x, &err), HB_E_NOREGION);
	assert_non_null(strstr(err.msg, "decoder3.0"));
	assert_int_equal(hb_topology_dpa_to_hpa(t, m1, 0x20000000, &x, &err), HB_E_UNCOMMITTED);
	assert_non_null(strstr(err.msg, "region1"));
	assert_int_equal(hb_topology_hpa_to_dpa(t, 0x3b0000000ull, &x, &err), HB_E_UNCOMMITTED);
	assert_int_equal(hb_topology_hpa_to_dpa(t, 0x100, &x, &err), HB_E_UNMAPPED);
	assert_int_equal(hb_topology_find_memdev(t, "mem7"), HB_E_NOMEMDEV);
}

struct bad {
	const char *json;
	const char *needle; /* must appear in the message */
};

static void test_topology_broken_documents_name_the_object(void **state)
{
	static const struct bad bad[] = {
		{ "[{\"memdevs\":[{\"memdev\":\"mem0\"}", "truncated" },
		{ "{\"memdev\":\"mem0\"} x", "trailing" },
		{ "[1,2]", "no memdev" },
		{ "[{\"region\":\"region0\",\"resource\":0,\"size\":536870912,\"interleave_ways\":2}]",
		  "region0" },
		/* ways/targets mismatch: 2 ways, one mapping */
		{ "[{\"memdev\":\"mem0\"},{\"decoder\":\"decoder2.0\",\"memdev\":\"mem0\",\"dpa_resource\":0,"
		  "\"dpa_size\":268435456,\"mode\":\"ram\"},{\"region\":\"region0\",\"resource\":0,"
		  "\"size\":536870912,\"interleave_ways\":2,\"interleave_granularity\":256,"
		  "\"mappings\":[{\"position\":0,\"decoder\":\"decoder2.0\"}]}]",
		  "region0: 2 interleave ways but no target at position 1" },
		/* overlapping decoders on one device */
		{ "[{\"memdev\":\"mem0\"},{\"decoder\":\"decoder2.0\",\"memdev\":\"mem0\",\"dpa_resource\":0,"
		  "\"dpa_size\":536870912},{\"decoder\":\"decoder2.1\",\"memdev\":\"mem0\","
		  "\"dpa_resource\":268435456,\"dpa_size\":268435456}]",
		  "mem0: DPA ranges of decoder2.0 and decoder2.1 overlap" },
		{ "[{\"decoder\":\"decoder2.0\",\"memdev\":\"mem3\",\"dpa_resource\":0,\"dpa_size\":268435456}]",
		  "mem3" },
		{ "[{\"decoder\":\"decoder2.0\",\"dpa_resource\":-5,\"dpa_size\":268435456}]",
		  "decoder2.0: dpa_resource is negative" },
		{ "[{\"decoder\":\"decoder0.0\",\"resource\":0,\"size\":\"2.50 TiB (2.75 TB)\","
		  "\"interleave_ways\":1,\"pmem_capable\":true}]",
		  "without -u" },
		{ "[{\"region\":\"region0\",\"resource\":0,\"size\":536870912,\"interleave_ways\":5,"
		  "\"interleave_granularity\":256,\"decode_state\":\"commit\"}]",
		  "region0" },
		{ "[{\"region\":\"region0\",\"resource\":0,\"size\":1,\"interleave_ways\":1,"
		  "\"interleave_granularity\":256,\"decode_state\":\"bogus\"}]",
		  "decode_state" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct hb_topology *t = NULL;
		struct hb_err err = { 0 };
		int r = hb_topology_load_json(bad[i].json, strlen(bad[i].json), NULL, &t, &err);

		if (r >= 0 || !strstr(err.msg, bad[i].needle))
			fail_msg("case %zu: r=%d msg='%s' wanted '%s'", i, r, err.msg, bad[i].needle);
		assert_null(t);
	}
}

/* A CEDT image laid out per ACPI 6.5 / CXL 3.1 9.18.1: one XOR CFMWS, one CXIMS */
static size_t make_cedt(uint8_t *b, unsigned eniw, unsigned nmaps)
{
	static const uint64_t m[] = { 0x2020900, 0x4041200 };
	size_t len = 36, cf, ways = (size_t)hb_eiw_to_ways(eniw);
	uint8_t sum = 0;

	memset(b, 0, 512);
	memcpy(b, "CEDT", 4);
	b[8] = 1;
	cf = len;
	b[cf] = 1; /* CFMWS */
	b[cf + 2] = (uint8_t)(36 + 4 * ways);
	for (int i = 0; i < 8; i++)
		b[cf + 8 + i] = (uint8_t)(0x400000000ull >> (8 * i)); /* base */
	b[cf + 16 + 4] = 0x01;                                        /* size 0x100000000 */
	b[cf + 24] = (uint8_t)eniw;
	b[cf + 25] = 1; /* XOR */
	b[cf + 28] = 0; /* HBIG 256 B */
	b[cf + 32] = 0x06;
	for (size_t i = 0; i < ways; i++)
		b[cf + 36 + 4 * i] = (uint8_t)i;
	len += 36 + 4 * ways;
	b[len] = 2; /* CXIMS */
	b[len + 2] = (uint8_t)(8 + 8 * nmaps);
	b[len + 6] = 0;
	b[len + 7] = (uint8_t)nmaps;
	for (unsigned k = 0; k < nmaps; k++)
		for (int i = 0; i < 8; i++)
			b[len + 8 + 8 * k + i] = (uint8_t)(m[k] >> (8 * i));
	len += 8 + 8 * nmaps;
	b[4] = (uint8_t)len;
	for (size_t i = 0; i < len; i++)
		sum = (uint8_t)(sum + b[i]);
	b[9] = (uint8_t)(0x100 - sum);
	return len;
}

static const char xor_topo[] =
	"[{\"memdev\":\"mem0\"},{\"memdev\":\"mem1\"},"
	"{\"decoder\":\"decoder0.0\",\"resource\":\"0x400000000\",\"size\":\"0x100000000\","
	"\"interleave_ways\":2,\"interleave_granularity\":256,\"pmem_capable\":true,"
	"\"regions:decoder0.0\":[{\"region\":\"region0\",\"resource\":\"0x400000000\","
	"\"size\":\"0x20000000\",\"interleave_ways\":2,\"interleave_granularity\":256,"
	"\"decode_state\":\"commit\",\"mappings\":[{\"position\":0,\"decoder\":\"decoder2.0\"},"
	"{\"position\":1,\"decoder\":\"decoder3.0\"}]}]},"
	"{\"decoder\":\"decoder2.0\",\"memdev\":\"mem0\",\"dpa_resource\":0,\"dpa_size\":268435456},"
	"{\"decoder\":\"decoder3.0\",\"memdev\":\"mem1\",\"dpa_resource\":0,\"dpa_size\":268435456}]";

/* X1 through the whole stack: CEDT makes decoder0.0 an XOR window */
static void test_topology_cedt_xor_window(void **state)
{
	_hb_cleanup_topology_ struct hb_topology *t = NULL;
	struct hb_cedt *c = calloc(1, sizeof(*c));
	struct hb_err err = { 0 };
	uint8_t buf[512];
	struct hb_xlat x;
	size_t len = make_cedt(buf, 1, 1);

	assert_non_null(c);
	assert_int_equal(hb_cedt_parse(buf, len, c, &err), 0);
	assert_int_equal(c->nr_windows, 1);
	assert_int_equal(c->windows[0].arith, HB_ARITH_XOR);
	assert_int_equal(c->windows[0].nr_xormaps, 1);
	assert_int_equal(hb_topology_load_json(xor_topo, sizeof(xor_topo) - 1, c, &t, &err), 0);
	assert_int_equal(hb_topology_dpa_to_hpa(t, 0, 0x400, &x, &err), 0);
	assert_int_equal(x.hpa, 0x400000900ull);
	assert_int_equal(hb_topology_hpa_to_dpa(t, 0x400000900ull, &x, &err), 0);
	assert_int_equal(x.memdev, 0);
	assert_int_equal(x.dpa, 0x400);

	/* broken images */
	buf[9] ^= 1;
	assert_int_equal(hb_cedt_parse(buf, len, c, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "checksum"));
	assert_int_equal(hb_cedt_parse(buf, 20, c, &err), -EINVAL);
	len = make_cedt(buf, 2, 1); /* 4-way XOR needs 2 maps */
	assert_int_equal(hb_cedt_parse(buf, len, c, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "needs 2 XOR maps"));
	free(c);
}

/* hotbridge topology output loads back into the same translations */
static void test_topology_json_output_round_trips(void **state)
{
	_hb_cleanup_topology_ struct hb_topology *a = NULL, *b = NULL;
	struct hb_err err = { 0 };
	json_object *o;
	const char *s;

	assert_int_equal(hb_topology_load_json(flat_u, sizeof(flat_u) - 1, NULL, &a, &err), 0);
	o = hb_topology_to_json(a);
	s = json_object_to_json_string(o);
	assert_int_equal(hb_topology_load_json(s, strlen(s), NULL, &b, &err), 0);
	json_object_put(o);
	assert_int_equal(hb_topology_nr_regions(b), hb_topology_nr_regions(a));
	for (uint64_t dpa = 0; dpa < 0x20000000; dpa += 0x123457) {
		struct hb_xlat xa, xb;

		assert_int_equal(hb_topology_dpa_to_hpa(a, 0, dpa, &xa, &err), 0);
		assert_int_equal(hb_topology_dpa_to_hpa(b, 0, dpa, &xb, &err), 0);
		assert_int_equal(xa.hpa, xb.hpa);
	}
}

/* HPA -> node/PFN from a fixture sysfs tree: memory blocks first, then dax */
static void test_topology_node_map_from_sysfs_fixture(void **state)
{
	_hb_cleanup_node_map_ struct hb_node_map *m = NULL;
	struct hb_node_info ni;
	struct hb_err err = { 0 };

	assert_int_equal(hb_node_map_load(data_path("sysfs/cxl-x2-online"), &m, &err), 0);
	assert_int_equal(hb_node_map_block_size(m), 0x8000000);
	assert_int_equal(hb_node_map_lookup(m, 0x39800b123ull, &ni), 0);
	assert_int_equal(ni.node, 2);
	assert_true(ni.online);
	assert_string_equal(ni.source, "memory115");
	assert_int_equal(ni.pfn, 0x39800b123ull >> 12);
	assert_int_equal(hb_node_map_lookup(m, 0x3a8000000ull, &ni), 0);
	assert_false(ni.online); /* block 117 is offline */
	/* block 114 is not onlined: the dax device still names the node */
	assert_int_equal(hb_node_map_lookup(m, 0x390001000ull, &ni), 0);
	assert_int_equal(ni.node, 2);
	assert_string_equal(ni.source, "dax0.0");
	assert_int_equal(hb_node_map_lookup(m, 0x10000000, &ni), 0);
	assert_int_equal(ni.node, 0);
	assert_int_equal(hb_node_map_lookup(m, 0x3b0000000ull, &ni), -ENOENT);
	assert_int_equal(hb_node_map_load(data_path("sysfs/none"), &m, &err), -ENOENT);
}

/* Saved CEDT images (tests/tools/mkcedt.py) over the real x2-2hb snapshot:
 * the XOR window moves mem0's DPA 0x400 from 0x...800 to 0x...900 */
static void test_topology_saved_cedt_makes_window_xor(void **state)
{
	static const struct {
		const char *cedt;
		uint64_t hpa0, hpa1;
	} v[] = {
		{ "cedt/x2-2hb-modulo.cedt", 0x390000800ull, 0x390000900ull },
		{ "cedt/x2-2hb-xor.cedt", 0x390000900ull, 0x390000800ull },
	};

	for (size_t i = 0; i < 2; i++) {
		_hb_cleanup_topology_ struct hb_topology *t = NULL;
		struct hb_cedt *c = calloc(1, sizeof(*c));
		struct hb_err err = { 0 };
		struct hb_xlat x;
		char snap[4096];

		assert_non_null(c);
		if (hb_cedt_load_file(data_path(v[i].cedt), c, &err) < 0)
			fail_msg("%s: %s", v[i].cedt, err.msg);
		assert_int_equal(c->nr_windows, 1);
		snprintf(snap, sizeof(snap), "%s", data_path("cxl-list/x2-2hb.vvv.json"));
		if (hb_topology_load_json_file(snap, c, &t, &err) < 0)
			fail_msg("%s", err.msg);
		assert_int_equal(hb_topology_dpa_to_hpa(t, hb_topology_find_memdev(t, "mem0"),
							0x400, &x, &err),
				 0);
		assert_int_equal(x.hpa, v[i].hpa0);
		assert_int_equal(hb_topology_dpa_to_hpa(t, hb_topology_find_memdev(t, "mem1"),
							0x400, &x, &err),
				 0);
		assert_int_equal(x.hpa, v[i].hpa1);
		free(c);
	}
}

/* newuser r4 D21: x2-2hb-xor.cedt's window (8 GiB, 2-way XOR at 0x390000000)
 * against x2.vvv.json, whose one root decoder is 4 GiB and 1-way: the window
 * matches nothing and is kept for the commands' warning; over x2-2hb.vvv.json
 * it matches decoder0.0 and nothing is left over */
static void test_topology_cedt_window_matching_no_root_is_kept(void **state)
{
	static const struct {
		const char *snap;
		size_t unmatched;
	} v[] = { { "cxl-list/x2.vvv.json", 1 }, { "cxl-list/x2-2hb.vvv.json", 0 } };
	struct hb_cedt *c = calloc(1, sizeof(*c));
	struct hb_err err = { 0 };

	(void)state;
	assert_non_null(c);
	if (hb_cedt_load_file(data_path("cedt/x2-2hb-xor.cedt"), c, &err) < 0)
		fail_msg("%s", err.msg);
	for (size_t i = 0; i < HB_ARRAY_SIZE(v); i++) {
		_hb_cleanup_topology_ struct hb_topology *t = NULL;
		const struct hb_cedt_window *w;
		char snap[4096];

		snprintf(snap, sizeof(snap), "%s", data_path(v[i].snap));
		if (hb_topology_load_json_file(snap, c, &t, &err) < 0)
			fail_msg("%s: %s", v[i].snap, err.msg);
		assert_null(hb_topology_cedt_unmatched(t, v[i].unmatched));
		if (!v[i].unmatched)
			continue;
		w = hb_topology_cedt_unmatched(t, 0);
		assert_non_null(w);
		assert_int_equal(w->base, 0x390000000ull);
		assert_int_equal(w->size, 8ull << 30);
		assert_int_equal(w->ways, 2);
		assert_int_equal(w->arith, HB_ARITH_XOR);
		/* the root decoder it does not match stays modulo */
		assert_int_equal(hb_topology_root(t, 0)->arith, HB_ARITH_MODULO);
	}
	free(c);
}

/* the JSON spelling of numbers: addresses always 0x, doubles without binary noise */
static void expect_json(json_object *o, const char *want)
{
	const char *got = o ? json_object_to_json_string(o) : "null";

	if (strcmp(got, want))
		fail_msg("printed %s, want %s", got, want);
	json_object_put(o);
}

static void test_topology_json_numbers_zero_hex_and_short_doubles(void **state)
{
	(void)state;
	expect_json(hb_json_hex(0), "\"0x0\"");
	expect_json(hb_json_hex(0x390000000ULL), "\"0x390000000\"");
	expect_json(hb_json_double(7.7730712500000001, 3), "7.773");
	expect_json(hb_json_double(0.011487000000000001, 3), "0.011");
	expect_json(hb_json_double(20.479999542236328, 3), "20.48");
	expect_json(hb_json_double(8, 3), "8.0");
	expect_json(hb_json_double(-0.0001, 3), "0.0");
	expect_json(hb_json_double(4096.4, 0), "4096");
	expect_json(hb_json_double(0.0 / 0.0, 3), "null");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_topology_loads_nested_cxl_list),
		cmocka_unit_test(test_topology_flat_human_and_distinct_errors),
		cmocka_unit_test(test_topology_broken_documents_name_the_object),
		cmocka_unit_test(test_topology_cedt_xor_window),
		cmocka_unit_test(test_topology_json_output_round_trips),
		cmocka_unit_test(test_topology_node_map_from_sysfs_fixture),
		cmocka_unit_test(test_topology_saved_cedt_makes_window_xor),
		cmocka_unit_test(test_topology_cedt_window_matching_no_root_is_kept),
		cmocka_unit_test(test_topology_json_numbers_zero_hex_and_short_doubles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
