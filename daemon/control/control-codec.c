// SPDX-License-Identifier: MIT
/* The control socket's requests: names and the parser; pure (no I/O), fuzzed. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "control/control.h"
#include "control/history-json.h"
#include "util/strtab.h"
#include "util/util.h"

static const char *const cmd_names[_HB_CTL_MAX] = {
	[HB_CTL_STATUS] = "status",   [HB_CTL_STATS] = "stats",     [HB_CTL_SOURCES] = "sources",
	[HB_CTL_EXPLAIN] = "explain", [HB_CTL_PAUSE] = "pause",     [HB_CTL_RESUME] = "resume",
	[HB_CTL_RELOAD] = "reload",   [HB_CTL_METRICS] = "metrics", [HB_CTL_HISTORY] = "history",
	[HB_CTL_HEAT] = "heat",
};

HB_STRTAB_TO_STRING(hb_control_cmd_to_string, enum hb_control_cmd, cmd_names, NULL)

static int hex_field(json_object *o, const char *key, uint64_t *ret, char *why, size_t why_size)
{
	json_object *v;
	int r;

	if (!json_object_object_get_ex(o, key, &v))
		return 0;
	if (!json_object_is_type(v, json_type_string)) {
		snprintf(why, why_size, "\"%s\" must be a number in a string, e.g. \"0x1000\"", key);
		return -EINVAL;
	}
	/* util.h's one grammar; the value is not echoed (it may not be UTF-8) */
	r = hb_parse_u64(json_object_get_string(v), ret);
	if (r < 0) {
		snprintf(why, why_size, "\"%s\" %s: want a number in a string, e.g. \"0x1000\"",
			 key, hb_parse_u64_why(json_object_get_string(v), r));
		return -EINVAL;
	}
	return 1;
}

static bool in_number(char c)
{
	return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-';
}

/*
 * json-c (not strict) reads the JSON number 010 as 10: a number with a
 * leading zero, outside strings, is refused here first, with util.h's
 * reason, as a number is everywhere else. Returns the digits' length.
 */
static size_t leading_zero_number(const char *s, size_t len, const char **ret)
{
	bool in_str = false;

	for (size_t i = 0; i < len; i++) {
		size_t k = i + (s[i] == '-'), n;

		if (in_str) {
			if (s[i] == '\\')
				i++;
			else if (s[i] == '"')
				in_str = false;
			continue;
		}
		if (s[i] == '"') {
			in_str = true;
			continue;
		}
		if ((i && in_number(s[i - 1])) || k + 1 >= len || s[k] != '0' || s[k + 1] < '0' ||
		    s[k + 1] > '9')
			continue;
		for (n = 0; k + n < len && s[k + n] >= '0' && s[k + n] <= '9'; n++)
			;
		*ret = s + k;
		return n;
	}
	return 0;
}

static bool blank(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
			return false;
	return true;
}

/*
 * Why line is not one JSON object, in words: json-c's "continue" only
 * means it wants more bytes, which the user knows as an empty request or
 * one cut short.
 */
static const char *parse_error(struct json_tokener *tok, const json_object *o, const char *line,
			       size_t len)
{
	enum json_tokener_error e = json_tokener_get_error(tok);

	if (o)
		return "not one JSON object: trailing bytes";
	if (e == json_tokener_continue)
		return blank(line, len) ?
			       "empty request: want {\"command\": \"...\"}" :
			       "not one JSON object: incomplete JSON (it ends inside a value)";
	return e == json_tokener_success ? "not one JSON object" : NULL;
}

/*
 * F2: a key given twice in one object (json-c keeps the last, silently:
 * {"command":"status","command":"pause"} paused). 1 with why naming the
 * key, else 0. Keys are compared as written (an escape spelling a key
 * another way is not seen); objects nested deeper than the tokener's
 * depth, or past KEYS_MAX keys, are not looked at (json-c refuses the
 * former, a request has few keys).
 */
#define KEYS_MAX 32
#define DEPTH_MAX 8
static int duplicate_key(const char *s, size_t len, char *why, size_t why_size)
{
	struct {
		bool object;
		size_t n;
		const char *k[KEYS_MAX];
		size_t kl[KEYS_MAX];
	} lv[DEPTH_MAX];
	int depth = -1;
	char prev = 0;

	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		size_t j;

		if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
			continue;
		if (c == '{' || c == '[') {
			if (depth + 1 >= DEPTH_MAX)
				return 0;
			depth++;
			lv[depth].object = c == '{';
			lv[depth].n = 0;
		} else if (c == '}' || c == ']') {
			if (depth >= 0)
				depth--;
		} else if (c == '"') {
			for (j = i + 1; j < len && s[j] != '"'; j++)
				if (s[j] == '\\')
					j++;
			if (j >= len)
				return 0;
			if (depth >= 0 && lv[depth].object && (prev == '{' || prev == ',')) {
				const char *k = s + i + 1;
				size_t kl = j - i - 1;

				for (size_t n = 0; n < lv[depth].n; n++) {
					if (lv[depth].kl[n] == kl && !memcmp(lv[depth].k[n], k, kl)) {
						snprintf(why, why_size,
							 "key \"%.*s\" given twice (one value a key)",
							 kl > 40 ? 40 : (int)kl, k);
						return 1;
					}
				}
				if (lv[depth].n < KEYS_MAX) {
					lv[depth].k[lv[depth].n] = k;
					lv[depth].kl[lv[depth].n++] = kl;
				}
			}
			i = j;
		}
		prev = c;
	}
	return 0;
}

