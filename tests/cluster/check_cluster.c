/*
 * check_cluster.c - bitarenad on PostgreSQL and in cluster mode, on real
 * servers the suite starts itself: a throw-away PostgreSQL (pgtest.h) and a
 * redis-server (redistest.h), each case on a fresh schema and an empty
 * Redis.
 *
 * One node on PostgreSQL (--db): a game played to its end and read back
 * (record, history); kill -9 of the server mid-game and every acknowledged
 * move back at the restart, the guests' seats only with their tokens (kept
 * as hashes); PostgreSQL stopped and started under the server (its clients
 * told, nothing acknowledged lost, service back by itself).
 *
 * Three nodes (--cluster --db --node): players on two nodes play while
 * spectators on the third watch (every state in order, chat both ways, the
 * same seeks, who and list everywhere); the game's node killed with kill -9
 * mid-game, the game going on at another node with every acknowledged move,
 * its players back (the remote one at once, the local one by logging in
 * with its token on the new owner); two guests' game taken over by another node,
 * their seats back there only with their tokens; guests of a game coming back
 * through the node that does not run it, and a guest seated from another
 * node coming back to the game's node, only with their tokens; Redis killed and started
 * again while games run (moves between nodes refused meanwhile with
 * CLUSTER_DOWN, games of one node going on, everything back by itself,
 * every acknowledged move stored); the limits of a node for clients of
 * another (the per-address limit counts them at their own node only, a
 * remote player's moves cost nothing, as a local one's); the game's node
 * paused (SIGSTOP) until another takes the game over, a move sent to it
 * meanwhile never acknowledged unless stored, and its player moved to the
 * new owner on the same connection; an account whose node died logging in on another node
 * before the takeover, seated by the takeover; the paused owner answering nothing from a game taken
 * over meanwhile (what was asked of it waits for its heartbeat); the game's node cut off from
 * Redis by a partition that delays its bytes as the game starts, its late SET of the game's
 * owner not undoing the takeover; the game's node killed and started
 * again at once under its name, the player of another node back in the
 * game without a word and playing on; a player of another node logging out
 * and someone else logging in on its connection, the game's node forgetting
 * the old identity; an account playing through another node logging in on a
 * third node, and then on the game's node, its seat following each login; tell
 * and match to a user of another node (a challenge declined, withdrawn and
 * accepted across nodes); --http on two nodes: the page's WebSocket playing a
 * game of the other node, the records read on any node, the live lists the
 * node's own; the playtak port of two nodes: their guests' names apart, a
 * playtak seek accepted from another node and played. The events (case "events"): a
 * round-robin with players and subscribers on two nodes, created and started through the node
 * that does not run it, played to its end; the events' node killed in the middle of a round,
 * another node taking the tournament over with its game in progress and playing it to its
 * end; a ladder with members on two nodes pairing them game after game, colours alternating;
 * two guests on two nodes paired by a pool.
 */
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "holdproxy.h"
#include "pgtest.h"
#include "redistest.h"
#include "wsclient.h"
#include "server/cluster/cluster.h"
#include "testserver.h"
#include "check_main.h"

#define BEAT_MS  "300" /* --cluster-beat-ms: a dead node is noticed within about a second */
#define GAP_MS   1500  /* test_owner_killed: how long bob thinks before the kill */
#define INFLIGHT 4     /* test_redis_restart: games with a move on its way when Redis dies */

static struct pgtest pg;    /* the case's servers, made in the runner */
static struct redistest rd; /* (cluster cases only) */
static char schema[64], uri[512], redis_uri[64];

static void pg_up(void)
{
	ck_assert(pgtest_start(&pg));
}

static void pg_down(void)
{
	pgtest_down(&pg);
}

static void both_up(void)
{
	ck_assert(pgtest_start(&pg));
	ck_assert(redistest_start(&rd));
}

static void both_down(void)
{
	redistest_down(&rd);
	pgtest_down(&pg);
}

/* Every test: a fresh schema, an empty Redis, the servers running. */
static void setup(void)
{
	if (!pg.running)
		ck_assert(pgtest_restart(&pg));
	pgtest_schema(&pg, schema, sizeof schema);
	pgtest_uri(&pg, schema, uri, sizeof uri);
	if (rd.up) {
		if (!rd.running)
			ck_assert(redistest_restart(&rd));
		char out[64];
		ck_assert(redistest_cmd(&rd, "FLUSHALL\r\n", out, sizeof out));
		redistest_uri(&rd, redis_uri, sizeof redis_uri);
	}
}

/* Node name of the cluster on the test's schema, with nmore options more. */
static void up_node(struct ts_srv *s, const char *name, const char *const *more, int nmore)
{
	const char *argv[16] = {"--db",       uri,    "--cluster",         redis_uri,
	                        "--node",     name,   "--cluster-beat-ms", BEAT_MS,
	                        "--grace-ms", "60000"};
	int n = 10;
	ck_assert_int_le(n + nmore, 16);
	for (int i = 0; i < nmore; i++)
		argv[n++] = more[i];
	ts_up(s, argv, n);
}

/* A server on the test's schema (one node, or node `name` of the cluster). */
static void up(struct ts_srv *s, const char *name)
{
	const char *single[] = {"--db", uri, "--grace-ms", "60000"};
	if (name == NULL)
		ts_up(s, single, 4);
	else
		up_node(s, name, NULL, 0);
}

/* Node name with --login-limit 1: a second failed login of a name from one address is throttled. */
static void up_strict(struct ts_srv *s, const char *name)
{
	const char *more[] = {"--login-limit", "1"};
	up_node(s, name, more, 2);
}

/* The stored moves of game id, as "m1 m2 ..." (a query of its own on the schema). */
static void stored_moves(int id, char *out, size_t size, char *status, size_t ssize)
{
	PGconn *c = pgtest_connect(&pg, schema);
	char sql[256];
	snprintf(sql, sizeof sql,
	         "SELECT string_agg(move, ' ' ORDER BY ply) FROM moves WHERE game = %d", id);
	PGresult *r = PQexec(c, sql);
	ck_assert_int_eq(PQresultStatus(r), PGRES_TUPLES_OK);
	snprintf(out, size, "%s", PQgetvalue(r, 0, 0));
	PQclear(r);
	snprintf(sql, sizeof sql, "SELECT status FROM games WHERE id = %d", id);
	r = PQexec(c, sql);
	ck_assert_int_eq(PQntuples(r), 1);
	snprintf(status, ssize, "%s", PQgetvalue(r, 0, 0));
	PQclear(r);
	PQfinish(c);
}

/* Game id is stored with these moves, in this status. */
static void assert_stored(int id, const char *moves, const char *status)
{
	char m[256], st[32];
	stored_moves(id, m, sizeof m, st, sizeof st);
	ck_assert_str_eq(m, moves);
	ck_assert_str_eq(st, status);
}

/* The games rows that hold text (a guest's token) in any column: the store keeps hashes. */
static int token_rows(const char *text)
{
	PGconn *c = pgtest_connect(&pg, schema);
	const char *v[1] = {text};
	PGresult *r = PQexecParams(c, "SELECT count(*) FROM games g WHERE strpos(g::text, $1) > 0",
	                           1, NULL, v, NULL, NULL, 0);
	ck_assert_int_eq(PQresultStatus(r), PGRES_TUPLES_OK);
	int n = atoi(PQgetvalue(r, 0, 0));
	PQclear(r);
	PQfinish(c);
	return n;
}

/* mover plays mv in game id; everyone in watchers[] (players, spectators) gets the state. */
static void play(struct ts_cli *mover, int id, const char *mv, struct ts_cli **others, int n,
                 int seq)
{
	ts_send(mover, "move %d %s", id, mv);
	cJSON_Delete(ts_untilf(mover, "{\"type\":\"ok\",\"cmd\":\"move\",\"move\":\"%s\"}", mv));
	cJSON_Delete(ts_untilf(mover, "{\"type\":\"state\",\"game\":%d,\"seq\":%d}", id, seq));
	for (int i = 0; i < n; i++)
		cJSON_Delete(ts_untilf(others[i],
		                       "{\"type\":\"state\",\"game\":%d,\"seq\":%d,"
		                       "\"last_move\":\"%s\"}",
		                       id, seq, mv));
}

/* Seat's time left in state st (ms; its "clocks" array). */
static long clock_left(const cJSON *st, int seat)
{
	cJSON *cl = cJSON_GetObjectItem(st, "clocks");
	ck_assert(cJSON_IsArray(cl));
	return (long)cJSON_GetNumberValue(cJSON_GetArrayItem(cl, seat));
}

/* A game of e and f once both have heard of the previous one's seek gone. */
static int begin_after(struct ts_cli *e, struct ts_cli *f)
{
	ts_until0(e, "{\"type\":\"seek\",\"event\":\"gone\"}");
	ts_until0(f, "{\"type\":\"seek\",\"event\":\"gone\"}");
	return ts_begin_game(e, f, "ttt");
}

/*
 * c's move mv in game id, tried until it is played, as a client does after
 * an answer whose outcome it does not know (CLUSTER_DOWN, NODE_GONE) or a
 * refusal (INTERNAL); sent: the first try is on its way already. True when
 * acknowledged, false when found played already (NOT_YOUR_TURN).
 */
static bool move_until_played(struct ts_cli *c, int id, const char *mv, bool sent)
{
	for (int tries = 0; tries < 100; tries++) {
		if (tries > 0)
			ts_msleep(100);
		if (tries > 0 || !sent)
			ts_send(c, "move %d %s", id, mv);
		/* a forward whose answer the bus lost is answered NODE_GONE once its deadline
		   (CLUSTER_FORWARD_MS, 10 s) has passed, at the next beat: a line's usual wait
		   (also 10 s) raced it and lost now and then (a CI run) */
		cJSON *r = ts_until_within(c, "{\"cmd\":\"move\"}", CLUSTER_FORWARD_MS + 5000);
		const char *code = cJSON_GetStringValue(cJSON_GetObjectItem(r, "code"));
		bool acked = strcmp(ts_jstr(r, "type"), "ok") == 0;
		bool played = code != NULL && strcmp(code, "NOT_YOUR_TURN") == 0;
		ck_assert_msg(acked || played || strcmp(code, "CLUSTER_DOWN") == 0 ||
		                      strcmp(code, "NODE_GONE") == 0 ||
		                      strcmp(code, "INTERNAL") == 0,
		              "move %s in game %d: %s", mv, id, code);
		cJSON_Delete(r);
		if (acked || played)
			return acked;
	}
	ck_abort_msg("move %s in game %d was never played", mv, id);
	return false;
}

/* ---- one node on PostgreSQL ----------------------------------------------------------------- */

START_TEST(test_pg_game)
{
	struct ts_srv s;
	up(&s, NULL);
	struct ts_cli a, b;
	ts_register(&a, s.port, "Alice", "password1");
	ts_register(&b, s.port, "Bob", "password2");
	int id = ts_start_game(&a, &b, "ttt", NULL);
	struct ts_cli *to_b[] = {&b}, *to_a[] = {&a};
	play(&a, id, "a1", to_b, 1, 2);
	play(&b, id, "a2", to_a, 1, 3);
	play(&a, id, "b2", to_b, 1, 4);
	play(&b, id, "a3", to_a, 1, 5);
	play(&a, id, "c3", to_b, 1, 6);
	ts_until0(&a, "{\"type\":\"game_over\",\"result\":{\"winner\":0,\"reason\":\"line\"}}");
	ts_until0(&b, "{\"type\":\"game_over\",\"result\":{\"winner\":0}}");
	char moves[256], status[32];
	stored_moves(id, moves, sizeof moves, status, sizeof status);
	ck_assert_str_eq(moves, "a1 a2 b2 a3 c3");
	ck_assert_str_eq(status, "finished");
	/* the read verbs answer from PostgreSQL through the readers */
	ts_send(&a, "history bob");
	cJSON *h = ts_until(&a, "{\"type\":\"ok\",\"cmd\":\"history\"}");
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(h, "games")), 1);
	cJSON_Delete(h);
	ts_send(&a, "record %d", id);
	ts_until0(&a, "{\"type\":\"ok\",\"cmd\":\"record\"}");
	ts_close(&a);
	ts_close(&b);
	ts_down(&s);
}
END_TEST

/* kill -9 mid-game: every acknowledged move is back at the restart, and the game goes on. */
START_TEST(test_pg_kill9)
{
	struct ts_srv s;
	up(&s, NULL);
	struct ts_cli a, b;
	ts_join(&a, s.port, "ann");
	ts_join(&b, s.port, "ben");
	int id = ts_start_game(&a, &b, "ttt", NULL);
	struct ts_cli *to_b[] = {&b}, *to_a[] = {&a};
	play(&a, id, "a1", to_b, 1, 2);
	play(&b, id, "a2", to_a, 1, 3);
	play(&a, id, "b2", to_b, 1, 4);
	ts_kill9(&s);
	tmpdir_remove(s.datadir);
	ts_close(&a);
	ts_close(&b);
	up(&s, NULL); /* the same database */
	/* the guests' seats come back only with their tokens, kept as hashes in PostgreSQL */
	struct ts_cli x;
	ts_connect_json(&x, s.port);
	ts_send(&x, "login ann");
	ts_expect_err(&x, "NAME_TAKEN");
	ts_send(&x, "login ben %s", a.token);
	ts_expect_err(&x, "BAD_LOGIN");
	ts_close(&x);
	ck_assert_int_eq(token_rows(a.token), 0);
	ck_assert_int_eq(token_rows(b.token), 0);
	ts_rejoin(&a, s.port, "ann");
	ts_rejoin(&b, s.port, "ben");
	cJSON_Delete(ts_untilf(&a, "{\"type\":\"state\",\"game\":%d,\"ply\":3}", id));
	cJSON_Delete(ts_untilf(&b, "{\"type\":\"state\",\"game\":%d,\"ply\":3}", id));
	play(&b, id, "a3", to_a, 1, 5);
	play(&a, id, "c3", to_b, 1, 6);
	ts_until0(&a, "{\"type\":\"game_over\",\"result\":{\"winner\":0}}");
	char moves[256], status[32];
	stored_moves(id, moves, sizeof moves, status, sizeof status);
	ck_assert_str_eq(moves, "a1 a2 b2 a3 c3");
	ck_assert_str_eq(status, "finished");
	ts_close(&a);
	ts_close(&b);
	ts_down(&s);
}
END_TEST

/*
 * PostgreSQL stopped under the server (as a crash) and started again: the
 * move that meets it waits (its players told store_failing), new moves are
 * refused meanwhile, and once it is back the move is acknowledged, the
 * game goes on, and everything acknowledged is stored.
 */
