/*
 * house.c - the server's own bots (house.h): the in-process "house"
 * transport, one guest connection per level, the turns handed to the thread
 * pool and their answers fed back as input lines, `match computer`, and the
 * pools' opponent of last resort.
 */
#include "server/house/house.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <sodium.h>

#include "games/game.h"
#include "server/cmd/commands.h"
#include "server/msg/msg.h"
#include "server/play/identity.h"
#include "server/play/lobby.h"
#include "server/play/session.h"
#include "server/play/session_clock.h"
#include "server/util/log.h"

#define HOUSE_RETRIES   3 /* refused moves in one game before the bot resigns it */
#define HOUSE_AGREE_MAX 16 /* offers waiting for the bot's answer (more: not answered) */

/* What the bot of one level keeps per game it plays. */
struct house_game {
	struct house_game *next;
	uint64_t id;
	struct house_memory mem;
	struct house_job *job; /* thinking (queued or on a worker), or NULL */
	int fed_ply;           /* the ply its last move was fed at (-1: none waits) */
	int refused;           /* moves of this game the server refused */
	bool seen;
};

struct house_bot {
	struct conn *conn;
	struct client *cl;
	int level;
	bool dirty;   /* something was written to it: its games are looked at */
	bool refused; /* an error reply came: the move fed last was refused */
	struct house_game *games;
	/* offers to agree to (rematch, abort: what people press after or before a game), fed
	   by the next look at the games (never from inside a write) */
	struct {
		uint64_t game;
		const char *verb;
	} agree[HOUSE_AGREE_MAX];
	int nagree;
};

/* One turn to think. Owns st (the position copy) and mem (the memory's copy). */
struct house_job {
	uv_work_t w;
	struct house_job *next; /* h->queue */
	struct house *h;
	int level;
	uint64_t game;
	int ply;
	atomic_bool cancel;
	struct house_turn t;
	void *st;
	struct house_memory mem;
	char out[GAME_MOVE_TEXT];
	int rc;
};

/* The transport's state beside each bot's conn. */
struct house_conn {
	uv_timer_t closer; /* closing: conn_closed() from its close callback, a later pass */
	struct house *h;
	int level;
};

static long long mono_ms(void)
{
	return (long long)(uv_hrtime() / 1000000);
}

/* ---- the transport ------------------------------------------------------------------ */

static void on_kick(uv_timer_t *t);

static void kick(struct house *h)
{
	if (!h->stopping)
		uv_timer_start(&h->kick, on_kick, 0, 0);
}

static struct house_bot *bot_of_conn(struct conn *c)
{
	struct house_conn *hc = c->tdata;
	struct house_bot *b = hc->h->bots[hc->level - 1];
	return b != NULL && b->conn == c ? b : NULL;
}

/* An offer to bot's opponent's seat it agrees to (a rematch, an abort), noted for later. */
static void note_offer(struct house_bot *bot, const char *line)
{
	cJSON *j = cJSON_Parse(line);
	const char *what = cJSON_GetStringValue(cJSON_GetObjectItem(j, "what"));
	const char *event = cJSON_GetStringValue(cJSON_GetObjectItem(j, "event"));
	const cJSON *game = cJSON_GetObjectItem(j, "game");
	const char *verb = what == NULL                   ? NULL
	                   : strcmp(what, "rematch") == 0 ? "rematch"
	                   : strcmp(what, "abort") == 0   ? "abort"
	                                                  : NULL;
	const char *by = cJSON_GetStringValue(cJSON_GetObjectItem(j, "by"));
	if (verb != NULL && event != NULL && strcmp(event, "offer") == 0 && cJSON_IsNumber(game) &&
	    by != NULL && bot->cl != NULL && strcmp(by, bot->cl->name) != 0 &&
	    bot->nagree < HOUSE_AGREE_MAX) {
		bot->agree[bot->nagree].game = (uint64_t)game->valuedouble;
		bot->agree[bot->nagree++].verb = verb;
	}
	cJSON_Delete(j);
}

/* What the server writes to a bot is read at once and dropped; it only wakes the bot (and an
   offer it agrees to is noted). */
