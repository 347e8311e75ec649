// SPDX-License-Identifier: MIT
/* Configuration: the parser (inih), the main file, drop-ins and --set (conf-keys.c: the table). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ini.h>

#include "config.h"
#include "conf/conf.h"
#include "conf/conf-keys.h"
#include "devices.h"
#include "util/macro.h"

void hb_config_done(struct hb_config *c)
{
	for (size_t i = 0; i < c->nsources; i++)
		for (size_t k = 0; k < c->sources[i].nparams; k++) {
			free(c->sources[i].params[k]);
			free(c->sources[i].param_where[k]);
		}
	c->nsources = 0;
}

/* a deep copy (the params are heap strings) */
static int config_copy(struct hb_config *dst, const struct hb_config *src)
{
	*dst = *src;
	for (size_t i = 0; i < src->nsources; i++) {
		for (size_t k = 0; k < src->sources[i].nparams; k++) {
			const char *w = src->sources[i].param_where[k];

			dst->sources[i].params[k] = strdup(src->sources[i].params[k]);
			dst->sources[i].param_where[k] = w ? strdup(w) : NULL;
			if (!dst->sources[i].params[k] || (w && !dst->sources[i].param_where[k])) {
				free(dst->sources[i].params[k]);
				free(dst->sources[i].param_where[k]);
				dst->sources[i].nparams = k;
				dst->nsources = i + 1;
				hb_config_done(dst);
				return -ENOMEM;
			}
		}
	}
	return 0;
}

/* inih's limits (Debian's r55): longer names it would cut short silently */
#define INI_NAME_MAX 50
/*
 * inih reads a line into a buffer of its own (200 bytes in Debian's
 * build, fixed when the library is built): the reader hands it longer
 * key = value lines with the value swapped for this marker, and the
 * handler puts the value back. A line is HB_CONF_LINE_MAX bytes at most.
 */
#define LONG_VALUE "\x01"
#define HB_CONF_LINE_MAX 65536

struct parse {
	struct hb_config *c;
	const char *file;
	FILE *f;
	int line, err_line; /* err_line: where err was set */
	bool empty;         /* nothing but blanks and comments so far */
	bool indented;      /* this line: inih continues the previous value */
	/* the section being read: an empty [source NAME] or unknown one is an error */
	struct {
		char name[INI_NAME_MAX];
		int line; /* 0: none yet */
		bool has_key;
	} sec;
	struct hb_err *err;
	char *text; /* the line read, whole */
	size_t text_size;
	char *long_value; /* a long line's value, for the handler (LONG_VALUE) */
	char last_section[128];
	/* this file's lines (0: not in this file), to refuse a second one */
	int key_line[HB_CONF_MAX_KEYS];
	int fixed_line[HB_MAX_SOURCES][3]; /* type, memdev, pci */
	int param_line[HB_MAX_SOURCES][HB_MAX_SOURCE_PARAMS];
	struct {
		char name[INI_NAME_MAX];
		int line;
	} hdr[HB_MAX_SOURCES]; /* [source NAME]s */
	size_t nhdr;
};

static void parse_error_at(struct parse *p, int line, const char *fmt, va_list ap) HB_PRINTF(3, 0);
static void parse_error_at(struct parse *p, int line, const char *fmt, va_list ap)
{
	char why[512];

	if (p->err->code)
		return;
	vsnprintf(why, sizeof(why), fmt, ap);
	hb_err_set(p->err, -EINVAL, "%s:%d: %s", p->file, line, why);
	p->err_line = line;
}

static void parse_error(struct parse *p, const char *fmt, ...) HB_PRINTF(2, 3);
static void parse_error(struct parse *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	parse_error_at(p, p->line, fmt, ap);
	va_end(ap);
}

static void section_error(struct parse *p, const char *fmt, ...) HB_PRINTF(2, 3);
static void section_error(struct parse *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	parse_error_at(p, p->sec.line, fmt, ap);
	va_end(ap);
}