int hb_control_parse(const char *line, size_t len, struct hb_control_req *req, char *why,
		     size_t why_size)
{
	struct json_tokener *tok;
	json_object *o, *v;
	const char *cmd;
	int r = -EINVAL;

	memset(req, 0, sizeof(*req));
	if (len > HB_CONTROL_LINE_MAX) {
		snprintf(why, why_size, "request longer than %d bytes", HB_CONTROL_LINE_MAX);
		return -E2BIG;
	}
	{
		const char *num;
		size_t n = leading_zero_number(line, len, &num);

		if (n) {
			snprintf(why, why_size, "'%.*s' %s", n > 24 ? 24 : (int)n, num,
				 hb_parse_u64_why_n(num, n, -EINVAL));
			return -EINVAL;
		}
	}
	tok = json_tokener_new_ex(8);
	if (!tok) {
		snprintf(why, why_size, "out of memory");
		return -ENOMEM;
	}
	o = json_tokener_parse_ex(tok, line, (int)len);
	if (!o || json_tokener_get_error(tok) != json_tokener_success ||
	    json_tokener_get_parse_end(tok) < len) {
		size_t end = json_tokener_get_parse_end(tok);
		bool trailing_ws = o != NULL;

		for (size_t i = end; trailing_ws && i < len; i++)
			trailing_ws = line[i] == ' ' || line[i] == '\t' || line[i] == '\r';
		if (!trailing_ws) {
			const char *e = parse_error(tok, o, line, len);

			if (e)
				snprintf(why, why_size, "%s", e);
			else
				snprintf(why, why_size, "not one JSON object: %s",
					 json_tokener_error_desc(json_tokener_get_error(tok)));
			goto out;
		}
	}
	if (duplicate_key(line, len, why, why_size))
		goto out;
	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "command", &v) ||
	    !json_object_is_type(v, json_type_string)) {
		snprintf(why, why_size, "want {\"command\": \"...\"}");
		goto out;
	}
	cmd = json_object_get_string(v);
	r = hb_strtab_index(cmd_names, HB_ARRAY_SIZE(cmd_names), cmd);
	if (r < 0) {
		snprintf(why, why_size, "unknown command \"%.40s\"", cmd);
		r = -EINVAL;
		goto out;
	}
	req->cmd = (enum hb_control_cmd)r;
	r = 0;
	if (req->cmd == HB_CTL_HISTORY || req->cmd == HB_CTL_HEAT) {
		req->last = HB_HISTORY_REPLY_DEFAULT;
		if (json_object_object_get_ex(o, "last", &v)) {
			int64_t last = json_object_get_int64(v);

			if (!json_object_is_type(v, json_type_int) || last < 1 ||
			    last > HB_HISTORY_REPLY_MAX) {
				snprintf(why, why_size,
					 "\"last\" must be a number of entries in 1..%d",
					 HB_HISTORY_REPLY_MAX);
				r = -EINVAL;
				goto out;
			}
			req->last = (size_t)last;
		}
	}
	if (req->cmd == HB_CTL_EXPLAIN || req->cmd == HB_CTL_HISTORY) {
		int h = hex_field(o, "hpa", &req->hpa, why, why_size), dp;

		if (h < 0) {
			r = h;
			goto out;
		}
		req->has_hpa = h == 1;
		dp = hex_field(o, "dpa", &req->dpa, why, why_size);
		if (dp < 0) {
			r = dp;
			goto out;
		}
		if (json_object_object_get_ex(o, "memdev", &v)) {
			if (!json_object_is_type(v, json_type_string) ||
			    strlen(json_object_get_string(v)) >= sizeof(req->memdev)) {
				snprintf(why, why_size, "\"memdev\" must be a name like \"mem0\"");
				r = -EINVAL;
				goto out;
			}
			strcpy(req->memdev, json_object_get_string(v));
		}
		req->has_address = !(!req->has_hpa && !req->memdev[0] && dp == 0);
		if (req->cmd == HB_CTL_HISTORY && !req->has_address)
			goto out; /* every page */
		if (!((req->has_hpa && !req->memdev[0] && dp == 0) ||
		      (!req->has_hpa && req->memdev[0] && dp == 1))) {
			snprintf(why, why_size, "%s wants \"hpa\", or \"memdev\" and \"dpa\"",
				 cmd_names[req->cmd]);
			r = -EINVAL;
		}
	}
out:
	json_object_put(o);
	json_tokener_free(tok);
	return r;
}