START_TEST(test_pg_down_and_back)
{
	struct ts_srv s;
	up(&s, NULL);
	struct ts_cli a, b, w;
	ts_join(&a, s.port, "ann");
	ts_join(&b, s.port, "ben");
	int id = ts_start_game(&a, &b, "ttt", NULL);
	ts_join(&w, s.port, "wes");
	ts_send(&w, "watch %d", id);
	ts_until0(&w, "{\"type\":\"state\",\"seq\":1}");
	struct ts_cli *to_bw[] = {&b, &w};
	play(&a, id, "a1", to_bw, 2, 2);
	pgtest_stop(&pg, "immediate");
	ts_send(&b, "move %d a2", id);
	cJSON_Delete(
	        ts_untilf(&b, "{\"type\":\"info\",\"event\":\"store_failing\",\"game\":%d}", id));
	cJSON_Delete(
	        ts_untilf(&a, "{\"type\":\"info\",\"event\":\"store_failing\",\"game\":%d}", id));
	ts_until0(&w, "{\"type\":\"info\",\"event\":\"store_failing\"}");
	struct ts_cli x; /* the server answers others meanwhile */
	ts_connect_json(&x, s.port);
	ts_send(&x, "ping");
	ts_until0(&x, "{\"type\":\"pong\"}");
	ts_close(&x);
	ck_assert(pgtest_restart(&pg));
	cJSON_Delete(ts_untilf(&b, "{\"type\":\"ok\",\"cmd\":\"move\",\"move\":\"a2\"}"));
	cJSON_Delete(ts_untilf(&a, "{\"type\":\"state\",\"game\":%d,\"last_move\":\"a2\"}", id));
	ts_until0(&w, "{\"type\":\"state\",\"last_move\":\"a2\"}");
	ts_send(&a, "move %d b2", id);
	cJSON_Delete(ts_until(&a, "{\"type\":\"ok\",\"cmd\":\"move\",\"move\":\"b2\"}"));
	char moves[256], status[32];
	stored_moves(id, moves, sizeof moves, status, sizeof status);
	ck_assert_str_eq(moves, "a1 a2 b2");
	ck_assert_str_eq(status, "in_progress");
	ts_close(&a);
	ts_close(&b);
	ts_close(&w);
	ts_down(&s);
}
END_TEST

/* ---- three nodes -------------------------------------------------------------------------- */

struct trio {
	struct ts_srv n[3];
};

static void trio_up(struct trio *t)
{
	const char *names[] = {"n1", "n2", "n3"};
	for (int i = 0; i < 3; i++)
		up(&t->n[i], names[i]);
}

/* A node killed (kill -9) for good: its directory removed, trio_down() leaves it. */
static void node_gone(struct ts_srv *n)
{
	ts_kill9(n);
	tmpdir_remove(n->datadir);
	n->pid = 0;
}

static void trio_down(struct trio *t)
{
	for (int i = 0; i < 3; i++)
		if (t->n[i].pid > 0)
			ts_down(&t->n[i]);
}

/* c's answer to verb, as JSON (caller frees). */
static cJSON *ask(struct ts_cli *c, const char *verb)
{
	ts_send(c, "%s", verb);
	char pat[96];
	snprintf(pat, sizeof pat, "{\"type\":\"ok\",\"cmd\":\"%s\"}", verb);
	return ts_until(c, pat);
}

/* Whether the user at index i of who's answer (by name) on c watches game id. */
static bool watches(struct ts_cli *c, int i, int id)
{
	cJSON *w = ask(c, "who");
	cJSON *u = cJSON_GetArrayItem(cJSON_GetObjectItem(w, "users"), i);
	cJSON *g = cJSON_GetArrayItem(cJSON_GetObjectItem(u, "watching"), 0);
	bool yes = g != NULL && (int)cJSON_GetNumberValue(g) == id;
	cJSON_Delete(w);
	return yes;
}

/*
 * Players on n1 and n2, spectators on n3 (JSON and text): the seek is seen
 * and accepted across nodes, every state reaches everyone in order, chat
 * goes both ways, and seeks, who and list are the same on every node.
 */
START_TEST(test_three_nodes)
{
	struct trio t;
	trio_up(&t);
	struct ts_cli a, b, c, d;
	ts_join(&a, t.n[0].port, "alice");
	ts_join(&b, t.n[1].port, "bob");
	ts_join(&c, t.n[2].port, "carol");
	ts_open(&d, t.n[2].port);
	ts_expect0(&d, "bitarenad * ready*");
	ts_send(&d, "login dave");
	ts_expect0(&d, "ok logged in as dave (guest); token *");
	/* names are the cluster's: a guest name taken on another node is taken */
	struct ts_cli x;
	ts_connect_json(&x, t.n[2].port);
	ts_send(&x, "login ALICE");
	ts_expect_err(&x, "NAME_TAKEN");
	ts_close(&x);
	/* a seek of n1, accepted on n2: the game runs on n1 */
	ts_seek_accept(&a, &b, "ttt");
	cJSON *acc = ts_until(&b, "{\"type\":\"ok\",\"cmd\":\"accept\"}");
	int id = ts_jint(acc, "game");
	cJSON_Delete(acc);
	ts_expect0(&b, "{\"type\":\"seek\",\"event\":\"gone\"}"); /* after the ok, as on one node */
	ts_until0(&a, "{\"type\":\"state\",\"seq\":1,\"seat\":0}");
	ts_expect0(&b, "{\"type\":\"game_start\",\"seat\":1}");
	ts_expect0(&b, "{\"type\":\"state\",\"seq\":1,\"seat\":1}");
	ts_send(&c, "watch %d", id);
	ts_until0(&c, "{\"type\":\"ok\",\"cmd\":\"watch\"}");
	ts_expect0(&c, "{\"type\":\"state\",\"seq\":1,\"seat\":null}");
	ts_send(&d, "watch %d", id);
	ts_until0(&d, "ok watching game *");
	ts_expect0(&d, "game * ttt, ply 0: alice (X) vs bob (O)");
	/* every state to everyone, in order */
	const char *mv[] = {"a1", "a2", "b2", "a3"};
	for (int k = 0; k < 4; k++) {
		struct ts_cli *mover = k % 2 ? &b : &a, *other = k % 2 ? &a : &b;
		struct ts_cli *others[] = {other, &c};
		play(mover, id, mv[k], others, 2, k + 2);
		char pat[64];
		snprintf(pat, sizeof pat, "game %d ttt, ply %d: *", id, k + 1);
		ts_until0(&d, pat);
	}
	/* chat from a spectator of n3 to everyone */
	ts_send(&c, "say %d well played", id);
	ts_until0(&c, "{\"type\":\"ok\",\"cmd\":\"say\"}");
	ts_until0(&a, "{\"type\":\"chat\",\"from\":\"carol\",\"text\":\"well played\"}");
	ts_until0(&b, "{\"type\":\"chat\",\"from\":\"carol\",\"text\":\"well played\"}");
	ts_until0(&c, "{\"type\":\"chat\",\"from\":\"carol\"}");
	ts_until0(&d, "*] carol: well played");
	/* the same lobby everywhere */
	ts_send(&c, "seek tak size=5");
	ts_until0(&c, "{\"type\":\"ok\",\"cmd\":\"seek\"}");
	ts_until0(&a, "{\"type\":\"seek\",\"event\":\"new\",\"seek\":{\"by\":\"carol\"}}");
	/* a node writes its users' rows at its next beat: who is asked until carol watches */
	for (int tries = 0; tries < 50 && !watches(&a, 2, id); tries++)
		ts_msleep(100);
	struct ts_cli *on[] = {&a, &b, &c};
	for (int i = 0; i < 3; i++) {
		ck_assert(watches(on[i], 2, id));
		cJSON *s = ask(on[i], "seeks");
		ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(s, "seeks")), 1);
		cJSON_Delete(s);
		cJSON *w = ask(on[i], "who");
		cJSON *users = cJSON_GetObjectItem(w, "users");
		ck_assert_int_eq(cJSON_GetArraySize(users), 4);
		cJSON *first = cJSON_GetArrayItem(users, 0); /* alice, by name */
		ck_assert_str_eq(ts_jstr(first, "name"), "alice");
		cJSON *playing = cJSON_GetObjectItem(first, "playing");
		ck_assert_int_eq((int)cJSON_GetNumberValue(cJSON_GetArrayItem(playing, 0)), id);
		cJSON_Delete(w);
		cJSON *l = ask(on[i], "list");
		cJSON *games = cJSON_GetObjectItem(l, "games");
		ck_assert_int_eq(cJSON_GetArraySize(games), 1);
		ck_assert_int_eq(ts_jint(cJSON_GetArrayItem(games, 0), "ply"), 4);
		ck_assert_int_eq(ts_jint(cJSON_GetArrayItem(games, 0), "watchers"), 2);
		cJSON_Delete(l);
	}
	/* the end */
	struct ts_cli *others[] = {&b, &c};
	play(&a, id, "c3", others, 2, 6);
	for (struct ts_cli **p = (struct ts_cli *[]){&a, &b, &c, NULL}; *p; p++)
		ts_until0(*p,
		          "{\"type\":\"game_over\",\"result\":{\"winner\":0,\"reason\":\"line\"}}");
	ts_until0(&d, "game * over: 1-0, alice (X) wins (line)");
	char moves[256], status[32];
	stored_moves(id, moves, sizeof moves, status, sizeof status);
	ck_assert_str_eq(moves, "a1 a2 b2 a3 c3");
	ck_assert_str_eq(status, "finished");
	ts_close(&a);
	ts_close(&b);
	ts_close(&c);
	ts_close(&d);
	trio_down(&t);
}
END_TEST

/*
 * The game's node is killed (kill -9) mid-game: another node takes the game
 * over from PostgreSQL within seconds; the player on a surviving node gets
 * its seat back there at once (info moved, game_start, the state), the
 * spectator goes on watching, the player of the dead node logs in with its
 * token on the new owner (which holds the seat for that token) and finds
 * the game; every acknowledged move is there and the game is played to its
 * end.
 */
START_TEST(test_owner_killed)
{
	struct trio t;
	trio_up(&t);
	struct ts_cli a, b, c;
	ts_join(&a, t.n[0].port, "alice");
	ts_join(&b, t.n[1].port, "bob");
	ts_join(&c, t.n[2].port, "carol");
	int id = ts_begin_game(&a, &b, "ttt time=5+0"); /* on n1, alice's node */
	ts_send(&c, "watch %d", id);
	ts_until0(&c, "{\"type\":\"state\",\"seq\":1}");
	struct ts_cli *to_bc[] = {&b, &c}, *to_ac[] = {&a, &c};
	play(&a, id, "a1", to_bc, 2, 2);
	play(&b, id, "a2", to_ac, 2, 3);
	/* acknowledged: a1 a2 b2; bob's clock runs from this state */
	ts_send(&a, "move %d b2", id);
	cJSON_Delete(ts_until(&a, "{\"type\":\"ok\",\"cmd\":\"move\",\"move\":\"b2\"}"));
	cJSON *st = ts_untilf(&b, "{\"type\":\"state\",\"game\":%d,\"seq\":4}", id);
	long a_left = clock_left(st, 0), b_left = clock_left(st, 1);
	cJSON_Delete(st);
	cJSON_Delete(ts_untilf(&c, "{\"type\":\"state\",\"game\":%d,\"seq\":4}", id));
	ts_msleep(GAP_MS); /* bob thinks; then the node dies: the gap lasts until the takeover */
	node_gone(&t.n[0]);
	ts_close(&a);
	/* bob's seat comes back on the new owner at once, carol watches on */
	cJSON *mv = ts_untilf(&b, "{\"type\":\"info\",\"game\":%d,\"event\":\"moved\"}", id);
	const char *on = strstr(ts_jstr(mv, "message"), "on node n");
	ck_assert_ptr_nonnull(on);
	int owner = on[9] - '1'; /* n2 or n3 */
	ck_assert(owner == 1 || owner == 2);
	cJSON_Delete(mv);
	cJSON_Delete(ts_untilf(&b, "{\"type\":\"game_start\",\"game\":%d,\"seat\":1}", id));
	st = ts_untilf(&b, "{\"type\":\"state\",\"game\":%d,\"ply\":3}", id);
	/* the clocks are those of the last move: neither bob's thinking before the death nor
	   the time until the takeover (well over GAP_MS) is charged to anyone */
	ck_assert_int_eq(clock_left(st, 0), a_left);
	ck_assert_int_le(b_left - clock_left(st, 1), GAP_MS / 2);
	cJSON_Delete(st);
	cJSON_Delete(ts_untilf(&c, "{\"type\":\"info\",\"game\":%d,\"event\":\"moved\"}", id));
	cJSON_Delete(ts_untilf(&c, "{\"type\":\"state\",\"game\":%d,\"ply\":3}", id));
	/* alice comes back on the new owner, which holds her seat for her token */
	ts_rejoin(&a, t.n[owner].port, "alice");
	cJSON_Delete(ts_untilf(&a, "{\"type\":\"game_start\",\"game\":%d,\"seat\":0}", id));
	st = ts_untilf(&a, "{\"type\":\"state\",\"game\":%d,\"ply\":3}", id);
	int seq = ts_jint(st, "seq");
	ck_assert_int_eq(clock_left(st, 0), a_left);
	cJSON_Delete(st);
	play(&b, id, "a3", to_ac, 2, seq + 1);
	play(&a, id, "c3", to_bc, 2, seq + 2);
	ts_until0(&a, "{\"type\":\"game_over\",\"result\":{\"winner\":0,\"reason\":\"line\"}}");
	ts_until0(&c, "{\"type\":\"game_over\"}");
	char moves[256], status[32];
	stored_moves(id, moves, sizeof moves, status, sizeof status);
	ck_assert_str_eq(moves, "a1 a2 b2 a3 c3");
	ck_assert_str_eq(status, "finished");
	ts_close(&a);
	ts_close(&b);
	ts_close(&c);
	trio_down(&t);
}
END_TEST

/*
 * A node with a game of two of its guests is killed (kill -9): the node that
 * takes the game over brings each guest's seat back only with its token (its
 * hash came with the game from PostgreSQL): `login <name>` is NAME_TAKEN
 * there, `login <name> <token>` gets the seat, and the game goes on.
 */
