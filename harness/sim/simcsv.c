/* SPDX-License-Identifier: MIT */
/*
 * simcsv.c: cachesim's csv trace parameters, the text of its -t option
 * (simtrace.h, struct sim_csv_params).
 *
 * The form is the one cachesim's parser accepts (parse_reader_params,
 * libCacheSim/bin/cli_reader_utils.c), not always the one its --help
 * shows: pairs are split at commas, so a comma delimiter is written
 * "delimiter=," with nothing after it, or "delimiter=\," with a backslash.
 * The help's semicolons ("obj-id-col=1;delimiter=,") are taken too, which
 * cachesim itself refuses.  Keys cachesim knows but sim cannot use
 * (block-size, cnt-col, next-access-col, format: binary and block traces)
 * are refused, as unknown keys are, with the keys sim takes.
 */
#include "harness/sim/simtrace.h"
#include "harness/common/parse.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <strings.h>

#define KEYS_TAKEN "obj-id-col, obj-size-col, delimiter, has-header, " \
		   "obj-id-is-num, time-col"

void sim_csv_params_init(struct sim_csv_params *p)
{
	memset(p, 0, sizeof(*p));
	p->has_header = -1;
	p->id_is_num = -1;
}

int sim_csv_parse_bool(const char *text, bool *out)
{
	static const char *const yes[] = { "true", "1", "yes", "y" };
	static const char *const no[] = { "false", "0", "no", "n" };
	for (size_t i = 0; i < 4; i++) {
		if (strcasecmp(text, yes[i]) == 0)
			return *out = true, 0;
		if (strcasecmp(text, no[i]) == 0)
			return *out = false, 0;
	}
	return -1;
}

int sim_csv_parse_delimiter(const char *text, char *out)
{
	if (strcmp(text, "\\t") == 0 || strcasecmp(text, "tab") == 0)
		*out = '\t';
	else if (strlen(text) == 1 && text[0] != '\n' && text[0] != '"')
		*out = text[0];
	else
		return -1;
	return 0;
}

/* Key names as cachesim compares them: without case, '_' as '-'. */
static bool key_is(const char *key, const char *name)
{
	for (; *key && *name; key++, name++) {
		char k = *key == '_' ? '-' : *key;
		if (tolower((unsigned char)k) != *name)
			return false;
	}
	return !*key && !*name;
}

static bool key_in(const char *key, const char *const *names)
{
	for (; *names; names++)
		if (key_is(key, *names))
			return true;
	return false;
}

/*
 * The delimiter's value starts at v (after '='): one character, "\t", a
 * lone backslash (a comma, as cachesim's "delimiter=\,"), or nothing at
 * the end (a comma too: cachesim reads "delimiter=" so).  The count of
 * characters it takes, or -1 when it is none of those.
 */
static int delimiter_value(const char *v, char *out)
{
	if (v[0] == '\\' && v[1] == 't') {
		*out = '\t';
		return 2;
	}
	if (v[0] == '\\') {
		*out = ',';
		return 1;
	}
	if (v[0] == '\0') {
		*out = ',';
		return 0;
	}
	if (v[0] == '\n' || v[0] == '"')
		return -1;
	*out = v[0];
	return 1;
}

static int set_column(const char *key, const char *value, unsigned *col,
		      char *err, size_t errlen)
{
	uint64_t n;
	char shown[64];
	if (parse_u64(value, 1, 4096, &n)) {
		snprintf(err, errlen, "trace parameter %s wants a column number "
			 "from 1, got '%s'", key,
			 parse_printable(value, shown, sizeof(shown)));
		return -EINVAL;
	}
	*col = (unsigned)n;
	return 0;
}

static int set_bool(const char *key, const char *value, int *out, char *err,
		    size_t errlen)
{
	bool b;
	char shown[64];
	if (sim_csv_parse_bool(value, &b)) {
		snprintf(err, errlen, "trace parameter %s wants true or false "
			 "(1/0, yes/no), got '%s'", key,
			 parse_printable(value, shown, sizeof(shown)));
		return -EINVAL;
	}
	*out = b;
	return 0;
}

static const char *const id_keys[] = { "obj-id-col", "obj-id-field", NULL };
static const char *const size_keys[] = { "obj-size-col", "obj-size-field",
					 "size-col", "size-field", NULL };
static const char *const time_keys[] = { "time-col", "time-field", NULL };
static const char *const header_keys[] = { "has-header", "header", NULL };
static const char *const num_keys[] = { "obj-id-is-num", NULL };

/* One key=value (the delimiter's handled before). */
static int set_param(const char *key, const char *value,
		     struct sim_csv_params *p, char *err, size_t errlen)
{
	char shown[64];
	if (key_in(key, id_keys))
		return set_column(key, value, &p->id_col, err, errlen);
	if (key_in(key, size_keys))
		return set_column(key, value, &p->size_col, err, errlen);
	if (key_in(key, time_keys)) {
		unsigned ignored;
		p->time_col = true;
		return set_column(key, value, &ignored, err, errlen);
	}
	if (key_in(key, header_keys))
		return set_bool(key, value, &p->has_header, err, errlen);
	if (key_in(key, num_keys))
		return set_bool(key, value, &p->id_is_num, err, errlen);
	snprintf(err, errlen, "trace parameter '%s' is not one sim takes (%s)",
		 parse_printable(key, shown, sizeof(shown)), KEYS_TAKEN);
	return -EINVAL;
}

int sim_csv_params_parse(const char *text, struct sim_csv_params *p,
			 char *err, size_t errlen)
{
	char key[64], value[64], shown[64];
	const char *s = text;
	for (;;) {
		s += strspn(s, " ,;");
		if (!*s)
			return 0;
		size_t kl = strcspn(s, "=,;");
		snprintf(key, sizeof(key), "%.*s", (int)(kl < 63 ? kl : 63), s);
		if (s[kl] != '=') {
			snprintf(err, errlen, "trace parameter '%s' has no value "
				 "(key=value, separated by commas: %s)",
				 parse_printable(key, shown, sizeof(shown)),
				 KEYS_TAKEN);
			return -EINVAL;
		}
		s += kl + 1;
		size_t vl;
		if (key_is(key, "delimiter")) {
			int dl = delimiter_value(s, &p->delimiter);
			vl = dl < 0 ? 0 : (size_t)dl;
			if (dl < 0 || (s[vl] && !strchr(",; ", s[vl]))) {
				snprintf(err, errlen, "trace parameter delimiter "
					 "wants one character (delimiter=, or "
					 "delimiter=\\t), got '%s'",
					 parse_printable(s, shown, sizeof(shown)));
				return -EINVAL;
			}
		} else {
			vl = strcspn(s, ",;");
			snprintf(value, sizeof(value), "%.*s",
				 (int)(vl < 63 ? vl : 63), s);
			int rc = set_param(key, value, p, err, errlen);
			if (rc)
				return rc;
		}
		s += vl;
	}
}
