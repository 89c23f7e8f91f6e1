/*
 * check_ladder.c - the continuous ladder over real sockets (issue 22; events/ladder.h):
 * the real bitarenad and simple clients, each a bot's account on the ladder with
 * concurrency 2, that play every game the ladder starts for them (a seeded random legal move
 * whenever it is their turn) and keep count of what they see: games at once, the
 * opponents met, the colours of each pair. Games are played continuously; a member who
 * leaves in the middle plays its games on out and gets no new one; `ladder show` agrees
 * with what the clients saw; after a kill -9 in the middle, the ladder comes back with
 * its members and counts, its games in progress too, and pairing goes on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testserver.h"

#include "check_main.h"

#define NP    4
#define MAXON 64

struct player {
	struct ts_cli c;
	const char *name;
	unsigned seed;
	int on[MAXON]; /* its games on */
	int non, most; /* most: the most games on at once */
	int finished;
	int concurrency; /* its games at once on the ladder */
	bool left;       /* its leave was answered */
	bool away;       /* its connection is closed (not read) */
	int after_left;  /* games started after that */
};

struct field {
	struct ts_srv s;
	int n;
	struct player p[NP];
	int met[NP][NP];               /* [white][black]: games started */
	int seen[4096 + 1];            /* game id: 1 started, 2 over (each counted once) */
	signed char seat[4096 + 1][2]; /* game id: its white's and black's index */
};

static const char *const names[NP] = {"lad_ann", "lad_bob", "lad_cat", "lad_dan"};

static int index_of(const struct field *f, const char *name)
{
	for (int i = 0; i < f->n; i++)
		if (strcmp(f->p[i].name, name) == 0)
			return i;
	ck_abort_msg("no player %s", name);
	return -1;
}

static void drop_on(struct player *p, int game)
{
	for (int i = 0; i < p->non; i++)
		if (p->on[i] == game) {
			p->on[i] = p->on[--p->non];
			return;
		}
}

static bool is_on(const struct player *p, int game)
{
	for (int i = 0; i < p->non; i++)
		if (p->on[i] == game)
			return true;
	return false;
}

/* One line the server sent to player i. */
static void handle(struct field *f, int i, const cJSON *j)
{
	struct player *p = &f->p[i];
	const char *type = ts_jstr(j, "type");
	int game = cJSON_IsNumber(cJSON_GetObjectItem(j, "game")) ? ts_jint(j, "game") : 0;
	ck_assert_int_le(game, 4096);
	if (strcmp(type, "game_start") == 0) {
		if (!is_on(p, game)) {
			ck_assert_int_lt(p->non, MAXON);
			p->on[p->non++] = game;
			if (p->non > p->most)
				p->most = p->non;
			if (p->left && !cJSON_IsTrue(cJSON_GetObjectItem(j, "resumed")))
				p->after_left++;
		}
		if (f->seen[game] == 0) {
			const cJSON *pl = cJSON_GetObjectItem(j, "players");
			int w = index_of(f, cJSON_GetArrayItem(pl, 0)->valuestring);
			int b = index_of(f, cJSON_GetArrayItem(pl, 1)->valuestring);
			f->met[w][b]++;
			f->seen[game] = 1;
			f->seat[game][0] = (signed char)w;
			f->seat[game][1] = (signed char)b;
		}
	} else if (strcmp(type, "state") == 0) {
		const cJSON *legal = cJSON_GetObjectItem(j, "legal");
		if (cJSON_IsTrue(cJSON_GetObjectItem(j, "over")) || !cJSON_IsArray(legal) ||
		    cJSON_GetArraySize(legal) == 0)
			return;
		int k = (int)(rand_r(&p->seed) % (unsigned)cJSON_GetArraySize(legal));
		ts_send(&p->c, "move %d %s", game, cJSON_GetArrayItem(legal, k)->valuestring);
	} else if (strcmp(type, "game_over") == 0) {
		if (is_on(p, game)) {
			drop_on(p, game);
			p->finished++;
		}
		if (f->seen[game] == 1)
			f->seen[game] = 2;
	} else if (strcmp(type, "error") == 0 && strcmp(ts_jstr(j, "code"), "NOT_YOUR_TURN") != 0 &&
	           strcmp(ts_jstr(j, "code"), "GAME_OVER") != 0) {
		char *t = cJSON_PrintUnformatted(j);
		ck_abort_msg("%s got %s", p->name, t);
	}
}

