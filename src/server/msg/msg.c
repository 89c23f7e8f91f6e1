/*
 * msg.c - messages in the client's format and the direct replies to a
 * command (see msg.h).
 */
#include "server/msg/msg.h"

#include "server/util/json_out.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void msg_init(struct msg *m, cJSON *json, char *text)
{
	m->json = json;
	m->text = text;
	m->out[0] = m->out[1] = NULL;
}

void msg_set_json(struct client *cl, bool json)
{
	cl->json = json;
}

struct outbuf *json_outbuf(const cJSON *j)
{
	char space[8192];
	struct json_buf jb;
	json_buf_init(&jb, space, sizeof space);
	struct outbuf *b = NULL;
	if (json_out(&jb, j) && json_buf_put(&jb, "\n", 1))
		b = outbuf_new(jb.p, jb.len);
	json_buf_free(&jb);
	return b;
}

/* m rendered in cl's format (built once per format and kept in m; a front-end
 * renders it for each of its clients) and handed to send. */
static void msg_deliver(struct msg *m, struct client *cl,
                        void (*send)(struct client *, struct outbuf *))
{
	if (cl->fe != NULL) {
		struct outbuf *b = cl->fe->render(cl, m);
		send(cl, b);
		outbuf_unref(b);
		return;
	}
	int k = cl->json && m->json != NULL ? 1 : 0;
	if (m->out[k] == NULL) {
		if (k == 1)
			m->out[1] = json_outbuf(m->json);
		else if (m->text != NULL)
			m->out[0] = outbuf_line(m->text);
	}
	send(cl, m->out[k]);
}

void msg_send(struct msg *m, struct client *cl)
{
	msg_deliver(m, cl, client_send);
}

void msg_send_now(struct msg *m, struct client *cl)
{
	msg_deliver(m, cl, client_send_now);
}

void msg_done(struct msg *m)
{
	cJSON_Delete(m->json);
	free(m->text);
	outbuf_unref(m->out[0]);
	outbuf_unref(m->out[1]);
}

void send_msg(struct client *cl, cJSON *json, char *text)
{
	struct msg m;
	msg_init(&m, json, text);
	msg_send(&m, cl);
	msg_done(&m);
}

void json_move_members(cJSON *to, cJSON *from)
{
	if (from == NULL)
		return;
	cJSON *it;
	while ((it = from->child) != NULL) {
		cJSON_DetachItemViaPointer(from, it);
		/* the key is copied before the item's own one is freed */
		cJSON_AddItemToObject(to, it->string, it);
	}
	cJSON_Delete(from);
}

/*
 * The direct reply to rq, into m (msg_init): ok (code NULL; fields and extra
 * as for reply_ok) or an error with code. The sentence is printf'd from fmt.
 */
static void reply_build(struct msg *m, const struct proto_req *rq, const char *code,
                        cJSON *fields, char *extra, const char *fmt, va_list ap)
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
	json_move_members(j, fields);
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
	msg_init(m, j, text);
}

static void reply(struct client *cl, const struct proto_req *rq, const char *code, cJSON *fields,
                  char *extra, const char *fmt, va_list ap)
{
	struct msg m;
	reply_build(&m, rq, code, fields, extra, fmt, ap);
	msg_send(&m, cl);
	msg_done(&m);
}

void reply_ok_msg(struct msg *m, const struct proto_req *rq, cJSON *fields, char *extra,
                  const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	reply_build(m, rq, NULL, fields, extra, fmt, ap);
	va_end(ap);
}

void reply_ok(struct client *cl, const struct proto_req *rq, cJSON *fields, char *extra,
              const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	reply(cl, rq, NULL, fields, extra, fmt, ap);
	va_end(ap);
}

void reply_err(struct client *cl, const struct proto_req *rq, enum err_code code, const char *fmt,
               ...)
{
	va_list ap;
	va_start(ap, fmt);
	reply(cl, rq, err_name(code), NULL, NULL, fmt, ap);
	va_end(ap);
}

void reply_err_fields(struct client *cl, const struct proto_req *rq, enum err_code code,
                      cJSON *fields, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	reply(cl, rq, err_name(code), fields, NULL, fmt, ap);
	va_end(ap);
}

void reply_oom(struct client *cl, const struct proto_req *rq)
{
	reply_err(cl, rq, ERR_INTERNAL, "out of memory");
}

void reply_usage(struct client *cl, const struct proto_req *rq)
{
	reply_err(cl, rq, ERR_BAD_ARGS, "usage: %s", rq->cmd->usage);
}

void reply_no_game(struct client *cl, const struct proto_req *rq, uint64_t id)
{
	reply_err(cl, rq, ERR_NO_SUCH_GAME, "there is no game %" PRIu64, id);
}

void reply_no_seek(struct client *cl, const struct proto_req *rq, uint64_t id)
{
	reply_err(cl, rq, ERR_NO_SUCH_SEEK, "there is no seek %" PRIu64, id);
}

void send_info(struct client *cl, enum err_code code, const char *fmt, ...)
{
	const char *name = err_name(code);
	char event[32]; /* "session_taken" for SESSION_TAKEN */
	size_t n = 0;
	for (; name[n] != '\0' && n + 1 < sizeof event; n++)
		event[n] = name[n] >= 'A' && name[n] <= 'Z' ? (char)(name[n] - 'A' + 'a') : name[n];
	event[n] = '\0';
	va_list ap;
	va_start(ap, fmt);
	char *m = xvasprintf(fmt, ap);
	va_end(ap);
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", "info");
	cJSON_AddStringToObject(j, "event", event);
	cJSON_AddStringToObject(j, "code", name);
	cJSON_AddStringToObject(j, "message", m ? m : "");
	send_msg(cl, j, xasprintf("info %s: %s", name, m ? m : ""));
	free(m);
}
