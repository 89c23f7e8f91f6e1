/*
 * offers.c - agreements between the two players of a game: draw offers
 * (draw <game> offer|accept|decline|withdraw; two offers are a draw by
 * agreement), takebacks (undo <game>: the first asks, the opponent's undo
 * accepts; the position is rebuilt from the move records), abort before the
 * second ply (no result), and rematch after the end (same kind, options and
 * time, seats swapped). Every offer and answer goes to both players and the
 * spectators as {"type":"offer","game","what","event","by","seat",...}.
 *
 * An offer stands until the opponent answers, the offerer withdraws it, or
 * the offerer moves (draw); a takeback request lapses at any move: session.c
 * tells of every move through sessions.on_moved, which offers_init() sets.
 * See offers.h and protocol/PROTOCOL.md.
 */
#include "server/play/offers.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "server/play/session_internal.h" /* offers.c is a file of the session: its offers */
#include "server/play/session_watch.h"

enum what { W_DRAW, W_UNDO, W_ABORT, W_REMATCH };
static const char *const what_name[] = {"draw", "undo", "abort", "rematch"};

/* The word after the game id; WD_NONE when there is none. */
enum word { WD_NONE, WD_OFFER, WD_ACCEPT, WD_DECLINE, WD_WITHDRAW, WD_BAD };

static enum word parse_word(const struct proto_req *rq)
{
	if (rq->argc < 2)
		return WD_NONE;
	static const char *const words[] = {"offer", "accept", "decline", "withdraw"};
	for (int i = 0; i < 4; i++)
		if (strcasecmp(rq->argv[1], words[i]) == 0)
			return (enum word)(WD_OFFER + i);
	return WD_BAD;
}

/*
 * Tells g's players and spectators: {"type":"offer","game","what","event","by","seat"}
 * plus extra's members (owned, may be NULL); text "offer game G: <sentence>".
 */
static void announce(struct game *g, enum what w, const char *event, int seat, cJSON *extra,
                     const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void announce(struct game *g, enum what w, const char *event, int seat, cJSON *extra,
                     const char *fmt, ...)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", "offer");
	cJSON_AddNumberToObject(j, "game", (double)g->id);
	cJSON_AddStringToObject(j, "what", what_name[w]);
	cJSON_AddStringToObject(j, "event", event);
	cJSON_AddStringToObject(j, "by", g->pl[seat].name);
	cJSON_AddNumberToObject(j, "seat", seat);
	json_move_members(j, extra);
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	cJSON_AddStringToObject(j, "message", s ? s : "");
	char *text = xasprintf("offer game %" PRIu64 ": %s", g->id, s ? s : "");
	free(s);
	session_watch_broadcast(g, j, text, NULL);
}

/* {"game":id} for a reply. */
static cJSON *game_field(const struct game *g)
{
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "game", (double)g->id);
	return f;
}

/* "alice (X)" into buf. */
static const char *who(const struct game *g, int seat, char *buf, size_t len)
{
	snprintf(buf, len, "%s (%s)", g->pl[seat].name, g->ops->seat_names[seat]);
	return buf;
}

static bool has(unsigned mask, int seat)
{
	return (mask & (1u << seat)) != 0;
}

/* ---- draw, undo and rematch: one flow of offer and answer ------------------------------ */

/*
 * What differs between the offers that wait for an answer. make() checks and
 * records a new offer (setting the seat's bit), replies and announces; agree()
 * carries out an accepted one.
 */
struct offer_kind {
	enum what w;
	const char *thing; /* "draw", "takeback", "rematch" */
	const char *noun;  /* "draw offer", ... */
	size_t mask_at;    /* offsetof(struct game, the mask of seats with a standing offer) */
	void (*make)(struct client *c, const struct proto_req *rq, struct game *g, int seat);
	void (*agree)(struct client *c, const struct proto_req *rq, struct game *g, int seat);
};

