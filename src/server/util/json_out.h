/*
 * json_out.h - a cJSON tree written as one line of JSON, byte for byte as
 * cJSON_PrintUnformatted() writes it, without its costs: cJSON 1.7.15 prints
 * every number with sprintf("%1.15g") and reads it back with sscanf() to
 * check it, grows its buffer by reallocation and copies the result once more;
 * a state message is mostly small integers (ids, plies, clocks), so that was
 * most of the time spent printing a state. Here an integer below 10^15 is
 * written digit by digit (what "%1.15g" prints for it), strings are copied in
 * runs between the characters cJSON escapes, and the line goes into a buffer
 * the caller gives (on the stack for a message), grown only when it is full.
 * Any other number (a fraction, 10^15 and above, NaN) is printed by cJSON itself,
 * so the output is cJSON's in every case (tests/check_json_out.c compares
 * them).
 */
#ifndef BITARENA_SERVER_JSON_OUT_H
#define BITARENA_SERVER_JSON_OUT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

/* A growing buffer: p holds len bytes; p starts as the caller's own (heap false). */
struct json_buf {
	char *p;
	size_t len, cap;
	bool heap; /* p was malloc'd here (json_buf_free frees it) */
	bool failed;
};

/* A buffer over the caller's space (cap bytes, may be 0 with p NULL). */
static inline void json_buf_init(struct json_buf *b, char *space, size_t cap)
{
	b->p = space;
	b->len = 0;
	b->cap = cap;
	b->heap = false;
	b->failed = false;
}
void json_buf_free(struct json_buf *b);
/* Appends n bytes; false (and b->failed) when out of memory. */
bool json_buf_put(struct json_buf *b, const char *s, size_t n);

/*
 * Appends j as cJSON_PrintUnformatted(j) writes it; false when cJSON would
 * fail (an invalid item, a raw item without text) or out of memory, and then
 * what b holds is undefined.
 */
bool json_out(struct json_buf *b, const cJSON *j);

/*
 * A writer of JSON straight into a buffer, in cJSON_PrintUnformatted()'s
 * format, for messages built on the hot path without a cJSON tree (a state:
 * no allocation per member). Commas are placed by the writer: jw_key()
 * before each member of an object, values alone in an array.
 */
#define JW_DEPTH 16
struct jw {
	struct json_buf b;
	int depth;
	bool after_key;
	bool more[JW_DEPTH]; /* the container at this depth has a member already */
};
static inline void jw_init(struct jw *w, char *space, size_t cap)
{
	json_buf_init(&w->b, space, cap);
	w->depth = 0;
	w->after_key = false;
	w->more[0] = false;
}
void jw_obj(struct jw *w);
void jw_arr(struct jw *w);
void jw_end(struct jw *w, char close); /* '}' or ']' */
void jw_key(struct jw *w, const char *key);
void jw_num(struct jw *w, double d); /* as cJSON_CreateNumber(d) prints */
void jw_str(struct jw *w, const char *s);
void jw_null(struct jw *w);
void jw_bool(struct jw *w, bool v);
/* j (a tree; NULL: null) as a value; the tree stays the caller's. */
void jw_json(struct jw *w, const cJSON *j);
/* false when anything failed (out of memory, a tree cJSON could not print). */
static inline bool jw_ok(const struct jw *w)
{
	return !w->b.failed && w->depth == 0;
}

#endif