static int house_write(struct conn *c, struct outbuf *b)
{
	struct house_bot *bot = bot_of_conn(c);
	if (bot != NULL) {
		bot->dirty = true;
		static const char offer[] = "{\"type\":\"offer\",";
		if (strncmp(b->data, offer, sizeof offer - 1) == 0)
			note_offer(bot, b->data);
		if (strstr(b->data, "\"type\":\"error\"") != NULL) {
			bot->refused = true;
			log_warn("house bot refused user=%s line=%s", bot->cl ? bot->cl->name : "-",
			         LOG_Q(b->data));
		}
		kick(((struct house_conn *)c->tdata)->h);
	}
	conn_wrote(c, b, 0);
	return 0;
}

static size_t house_backlog(const struct conn *c)
{
	(void)c;
	return 0;
}

static void house_pause(struct conn *c)
{
	(void)c;
}

static int house_resume(struct conn *c)
{
	(void)c;
	return 0;
}

static void closer_closed(uv_handle_t *t)
{
	conn_closed(t->data);
}

static void job_cancel(struct house *h, struct house_job *j);

static void bot_free(struct house *h, struct house_bot *b)
{
	while (b->games != NULL) {
		struct house_game *hg = b->games;
		b->games = hg->next;
		if (hg->job != NULL)
			job_cancel(h, hg->job);
		free(hg);
	}
	free(b);
}

static void house_close(struct conn *c, bool graceful)
{
	(void)graceful;
	struct house_conn *hc = c->tdata;
	if (uv_is_closing((uv_handle_t *)&hc->closer))
		return;
	struct house_bot *b = bot_of_conn(c);
	if (b != NULL) {
		hc->h->bots[hc->level - 1] = NULL;
		bot_free(hc->h, b);
	}
	uv_close((uv_handle_t *)&hc->closer, closer_closed);
}

static const struct conn_transport house_transport = {.name = "house",
                                                      .no_address = true,
                                                      .write = house_write,
                                                      .backlog = house_backlog,
                                                      .pause = house_pause,
                                                      .resume = house_resume,
                                                      .close = house_close};

bool house_owns(const struct conn *c)
{
	return c->t == &house_transport;
}

/* ---- the bots -------------------------------------------------------------------------- */

struct client *house_bot(struct house *h, int level)
{
	if (h->stopping || level < 1 || level > HOUSE_LEVELS)
		return NULL;
	if (h->bots[level - 1] != NULL)
		return h->bots[level - 1]->cl;
	char name[PROTO_NAME_MAX + 1];
	snprintf(name, sizeof name, COMMANDS_COMPUTER "%d", level);
	if (lobby_find_user(h->lobby, name) != NULL) {
		log_warn("house bot not connected user=%s why=%s", name,
		         LOG_Q("the name is taken"));
		return NULL;
	}
	struct conn *c = conn_new(h->hub, &house_transport, sizeof(struct house_conn));
	struct house_bot *b = calloc(1, sizeof *b);
	if (c == NULL || b == NULL) {
		free(c); /* conn_new()'s one allocation, never opened */
		free(b);
		return NULL;
	}
	struct house_conn *hc = c->tdata;
	hc->h = h;
	hc->level = level;
	uv_timer_init(h->loop, &hc->closer);
	hc->closer.data = c;
	b->conn = c;
	b->level = level;
	h->bots[level - 1] = b;
	if (conn_open(c, "house") < 0) { /* the hub stops: the transport closes c itself */
		house_close(c, false);
		return NULL;
	}
	struct client *cl = client_of(c);
	if (h->bots[level - 1] != b || cl == NULL) /* closed on opening (out of memory) */
		return NULL;
	b->cl = cl;
	msg_set_json(cl, true);
	cl->seeks_off = true;
	cl->prefs.bot = true; /* shown as a bot (identity.h); a guest: its games are unrated */
	if (h->tokens[level - 1][0] == '\0') /* the same token each time: its seats come back */
		identity_token_new(h->tokens[level - 1]);
	memcpy(cl->token, h->tokens[level - 1], sizeof cl->token);
	lobby_login_checked(h->lobby, cl, NULL, name, false);
	return cl;
}

struct client *house_for_pool(void *ud, const struct game_ops *ops, double rating)
{
	/* 1500 (a new player) meets level 5; each 150 points a level more or less */
	int level = 5 + (int)((rating - 1500) / 150);
	level = level < 1 ? 1 : level > HOUSE_LEVELS ? HOUSE_LEVELS : level;
	if (house_level_of(ops, level) == NULL)
		return NULL;
	return house_bot(ud, level);
}