static unsigned *offer_mask(const struct offer_kind *k, struct game *g)
{
	return (unsigned *)((char *)g + k->mask_at);
}

/* NO_OFFER: seat by of g has no standing offer of kind k (by is seat, who asks, or the other). */
static void refuse_no_offer(const struct offer_kind *k, struct client *c,
                            const struct proto_req *rq, struct game *g, int by, int seat)
{
	if (by == seat)
		reply_err(c, rq, ERR_NO_OFFER, "you have no standing %s in game %" PRIu64, k->noun,
		          g->id);
	else
		reply_err(c, rq, ERR_NO_OFFER, "%s has no standing %s in game %" PRIu64,
		          g->pl[by].name, k->noun, g->id);
}

/* draw|undo|rematch <game> [offer|accept|decline|withdraw] by seat. */
static void offer_flow(const struct offer_kind *k, struct client *c, const struct proto_req *rq,
                       struct game *g, int seat)
{
	unsigned *mask = offer_mask(k, g);
	int opp = 1 - seat;
	char b[64];
	enum word wd = parse_word(rq);
	switch (wd) {
	case WD_NONE:
	case WD_OFFER:
	case WD_ACCEPT:
		if (has(*mask, opp))
			k->agree(c, rq, g, seat);
		else if (wd == WD_ACCEPT)
			refuse_no_offer(k, c, rq, g, opp, seat);
		else if (has(*mask, seat))
			reply_ok(c, rq, game_field(g), NULL, "your %s in game %" PRIu64 " stands",
			         k->noun, g->id);
		else
			k->make(c, rq, g, seat);
		return;
	case WD_DECLINE:
	case WD_WITHDRAW: {
		bool decline = wd == WD_DECLINE;
		int by = decline ? opp : seat;
		if (!has(*mask, by)) {
			refuse_no_offer(k, c, rq, g, by, seat);
			return;
		}
		*mask &= ~(1u << by);
		reply_ok(c, rq, game_field(g), NULL, "%s %s in game %" PRIu64, k->noun,
		         decline ? "declined" : "withdrawn", g->id);
		if (decline)
			announce(g, k->w, "decline", seat, NULL, "%s declines the %s",
			         who(g, seat, b, sizeof b), k->thing);
		else
			announce(g, k->w, "withdraw", seat, NULL, "%s withdraws the %s",
			         who(g, seat, b, sizeof b), k->noun);
		return;
	}
	case WD_BAD:
		reply_usage(c, rq);
		return;
	}
}

/* ---- draw ---------------------------------------------------------------------------- */

static void draw_make(struct client *c, const struct proto_req *rq, struct game *g, int seat)
{
	char b[64];
	g->draw_offer |= 1u << seat;
	reply_ok(c, rq, game_field(g), NULL, "draw offered in game %" PRIu64, g->id);
	announce(g, W_DRAW, "offer", seat, NULL,
	         "%s offers a draw (draw %" PRIu64 " accept / draw %" PRIu64 " decline)",
	         who(g, seat, b, sizeof b), g->id, g->id);
}

static void draw_agree(struct client *c, const struct proto_req *rq, struct game *g, int seat)
{
	char b[64];
	reply_ok(c, rq, game_field(g), NULL, "draw agreed in game %" PRIu64, g->id);
	announce(g, W_DRAW, "accept", seat, NULL, "%s accepts the draw", who(g, seat, b, sizeof b));
	g->draw_offer = 0;
	session_end(g, -1, "1/2-1/2", "agreement");
}

/* ---- undo ---------------------------------------------------------------------------- */

/* Plies back to and including seat's last move; 0 when seat has not moved. */
static int plies_to_undo(const struct game *g, int seat)
{
	for (size_t i = g->nmoves; i-- > 0;)
		if (g->moves[i].seat == seat)
			return (int)(g->nmoves - i);
	return 0;
}

