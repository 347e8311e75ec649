// SPDX-License-Identifier: MIT
/*
 * The CXL trace events' format files and raw records, through
 * libtraceevent. Fields are found by name (tep_find_field) once per format;
 * a record is then read field by field, each read checked against the
 * record's length, since a raw record is input we did not write.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "cxl-events.h"
#include "util/macro.h"
#include "util/strtab.h"

enum field {
	F_MEMDEV,
	F_HOST,
	F_REGION,
	F_UUID,
	F_DPA,
	F_HPA,
	F_DPA_LENGTH,
	F_DPA_FLAGS,
	F_DESCRIPTOR,
	F_TYPE,
	F_TRANSACTION_TYPE,
	F_TRACE_TYPE,
	F_SOURCE,
	F_FLAGS,
	F_COUNT,
	F_FIRST_TS,
	F_LAST_TS,
	F_MAX,
};

#define K(k) (1u << (k))
#define MEDIA (K(HB_CXL_GENERAL_MEDIA) | K(HB_CXL_DRAM))
#define ALL (MEDIA | K(HB_CXL_POISON) | K(HB_CXL_OVERFLOW))

enum shape { NUM, STR, BYTES16 };

static const struct {
	const char *name, *alias; /* alias: the other spelling, or NULL */
	enum shape shape;
	unsigned need; /* the kinds that must have it */
	unsigned may;  /* the kinds that read it when present */
} fields[F_MAX] = {
	[F_MEMDEV] = { "memdev", NULL, STR, ALL, ALL },
	[F_HOST] = { "host", NULL, STR, 0, ALL },
	[F_REGION] = { "region_name", "region", STR, 0, MEDIA | K(HB_CXL_POISON) },
	[F_UUID] = { "region_uuid", "uuid", BYTES16, 0, MEDIA | K(HB_CXL_POISON) },
	[F_DPA] = { "dpa", NULL, NUM, MEDIA | K(HB_CXL_POISON), MEDIA | K(HB_CXL_POISON) },
	[F_HPA] = { "hpa", NULL, NUM, 0, MEDIA | K(HB_CXL_POISON) },
	[F_DPA_LENGTH] = { "dpa_length", NULL, NUM, K(HB_CXL_POISON), K(HB_CXL_POISON) },
	[F_DPA_FLAGS] = { "dpa_flags", NULL, NUM, 0, MEDIA },
	[F_DESCRIPTOR] = { "descriptor", NULL, NUM, MEDIA, MEDIA },
	[F_TYPE] = { "type", NULL, NUM, 0, MEDIA },
	[F_TRANSACTION_TYPE] = { "transaction_type", NULL, NUM, 0, MEDIA },
	[F_TRACE_TYPE] = { "trace_type", NULL, NUM, K(HB_CXL_POISON), K(HB_CXL_POISON) },
	[F_SOURCE] = { "source", NULL, NUM, 0, K(HB_CXL_POISON) },
	[F_FLAGS] = { "flags", NULL, NUM, 0, K(HB_CXL_POISON) },
	[F_COUNT] = { "count", NULL, NUM, K(HB_CXL_OVERFLOW), K(HB_CXL_OVERFLOW) },
	[F_FIRST_TS] = { "first_ts", NULL, NUM, 0, K(HB_CXL_OVERFLOW) },
	[F_LAST_TS] = { "last_ts", NULL, NUM, 0, K(HB_CXL_OVERFLOW) },
};

static const char *const event_names[HB_CXL_KIND_MAX] = {
	[HB_CXL_GENERAL_MEDIA] = "cxl_general_media",
	[HB_CXL_DRAM] = "cxl_dram",
	[HB_CXL_POISON] = "cxl_poison",
	[HB_CXL_OVERFLOW] = "cxl_overflow",
};

struct kind_format {
	bool added;
	int id;
	size_t fixed_len;                  /* where the fields we read end */
	struct tep_format_field *f[F_MAX]; /* NULL: the event has no such field */
};

struct hb_cxl_decoder {
	struct tep_handle *tep;
	struct kind_format k[HB_CXL_KIND_MAX];
	/* common_type, where every event of the trace buffer names its format */
	unsigned type_offset, type_size;
};