static struct house_game *game_rec(struct house_bot *b, uint64_t id)
{
	for (struct house_game *hg = b->games; hg != NULL; hg = hg->next)
		if (hg->id == id)
			return hg;
	struct house_game *hg = calloc(1, sizeof *hg);
	if (hg == NULL)
		return NULL;
	hg->id = id;
	hg->fed_ply = -1;
	hg->next = b->games;
	b->games = hg;
	return hg;
}

/* ---- thinking --------------------------------------------------------------------------- */

static void job_free(struct house_job *j)
{
	free(j->st);
	free(j);
}

static void think_work(uv_work_t *w)
{
	struct house_job *j = w->data;
	if (atomic_load(&j->cancel))
		j->rc = GAME_EOVER;
	else
		j->rc = house_think(&j->t, j->st, &j->mem, j->out, sizeof j->out);
}

/* Types "<verb> <game> <text>" for b, as its peer would. */
static void feed(struct house_bot *b, const char *verb, uint64_t id, const char *text)
{
	char line[GAME_MOVE_TEXT + 64];
	int n = snprintf(line, sizeof line, "%s %llu %s\n", verb, (unsigned long long)id, text);
	if (n > 0 && (size_t)n < sizeof line &&
	    conn_input_copy(b->conn, line, (size_t)n) < (size_t)n)
		log_error("house bot input full user=%s", b->cl->name);
}

static void start_next(struct house *h);

/* On the loop: the answer is played if it still fits the game. Frees j. */
static void think_done(uv_work_t *w, int status)
{
	struct house_job *j = w->data;
	struct house *h = j->h;
	h->thinking--;
	struct house_bot *b = h->stopping ? NULL : h->bots[j->level - 1];
	struct house_game *hg = NULL;
	if (b != NULL)
		for (hg = b->games; hg != NULL && hg->job != j; hg = hg->next)
			;
	if (hg != NULL)
		hg->job = NULL;
	struct game *g = hg != NULL ? session_find(h->sess, j->game) : NULL;
	bool fits = g != NULL && status == 0 && j->rc > 0 && !atomic_load(&j->cancel) &&
	            !session_over(g) && session_ply(g) == j->ply &&
	            session_seat_of(g, b->cl) == j->t.seat &&
	            (session_to_move(g) & (1u << j->t.seat)) &&
	            !(session_simultaneous(g) && session_acted(g, j->t.seat));
	if (fits) {
		hg->mem = j->mem;
		hg->fed_ply = j->ply;
		h->moves++;
		b->refused = false;
		feed(b, "move", j->game, j->out);
	} else {
		h->cancelled++;
		if (hg != NULL && j->rc <= 0 && !atomic_load(&j->cancel))
			log_warn("house bot found no move game=%llu rc=%d",
			         (unsigned long long)j->game, j->rc);
		if (b != NULL) /* look again: the turn may still be ours */
			b->dirty = true;
	}
	job_free(j);
	start_next(h);
	if (b != NULL)
		kick(h);
}

static void start_next(struct house *h)
{
	while (h->queue != NULL && h->thinking < HOUSE_THINKERS && !h->stopping) {
		struct house_job *j = h->queue;
		h->queue = j->next;
		if (h->queue == NULL)
			h->queue_tail = NULL;
		j->w.data = j;
		h->thinking++;
		if (uv_queue_work(h->loop, &j->w, think_work, think_done) != 0) {
			log_error("house bot could not queue a search game=%llu",
			          (unsigned long long)j->game);
			atomic_store(&j->cancel, true);
			think_done(&j->w, UV_ECANCELED); /* frees j, clears its game's pointer */
		}
	}
}

/* Cancels j: on a worker, it stops and its callback drops it; queued, it is freed now. */
static void job_cancel(struct house *h, struct house_job *j)
{
	atomic_store(&j->cancel, true);
	for (struct house_job **p = &h->queue; *p != NULL; p = &(*p)->next)
		if (*p == j) {
			*p = j->next;
			if (h->queue_tail == j) {
				h->queue_tail = NULL;
				for (struct house_job *q = h->queue; q != NULL; q = q->next)
					h->queue_tail = q;
			}
			h->cancelled++;
			job_free(j);
			return;
		}
}

