/*
 * lobby.h - the lobby layer: who is here (presence: logged-in clients by
 * name, guests and accounts) and the seeks that start games, beside the
 * session layer (an accepted seek becomes a session; a login gives back the
 * seats its name left). It replies to the verbs it serves: games, seek,
 * seeks, unseek, accept, who; the dispatcher (commands.c) has checked their
 * arity, the login and the seek named by the first argument.
 *
 * Presence lives in each client's lobby part (client.h: logged_in,
 * registered, name), written only here; the clients themselves are the
 * connection hub's, so listing them walks the hub (newest connection first).
 * A relay client (client.h: remote) stands for a user of another node: it
 * is never a user here.
 *
 * Seek news (an open seek offered or gone; challenges are direct.c's) goes
 * to every logged-in client that has not turned it off (set seeks off) but
 * the seek's author; a front-end's clients hear of it through lobby_news and
 * a cluster through lobby_hooks, at once. While seeks are rare it goes at
 * once, as the command that caused it runs (up to
 * LOBBY_FEED_BURST sends in a row, one more allowed every feed_ms). Past
 * that it is batched: news waits in a feed and goes out every feed_ms
 * (LOBBY_FEED_MS), all of it in one write per client; a seek that came and
 * went in between is not told at all; more than LOBBY_FEED_MAX seeks at once
 * become one "changed" summary, and while summaries follow each other the
 * interval doubles up to LOBBY_FEED_SLOW_MS (back to feed_ms once a batch is
 * small again). So a flood of seeks costs O(clients) writes a second, not
 * per seek. The one who accepts a seek is told it is gone
 * at once, with the answer to its accept.
 */
#ifndef BITARENA_SERVER_LOBBY_H
#define BITARENA_SERVER_LOBBY_H

#include <stdbool.h>
#include <stdint.h>

#include "server/net/conn.h"
#include "server/msg/msg.h"
#include "server/play/session.h"

#define LOBBY_MAX_SEEKS       8    /* open seeks per user */
/* --max-seeks: open seeks on the server; as many as --max-clients, so that a thousand
   connections seeking at once (each is 8 at most) cannot fill it for everyone else */
#define LOBBY_MAX_SEEKS_TOTAL 10000
#define LOBBY_SEEKS_LISTED    200 /* seeks one `seeks` reply lists (it counts them all) */
#define LOBBY_FEED_MS         50   /* seek news goes out at most this often, past a burst */
#define LOBBY_FEED_BURST      8    /* sends of seek news at once before that */
#define LOBBY_FEED_MAX        8    /* news of more seeks at once: one "changed" summary */
#define LOBBY_FEED_SLOW_MS    1000 /* summaries in a row come at most this far apart */
#define LOBBY_WHO_MAX         1000 /* users who lists (the rest are counted) */

/* An open seek: the game its author offers (to anyone, or to one user: a challenge). */
struct seek {
	struct seek *next;
	uint64_t id;
	struct client *by;
	struct client *to; /* a challenge (match, direct.h): the one user who sees it; else NULL */
	const struct game_ops *ops;
	struct seek_opts so;
	bool told; /* its "new" went out (else it is still in the feed) */
};

/* One piece of seek news waiting in the feed. */
struct seek_news {
	bool gone;
	uint64_t id;
	struct seek *k;      /* new: the seek (open: news of a seek that goes is taken back) */
	uint64_t skip_id[2]; /* connection ids not told (its author; the acceptor, told at once) */
	bool by_bot, by_bots_off; /* its author is a bot / refuses bots: not told across (§17) */
};

/*
 * Upward news for a front-end above the lobby that tells its clients about
 * seeks and presence in its own lines (the playtak port): a seek is new or
 * gone (as the feed is given the news; a gone seek is freed after the
 * call), a client logged in (after its reply and resumed games) or is leaving.
 * ud is the front-end's; unset callbacks are skipped.
 */
struct lobby_news {
	void *ud;
	void (*on_seek)(void *ud, const struct seek *k, bool gone);
	void (*on_presence)(void *ud, struct client *c, bool here);
};