/* Reads what every player has now and answers it; false when nothing came. */
static bool step(struct field *f)
{
	bool any = false;
	for (int i = 0; i < f->n; i++) {
		char *l;
		while (!f->p[i].away && net_read_line(&f->p[i].c.nc, 0, &l) >= 0) {
			cJSON *j = cJSON_Parse(l);
			if (j != NULL)
				handle(f, i, j);
			cJSON_Delete(j);
			any = true;
		}
	}
	return any;
}

static int over(const struct field *f)
{
	int k = 0;
	for (int g = 1; g <= 4096; g++)
		k += f->seen[g] == 2;
	return k;
}

/* Plays on until `games` games are over (at most a minute). */
static void play_until(struct field *f, int games)
{
	for (int idle = 0; over(f) < games; idle++) {
		if (step(f))
			idle = 0;
		else
			ts_msleep(2);
		ck_assert_msg(idle < 30000, "no news for a minute: %d game(s) over", over(f));
	}
}

static void member(struct field *f, int i)
{
	struct player *p = &f->p[i];
	ts_send(&p->c, "ladder join ttt concurrency=%d", p->concurrency);
}

/*
 * The store refuses a game of a ladder member that no stored ladder names: the document
 * naming a game must reach the store first (pair_ladder()), or a crash between the two
 * leaves a game played outside the ladder (a kill -9 in test_kill9_brings_the_ladder_back
 * found one: 21 games started, 20 counted). Without that order the ladder's first game
 * never starts here (its write is refused).
 */
static const char named_first[] =
        "CREATE TRIGGER named_first BEFORE INSERT ON games WHEN EXISTS ("
        " SELECT 1 FROM ladders, json_each(ladders.doc, '$.members') m"
        " WHERE json_extract(m.value, '$.name') = NEW.player0) AND NOT EXISTS ("
        " SELECT 1 FROM ladders, json_each(ladders.doc, '$.on') e"
        " WHERE json_extract(e.value, '$[0]') = NEW.id)"
        " BEGIN SELECT RAISE(ABORT, 'a game stored before its ladder names it'); END";

/* n members on the ladder, each with concurrency 2 but the last, with last_concurrency. */
static void field_up_with(struct field *f, int n, int last_concurrency)
{
	memset(f, 0, sizeof *f);
	f->n = n;
	ts_up(&f->s, NULL, 0);
	ts_store_sql(&f->s, named_first);
	for (int i = 0; i < n; i++) {
		f->p[i].name = names[i];
		f->p[i].seed = 17u + (unsigned)i;
		f->p[i].concurrency = i == n - 1 ? last_concurrency : 2;
		ts_register(&f->p[i].c, f->s.port, names[i], "password1 bot"); /* bots' accounts */
		member(f, i);
		cJSON_Delete(ts_untilf(&f->p[i].c,
		                       "{\"type\":\"ok\",\"cmd\":\"ladder\",\"concurrency\":%d}",
		                       f->p[i].concurrency));
	}
}

static void field_up(struct field *f, int n)
{
	field_up_with(f, n, 2);
}

/* `ladder show ttt` as player i sees it: the one ladder. */
static cJSON *show(struct field *f, int i)
{
	ts_send(&f->p[i].c, "ladder show ttt");
	for (;;) { /* the games go on meanwhile */
		char *l = ts_line(&f->p[i].c);
		ck_assert_ptr_nonnull(l);
		cJSON *j = cJSON_Parse(l);
		free(l);
		ck_assert_ptr_nonnull(j);
		if (strcmp(ts_jstr(j, "type"), "ok") == 0 &&
		    strcmp(ts_jstr(j, "cmd"), "ladder") == 0)
			return j;
		handle(f, i, j);
		cJSON_Delete(j);
	}
}

static const cJSON *member_row(const cJSON *sh, const char *name)
{
	const cJSON *l = cJSON_GetArrayItem(cJSON_GetObjectItem(sh, "ladders"), 0);
	const cJSON *m;
	cJSON_ArrayForEach(m, cJSON_GetObjectItem(l, "members")) if (strcmp(ts_jstr(m, "name"),
	                                                                    name) == 0) return m;
	return NULL;
}

/* Every pair of the first n met, colours within one per pair (games started). */
static void check_pairs(const struct field *f, int n)
{
	for (int a = 0; a < n; a++)
		for (int b = a + 1; b < n; b++) {
			int ab = f->met[a][b], ba = f->met[b][a];
			ck_assert_msg(ab + ba > 0, "%s and %s never met", names[a], names[b]);
			ck_assert_msg(abs(ab - ba) <= 1, "%s - %s: %d white, %d black", names[a],
			              names[b], ab, ba);
		}
}

