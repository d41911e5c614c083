/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "json.h"

void json_init(struct json *j, FILE *out)
{
	j->out = out;
	j->depth = 0;
	j->count[0] = 0;
}

void json_init_inner(struct json *j, FILE *out)
{
	json_init(j, out);
	j->depth = 1; /* as in a container: its values end no line */
	j->count[1] = 0;
}

/* Before a value: a comma unless it is the first at its depth or follows a key. */
static void separate(struct json *j)
{
	if (j->count[j->depth] > 0)
		fputc(',', j->out);
	j->count[j->depth]++;
}

/* After a key the count is negative: restore it instead of adding a comma. */
static void value_start(struct json *j)
{
	if (j->count[j->depth] < 0)
		j->count[j->depth] = -j->count[j->depth];
	else
		separate(j);
}

static void open_container(struct json *j, char c)
{
	value_start(j);
	fputc(c, j->out);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->count[j->depth] = 0;
}

static void close_container(struct json *j, char c)
{
	fputc(c, j->out);
	if (j->depth > 0)
		j->depth--;
	if (j->depth == 0) {
		fputc('\n', j->out);
		j->count[0] = 0; /* top-level values are lines, not a list */
	}
}

void json_object_begin(struct json *j)
{
	open_container(j, '{');
}

void json_object_end(struct json *j)
{
	close_container(j, '}');
}

void json_array_begin(struct json *j)
{
	open_container(j, '[');
}

FILE *json_raw_value(struct json *j)
{
	value_start(j);
	return j->out;
}

void json_array_end(struct json *j)
{
	close_container(j, ']');
}

void json_write_escaped(FILE *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
}

static void write_string(FILE *out, const char *s)
{
	fputc('"', out);
	json_write_escaped(out, s, strlen(s));
	fputc('"', out);
}

void json_key(struct json *j, const char *key)
{
	separate(j);
	write_string(j->out, key);
	fputc(':', j->out);
	j->count[j->depth] = -j->count[j->depth]; /* the value needs no comma */
}

void json_string(struct json *j, const char *s)
{
	value_start(j);
	write_string(j->out, s);
}

void json_int(struct json *j, long long v)
{
	value_start(j);
	fprintf(j->out, "%lld", v);
}

void json_uint(struct json *j, unsigned long long v)
{
	value_start(j);
	fprintf(j->out, "%llu", v);
}

void json_double(struct json *j, double v)
{
	value_start(j);
	fprintf(j->out, "%.6f", v);
}

void json_bool(struct json *j, int v)
{
	value_start(j);
	fputs(v ? "true" : "false", j->out);
}

void json_null(struct json *j)
{
	value_start(j);
	fputs("null", j->out);
}

void json_key_string(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_string(j, s);
}

void json_key_int(struct json *j, const char *key, long long v)
{
	json_key(j, key);
	json_int(j, v);
}

void json_key_uint(struct json *j, const char *key, unsigned long long v)
{
	json_key(j, key);
	json_uint(j, v);
}

void json_key_double(struct json *j, const char *key, double v)
{
	json_key(j, key);
	json_double(j, v);
}

void json_key_bool(struct json *j, const char *key, int v)
{
	json_key(j, key);
	json_bool(j, v);
}
