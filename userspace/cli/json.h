/* SPDX-License-Identifier: MIT */
/* The one JSON writer of the CLI: compact, one object per line. */
#ifndef VSC_CLI_JSON_H
#define VSC_CLI_JSON_H

#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json {
	FILE *out;
	int depth;
	int count[JSON_MAX_DEPTH]; /* items written at each depth, for commas */
};

void json_init(struct json *j, FILE *out);
/* A writer of one value that goes inside another document later (no
 * newline after it): its bytes are what the same calls give there. */
void json_init_inner(struct json *j, FILE *out);
/* The next value is written by the caller, as is, to the FILE returned. */
FILE *json_raw_value(struct json *j);
/* n bytes of s as they go inside a JSON string (escaped). */
void json_write_escaped(FILE *out, const char *s, size_t n);
void json_object_begin(struct json *j);
void json_object_end(struct json *j);
void json_array_begin(struct json *j);
void json_array_end(struct json *j);
/* In an object: the key of the next value. */
void json_key(struct json *j, const char *key);
void json_string(struct json *j, const char *s);
void json_int(struct json *j, long long v);
void json_uint(struct json *j, unsigned long long v);
void json_double(struct json *j, double v);
void json_bool(struct json *j, int v);
void json_null(struct json *j);

/* In an object: a key and its value, in one call. */
void json_key_string(struct json *j, const char *key, const char *s);
void json_key_int(struct json *j, const char *key, long long v);
void json_key_uint(struct json *j, const char *key, unsigned long long v);
void json_key_double(struct json *j, const char *key, double v);
void json_key_bool(struct json *j, const char *key, int v);

#endif
