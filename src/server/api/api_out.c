/*
 * api_out.c - the API's answers (see api_internal.h): heads through the HTTP exchange
 * (net/http.h) with the API's own headers (CORS for read-only use from any origin, and a
 * retry-after on a 429), JSON bodies, errors with the protocol's codes, and the end of an
 * exchange: it closes once nothing of it is held behind the journal's barrier (client.h),
 * checked on the next loop pass and then every API_RECHECK_MS while something is held.
 */
#include "server/api/api_internal.h"

#include <stdio.h>
#include <stdlib.h>

/* The head of x: status, type, length (-1: until the close), a retry-after when retry_s. */
static bool head(struct api_x *x, int status, const char *type, int64_t length, int retry_s)
{
	if (x->answered)
		return false;
	char retry[16];
	struct http_head h = {.status = status, .type = type, .length = length};
	int n = 0;
	if (!x->private_) {
		h.headers[n][0] = "access-control-allow-origin";
		h.headers[n++][1] = "*";
	}
	h.headers[n][0] = "cache-control";
	h.headers[n++][1] = "no-store";
	if (retry_s > 0) {
		snprintf(retry, sizeof retry, "%d", retry_s);
		h.headers[n][0] = "retry-after";
		h.headers[n++][1] = retry;
	}
	if (status == 405) {
		h.headers[n][0] = "allow";
		h.headers[n++][1] = "GET, OPTIONS";
	}
	x->answered = true;
	return http_respond(x->cl->conn, &h) == 0;
}

void api_send(struct api_x *x, struct outbuf *b)
{
	if (b != NULL && client_alive(x->cl))
		client_send(x->cl, b);
}

static void answer(struct api_x *x, int status, const char *type, struct outbuf *body, int retry_s)
{
	if (head(x, status, type, body != NULL ? (int64_t)body->len : 0, retry_s))
		api_send(x, body);
	outbuf_unref(body);
	api_end(x);
}

void api_answer(struct api_x *x, int status, const char *type, struct outbuf *body)
{
	answer(x, status, type, body, 0);
}

void api_json(struct api_x *x, int status, cJSON *j)
{
	struct outbuf *b = j != NULL ? json_outbuf(j) : NULL;
	cJSON_Delete(j);
	if (b == NULL) {
		api_error(x, 500, ERR_INTERNAL, NULL, 0, "out of memory");
		return;
	}
	answer(x, status, API_JSON, b, 0);
}

void api_error(struct api_x *x, int status, enum err_code code, cJSON *fields, int retry_s,
               const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", "error");
	cJSON_AddStringToObject(j, "code", err_name(code));
	cJSON_AddStringToObject(j, "message", msg);
	json_move_members(j, fields);
	struct outbuf *b = json_outbuf(j);
	cJSON_Delete(j);
	answer(x, status, API_JSON, b, retry_s);
}

bool api_begin(struct api_x *x, const char *type)
{
	return head(x, 200, type, -1, 0);
}

void api_end(struct api_x *x)
{
	if (x->ending)
		return;
	x->ending = true;
	x->end_next = x->a->ending;
	x->a->ending = x;
	if (x->a->later_open)
		uv_idle_start(&x->a->later, x->a->later_cb);
}

#define API_RECHECK_MS 2 /* an ending exchange's held output is looked at again this often */

static void recheck_cb(uv_timer_t *t)
{
	api_out_close_ended(t->data);
}

void api_out_close_ended(struct api *a)
{
	bool held = false;
	struct api_x **pp = &a->ending;
	while (*pp != NULL) {
		struct api_x *x = *pp;
		if (x->cl->held_n > 0) { /* its last lines wait for the store */
			held = true;
			pp = &x->end_next;
			continue;
		}
		*pp = x->end_next;
		x->end_next = NULL;
		client_close(x->cl, true); /* x is freed (api_out_gone finds it unlisted) */
	}
	/* held output goes out as the journal's batch is durable, written at once (no drain
	   tells of it): looked at again shortly */
	if (held && a->later_open)
		uv_timer_start(&a->recheck, recheck_cb, API_RECHECK_MS, 0);
}

void api_out_gone(struct api_x *x)
{
	for (struct api_x **pp = &x->a->ending; *pp != NULL; pp = &(*pp)->end_next)
		if (*pp == x) {
			*pp = x->end_next;
			return;
		}
}
