/*
 * msg.h - messages in the client's format (the messages layer): one struct
 * msg holds a JSON object and its text-mode rendering, each serialized at
 * most once into an outbuf shared by every client it goes to (a broadcast
 * costs one rendering per format, not one per recipient); the direct replies
 * to a command, ok and error, with the command's tag. See PROTOCOL.md §2.
 *
 * Ownership: msg_init() and send_msg() take the cJSON object and the
 * malloc'd text; msg_done() frees them and the renderings.
 */
#ifndef BITARENA_SERVER_MSG_H
#define BITARENA_SERVER_MSG_H

#include <stdarg.h>

#include <cjson/cJSON.h>

#include "server/client.h"
#include "server/proto.h"
#include "server/text.h"

/* One message in both formats; json may be NULL (text-only), text is malloc'd. */
struct msg {
	cJSON *json;
	char *text;
	struct outbuf *out[2]; /* rendered lazily: [0] text, [1] json */
};
void msg_init(struct msg *m, cJSON *json, char *text);
/* Sends m to cl in cl's format. */
void msg_send(struct msg *m, struct client *cl);
void msg_done(struct msg *m);
/* msg_init + msg_send + msg_done. */
void send_msg(struct client *cl, cJSON *json, char *text);

/* cl's output format from now on: JSON (true) or text (set format). */
void msg_set_json(struct client *cl, bool json);

/* The JSON object as one line (an outbuf; NULL when out of memory). */
struct outbuf *json_outbuf(const cJSON *j);

/*
 * The direct reply to a command: {"type":"ok","cmd":..,"id":..,fields...,"message":text}
 * or "ok <text>" (tag prefixed). fields (owned, may be NULL) is a JSON object whose
 * members are moved into the reply; extra (owned, may be NULL) holds further text
 * lines for text mode only (lists).
 */
void reply_ok(struct client *cl, const struct proto_req *rq, cJSON *fields, char *extra,
              const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* {"type":"error","code":..,"message":..,"cmd":..,"id":..} or "error CODE: message". */
void reply_err(struct client *cl, const struct proto_req *rq, const char *code, const char *fmt,
               ...) __attribute__((format(printf, 4, 5)));
/* Moves every member of from (owned, may be NULL) into the object to, in order. */
void json_move_members(cJSON *to, cJSON *from);

#endif
