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
#include <stdint.h>

#include <cjson/cJSON.h>

#include "proto/errors.h" /* enum err_code: the one list of codes */
#include "server/msg/client.h"
#include "server/msg/proto.h"
#include "server/util/text.h"

/* One message in both formats; json may be NULL (text-only), text is malloc'd. */
struct msg {
	cJSON *json;
	char *text;
	struct outbuf *out[2]; /* rendered lazily: [0] text, [1] json */
};
void msg_init(struct msg *m, cJSON *json, char *text);
/* Sends m to cl in cl's format (or through cl's front-end, below). */
void msg_send(struct msg *m, struct client *cl);
/* msg_send() ahead of what cl has held behind the journal's barrier (client_send_now). */
void msg_send_now(struct msg *m, struct client *cl);
void msg_done(struct msg *m);
/* client_send() of output another node rendered: through cl's front-end's foreign hook when
   it has one (an HTTP stream keeps only its lines). */
void client_send_foreign(struct client *cl, struct outbuf *b);

/* Each line of b (another node's JSON lines, as a foreign hook gets them) to each: the line
 * parsed (NULL when it is not JSON; each owns it), and its bytes with their newline. */
void msg_json_lines(const struct outbuf *b,
                    void (*each)(void *arg, cJSON *j, const char *line, size_t len), void *arg);
/* msg_init + msg_send + msg_done. */
void send_msg(struct client *cl, cJSON *json, char *text);

/* cl's output format from now on: JSON (true) or text (set format). */
void msg_set_json(struct client *cl, bool json);

/*
 * A front-end: another protocol spoken on a connection (the playtak port,
 * playtak_port.h), set when the connection opens (client.h: fe, fe_data). It
 * reads the connection's lines in place of the command table and renders what
 * the layers send the client in its own lines.
 *
 * Why a per-client hook and not a third shared format beside text and JSON:
 * text and JSON render one message once for every client that gets it, from
 * the message alone. Another protocol's lines depend on the client too (the
 * playtak protocol version it asked for, its seat, which moves of a game it
 * has been told: playtak relays moves where the server sends whole states),
 * so the front-end renders each message for each of its clients, reading the
 * message's JSON form, the structured one, and keeping its own per-client
 * state. The text and JSON paths are untouched: a client without a front-end
 * never reaches these hooks.
 *
 * Rendering gives a new outbuf (the caller's reference) or NULL for nothing;
 * the messages layer sends it through client_send() like any other output.
 */
struct game;
struct snapshot;
struct msg_frontend {
	const char *name; /* "playtak" */
	/* m for cl */
	struct outbuf *(*render)(struct client *cl, const struct msg *m);
	/* the state sn of g for cl (viewer: cl's seat in g, or -1), from session_watch_send_state()
	 */
	struct outbuf *(*render_state)(struct client *cl, struct game *g, struct snapshot *sn,
	                               int viewer);
	/* one input line of cl (framing done, content unchecked), in place of the command table */
	void (*line)(struct client *cl, char *line, size_t len);
	/* cl is closing (after the layers left it): free cl->fe_data */
	void (*gone)(struct client *cl);
	/* optional: b, output another node rendered for cl (a forwarded command's answer, a
	   remote game's lines: client_send_foreign()), in place of sending it as is */
	void (*foreign)(struct client *cl, struct outbuf *b);
};

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
/* reply_ok()'s reply into m (msg_init) without sending it: one answer many clients get, made
   once and sent with msg_send() (lobby_who); the caller calls msg_done(m). */
void reply_ok_msg(struct msg *m, const struct proto_req *rq, cJSON *fields, char *extra,
                  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* {"type":"error","code":..,"message":..,"cmd":..,"id":..} or "error CODE: message". */
void reply_err(struct client *cl, const struct proto_req *rq, enum err_code code, const char *fmt,
               ...) __attribute__((format(printf, 4, 5)));
/* reply_err() with fields (owned, may be NULL) moved into the JSON error, as for reply_ok. */
void reply_err_fields(struct client *cl, const struct proto_req *rq, enum err_code code,
                      cJSON *fields, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* The refusals that several layers give alike, one sentence each: */
void reply_oom(struct client *cl, const struct proto_req *rq);   /* INTERNAL: out of memory */
void reply_usage(struct client *cl, const struct proto_req *rq); /* BAD_ARGS: rq->cmd's usage */
void reply_no_game(struct client *cl, const struct proto_req *rq, uint64_t id); /* NO_SUCH_GAME */
void reply_no_seek(struct client *cl, const struct proto_req *rq, uint64_t id); /* NO_SUCH_SEEK */
/* An info notice (§4), no answer to a command: {"type":"info","event":<the code in lower
   case>,"code":..,"message":..} or "info CODE: message". */
void send_info(struct client *cl, enum err_code code, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
/*
 * A password prompt (client.h: pw_verb): the next line of cl is the password for verb (a row
 * name of the command table) and name. To a telnet peer (conn.h: telnet_peer) the prompt
 * line is followed by IAC WILL ECHO, so that its telnet stops showing what is typed (as FICS
 * does; after the line, which telnet shows while its terminal is still as it was); to others
 * (nc) it is a plain line. Text mode only: the caller never asks a JSON client.
 */
void msg_ask_password(struct client *cl, const char *verb, const char *name, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
/* The line that answers the prompt is read: nothing is asked any more, and a telnet peer's
   echo is turned back on (IAC WONT ECHO) before whatever answers the password. */
void msg_password_read(struct client *cl);
/* Moves every member of from (owned, may be NULL) into the object to, in order. */
void json_move_members(cJSON *to, cJSON *from);

#endif