START_TEST(test_takeover_keeps_tokens)
{
	struct ts_srv n1, n2;
	up(&n1, "n1");
	up(&n2, "n2");
	struct ts_cli a, b, w, x;
	ts_join(&a, n1.port, "alice");
	ts_join(&b, n1.port, "bob");
	ts_join(&w, n2.port, "wes");
	int id = ts_begin_game(&a, &b, "ttt");
	ts_send(&w, "watch %d", id);
	ts_until0(&w, "{\"type\":\"state\",\"seq\":1}");
	struct ts_cli *to_bw[] = {&b, &w};
	play(&a, id, "a1", to_bw, 2, 2);
	ts_kill9(&n1);
	tmpdir_remove(n1.datadir);
	ts_close(&a);
	ts_close(&b);
	cJSON_Delete(ts_untilf(&w, "{\"type\":\"info\",\"game\":%d,\"event\":\"moved\"}", id));
	/* n2 runs the game now: the names are its guests' seats, held by their tokens */
	ts_connect_json(&x, n2.port);
	ts_send(&x, "login bob");
	cJSON *e = ts_expect(&x, "{\"type\":\"error\",\"code\":\"NAME_TAKEN\"}");
	ck_assert_ptr_nonnull(strstr(ts_jstr(e, "message"), "login bob <token>"));
	cJSON_Delete(e);
	ts_send(&x, "login alice %s", b.token);
	ts_expect_err(&x, "BAD_LOGIN");
	ts_close(&x);
	ck_assert_int_eq(token_rows(a.token), 0);
	ts_rejoin(&b, n2.port, "bob");
	cJSON_Delete(ts_untilf(&b, "{\"type\":\"game_start\",\"game\":%d,\"seat\":1}", id));
	cJSON_Delete(ts_untilf(&b, "{\"type\":\"state\",\"game\":%d,\"ply\":1}", id));
	ts_rejoin(&a, n2.port, "alice");
	cJSON_Delete(ts_untilf(&a, "{\"type\":\"game_start\",\"game\":%d,\"seat\":0}", id));
	cJSON *st = ts_untilf(&a, "{\"type\":\"state\",\"game\":%d,\"ply\":1}", id);
	int seq = ts_jint(st, "seq");
	cJSON_Delete(st);
	struct ts_cli *to_aw[] = {&a, &w};
	play(&b, id, "a2", to_aw, 2, seq + 1);
	char moves[256], status[32];
	stored_moves(id, moves, sizeof moves, status, sizeof status);
	ck_assert_str_eq(moves, "a1 a2");
	ck_assert_str_eq(status, "in_progress");
	ts_close(&a);
	ts_close(&b);
	ts_close(&w);
	ts_down(&n2);
}
END_TEST

/* Whether c's `who` lists name (users of every live node). */
static bool online(struct ts_cli *c, const char *name)
{
	cJSON *w = ask(c, "who");
	cJSON *us = cJSON_GetObjectItem(w, "users");
	bool yes = false;
	for (int i = 0; i < cJSON_GetArraySize(us); i++)
		yes |= strcmp(ts_jstr(cJSON_GetArrayItem(us, i), "name"), name) == 0;
	cJSON_Delete(w);
	return yes;
}

/* Whether c's `list` has game id (rows of every live node, written with its seats:). */
static bool listed(struct ts_cli *c, int id)
{
	cJSON *l = ask(c, "list");
	cJSON *gs = cJSON_GetObjectItem(l, "games");
	bool yes = false;
	for (int i = 0; i < cJSON_GetArraySize(gs); i++)
		yes |= ts_jint(cJSON_GetArrayItem(gs, i), "id") == id;
	cJSON_Delete(l);
	return yes;
}

/* Until c's `who` no longer lists name: its node has seen its connection close. */
static void until_offline(struct ts_cli *c, const char *name)
{
	for (int i = 0; i < 200 && online(c, name); i++)
		ts_msleep(50);
	ck_assert_msg(!online(c, name), "%s still online", name);
}

/* A JSON connection to port from the loopback address from (another address to the server). */
static void connect_from(struct ts_cli *c, int port, const char *from)
{
	ts_open_from(c, port, from);
	ts_expect0(c, "bitarenad * ready*");
	ts_send(c, "set format json");
	ts_expect0(c, "{\"type\":\"ok\",\"cmd\":\"set\",\"format\":\"json\"}");
}

/* x's `login <args>` is NAME_TAKEN for name's seats (not for a connection), told how back. */
static void seat_taken(struct ts_cli *x, const char *name)
{
	ts_send(x, "login %s", name);
	cJSON *e = ts_expect(x, "{\"type\":\"error\",\"code\":\"NAME_TAKEN\"}");
	char back[64];
	snprintf(back, sizeof back, "login %s <token>", name);
	ck_assert_msg(strstr(ts_jstr(e, "message"), back) != NULL, "%s", ts_jstr(e, "message"));
	cJSON_Delete(e);
}

/*
 * Guests' seats across nodes, only with their tokens: alice (on n1) plays
 * bob (on n2) a game n1 runs; both go. Through n2, which does not run the
 * game, `login alice` is NAME_TAKEN and `login alice <bob's token>`
 * BAD_LOGIN, counted as a failed login (n2 allows one: the next try from
 * that address is LOGIN_THROTTLED); the seat stays hers; on n1 bob's seat, taken from another
 * node, is held by his token too (`login bob` NAME_TAKEN there and on n2).
 * `login alice <token>` on n2 brings her seat back from n1 (the token went
 * over the bus, n1 checked it), bob's token on n1 his, and the game goes on
 * from both sides. Neither name can be registered through the other node
 * meanwhile, nor the name of a guest connected to another node.
 */
START_TEST(test_tokens_across_nodes)
{
	struct ts_srv n1, n2;
	up(&n1, "n1");
	up_strict(&n2, "n2");
	struct ts_cli a, b, w, x;
	ts_join(&a, n1.port, "alice");
	ts_join(&b, n2.port, "bob");
	ts_join(&w, n2.port, "wes");
	int id = ts_begin_game(&a, &b, "ttt"); /* on n1, alice's seek's node */
	struct ts_cli *to_b[] = {&b};
	play(&a, id, "a1", to_b, 1, 2);
	ts_close(&a);
	ts_close(&b);
	for (int i = 0; i < 200 && !listed(&w, id); i++) /* n1's seats: written with its list */
		ts_msleep(50);
	ck_assert(listed(&w, id));
	until_offline(&w, "alice");
	until_offline(&w, "bob");
	/* through the node that does not run the game: not by name, not with another token
	   (a failed login, as on the game's node: the next is throttled) */
	connect_from(&x, n2.port, "127.0.0.2");
	seat_taken(&x, "alice");
	seat_taken(&x, "bob");
	ts_send(&x, "login alice %s", b.token);
	ts_expect_err(&x, "BAD_LOGIN");
	ts_send(&x, "login alice %s", b.token);
	ts_expect_err(&x, "LOGIN_THROTTLED");
	ts_close(&x);
	/* nor registered: through n2, alice's name has guest seats in n1's game; through n1,
	   wes is a guest connected to n2 (each node asks the others); a name nobody holds is
	   registered */
	ts_connect_json(&x, n2.port);
	ts_send(&x, "register alice password9");
	cJSON *e = ts_expect(&x, "{\"type\":\"error\",\"code\":\"NAME_TAKEN\"}");
	ck_assert_ptr_nonnull(strstr(ts_jstr(e, "message"), "another node"));
	cJSON_Delete(e);
	ts_close(&x);
	ts_connect_json(&x, n1.port);
	ts_send(&x, "register wes password9");
	ts_expect_err(&x, "NAME_TAKEN");
	ts_close(&x);
	ts_register(&x, n2.port, "zed", "password9");
	ts_close(&x);
	/* on the game's node: bob's seat, taken through n2, is held by his token as well */
	ts_connect_json(&x, n1.port);
	seat_taken(&x, "bob");
	ts_close(&x);
	/* with their tokens: alice through n2 (n1 checks the token the bus brought), bob on n1 */
	ts_rejoin(&a, n2.port, "alice");
	cJSON_Delete(ts_untilf(&a, "{\"type\":\"game_start\",\"game\":%d,\"seat\":0}", id));
	cJSON *st = ts_untilf(&a, "{\"type\":\"state\",\"game\":%d,\"ply\":1}", id);
	int seq = ts_jint(st, "seq");
	cJSON_Delete(st);
	ts_rejoin(&b, n1.port, "bob");
	cJSON_Delete(ts_untilf(&b, "{\"type\":\"game_start\",\"game\":%d,\"seat\":1}", id));
	cJSON_Delete(ts_untilf(&b, "{\"type\":\"state\",\"game\":%d,\"ply\":1}", id));
	struct ts_cli *to_a[] = {&a};
	to_b[0] = &b;
	play(&b, id, "a2", to_a, 1, seq + 1);
	play(&a, id, "b1", to_b, 1, seq + 2);
	char moves[256], status[32];
	stored_moves(id, moves, sizeof moves, status, sizeof status);
	ck_assert_str_eq(moves, "a1 a2 b1");
	ts_close(&a);
	ts_close(&b);
	ts_close(&w);
	ts_down(&n1);
	ts_down(&n2);
}
END_TEST

/*
 * Redis killed and started again while games are played: a game whose
 * players are on its own node goes on; a move between nodes gets
 * CLUSTER_DOWN meanwhile and is accepted once Redis is back (tried again
 * as a client would); the spectators of another node are sent the state
 * again; moves on their way between nodes when Redis dies are acknowledged,
 * or refused and then found played or played when tried again, once; every
 * acknowledged move is stored.
 */
START_TEST(test_redis_restart)
{
	struct trio t;
	trio_up(&t);
	struct ts_cli a, b, e, f, w;
	ts_join(&a, t.n[0].port, "alice");
	ts_join(&b, t.n[1].port, "bob");
	ts_join(&e, t.n[2].port, "erin");
	ts_join(&f, t.n[2].port, "fred");
	ts_join(&w, t.n[1].port, "wes");
	int g1 = ts_begin_game(&a, &b, "ttt"); /* across n1 and n2 */
	int g2 = begin_after(&e, &f);          /* all on n3 */
	ts_send(&w, "watch %d", g2);
	ts_until0(&w, "{\"type\":\"state\",\"seq\":1}");
	struct ts_cli *to_b[] = {&b}, *to_a[] = {&a}, *to_fw[] = {&f, &w}, *to_f[] = {&f};
	play(&a, g1, "a1", to_b, 1, 2);
	play(&e, g2, "a1", to_fw, 2, 2);
	/* more games across n1 and n2, a move of each on its way between nodes when Redis dies */
	struct ts_cli p[INFLIGHT], q[INFLIGHT];
	int gq[INFLIGHT];
	for (int i = 0; i < INFLIGHT; i++) {
		char name[16];
		snprintf(name, sizeof name, "pat%d", i);
		ts_join(&p[i], t.n[0].port, name);
		snprintf(name, sizeof name, "quin%d", i);
		ts_join(&q[i], t.n[1].port, name);
		gq[i] = ts_begin_game(&p[i], &q[i], "ttt");
		play(&p[i], gq[i], "a1", (struct ts_cli *[]){&q[i]}, 1, 2);
	}
	for (int i = 0; i < INFLIGHT; i++)
		ts_send(&q[i], "move %d a2", gq[i]);
	redistest_stop(&rd, true);
	/* the local game goes on */
	play(&f, g2, "b1", (struct ts_cli *[]){&e}, 1, 3);
	play(&e, g2, "a2", to_f, 1, 4);
	/* the move between nodes is refused, said so */
	ts_send(&b, "move %d a2", g1);
	ts_until0(&b, "{\"type\":\"error\",\"code\":\"CLUSTER_DOWN\"}");
	ck_assert(redistest_restart(&rd));
	/* once the nodes are back on Redis the move goes through */
	/* it was refused (CLUSTER_DOWN: never played, the stored record below says so); tried
	   again it is acknowledged, or, when the answer of a try was lost on a bus the nodes were
	   still reconnecting to (PROTOCOL.md §12: CLUSTER_DOWN "may or may not have been
	   played"), found played by the next try (a CI run) */
	move_until_played(&b, g1, "a2", false);
	cJSON_Delete(ts_untilf(&a, "{\"type\":\"state\",\"game\":%d,\"last_move\":\"a2\"}", g1));
	/* each move that was on its way: acknowledged, or refused (CLUSTER_DOWN: not known),
	   then tried again until acknowledged or found played; played once either way */
	for (int i = 0; i < INFLIGHT; i++) {
		move_until_played(&q[i], gq[i], "a2", true);
		char moves[64], status[32];
		stored_moves(gq[i], moves, sizeof moves, status, sizeof status);
		ck_assert_str_eq(moves, "a1 a2");
	}
	/* the spectator of the other node is sent the state it missed */
	cJSON_Delete(ts_untilf(&w, "{\"type\":\"state\",\"game\":%d,\"ply\":3}", g2));
	play(&a, g1, "b2", to_b, 1, 4);
	play(&f, g2, "b2", (struct ts_cli *[]){&e, &w}, 2, 5);
	play(&e, g2, "a3", (struct ts_cli *[]){&f, &w}, 2, 6);
	char moves[256], status[32];
	stored_moves(g1, moves, sizeof moves, status, sizeof status);
	ck_assert_str_eq(moves, "a1 a2 b2");
	stored_moves(g2, moves, sizeof moves, status, sizeof status);
	ck_assert_str_eq(moves, "a1 b1 a2 b2 a3");
	ck_assert_str_eq(status, "finished");
	(void)to_a;
	ts_close(&a);
	ts_close(&b);
	ts_close(&e);
	ts_close(&f);
	ts_close(&w);
	for (int i = 0; i < INFLIGHT; i++) {
		ts_close(&p[i]);
		ts_close(&q[i]);
	}
	trio_down(&t);
}
END_TEST

/*
 * The limits of a node hold for a client of another node as for its own
 * (PROTOCOL.md, 13): the relay clients that stand at the game's node for
 * clients admitted at their home's door are not counted per address (here 2
 * at most: a player and three spectators come from n2), and a remote
 * player's moves cost nothing, as a local one's (here a bucket of 8 tokens
 * refilled at 1 a second, which six moves charged at the home would put in
 * debt).
 */
START_TEST(test_limits_across_nodes)
{
	const char *lim[] = {"--max-per-address", "2", "--cmd-rate", "1", "--cmd-burst", "8"};
	struct ts_srv n1, n2;
	up_node(&n1, "n1", lim, 6);
	up_node(&n2, "n2", lim, 6);
	struct ts_cli a, b, w[3];
	ts_join(&a, n1.port, "alice");
	ts_join(&b, n2.port, "bob");
	int id = ts_begin_game(&a, &b, "mnk m=5 n=5 k=5"); /* on n1 */
	for (int i = 0; i < 3; i++) {
		ts_connect_json(&w[i], n2.port);
		ts_send(&w[i], "watch %d", id);
		cJSON *r = ts_until(&w[i], "{\"cmd\":\"watch\"}");
		ck_assert_msg(strcmp(ts_jstr(r, "type"), "ok") == 0, "spectator %d: %s", i,
		              cJSON_GetStringValue(cJSON_GetObjectItem(r, "code")));
		cJSON_Delete(r);
		ts_until0(&w[i], "{\"type\":\"state\",\"seq\":1}");
	}
	const char *xs[] = {"a1", "c1", "e1", "b2", "d2", "a3"};
	const char *os[] = {"b1", "d1", "a2", "c2", "e2", "b3"}; /* no five in a row */
	for (int k = 0; k < 6; k++) {
		cJSON_Delete(ts_play(&a, &b, id, xs[k]));
		ts_send(&b, "move %d %s", id, os[k]);
		cJSON *r = ts_until(&b, "{\"cmd\":\"move\"}");
		ck_assert_msg(strcmp(ts_jstr(r, "type"), "ok") == 0, "bob's move %d: %s", k + 1,
		              cJSON_GetStringValue(cJSON_GetObjectItem(r, "code")));
		cJSON_Delete(r);
		cJSON_Delete(ts_untilf(&a, "{\"type\":\"state\",\"seq\":%d}", 3 + 2 * k));
	}
	for (int i = 0; i < 3; i++) {
		cJSON_Delete(ts_untilf(&w[i], "{\"type\":\"state\",\"game\":%d,\"seq\":13}", id));
		ts_close(&w[i]);
	}
	ts_close(&a);
	ts_close(&b);
	ts_down(&n1);
	ts_down(&n2);
}
END_TEST