START_TEST(test_continuous_and_leave)
{
	struct field *f = calloc(1, sizeof *f);
	field_up(f, NP);
	play_until(f, 60);
	check_pairs(f, NP);
	for (int i = 0; i < NP; i++)
		ck_assert_int_le(f->p[i].most, 2);
	/* ann leaves with games on: they are played out, no new one starts */
	ts_send(&f->p[0].c, "ladder leave");
	for (;;) {
		char *l = ts_line(&f->p[0].c);
		ck_assert_ptr_nonnull(l);
		cJSON *j = cJSON_Parse(l);
		free(l);
		if (strcmp(ts_jstr(j, "type"), "ok") == 0 &&
		    strcmp(ts_jstr(j, "cmd"), "ladder") == 0) {
			ck_assert_int_eq(ts_jint(j, "running"), f->p[0].non);
			cJSON_Delete(j);
			break;
		}
		handle(f, 0, j);
		cJSON_Delete(j);
	}
	f->p[0].left = true;
	int ann_on = f->p[0].non, ann_done = f->p[0].finished;
	play_until(f, over(f) + 30);
	ck_assert_int_eq(f->p[0].after_left, 0);
	ck_assert_int_eq(f->p[0].non, 0);
	ck_assert_int_eq(f->p[0].finished, ann_done + ann_on);
	ts_send(&f->p[0].c, "ladder leave");
	ts_until0(&f->p[0].c, "{\"type\":\"error\",\"code\":\"NOT_ON_LADDER\"}");
	/* what the ladder shows is what the players saw */
	cJSON *sh = show(f, 1);
	ck_assert_ptr_null(member_row(sh, names[0])); /* left */
	for (int i = 1; i < NP; i++) {
		const cJSON *m = member_row(sh, names[i]);
		ck_assert_ptr_nonnull(m);
		ck_assert_int_eq(ts_jint(m, "concurrency"), 2);
		ck_assert_int_eq(ts_jint(m, "wins") + ts_jint(m, "draws") + ts_jint(m, "losses"),
		                 ts_jint(m, "games"));
		ck_assert_int_ge(ts_jint(m, "games"), f->p[i].finished - 2);
		ck_assert_int_le(ts_jint(m, "games"), f->p[i].finished + 2);
		ck_assert(cJSON_IsNumber(cJSON_GetObjectItem(m, "rating")));
	}
	cJSON_Delete(sh);
	/* their ratings apart: the bots' list has them, and not a person's rated game */
	struct ts_cli h[2];
	ts_register(&h[0], f->s.port, "lad_hum", "password1");
	ts_register(&h[1], f->s.port, "lad_hem", "password1");
	int hg = ts_begin_game(&h[0], &h[1], "ttt rated=1");
	cJSON_Delete(ts_play(&h[0], &h[1], hg, "b2"));
	ts_send(&h[1], "resign %d", hg);
	ts_until0(&h[1], "{\"type\":\"ok\",\"cmd\":\"resign\"}");
	ts_until0(&h[0], "{\"type\":\"game_over\"}");
	ts_send(&h[0], "ratings ttt");
	cJSON *all = ts_until(&h[0], "{\"type\":\"ok\",\"cmd\":\"ratings\"}");
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(all, "ratings")), NP + 2);
	cJSON_Delete(all);
	ts_send(&h[0], "ratings ttt bots");
	cJSON *rt = ts_until(&h[0], "{\"type\":\"ok\",\"cmd\":\"ratings\",\"bots\":true}");
	const cJSON *row;
	int bots = 0;
	cJSON_ArrayForEach(row, cJSON_GetObjectItem(rt, "ratings"))
	{
		index_of(f, ts_jstr(row, "name")); /* one of the ladder's bots */
		bots++;
	}
	ck_assert_int_eq(bots, NP);
	cJSON_Delete(rt);
	ts_send(&h[0], "ratings ttt robots");
	ts_expect_err(&h[0], "BAD_ARGS");
	ts_close(&h[0]);
	ts_close(&h[1]);
	/* ann comes back: paired again */
	member(f, 0);
	f->p[0].left = false;
	int before = f->p[0].finished;
	for (int idle = 0; f->p[0].finished < before + 2; idle++) {
		if (!step(f))
			ts_msleep(2);
		ck_assert(idle < 30000);
	}
	for (int i = 0; i < NP; i++)
		ts_close(&f->p[i].c);
	ts_down(&f->s);
	free(f);
}
END_TEST

