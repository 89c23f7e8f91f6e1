/*
 * check_playtak_port.c - the playtak port (src/server/ports/playtak_port.h) over
 * the real bitarenad started with --playtak: a playtak client written here
 * plays a player of the main port through the listener, with a playtak
 * spectator and a JSON spectator. The client keeps its own board (the Tak
 * engine) from the playtak lines it receives and nothing else, and after
 * every ply its TPS must be the server's: moves went both ways right, slides
 * included. Then offers (draw, undo, their removal), resignation, leaving
 * and coming back within the grace (Login Guest with the same token) and not
 * (abandoned), accounts (Register, Login, a second window), what is not Tak,
 * and bad input of every kind, each leaving the server serving. And the
 * port under the server's limits: 3,000 PINGs or Shouts in one write are
 * refused (NOK, Error:) past the command budget and a client that keeps on
 * is closed; new guests are limited per address; a stream of new guest
 * tokens from many addresses, more than the port remembers, leaves an away
 * guest its token, name and game; --sndbuf and --out-hard drop a playtak
 * client that does not read; text past playtak's limits is cut on a UTF-8
 * boundary.
 *
 * Waits are bounded (testserver.h); nothing asserts how fast anything is.
 */
#include "testserver.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "check_main.h"
#include "core/rng.h"
#include "games/game.h"
#include "games/tak/tak.h"
#include "server/net/framing.h"
#include "server/ports/playtak.h"
#include "server/ports/playtak_port.h"
#include "server/util/text.h"

/* ---- the server ------------------------------------------------------------------------ */

struct pt_srv {
	struct ts_srv s; /* the main port: s.port */
	int pt;          /* the playtak port */
};

static void pt_up(struct pt_srv *ps, const char *const *extra, int nextra)
{
	char file[256];
	ts_port_path(file, sizeof file);
	const char *args[16] = {"--playtak", "127.0.0.1:0", "--playtak-port-file", file};
	int n = 4;
	for (int i = 0; i < nextra && n < 16; i++)
		args[n++] = extra[i];
	ts_up(&ps->s, args, n);
	ps->pt = ts_port_file(&ps->s, file);
}

/* ---- a playtak client ----------------------------------------------------------------------- */

struct ptc {
	struct ts_cli io;
	long protocol;
	char name[32];
	uint64_t game;
	int seat; /* 0 white, 1 black, -1 a spectator */
	_Alignas(max_align_t) unsigned char st[GAME_STATE_MAX];
	struct rng rng;
};