HB_STRTAB_TO_STRING(hb_cxl_kind_event, enum hb_cxl_kind, event_names, "?")

int hb_cxl_decoder_new(struct hb_cxl_decoder **ret)
{
	struct hb_cxl_decoder *dec = calloc(1, sizeof(*dec));

	if (!dec)
		return -ENOMEM;
	dec->tep = tep_alloc();
	if (!dec->tep) {
		free(dec);
		return -ENOMEM;
	}
	*ret = dec;
	return 0;
}

struct hb_cxl_decoder *hb_cxl_decoder_free(struct hb_cxl_decoder *dec)
{
	if (!dec)
		return NULL;
	tep_free(dec->tep);
	free(dec);
	return NULL;
}

bool hb_cxl_decoder_has(const struct hb_cxl_decoder *dec, enum hb_cxl_kind kind)
{
	return (unsigned)kind < HB_CXL_KIND_MAX && dec->k[kind].added;
}

/* Whether field f has the shape we read it as; the reason when not. */
static const char *shape_wrong(const struct tep_format_field *f, enum shape shape)
{
	switch (shape) {
	case NUM:
		if (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_STRING))
			return "is not a number";
		if (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8)
			return "has a size that is not 1, 2, 4 or 8";
		return NULL;
	case STR:
		if (!(f->flags & TEP_FIELD_IS_DYNAMIC) || f->size != 4)
			return "is not a dynamic string (__data_loc)";
		return NULL;
	case BYTES16:
		return f->size == 16 && !(f->flags & TEP_FIELD_IS_DYNAMIC) ? NULL : "is not 16 bytes";
	}
	return "has an unknown shape";
}

int hb_cxl_decoder_add_format(struct hb_cxl_decoder *dec, const char *buf, size_t len,
			      struct hb_err *err)
{
	struct tep_event *ev = NULL;
	struct tep_format_field *type;
	struct kind_format kf = { .added = true };
	enum tep_errno te;
	int kind;

	te = tep_parse_format(dec->tep, &ev, buf, len, "cxl");
	/* the print format is only for humans: its fields are what we read */
	if (te == TEP_ERRNO__READ_PRINT_FAILED && ev && ev->format.nr_fields > 0)
		te = TEP_ERRNO__SUCCESS;
	if (te != TEP_ERRNO__SUCCESS || !ev) {
		char msg[128];

		tep_strerror(dec->tep, te, msg, sizeof(msg));
		return hb_err_set(err, -EINVAL, "format of %s: %s",
				  ev && ev->name ? ev->name : "a cxl event", msg);
	}
	kind = hb_strtab_index(event_names, HB_ARRAY_SIZE(event_names), ev->name);
	if (kind < 0)
		return hb_err_set(err, -EINVAL,
				  "format of %s: not an event hotbridge decodes "
				  "(cxl_general_media, cxl_dram, cxl_poison, cxl_overflow)",
				  ev->name);
	if (dec->k[kind].added)
		return hb_err_set(err, -EEXIST, "format of %s: added twice", ev->name);
	type = tep_find_common_field(ev, "common_type");
	if (!type || (type->size != 2 && type->size != 4) || shape_wrong(type, NUM))
		return hb_err_set(err, -EINVAL, "format of %s: no usable common_type field",
				  ev->name);
	if (dec->type_size &&
	    ((unsigned)type->offset != dec->type_offset || (unsigned)type->size != dec->type_size))
		return hb_err_set(err, -EINVAL,
				  "format of %s: common_type at %d+%d, other events "
				  "have it at %u+%u",
				  ev->name, type->offset, type->size, dec->type_offset,
				  dec->type_size);
	for (int i = 0; i < F_MAX; i++) {
		struct tep_format_field *f;
		const char *why;

		if (!(fields[i].may & K(kind)))
			continue;
		f = tep_find_field(ev, fields[i].name);
		if (!f && fields[i].alias)
			f = tep_find_field(ev, fields[i].alias);
		if (!f) {
			if (fields[i].need & K(kind))
				return hb_err_set(err, -EINVAL, "format of %s: no field '%s'%s%s%s",
						  ev->name, fields[i].name,
						  fields[i].alias ? " (nor '" : "",
						  fields[i].alias ? fields[i].alias : "",
						  fields[i].alias ? "')" : "");
			continue;
		}
		why = shape_wrong(f, fields[i].shape);
		if (why)
			return hb_err_set(err, -EINVAL, "format of %s: field '%s' %s", ev->name,
					  f->name, why);
		kf.f[i] = f;
		if (f->offset < 0 || f->size < 0)
			return hb_err_set(err, -EINVAL, "format of %s: field '%s' at %d+%d",
					  ev->name, f->name, f->offset, f->size);
		if ((size_t)f->offset + (size_t)f->size > kf.fixed_len)
			kf.fixed_len = (size_t)f->offset + (size_t)f->size;
	}
	kf.id = ev->id;
	dec->k[kind] = kf;
	dec->type_offset = (unsigned)type->offset;
	dec->type_size = (unsigned)type->size;
	return 0;
}