/*
 * PostgreSQL stopped (as a crash) and started again under three nodes while
 * a game runs across n1 and n2 and n3 watches: the remote player's move
 * waits, every member on every node is told store_failing, the nodes keep
 * answering (who, a move of another game refused with INTERNAL, nobody
 * declared dead); once PostgreSQL is back the move is acknowledged, the
 * game is played to its end, and everything acknowledged is stored.
 */
START_TEST(test_pg_down_cluster)
{
	struct trio t;
	trio_up(&t);
	struct ts_cli a, b, c, e, f;
	ts_join(&a, t.n[0].port, "alice");
	ts_join(&b, t.n[1].port, "bob");
	ts_join(&c, t.n[2].port, "carol");
	ts_join(&e, t.n[2].port, "erin");
	ts_join(&f, t.n[1].port, "fred");
	int id = ts_begin_game(&a, &b, "ttt"); /* on n1 */
	int g2 = begin_after(&e, &f);          /* on n3 */
	ts_send(&c, "watch %d", id);
	ts_until0(&c, "{\"type\":\"state\",\"seq\":1}");
	struct ts_cli *to_bc[] = {&b, &c}, *to_ac[] = {&a, &c};
	play(&a, id, "a1", to_bc, 2, 2);
	pgtest_stop(&pg, "immediate");
	ts_send(&b, "move %d a2", id); /* forwarded to n1, where it waits for PostgreSQL */
	cJSON_Delete(
	        ts_untilf(&b, "{\"type\":\"info\",\"event\":\"store_failing\",\"game\":%d}", id));
	cJSON_Delete(
	        ts_untilf(&a, "{\"type\":\"info\",\"event\":\"store_failing\",\"game\":%d}", id));
	cJSON_Delete(
	        ts_untilf(&c, "{\"type\":\"info\",\"event\":\"store_failing\",\"game\":%d}", id));
	/* the nodes answer meanwhile; a move that cannot be written is refused, said so */
	cJSON *w = ask(&e, "who");
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(w, "users")), 5);
	cJSON_Delete(w);
	/* a move on n3: held and told (the first to meet the failure there), or refused */
	ts_send(&e, "move %d a1", g2);
	bool refused = false;
	for (bool told = false; !told && !refused;) {
		cJSON *r = ts_expect(&e, "{}");
		const char *type = cJSON_GetStringValue(cJSON_GetObjectItem(r, "type"));
		const char *code = cJSON_GetStringValue(cJSON_GetObjectItem(r, "code"));
		const char *event = cJSON_GetStringValue(cJSON_GetObjectItem(r, "event"));
		refused = type != NULL && strcmp(type, "error") == 0;
		if (refused)
			ck_assert_str_eq(code, "INTERNAL");
		told = event != NULL && strcmp(event, "store_failing") == 0 &&
		       cJSON_GetNumberValue(cJSON_GetObjectItem(r, "game")) == g2;
		cJSON_Delete(r);
	}
	ck_assert(pgtest_restart(&pg));
	cJSON_Delete(ts_untilf(&b, "{\"type\":\"ok\",\"cmd\":\"move\",\"move\":\"a2\"}"));
	cJSON_Delete(ts_untilf(&a, "{\"type\":\"state\",\"game\":%d,\"last_move\":\"a2\"}", id));
	cJSON_Delete(ts_untilf(&c, "{\"type\":\"state\",\"game\":%d,\"last_move\":\"a2\"}", id));
	/* service is back by itself: the game goes on to its end, the other game too */
	play(&a, id, "b2", to_bc, 2, 4);
	play(&b, id, "a3", to_ac, 2, 5);
	play(&a, id, "c3", to_bc, 2, 6);
	ts_until0(&b, "{\"type\":\"game_over\",\"result\":{\"winner\":0,\"reason\":\"line\"}}");
	ts_until0(&c, "{\"type\":\"game_over\"}");
	if (!refused) {
		cJSON_Delete(ts_until(&e, "{\"type\":\"ok\",\"cmd\":\"move\",\"move\":\"a1\"}"));
	} else {
		ck_assert(move_until_played(&e, g2, "a1", false)); /* INTERNAL: nothing happened */
	}
	cJSON_Delete(ts_untilf(&f, "{\"type\":\"state\",\"game\":%d,\"last_move\":\"a1\"}", g2));
	char moves[256], status[32];
	stored_moves(id, moves, sizeof moves, status, sizeof status);
	ck_assert_str_eq(moves, "a1 a2 b2 a3 c3");
	ck_assert_str_eq(status, "finished");
	stored_moves(g2, moves, sizeof moves, status, sizeof status);
	ck_assert_str_eq(moves, "a1");
	for (struct ts_cli **p = (struct ts_cli *[]){&a, &b, &c, &e, &f, NULL}; *p; p++)
		ts_close(*p);
	trio_down(&t);
}
END_TEST

/*
 * A state sent again (Y: a home lost messages, here a Redis restart) waits for the store as
 * the move's own broadcast does: bob's move waits on n1 for PostgreSQL (stopped), Redis is
 * restarted, n2 asks n1 for the state again; neither bob nor the spectator on n2 is shown the
 * move until it is stored (the in-memory state was sent at once: had the write been refused,
 * as a paused owner's is, they had seen a move the record never has: nemesis seed 28).
 */
START_TEST(test_resend_waits_for_store)
{
	struct ts_srv n1, n2;
	up(&n1, "n1");
	up(&n2, "n2");
	struct ts_cli a, b, w;
	ts_join(&a, n1.port, "alice");
	ts_join(&b, n2.port, "bob");
	ts_join(&w, n2.port, "wes");
	int id = ts_begin_game(&a, &b, "ttt"); /* on n1 */
	ts_send(&w, "watch %d", id);
	ts_until0(&w, "{\"type\":\"state\",\"seq\":1}");
	struct ts_cli *to_bw[] = {&b, &w};
	play(&a, id, "a1", to_bw, 2, 2);
	pgtest_stop(&pg, "immediate");
	ts_send(&b, "move %d a2", id); /* forwarded to n1, where it waits for PostgreSQL */
	cJSON_Delete(
	        ts_untilf(&w, "{\"type\":\"info\",\"event\":\"store_failing\",\"game\":%d}", id));
	redistest_stop(&rd, true);
	ck_assert(redistest_restart(&rd));
	ts_msleep(4000); /* the nodes are back on Redis; n2 asks for the state again (Y) */
	ck_assert_msg(!ts_drain(&w, "\"last_move\":\"a2\""), "a state with a2 before it is stored");
	ck_assert_msg(!ts_drain(&b, "\"last_move\":\"a2\""), "a state with a2 before it is stored");
	ck_assert(pgtest_restart(&pg));
	cJSON_Delete(ts_untilf(&w, "{\"type\":\"state\",\"game\":%d,\"last_move\":\"a2\"}", id));
	char moves[256], status[32];
	stored_moves(id, moves, sizeof moves, status, sizeof status);
	ck_assert_str_eq(moves, "a1 a2");
	for (struct ts_cli **p = (struct ts_cli *[]){&a, &b, &w, NULL}; *p; p++)
		ts_close(*p);
	ts_down(&n1);
	ts_down(&n2);
}
END_TEST

/* Three nodes up, alice on n1 and bob on n2 in a game of n1 (alice's seek), a1 played. */
static int trio_game(struct trio *t, struct ts_cli *a, struct ts_cli *b)
{
	trio_up(t);
	ts_join(a, t->n[0].port, "alice");
	ts_join(b, t->n[1].port, "bob");
	int id = ts_begin_game(a, b, "ttt");
	struct ts_cli *to_b[] = {b};
	play(a, id, "a1", to_b, 1, 2);
	return id;
}

/*
 * The game's node paused (SIGSTOP, as a long GC or a stopped container) until another node
 * takes the game over, a move sent to it meanwhile: once it runs again (SIGCONT), PostgreSQL
 * refuses its write (fencing) and the move is not acknowledged (NODE_GONE in place of the
 * ok; an ok would have to be in the stored record); the paused node gives the game up and
 * its player, still connected to it, is moved to the new owner and plays on through it.
 */
START_TEST(test_owner_paused)
{
	struct trio t;
	struct ts_cli a, b;
	int id = trio_game(&t, &a, &b);
	struct ts_cli *to_a[] = {&a};
	play(&b, id, "a2", to_a, 1, 3);
	ck_assert_int_eq(kill(t.n[0].pid, SIGSTOP), 0);
	/* another node takes the game over: bob's seat is there */
	cJSON_Delete(ts_untilf(&b, "{\"type\":\"info\",\"game\":%d,\"event\":\"moved\"}", id));
	cJSON_Delete(ts_untilf(&b, "{\"type\":\"state\",\"game\":%d,\"ply\":2}", id));
	ts_send(&a, "move %d b2", id); /* waits in the paused node's socket */
	ck_assert_int_eq(kill(t.n[0].pid, SIGCONT), 0);
	cJSON *r = ts_until(&a, "{\"cmd\":\"move\"}");
	bool acked = strcmp(ts_jstr(r, "type"), "ok") == 0;
	if (!acked)
		ck_assert_str_eq(ts_jstr(r, "code"), "NODE_GONE");
	cJSON_Delete(r);
	char moves[256], status[32];
	stored_moves(id, moves, sizeof moves, status, sizeof status);
	ck_assert_msg(!acked || strcmp(moves, "a1 a2 b2") == 0, "b2 acknowledged, stored: %s",
	              moves);
	/* alice, still on n1, follows the game to its node: her seat and the state come back
	   (the new owner asks every node for its waiting seats, A: n1 answers with her R as
	   soon as it runs; or n1 moves her when it learns it lost the game: info moved) */
	cJSON_Delete(ts_untilf(&a, "{\"type\":\"state\",\"game\":%d,\"seat\":0}", id));
	if (!acked)
		ck_assert(move_until_played(&a, id, "b2", false));
	cJSON_Delete(ts_untilf(&b, "{\"type\":\"state\",\"game\":%d,\"last_move\":\"b2\"}", id));
	ts_send(&b, "move %d a3", id);
	cJSON_Delete(ts_until(&b, "{\"type\":\"ok\",\"cmd\":\"move\",\"move\":\"a3\"}"));
	cJSON_Delete(ts_untilf(&a, "{\"type\":\"state\",\"game\":%d,\"last_move\":\"a3\"}", id));
	ts_send(&a, "move %d c3", id);
	cJSON_Delete(ts_until(&a, "{\"type\":\"ok\",\"cmd\":\"move\",\"move\":\"c3\"}"));
	ts_until0(&a, "{\"type\":\"game_over\",\"result\":{\"winner\":0,\"reason\":\"line\"}}");
	ts_until0(&b, "{\"type\":\"game_over\",\"result\":{\"winner\":0,\"reason\":\"line\"}}");
	assert_stored(id, "a1 a2 b2 a3 c3", "finished");
	ts_close(&a);
	ts_close(&b);
	trio_down(&t);
}
END_TEST

/*
 * The game's node paused while a remote player's command waits for it in Redis (a refresh
 * forwarded to it), the game taken over and played on elsewhere: once it runs again, the
 * old owner does not answer from the game as it had it (a state of the past, sent before it
 * learns it lost the game: seen in a nemesis run); what other nodes asked of it meanwhile
 * waits until its heartbeat says whether the games are still its own.
 */
START_TEST(test_paused_owner_answers_nothing_stale)
{
	struct trio t;
	struct ts_cli a, b;
	int id = trio_game(&t, &a, &b); /* a1 played on n1: bob, on n2, to move */
	ck_assert_int_eq(kill(t.n[0].pid, SIGSTOP), 0);
	ts_send(&b, "refresh %d", id); /* forwarded to the paused owner: waits in its inbox */
	cJSON_Delete(ts_untilf(&b, "{\"type\":\"info\",\"game\":%d,\"event\":\"moved\"}", id));
	ck_assert(move_until_played(&b, id, "a2", false)); /* on the new owner */
	cJSON_Delete(ts_untilf(&b, "{\"type\":\"state\",\"game\":%d,\"ply\":2}", id));
	ck_assert_int_eq(kill(t.n[0].pid, SIGCONT), 0);
	char pat[128];
	snprintf(pat, sizeof pat, "{\"type\":\"state\",\"game\":%d}", id);
	for (int waited = 0; waited < 5000; waited += 250) { /* everything bob gets for 5 s */
		char *l = ts_line_within(&b, 250);
		if (l != NULL && ts_match(pat, l)) {
			cJSON *j = cJSON_Parse(l);
			ck_assert_msg(ts_jint(j, "ply") >= 2, "a state of the past after ply 2: %s",
			              l);
			cJSON_Delete(j);
		}
		free(l);
	}
	/* the game goes on where it runs now */
	ts_send(&b, "refresh %d", id);
	cJSON_Delete(ts_untilf(&b, "{\"type\":\"state\",\"game\":%d,\"ply\":2}", id));
	assert_stored(id, "a1 a2", "in_progress");
	ts_close(&a);
	ts_close(&b);
	trio_down(&t);
}
END_TEST

/*
 * The game's node paused until another takes the game over, then Redis restarted (empty: the
 * tombstone saying the paused node was declared dead is gone with it) before the node runs
 * again: its heartbeat finds its key gone, as after any Redis restart, and it must ask the
 * store which games are still its own before it goes on, or its copy of the game, at the ply
 * it had, serves its player for ever (NOT_YOUR_TURN to every move, the state of the past: a
 * nemesis run, 7 games stuck).
 */