START_TEST(test_refusals)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	struct ts_cli g, a;
	ts_join(&g, s.port, "lad_guest");
	ts_send(&g, "ladder join ttt");
	ts_expect_err(&g, "RATED_NEEDS_ACCOUNT");
	ts_register(&a, s.port, "lad_acct", "password1");
	ts_send(&a, "ladder leave");
	ts_expect_err(&a, "NOT_ON_LADDER");
	ts_send(&a, "ladder join chess");
	ts_expect_err(&a, "UNKNOWN_GAME");
	ts_send(&a, "ladder join ttt concurrency=2"); /* a person plays one game at a time */
	ts_expect_err(&a, "BAD_OPTION");
	struct ts_cli b;
	ts_register(&b, s.port, "lad_robo", "password1 bot");
	ts_send(&b, "ladder join ttt concurrency=17");
	ts_expect_err(&b, "BAD_OPTION");
	ts_send(&b, "ladder join ttt concurrency=16");
	cJSON_Delete(ts_expect(&b, "{\"type\":\"ok\",\"cmd\":\"ladder\",\"concurrency\":16}"));
	ts_send(&b, "ladder leave");
	cJSON_Delete(ts_expect(&b, "{\"type\":\"ok\",\"cmd\":\"ladder\",\"left\":1}"));
	ts_send(&a, "ladder join ttt color=white");
	ts_expect_err(&a, "BAD_OPTION");
	ts_send(&a, "ladder join tak size=5 time=1+0");
	cJSON *j1 = ts_expect(&a, "{\"type\":\"ok\",\"cmd\":\"ladder\",\"kind\":\"tak\"}");
	/* the same ladder, joined again (a bot after a reconnect): the same answer */
	ts_send(&a, "ladder join tak time=1+0 size=5");
	cJSON *j2 = ts_expect(&a, "{\"type\":\"ok\",\"cmd\":\"ladder\",\"concurrency\":1}");
	ck_assert_int_eq(ts_jint(j1, "ladder"), ts_jint(j2, "ladder"));
	cJSON_Delete(j1);
	cJSON_Delete(j2);
	ts_send(&a, "ladder show tak");
	cJSON *sh = ts_expect(&a, "{\"type\":\"ok\",\"cmd\":\"ladder\"}");
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(sh, "ladders")), 1);
	cJSON_Delete(sh);
	ts_close(&g);
	ts_close(&a);
	ts_close(&b);
	ts_down(&s);
}
END_TEST

/* Games i played of those the clients saw start (each once, whatever restarts came). */
static int started_with(const struct field *f, int i)
{
	int k = 0;
	for (int g = 1; g <= 4096; g++)
		k += f->seen[g] != 0 && (f->seat[g][0] == i || f->seat[g][1] == i);
	return k;
}

/*
 * Everyone leaves; the games on are played out. Then each member in turn joins again, alone
 * (nobody to meet), and `ladder show` counts for it exactly the games its clients saw start
 * (none counted twice, none lost: a game_start goes out only once the game is stored), its
 * W/D/L adds up; it leaves again.
 */
static void leave_and_count(struct field *f)
{
	for (int i = 0; i < f->n; i++)
		ts_send(&f->p[i].c, "ladder leave");
	for (int tries = 0;; tries++) {
		for (int k = 0; k < 200; k++)
			if (!step(f))
				ts_msleep(2);
		cJSON *sh = show(f, 0);
		const cJSON *l = cJSON_GetArrayItem(cJSON_GetObjectItem(sh, "ladders"), 0);
		bool on = cJSON_GetArraySize(cJSON_GetObjectItem(l, "on")) > 0;
		cJSON_Delete(sh);
		if (on) {
			ck_assert_msg(tries < 300, "the ladder's games are not over");
			continue;
		}
		break;
	}
	for (int i = 0; i < f->n; i++) {
		member(f, i);
		cJSON_Delete(ts_until(&f->p[i].c, "{\"type\":\"ok\",\"cmd\":\"ladder\"}"));
		cJSON *sh = show(f, i);
		const cJSON *m = member_row(sh, names[i]);
		ck_assert_ptr_nonnull(m);
		int games = ts_jint(m, "games");
		ck_assert_msg(games == started_with(f, i), "%s: %d games counted, %d started",
		              names[i], games, started_with(f, i));
		ck_assert_int_eq(ts_jint(m, "wins") + ts_jint(m, "draws") + ts_jint(m, "losses"),
		                 games);
		ck_assert_int_eq(ts_jint(m, "running"), 0);
		cJSON_Delete(sh);
		ts_send(&f->p[i].c, "ladder leave");
		cJSON_Delete(ts_until(&f->p[i].c, "{\"type\":\"ok\",\"cmd\":\"ladder\"}"));
	}
}