static bool inside(const struct tep_format_field *f, size_t len)
{
	return f->offset >= 0 && f->size >= 0 && (size_t)f->offset + (size_t)f->size <= len;
}

static uint64_t num(const struct hb_cxl_decoder *dec, const uint8_t *data,
		    const struct tep_format_field *f)
{
	return tep_read_number(dec->tep, data + f->offset, f->size);
}

/* A __data_loc (or __rel_loc) string into dst; -EBADMSG when it is not one. */
static int str(const struct hb_cxl_decoder *dec, const char *ev, const uint8_t *data, size_t len,
	       const struct tep_format_field *f, char *dst, size_t size, struct hb_err *err)
{
	uint32_t loc = (uint32_t)num(dec, data, f);
	size_t off = loc & 0xffff, n = loc >> 16;
	const char *nul;

	if (f->flags & TEP_FIELD_IS_RELATIVE)
		off += (size_t)f->offset + (size_t)f->size;
	if (off > len || n > len - off)
		return hb_err_set(err, -EBADMSG,
				  "%s record: field '%s' points at %zu+%zu, past "
				  "the record's %zu bytes",
				  ev, f->name, off, n, len);
	nul = n ? memchr(data + off, '\0', n) : NULL;
	if (!nul)
		return hb_err_set(err, -EBADMSG, "%s record: field '%s' has no NUL in its %zu bytes",
				  ev, f->name, n);
	if ((size_t)(nul - (const char *)data - off) >= size)
		return hb_err_set(err, -EBADMSG,
				  "%s record: field '%s' is %zu bytes long, at most "
				  "%zu fit",
				  ev, f->name, (size_t)(nul - (const char *)data - off), size - 1);
	memcpy(dst, data + off, (size_t)(nul - (const char *)data - off) + 1);
	return 0;
}

static bool memdev_name_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || (unsigned char)*s >= 0x7f || *s == '/')
			return false;
	return true;
}

int hb_cxl_decode(const struct hb_cxl_decoder *dec, const void *data, size_t len,
		  struct hb_cxl_record *ret, struct hb_err *err)
{
	const uint8_t *p = data;
	struct hb_cxl_record r = { .hpa = HB_ADDR_NONE };
	const struct kind_format *kf = NULL;
	uint64_t id;
	int kind;