START_TEST(test_paused_owner_redis_restarted)
{
	struct trio t;
	struct ts_cli a, b;
	int id = trio_game(&t, &a, &b); /* a1 played on n1: bob, on n2, to move */
	ck_assert_int_eq(kill(t.n[0].pid, SIGSTOP), 0);
	cJSON_Delete(ts_untilf(&b, "{\"type\":\"info\",\"game\":%d,\"event\":\"moved\"}", id));
	ck_assert(move_until_played(&b, id, "a2", false)); /* on the new owner */
	redistest_stop(&rd, true);
	ck_assert(redistest_restart(&rd));
	ck_assert_int_eq(kill(t.n[0].pid, SIGCONT), 0);
	/* alice, still on n1, is brought to the game where it runs: its state after a2 */
	cJSON_Delete(ts_untilf(&a, "{\"type\":\"state\",\"game\":%d,\"ply\":2,\"seat\":0}", id));
	ck_assert(move_until_played(&a, id, "b2", false));
	cJSON_Delete(ts_untilf(&b, "{\"type\":\"state\",\"game\":%d,\"last_move\":\"b2\"}", id));
	assert_stored(id, "a1 a2 b2", "in_progress");
	ts_close(&a);
	ts_close(&b);
	trio_down(&t);
}
END_TEST

/* The node Redis names as game id's owner (owner:<id>), "nil" when none. */
static void owner_of(int id, char *out, size_t size)
{
	char cmd[160];
	snprintf(cmd, sizeof cmd,
	         "EVAL \"return {ok = redis.call('GET', 'bitarena:owner:%d') or 'nil'}\" 0\r\n",
	         id);
	ck_assert(redistest_cmd(&rd, cmd, out, size));
	out[strcspn(out, "\r\n")] = '\0';
}

/*
 * The game's node cut off from Redis by a partition that delays its bytes (holdproxy.h) as a
 * game starts there: its SET of owner:<game> waits in the partition while another node
 * declares it dead and takes the game over. Delivered after that, it must not name the node
 * that lost the game (the key is written NX: a game's id is new), or every move sent there
 * is NO_SUCH_GAME for ever (seen in a nemesis run). The players, still on the old node,
 * play on.
 */
START_TEST(test_owner_key_delayed)
{
	struct trio t = {0};
	int via_port;
	struct holdproxy *px = holdproxy_start(rd.port, &via_port);
	char via[64];
	snprintf(via, sizeof via, "redis://127.0.0.1:%d", via_port);
	const char *n1[] = {"--db",       uri,    "--cluster",         via,
	                    "--node",     "n1",   "--cluster-beat-ms", BEAT_MS,
	                    "--grace-ms", "60000"};
	ts_up(&t.n[0], n1, 10);
	up(&t.n[1], "n2");
	struct ts_cli a, b;
	ts_join(&a, t.n[0].port, "alice");
	ts_join(&b, t.n[0].port, "bob");
	ts_send(&a, "seek ttt color=first");
	cJSON *ok = ts_until(&a, "{\"type\":\"ok\",\"cmd\":\"seek\"}");
	int seek = ts_jint(cJSON_GetObjectItem(ok, "seek"), "id");
	cJSON_Delete(ok);
	holdproxy_hold(px, true);
	ts_send(&b, "accept %d", seek);
	cJSON *acc = ts_until(&b, "{\"type\":\"ok\",\"cmd\":\"accept\"}");
	int id = ts_jint(acc, "game");
	cJSON_Delete(acc);
	char owner[64] = "";
	for (int waited = 0; strcmp(owner, "+n2") != 0; waited += 100) { /* the takeover */
		ck_assert_msg(waited < 20000, "n2 did not take game %d over: owner %s", id, owner);
		ts_msleep(100);
		owner_of(id, owner, sizeof owner);
	}
	holdproxy_hold(px, false); /* n1's SET goes now, then its beat finds it declared dead */
	for (int waited = 0; waited < 3000; waited += 100) {
		ts_msleep(100);
		owner_of(id, owner, sizeof owner);
		ck_assert_msg(strcmp(owner, "+n2") == 0, "game %d: owner %s after n2's takeover",
		              id, owner);
	}
	/* the players, on n1, play on: their moves go to n2 */
	ck_assert(move_until_played(&a, id, "a1", false));
	cJSON_Delete(ts_untilf(&b, "{\"type\":\"state\",\"game\":%d,\"last_move\":\"a1\"}", id));
	ts_send(&b, "move %d b2", id);
	cJSON_Delete(ts_until(&b, "{\"type\":\"ok\",\"cmd\":\"move\",\"move\":\"b2\"}"));
	assert_stored(id, "a1 b2", "in_progress");
	ts_close(&a);
	ts_close(&b);
	trio_down(&t);
	holdproxy_stop(px);
}
END_TEST

/*
 * The game's node, which is also its player's home, killed (kill -9); the player, an
 * account, logs in on another node at once, before anyone took the game over (its login
 * finds the game's node dead): the takeover seats it where it is, whichever node takes the
 * game, without a word from it (it was locked out until it logged in again: 122 lockouts
 * after a kill in a 25-minute nemesis run).
 */
START_TEST(test_account_back_after_takeover)
{
	struct trio t;
	trio_up(&t);
	struct ts_cli a, b;
	ts_register(&a, t.n[0].port, "alice", "password1");
	ts_register(&b, t.n[1].port, "bob", "password1");
	int id = ts_begin_game(&a, &b, "ttt"); /* on n1, alice's node */
	struct ts_cli *to_b[] = {&b};
	play(&a, id, "a1", to_b, 1, 2);
	node_gone(&t.n[0]);
	ts_close(&a);
	ts_connect_json(&a, t.n[1].port); /* at once: the death is not noticed yet */
	ts_send(&a, "login alice password1");
	cJSON_Delete(ts_until(&a, "{\"type\":\"ok\",\"cmd\":\"login\"}"));
	cJSON_Delete(ts_untilf(&a, "{\"type\":\"game_start\",\"game\":%d,\"seat\":0}", id));
	cJSON_Delete(ts_untilf(&a, "{\"type\":\"state\",\"game\":%d,\"ply\":1}", id));
	cJSON_Delete(ts_untilf(&b, "{\"type\":\"info\",\"game\":%d,\"event\":\"moved\"}", id));
	ck_assert(move_until_played(&b, id, "a2", false));
	cJSON_Delete(ts_untilf(&a, "{\"type\":\"state\",\"game\":%d,\"last_move\":\"a2\"}", id));
	ck_assert(move_until_played(&a, id, "b2", false));
	assert_stored(id, "a1 a2 b2", "in_progress");
	ts_close(&a);
	ts_close(&b);
	trio_down(&t);
}
END_TEST

/*
 * The game's node killed (kill -9) and started again at once under the same name: the new
 * instance takes its games back before another node notices, and the player on another
 * node, who never left, is seated there again (game_start, the state) and plays on; the
 * player of the restarted node comes back by logging in with its token.
 */
START_TEST(test_owner_restarted)
{
	struct trio t;
	struct ts_cli a, b;
	int id = trio_game(&t, &a, &b);
	struct ts_cli *to_b[] = {&b};
	ts_kill9(&t.n[0]);
	tmpdir_remove(t.n[0].datadir);
	ts_close(&a);
	up(&t.n[0], "n1");
	/* bob is back in the game wherever it runs now (n1 again, or another node, whichever
	   claimed it first) without a word from him */
	cJSON_Delete(ts_untilf(&b, "{\"type\":\"game_start\",\"game\":%d,\"seat\":1}", id));
	cJSON_Delete(ts_untilf(&b, "{\"type\":\"state\",\"game\":%d,\"ply\":1}", id));
	ck_assert(move_until_played(&b, id, "a2", false));
	ts_rejoin(&a, t.n[0].port, "alice");
	cJSON_Delete(ts_untilf(&a, "{\"type\":\"state\",\"game\":%d,\"last_move\":\"a2\"}", id));
	play(&a, id, "b2", to_b, 1, 4);
	assert_stored(id, "a1 a2 b2", "in_progress");
	ts_close(&a);
	ts_close(&b);
	trio_down(&t);
}
END_TEST

/*
 * A guest's home node killed (kill -9) while its game runs on another node, the guest back
 * through a third node with its token before the game's node has judged the home dead (here:
 * the game's node paused a moment, as a loaded machine does, so that it is not judging yet when
 * the login comes): the relay client standing for the dead connection held the seat, so the
 * guest got NOT_YOUR_GAME for every move and was never given the game back. The login (R,
 * with the guest's token) now closes that relay client on the game's node, and the seat
 * follows the newest connection at once. The game's node beats every second (expiry 3 s) so
 * that its pause of 2 s makes it unhealthy (no judging for 6 s) without being declared dead.
 */
START_TEST(test_guest_back_before_scan)
{
	struct trio t = {0};
	const char *slow[] = {"--cluster-beat-ms", "1000"};
	up_node(&t.n[0], "n1", slow, 2);
	up(&t.n[1], "n2");
	up(&t.n[2], "n3");
	struct ts_cli a, b;
	ts_join(&a, t.n[0].port, "alice");
	ts_join(&b, t.n[1].port, "bob");
	int id = ts_begin_game(&a, &b, "ttt"); /* alice's seek: a game of n1 */
	struct ts_cli *to_b[] = {&b};
	play(&a, id, "a1", to_b, 1, 2);
	/* n1 has written bob's guest seat to Redis (at its next beat): a login with his token
	   elsewhere finds it (else BAD_LOGIN, as for a token nobody's seat has) */
	char out[64] = "";
	for (int i = 0; i < 100 && strncmp(out, ":1", 2) != 0; i++, ts_msleep(50))
		ck_assert(redistest_cmd(&rd, "HEXISTS bitarena:seats:n1 bob\r\n", out, sizeof out));
	ck_assert_msg(strncmp(out, ":1", 2) == 0, "bob's seat not in seats:n1: %s", out);
	node_gone(&t.n[1]);
	ck_assert_int_eq(kill(t.n[0].pid, SIGSTOP), 0);
	usleep(2000 * 1000); /* n2's heartbeat lapses meanwhile: bob's name is free */
	ts_close(&b);
	ts_rejoin(&b, t.n[2].port, "bob");
	ck_assert_int_eq(kill(t.n[0].pid, SIGCONT), 0);
	ts_send(&b, "move %d a2", id);
	cJSON *r = ts_until(&b, "{\"cmd\":\"move\"}");
	ck_assert_msg(strcmp(ts_jstr(r, "type"), "ok") == 0, "move: %s",
	              ts_jstr(r, "code") ? ts_jstr(r, "code") : "?");
	cJSON_Delete(r);
	cJSON_Delete(ts_untilf(&b, "{\"type\":\"state\",\"game\":%d,\"last_move\":\"a2\"}", id));
	cJSON_Delete(ts_untilf(&a, "{\"type\":\"state\",\"game\":%d,\"last_move\":\"a2\"}", id));
	play(&a, id, "b2", to_b, 1, 4);
	assert_stored(id, "a1 a2 b2", "in_progress");
	ts_close(&a);
	ts_close(&b);
	trio_down(&t);
}
END_TEST

/*
 * A player on another node than the game's logs out and someone else logs in on the same
 * connection: the game's node forgets the old identity (the seat waits for its player), so
 * the newcomer can neither move in that seat nor chat as its player, and the player, logging
 * in on the game's node, is back in the game and plays on.
 */
START_TEST(test_logout_remote)
{
	struct trio t;
	struct ts_cli a, b;
	int id = trio_game(&t, &a, &b); /* bob (n2) to move in a game of n1 */
	char token[sizeof b.token];
	snprintf(token, sizeof token, "%s", b.token);
	ts_send(&b, "logout");
	ts_until0(&b, "{\"type\":\"ok\",\"cmd\":\"logout\"}");
	ts_send(&b, "login mallory");
	ts_until0(&b, "{\"type\":\"ok\",\"cmd\":\"login\"}");
	const char *verbs[] = {"move", "say"}, *args[] = {"a2", "I am bob"};
	for (int i = 0; i < 2; i++) {
		ts_send(&b, "%s %d %s", verbs[i], id, args[i]);
		cJSON *r = ts_untilf(&b, "{\"cmd\":\"%s\"}", verbs[i]);
		ck_assert_str_eq(ts_jstr(r, "type"), "error");
		ck_assert_str_eq(ts_jstr(r, "code"), "NOT_YOUR_GAME");
		cJSON_Delete(r);
	}
	struct ts_cli r; /* the real bob, on the game's node, with his token */
	snprintf(r.token, sizeof r.token, "%s", token);
	ts_rejoin(&r, t.n[0].port, "bob");
	cJSON_Delete(ts_untilf(&r, "{\"type\":\"state\",\"game\":%d,\"seat\":1}", id));
	struct ts_cli *to_a[] = {&a};
	play(&r, id, "a2", to_a, 1, 3);
	assert_stored(id, "a1 a2", "in_progress");
	ts_close(&r);
	ts_close(&a);
	ts_close(&b);
	trio_down(&t);
}
END_TEST

/*
 * Seats follow an account's login on any node: bob, playing through n2 a game of n1, logs in
 * on n3 (neither the game's node nor his) and is seated again through n3; then he logs in on
 * n1, the game's node, and is "back in game N" there at once, as a second login on one node
 * is. Each time the old connection gets SESSION_TAKEN and the new one moves in the seat.
 */
START_TEST(test_login_takes_seat)
{
	struct trio t;
	trio_up(&t);
	struct ts_cli a, b, r, q;
	ts_register(&a, t.n[0].port, "alice", "password1");
	ts_register(&b, t.n[1].port, "bob", "password2");
	int id = ts_begin_game(&a, &b, "ttt"); /* alice's seek: a game of n1 */
	struct ts_cli *to_b[] = {&b}, *to_a[] = {&a};
	play(&a, id, "a1", to_b, 1, 2);
	/* bob on a third node */
	ts_connect_json(&q, t.n[2].port);
	ts_send(&q, "login bob password2");
	ts_until0(&q, "{\"type\":\"ok\",\"cmd\":\"login\"}");
	ts_until0(&b, "{\"type\":\"info\",\"code\":\"SESSION_TAKEN\"}");
	cJSON_Delete(ts_untilf(&q, "{\"type\":\"game_start\",\"game\":%d,\"seat\":1}", id));
	cJSON_Delete(ts_untilf(&q, "{\"type\":\"state\",\"game\":%d,\"last_move\":\"a1\"}", id));
	play(&q, id, "a2", to_a, 1, 3);
	struct ts_cli *to_q[] = {&q};
	play(&a, id, "b2", to_q, 1, 4);
	/* bob on the game's node */
	ts_connect_json(&r, t.n[0].port);
	ts_send(&r, "login bob password2");
	cJSON_Delete(ts_untilf(&r, "{\"type\":\"ok\",\"cmd\":\"login\",\"resumed\":[%d]}", id));
	ts_until0(&q, "{\"type\":\"info\",\"code\":\"SESSION_TAKEN\"}");
	cJSON_Delete(ts_untilf(&r, "{\"type\":\"state\",\"game\":%d,\"seat\":1}", id));
	play(&r, id, "a3", to_a, 1, 5);
	assert_stored(id, "a1 a2 b2 a3", "in_progress");
	for (struct ts_cli **p = (struct ts_cli *[]){&a, &b, &r, &q, NULL}; *p; p++)
		ts_close(*p);
	trio_down(&t);
}
END_TEST