static void ptc_send(struct ptc *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ptc_send(struct ptc *c, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	ts_send(&c->io, "%s", line);
}

/* The next line (caller frees): the server's lines are shell globs in these tests. */
static char *ptc_line(struct ptc *c)
{
	char *l = ts_line(&c->io);
	ck_assert_msg(l != NULL, "%s: no line", c->name);
	return l;
}

/* The next line must match the glob (printf). */
static void ptc_expect(struct ptc *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ptc_expect(struct ptc *c, const char *fmt, ...)
{
	char pat[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(pat, sizeof pat, fmt, ap);
	va_end(ap);
	char *l = ptc_line(c);
	ck_assert_msg(fnmatch(pat, l, 0) == 0, "%s: expected '%s'\n     got '%s'", c->name, pat, l);
	free(l);
}

/* Skips lines up to one matching the glob (printf); returns it (caller frees). */
static char *ptc_until(struct ptc *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *ptc_until(struct ptc *c, const char *fmt, ...)
{
	char pat[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(pat, sizeof pat, fmt, ap);
	va_end(ap);
	for (;;) {
		char *l = ts_line(&c->io);
		ck_assert_msg(l != NULL, "%s: never got '%s'", c->name, pat);
		if (fnmatch(pat, l, 0) == 0)
			return l;
		free(l);
	}
}

/* Connects to the playtak port: the welcome; Protocol when not 0. */
static void ptc_open(struct ptc *c, int port, long protocol, const char *label)
{
	memset(c, 0, sizeof *c);
	snprintf(c->name, sizeof c->name, "%s", label);
	c->protocol = protocol;
	c->seat = -1;
	rng_seed(&c->rng, 1);
	ts_open(&c->io, port);
	ptc_expect(c, "Welcome!");
	ptc_expect(c, "Login or Register");
	if (protocol > 0) {
		ptc_send(c, "Protocol %ld", protocol);
		ptc_expect(c, "OK");
	}
}

/* Login Guest [token]: the name from "Welcome <name>!". */
static void ptc_guest(struct ptc *c, const char *token)
{
	ptc_send(c, "Login Guest%s%s", token ? " " : "", token ? token : "");
	char *l = ptc_until(c, "Welcome *!");
	size_t n = strlen(l);
	snprintf(c->name, sizeof c->name, "%.*s", (int)(n - 9), l + 8);
	free(l);
}

/* A new board for a game's line ("Game Start ..." or "Observe ..."): words by the server's
   shapes (tak.md section 3). */
static void ptc_board(struct ptc *c, const char *line)
{
	char w[20][40];
	int n = 0;
	char copy[512];
	snprintf(copy, sizeof copy, "%s", line);
	for (char *t = strtok(copy, " "); t != NULL && n < 20; t = strtok(NULL, " "))
		snprintf(w[n++], sizeof w[0], "%s", t);
	int size, komi, pieces, caps;
	if (strcmp(w[0], "Observe") == 0) { /* Observe id white black size time incr komi ... */
		ck_assert_int_ge(n, 14);
		c->game = strtoull(w[1], NULL, 10);
		c->seat = -1;
		size = atoi(w[4]), komi = atoi(w[7]), pieces = atoi(w[8]), caps = atoi(w[9]);
	} else if (c->protocol < 2) { /* Game Start id size white vs black colour time komi .. */
		ck_assert_int_eq(n, 14);
		c->game = strtoull(w[2], NULL, 10);
		c->seat = strcmp(w[7], "white") == 0 ? 0 : 1;
		size = atoi(w[3]), komi = atoi(w[9]), pieces = atoi(w[10]), caps = atoi(w[11]);
	} else { /* Game Start id white vs black colour size time incr komi pieces caps ... */
		ck_assert_int_eq(n, 18);
		c->game = strtoull(w[2], NULL, 10);
		c->seat = strcmp(w[6], "white") == 0 ? 0 : 1;
		size = atoi(w[7]), komi = atoi(w[10]), pieces = atoi(w[11]), caps = atoi(w[12]);
	}
	struct game_params p;
	game_params_default(&game_tak, &p);
	p.v[TAK_OPT_SIZE] = size;
	p.v[TAK_OPT_KOMI] = komi;
	p.v[TAK_OPT_PIECES] = pieces;
	p.v[TAK_OPT_CAPS] = caps;
	ck_assert_int_eq(game_tak.init(c->st, &p, 0), 0);
}

/* Plays PTN text on the client's own board (either side). */
static void ptc_play(struct ptc *c, const char *ptn)
{
	game_move m;
	const char *why = NULL;
	int seat = game_seat_to_move(&game_tak, c->st);
	ck_assert_msg(game_tak.parse_move(c->st, seat, ptn, &m, &why) >= 0, "%s: '%s': %s", c->name,
	              ptn, why ? why : "");
	ck_assert_int_ge(game_tak.apply(c->st, m), 0);
}

/* A relayed move line ("Game#N P A1", "Game#N M A1 C1 1 2") onto the board. */
static void ptc_relayed(struct ptc *c, const char *line)
{
	struct pt_line l;
	char ptn[32];
	ck_assert_msg(pt_parse(line, &l) == PT_PLACE || l.cmd == PT_MOVE, "%s: '%s'", c->name,
	              line);
	ck_assert_int_eq((uint64_t)l.game, c->game);
	ck_assert_int_gt(pt_to_ptn(&l, ptn, sizeof ptn), 0);
	ptc_play(c, ptn);
}

/* The client's board as TPS. */
static const char *ptc_tps(const struct ptc *c)
{
	static char tps[256];
	ck_assert_int_ge(game_tak.save(c->st, tps, sizeof tps), 0);
	return tps;
}

/*
 * A legal move of the client's board as PTN (static buffer): one that wins at
 * once if there is one (a road, the flats), else half the time a random flat
 * placement (they make roads and count), else any random move (slides too).
 */
static const char *ptc_pick(struct ptc *c)
{
	static char text[GAME_MOVE_TEXT];
	_Alignas(max_align_t) unsigned char after[GAME_STATE_MAX];
	game_move *mv = malloc(game_tak.max_moves * sizeof *mv);
	ck_assert_ptr_nonnull(mv);
	int n = game_tak.legal_moves(c->st, mv, game_tak.max_moves), flats = 0;
	ck_assert_int_gt(n, 0);
	game_move pick = mv[rng_next(&c->rng) % (uint64_t)n], flat = pick;
	for (int i = 0; i < n; i++) {
		char t[GAME_MOVE_TEXT];
		ck_assert_int_ge(game_tak.format_move(c->st, mv[i], t, sizeof t), 0);
		if (strlen(t) == 2 && rng_next(&c->rng) % (uint64_t)++flats == 0)
			flat = mv[i]; /* a flat placement, each as likely as the others */
	}
	if (flats > 0 && rng_next(&c->rng) % 2 == 0)
		pick = flat;
	for (int i = 0; i < n; i++) {
		struct game_result r;
		memcpy(after, c->st, game_tak.state_size);
		ck_assert_int_ge(game_tak.apply(after, mv[i]), 0);
		game_tak.result(after, &r);
		if (r.over && r.winner == c->seat) {
			pick = mv[i];
			break;
		}
	}
	ck_assert_int_ge(game_tak.format_move(c->st, pick, text, sizeof text), 0);
	free(mv);
	return text;
}

static void ptc_close(struct ptc *c)
{
	ts_close(&c->io);
}

/* ---- a player of the main port (JSON) ---------------------------------------------------- */

/* A random move of a JSON state's legal list (static buffer). */
static const char *json_pick(const cJSON *state, struct rng *rng)
{
	static char mv[64];
	const cJSON *legal = cJSON_GetObjectItem(state, "legal");
	int n = cJSON_GetArraySize(legal);
	ck_assert_int_gt(n, 0);
	snprintf(mv, sizeof mv, "%s",
	         cJSON_GetArrayItem(legal, (int)(rng_next(rng) % (uint64_t)n))->valuestring);
	return mv;
}

static const char *json_tps(const cJSON *state)
{
	const cJSON *pos = cJSON_GetObjectItem(state, "position");
	const cJSON *tps = cJSON_GetObjectItem(pos, "tps");
	ck_assert(cJSON_IsString(tps));
	return tps->valuestring;
}

/* ---- a whole game ----------------------------------------------------------------------- */

/*
 * The players: p (playtak) and b (JSON) play random legal moves until the
 * game ends; q (playtak, protocol 2) and w (JSON) watch. After every ply each
 * of them has heard it: p and q the move (unless it is p's own, answered OK)
 * and the clocks, b and w the next state, whose TPS p's and q's boards must
 * show. Returns the score; slides[0] counts the slides the playtak client sent,
 * slides[1] those relayed to it.
 */
static const char *play_out(struct ptc *p, struct ts_cli *b, struct ptc *q, struct ts_cli *w,
                            cJSON *bstate, int *plies, int slides[2])
{
	static char score[16];
	struct rng rng;
	rng_seed(&rng, 42);
	int seq = 1;
	uint64_t id = p->game;
	for (int ply = 0;; ply++) {
		char moved[GAME_MOVE_TEXT];
		bool by_p = game_seat_to_move(&game_tak, p->st) == p->seat;
		if (by_p) {
			char line[64];
			snprintf(moved, sizeof moved, "%s", ptc_pick(p));
			ck_assert_int_gt(pt_from_ptn(moved, line, sizeof line), 0);
			ptc_send(p, "Game#%" PRIu64 " %s", id, line);
			slides[0] += line[0] == 'M';
			ptc_expect(p, "OK");
			ptc_play(p, moved);
		} else {
			snprintf(moved, sizeof moved, "%s", json_pick(bstate, &rng));
			ts_send(b, "move %" PRIu64 " %s", id, moved);
			cJSON *ok = ts_expect(b, "{\"type\":\"ok\",\"cmd\":\"move\"}");
			char *l = ptc_line(p);
			ptc_relayed(p, l);
			slides[1] += strstr(l, " M ") != NULL;
			free(l);
			cJSON_Delete(ok);
		}
		/* the clocks to both playtak clients (protocol 0: seconds; 2: milliseconds) */
		ptc_expect(p, "Game#%" PRIu64 " Time * *", id);
		char *l = ptc_line(q);
		ptc_relayed(q, l);
		free(l);
		ptc_expect(q, "Game#%" PRIu64 " Timems * *", id);
		/* the new state to both JSON clients: the same position as the playtak boards */
		seq++;
		cJSON_Delete(bstate);
		bstate = ts_expectf(b, "{\"type\":\"state\",\"game\":%" PRIu64 ",\"seq\":%d}", id,
		                    seq);
		cJSON *ws = ts_expectf(w, "{\"type\":\"state\",\"game\":%" PRIu64 ",\"seq\":%d}",
		                       id, seq);
		ck_assert_str_eq(json_tps(bstate), ptc_tps(p));
		ck_assert_str_eq(json_tps(ws), ptc_tps(q));
		ck_assert_str_eq(ptc_tps(p), ptc_tps(q));
		cJSON_Delete(ws);
		if (cJSON_IsTrue(cJSON_GetObjectItem(bstate, "over"))) {
			*plies = ply + 1;
			break;
		}
	}
	const cJSON *res = cJSON_GetObjectItem(bstate, "result");
	snprintf(score, sizeof score, "%s", cJSON_GetObjectItem(res, "score")->valuestring);
	cJSON_Delete(bstate);
	ptc_expect(p, "Game#%" PRIu64 " Over %s", id, score);
	ptc_expect(q, "Game#%" PRIu64 " Over %s", id, score);
	cJSON_Delete(
	        ts_expectf(b, "{\"type\":\"game_over\",\"result\":{\"score\":\"%s\"}}", score));
	cJSON_Delete(
	        ts_expectf(w, "{\"type\":\"game_over\",\"result\":{\"score\":\"%s\"}}", score));
	ptc_expect(p, "GameList Remove %" PRIu64 " *", id);
	ptc_expect(q, "GameList Remove %" PRIu64 " *", id);
	return score;
}

/*
 * bob (b, main port) seeks "tak <opts>" as black; the playtak client p sees
 * the seek (its shape: size, time, increment, B, komi, pieces, caps, unrated...)
 * and accepts it; b reads up to its first state (returned, caller frees).
 */
static cJSON *p_accepts_b(struct ptc *p, struct ts_cli *b, const char *opts, const char *shape)
{
	ts_send(b, "seek tak %s color=black", opts);
	cJSON *ok = ts_expect(b, "{\"type\":\"ok\",\"cmd\":\"seek\"}");
	int seek = ts_jint(cJSON_GetObjectItem(ok, "seek"), "id");
	cJSON_Delete(ok);
	free(ptc_until(p, "Seek new %d bob %s", seek, shape));
	ptc_send(p, "Accept %d", seek);
	free(ptc_until(p, "Seek remove %d bob %s", seek, shape));
	char *l = ptc_until(p, "GameList Add * %s bob *", p->name);
	free(l);
	l = ptc_until(p, "Game Start *");
	ptc_board(p, l);
	free(l);
	ck_assert_int_eq(p->seat, 0);
	ts_until0(b, "{\"type\":\"game_start\",\"seat\":1}");
	return ts_expect(b, "{\"type\":\"state\",\"seq\":1}");
}

/*
 * The scene of most tests: a server (with args), the playtak client p
 * (protocol, a guest with token or none) white against bob (b, main port) in
 * a game of b's seek "tak <opts>" (p sees it as shape), and q, a playtak
 * client of protocol 0, observing it.
 */
struct scene {
	struct pt_srv ps;
	struct ptc p, q;
	struct ts_cli b;
	uint64_t id;
};

static void scene_up(struct scene *sc, const char *const *args, int nargs, long protocol,
                     const char *token, const char *opts, const char *shape)
{
	pt_up(&sc->ps, args, nargs);
	ptc_open(&sc->p, sc->ps.pt, protocol, "p");
	ptc_guest(&sc->p, token);
	ts_join(&sc->b, sc->ps.s.port, "bob");
	ptc_open(&sc->q, sc->ps.pt, 0, "q");
	ptc_guest(&sc->q, NULL);
	cJSON_Delete(p_accepts_b(&sc->p, &sc->b, opts, shape));
	sc->id = sc->p.game;
	ptc_send(&sc->q, "Observe %" PRIu64, sc->id);
	free(ptc_until(&sc->q, "Game#%" PRIu64 " Time * *", sc->id));
}

static void scene_down(struct scene *sc)
{
	ptc_close(&sc->p);
	ptc_close(&sc->q);
	ts_close(&sc->b);
	ts_down(&sc->ps.s);
}

START_TEST(test_game_through_the_port)
{
	struct pt_srv ps;
	struct ptc p, q;
	struct ts_cli b, w;
	pt_up(&ps, NULL, 0);
	ptc_open(&p, ps.pt, 0, "p");
	ptc_guest(&p, NULL);
	ck_assert_str_eq(p.name, "Guest1");
	ts_join(&b, ps.s.port, "bob");
	ptc_open(&q, ps.pt, 2, "q");
	ptc_guest(&q, NULL);
	ts_join(&w, ps.s.port, "wendy");
	/* a game of another kind is not shown on the playtak port; a Tak one is */
	ts_send(&b, "seek ttt");
	ts_expect0(&b, "{\"type\":\"ok\",\"cmd\":\"seek\",\"seek\":{\"id\":1}}");
	/*
	 * Two games; the seeds of white's choices make today a road in 43 plies and a
	 * win on the flats in 69, many slides each way among them (any decisive end
	 * for white passes).
	 */
	static const uint64_t seeds[] = {5, 2};
	int slides[2] = {0, 0}; /* sent by the playtak client, relayed to it */
	for (int k = 0; k < 2; k++) {
		cJSON *first =
		        p_accepts_b(&p, &b, "size=5 komi=4 time=10+5", "5 600 5 B 4 21 1 1 0 0 0 ");
		rng_seed(&p.rng, seeds[k]);
		if (k == 0) {
			ptc_send(&p, "Accept 1"); /* the ttt seek: not here */
			ptc_expect(&p, "NOK");
		}
		/* the spectators: one on each port */
		free(ptc_until(&q, "GameList Add %" PRIu64 " Guest1 bob 5 600 5 4 21 1 1 0 0 0",
		               p.game));
		ptc_send(&q, "Observe %" PRIu64, p.game);
		char *l = ptc_until(&q, "Observe %" PRIu64 " Guest1 bob 5 600 5 4 21 1 1 0 0 0",
		                    p.game);
		ptc_board(&q, l);
		free(l);
		ptc_expect(&q, "Game#%" PRIu64 " Timems * 600000", p.game);
		ts_send(&w, "watch %" PRIu64, p.game);
		ts_until0(&w, "{\"type\":\"ok\",\"cmd\":\"watch\"}");
		ts_expect0(&w, "{\"type\":\"state\",\"seq\":1}");
		int plies = 0;
		const char *score = play_out(&p, &b, &q, &w, first, &plies, slides);
		/* white takes a win whenever one is on the board: a road or the flats */
		ck_assert_msg(strcmp(score, "R-0") == 0 || strcmp(score, "F-0") == 0, "score %s",
		              score);
		ck_assert_int_gt(plies, 8);
		/* the game is gone from the port's list */
		ptc_send(&q, "GameList");
		ptc_send(&q, "PING");
		ptc_expect(&q, "OK");
	}
	ck_assert_int_gt(slides[0], 0); /* "M" lines went both ways too */
	ck_assert_int_gt(slides[1], 0);
	ptc_close(&p);
	ptc_close(&q);
	ts_close(&b);
	ts_close(&w);
	ts_down(&ps.s);
}
END_TEST

/* ---- offers and resignation --------------------------------------------------------------- */

START_TEST(test_offers)
{
	struct scene sc;
	scene_up(&sc, NULL, 0, 1, NULL, "size=4 time=5+0", "4 300 0 B 0 15 0 1 0 0 0 ");
	struct ptc *p = &sc.p, *q = &sc.q;
	struct ts_cli *b = &sc.b;
	uint64_t id = sc.id;
	/* a draw offer and its removal */
	ptc_send(p, "Game#%" PRIu64 " OfferDraw", id);
	ptc_expect(p, "OK");
	ts_until0(b,
	          "{\"type\":\"offer\",\"what\":\"draw\",\"event\":\"offer\",\"by\":\"Guest1\"}");
	ptc_send(p, "Game#%" PRIu64 " RemoveDraw", id);
	ptc_expect(p, "OK");
	ts_until0(b, "{\"type\":\"offer\",\"what\":\"draw\",\"event\":\"withdraw\"}");
	/* removing what is not there is OK too, as on playtak */
	ptc_send(p, "Game#%" PRIu64 " RemoveDraw", id);
	ptc_expect(p, "OK");
	/* two plies, then white asks to take its move back and bob agrees: one Undo */
	ptc_send(p, "Game#%" PRIu64 " P A1", id);
	ptc_expect(p, "OK");
	ptc_expect(p, "Game#%" PRIu64 " Timems * *", id);
	ptc_play(p, "a1");
	ts_until0(b, "{\"type\":\"state\",\"seq\":2}");
	ts_send(b, "move %" PRIu64 " d4", id);
	ptc_expect(p, "Game#%" PRIu64 " P D4", id);
	ptc_expect(p, "Game#%" PRIu64 " Timems * *", id);
	ptc_play(p, "d4");
	ptc_send(p, "Game#%" PRIu64 " P B2", id);
	ptc_expect(p, "OK");
	ptc_expect(p, "Game#%" PRIu64 " Timems * *", id);
	ptc_send(p, "Game#%" PRIu64 " RequestUndo", id);
	ptc_expect(p, "OK");
	ts_until0(b, "{\"type\":\"offer\",\"what\":\"undo\",\"event\":\"offer\",\"plies\":1}");
	ts_send(b, "undo %" PRIu64, id);
	ptc_expect(p, "Game#%" PRIu64 " Undo", id);
	ptc_expect(p, "Game#%" PRIu64 " Timems * *", id);
	cJSON *back = ts_until(b, "{\"type\":\"state\",\"ply\":2}");
	ck_assert_str_eq(json_tps(back), ptc_tps(p)); /* b2 was never on p's board */
	cJSON_Delete(back);
	free(ptc_until(q, "Game#%" PRIu64 " Undo", id));
	/* bob's request, then his removal of it */
	ts_send(b, "undo %" PRIu64, id);
	ptc_expect(p, "Game#%" PRIu64 " RequestUndo", id);
	ts_send(b, "undo %" PRIu64 " withdraw", id);
	ptc_expect(p, "Game#%" PRIu64 " RemoveUndo", id);
	/* bob offers a draw; white's own OfferDraw accepts it: 1/2-1/2 to all */
	ts_send(b, "draw %" PRIu64, id);
	ptc_expect(p, "Game#%" PRIu64 " OfferDraw", id);
	ptc_send(p, "Game#%" PRIu64 " OfferDraw", id);
	ptc_expect(p, "OK");
	ptc_expect(p, "Game#%" PRIu64 " Over 1/2-1/2", id);
	free(ptc_until(q, "Game#%" PRIu64 " Over 1/2-1/2", id));
	ts_until0(b, "{\"type\":\"game_over\",\"result\":{\"score\":\"1/2-1/"
	             "2\",\"reason\":\"agreement\"}}");
	/* a second game: the playtak client resigns it */
	cJSON_Delete(p_accepts_b(p, b, "size=4 time=5+0", "4 300 0 B 0 15 0 1 0 0 0 "));
	id = p->game;
	ptc_send(p, "Game#%" PRIu64 " Resign", id);
	ptc_expect(p, "Game#%" PRIu64 " Over 0-1", id);
	ts_until0(b,
	          "{\"type\":\"game_over\",\"result\":{\"score\":\"0-1\",\"reason\":\"resign\"}}");
	/* a third: bob resigns */
	cJSON_Delete(p_accepts_b(p, b, "size=4 time=5+0", "4 300 0 B 0 15 0 1 0 0 0 "));
	id = p->game;
	ts_send(b, "resign %" PRIu64, id);
	ptc_expect(p, "Game#%" PRIu64 " Over 1-0", id);
	ptc_expect(p, "GameList Remove %" PRIu64 " Guest1 bob *", id);
	/* a move in a game that is over */
	ptc_send(p, "Game#%" PRIu64 " P C3", id);
	ptc_expect(p, "NOK");
	ptc_expect(p, "Error:game %" PRIu64 " is over", id);
	scene_down(&sc);
}
END_TEST

/* ---- leaving and coming back ------------------------------------------------------------ */

START_TEST(test_return_within_grace)
{
	static const char *const args[] = {"--grace", "2"};
	static const char token[] = "abcdefghijklmnopqrst";
	struct scene sc;
	scene_up(&sc, args, 2, 0, token, "size=3 time=5+0", "3 300 0 B 0 10 0 1 0 0 0 ");
	struct ptc *p = &sc.p, *q = &sc.q;
	struct ts_cli *b = &sc.b;
	uint64_t id = sc.id;
	ptc_send(p, "Game#%" PRIu64 " P A1", id);
	ptc_expect(p, "OK");
	ts_until0(b, "{\"type\":\"state\",\"seq\":2}");
	ts_send(b, "move %" PRIu64 " c3", id);
	ts_until0(b, "{\"type\":\"state\",\"seq\":3}");
	/* white vanishes: bob and the spectator are told, with the grace */
	ptc_close(p);
	ts_until0(b,
	          "{\"type\":\"info\",\"event\":\"gone\",\"player\":\"Guest1\",\"grace_ms\":2000}");
	free(ptc_until(q, "Message Guest1 has disconnected. They have 2 seconds to reconnect"));
	ts_send(b, "move %" PRIu64 " b2", id); /* not bob's turn: white's clock runs */
	ts_expect0(b, "{\"type\":\"error\",\"code\":\"NOT_YOUR_TURN\"}");
	/* back with the same token: the game, every move, the clocks, then the word */
	ptc_open(p, sc.ps.pt, 0, "p");
	ptc_guest(p, token);
	ck_assert_str_eq(p->name, "Guest1");
	char *l = ptc_until(p, "Game Start %" PRIu64 " 3 Guest1 vs bob white 300 0 10 0 0 0", id);
	ptc_board(p, l);
	free(l);
	l = ptc_line(p);
	ptc_relayed(p, l); /* a1 */
	free(l);
	l = ptc_line(p);
	ptc_relayed(p, l); /* c3 */
	free(l);
	ptc_expect(p, "Game#%" PRIu64 " Time * *", id);
	ptc_expect(p, "Message Your game is resumed");
	ts_until0(b, "{\"type\":\"info\",\"event\":\"back\",\"player\":\"Guest1\"}");
	free(ptc_until(q, "Message Guest1 has reconnected."));
	/* the game goes on from the board the client rebuilt */
	ptc_send(p, "Game#%" PRIu64 " P B2", id);
	free(ptc_until(p, "OK"));
	cJSON *s4 = ts_until(b, "{\"type\":\"state\",\"seq\":4}");
	ptc_play(p, "b2");
	ck_assert_str_eq(json_tps(s4), ptc_tps(p));
	cJSON_Delete(s4);
	/* another guest cannot take the name; a fresh Login Guest is someone new */
	struct ptc x;
	ptc_open(&x, sc.ps.pt, 0, "x");
	ptc_guest(&x, NULL);
	ck_assert_str_ne(x.name, "Guest1");
	ptc_close(&x);
	/* a second window with the token: the first is told and closed, the second plays on */
	struct ptc p2;
	ptc_open(&p2, sc.ps.pt, 0, "p2");
	ptc_guest(&p2, token);
	ck_assert_str_eq(p2.name, "Guest1");
	free(ptc_until(p, "Message You've logged in from another window. Disconnecting"));
	ck_assert(ts_eof(&p->io));
	ptc_close(p);
	free(ptc_until(&p2, "Message Your game is resumed"));
	/* now white stays away past the grace: abandoned, bob wins */
	ptc_close(&p2);
	ts_until0(b, "{\"type\":\"game_over\",\"result\":{\"winner\":1,\"reason\":\"abandoned\"}}");
	free(ptc_until(q, "Game#%" PRIu64 " Abandoned. Guest1 quit", id));
	ptc_close(q);
	ts_close(b);
	ts_down(&sc.ps.s);
}
END_TEST

/* ---- accounts -------------------------------------------------------------------------------- */

START_TEST(test_accounts)
{
	struct pt_srv ps;
	struct ptc a, a2;
	pt_up(&ps, NULL, 0);
	ptc_open(&a, ps.pt, 0, "a");
	ptc_send(&a, "Register Guestly a@b.c");
	ptc_expect(&a, "Registration Error: Can't register with guest in the name");
	ptc_send(&a, "Register alice alice-at-nowhere");
	ptc_expect(&a, "Registration Error: Unknown format*");
	ptc_send(&a, "Register alice alice@example.org");
	char *l = ptc_line(&a);
	char pw[32] = "";
	ck_assert_msg(sscanf(l, "Registered alice. Your password is %31s", pw) == 1, "%s", l);
	free(l);
	ptc_expect(&a, "Welcome alice!");
	ptc_close(&a);
	/* the account logs in on either port with that password */
	struct ts_cli t;
	ts_connect_json(&t, ps.s.port);
	ts_send(&t, "login alice %s", pw);
	ts_expect0(&t, "{\"type\":\"ok\",\"cmd\":\"login\",\"name\":\"alice\",\"guest\":false}");
	ts_close(&t);
	ptc_open(&a, ps.pt, 0, "a");
	ptc_send(&a, "Login alice wrongpassword");
	ptc_expect(&a, "Authentication failure");
	ptc_send(&a, "Login nobody secret123");
	ptc_expect(&a, "Authentication failure");
	ptc_send(&a, "Login alice %s", pw);
	ptc_expect(&a, "Welcome alice!");
	/* Login, Client and Protocol once logged in: NOK, as on playtak */
	ptc_send(&a, "Login alice %s", pw);
	free(ptc_until(&a, "NOK"));
	/* the account again from a second window: the first is told and closed */
	ptc_open(&a2, ps.pt, 0, "a2");
	ptc_send(&a2, "Login alice %s", pw);
	free(ptc_until(&a2, "Welcome alice!"));
	free(ptc_until(&a, "Message You've logged in from another window. Disconnecting"));
	ck_assert(ts_eof(&a.io));
	/* a registered player's seek is rated unless it says unrated */
	ptc_send(&a2, "Seek 5 300 0 A 0 21 1 0 0 ");
	free(ptc_until(&a2, "Seek new * alice 5 300 0 A 0 21 1 0 0 0 0 "));
	ptc_send(&a2, "Seek 5 300 0 A 0 21 1 1 0 ");
	free(ptc_until(&a2, "Seek remove * alice 5 300 0 A 0 21 1 0 0 0 0 "));
	free(ptc_until(&a2, "Seek new * alice 5 300 0 A 0 21 1 1 0 0 0 "));
	ptc_close(&a);
	ptc_close(&a2);
	ts_down(&ps.s);
}
END_TEST

/* ---- bad input ------------------------------------------------------------------------------ */

START_TEST(test_bad_input)
{
	struct pt_srv ps;
	struct ptc p;
	struct ts_cli b;
	pt_up(&ps, NULL, 0);
	ptc_open(&p, ps.pt, 0, "p");
	/* before login only the login lines work */
	static const char *const before[] = {"Seek 5 600 10", "List",  "Game#1 P A1",
	                                     "Shout hi",      "hello", ""};
	for (size_t i = 0; i < sizeof before / sizeof before[0]; i++) {
		ptc_send(&p, "%s", before[i]);
		ptc_expect(&p, "NOK");
	}
	ts_write(&p.io, "Login \xc3\x28\n", 9); /* not UTF-8 */
	ptc_expect(&p, "NOK");
	ptc_expect(&p, "Error:*");
	char big[FRAME_MAX + 100];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\n';
	ts_write(&p.io, big, sizeof big); /* overlong */
	ptc_expect(&p, "NOK");
	ptc_expect(&p, "Error:*");
	ptc_guest(&p, NULL);
	ts_join(&b, ps.s.port, "bob");
	/* junk, moves in no game, malformed moves, another's game, what is not Tak */
	static const char *const after[] = {"Game#99 P A1",     "Game#1 M A1 B2 1", "Accept 77",
	                                    "Observe 5",        "Unobserve 5",      "Game#x P A1",
	                                    "Seek x",           "Login Guest",      "Protocol 2",
	                                    "Client Something", "Game#1 Show"};
	for (size_t i = 0; i < sizeof after / sizeof after[0]; i++) {
		ptc_send(&p, "%s", after[i]);
		free(ptc_until(&p, "NOK"));
	}
	ptc_send(&p, "PING"); /* every answer read */
	free(ptc_until(&p, "OK"));
	ts_send(&b, "seek ttt");
	ts_until0(&b, "{\"type\":\"ok\",\"cmd\":\"seek\"}");
	ts_send(&b, "seek mnk m=4 n=4 k=3");
	ts_until0(&b, "{\"type\":\"ok\",\"cmd\":\"seek\",\"seek\":{\"id\":2}}");
	ptc_send(&p, "Seek 5 600 10");
	free(ptc_until(&p, "Seek new 3 Guest1 5 600 10 A 0 21 1 1 0 0 0 "));
	ts_until0(&b, "{\"type\":\"seek\",\"event\":\"new\",\"seek\":{\"by\":\"Guest1\"}}");
	ptc_send(&p, "Accept 2"); /* the mnk seek: not on this port */
	ptc_expect(&p, "NOK");
	ptc_send(&p, "Accept 3"); /* its own */
	ptc_expect(&p, "NOK");
	ptc_expect(&p, "Error:*your own*");
	ptc_send(&p, "Tell nobody hi");
	ptc_expect(&p, "No such player");
	ptc_send(&p, "List"); /* only its own Tak seek */
	ptc_expect(&p, "Seek new 3 Guest1 5 600 10 A 0 21 1 1 0 0 0 ");
	ptc_send(&p, "PING");
	ptc_expect(&p, "OK");
	/* a seek the server refuses (a time of more than a day): the old seek went all the same */
	ptc_send(&p, "Seek 5 100000 10 A 0 21 1 0 0 ");
	ptc_expect(&p, "Seek remove 3 Guest1 5 600 10 A 0 21 1 1 0 0 0 ");
	ptc_expect(&p, "NOK");
	ptc_expect(&p, "Error:time is*");
	/* and the server is still there for everyone */
	ptc_send(&p, "PING");
	ptc_expect(&p, "OK");
	ts_send(&b, "ping");
	ts_until0(&b, "{\"type\":\"pong\"}");
	ptc_close(&p);
	ts_close(&b);
	ts_down(&ps.s);
}
END_TEST

/* ---- seeks for one opponent ------------------------------------------------------------ */

START_TEST(test_challenges)
{
	struct pt_srv ps;
	struct ptc p, r;
	struct ts_cli b;
	pt_up(&ps, NULL, 0);
	ptc_open(&p, ps.pt, 0, "p");
	ptc_guest(&p, NULL);
	ts_join(&b, ps.s.port, "bob");
	ptc_open(&r, ps.pt, 2, "r");
	ptc_guest(&r, NULL);
	/* a seek naming its opponent is a challenge: the two of them see it, nobody else */
	ptc_send(&p, "Seek 5 300 0 W 0 21 1 1 0 bob");
	free(ptc_until(&p, "Seek new 1 Guest1 5 300 0 W 0 21 1 1 0 0 0 bob"));
	ts_until0(&b, "{\"type\":\"match\",\"event\":\"new\",\"seek\":{\"id\":1,\"by\":"
	              "\"Guest1\",\"to\":\"bob\",\"kind\":\"tak\"}}");
	ptc_send(&r, "List");
	ptc_send(&r, "Accept 1");
	free(ptc_until(&r, "NOK")); /* nothing listed before it */
	ptc_send(&r, "PING");
	ptc_expect(&r, "Error:*");
	ptc_expect(&r, "OK");
	/* bob declines it */
	ts_send(&b, "decline 1");
	ts_expect0(&b, "{\"type\":\"ok\",\"cmd\":\"decline\"}");
	ptc_expect(&p, "Seek remove 1 Guest1 5 300 0 W 0 21 1 1 0 0 0 bob");
	ptc_expect(&p, "Message bob declined your seek");
	/* again, and a new seek replaces it: bob is told it went */
	ptc_send(&p, "Seek 5 300 0 W 0 21 1 1 0 bob");
	ptc_expect(&p, "Seek new 2 Guest1 5 300 0 W 0 21 1 1 0 0 0 bob");
	ts_until0(&b, "{\"type\":\"match\",\"event\":\"new\",\"seek\":{\"id\":2}}");
	ptc_send(&p, "Seek 5 300 0 B 0 21 1 1 0 bob");
	ptc_expect(&p, "Seek remove 2 Guest1 5 300 0 W 0 21 1 1 0 0 0 bob");
	ptc_expect(&p, "Seek new 3 Guest1 5 300 0 B 0 21 1 1 0 0 0 bob");
	ts_until0(&b, "{\"type\":\"match\",\"event\":\"withdraw\",\"id\":2}");
	ts_until0(&b, "{\"type\":\"match\",\"event\":\"new\",\"seek\":{\"id\":3}}");
	/* bob accepts: the challenge goes before the game starts */
	ts_send(&b, "accept 3");
	ts_expect0(&b, "{\"type\":\"ok\",\"cmd\":\"accept\"}");
	ptc_expect(&p, "Seek remove 3 Guest1 5 300 0 B 0 21 1 1 0 0 0 bob");
	ptc_expect(&p, "GameList Add * bob Guest1 *");
	char *l = ptc_until(&p, "Game Start *");
	ptc_board(&p, l);
	free(l);
	ck_assert_int_eq(p.seat, 1);
	ts_send(&b, "resign %" PRIu64, p.game);
	free(ptc_until(&p, "Game#%" PRIu64 " Over 0-1", p.game));
	/* bob challenges the playtak client from the main port */
	ts_send(&b, "match Guest1 tak size=4 time=3+0 color=white");
	ts_until0(&b, "{\"type\":\"ok\",\"cmd\":\"match\"}");
	free(ptc_until(&p, "Seek new 4 bob 4 180 0 W 0 15 0 1 0 0 0 Guest1"));
	ts_send(&b, "unseek 4");
	ptc_expect(&p, "Seek remove 4 bob 4 180 0 W 0 15 0 1 0 0 0 Guest1");
	ts_send(&b, "match Guest1 tak size=4 time=3+0 color=white");
	ptc_expect(&p, "Seek new 5 bob 4 180 0 W 0 15 0 1 0 0 0 Guest1");
	ptc_send(&p, "Accept 5");
	ptc_expect(&p, "Seek remove 5 bob 4 180 0 W 0 15 0 1 0 0 0 Guest1");
	free(ptc_until(&p, "Game Start * 4 bob vs Guest1 black 180 0 15 0 0 0"));
	ts_send(&b, "resign 2");
	free(ptc_until(&p, "Game#2 Over 0-1"));
	/* a challenge whose author leaves goes with them */
	ts_send(&b, "match Guest1 tak size=4");
	ptc_expect(&p, "GameList Remove 2 *");
	ptc_expect(&p, "Seek new 6 bob 4 0 0 A 0 15 0 1 0 0 0 Guest1");
	ts_close(&b);
	ptc_expect(&p, "Seek remove 6 bob 4 0 0 A 0 15 0 1 0 0 0 Guest1");
	/* r never saw any of it */
	ptc_send(&r, "PING");
	char *rl;
	while ((rl = ptc_line(&r)) != NULL && strcmp(rl, "OK") != 0) {
		ck_assert_msg(strstr(rl, "bob") == NULL || strncmp(rl, "Seek", 4) != 0, "%s", rl);
		free(rl);
	}
	free(rl);
	ptc_close(&p);
	ptc_close(&r);
	ts_down(&ps.s);
}
END_TEST

/* ---- one budget: the port's lines pay as the main port's verbs -------------------------- */

/* n copies of line (a newline each) in one write. */
static void blast(struct ptc *c, const char *line, int n)
{
	size_t len = strlen(line);
	char *buf = malloc((size_t)n * (len + 1));
	ck_assert_ptr_nonnull(buf);
	for (int i = 0; i < n; i++) {
		memcpy(buf + (size_t)i * (len + 1), line, len);
		buf[(size_t)i * (len + 1) + len] = '\n';
	}
	ts_write(&c->io, buf, (size_t)n * (len + 1));
	free(buf);
}

/* Reads c up to its first refusal (NOK, then the budget's Error:); returns how many lines
   matching pat came before it. */
static int until_refused(struct ptc *c, const char *pat)
{
	int n = 0;
	for (;;) {
		char *l = ptc_line(c);
		bool nok = strcmp(l, "NOK") == 0;
		n += fnmatch(pat, l, 0) == 0;
		free(l);
		if (nok)
			break;
	}
	ptc_expect(c, "Error:too many commands (20 a second, bursts of 100)*retry after * ms");
	return n;
}

/* Reads c up to an OK; returns how many lines matching pat came before it. */
static int count_until_ok(struct ptc *c, const char *pat)
{
	int n = 0;
	for (;;) {
		char *l = ptc_line(c);
		bool ok = strcmp(l, "OK") == 0;
		n += fnmatch(pat, l, 0) == 0;
		free(l);
		if (ok)
			return n;
	}
}

START_TEST(test_flood_budget)
{
	struct pt_srv ps;
	struct ptc p, r, x;
	pt_up(&ps, NULL, 0); /* the default budget: 20 a second, bursts of 100 */
	ptc_open(&p, ps.pt, 0, "p");
	ptc_guest(&p, NULL); /* 2 (login) */
	ptc_open(&r, ps.pt, 0, "r");
	ptc_guest(&r, NULL);
	/* 3,000 PINGs in one write: the bucket's worth is answered, then NOK and why; nothing
	   more is read from p meanwhile, and another client is answered at once */
	blast(&p, "PING", 3000);
	int oks = until_refused(&p, "OK");
	ck_assert_int_ge(oks, 95);
	ck_assert_int_le(oks, 100);
	ptc_send(&r, "PING");
	free(ptc_until(&r, "OK"));
	/* 3,000 Shouts: a Shout, heard by every user of the port, pays what a seek does (3) */
	ptc_open(&x, ps.pt, 0, "x");
	ptc_guest(&x, NULL);
	blast(&x, "Shout hello everyone", 3000);
	int own = until_refused(&x, "Shout <*> hello everyone");
	ck_assert_int_ge(own, 30);
	ck_assert_int_le(own, 33);
	ptc_close(&x);
	ptc_send(&r, "PING"); /* what r heard of them: as few */
	int heard = count_until_ok(&r, "Shout <*> hello everyone");
	ck_assert_int_ge(heard, own);
	ck_assert_int_le(heard, own + 3);
	/* List and GameList pay as seeks and list (3): 33 of them and a refusal */
	struct ptc y;
	ptc_open(&y, ps.pt, 0, "y");
	ptc_guest(&y, NULL);
	blast(&y, "GameList", 50); /* nothing listed: the answers are the refusals */
	free(ptc_until(&y, "NOK"));
	ptc_expect(&y, "Error:too many commands*");
	ptc_close(&y);
	ptc_close(&p);
	ptc_close(&r);
	ts_down(&ps.s);
}
END_TEST

START_TEST(test_flood_closed)
{
	/* a client that keeps overrunning the budget is closed (FLOODING), as on the main port;
	   a fast budget makes the strikes quick */
	static const char *const args[] = {"--cmd-rate", "1000", "--cmd-burst", "30"};
	struct pt_srv ps;
	struct ptc x, r;
	pt_up(&ps, args, 4);
	ptc_open(&r, ps.pt, 0, "r");
	ptc_guest(&r, NULL);
	ptc_open(&x, ps.pt, 0, "x");
	ptc_guest(&x, NULL);
	blast(&x, "Shout again and again", 3000);
	int refused = 0;
	for (;;) {
		char *l = ptc_line(&x);
		bool end = fnmatch("Error:10 commands in a row came faster than allowed*; "
		                   "disconnected",
		                   l, 0) == 0;
		refused += fnmatch("Error:too many commands*", l, 0) == 0;
		free(l);
		if (end)
			break;
	}
	/* nine refusals in a row before it, more if a busy machine let the strikes be forgiven
	   (a refill, 30 ms here, without one) */
	ck_assert_int_ge(refused, 9);
	ck_assert(ts_eof(&x.io));
	ptc_close(&x);
	ptc_send(&r, "PING"); /* r heard a fraction of them, and is served */
	int heard = count_until_ok(&r, "Shout <*> again and again");
	ck_assert_int_lt(heard, 1000);
	ptc_close(&r);
	ts_down(&ps.s);
}
END_TEST

/* ---- guests: new ones limited per address, tokens in use never forgotten ----------------- */

/* A playtak client from address from: the welcome read; Login Guest with token (or none)
   sent. */
static void guest_from(struct ts_cli *c, int port, const char *from, const char *token)
{
	ts_open_from(c, port, from);
	ts_expect0(c, "Welcome!");
	ts_expect0(c, "Login or Register");
	ts_send(c, "Login Guest%s%s", token ? " " : "", token ? token : "");
}

/* The name of "Welcome <name>!" (lines before it skipped), into name. */
static void welcomed(struct ts_cli *c, char *name, size_t len)
{
	for (;;) {
		char *l = ts_line(c);
		ck_assert_ptr_nonnull(l);
		bool w = fnmatch("Welcome *!", l, 0) == 0;
		if (w)
			snprintf(name, len, "%.*s", (int)strlen(l) - 9, l + 8);
		free(l);
		if (w)
			return;
	}
}

/* The token of guest i: 20 lower-case letters. */
static void token_of(int i, char tok[21])
{
	for (int k = 0; k < 20; k++, i /= 26)
		tok[k] = (char)('a' + (k < 8 ? i % 26 : (k * 7) % 26));
	tok[20] = '\0';
}

START_TEST(test_guests_per_address)
{
	struct pt_srv ps;
	struct ts_cli c[PLAYTAK_GUEST_LIMIT + 1], o;
	char name[32], tok[21], first[32] = "";
	pt_up(&ps, NULL, 0);
	for (int i = 0; i < PLAYTAK_GUEST_LIMIT; i++) {
		token_of(i, tok);
		guest_from(&c[i], ps.pt, "127.0.0.2", tok);
		welcomed(&c[i], name, sizeof name);
		if (i == 0)
			snprintf(first, sizeof first, "%s", name);
	}
	/* one more new guest from that address: refused, told when to try again */
	token_of(PLAYTAK_GUEST_LIMIT, tok);
	guest_from(&c[PLAYTAK_GUEST_LIMIT], ps.pt, "127.0.0.2", tok);
	ts_expect0(&c[PLAYTAK_GUEST_LIMIT], "Message Too many new guests from your address (20 a "
	                                    "minute); try again in * s");
	ts_expect0(&c[PLAYTAK_GUEST_LIMIT], "Authentication failure");
	ts_send(&c[PLAYTAK_GUEST_LIMIT], "Login Guest");
	ts_expect0(&c[PLAYTAK_GUEST_LIMIT], "Message Too many new guests*");
	ts_expect0(&c[PLAYTAK_GUEST_LIMIT], "Authentication failure");
	/* a guest coming back with its token is no new guest: its name again */
	ts_close(&c[0]);
	token_of(0, tok);
	ts_send(&c[PLAYTAK_GUEST_LIMIT], "Login Guest %s", tok);
	welcomed(&c[PLAYTAK_GUEST_LIMIT], name, sizeof name);
	ck_assert_str_eq(name, first);
	/* another address is another count */
	guest_from(&o, ps.pt, "127.0.0.3", NULL);
	welcomed(&o, name, sizeof name);
	ts_close(&o);
	for (int i = 1; i <= PLAYTAK_GUEST_LIMIT; i++)
		ts_close(&c[i]);
	ts_down(&ps.s);
}
END_TEST

START_TEST(test_guest_tokens_kept)
{
	/* a guest away from its game (within the grace): a stranger's stream of new tokens,
	   more than the table remembers, from many addresses, does not make its own forgotten */
	static const char token[] = "victimtokenvictimtok";
	struct pt_srv ps;
	struct ptc v;
	struct ts_cli b;
	pt_up(&ps, NULL, 0);
	ptc_open(&v, ps.pt, 0, "v");
	ptc_guest(&v, token);
	char name[32];
	snprintf(name, sizeof name, "%s", v.name);
	ts_join(&b, ps.s.port, "bob");
	cJSON_Delete(p_accepts_b(&v, &b, "size=4", "4 0 0 B 0 15 0 1 0 0 0 "));
	uint64_t id = v.game;
	ptc_close(&v);
	ts_until0(&b, "{\"type\":\"info\",\"event\":\"gone\"}");
	enum { BATCH = 64, N = PLAYTAK_GUESTS_MAX + 2 * BATCH };
	static struct ts_cli g[BATCH];
	for (int done = 0; done < N; done += BATCH) {
		for (int k = 0; k < BATCH; k++) {
			int a = (done + k) / PLAYTAK_GUEST_LIMIT; /* its address */
			char from[32], tok[21];
			snprintf(from, sizeof from, "127.1.%d.%d", a / 200, a % 200 + 1);
			token_of(done + k + 1000, tok);
			guest_from(&g[k], ps.pt, from, tok);
		}
		for (int k = 0; k < BATCH; k++) {
			char who[32];
			welcomed(&g[k], who, sizeof who);
			ck_assert_str_ne(who, name);
			ts_close(&g[k]);
		}
	}
	/* the victim comes back with its token: its name and its game */
	ptc_open(&v, ps.pt, 0, "v");
	ptc_guest(&v, token);
	ck_assert_str_eq(v.name, name);
	free(ptc_until(&v, "Game Start %" PRIu64 " *", id));
	free(ptc_until(&v, "Message Your game is resumed"));
	ts_until0(&b, "{\"type\":\"info\",\"event\":\"back\"}");
	ptc_close(&v);
	ts_close(&b);
	ts_down(&ps.s);
}
END_TEST

/* ---- output: --sndbuf and the output limits hold on the port too ------------------------- */

START_TEST(test_output_limits)
{
	/* the shouts below run without the budget; the output cap high, the hard limit low */
	static const char *const args[] = {"--sndbuf",   "8192",  "--out-cap",  "1048576",
	                                   "--out-hard", "65536", "--cmd-rate", "0"};
	struct pt_srv ps;
	struct ptc s;
	struct ts_cli v;
	pt_up(&ps, args, 8);
	/* v's receive buffer is small and it stops reading once logged in */
	ts_open_rcvbuf(&v, ps.pt, 4096);
	ts_expect0(&v, "Welcome!");
	ts_expect0(&v, "Login or Register");
	ts_send(&v, "Login Guest");
	char name[32];
	welcomed(&v, name, sizeof name);
	/* 4,000 Shouts of 250 bytes, a megabyte for v: the server holds what its socket
	   (SO_SNDBUF 8192) does not take, and drops v past --out-hard */
	ptc_open(&s, ps.pt, 0, "s");
	ptc_guest(&s, NULL);
	char text[251];
	memset(text, 'z', 250);
	text[250] = '\0';
	for (int round = 0; round < 80; round++) {
		for (int i = 0; i < 50; i++)
			ptc_send(&s, "Shout %s", text);
		for (int i = 0; i < 50;) { /* s reads its own */
			char *l = ptc_line(&s);
			i += strncmp(l, "Shout <", 7) == 0;
			free(l);
		}
	}
	size_t bytes = 0;
	char *l;
	int n;
	while ((n = net_read_line(&v.nc, TS_LINE_WAIT_MS, &l)) >= 0)
		bytes += (size_t)n + 1;
	ck_assert_int_eq(n, NET_ECLOSED);
	ck_assert_uint_lt(bytes, 256 * 1024);
	ts_close(&v);
	ptc_send(&s, "PING");
	free(ptc_until(&s, "OK"));
	ptc_close(&s);
	ts_down(&ps.s);
}
END_TEST

/* ---- text past its limit: cut on a UTF-8 boundary ---------------------------------------- */

START_TEST(test_utf8_cut)
{
	static const char euro[] = "\xe2\x82\xac"; /* 3 bytes: no limit is a multiple of it */
	struct pt_srv ps;
	struct ptc p, r;
	struct ts_cli b;
	pt_up(&ps, NULL, 0);
	ptc_open(&p, ps.pt, 0, "p");
	ptc_guest(&p, NULL);
	ptc_open(&r, ps.pt, 0, "r");
	ptc_guest(&r, NULL);
	ts_join(&b, ps.s.port, "bob");
	char text[400] = "", want[400] = "";
	for (int i = 0; i < 100; i++)
		strcat(text, euro);
	for (int i = 0; i < PT_TEXT_MAX / 3; i++)
		strcat(want, euro); /* 85 of them: 255 bytes */
	ptc_send(&p, "Shout %s", text);
	free(ptc_until(&r, "Shout <%s> %s", p.name, want));
	ptc_send(&p, "Tell bob %s", text);
	free(ptc_until(&p, "Told <bob> %s", want));
	cJSON *t = ts_until(&b, "{\"type\":\"tell\"}");
	ck_assert_str_eq(ts_jstr(t, "text"), want);
	cJSON_Delete(t);
	ptc_send(&p, "JoinRoom %.90s", text); /* 30 of them; a room is 64 bytes at most */
	char *l = ptc_until(&p, "Joined room *");
	ck_assert_uint_eq(strlen(l), strlen("Joined room ") + 63);
	ck_assert_int_eq(text_check(l, strlen(l), NULL), TEXT_OK);
	free(l);
	ptc_close(&p);
	ptc_close(&r);
	ts_close(&b);
	ts_down(&ps.s);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("playtak_port");
	TCase *tc = tcase_create("port");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_game_through_the_port);
	tcase_add_test(tc, test_offers);
	tcase_add_test(tc, test_return_within_grace);
	tcase_add_test(tc, test_accounts);
	tcase_add_test(tc, test_bad_input);
	tcase_add_test(tc, test_challenges);
	tcase_add_test(tc, test_flood_budget);
	tcase_add_test(tc, test_flood_closed);
	tcase_add_test(tc, test_guests_per_address);
	tcase_add_test(tc, test_guest_tokens_kept);
	tcase_add_test(tc, test_output_limits);
	tcase_add_test(tc, test_utf8_cut);
	suite_add_tcase(s, tc);
	return check_run(s);
}
