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

/* m rendered in cl's format (built once per format and kept in m; a front-end renders it for
 * each of its clients): a reference for the caller, or NULL. */
static struct outbuf *msg_for(struct msg *m, struct client *cl)
{
	if (cl->fe != NULL)
		return cl->fe->render(cl, m);
	int k = cl->json && m->json != NULL ? 1 : 0;
	if (m->out[k] == NULL) {
		if (k == 1)
			m->out[1] = json_outbuf(m->json);
		else if (m->text != NULL)
			m->out[0] = outbuf_line(m->text);
	}
	return m->out[k] != NULL ? outbuf_ref(m->out[k]) : NULL;
}

void msg_send(struct msg *m, struct client *cl)
{
	struct outbuf *b = msg_for(m, cl);
	client_send(cl, b);
	outbuf_unref(b);
}

void msg_send_now(struct msg *m, struct client *cl)
{
	struct outbuf *b = msg_for(m, cl);
	client_send_now(cl, b);
	outbuf_unref(b);
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

static void reply_build_f(struct msg *m, const struct proto_req *rq, const char *code,
                          const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void reply_build_f(struct msg *m, const struct proto_req *rq, const char *code,
                          const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	reply_build(m, rq, code, NULL, NULL, fmt, ap);
	va_end(ap);
}

/*
 * Sends the reply; an ok that waits for a write (the journal's barrier, client.h) is sent
 * with its refusal in its stead, should the store refuse that write (a cluster node's write
 * to a game another node took over): nothing is acknowledged that is not stored.
 */
static void reply(struct client *cl, const struct proto_req *rq, const char *code, cJSON *fields,
                  char *extra, const char *fmt, va_list ap)
{
	struct msg m;
	reply_build(&m, rq, code, fields, extra, fmt, ap);
	if (code != NULL || !client_barrier_waits(cl->bar)) {
		msg_send(&m, cl);
		msg_done(&m);
		return;
	}
	struct msg no;
	reply_build_f(&no, rq, err_name(ERR_NODE_GONE),
	              "not done: the store refused to record it (this server's copy of the "
	              "game is not the stored one: another node runs the game now); its next "
	              "state says where it stands");
	struct outbuf *b = msg_for(&m, cl), *alt = msg_for(&no, cl);
	client_send_else(cl, b, alt);
	outbuf_unref(b);
	outbuf_unref(alt);
	msg_done(&no);
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

/* The server's telnet ECHO of cl turned on or off, when its peer speaks telnet. */
static void telnet_echo_send(struct client *cl, bool on)
{
	unsigned char iac[3];
	size_t n = conn_telnet_echo(cl->conn, on, iac);
	if (n == 0)
		return;
	struct outbuf *b = outbuf_new((const char *)iac, n);
	client_send(cl, b);
	outbuf_unref(b);
}

void msg_ask_password(struct client *cl, const char *verb, const char *name, const char *fmt, ...)
{
	cl->pw_verb = verb;
	snprintf(cl->pw_name, sizeof cl->pw_name, "%s", name);
	va_list ap;
	va_start(ap, fmt);
	char *m = xvasprintf(fmt, ap);
	va_end(ap);
	send_msg(cl, NULL, m);
	telnet_echo_send(cl, true); /* after the line: telnet shows it before its echo goes */
}

void msg_password_read(struct client *cl)
{
	cl->pw_verb = NULL;
	cl->pw_name[0] = '\0';
	telnet_echo_send(cl, false);
}

void msg_json_lines(const struct outbuf *b,
                    void (*each)(void *arg, cJSON *j, const char *line, size_t len), void *arg)
{
	for (const char *p = b->data, *end = b->data + b->len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);
		each(arg, cJSON_ParseWithLength(p, n), p, nl != NULL ? n + 1 : n);
		p += nl != NULL ? n + 1 : n;
	}
}

void client_send_foreign(struct client *cl, struct outbuf *b)
{
	if (b != NULL && cl->fe != NULL && cl->fe->foreign != NULL)
		cl->fe->foreign(cl, b);
	else
		client_send(cl, b);
}
