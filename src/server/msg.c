/*
 * msg.c - messages in the connection's format: one struct msg holds a JSON
 * object and its text-mode rendering, each serialized at most once into a
 * shared outbuf; the direct replies ok/error with the command's tag.
 */
#include "server/server.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	return s;
}

void xappend(char **s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *add = xvasprintf(fmt, ap);
	va_end(ap);
	char *n = add ? xasprintf("%s%s", *s ? *s : "", add) : NULL;
	free(add);
	if (n != NULL) {
		free(*s);
		*s = n;
	}
}

void msg_init(struct msg *m, cJSON *json, char *text)
{
	m->json = json;
	m->text = text;
	m->out[0] = m->out[1] = NULL;
}

/* A text block as an outbuf ending in exactly one newline. */
static struct outbuf *text_outbuf(const char *text)
{
	size_t n = strlen(text);
	while (n > 0 && text[n - 1] == '\n')
		n--;
	struct outbuf *b = malloc(sizeof *b + n + 2);
	if (b == NULL)
		return NULL;
	b->refs = 1;
	b->len = n + 1;
	memcpy(b->data, text, n);
	b->data[n] = '\n';
	b->data[n + 1] = '\0';
	return b;
}

static struct outbuf *json_outbuf(const cJSON *j)
{
	char *s = cJSON_PrintUnformatted(j);
	if (s == NULL)
		return NULL;
	struct outbuf *b = text_outbuf(s);
	cJSON_free(s);
	return b;
}

void msg_send(struct msg *m, struct conn *c)
{
	int k = c->json && m->json != NULL ? 1 : 0;
	if (m->out[k] == NULL) {
		if (k == 1)
			m->out[1] = json_outbuf(m->json);
		else if (m->text != NULL)
			m->out[0] = text_outbuf(m->text);
	}
	conn_send(c, m->out[k]);
}

void msg_done(struct msg *m)
{
	cJSON_Delete(m->json);
	free(m->text);
	outbuf_unref(m->out[0]);
	outbuf_unref(m->out[1]);
}

void send_msg(struct conn *c, cJSON *json, char *text)
{
	struct msg m;
	msg_init(&m, json, text);
	msg_send(&m, c);
	msg_done(&m);
}

/*
 * The direct reply to rq: ok (code NULL; fields and extra as for reply_ok) or
 * an error with code. The sentence is printf'd from fmt.
 */
static void reply(struct conn *c, const struct proto_req *rq, const char *code, cJSON *fields,
                  char *extra, const char *fmt, va_list ap)
{
	char *sentence = xvasprintf(fmt, ap);
	const char *said = sentence ? sentence : "";
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", code ? "error" : "ok");
	if (code != NULL) {
		cJSON_AddStringToObject(j, "code", code);
		cJSON_AddStringToObject(j, "message", said);
	}
	if (rq != NULL && rq->cmd != NULL)
		cJSON_AddStringToObject(j, "cmd", rq->cmd->name);
	else if (rq != NULL && rq->verb[0] != '\0')
		cJSON_AddStringToObject(j, "cmd", rq->verb);
	bool tagged = rq != NULL && rq->tagged;
	if (tagged)
		cJSON_AddStringToObject(j, "id", rq->tag);
	if (fields != NULL) {
		while (fields->child != NULL) {
			cJSON *it = fields->child;
			cJSON_DetachItemViaPointer(fields, it);
			/* the key is copied before the item's own one is freed */
			cJSON_AddItemToObject(j, it->string, it);
		}
		cJSON_Delete(fields);
	}
	char *text;
	if (code != NULL) {
		text = xasprintf("%s%s%serror %s: %s", tagged ? "#" : "", tagged ? rq->tag : "",
		                 tagged ? " " : "", code, said);
	} else {
		cJSON_AddStringToObject(j, "message", said);
		text = xasprintf("%s%s%sok %s%s%s", tagged ? "#" : "", tagged ? rq->tag : "",
		                 tagged ? " " : "", said, extra ? "\n" : "", extra ? extra : "");
	}
	free(sentence);
	free(extra);
	send_msg(c, j, text);
}

void reply_ok(struct conn *c, const struct proto_req *rq, cJSON *fields, char *extra,
              const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	reply(c, rq, NULL, fields, extra, fmt, ap);
	va_end(ap);
}

void reply_err(struct conn *c, const struct proto_req *rq, const char *code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	reply(c, rq, code, NULL, NULL, fmt, ap);
	va_end(ap);
}