/*
 * The kick of an account's older connection reaches a node whose heartbeat is late: bob on
 * n3, n3 paused (SIGSTOP, as a loaded machine's scheduler or a long GC does) until n1's scan
 * finds its heartbeat expired, bob logs in on n1, n3 runs again: its connection is told
 * SESSION_TAKEN. (The kick went only to the nodes whose heartbeat the sender's last scan had
 * found current, so a node late by a moment never had it: test_login_takes_seat lost it now
 * and then under a loaded make check.)
 */
START_TEST(test_kick_reaches_late_node)
{
	struct trio t;
	trio_up(&t);
	struct ts_cli q, r;
	ts_register(&q, t.n[2].port, "bob", "password2");
	ck_assert_int_eq(kill(t.n[2].pid, SIGSTOP), 0);
	usleep(1500 * 1000); /* past n3's expiry (3 beats): n1's scans find it lapsed */
	ts_connect_json(&r, t.n[0].port);
	ts_send(&r, "login bob password2");
	ts_until0(&r, "{\"type\":\"ok\",\"cmd\":\"login\"}");
	ck_assert_int_eq(kill(t.n[2].pid, SIGCONT), 0);
	ts_until0(&q, "{\"type\":\"info\",\"code\":\"SESSION_TAKEN\"}");
	for (struct ts_cli **p = (struct ts_cli *[]){&q, &r, NULL}; *p; p++)
		ts_close(*p);
	trio_down(&t);
}
END_TEST

/* a challenges bob (b) to ttt with opts: its id, once a's ok and b's news of it are in. */
static int challenge(struct ts_cli *a, struct ts_cli *b, const char *opts)
{
	ts_send(a, "match bob ttt%s", opts);
	cJSON *ok = ts_until(a, "{\"type\":\"ok\",\"cmd\":\"match\"}");
	int id = ts_jint(cJSON_GetObjectItem(ok, "seek"), "id");
	cJSON_Delete(ok);
	cJSON_Delete(
	        ts_untilf(b, "{\"type\":\"match\",\"event\":\"new\",\"seek\":{\"id\":%d}}", id));
	return id;
}

/*
 * tell and match reach a user connected to another node (who lists it): tells both ways, a
 * name nobody has is NO_SUCH_USER; a challenge across nodes is declined by its target,
 * withdrawn by its author, and accepted: the game runs on the target's node and is played.
 */
START_TEST(test_tell_match_remote)
{
	struct trio t = {0};
	up(&t.n[0], "n1");
	up(&t.n[1], "n2");
	struct ts_cli a, b;
	ts_join(&a, t.n[0].port, "alice");
	ts_join(&b, t.n[1].port, "bob");
	ts_send(&a, "tell bob good luck");
	ts_until0(&a, "{\"type\":\"ok\",\"cmd\":\"tell\",\"to\":\"bob\"}");
	ts_until0(&b, "{\"type\":\"tell\",\"from\":\"alice\",\"text\":\"good luck\"}");
	ts_send(&b, "tell ALICE thanks");
	ts_until0(&b, "{\"type\":\"ok\",\"cmd\":\"tell\",\"to\":\"alice\"}");
	ts_until0(&a, "{\"type\":\"tell\",\"from\":\"bob\",\"text\":\"thanks\"}");
	ts_send(&a, "tell carol hello");
	ts_until0(&a, "{\"type\":\"error\",\"code\":\"NO_SUCH_USER\",\"cmd\":\"tell\"}");
	/* declined by its target */
	int m1 = challenge(&a, &b, "");
	ts_send(&b, "decline %d", m1);
	ts_until0(&b, "{\"type\":\"ok\",\"cmd\":\"decline\"}");
	cJSON_Delete(ts_untilf(
	        &a, "{\"type\":\"match\",\"event\":\"decline\",\"id\":%d,\"by\":\"bob\"}", m1));
	/* withdrawn by its author, from its own node */
	int m2 = challenge(&a, &b, "");
	ts_send(&a, "unseek %d", m2);
	ts_until0(&a, "{\"type\":\"ok\",\"cmd\":\"unseek\"}");
	cJSON_Delete(ts_untilf(
	        &b, "{\"type\":\"match\",\"event\":\"withdraw\",\"id\":%d,\"by\":\"alice\"}", m2));
	/* accepted: a game of n2, alice playing through n1 */
	int m3 = challenge(&a, &b, " color=first");
	ts_send(&b, "accept %d", m3);
	cJSON *acc = ts_until(&b, "{\"type\":\"ok\",\"cmd\":\"accept\"}");
	int id = ts_jint(acc, "game");
	cJSON_Delete(acc);
	cJSON_Delete(ts_untilf(&a, "{\"type\":\"game_start\",\"game\":%d,\"seat\":0}", id));
	struct ts_cli *to_b[] = {&b}, *to_a[] = {&a};
	play(&a, id, "a1", to_b, 1, 2);
	play(&b, id, "a2", to_a, 1, 3);
	assert_stored(id, "a1 a2", "in_progress");
	ts_close(&a);
	ts_close(&b);
	trio_down(&t);
}
END_TEST

/* Node name with a listener of its own (opt, e.g. --http) on a free port: that port (its
 * port file: opt followed by -port-file). */
static int up_with(struct ts_srv *s, const char *name, const char *opt)
{
	char file[256], fopt[32];
	ts_port_path(file, sizeof file);
	snprintf(fopt, sizeof fopt, "%s-port-file", opt);
	const char *more[] = {opt, "127.0.0.1:0", fopt, file};
	up_node(s, name, more, 4);
	int port = ts_port_file(s, file);
	unlink(file);
	return port;
}

/* GET path on port, the request sent and the connection left open: its socket. */
static int http_open(int port, const char *path)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(fd, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
	char rq[512];
	int n = snprintf(rq, sizeof rq,
	                 "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n\r\n", path,
	                 port);
	ck_assert_int_eq(write(fd, rq, (size_t)n), n);
	return fd;
}

/* GET path of 127.0.0.1:port: the status, and the body (malloc'd) in *body. */
static int http_get(int port, const char *path, char **body)
{
	int fd = http_open(port, path);
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap + 1);
	ck_assert_ptr_nonnull(buf);
	ssize_t r;
	while ((r = read(fd, buf + len, cap - len)) > 0) {
		len += (size_t)r;
		if (len == cap) {
			cap *= 2;
			buf = realloc(buf, cap + 1);
			ck_assert_ptr_nonnull(buf);
		}
	}
	close(fd);
	buf[len] = '\0';
	int status = 0;
	ck_assert_int_eq(sscanf(buf, "HTTP/1.1 %d", &status), 1);
	char *at = strstr(buf, "\r\n\r\n");
	ck_assert_ptr_nonnull(at);
	*body = strdup(at + 4);
	free(buf);
	return status;
}

/* GET path as JSON (status 200), the caller frees it. */
static cJSON *http_json(int port, const char *path)
{
	char *body;
	ck_assert_int_eq(http_get(port, path, &body), 200);
	cJSON *j = cJSON_Parse(body);
	ck_assert_msg(j != NULL, "%s: %s", path, body);
	free(body);
	return j;
}

/* How many entries of the array k of j have field f equal to the name or number v. */
static int count_in(const cJSON *j, const char *k, const char *f, const char *name, double v)
{
	int n = 0;
	const cJSON *e;
	cJSON_ArrayForEach(e, cJSON_GetObjectItem(j, k))
	{
		const cJSON *x = cJSON_GetObjectItem(e, f);
		n += name != NULL ? cJSON_IsString(x) && strcmp(x->valuestring, name) == 0
		                  : cJSON_IsNumber(x) && x->valuedouble == v;
	}
	return n;
}

/*
 * --http on cluster nodes: the page and its WebSocket on a node work as a client of the
 * cluster (a game of another node accepted and played through it); the API's records
 * (/api/game/ID) are the cluster's (PostgreSQL) on every node, and so is /api/games/live
 * (every node's games, each with its node), while /api/online shows what the node asked
 * holds (its own connections), as PROTOCOL.md 14 says.
 */
START_TEST(test_http_cluster)
{
	struct trio t = {0};
	int h1 = up_with(&t.n[0], "n1", "--http"), h2 = up_with(&t.n[1], "n2", "--http");
	char *page;
	ck_assert_int_eq(http_get(h2, "/", &page), 200);
	ck_assert_ptr_nonnull(strstr(page, "<html"));
	free(page);
	struct ts_cli a;
	ts_join(&a, t.n[0].port, "alice");
	struct ws_cli w; /* bob, on n2's web listener */
	wsc_open(&w, h2);
	free(wsc_recv(&w)); /* the welcome */
	wsc_send(&w, "set format json");
	free(wsc_recv(&w));
	wsc_send(&w, "login bob");
	char *m = wsc_recv(&w);
	ck_assert_msg(m != NULL && strstr(m, "\"cmd\":\"login\"") != NULL, "login: %s", m);
	free(m);
	ts_send(&a, "seek ttt color=first");
	cJSON *ok = ts_until(&a, "{\"type\":\"ok\",\"cmd\":\"seek\"}");
	int seek = ts_jint(cJSON_GetObjectItem(ok, "seek"), "id");
	cJSON_Delete(ok);
	wsc_send(&w, "accept %d", seek);
	cJSON *st = ts_until(&a, "{\"type\":\"game_start\"}");
	int id = ts_jint(st, "game");
	cJSON_Delete(st);
	ts_send(&a, "move %d a1", id);
	ts_until0(&a, "{\"type\":\"ok\",\"cmd\":\"move\"}");
	bool seen = false; /* bob's page gets the state through n2 */
	while (!seen && (m = wsc_recv(&w)) != NULL) {
		seen = strstr(m, "\"type\":\"state\"") != NULL &&
		       strstr(m, "\"last_move\":\"a1\"") != NULL;
		free(m);
	}
	ck_assert(seen);
	/* node-local: who is connected to the node asked */
	cJSON *o1 = http_json(h1, "/api/online"), *o2 = http_json(h2, "/api/online");
	ck_assert_int_eq(count_in(o1, "users", "name", "alice", 0), 1);
	ck_assert_int_eq(count_in(o1, "users", "name", "bob", 0), 0);
	ck_assert_int_eq(count_in(o2, "users", "name", "bob", 0), 1);
	ck_assert_int_eq(count_in(o2, "users", "name", "alice", 0), 0);
	cJSON_Delete(o1);
	cJSON_Delete(o2);
	cJSON *l1 = http_json(h1, "/api/games/live"), *l2 = http_json(h2, "/api/games/live");
	ck_assert_int_eq(count_in(l1, "games", "id", NULL, id), 1);
	ck_assert_int_eq(count_in(l2, "games", "id", NULL, id), 1);
	ck_assert_int_eq(count_in(l2, "games", "node", "n1", 0), 1);
	cJSON_Delete(l1);
	cJSON_Delete(l2);
	/* the records are the cluster's: the game of n1, read on n2 */
	char path[64];
	snprintf(path, sizeof path, "/api/game/%d", id);
	cJSON *g = http_json(h2, path);
	char *txt = cJSON_PrintUnformatted(g);
	ck_assert_msg(strstr(txt, "\"a1\"") != NULL, "%s: %s", path, txt);
	free(txt);
	cJSON_Delete(g);
	wsc_close(&w);
	ts_close(&a);
	trio_down(&t);
}
END_TEST

/*
 * Reads fd into buf (NUL-terminated, len bytes so far) until it holds want, or the close
 * (want NULL), or 15 s pass; whether it got there.
 */
static bool read_until(int fd, char *buf, size_t cap, size_t *len, const char *want)
{
	for (int waited = 0; waited < 150;) {
		if (want != NULL && strstr(buf, want) != NULL)
			return true;
		struct pollfd p = {.fd = fd, .events = POLLIN};
		if (poll(&p, 1, 100) == 0) {
			waited++;
			continue;
		}
		ssize_t r = read(fd, buf + *len, cap - 1 - *len);
		if (r <= 0)
			return want == NULL;
		*len += (size_t)r;
		buf[*len] = '\0';
	}
	return false;
}

/*
 * The HTTP API's live view is the cluster's: a game both of whose players are on n1 is
 * listed by n2's /api/games/live (with its node), and n2's /api/stream/game/ID follows it
 * as a spectator of the cluster: the state at the start, each move's state in order, the
 * game_over line, and the close; a game no node has is 404 there.
 */
START_TEST(test_http_live_stream)
{
	struct trio t = {0};
	up_with(&t.n[0], "n1", "--http");
	int h2 = up_with(&t.n[1], "n2", "--http");
	struct ts_cli a, b;
	ts_join(&a, t.n[0].port, "alice");
	ts_join(&b, t.n[0].port, "bob");
	int id = ts_begin_game(&a, &b, "ttt");
	cJSON *l2 = NULL; /* n1 writes its games at its next tick */
	for (int i = 0; i < 50 && count_in(l2, "games", "id", NULL, id) == 0; i++) {
		cJSON_Delete(l2);
		usleep(i > 0 ? 100000 : 0);
		l2 = http_json(h2, "/api/games/live");
	}
	ck_assert_int_eq(count_in(l2, "games", "id", NULL, id), 1);
	ck_assert_int_eq(count_in(l2, "games", "node", "n1", 0), 1);
	ck_assert_int_eq(count_in(l2, "games", "kind", "ttt", 0), 1);
	ck_assert_int_eq(ts_jint(l2, "count"), 1);
	cJSON_Delete(l2);
	char *body;
	ck_assert_int_eq(http_get(h2, "/api/stream/game/999999", &body), 404);
	ck_assert_msg(strstr(body, "NO_SUCH_GAME") != NULL && strstr(body, "\"cmd\"") == NULL, "%s",
	              body);
	free(body);
	char path[64];
	snprintf(path, sizeof path, "/api/stream/game/%d", id);
	int fd = http_open(h2, path);
	static char buf[1 << 16];
	size_t len = 0;
	buf[0] = '\0';
	ck_assert_msg(read_until(fd, buf, sizeof buf, &len, "\"type\":\"state\""), "%s", buf);
	ck_assert_msg(strncmp(buf, "HTTP/1.1 200", 12) == 0, "%s", buf);
	const char *moves[] = {"a1", "b1", "a2", "b2", "a3"};
	for (int i = 0; i < 5; i++) {
		struct ts_cli *p = i % 2 ? &b : &a;
		ts_send(p, "move %d %s", id, moves[i]);
		ts_until0(p, "{\"type\":\"ok\",\"cmd\":\"move\"}");
		char want[48]; /* each state reaches the stream before the next move */
		snprintf(want, sizeof want, "\"last_move\":\"%s\"", moves[i]);
		ck_assert_msg(read_until(fd, buf, sizeof buf, &len, want), "%s: %s", want, buf);
	}
	ck_assert_msg(read_until(fd, buf, sizeof buf, &len, NULL), "no close: %s", buf);
	close(fd);
	/* the lines: states in the order of the moves, then game_over, then nothing */
	const char *at = strstr(buf, "\r\n\r\n");
	ck_assert_ptr_nonnull(at);
	int next = 0, lines = 0;
	bool over = false;
	for (char *line = strtok((char *)at + 4, "\n"); line != NULL; line = strtok(NULL, "\n")) {
		cJSON *j = cJSON_Parse(line);
		ck_assert_msg(j != NULL && !over, "line %d after the end or not JSON: %s", lines,
		              line);
		const char *type = cJSON_GetStringValue(cJSON_GetObjectItem(j, "type"));
		ck_assert_ptr_nonnull(type);
		ck_assert_int_eq(ts_jint(j, "game"), id);
		if (strcmp(type, "game_over") == 0) {
			over = true;
		} else {
			ck_assert_str_eq(type, "state");
			const char *lm = cJSON_GetStringValue(cJSON_GetObjectItem(j, "last_move"));
			if (lm != NULL) {
				ck_assert_int_lt(next, 5);
				ck_assert_str_eq(lm, moves[next]);
				next++;
			}
		}
		cJSON_Delete(j);
		lines++;
	}
	ck_assert_int_eq(next, 5);
	ck_assert(over);
	ts_close(&a);
	ts_close(&b);
	trio_down(&t);
}
END_TEST