/*
 * The section read so far ends (a new header, or the end of the file):
 * inih never reports a section without keys, so an empty [source NAME]
 * (a source with no type=) or an unknown section would vanish silently.
 * An empty known section ([daemon]) is fine.
 */
static bool section_end(struct parse *p)
{
	if (!p->sec.line || p->sec.has_key)
		return true;
	if (!strncmp(p->sec.name, "source ", 7))
		section_error(p, "[%s] is empty: a source needs type= (and its parameters)",
			      p->sec.name);
	else if (!hb_conf_section_known(p->sec.name))
		section_error(p, "unknown section [%s]%s", p->sec.name,
			      strcmp(p->sec.name, "source") ? "" : ": a source is [source NAME]");
	return !p->err->code;
}

static void section_begin(struct parse *p, const char *name, const char *end)
{
	size_t len = (size_t)(end - name);

	if (len >= sizeof(p->sec.name))
		len = sizeof(p->sec.name) - 1;
	memcpy(p->sec.name, name, len);
	p->sec.name[len] = '\0';
	p->sec.line = p->line;
	p->sec.has_key = false;
}

/*
 * A [source NAME] header (name .. end): a second one in the same file is
 * an error naming both lines; sections of that name in other files
 * override its keys (conf.h, precedence).
 */
static bool source_header(struct parse *p, const char *name, const char *end)
{
	size_t len = (size_t)(end - name);

	for (size_t i = 0; i < p->nhdr; i++)
		if (strlen(p->hdr[i].name) == len && !strncmp(p->hdr[i].name, name, len)) {
			parse_error(p,
				    "[source %.*s] again (first at %s:%d): a source is one "
				    "section per file (a drop-in may override its keys)",
				    (int)len, name, p->file, p->hdr[i].line);
			return false;
		}
	if (p->nhdr < HB_ARRAY_SIZE(p->hdr) && len < sizeof(p->hdr[0].name)) {
		memcpy(p->hdr[p->nhdr].name, name, len);
		p->hdr[p->nhdr].name[len] = '\0';
		p->hdr[p->nhdr++].line = p->line;
	}
	return true;
}

/*
 * One line per call, so that inih's line numbers are the file's: a line
 * inih would split, a section or key name it would truncate (two long
 * [source] names merging into one) are errors here, and parsing stops.
 */
/*
 * The value inih would make of the text after a key's '=': blanks
 * skipped, cut at an inline comment (';' after a blank), blanks stripped.
 */