/* A job for the seat of b in g, queued. */
static void think(struct house *h, struct house_bot *b, struct house_game *hg, struct game *g,
                  int seat)
{
	const struct game_ops *ops = session_ops(g);
	struct house_job *j = calloc(1, sizeof *j);
	void *st = j != NULL ? malloc(ops->state_size) : NULL;
	if (st == NULL) {
		free(j);
		return;
	}
	session_position(g, seat, st);
	j->h = h;
	j->level = b->level;
	j->game = hg->id;
	j->ply = session_ply(g);
	atomic_init(&j->cancel, false);
	j->st = st;
	j->mem = hg->mem;
	const struct seek_opts *so = session_opts(g);
	int64_t left[GAME_MAX_PLAYERS] = {0};
	uint64_t seed = randombytes_random() | (uint64_t)randombytes_random() << 32;
	if (so->timed)
		session_clock_left(g, left);
	j->t = (struct house_turn){.ops = ops,
	                           .level = b->level,
	                           .seat = seat,
	                           .seed = seed,
	                           .left_ms = so->timed ? (left[seat] > 0 ? left[seat] : 1) : 0,
	                           .inc_ms = so->inc_ms,
	                           .cancel = &j->cancel,
	                           .now_ms = mono_ms};
	hg->job = j;
	if (h->queue_tail != NULL)
		h->queue_tail->next = j;
	else
		h->queue = j;
	h->queue_tail = j;
	start_next(h);
}

/* Looks at b's games: starts the turns that are its to play, drops the games it left. */
static void bot_check(struct house *h, struct house_bot *b)
{
	b->dirty = false;
	for (int i = 0; i < b->nagree; i++)
		feed(b, b->agree[i].verb, b->agree[i].game, "");
	b->nagree = 0;
	bool refused = b->refused;
	b->refused = false;
	for (struct house_game *hg = b->games; hg != NULL; hg = hg->next)
		hg->seen = false;
	struct client *cl = b->cl;
	for (unsigned i = 0; cl != NULL && i < cl->ngames; i++) {
		struct game *g = cl->games[i];
		int seat = session_seat_of(g, cl);
		if (seat < 0 || session_over(g))
			continue;
		struct house_game *hg = game_rec(b, session_id(g));
		if (hg == NULL)
			continue;
		hg->seen = true;
		int ply = session_ply(g);
		if (hg->job != NULL) {
			if (hg->job->ply != ply)
				job_cancel(h, hg->job), hg->job = NULL;
			else
				continue;
		}
		if (!(session_to_move(g) & (1u << seat)) ||
		    (session_simultaneous(g) && session_acted(g, seat)))
			continue;
		if (hg->fed_ply == ply) { /* fed: it is on its way, or it was refused */
			if (!refused)
				continue;
			if (++hg->refused >= HOUSE_RETRIES) {
				feed(b, "resign", hg->id, "");
				continue;
			}
		}
		think(h, b, hg, g, seat);
	}
	for (struct house_game **p = &b->games; *p != NULL;) {
		struct house_game *hg = *p;
		if (hg->seen) {
			p = &hg->next;
			continue;
		}
		*p = hg->next;
		if (hg->job != NULL)
			job_cancel(h, hg->job);
		free(hg);
	}
}

static void on_kick(uv_timer_t *t)
{
	struct house *h = t->data;
	for (int i = 0; i < HOUSE_LEVELS && !h->stopping; i++)
		if (h->bots[i] != NULL && h->bots[i]->dirty)
			bot_check(h, h->bots[i]);
}

void house_init(struct house *h, uv_loop_t *loop, struct conn_hub *hub, struct lobby *lobby,
                struct sessions *sess)
{
	memset(h, 0, sizeof *h);
	h->loop = loop;
	h->hub = hub;
	h->lobby = lobby;
	h->sess = sess;
	uv_timer_init(loop, &h->kick);
	h->kick.data = h;
	h->started = true;
}

void house_stop(struct house *h)
{
	if (!h->started || h->stopping)
		return;
	for (int i = 0; i < HOUSE_LEVELS; i++)
		if (h->bots[i] != NULL)
			for (struct house_game *hg = h->bots[i]->games; hg != NULL; hg = hg->next)
				if (hg->job != NULL) {
					job_cancel(h, hg->job);
					hg->job = NULL;
				}
	h->stopping = true;
	uv_close((uv_handle_t *)&h->kick, NULL);
	/* the bots' connections close with every other (conn_hub_stop) */
}