/* {"plies":n}. */
static cJSON *plies_field(cJSON *f, int n)
{
	cJSON_AddNumberToObject(f, "plies", n);
	return f;
}

static void undo_make(struct client *c, const struct proto_req *rq, struct game *g, int seat)
{
	int n = plies_to_undo(g, seat);
	if (n == 0) {
		reply_err(c, rq, ERR_NOT_NOW, "you have no move to take back in game %" PRIu64,
		          g->id);
		return;
	}
	g->undo_offer = 1u << seat;
	g->undo_n = n;
	char b[64];
	const char *pl = n == 1 ? "y" : "ies";
	reply_ok(c, rq, plies_field(game_field(g), n), NULL,
	         "takeback of %d pl%s asked in game %" PRIu64, n, pl, g->id);
	announce(g, W_UNDO, "offer", seat, plies_field(cJSON_CreateObject(), n),
	         "%s asks to take back %d pl%s (undo %" PRIu64 " accepts, undo %" PRIu64
	         " decline)",
	         who(g, seat, b, sizeof b), n, pl, g->id, g->id);
}

static void undo_agree(struct client *c, const struct proto_req *rq, struct game *g, int seat)
{
	int n = g->undo_n, by = 1 - seat;
	int r = session_takeback(g, n);
	if (r < 0) {
		reply_err(c, rq, ERR_INTERNAL, "the takeback could not be %s; nothing changed",
		          r == GAME_EOVER ? "recorded" : "replayed");
		return;
	}
	g->undo_offer = 0;
	g->draw_offer = 0;
	char b[64], b2[64];
	const char *pl = n == 1 ? "y" : "ies";
	reply_ok(c, rq, plies_field(game_field(g), n), NULL, "%d pl%s taken back in game %" PRIu64,
	         n, pl, g->id);
	announce(g, W_UNDO, "accept", seat, plies_field(cJSON_CreateObject(), n),
	         "%s agrees: %d pl%s taken back, %s to move", who(g, seat, b, sizeof b), n, pl,
	         who(g, by, b2, sizeof b2));
	session_push_state(g);
}

/* ---- abort --------------------------------------------------------------------------- */

void offers_abort(struct client *c, const struct proto_req *rq, struct game *g, int seat)
{
	/* before both sides have moved: two plies, or the first simultaneous turn */
	int limit = session_simultaneous(g) ? 1 : 2;
	if (g->ply >= limit) {
		reply_err(c, rq, ERR_NOT_NOW,
		          "both sides have moved in game %" PRIu64 "; resign or offer a draw",
		          g->id);
		return;
	}
	char b[64];
	reply_ok(c, rq, game_field(g), NULL, "game %" PRIu64 " aborted", g->id);
	announce(g, W_ABORT, "abort", seat, NULL, "%s aborts the game", who(g, seat, b, sizeof b));
	session_end(g, -1, "*", "aborted");
}

/* ---- rematch ------------------------------------------------------------------------- */

/* Answers NOT_NOW and gives false when seat's opponent in g has left. */
static bool opponent_here(struct client *c, const struct proto_req *rq, const struct game *g,
                          int seat)
{
	if (g->pl[1 - seat].c != NULL)
		return true;
	reply_err(c, rq, ERR_NOT_NOW, "%s has left", g->pl[1 - seat].name);
	return false;
}

static void rematch_make(struct client *c, const struct proto_req *rq, struct game *g, int seat)
{
	if (!opponent_here(c, rq, g, seat))
		return;
	char b[64];
	g->rematch_offer |= 1u << seat;
	reply_ok(c, rq, game_field(g), NULL, "rematch offered for game %" PRIu64, g->id);
	announce(g, W_REMATCH, "offer", seat, NULL,
	         "%s offers a rematch with seats swapped (rematch %" PRIu64
	         " accepts, rematch %" PRIu64 " decline)",
	         who(g, seat, b, sizeof b), g->id, g->id);
}