/* Upward news for a cluster (cluster.c), registered by server.c; each optional. */
struct lobby_hooks {
	void *ud;
	/* c logged in (its reply and resumed games are out). */
	void (*on_login)(void *ud, struct client *c);
	/* c is logging in (its name set, a guest's token too, its seats not yet given back):
	 * what stands here for the player's connection on another node (an account's, or a
	 * guest's with the same token) gives its seats up (an account's connection closes:
	 * SESSION_TAKEN), so that c takes them as a second login does. */
	void (*on_claim)(void *ud, struct client *c);
	/* c logs out (its reply is out; it is still who it was until this returns). */
	void (*on_logout)(void *ud, struct client *c);
	/* Seek k appeared or went away; told is what this node's clients were told (NULL for a
	 * challenge, k->to set: never announced). */
	void (*on_seek)(void *ud, const struct seek *k, bool gone, struct msg *told);
	/* A new seek's id, unique across nodes (0: none could be had: the lobby's own). */
	uint64_t (*seek_id)(void *ud);
	/* A guest name about to be taken: true when the cluster checks it on every node first
	 * (it answers rq itself, or calls lobby_login_checked()). c->token is the token c gets
	 * unless another node holds the name; token (NULL: none) is the one to try against the
	 * name's seats on other nodes; given: it came with the login and nothing here vouched
	 * for it (a refusal is BAD_LOGIN, and so is a name nobody holds). identity.c calls it. */
	bool (*guest)(void *ud, struct client *c, const struct proto_req *rq, const char *name,
	              const char *token, bool given);
	/* A name about to be registered, free on this node: true when the cluster asks every
	 * node first whether a guest there holds it (connected, or with seats in games not
	 * ended); it then calls held(arg, 1) when one does, held(arg, 0) when none does and
	 * held(arg, -1) when the bus cannot be asked, exactly once (c may be gone by then).
	 * accounts.c calls it. */
	bool (*name_held)(void *ud, struct client *c, const char *name,
	                  void (*held)(void *arg, int verdict), void *arg);
	/* Whether a user of this name is logged in on another node of the cluster (the node
	 * that runs the cluster's events pairs players connected anywhere). */
	bool (*elsewhere)(void *ud, const char *name);
};

struct lobby {
	struct conn_hub *hub;  /* the clients (presence) */
	struct sessions *sess; /* games: accepted seeks start here */
	struct seek *seeks;    /* oldest first */
	unsigned nseeks;
	unsigned max_seeks; /* open seeks in all; 0: no limit */
	uint64_t next_seek_id;
	struct lobby_news news;
	/* the seek feed: news waits here, then goes to the subscribers at once */
	struct seek_news *feed;
	size_t nfeed, capfeed;
	uint64_t feed_ms;     /* past the burst, news goes out at most this often; 0: always
	                         at once */
	uint64_t feed_gap;    /* the interval now: feed_ms, doubled while each batch is a
	                         summary (up to LOBBY_FEED_SLOW_MS) */
	unsigned feed_burst;  /* sends at once while news is rare (LOBBY_FEED_BURST) */
	unsigned feed_credit; /* sends at once left; one more every feed_ms, up to the burst */
	uint64_t credit_at;   /* uv_now the credit was last brought up to date */
	uv_timer_t feed_timer;
	bool feed_armed, feed_open;
	struct lobby_hooks hooks;
	char *motd; /* the message of the day, sent after each login (NULL: none) */
	/* accounts.c's (NULL: none): c's guest login of name with a token was refused by the
	 * cluster after accounts.c had let it go on (hooks.guest): it counts as a failed login */
	void (*login_failed)(void *ud, struct client *c, const char *name);
	void *login_failed_ud;
	/* who's answer, made again only when what it shows changed (lobby_who) */
	uint64_t epoch;                /* bumped at each login, logout and leaving */
	struct lobby_who_cache {
		bool valid;
		uint64_t epoch, sess_epoch, rtt_gen; /* what it was made from */
		char *users;                          /* the "users" array as JSON text */
		char *text;                           /* the text form's lines */
		int n, more;
		struct msg reply; /* the untagged answer, each format rendered once for all */
		bool has_reply;
	} who;
};

/*
 * The lobby on hub's loop. feed_ms: how often seek news goes out at most past
 * its burst (0: always at once). max_seeks: open seeks in all (0: no limit).
 */
void lobby_init(struct lobby *l, struct conn_hub *hub, struct sessions *sess, uint64_t feed_ms,
                unsigned max_seeks);
void lobby_set_hooks(struct lobby *l, const struct lobby_hooks *h);
/* Frees every seek without telling anyone, and closes the feed's timer (shutdown). */
void lobby_free(struct lobby *l);

/* ---- presence --------------------------------------------------------------------- */