START_TEST(test_kill9_brings_the_ladder_back)
{
	struct field *f = calloc(1, sizeof *f);
	field_up(f, 3);
	play_until(f, 12);
	int done = over(f); /* games over at the kill (others on, most likely) */
	ts_kill9(&f->s);
	for (int i = 0; i < f->n; i++)
		ts_close(&f->p[i].c);
	ts_start(&f->s, f->s.datadir, NULL, 0);
	/* nobody has joined again: the ladder is back from the store */
	struct ts_cli v;
	ts_join(&v, f->s.port, "lad_viewer");
	ts_send(&v, "ladder show");
	cJSON *sh = ts_expect(&v, "{\"type\":\"ok\",\"cmd\":\"ladder\"}");
	int games = 0;
	for (int i = 0; i < f->n; i++) {
		const cJSON *m = member_row(sh, names[i]);
		ck_assert_ptr_nonnull(m);
		ck_assert_int_eq(ts_jint(m, "concurrency"), 2);
		games += ts_jint(m, "games");
	}
	ck_assert_int_ge(games, 2 * done); /* every game over was counted */
	cJSON_Delete(sh);
	ts_close(&v);
	/* the members log in again: their games come back, and new ones start */
	for (int i = 0; i < f->n; i++) {
		f->p[i].non = 0;
		ts_connect_json(&f->p[i].c, f->s.port);
		ts_send(&f->p[i].c, "login %s password1", names[i]);
	}
	int before = over(f);
	play_until(f, before + 15);
	check_pairs(f, 3);
	leave_and_count(f);
	for (int i = 0; i < f->n; i++)
		ts_close(&f->p[i].c);
	ts_down(&f->s);
	free(f);
}
END_TEST

/* Plays on until player i has started more than `games` games (at most a minute). */
static void play_until_started(struct field *f, int i, int games)
{
	for (int idle = 0; started_with(f, i) <= games; idle++) {
		if (step(f))
			idle = 0;
		else
			ts_msleep(2);
		ck_assert_msg(idle < 30000, "%s got no new game for a minute", names[i]);
	}
}

/* Member i's games on the ladder, over and on, as `ladder show` has them (asked by player
   0); -1 while the server still has i online. */
static int games_if_away(struct field *f, int i)
{
	cJSON *sh = show(f, 0);
	const cJSON *m = member_row(sh, names[i]);
	ck_assert_ptr_nonnull(m);
	int k = cJSON_IsTrue(cJSON_GetObjectItem(m, "online"))
	                ? -1
	                : ts_jint(m, "games") + ts_jint(m, "running");
	cJSON_Delete(sh);
	return k;
}

/* A member who disconnects in the middle gets no new game while away (its games on wait
   for it, as any game's do), the others play on with each other, and it is paired again
   as soon as it logs in. It plays one game at a time: with two, both of a member's slots
   could hold games against it, waiting for it through the grace (120 s), and nobody would
   be left to play on (a CI run). */
START_TEST(test_disconnect_in_the_middle)
{
	struct field *f = calloc(1, sizeof *f);
	field_up_with(f, 3, 1);
	play_until(f, 6);
	struct player *cat = &f->p[2];
	ts_close(&cat->c);
	cat->away = true;
	cat->non = 0;
	int had; /* once the server knows it gone: a game paired before may still start */
	for (int tries = 0; (had = games_if_away(f, 2)) < 0; tries++) {
		ck_assert_msg(tries < 1000, "lad_cat is still online");
		step(f);
		ts_msleep(5);
	}
	int ab = f->met[0][1] + f->met[1][0];
	play_until(f, over(f) + 8);
	int now = games_if_away(f, 2);
	ck_assert_msg(now >= 0 && now <= had, "lad_cat: %d games while away, %d before", now, had);
	ck_assert_int_gt(f->met[0][1] + f->met[1][0], ab);
	had = started_with(f, 2);
	ts_connect_json(&cat->c, f->s.port);
	ts_send(&cat->c, "login %s password1", names[2]);
	cat->away = false;
	play_until_started(f, 2, had);
	for (int i = 0; i < f->n; i++)
		ts_close(&f->p[i].c);
	ts_down(&f->s);
	free(f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ladder");
	TCase *tc = tcase_create("ladder");
	tcase_set_timeout(tc, 240);
	tcase_add_test(tc, test_refusals);
	tcase_add_test(tc, test_continuous_and_leave);
	tcase_add_test(tc, test_kill9_brings_the_ladder_back);
	tcase_add_test(tc, test_disconnect_in_the_middle);
	suite_add_tcase(s, tc);
	return check_run(s);
}