static void rematch_agree(struct client *c, const struct proto_req *rq, struct game *g, int seat)
{
	struct sessions *s = g->sess;
	if (!opponent_here(c, rq, g, seat))
		return;
	struct game_spec spec = {
	        .ops = g->ops, .so = g->so, .seed = session_new_seed(g->ops, &g->so.params)};
	for (int i = 0; i < g->ops->nplayers; i++) {
		const struct player *p = &g->pl[g->ops->nplayers - 1 - i]; /* seats swapped */
		spec.names[i] = p->name;
		spec.clients[i] = p->c;
		spec.registered[i] = p->c != NULL ? p->c->registered : p->registered;
		spec.token_hashes[i] = p->token_hash;
	}
	struct game *ng = session_create(s, &spec);
	if (ng == NULL) {
		reply_err(c, rq, ERR_INTERNAL, "the rematch could not be started");
		return;
	}
	g->rematch_game = ng->id;
	g->rematch_offer = 0;
	cJSON *f = game_field(g);
	cJSON_AddNumberToObject(f, "new_game", (double)ng->id);
	reply_ok(c, rq, f, NULL, "rematch of game %" PRIu64 ": game %" PRIu64, g->id, ng->id);
	char b[64];
	cJSON *x = cJSON_CreateObject();
	cJSON_AddNumberToObject(x, "new_game", (double)ng->id);
	announce(g, W_REMATCH, "accept", seat, x,
	         "%s accepts the rematch: game %" PRIu64 ", seats swapped",
	         who(g, seat, b, sizeof b), ng->id);
	session_begin(ng);
}

static const struct offer_kind k_draw = {
        W_DRAW, "draw", "draw offer", offsetof(struct game, draw_offer), draw_make, draw_agree};
static const struct offer_kind k_undo = {
        W_UNDO,    "takeback", "takeback request", offsetof(struct game, undo_offer),
        undo_make, undo_agree};
static const struct offer_kind k_rematch = {W_REMATCH,       "rematch",
                                            "rematch offer", offsetof(struct game, rematch_offer),
                                            rematch_make,    rematch_agree};

/* ---- the verbs (the dispatcher resolved the game, the seat, and over or not) ---------- */

void offers_draw(struct client *c, const struct proto_req *rq, struct game *g, int seat)
{
	offer_flow(&k_draw, c, rq, g, seat);
}

void offers_undo(struct client *c, const struct proto_req *rq, struct game *g, int seat)
{
	if (session_simultaneous(g))
		reply_err(c, rq, ERR_NOT_SUPPORTED,
		          "%s plays simultaneous turns; there is no takeback", g->ops->name);
	else
		offer_flow(&k_undo, c, rq, g, seat);
}

void offers_rematch(struct client *c, const struct proto_req *rq, struct game *g, int seat)
{
	if (g->rematch_game != 0)
		reply_err(c, rq, ERR_NOT_NOW, "the rematch of game %" PRIu64 " is game %" PRIu64,
		          g->id, g->rematch_game);
	else
		offer_flow(&k_rematch, c, rq, g, seat);
}

/* The seats in the mask just moved: their draw offers and any takeback request lapse. */
static void offers_moved(struct game *g, unsigned seats)
{
	char b[64];
	for (int i = 0; i < g->ops->nplayers; i++)
		if (has(g->draw_offer & seats, i))
			announce(g, W_DRAW, "lapse", i, NULL,
			         "%s's draw offer lapses with their move", who(g, i, b, sizeof b));
	g->draw_offer &= ~seats;
	for (int i = 0; i < g->ops->nplayers; i++)
		if (has(g->undo_offer, i))
			announce(g, W_UNDO, "lapse", i, NULL,
			         "%s's takeback request lapses: a move was made",
			         who(g, i, b, sizeof b));
	g->undo_offer = 0;
}

void offers_init(struct sessions *s)
{
	s->on_moved = offers_moved;
}