/*
 * c becomes name (a guest, or an account when registered): seats it left are
 * given back, the reply to rq says so, the resumed games' states follow.
 */
void lobby_login(struct lobby *l, struct client *c, const struct proto_req *rq, const char *name,
                 bool registered);
/*
 * logout: c stops being who it is, as if its connection had closed (seats
 * wait through the grace, seeks withdrawn, watches end) but it stays
 * connected and may log in again. Challenges are direct_client_gone()'s first.
 */
void lobby_logout(struct lobby *l, struct client *c, const struct proto_req *rq);
/* lobby_login() of a guest name the cluster has checked (hooks.guest). */
void lobby_login_checked(struct lobby *l, struct client *c, const struct proto_req *rq,
                         const char *name, bool registered);
/* The connected, logged-in client with this name (case-insensitive), or NULL. */
struct client *lobby_find_user(struct lobby *l, const char *name);
/* Whether name is logged in here or, in a cluster, on another node (hooks.elsewhere). */
bool lobby_user_online(struct lobby *l, const char *name);
/* The message of the day ("" or NULL: none; copied), sent to each login from now on. */
void lobby_set_motd(struct lobby *l, const char *text);
/* The message of the day, "" when none. */
const char *lobby_motd(const struct lobby *l);
/* c is going: its seeks and the challenges to it are withdrawn (open seeks told to the others). */
void lobby_client_gone(struct lobby *l, struct client *c);
/* who: the logged-in clients (LOBBY_WHO_MAX of them, the rest counted), with their games
   and round-trip times. The answer is made once and kept until a login, a logout, a client
   leaving, a seat or watch taken or left, a game's end or a round-trip time changes it, so
   many clients asking do not each cost a walk over every user: an untagged one is sent
   the same rendered line as the others (a reference, not a copy), a tagged one a copy. */
void lobby_who(struct lobby *l, struct client *c, const struct proto_req *rq);
/* set seeks on|off (word): whether c hears seek news; answers rq. */
void lobby_set_seeks(struct client *c, const struct proto_req *rq, const char *word);

/* ---- seeks ------------------------------------------------------------------------- */

/* The open seek with this id, or NULL. */
struct seek *lobby_seek_find(struct lobby *l, uint64_t id);
/* games: the kinds of game, their seats and options. */
void lobby_games(struct client *c, const struct proto_req *rq);
/* seek <kind> [opt=value ...] */
void lobby_seek(struct lobby *l, struct client *c, const struct proto_req *rq);
/*
 * A new seek of c from the words argv[0] (the kind) .. argv[argc - 1] (its
 * options), offered to `to` alone (a challenge) or to anyone (NULL): checked
 * (UNKNOWN_GAME, BAD_OPTION, RATED_NEEDS_ACCOUNT for either side,
 * TOO_MANY_SEEKS) and listed, nobody told yet; NULL when answered.
 */
struct seek *lobby_seek_new(struct lobby *l, struct client *c, const struct proto_req *rq, int argc,
                            char *const argv[], struct client *to);
/* A seek as JSON (<seek> of PROTOCOL.md) and as text, "3 by alice: ttt ..." (both owned). */
cJSON *lobby_seek_json(const struct seek *k);
char *lobby_seek_text(const struct seek *k);
/* a and b may meet: neither is a bot's account the other refuses (set bots off; identity.h
   reads it as identity_bots_meet()). NULL: a human who takes bots. */
bool lobby_bots_meet(const struct client *a, const struct client *b);
/* "BOT " before a bot's name in text (lichess' title), else "". */
const char *lobby_bot_mark(const struct client *c);
/* Unlists and frees k; everyone is told an open seek went (a challenge's side: direct.h). */
void lobby_seek_remove(struct lobby *l, struct seek *k);
/* seeks */
void lobby_seeks(struct lobby *l, struct client *c, const struct proto_req *rq);
/* The answer to `seeks` of f (its "seeks" array) and extra (their lines, both taken): open
   seeks in all, the first listed of them listed ("open" when some are not). */
void lobby_seeks_reply(struct client *c, const struct proto_req *rq, cJSON *f, char *extra,
                       size_t open, size_t listed);
/* unseek <seek-id>: k is the seek named */
void lobby_unseek(struct lobby *l, struct client *c, const struct proto_req *rq, struct seek *k);
/* accept <seek-id>: the game starts */
void lobby_accept(struct lobby *l, struct client *c, const struct proto_req *rq, struct seek *k);

#endif