/* ---- match computer ----------------------------------------------------------------------- */

/* Live games of c against the house, and of the house in all. */
static void count_games(struct house *h, const struct client *c, int *mine, int *all)
{
	*mine = *all = 0;
	for (int i = 0; i < HOUSE_LEVELS; i++) {
		const struct client *bc = h->bots[i] != NULL ? h->bots[i]->cl : NULL;
		for (unsigned k = 0; bc != NULL && k < bc->ngames; k++) {
			struct game *g = bc->games[k];
			if (session_over(g) || session_seat_of(g, bc) < 0)
				continue;
			(*all)++;
			*mine += session_seat_of(g, c) >= 0;
		}
	}
}

void house_match(struct house *h, struct client *c, const struct proto_req *rq)
{
	const struct game_ops *ops = rq->argc > 1 ? game_find(rq->argv[1]) : NULL;
	if (ops == NULL) {
		reply_err(
		        c, rq, ERR_UNKNOWN_GAME,
		        "match computer <kind> [opt=value ...] level=1-%d; 'games' lists the kinds",
		        HOUSE_LEVELS);
		return;
	}
	char *av[PROTO_MAX_ARGS];
	int ac = 0, level = 0;
	for (int i = 2; i < rq->argc; i++) {
		if (strncasecmp(rq->argv[i], "level=", 6) != 0) {
			av[ac++] = rq->argv[i];
			continue;
		}
		char *end;
		long v = strtol(rq->argv[i] + 6, &end, 10);
		level = *end == '\0' && v >= 1 && v <= HOUSE_LEVELS ? (int)v : -1;
	}
	if (level <= 0) {
		reply_err(c, rq, ERR_BAD_OPTION,
		          "level=N says how strong the computer plays: 1 to %d", HOUSE_LEVELS);
		return;
	}
	if (house_level_of(ops, level) == NULL || ops->nplayers != 2) {
		reply_err(c, rq, ERR_UNKNOWN_GAME, "the computer does not play %s", ops->name);
		return;
	}
	struct seek_opts so;
	char why[160];
	if (seek_opts_parse(ops, ac, av, &so, why, sizeof why) < 0) {
		reply_err(c, rq, ERR_BAD_OPTION, "%s", why);
		return;
	}
	so.rated = false; /* the house bots are guests: unrated, whatever was asked */
	int mine, all;
	count_games(h, c, &mine, &all);
	if (mine >= HOUSE_GAMES_PER_USER || all >= HOUSE_GAMES_MAX) {
		reply_err(c, rq, ERR_COMPUTER_BUSY,
		          mine >= HOUSE_GAMES_PER_USER
		                  ? "you play the computer in %d games already; finish one first"
		                  : "the computer plays %d games already; try again later",
		          mine >= HOUSE_GAMES_PER_USER ? mine : all);
		return;
	}
	struct client *bot = house_bot(h, level);
	if (bot == NULL) {
		reply_err(c, rq, ERR_INTERNAL, "the computer cannot play now");
		return;
	}
	int me = so.color >= 0 ? so.color : (int)randombytes_uniform(2);
	struct game_spec spec = {.ops = ops, .so = so};
	spec.seed = session_new_seed(ops, &spec.so.params);
	spec.names[me] = c->name;
	spec.clients[me] = c;
	spec.registered[me] = c->registered;
	spec.names[!me] = bot->name;
	spec.clients[!me] = bot;
	struct game *g = session_create(h->sess, &spec);
	if (g == NULL) {
		reply_err(c, rq, ERR_INTERNAL, "the game could not be started");
		return;
	}
	cJSON *f = cJSON_CreateObject();
	cJSON_AddNumberToObject(f, "game", (double)session_id(g));
	cJSON_AddStringToObject(f, "opponent", bot->name);
	cJSON_AddNumberToObject(f, "level", level);
	reply_ok(c, rq, f, NULL, "game %llu against %s (level %d, unrated)",
	         (unsigned long long)session_id(g), bot->name, level);
	session_begin(g);
}
