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
 * the offerer moves (draw); a takeback request lapses at any move. See
 * offers.h and protocol/PROTOCOL.md.
 */
#include "server/offers.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum what { W_DRAW, W_UNDO, W_ABORT, W_REMATCH };
static const char *const what_name[] = {"draw", "undo", "abort", "rematch"};

/* How a word after the game id is read; W_NONE when absent. */
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
	if (extra != NULL) {
		cJSON *it;
		while ((it = extra->child) != NULL)
			cJSON_AddItemToObject(j, it->string, cJSON_DetachItemViaPointer(extra, it));
		cJSON_Delete(extra);
	}
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	cJSON_AddStringToObject(j, "message", s ? s : "");
	char *text = xasprintf("offer game %" PRIu64 ": %s", g->id, s ? s : "");
	free(s);
	session_broadcast(g, j, text);
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

/* ---- draw ---------------------------------------------------------------------------- */

static void draw_agreed(struct conn *c, const struct proto_req *rq, struct game *g, int seat)
{
	char b[64];
	reply_ok(c, rq, game_field(g), NULL, "draw agreed in game %" PRIu64, g->id);
	announce(g, W_DRAW, "accept", seat, NULL, "%s accepts the draw", who(g, seat, b, sizeof b));
	g->draw_offer = 0;
	session_end(g, -1, "1/2-1/2", "agreement");
}