/* A playtak guest on port: its welcome, Login Guest, its name. */
static void pt_guest(struct ts_cli *c, int port)
{
	ts_open(c, port);
	ts_expect0(c, "Welcome!");
	ts_expect0(c, "Login or Register");
	ts_send(c, "Login Guest");
	ts_until0(c, "Welcome *!");
}

/*
 * The playtak port on a cluster node: its guest's seek is a seek of the cluster (a user of
 * another node sees it in seeks, accepts it, and the two play: the game runs on the port's
 * node); another node's seek of another game is NOK there, as PROTOCOL.md 11 and 12 say.
 */
START_TEST(test_playtak_cluster)
{
	struct trio t = {0};
	int p1 = up_with(&t.n[0], "n1", "--playtak"), p2 = up_with(&t.n[1], "n2", "--playtak");
	struct ts_cli p, q, b;
	pt_guest(&p, p1);
	ts_join(&b, t.n[1].port, "bob");
	ts_send(&p, "Seek 5 300 0 W");
	ts_until0(&p, "Seek new * Guest* 5 300 0 W *");
	cJSON *sk = ts_until(&b, "{\"type\":\"seek\",\"event\":\"new\"}");
	int seek = ts_jint(cJSON_GetObjectItem(sk, "seek"), "id");
	cJSON_Delete(sk);
	ts_send(&b, "accept %d", seek);
	cJSON *acc = ts_until(&b, "{\"type\":\"ok\",\"cmd\":\"accept\"}");
	int id = ts_jint(acc, "game");
	cJSON_Delete(acc);
	char pat[128];
	snprintf(pat, sizeof pat, "Game Start %d 5 Guest* vs bob white *", id);
	ts_until0(&p, pat);
	ts_send(&p, "Game#%d P A1", id);
	ts_until0(&p, "OK");
	cJSON_Delete(ts_untilf(&b, "{\"type\":\"state\",\"game\":%d,\"last_move\":\"a1\"}", id));
	ts_send(&b, "move %d e5", id);
	snprintf(pat, sizeof pat, "Game#%d P E5", id);
	ts_until0(&p, pat);
	assert_stored(id, "a1 e5", "in_progress");
	/* the port's Online counts its node's users, not the relay client standing for bob */
	struct ts_cli x;
	pt_guest(&x, p1);
	ts_until0(&x, "Online 2");
	char *l = ts_line(&x);
	ck_assert_msg(l != NULL && strncmp(l, "OnlinePlayers [", 15) == 0 &&
	                      strstr(l, "\"bob\"") == NULL,
	              "%s", l ? l : "(none)");
	free(l);
	ts_close(&x);
	/* another node's seek of another game is never shown: not the client's to accept */
	struct ts_cli a;
	ts_join(&a, t.n[0].port, "alice");
	ts_send(&a, "seek ttt");
	cJSON *ok = ts_until(&a, "{\"type\":\"ok\",\"cmd\":\"seek\"}");
	int s2 = ts_jint(cJSON_GetObjectItem(ok, "seek"), "id");
	cJSON_Delete(ok);
	pt_guest(&q, p2);
	ts_send(&q, "Accept %d", s2);
	ts_until0(&q, "NOK");
	for (struct ts_cli **c = (struct ts_cli *[]){&p, &q, &a, &b, NULL}; *c; c++)
		ts_close(*c);
	trio_down(&t);
}
END_TEST

/* c's next line that is no Online/OnlinePlayers news (malloc'd; NULL: none came). */
static char *pt_line_past_online(struct ts_cli *c)
{
	char *l;
	while ((l = ts_line(c)) != NULL && strncmp(l, "Online", 6) == 0)
		free(l);
	return l;
}

/* n1 with a playtak port, where a guest logs in (p), and n2, where bob (b) seeks with
   what: the seek's id. */
static int pt_remote_seek(struct trio *t, struct ts_cli *p, struct ts_cli *b, const char *what)
{
	int p1 = up_with(&t->n[0], "n1", "--playtak");
	up_node(&t->n[1], "n2", NULL, 0);
	pt_guest(p, p1);
	ts_join(b, t->n[1].port, "bob");
	ts_send(b, "seek ttt"); /* another game's seek: not shown on the playtak port */
	cJSON_Delete(ts_until(b, "{\"type\":\"ok\",\"cmd\":\"seek\"}"));
	ts_send(b, "seek %s", what);
	cJSON *ok = ts_until(b, "{\"type\":\"ok\",\"cmd\":\"seek\"}");
	int seek = ts_jint(cJSON_GetObjectItem(ok, "seek"), "id");
	cJSON_Delete(ok);
	return seek;
}

/*
 * Another node's open Tak seeks reach the playtak port's clients as its own do: a seek made
 * on n2 by a native client is a "Seek new" line on n1's port (the lobby's news on the
 * cluster's lobby channel, rendered by the port from the seek's JSON), its withdrawal a
 * "Seek remove" with the same fields; List shows it too (after the node's own, from the
 * cluster's seeks); another node's seek of another game is not shown.
 */
START_TEST(test_playtak_remote_seeks)
{
	struct trio t = {0};
	struct ts_cli p, b;
	int seek = pt_remote_seek(&t, &p, &b, "tak size=3 komi=2 time=3+5 color=second");
	/* the first line n1's guest gets is the Tak seek, in playtak's fields (not the ttt one) */
	char pat[128];
	int n = snprintf(pat, sizeof pat, "Seek new %d bob 3 180 5 B 2 10 0 ", seek);
	char *l = pt_line_past_online(&p), *shown = l != NULL ? strdup(l + 9) : NULL;
	ck_assert_msg(l != NULL && strncmp(l, pat, (size_t)n) == 0, "%s", l ? l : "(none)");
	free(l);
	/* List: this node's seeks (none), then the other nodes' (the cluster's seeks) */
	ts_send(&p, "List");
	snprintf(pat, sizeof pat, "Seek new %s", shown);
	l = pt_line_past_online(&p);
	ck_assert_msg(l != NULL && strcmp(l, pat) == 0, "%s", l ? l : "(none)");
	free(l);
	ts_send(&b, "unseek %d", seek);
	ts_until0(&b, "{\"type\":\"ok\",\"cmd\":\"unseek\"}");
	snprintf(pat, sizeof pat, "Seek remove %s", shown);
	l = pt_line_past_online(&p);
	ck_assert_msg(l != NULL && strcmp(l, pat) == 0, "%s", l ? l : "(none)");
	free(l);
	free(shown);
	ts_close(&p);
	ts_close(&b);
	trio_down(&t);
}
END_TEST

/*
 * A playtak client accepts another node's seek and plays it there: a guest on n1 accepts
 * bob's Tak 3x3 seek made on n2 (Accept N); the game runs on n2, the guest stays on n1, whose
 * port renders the JSON the owner's relay client sends it as playtak lines (Game Start, the
 * opponent's moves, OK for its own, Game#N Over); the record in PostgreSQL has the moves.
 */
START_TEST(test_playtak_accepts_remote)
{
	struct trio t = {0};
	struct ts_cli p, b;
	int seek = pt_remote_seek(&t, &p, &b, "tak size=3 color=second");
	char pat[128];
	snprintf(pat, sizeof pat, "Seek new %d bob 3 *", seek);
	ts_until0(&p, pat);
	ts_send(&p, "Accept %d", seek);
	cJSON *gs = ts_until(&b, "{\"type\":\"game_start\"}");
	int id = ts_jint(gs, "game");
	cJSON_Delete(gs);
	snprintf(pat, sizeof pat, "Game Start %d 3 Guest* vs bob white *", id);
	ts_until0(&p, pat);
	/* white makes a road on row 1: a3 (black's), a1 (white's), b1, b3, c1 */
	const char *pt[] = {"P A3", NULL, "P B1", NULL, "P C1"}, *nat[] = {NULL, "a1", NULL, "b3"};
	for (int i = 0; i < 5; i++) {
		if (pt[i] != NULL) {
			ts_send(&p, "Game#%d %s", id, pt[i]);
			ts_until0(&p, "OK");
		} else {
			cJSON_Delete(ts_untilf(&b, "{\"type\":\"state\",\"game\":%d,\"ply\":%d}",
			                       id, i));
			ts_send(&b, "move %d %s", id, nat[i]);
			snprintf(pat, sizeof pat, "Game#%d P %c%c", id, nat[i][0] - 'a' + 'A',
			         nat[i][1]);
			ts_until0(&p, pat);
		}
	}
	snprintf(pat, sizeof pat, "Game#%d Over R-0", id);
	ts_until0(&p, pat);
	cJSON_Delete(ts_untilf(&b, "{\"type\":\"game_over\",\"game\":%d}", id));
	assert_stored(id, "a3 a1 b1 b3 c1", "finished");
	ts_close(&p);
	ts_close(&b);
	trio_down(&t);
}
END_TEST

/* ---- events: tournaments, the ladder, pools ------------------------------------------------ */

/* Whether j, printed, has s in it. */
static bool has_text(const cJSON *j, const char *s)
{
	char *t = cJSON_PrintUnformatted(j);
	bool yes = t != NULL && strstr(t, s) != NULL;
	free(t);
	return yes;
}

/* c subscribes to the tournaments' events. */
static void subscribe_tourneys(struct ts_cli *c)
{
	ts_send(c, "set tourneys on");
	ts_until0(c, "{\"type\":\"ok\",\"cmd\":\"set\",\"tourneys\":true}");
}

/* The index of name among names (n of them). */
static int who_of(const char *const *names, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	ck_abort_msg("no player %s", name);
	return -1;
}

/*
 * Plays every round that dir (a subscriber) hears paired until it hears the tournament
 * finished (returned): in each game white wins (black resigns once its game_start came). skip:
 * a game (0: none) already over, not played again.
 */
static cJSON *play_white_wins(struct ts_cli *dir, struct ts_cli *p, const char *const *names, int n,
                              int skip)
{
	for (;;) {
		cJSON *e = ts_until(dir, "{\"type\":\"tourney\"}");
		const char *ev = ts_jstr(e, "event");
		if (strcmp(ev, "finished") == 0)
			return e;
		if (strcmp(ev, "round") == 0) {
			const cJSON *pr;
			cJSON_ArrayForEach(pr, cJSON_GetObjectItem(e, "pairs"))
			{
				int game = ts_jint(pr, "game");
				const cJSON *black = cJSON_GetObjectItem(pr, "black");
				if (game == 0 || game == skip || !cJSON_IsString(black))
					continue;
				struct ts_cli *w = &p[who_of(names, n, ts_jstr(pr, "white"))],
				              *b = &p[who_of(names, n, black->valuestring)];
				cJSON_Delete(ts_untilf(w, "{\"type\":\"game_start\",\"game\":%d}",
				                       game));
				cJSON_Delete(ts_untilf(b, "{\"type\":\"game_start\",\"game\":%d}",
				                       game));
				ts_send(b, "resign %d", game);
				ts_until0(b, "{\"type\":\"ok\",\"cmd\":\"resign\"}");
			}
		}
		cJSON_Delete(e);
	}
}

/* A finished round-robin of 4 where white always won: 6 games, each 1-0, scores 6 in all. */
static void assert_rr_done(const cJSON *end)
{
	const cJSON *st = cJSON_GetObjectItem(end, "standings"), *r;
	ck_assert_int_eq(cJSON_GetArraySize(st), 4);
	double total = 0;
	cJSON_ArrayForEach(r, st) total += cJSON_GetNumberValue(cJSON_GetObjectItem(r, "score"));
	ck_assert(total == 6.0);
}

/* The tournament id's games as told by c's node: n of them, each won by white. */
static void assert_rr_games(struct ts_cli *c, int id)
{
	ts_send(c, "tourney games %d", id);
	cJSON *games = ts_until(c, "{\"type\":\"ok\",\"cmd\":\"tourney\"}");
	const cJSON *gs = cJSON_GetObjectItem(games, "games"), *g;
	ck_assert_int_eq(cJSON_GetArraySize(gs), 6);
	cJSON_ArrayForEach(g, gs) ck_assert_str_eq(ts_jstr(g, "result"), "1-0");
	cJSON_Delete(games);
}

/* A round-robin of ttt created by dir, joined by the n players (each from its own node). */
static int rr_create(struct ts_cli *dir, struct ts_cli *p, int n)
{
	ts_send(dir, "tourney create ttt format=roundrobin name=Nodes");
	cJSON *ok = ts_until(dir, "{\"type\":\"ok\",\"cmd\":\"tourney\",\"state\":\"created\"}");
	int id = ts_jint(ok, "tourney");
	cJSON_Delete(ok);
	for (int i = 0; i < n; i++) {
		ts_send(&p[i], "tourney join %d", id);
		cJSON_Delete(ts_untilf(
		        &p[i], "{\"type\":\"ok\",\"cmd\":\"tourney\",\"players\":%d}", i + 1));
	}
	ts_send(dir, "tourney start %d", id);
	cJSON_Delete(ts_until(dir, "{\"type\":\"ok\",\"cmd\":\"tourney\",\"rounds\":3}"));
	return id;
}