	if (!dec->type_size)
		return hb_err_set(err, -ENOENT, "no event format was added");
	if (len < (size_t)dec->type_offset + dec->type_size)
		return hb_err_set(err, -EBADMSG, "record of %zu bytes has no event type", len);
	id = tep_read_number(dec->tep, p + dec->type_offset, (int)dec->type_size);
	for (kind = 0; kind < HB_CXL_KIND_MAX; kind++)
		if (dec->k[kind].added && (uint64_t)dec->k[kind].id == id) {
			kf = &dec->k[kind];
			break;
		}
	if (!kf)
		return hb_err_set(err, -EBADMSG, "record of event id %llu, not a cxl event added",
				  (unsigned long long)id);
	r.kind = (enum hb_cxl_kind)kind;
	if (len < kf->fixed_len) {
		const struct tep_format_field *cut = NULL;

		/* name the first field (by offset) the record does not hold */
		for (int i = 0; i < F_MAX; i++)
			if (kf->f[i] && !inside(kf->f[i], len) &&
			    (!cut || kf->f[i]->offset < cut->offset))
				cut = kf->f[i];
		if (cut)
			return hb_err_set(err, -EBADMSG,
					  "%s record of %zu bytes ends before field "
					  "'%s' (%d+%d)",
					  event_names[kind], len, cut->name, cut->offset, cut->size);
	}
	for (int i = 0; i < F_MAX; i++) {
		const struct tep_format_field *f = kf->f[i];
		int rc = 0;
		uint64_t v;

		if (!f)
			continue;
		if (fields[i].shape == STR) {
			char *dst = i == F_MEMDEV ? r.memdev : i == F_HOST ? r.host : r.region;
			size_t size = i == F_MEMDEV ? sizeof(r.memdev) :
				      i == F_HOST   ? sizeof(r.host) :
						      sizeof(r.region);

			rc = str(dec, event_names[kind], p, len, f, dst, size, err);
			if (rc < 0)
				return rc;
			continue;
		}
		if (fields[i].shape == BYTES16) {
			memcpy(r.uuid, p + f->offset, sizeof(r.uuid));
			continue;
		}
		v = num(dec, p, f);
		switch (i) {
		case F_DPA: r.dpa = v; break;
		case F_HPA: r.hpa = v; break;
		case F_DPA_LENGTH: r.dpa_length = v; break;
		case F_DPA_FLAGS: r.dpa_flags = (uint8_t)v; break;
		case F_DESCRIPTOR: r.descriptor = (uint8_t)v; break;
		case F_TYPE: r.type = (uint8_t)v; break;
		case F_TRANSACTION_TYPE: r.transaction_type = (uint8_t)v; break;
		case F_TRACE_TYPE: r.trace_type = (uint8_t)v; break;
		case F_SOURCE: r.source = (uint8_t)v; break;
		case F_FLAGS: r.flags = (uint8_t)v; break;
		case F_COUNT: r.count = (uint16_t)v; break;
		case F_FIRST_TS: r.first_ts = v; break;
		case F_LAST_TS: r.last_ts = v; break;
		}
	}
	if (!memdev_name_ok(r.memdev))
		return hb_err_set(err, -EBADMSG, "%s record: memdev '%s' is not a device name",
				  event_names[kind], r.memdev);
	if (kind == HB_CXL_GENERAL_MEDIA || kind == HB_CXL_DRAM)
		r.dpa_length = HB_CXL_MEDIA_GRANULE;
	*ret = r;
	return 0;
}

void hb_cxl_record_to_event(const struct hb_cxl_record *rec, struct hb_device_event *ret)
{
	struct hb_device_event ev = { .size = sizeof(ev), .hpa = rec->hpa };

	memcpy(ev.memdev, rec->memdev, sizeof(ev.memdev));
	switch (rec->kind) {
	case HB_CXL_GENERAL_MEDIA:
	case HB_CXL_DRAM:
		ev.kind = HB_EVENT_MEDIA;
		ev.dpa = rec->dpa;
		ev.len = rec->dpa_length;
		if (rec->descriptor & HB_CXL_DESC_UNCORRECTABLE)
			ev.flags |= HB_EVENT_F_UNCORRECTABLE;
		if (rec->descriptor & HB_CXL_DESC_THRESHOLD)
			ev.flags |= HB_EVENT_F_THRESHOLD;
		break;
	case HB_CXL_POISON:
		ev.kind = HB_EVENT_POISON;
		ev.dpa = rec->dpa;
		ev.len = rec->dpa_length;
		if (rec->trace_type == HB_CXL_POISON_CLEAR)
			ev.flags |= HB_EVENT_F_CLEARED;
		break;
	case HB_CXL_OVERFLOW:
	case HB_CXL_KIND_MAX:
		ev.kind = HB_EVENT_OVERFLOW;
		ev.count = rec->count;
		ev.hpa = HB_ADDR_NONE;
		break;
	}
	*ret = ev;
}