static void cmd_draw(struct conn *c, const struct proto_req *rq, struct game *g, int seat)
{
	int opp = 1 - seat;
	char b[64];
	switch (parse_word(rq)) {
	case WD_NONE:
	case WD_OFFER:
		if (has(g->draw_offer, opp)) {
			draw_agreed(c, rq, g, seat);
		} else if (has(g->draw_offer, seat)) {
			reply_ok(c, rq, game_field(g), NULL,
			         "your draw offer in game %" PRIu64 " stands", g->id);
		} else {
			g->draw_offer |= 1u << seat;
			reply_ok(c, rq, game_field(g), NULL, "draw offered in game %" PRIu64,
			         g->id);
			announce(g, W_DRAW, "offer", seat, NULL,
			         "%s offers a draw (draw %" PRIu64 " accept / draw %" PRIu64
			         " decline)",
			         who(g, seat, b, sizeof b), g->id, g->id);
		}
		return;
	case WD_ACCEPT:
		if (!has(g->draw_offer, opp))
			break;
		draw_agreed(c, rq, g, seat);
		return;
	case WD_DECLINE:
		if (!has(g->draw_offer, opp))
			break;
		g->draw_offer &= ~(1u << opp);
		reply_ok(c, rq, game_field(g), NULL, "draw declined in game %" PRIu64, g->id);
		announce(g, W_DRAW, "decline", seat, NULL, "%s declines the draw",
		         who(g, seat, b, sizeof b));
		return;
	case WD_WITHDRAW:
		if (!has(g->draw_offer, seat)) {
			reply_err(c, rq, "NO_OFFER", "you have not offered a draw in game %" PRIu64,
			          g->id);
			return;
		}
		g->draw_offer &= ~(1u << seat);
		reply_ok(c, rq, game_field(g), NULL, "draw offer withdrawn in game %" PRIu64,
		         g->id);
		announce(g, W_DRAW, "withdraw", seat, NULL, "%s withdraws the draw offer",
		         who(g, seat, b, sizeof b));
		return;
	case WD_BAD:
		reply_err(c, rq, "BAD_ARGS", "usage: %s", rq->cmd->usage);
		return;
	}
	reply_err(c, rq, "NO_OFFER", "%s has not offered a draw in game %" PRIu64, g->pl[opp].name,
	          g->id);
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

static void undo_accept(struct conn *c, const struct proto_req *rq, struct game *g, int seat)
{
	int n = g->undo_n, by = 1 - seat;
	int r = session_takeback(g, n);
	if (r < 0) {
		reply_err(c, rq, "INTERNAL", "the takeback could not be %s; nothing changed",
		          r == GAME_EOVER ? "recorded" : "replayed");
		return;
	}
	g->undo_offer = 0;
	g->draw_offer = 0;
	char b[64], b2[64];
	cJSON *f = game_field(g);
	cJSON_AddNumberToObject(f, "plies", n);
	reply_ok(c, rq, f, NULL, "%d pl%s taken back in game %" PRIu64, n, n == 1 ? "y" : "ies",
	         g->id);
	cJSON *x = cJSON_CreateObject();
	cJSON_AddNumberToObject(x, "plies", n);
	announce(g, W_UNDO, "accept", seat, x, "%s agrees: %d pl%s taken back, %s to move",
	         who(g, seat, b, sizeof b), n, n == 1 ? "y" : "ies", who(g, by, b2, sizeof b2));
	session_push_state(g);
}

static void cmd_undo(struct conn *c, const struct proto_req *rq, struct game *g, int seat)
{
	int opp = 1 - seat;
	char b[64];
	if (g->ops->flags & GAME_SIMULTANEOUS) {
		reply_err(c, rq, "NOT_SUPPORTED",
		          "%s plays simultaneous turns; there is no takeback", g->ops->name);
		return;
	}
	switch (parse_word(rq)) {
	case WD_NONE:
	case WD_OFFER:
	case WD_ACCEPT:
		if (has(g->undo_offer, opp)) {
			undo_accept(c, rq, g, seat);
		} else if (has(g->undo_offer, seat)) {
			reply_ok(c, rq, game_field(g), NULL,
			         "your takeback request in game %" PRIu64 " stands", g->id);
		} else if (parse_word(rq) == WD_ACCEPT) {
			break;
		} else {
			int n = plies_to_undo(g, seat);
			if (n == 0) {
				reply_err(c, rq, "NOT_NOW",
				          "you have no move to take back in game %" PRIu64, g->id);
				return;
			}
			g->undo_offer = 1u << seat;
			g->undo_n = n;
			cJSON *f = game_field(g);
			cJSON_AddNumberToObject(f, "plies", n);
			reply_ok(c, rq, f, NULL, "takeback of %d pl%s asked in game %" PRIu64, n,
			         n == 1 ? "y" : "ies", g->id);
			cJSON *x = cJSON_CreateObject();
			cJSON_AddNumberToObject(x, "plies", n);
			announce(g, W_UNDO, "offer", seat, x,
			         "%s asks to take back %d pl%s (undo %" PRIu64
			         " accepts, undo %" PRIu64 " decline)",
			         who(g, seat, b, sizeof b), n, n == 1 ? "y" : "ies", g->id, g->id);
		}
		return;
	case WD_DECLINE:
		if (!has(g->undo_offer, opp))
			break;
		g->undo_offer = 0;
		reply_ok(c, rq, game_field(g), NULL, "takeback declined in game %" PRIu64, g->id);
		announce(g, W_UNDO, "decline", seat, NULL, "%s declines the takeback",
		         who(g, seat, b, sizeof b));
		return;
	case WD_WITHDRAW:
		if (!has(g->undo_offer, seat)) {
			reply_err(c, rq, "NO_OFFER",
			          "you have not asked for a takeback in game %" PRIu64, g->id);
			return;
		}
		g->undo_offer = 0;
		reply_ok(c, rq, game_field(g), NULL, "takeback request withdrawn in game %" PRIu64,
		         g->id);
		announce(g, W_UNDO, "withdraw", seat, NULL, "%s withdraws the takeback request",
		         who(g, seat, b, sizeof b));
		return;
	case WD_BAD:
		reply_err(c, rq, "BAD_ARGS", "usage: %s", rq->cmd->usage);
		return;
	}
	reply_err(c, rq, "NO_OFFER", "%s has not asked for a takeback in game %" PRIu64,
	          g->pl[opp].name, g->id);
}

/* ---- abort --------------------------------------------------------------------------- */

static void cmd_abort(struct conn *c, const struct proto_req *rq, struct game *g, int seat)
{
	/* before both sides have moved: two plies, or the first simultaneous turn */
	int limit = (g->ops->flags & GAME_SIMULTANEOUS) ? 1 : 2;
	if (g->ply >= limit) {
		reply_err(c, rq, "NOT_NOW",
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

static void rematch_start(struct conn *c, const struct proto_req *rq, struct game *g, int seat)
{
	struct server *s = g->srv;
	int opp = 1 - seat;
	if (g->pl[opp].c == NULL) {
		reply_err(c, rq, "NOT_NOW", "%s has left", g->pl[opp].name);
		return;
	}
	struct game_spec spec = {.ops = g->ops, .so = g->so, .seed = rng_next(&s->rng)};
	for (int i = 0; i < g->ops->nplayers; i++) {
		spec.names[i] = g->pl[g->ops->nplayers - 1 - i].name; /* seats swapped */
		spec.conns[i] = g->pl[g->ops->nplayers - 1 - i].c;
	}
	struct game *ng = session_create(s, &spec);
	if (ng == NULL) {
		reply_err(c, rq, "INTERNAL", "the rematch could not be started");
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

static void cmd_rematch(struct conn *c, const struct proto_req *rq, struct game *g, int seat)
{
	int opp = 1 - seat;
	char b[64];
	if (g->rematch_game != 0) {
		reply_err(c, rq, "NOT_NOW", "the rematch of game %" PRIu64 " is game %" PRIu64,
		          g->id, g->rematch_game);
		return;
	}
	switch (parse_word(rq)) {
	case WD_NONE:
	case WD_OFFER:
	case WD_ACCEPT:
		if (has(g->rematch_offer, opp)) {
			rematch_start(c, rq, g, seat);
		} else if (has(g->rematch_offer, seat)) {
			reply_ok(c, rq, game_field(g), NULL,
			         "your rematch offer for game %" PRIu64 " stands", g->id);
		} else if (parse_word(rq) == WD_ACCEPT) {
			break;
		} else if (g->pl[opp].c == NULL) {
			reply_err(c, rq, "NOT_NOW", "%s has left", g->pl[opp].name);
		} else {
			g->rematch_offer |= 1u << seat;
			reply_ok(c, rq, game_field(g), NULL, "rematch offered for game %" PRIu64,
			         g->id);
			announce(g, W_REMATCH, "offer", seat, NULL,
			         "%s offers a rematch with seats swapped (rematch %" PRIu64
			         " accepts, rematch %" PRIu64 " decline)",
			         who(g, seat, b, sizeof b), g->id, g->id);
		}
		return;
	case WD_DECLINE:
		if (!has(g->rematch_offer, opp))
			break;
		g->rematch_offer = 0;
		reply_ok(c, rq, game_field(g), NULL, "rematch declined");
		announce(g, W_REMATCH, "decline", seat, NULL, "%s declines the rematch",
		         who(g, seat, b, sizeof b));
		return;
	case WD_WITHDRAW:
		if (!has(g->rematch_offer, seat)) {
			reply_err(c, rq, "NO_OFFER",
			          "you have not offered a rematch of game %" PRIu64, g->id);
			return;
		}
		g->rematch_offer &= ~(1u << seat);
		reply_ok(c, rq, game_field(g), NULL, "rematch offer withdrawn");
		announce(g, W_REMATCH, "withdraw", seat, NULL, "%s withdraws the rematch offer",
		         who(g, seat, b, sizeof b));
		return;
	case WD_BAD:
		reply_err(c, rq, "BAD_ARGS", "usage: %s", rq->cmd->usage);
		return;
	}
	reply_err(c, rq, "NO_OFFER", "%s has not offered a rematch of game %" PRIu64,
	          g->pl[opp].name, g->id);
}

/* ---- dispatch ------------------------------------------------------------------------ */

void offers_cmd(struct conn *c, const struct proto_req *rq)
{
	uint64_t id;
	if (!proto_parse_id(rq->argv[0], &id)) {
		reply_err(c, rq, "BAD_ARGS", "game ids are positive whole numbers");
		return;
	}
	struct game *g = session_find(c->srv, id);
	if (g == NULL) {
		reply_err(c, rq, "NO_SUCH_GAME", "there is no game %" PRIu64, id);
		return;
	}
	int seat = session_seat_of(g, c);
	if (seat < 0) {
		reply_err(c, rq, "NOT_YOUR_GAME", "you do not play in game %" PRIu64, id);
		return;
	}
	enum proto_verb v = rq->cmd->verb;
	if (v == V_REMATCH) {
		if (!g->over)
			reply_err(c, rq, "NOT_NOW", "game %" PRIu64 " is still being played", id);
		else
			cmd_rematch(c, rq, g, seat);
		return;
	}
	if (g->over) {
		reply_err(c, rq, "GAME_OVER", "game %" PRIu64 " is over", id);
		return;
	}
	if (v == V_DRAW)
		cmd_draw(c, rq, g, seat);
	else if (v == V_UNDO)
		cmd_undo(c, rq, g, seat);
	else if (v == V_ABORT)
		cmd_abort(c, rq, g, seat);
}

void offers_moved(struct game *g, unsigned seats)
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