/*
 * A tournament with players on two nodes: n1 (the first node up) runs the events; the
 * director on n2 creates and starts it there, alice and carol (n1) and bob and dave (n2) join
 * from their nodes, every game starts by itself with both its players wherever they are, the
 * events reach the subscribers of both nodes, and show, list and games answer alike on both.
 */
START_TEST(test_tourney_two_nodes)
{
	struct trio t = {0};
	up(&t.n[0], "n1");
	up(&t.n[1], "n2");
	struct ts_cli td, sam, p[4];
	const char *names[] = {"alice", "bob", "carol", "dave"};
	ts_join(&td, t.n[1].port, "td");
	ts_join(&sam, t.n[0].port, "sam");
	subscribe_tourneys(&td);
	subscribe_tourneys(&sam);
	for (int i = 0; i < 4; i++)
		ts_join(&p[i], t.n[i % 2].port, names[i]);
	int id = rr_create(&td, p, 4);
	cJSON *end = play_white_wins(&td, p, names, 4, 0);
	assert_rr_done(end);
	cJSON_Delete(end);
	cJSON_Delete(ts_untilf(&sam, "{\"type\":\"tourney\",\"event\":\"finished\",\"tourney\":%d}",
	                       id));
	for (int k = 0; k < 2; k++) {
		struct ts_cli *c = k == 0 ? &sam : &td;
		ts_send(c, "tourney show %d", id);
		cJSON *show =
		        ts_until(c, "{\"type\":\"ok\",\"cmd\":\"tourney\",\"state\":\"finished\"}");
		ck_assert_int_eq(ts_jint(show, "played"), 3);
		cJSON_Delete(show);
		ts_send(c, "tourney list");
		cJSON *list = ts_until(c, "{\"type\":\"ok\",\"cmd\":\"tourney\"}");
		ck_assert(has_text(list, "\"Nodes\""));
		cJSON_Delete(list);
		assert_rr_games(c, id);
	}
	ts_close(&td);
	ts_close(&sam);
	for (int i = 0; i < 4; i++)
		ts_close(&p[i]);
	trio_down(&t);
}
END_TEST

/*
 * The events' node killed (kill -9) in the middle of round 1 of a tournament whose players
 * and director are on the other two nodes: one of them takes its games and the tournament
 * over, the game in progress goes on there with its players, the result told before the kill
 * counts once, and the tournament is played to its end.
 */
START_TEST(test_tourney_takeover)
{
	struct trio t;
	trio_up(&t);
	struct ts_cli td, p[4];
	const char *names[] = {"alice", "bob", "carol", "dave"};
	ts_join(&td, t.n[2].port, "td");
	subscribe_tourneys(&td);
	for (int i = 0; i < 4; i++)
		ts_join(&p[i], t.n[1 + i % 2].port, names[i]);
	int id = rr_create(&td, p, 4);
	cJSON *e = ts_until(&td, "{\"type\":\"tourney\",\"event\":\"round\",\"round\":1}");
	const cJSON *pairs = cJSON_GetObjectItem(e, "pairs");
	int g[2];
	struct ts_cli *bl[2];
	for (int k = 0; k < 2; k++) {
		const cJSON *pr = cJSON_GetArrayItem(pairs, k);
		g[k] = ts_jint(pr, "game");
		bl[k] = &p[who_of(names, 4, ts_jstr(pr, "black"))];
		cJSON_Delete(ts_untilf(bl[k], "{\"type\":\"game_start\",\"game\":%d}", g[k]));
	}
	cJSON_Delete(e);
	ts_send(bl[0], "resign %d", g[0]);
	ts_until0(bl[0], "{\"type\":\"ok\",\"cmd\":\"resign\"}");
	cJSON_Delete(
	        ts_untilf(&td, "{\"type\":\"tourney\",\"event\":\"result\",\"game\":%d}", g[0]));
	assert_stored(g[0], "", "finished");
	node_gone(&t.n[0]);
	/* the game in progress moved: its black player is seated there again, and resigns */
	cJSON_Delete(ts_untilf(bl[1], "{\"type\":\"info\",\"game\":%d,\"event\":\"moved\"}", g[1]));
	cJSON_Delete(ts_untilf(bl[1], "{\"type\":\"game_start\",\"game\":%d}", g[1]));
	ts_send(bl[1], "resign %d", g[1]);
	ts_until0(bl[1], "{\"type\":\"ok\",\"cmd\":\"resign\"}");
	cJSON *end = play_white_wins(&td, p, names, 4, g[1]);
	assert_rr_done(end);
	cJSON_Delete(end);
	assert_rr_games(&td, id);
	ts_close(&td);
	for (int i = 0; i < 4; i++)
		ts_close(&p[i]);
	trio_down(&t);
}
END_TEST

/*
 * The events' node paused (SIGSTOP) in round 1 until another takes its games and the
 * tournament over, then let go on (SIGCONT): it finds the lease another's and forgets the
 * tournament (the taker runs it: the rest is played there), and a client of it asks the taker
 * (`tourney show` through it says what the taker says).
 */
START_TEST(test_events_node_paused)
{
	struct trio t;
	trio_up(&t);
	struct ts_cli td, obs, p[4];
	const char *names[] = {"alice", "bob", "carol", "dave"};
	ts_join(&td, t.n[2].port, "td");
	ts_join(&obs, t.n[0].port, "obs");
	subscribe_tourneys(&td);
	for (int i = 0; i < 4; i++)
		ts_join(&p[i], t.n[1 + i % 2].port, names[i]);
	int id = rr_create(&td, p, 4);
	cJSON *e = ts_until(&td, "{\"type\":\"tourney\",\"event\":\"round\",\"round\":1}");
	const cJSON *pairs = cJSON_GetObjectItem(e, "pairs");
	int g[2];
	struct ts_cli *bl[2];
	for (int k = 0; k < 2; k++) {
		const cJSON *pr = cJSON_GetArrayItem(pairs, k);
		g[k] = ts_jint(pr, "game");
		bl[k] = &p[who_of(names, 4, ts_jstr(pr, "black"))];
		cJSON_Delete(ts_untilf(bl[k], "{\"type\":\"game_start\",\"game\":%d}", g[k]));
	}
	cJSON_Delete(e);
	ck_assert_int_eq(kill(t.n[0].pid, SIGSTOP), 0);
	for (int k = 0; k < 2; k++)
		cJSON_Delete(ts_untilf(bl[k], "{\"type\":\"info\",\"game\":%d,\"event\":\"moved\"}",
		                       g[k]));
	ck_assert_int_eq(kill(t.n[0].pid, SIGCONT), 0);
	for (int k = 0; k < 2; k++) {
		cJSON_Delete(ts_untilf(bl[k], "{\"type\":\"game_start\",\"game\":%d}", g[k]));
		ts_send(bl[k], "resign %d", g[k]);
		ts_until0(bl[k], "{\"type\":\"ok\",\"cmd\":\"resign\"}");
	}
	cJSON *end = play_white_wins(&td, p, names, 4, g[1]);
	assert_rr_done(end);
	cJSON_Delete(end);
	ts_send(&obs, "tourney show %d", id);
	cJSON *show =
	        ts_until(&obs, "{\"type\":\"ok\",\"cmd\":\"tourney\",\"state\":\"finished\"}");
	ck_assert_int_eq(ts_jint(show, "played"), 3);
	cJSON_Delete(show);
	assert_rr_games(&obs, id);
	ts_close(&td);
	ts_close(&obs);
	for (int i = 0; i < 4; i++)
		ts_close(&p[i]);
	trio_down(&t);
}
END_TEST

/* c's next game start: its id (and *seat, c's seat in it); a start, not a return, wherever c
 * is connected. */
static int next_start(struct ts_cli *c, int *seat)
{
	cJSON *s = ts_until(c, "{\"type\":\"game_start\"}");
	ck_assert_ptr_null(cJSON_GetObjectItem(s, "resumed"));
	int id = ts_jint(s, "game");
	*seat = ts_jint(s, "seat");
	cJSON_Delete(s);
	return id;
}

/*
 * One ladder for two nodes: ann joins on n1 (the events' node), ben on n2 (his `ladder join`
 * is forwarded there); their games start by themselves, colours alternate, and `ladder show`
 * on either node shows the same ladder with the games played; ben leaves from n2.
 */
START_TEST(test_ladder_two_nodes)
{
	struct trio t = {0};
	up(&t.n[0], "n1");
	up(&t.n[1], "n2");
	struct ts_cli a, b;
	ts_register(&a, t.n[0].port, "ann", "secret1");
	ts_register(&b, t.n[1].port, "ben", "secret2");
	ts_send(&a, "ladder join ttt");
	ts_until0(&a, "{\"type\":\"ok\",\"cmd\":\"ladder\"}");
	ts_send(&b, "ladder join ttt");
	ts_until0(&b, "{\"type\":\"ok\",\"cmd\":\"ladder\"}");
	int last_seat = -1;
	for (int k = 0; k < 3; k++) {
		int sa, sb;
		int ga = next_start(&a, &sa), gb = next_start(&b, &sb);
		ck_assert_int_eq(ga, gb);
		ck_assert_int_eq(sa + sb, 1);
		ck_assert_int_ne(sa, last_seat); /* colours alternate */
		last_seat = sa;
		struct ts_cli *loser = k % 2 ? &a : &b;
		ts_send(loser, "resign %d", ga);
		ts_until0(loser, "{\"type\":\"ok\",\"cmd\":\"resign\"}");
		ts_until0(&a, "{\"type\":\"game_over\"}");
		ts_until0(&b, "{\"type\":\"game_over\"}");
	}
	ts_send(&b, "ladder leave ttt");
	ts_until0(&b, "{\"type\":\"ok\",\"cmd\":\"ladder\"}");
	for (int k = 0; k < 2; k++) {
		struct ts_cli *c = k ? &b : &a;
		ts_send(c, "ladder show ttt");
		cJSON *show = ts_until(c, "{\"type\":\"ok\",\"cmd\":\"ladder\"}");
		ck_assert(has_text(show, "\"name\":\"ann\""));
		ck_assert(has_text(show, "\"name\":\"ben\""));
		ck_assert_int_ge(
		        ts_jint(cJSON_GetArrayItem(
		                        cJSON_GetObjectItem(
		                                cJSON_GetArrayItem(
		                                        cJSON_GetObjectItem(show, "ladders"), 0),
		                                "members"),
		                        0),
		                "games"),
		        3);
		cJSON_Delete(show);
	}
	ts_close(&a);
	ts_close(&b);
	trio_down(&t);
}
END_TEST

/* Two guests on two nodes in the same pool are paired (the pools are the events' node's). */
START_TEST(test_pool_two_nodes)
{
	struct trio t = {0};
	up(&t.n[0], "n1");
	up(&t.n[1], "n2");
	struct ts_cli a, b;
	ts_join(&a, t.n[0].port, "gina");
	ts_join(&b, t.n[1].port, "hal");
	ts_send(&b, "pool join ttt");
	ts_until0(&b, "{\"type\":\"ok\",\"cmd\":\"pool\"}");
	ts_send(&a, "pools");
	cJSON *ps = ts_until(&a, "{\"type\":\"ok\",\"cmd\":\"pools\"}");
	ck_assert(has_text(ps, "\"waiting\":1"));
	cJSON_Delete(ps);
	ts_send(&a, "pool join ttt");
	ts_until0(&a, "{\"type\":\"ok\",\"cmd\":\"pool\"}");
	int sa, sb;
	int ga = next_start(&a, &sa), gb = next_start(&b, &sb);
	ck_assert_int_eq(ga, gb);
	ck_assert_int_eq(sa + sb, 1);
	struct ts_cli *first = sa == 0 ? &a : &b;
	ts_send(first, "move %d b2", ga);
	ts_until0(first, "{\"type\":\"ok\",\"cmd\":\"move\"}");
	ts_close(&a);
	ts_close(&b);
	trio_down(&t);
}
END_TEST

/* A case of s on its own servers (started before its first test, stopped after its last),
 * each test on a fresh schema (setup). */
static TCase *add_case(Suite *s, const char *name, void (*start)(void), void (*stop)(void))
{
	TCase *tc = tcase_create(name);
	tcase_add_unchecked_fixture(tc, start, stop);
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return tc;
}

static Suite *cluster_suite(void)
{
	Suite *s = suite_create("cluster");
	if (!pgtest_available("check_cluster"))
		return s;
	TCase *tc = add_case(s, "postgresql", pg_up, pg_down);
	tcase_add_test(tc, test_pg_game);
	tcase_add_test(tc, test_pg_kill9);
	tcase_add_test(tc, test_pg_down_and_back);
	if (!redistest_available("check_cluster"))
		return s;
	tc = add_case(s, "cluster", both_up, both_down);
	tcase_add_test(tc, test_three_nodes);
	tcase_add_test(tc, test_owner_killed);
	tcase_add_test(tc, test_takeover_keeps_tokens);
	tcase_add_test(tc, test_tokens_across_nodes);
	tcase_add_test(tc, test_redis_restart);
	tcase_add_test(tc, test_pg_down_cluster);
	tcase_add_test(tc, test_limits_across_nodes);
	/* nodes paused, restarted at once, identities changed: CK_RUN_CASE=faults runs these */
	tc = add_case(s, "faults", both_up, both_down);
	tcase_add_test(tc, test_owner_paused);
	tcase_add_test(tc, test_paused_owner_answers_nothing_stale);
	tcase_add_test(tc, test_paused_owner_redis_restarted);
	tcase_add_test(tc, test_owner_key_delayed);
	tcase_add_test(tc, test_account_back_after_takeover);
	tcase_add_test(tc, test_owner_restarted);
	tcase_add_test(tc, test_guest_back_before_scan);
	tcase_add_test(tc, test_logout_remote);
	tcase_add_test(tc, test_resend_waits_for_store);
	/* identities across nodes: CK_RUN_CASE=reach runs these */
	tc = add_case(s, "reach", both_up, both_down);
	tcase_add_test(tc, test_login_takes_seat);
	tcase_add_test(tc, test_kick_reaches_late_node);
	tcase_add_test(tc, test_tell_match_remote);
	tcase_add_test(tc, test_http_cluster);
	tcase_add_test(tc, test_http_live_stream);
	tcase_add_test(tc, test_playtak_cluster);
	tcase_add_test(tc, test_playtak_remote_seeks);
	tcase_add_test(tc, test_playtak_accepts_remote);
	/* tournaments, the ladder and pools across nodes: CK_RUN_CASE=events runs these */
	tc = add_case(s, "events", both_up, both_down);
	tcase_add_test(tc, test_tourney_two_nodes);
	tcase_add_test(tc, test_tourney_takeover);
	tcase_add_test(tc, test_events_node_paused);
	tcase_add_test(tc, test_ladder_two_nodes);
	tcase_add_test(tc, test_pool_two_nodes);
	return s;
}

int main(void)
{
	return check_run(cluster_suite());
}