static char *ini_value(const char *v)
{
	const char *e;
	bool was_space = false;

	while (*v == ' ' || *v == '\t' || *v == '\r' || *v == '\n')
		v++;
	for (e = v; *e && !(was_space && *e == ';'); e++)
		was_space = *e == ' ' || *e == '\t' || *e == '\r' || *e == '\n';
	while (e > v && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
		e--;
	return strndup(v, (size_t)(e - v));
}

/*
 * A line longer than inih's buffer: a comment goes as an empty one, a
 * key = value line as "KEY=" LONG_VALUE with the value kept for the
 * handler; anything else is an error.
 */
static char *long_line(struct parse *p, char *buf, int size, const char *s, const char *eq)
{
	const char *e = eq;

	if (*s == ';' || *s == '#') {
		snprintf(buf, (size_t)size, "#\n");
		return buf;
	}
	while (eq && e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	if (!eq || s != p->text || e - s >= INI_NAME_MAX) {
		parse_error(p, "line longer than %d characters that is not key = value or a comment",
			    size - 2);
		return NULL;
	}
	p->long_value = ini_value(eq + 1);
	if (!p->long_value) {
		parse_error(p, "out of memory");
		return NULL;
	}
	snprintf(buf, (size_t)size, "%.*s=" LONG_VALUE "\n", (int)(e - s), s);
	return buf;
}

static char *reader(char *buf, int size, void *stream)
{
	struct parse *p = stream;
	const char *s, *end;
	ssize_t len;

	if (p->err->code)
		return NULL;
	/* the handler has had the last line's value: a marker later is just text */
	free(p->long_value);
	p->long_value = NULL;
	len = getline(&p->text, &p->text_size, p->f);
	if (len < 0) {
		(void)section_end(p);
		return NULL;
	}
	p->line++;
	if (len > HB_CONF_LINE_MAX) {
		parse_error(p, "line longer than %d characters", HB_CONF_LINE_MAX);
		return NULL;
	}
	if (strlen(p->text) != (size_t)len) {
		parse_error(p, "a NUL byte in the line");
		return NULL;
	}
	for (s = p->text; *s == ' ' || *s == '\t'; s++)
		;
	if (*s && *s != '\n' && *s != '\r' && *s != ';' && *s != '#')
		p->empty = false;
	p->indented = s != p->text && *s && *s != '\n' && *s != '\r';
	if (*s == ';' || *s == '#') {
		/* a comment: no name in it, whatever it says */
	} else if (*s == '[') {
		end = strchr(s, ']');
		if (end && end - s - 1 >= INI_NAME_MAX) {
			parse_error(p, "section name '%.*s' longer than %d characters%s",
				    (int)(end - s - 1), s + 1, INI_NAME_MAX - 1,
				    strncmp(s + 1, "source ", 7) ? "" :
								   " (a source name: at most 42)");
			return NULL;
		}
		if (end && !strncmp(s + 1, "source ", 7) && !source_header(p, s + 8, end))
			return NULL;
		if (end && !section_end(p))
			return NULL;
		if (end)
			section_begin(p, s + 1, end);
	} else if ((end = strpbrk(s, "=:")) && s != p->text) {
		/* an indented line continues the previous value: not a name */
	} else if (end) {
		const char *e = end;

		while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		if (e - s >= INI_NAME_MAX) {
			parse_error(p, "key name '%.*s' longer than %d characters", (int)(e - s), s,
				    INI_NAME_MAX - 1);
			return NULL;
		}
	}
	if (len + 1 > size)
		return long_line(p, buf, size, s, strpbrk(s, "=:"));
	memcpy(buf, p->text, (size_t)len + 1);
	return buf;
}

static struct hb_source_config *source_for(struct parse *p, const char *section, char *why,
					   size_t why_size)
{
	const char *name = section + 7; /* "source " */
	struct hb_config *c = p->c;

	for (size_t i = 0; i < c->nsources; i++)
		if (!strcmp(c->sources[i].name, name))
			return &c->sources[i];
	if (!*name || strlen(name) >= sizeof(c->sources[0].name)) {
		snprintf(why, why_size, "[%s]: a source needs a name of 1..63 characters", section);
		return NULL;
	}
	if (c->nsources == HB_MAX_SOURCES) {
		snprintf(why, why_size, "[%s]: more than %d sources", section, HB_MAX_SOURCES);
		return NULL;
	}
	c->sources[c->nsources] = (struct hb_source_config){ 0 };
	strcpy(c->sources[c->nsources].name, name);
	snprintf(c->sources[c->nsources].where, sizeof(c->sources[0].where), "%s:%d", p->file,
		 p->line);
	return &c->sources[c->nsources++];
}

/* the slot name takes in s: 0..2 type, memdev, pci; 3 + k parameter k (k == nparams: new) */
static size_t source_slot(const struct hb_source_config *s, const char *name)
{
	size_t len = strlen(name);

	if (!strcmp(name, "type"))
		return 0;
	if (!strcmp(name, "memdev"))
		return 1;
	if (!strcmp(name, "pci"))
		return 2;
	for (size_t k = 0; k < s->nparams; k++)
		if (!strncmp(s->params[k], name, len) && s->params[k][len] == '=')
			return 3 + k;
	return 3 + s->nparams;
}

/* "type", "memdev" or "pci" when name is one of them in another case ("Type") */
static const char *fixed_key_miscased(const char *name)
{
	static const char *const fixed[] = { "type", "memdev", "pci" };

	for (size_t i = 0; i < HB_ARRAY_SIZE(fixed); i++)
		if (!strcasecmp(name, fixed[i]))
			return fixed[i];
	return NULL;
}

/* sets name=value in s (a later file's value replaces an earlier one's) */
static int source_put(struct hb_source_config *s, size_t slot, const char *name, const char *value,
		      const char *where, char *why, size_t why_size)
{
	char *kv, *w;

	if (slot < 3) {
		char *dst = slot == 0 ? s->type : slot == 1 ? s->memdev : s->pci;
		size_t cap = slot == 0 ? sizeof(s->type) : sizeof(s->memdev);

		if (strlen(value) >= cap) {
			snprintf(why, why_size, "[source %s]: %s too long", s->name, name);
			return -EINVAL;
		}
		strcpy(dst, value);
		snprintf(s->fixed_where[slot], sizeof(s->fixed_where[slot]), "%s", where);
		return 0;
	}
	slot -= 3;
	if (slot == HB_MAX_SOURCE_PARAMS) {
		snprintf(why, why_size, "[source %s]: more than %d parameters", s->name,
			 HB_MAX_SOURCE_PARAMS);
		return -EINVAL;
	}
	kv = malloc(strlen(name) + strlen(value) + 2);
	w = strdup(where);
	if (!kv || !w) {
		free(kv);
		free(w);
		snprintf(why, why_size, "out of memory");
		return -ENOMEM;
	}
	sprintf(kv, "%s=%s", name, value);
	if (slot < s->nparams) {
		free(s->params[slot]);
		free(s->param_where[slot]);
	} else {
		s->nparams++;
	}
	s->params[slot] = kv;
	s->param_where[slot] = w;
	return 0;
}

/* a second value for a key in one file: an error naming both lines */
static int twice(struct parse *p, int *line, const char *what, char *why, size_t why_size)
{
	if (!*line) {
		*line = p->line;
		return 0;
	}
	snprintf(why, why_size,
		 "%s given again (first at %s:%d): each key once per file (a "
		 "drop-in may override it)%s",
		 what, p->file, *line,
		 p->indented ? "; an indented line continues the previous key's value" : "");
	return -EINVAL;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
	struct parse *p = user;
	char why[512], what[192], here[HB_CONF_WHERE_MAX];
	const struct hb_conf_key *k;

	snprintf(here, sizeof(here), "%s:%d", p->file, p->line);
	p->sec.has_key = true;
	if (p->long_value && !strcmp(value, LONG_VALUE))
		value = p->long_value; /* a line longer than inih's buffer (reader) */
	if (!strncmp(section, "source ", 7)) {
		struct hb_source_config *s = source_for(p, section, why, sizeof(why));
		size_t i, slot;

		if (!s)
			goto bad;
		i = (size_t)(s - p->c->sources);
		slot = source_slot(s, name);
		if (slot >= 3 && fixed_key_miscased(name)) {
			snprintf(why, sizeof(why),
				 "[%s]: unknown key '%s' (names are case-sensitive: did you mean "
				 "'%s'?)",
				 section, name, fixed_key_miscased(name));
			goto bad;
		}
		snprintf(what, sizeof(what), "[%s] %s", section, name);
		if (slot < 3 ?
			    twice(p, &p->fixed_line[i][slot], what, why, sizeof(why)) < 0 :
			    slot - 3 < HB_MAX_SOURCE_PARAMS && twice(p, &p->param_line[i][slot - 3],
								     what, why, sizeof(why)) < 0)
			goto bad;
		if (source_put(s, slot, name, value, here, why, sizeof(why)) < 0)
			goto bad;
		return 1;
	}
	k = hb_conf_key_find(section, name);
	if (!k) {
		char hint[128], said[200] = "";

		if (hb_conf_key_case_hint(section, name, hint, sizeof(hint)))
			snprintf(said, sizeof(said),
				 " (names are case-sensitive: did you mean %s?)", hint);
		snprintf(why, sizeof(why),
			 hb_conf_section_known(section) ?
				 "unknown key '%s' in [%s]%s" :
				 "unknown key '%s' in unknown section [%s]%s",
			 name, section, said);
		goto bad;
	}
	snprintf(what, sizeof(what), "%s.%s", section, name);
	if (twice(p, &p->key_line[hb_conf_key_index(k)], what, why, sizeof(why)) < 0)
		goto bad;
	if (hb_conf_key_set(p->c, k, value, why, sizeof(why)) == 0) {
		snprintf(p->c->key_where[hb_conf_key_index(k)], HB_CONF_WHERE_MAX, "%s", here);
		return 1;
	}
bad:
	parse_error(p, "%s", why);
	return 0;
}

/*
 * Configuration files are trusted like plugins (util.h): opened without
 * following a symlink, a regular file owned by root or by the user running
 * hotbridge, not group- or world-writable, in a directory others cannot
 * write to (sticky or not: a /tmp-like directory is refused too).
 */
static int parse_file(struct hb_config *c, const char *path, bool main_file, struct hb_err *err)
{
	struct parse p = { .c = c, .file = path, .err = err, .empty = true };
	_hb_cleanup_close_ int fd = -1;
	struct stat st;
	int r;

	/* O_NONBLOCK: a FIFO is refused below, never waited for (newuser r5 E22) */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 && errno == ELOOP)
		return hb_err_set(err, -EPERM, "%s: is a symlink; refusing to follow it", path);
	if (fd < 0)
		return hb_err_set(err, -errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0)
		return hb_err_set(err, -errno, "%s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return hb_err_set(err, -EISDIR, "%s: is a directory, not a configuration file", path);
	r = hb_trust_stat(path, &st, HB_TRUST_ROOT, geteuid(), err);
	if (r == 0 && main_file)
		r = hb_trust_parent(path, HB_TRUST_ROOT, geteuid(), err);
	if (r < 0)
		return r;
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0)
		return hb_err_set(err, -errno, "%s: %s", path, strerror(errno));
	p.f = fdopen(fd, "re");
	if (!p.f)
		return hb_err_set(err, -errno, "%s: %s", path, strerror(errno));
	fd = -1; /* the FILE has it */
	r = ini_parse_stream(reader, &p, handler, &p);
	fclose(p.f);
	free(p.text);
	free(p.long_value);
	/* inih goes on after a syntax error: the first error is the one to name */
	if (r > 0 && (!err->code || r < p.err_line)) {
		hb_err_clear(err);
		return hb_err_set(err, -EINVAL,
				  "%s:%d: syntax error (want [section], "
				  "key = value or a comment)",
				  path, r);
	}
	if (r < 0 && !err->code)
		return hb_err_set(err, -EIO, "%s: cannot parse", path);
	if (!err->code && main_file && p.empty)
		return hb_err_set(err, -EINVAL, "%s: empty (no section, no key)", path);
	return err->code ? err->code : 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

#define HB_MAX_DROPINS 256

static int parse_dropins(struct hb_config *c, const char *path, struct hb_err *err)
{
	char dir[4096], *names[HB_MAX_DROPINS];
	size_t n = 0;
	struct dirent *de;
	DIR *d;
	int r = 0;

	snprintf(dir, sizeof(dir), "%s.d", path);
	d = opendir(dir);
	if (!d && errno != ENOENT && errno != ENOTDIR)
		return hb_err_set(err, -errno, "%s: %s", dir, strerror(errno));
	if (!d) {
		struct stat st;

		/* a dangling symlink is not "no drop-ins" */
		return lstat(dir, &st) == 0 ? hb_trust_check(dir, -1, HB_TRUST_DIR, 0, err) : 0;
	}
	r = hb_trust_check(dir, -1, HB_TRUST_DIR | HB_TRUST_ROOT, geteuid(), err);
	while (r == 0 && (de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (de->d_name[0] == '.' || len <= 5 || strcmp(de->d_name + len - 5, ".conf"))
			continue;
		if (n == HB_ARRAY_SIZE(names)) {
			r = hb_err_set(err, -E2BIG, "%s: more than %d drop-ins (*.conf)", dir,
				       HB_MAX_DROPINS);
			break;
		}
		names[n++] = strdup(de->d_name);
	}
	closedir(d);
	if (n > 1)
		qsort(names, n, sizeof(*names), name_cmp);
	for (size_t i = 0; i < n; i++) {
		char file[4096 * 2];

		if (!names[i] && !r)
			r = hb_err_set(err, -ENOMEM, "out of memory");
		snprintf(file, sizeof(file), "%s/%s", dir, names[i] ? names[i] : "");
		if (!r)
			r = parse_file(c, file, false, err);
		free(names[i]);
	}
	return r;
}

int hb_config_load(struct hb_config *c, const char *path, bool dropins, struct hb_err *err)
{
	struct hb_config *next = malloc(sizeof(*next));
	int r;

	if (!next)
		return hb_err_set(err, -ENOMEM, "out of memory");
	hb_err_clear(err);
	r = config_copy(next, c);
	if (r == 0)
		r = parse_file(next, path, true, err);
	if (r == 0 && dropins)
		r = parse_dropins(next, path, err);
	for (size_t i = 0; r == 0 && i < next->nsources; i++)
		if (!next->sources[i].type[0])
			r = hb_err_set(err, -EINVAL,
				       "%s: [source %s] has no type=", next->sources[i].where,
				       next->sources[i].name);
	if (r < 0) {
		hb_config_done(next);
		free(next);
		return r;
	}
	hb_config_done(c);
	*c = *next;
	free(next);
	return 0;
}

/* "source.NAME.KEY=VALUE" or "source NAME.KEY=VALUE": one key of a configured source */
static int set_source(struct hb_config *c, const char *assignment, struct hb_err *err)
{
	const char *name = assignment + 7, *eq = strchr(assignment, '='), *dot;
	char key[64], why[256];
	struct hb_source_config *s = NULL;
	size_t nlen;

	for (dot = eq ? eq : name; dot > name && *dot != '.'; dot--)
		;
	if (!eq || dot == name || (size_t)(eq - dot - 1) >= sizeof(key) || eq == dot + 1)
		return hb_err_set(err, -EINVAL, "command line: '%s' is not source.NAME.KEY=VALUE",
				  assignment);
	nlen = (size_t)(dot - name);
	memcpy(key, dot + 1, (size_t)(eq - dot - 1));
	key[eq - dot - 1] = '\0';
	for (size_t i = 0; i < c->nsources && !s; i++)
		if (strlen(c->sources[i].name) == nlen && !strncmp(c->sources[i].name, name, nlen))
			s = &c->sources[i];
	if (!s) {
		char names[HB_ERR_MSG_MAX / 2] = "";

		for (size_t i = 0; i < c->nsources; i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 i ? ", " : "", c->sources[i].name);
		return hb_err_set(err, -ENOENT,
				  "command line: %s: no [source %.*s] in the "
				  "configuration (its sources: %s); --set changes a configured "
				  "source, it does not add one",
				  assignment, (int)nlen, name, names[0] ? names : "none");
	}
	if (source_slot(s, key) >= 3 && fixed_key_miscased(key))
		return hb_err_set(err, -EINVAL,
				  "command line: %s: unknown key '%s' (names are case-sensitive: "
				  "did you mean '%s'?)",
				  assignment, key, fixed_key_miscased(key));
	if (source_put(s, source_slot(s, key), key, eq + 1, "--set", why, sizeof(why)) < 0)
		return hb_err_set(err, -EINVAL, "command line: %s", why);
	return 0;
}

int hb_config_set(struct hb_config *c, const char *assignment, struct hb_err *err)
{
	const char *dot = strchr(assignment, '.'), *eq = strchr(assignment, '=');
	char section[64], name[64], why[256];
	const struct hb_conf_key *k;

	if (!strncmp(assignment, "source.", 7) || !strncmp(assignment, "source ", 7))
		return set_source(c, assignment, err);
	if (!dot || !eq || dot > eq || (size_t)(dot - assignment) >= sizeof(section) ||
	    (size_t)(eq - dot - 1) >= sizeof(name))
		return hb_err_set(err, -EINVAL, "command line: '%s' is not section.key=value",
				  assignment);
	memcpy(section, assignment, (size_t)(dot - assignment));
	section[dot - assignment] = '\0';
	memcpy(name, dot + 1, (size_t)(eq - dot - 1));
	name[eq - dot - 1] = '\0';
	k = hb_conf_key_find(section, name);
	if (!k) {
		char hint[128];

		return hb_err_set(err, -EINVAL, "command line: unknown key %s.%s%s%s%s", section,
				  name,
				  hb_conf_key_case_hint(section, name, hint, sizeof(hint)) ?
					  " (names are case-sensitive: did you mean " :
					  "",
				  hb_conf_key_case_hint(section, name, hint, sizeof(hint)) ? hint : "",
				  hb_conf_key_case_hint(section, name, hint, sizeof(hint)) ? "?)" :
											     "");
	}
	if (hb_conf_key_set(c, k, eq + 1, why, sizeof(why)) < 0)
		return hb_err_set(err, -EINVAL, "command line: %s", why);
	snprintf(c->key_where[hb_conf_key_index(k)], HB_CONF_WHERE_MAX, "--set");
	return 0;
}

/* a's key, up to '=', as "source.NAME.KEY" or "SECTION.KEY", equals b's */
static bool same_set_key(const char *a, const char *b)
{
	size_t la = strcspn(a, "="), lb = strcspn(b, "=");

	if (la != lb || la < 7)
		return la == lb && !strncmp(a, b, la);
	/* "source NAME.KEY" is "source.NAME.KEY" */
	if (!strncmp(a, "source", 6) && !strncmp(b, "source", 6) && (a[6] == '.' || a[6] == ' ') &&
	    (b[6] == '.' || b[6] == ' '))
		return !strncmp(a + 7, b + 7, la - 7);
	return !strncmp(a, b, la);
}

/* each key once on the command line, as in a file (newuser r5 E25) */
static int sets_once(const char *const *sets, size_t nsets, struct hb_err *err)
{
	for (size_t i = 1; i < nsets; i++)
		for (size_t j = 0; j < i; j++)
			if (same_set_key(sets[j], sets[i]))
				return hb_err_set(err, -EINVAL,
						  "command line: --set %s and --set %s: the same key "
						  "twice (each key may be given once, as in a file)",
						  sets[j], sets[i]);
	return 0;
}

int hb_config_read(struct hb_config *c, const char *path, bool dropins, const char *const *sets,
		   size_t nsets, struct hb_err *err)
{
	int r;

	hb_config_defaults(c);
	r = sets_once(sets, nsets, err);
	if (r == 0)
		r = hb_config_load(c, path, dropins, err);
	for (size_t i = 0; r == 0 && i < nsets; i++)
		r = hb_config_set(c, sets[i], err);
	if (r < 0)
		hb_config_done(c);
	return r;
}

void hb_source_info(const struct hb_source_config *s, struct hb_dev_info *ret)
{
	*ret = (struct hb_dev_info){ .size = sizeof(*ret),
				     .name = s->name,
				     .params = (const char *const *)s->params };
}
