/*
 * check_accounts.c - accounts, ratings and records over the real server
 * ($BITARENAD with a fresh --data directory per test): register and login
 * (wrong password, unknown name, names taken in any letter case, bad names
 * and passwords, guests kept off registered names), a second login taking
 * over the first (seats included), failed logins throttled per address,
 * rated seeks only between accounts, ratings after a rated game equal to
 * glicko_game()'s numbers, finger/history/record/replay, and the record text
 * re-imported with record_parse + record_replay reaching the game's final
 * position.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "testserver.h"

#include "games/game.h"
#include "server/util/glicko.h"
#include "games/record.h"
#include "check_main.h"

#include <math.h>

/* A server with a fresh store (and extra arguments), alice (a) and bob (b) registered on it. */
static void alice_and_bob(struct ts_srv *s, struct ts_cli *a, struct ts_cli *b,
                          const char *const *extra, int nextra)
{
	ts_up(s, extra, nextra);
	ts_register(a, s->port, "alice", "secret1");
	ts_register(b, s->port, "bob", "secret2");
}

START_TEST(test_register_and_login)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	struct ts_cli a, b, c, d;
	ts_register(&a, s.port, "alice", "secret1");
	ts_connect_json(&b, s.port);
	ts_send(&b, "register ALICE other12");
	ts_expect_err(&b, "NAME_TAKEN");
	ts_send(&b, "register a secret1");
	ts_expect_err(&b, "BAD_NAME");
	ts_send(&b, "register bad-name secret1");
	ts_expect_err(&b, "BAD_NAME");
	ts_send(&b, "register carol 12345");
	ts_expect_err(&b, "BAD_PASSWORD");
	ts_send(&b, "login alice");
	ts_expect_err(&b, "NAME_REGISTERED");
	ts_send(&b, "login ALICE");
	ts_expect_err(&b, "NAME_REGISTERED");
	ts_send(&b, "login alice secret2");
	ts_expect_err(&b, "BAD_LOGIN");
	ts_send(&b, "login nobody secret1");
	ts_expect_err(&b, "BAD_LOGIN");
	ts_send(&b, "seek ttt");
	ts_expect_err(&b, "NOT_LOGGED_IN");
	/* the right password in another letter case of the name: the canonical name */
	ts_send(&b, "#t login Alice secret1");
	ts_expect0(&b, "{\"type\":\"ok\",\"cmd\":\"login\",\"id\":\"t\",\"name\":\"alice\","
	               "\"guest\":false,\"resumed\":[]}");
	/* the first connection is told why, then closed */
	ts_expect0(&a,
	           "{\"type\":\"info\",\"event\":\"session_taken\",\"code\":\"SESSION_TAKEN\"}");
	ck_assert(ts_eof(&a));
	/* a password is the rest of the line */
	ts_register(&c, s.port, "dave", "my pass phrase");
	ts_close(&c);
	ts_connect_json(&c, s.port);
	ts_send(&c, "login dave my pass phrase");
	ts_expect0(&c, "{\"type\":\"ok\",\"cmd\":\"login\",\"name\":\"dave\",\"guest\":false}");
	/* commands after a login wait for its answer: they run as the account, in order */
	struct ts_cli p;
	ts_connect_json(&p, s.port);
	ts_send(&p,
	        "login erin secret9\nseek ttt\nregister erin secret9\nlogin alice secret1\nwho");
	ts_expect0(&p, "{\"type\":\"error\",\"code\":\"BAD_LOGIN\"}");
	ts_expect0(&p, "{\"type\":\"error\",\"code\":\"NOT_LOGGED_IN\",\"cmd\":\"seek\"}");
	ts_expect0(&p, "{\"type\":\"ok\",\"cmd\":\"register\",\"name\":\"erin\"}");
	ts_expect0(&p, "{\"type\":\"error\",\"code\":\"ALREADY_LOGGED_IN\"}");
	ts_expect0(&p, "{\"type\":\"ok\",\"cmd\":\"who\"}");
	ts_close(&p);
	/* a guest may not register a name a guest holds; who tells accounts from guests */
	ts_join(&d, s.port, "gus");
	ts_send(&c, "register gus secret1");
	ts_expect_err(&c, "NAME_TAKEN");
	ts_send(&d, "who");
	cJSON *w = ts_expect(&d, "{\"type\":\"ok\",\"cmd\":\"who\"}");
	cJSON *users = cJSON_GetObjectItem(w, "users");
	int seen = 0;
	for (cJSON *u = users->child; u != NULL; u = u->next) {
		const char *n = ts_jstr(u, "name");
		bool g = cJSON_IsTrue(cJSON_GetObjectItem(u, "guest"));
		if (strcmp(n, "gus") == 0)
			ck_assert(g), seen++;
		else
			ck_assert_msg(!g, "%s shown as a guest", n), seen++;
	}
	ck_assert_int_eq(seen, 3);
	cJSON_Delete(w);
	/* text mode */
	struct ts_cli t;
	ts_open(&t, s.port);
	ts_expect0(&t, "bitarenad * ready*");
	ts_send(&t, "login dave wrong-password");
	ts_expect0(&t, "error BAD_LOGIN: wrong name or password");
	ts_send(&t, "register fay secret9");
	ts_expect0(&t, "ok logged in as fay");
	ts_close(&t);
	ts_close(&b);
	ts_close(&c);
	ts_close(&d);
	ts_close(&a);
	ts_down(&s);
}
END_TEST

START_TEST(test_throttle)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	struct ts_cli a, b;
	ts_register(&a, s.port, "eve", "secret1");
	ts_connect_json(&b, s.port);
	for (int i = 0; i < 5; i++) {
		ts_send(&b, "login eve wrong%d", i);
		ts_expect_err(&b, "BAD_LOGIN");
	}
	/* the sixth try is refused before the password is looked at, right or not */
	ts_send(&b, "login eve secret1");
	cJSON *j = ts_expect(&b,
	                     "{\"type\":\"error\",\"code\":\"LOGIN_THROTTLED\",\"cmd\":\"login\"}");
	double retry = ts_jnum(j, "retry_s");
	ck_assert(retry >= 1 && retry <= 60);
	cJSON_Delete(j);
	/* guests are not throttled (no password to guess) */
	ts_send(&b, "login visitor");
	ts_expect0(&b, "{\"type\":\"ok\",\"cmd\":\"login\",\"guest\":true}");
	ts_close(&a);
	ts_close(&b);
	ts_down(&s);
}
END_TEST

/* A connection from the loopback address from, in JSON. */
static void json_from(struct ts_cli *c, int port, const char *from)
{
	ts_open_from(c, port, from);
	ts_expect0(c, "bitarenad * ready*");
	ts_send(c, "set format json");
	ts_expect0(c, "{\"type\":\"ok\",\"cmd\":\"set\",\"format\":\"json\"}");
}

/* One login from the address from: the code of its answer ("ok" when it logged in). */
static void login_from(int port, const char *from, const char *name, const char *pw,
                       const char *code)
{
	struct ts_cli c;
	json_from(&c, port, from);
	ts_send(&c, "login %s %s", name, pw);
	if (strcmp(code, "ok") == 0)
		cJSON_Delete(ts_expectf(&c, "{\"type\":\"ok\",\"cmd\":\"login\",\"name\":\"%s\"}",
		                        name));
	else
		ts_expect_err(&c, code);
	ts_close(&c);
}

/*
 * Failed logins are counted when they start, before the password is checked:
 * ten at once from one address get five answers and five refusals (all ten
 * were checked before). The account's own limit closes it only to addresses
 * it never logged in from; the right password from an address that did not
 * fail still opens it; an address failing against many accounts is closed.
 */
START_TEST(test_throttle_parallel)
{
	static const char *const args[] = {"--login-limit-account", "8", "--login-limit-address",
	                                   "12"};
	struct ts_srv s;
	ts_up(&s, args, 4);
	struct ts_cli a, c[10];
	ts_register(&a, s.port, "eve", "secret1"); /* from 127.0.0.1 */
	for (int i = 0; i < 10; i++)
		json_from(&c[i], s.port, "127.0.0.2");
	for (int i = 0; i < 10; i++)
		ts_send(&c[i], "login Eve wrong%d", i);
	int bad = 0, throttled = 0;
	for (int i = 0; i < 10; i++) {
		cJSON *j = ts_expect(&c[i], "{\"type\":\"error\",\"cmd\":\"login\"}");
		const char *code = ts_jstr(j, "code");
		if (strcmp(code, "BAD_LOGIN") == 0) {
			bad++;
		} else {
			ck_assert_str_eq(code, "LOGIN_THROTTLED");
			ck_assert(ts_jnum(j, "retry_after_ms") > 0);
			throttled++;
		}
		cJSON_Delete(j);
		ts_close(&c[i]);
	}
	ck_assert_int_eq(bad, 5);
	ck_assert_int_eq(throttled, 5);
	/* the attacker's address is closed to eve, right password or not */
	login_from(s.port, "127.0.0.2", "eve", "secret1", "LOGIN_THROTTLED");
	/* eve from elsewhere is not locked out */
	login_from(s.port, "127.0.0.3", "eve", "secret1", "ok");
	/* failures from more new addresses reach the account's limit (8): new addresses are
	   refused, those eve logged in or registered from are not */
	for (int i = 0; i < 3; i++)
		login_from(s.port, "127.0.0.4", "eve", "nope", "BAD_LOGIN");
	login_from(s.port, "127.0.0.5", "eve", "secret1", "LOGIN_THROTTLED");
	login_from(s.port, "127.0.0.3", "eve", "secret1", "ok");
	login_from(s.port, "127.0.0.1", "eve", "secret1", "ok");
	/* one address against many accounts (12 failures, unknown names cost the same) */
	for (int i = 0; i < 12; i++) {
		char name[16];
		snprintf(name, sizeof name, "user%d", i);
		login_from(s.port, "127.0.0.6", name, "guess1", "BAD_LOGIN");
	}
	login_from(s.port, "127.0.0.6", "eve", "secret1", "LOGIN_THROTTLED");
	login_from(s.port, "127.0.0.7", "user0", "guess1", "BAD_LOGIN");
	ts_close(&a);
	ts_down(&s);
}
END_TEST

/* register is limited per address (counted before the hash, taken or not). */
START_TEST(test_register_limit)
{
	static const char *const args[] = {"--register-limit", "2"};
	struct ts_srv s;
	ts_up(&s, args, 2);
	struct ts_cli c, d;
	json_from(&c, s.port, "127.0.0.2");
	ts_send(&c, "register reg1 secret1");
	ts_expect0(&c, "{\"type\":\"ok\",\"cmd\":\"register\",\"name\":\"reg1\"}");
	ts_send(&c, "register reg2 secret1");
	ts_expect0(&c, "{\"type\":\"ok\",\"cmd\":\"register\",\"name\":\"reg2\"}");
	ts_send(&c, "register reg3 secret1");
	cJSON *j = ts_expect(&c, "{\"type\":\"error\",\"code\":\"REGISTER_THROTTLED\","
	                         "\"cmd\":\"register\"}");
	ck_assert(ts_jnum(j, "retry_after_ms") > 3500000);
	cJSON_Delete(j);
	json_from(&d, s.port, "127.0.0.3");
	ts_send(&d, "register reg3 secret1");
	ts_expect0(&d, "{\"type\":\"ok\",\"cmd\":\"register\",\"name\":\"reg3\"}");
	/* text mode */
	ts_close(&c);
	ts_open_from(&c, s.port, "127.0.0.2");
	ts_expect0(&c, "bitarenad * ready*");
	ts_send(&c, "register reg4 secret1");
	ts_expect0(&c, "error REGISTER_THROTTLED: too many accounts registered from your address; "
	               "try again in * s");
	ts_close(&c);
	ts_close(&d);
	ts_down(&s);
}
END_TEST

/*
 * A guest's seat is the guest's: while it is away, neither a guest login nor
 * a registration takes the name; its token (given at login) brings it back,
 * from any address, and takes over a connection that still has it; once the
 * game is over the name is free.
 */
START_TEST(test_guest_seat_needs_token)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	struct ts_cli a, b, m, b2, b3;
	ts_join(&a, s.port, "ann");
	ts_join(&b, s.port, "gus");
	ck_assert_int_eq((int)strlen(b.token), 20);
	int id = ts_begin_game(&a, &b, "ttt");
	cJSON_Delete(ts_play(&a, &b, id, "a1"));
	char token[32];
	snprintf(token, sizeof token, "%s", b.token);
	ts_close(&b);
	ts_until0(&a, "{\"type\":\"info\",\"event\":\"gone\",\"player\":\"gus\"}");
	json_from(&m, s.port, "127.0.0.2");
	ts_send(&m, "login gus");
	ts_expect_err(&m, "NAME_TAKEN");
	ts_send(&m, "login GUS");
	ts_expect_err(&m, "NAME_TAKEN");
	ts_send(&m, "register gus secret1");
	ts_expect_err(&m, "NAME_TAKEN");
	ts_send(&m, "login gus abcdefghijkmnpqrstuvw");
	ts_expect_err(&m, "BAD_LOGIN");
	ts_send(&m, "ping");
	ts_expect0(&m, "{\"type\":\"pong\"}");
	/* the token, from another address */
	json_from(&b2, s.port, "127.0.0.3");
	ts_send(&b2, "login gus %s", token);
	cJSON_Delete(
	        ts_expectf(&b2,
	                   "{\"type\":\"ok\",\"cmd\":\"login\",\"name\":\"gus\",\"guest\":true,"
	                   "\"token\":\"%s\",\"resumed\":[%d]}",
	                   token, id));
	ts_until0(&b2, "{\"type\":\"state\",\"ply\":1}");
	/* again, while b2 has it: b2 is told and closed, b3 plays */
	ts_connect_json(&b3, s.port);
	ts_send(&b3, "login gus %s", token);
	cJSON_Delete(ts_expectf(&b3, "{\"type\":\"ok\",\"cmd\":\"login\",\"resumed\":[%d]}", id));
	ts_until0(&b2, "{\"type\":\"info\",\"event\":\"session_taken\"}");
	ck_assert(ts_eof(&b2));
	ts_until0(&b3, "{\"type\":\"state\",\"ply\":1}");
	cJSON_Delete(ts_play(&b3, &a, id, "b2"));
	/* a guest's own connection may not register its name while its game goes on */
	ts_send(&b3, "register gus secret1");
	ts_expect_err(&b3, "NAME_TAKEN");
	ts_send(&b3, "resign %d", id);
	ts_until0(&b3, "{\"type\":\"game_over\"}");
	ts_close(&b3);
	ts_until0(&a, "{\"type\":\"game_over\"}");
	/* the game is over and gus gone: the name is free */
	ts_send(&m, "register gus secret1");
	ts_expect0(&m, "{\"type\":\"ok\",\"cmd\":\"register\",\"name\":\"gus\"}");
	ts_close(&a);
	ts_close(&m);
	ts_close(&b2);
	ts_down(&s);
}
END_TEST

/* A guest login from address from: its token (into token, 21 bytes) and the games resumed
   as "[..]" text (into resumed, 64 bytes). */
static void guest_from(struct ts_cli *c, int port, const char *from, const char *name, char *token,
                       char *resumed)
{
	json_from(c, port, from);
	ts_send(c, "login %s", name);
	cJSON *ok = ts_expectf(c, "{\"type\":\"ok\",\"cmd\":\"login\",\"name\":\"%s\"}", name);
	const cJSON *t = cJSON_GetObjectItem(ok, "token");
	ck_assert(cJSON_IsString(t) && strlen(t->valuestring) == 20);
	snprintf(token, 21, "%s", t->valuestring);
	char *r = cJSON_PrintUnformatted(cJSON_GetObjectItem(ok, "resumed"));
	snprintf(resumed, 64, "%s", r != NULL ? r : "null");
	free(r);
	cJSON_Delete(ok);
}

/*
 * A guest who lost its token comes back from the address it left from, within the grace:
 * `login <name>` alone gives back its seats and a new token, which the seats want from then
 * on (the old one no longer fits). From another address the name stays taken; and when two
 * guests left seats from one address (a shared NAT), neither comes back without its token.
 */
START_TEST(test_guest_back_by_address)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	struct ts_cli a, g, g2, m, h, i, x;
	char old[21], tok[21], res[64];
	ts_join(&a, s.port, "ann");
	guest_from(&g, s.port, "127.0.0.4", "gil", old, res);
	int id = ts_begin_game(&a, &g, "ttt");
	cJSON_Delete(ts_play(&a, &g, id, "a1"));
	ts_close(&g);
	ts_until0(&a, "{\"type\":\"info\",\"event\":\"gone\",\"player\":\"gil\"}");
	json_from(&m, s.port, "127.0.0.5"); /* another address: taken, as before */
	ts_send(&m, "login gil");
	ts_expect_err(&m, "NAME_TAKEN");
	guest_from(&g2, s.port, "127.0.0.4", "gil", tok, res); /* its own: back */
	char want[32];
	snprintf(want, sizeof want, "[%d]", id);
	ck_assert_str_eq(res, want);
	ck_assert_str_ne(tok, old);
	ts_until0(&g2, "{\"type\":\"state\",\"ply\":1}");
	cJSON_Delete(ts_play(&g2, &a, id, "b2"));
	ts_close(&g2);
	ts_until0(&a, "{\"type\":\"info\",\"event\":\"gone\",\"player\":\"gil\"}");
	ts_send(&m, "login gil %s", old); /* the lost token no longer fits */
	ts_expect_err(&m, "BAD_LOGIN");
	ts_send(&m, "login gil %s", tok);
	cJSON_Delete(ts_expectf(&m, "{\"type\":\"ok\",\"cmd\":\"login\",\"resumed\":[%d]}", id));
	ts_send(&m, "resign %d", id);
	ts_until0(&a, "{\"type\":\"game_over\"}");
	/* two guests gone from one address: neither comes back by it */
	char th[21], ti[21];
	guest_from(&h, s.port, "127.0.0.7", "hal", th, res);
	guest_from(&i, s.port, "127.0.0.7", "ivy", ti, res);
	int gh = ts_begin_game(&a, &h, "ttt");
	int gi = ts_begin_game(&a, &i, "ttt");
	ts_close(&h);
	ts_close(&i);
	ts_until0(&a, "{\"type\":\"info\",\"event\":\"gone\",\"player\":\"ivy\"}");
	json_from(&x, s.port, "127.0.0.7");
	ts_send(&x, "login hal");
	ts_expect_err(&x, "NAME_TAKEN");
	ts_send(&x, "login ivy");
	ts_expect_err(&x, "NAME_TAKEN");
	ts_send(&x, "login hal %s", th); /* the token still does */
	cJSON_Delete(ts_expectf(&x, "{\"type\":\"ok\",\"cmd\":\"login\",\"resumed\":[%d]}", gh));
	(void)gi;
	ts_close(&x);
	ts_close(&m);
	ts_close(&a);
	ts_down(&s);
}
END_TEST

START_TEST(test_takeover_with_seat)
{
	struct ts_srv s;
	struct ts_cli a, b, a2;
	alice_and_bob(&s, &a, &b, NULL, 0);
	int id = ts_begin_game(&a, &b, "ttt");
	cJSON_Delete(ts_play(&a, &b, id, "a1"));
	ts_connect_json(&a2, s.port);
	ts_send(&a2, "login alice secret1");
	cJSON_Delete(ts_expectf(&a2, "{\"type\":\"ok\",\"cmd\":\"login\",\"resumed\":[%d]}", id));
	ts_expect0(&a2, "{\"type\":\"game_start\",\"seat\":0}");
	ts_expect0(&a2, "{\"type\":\"state\",\"ply\":1,\"last_move\":\"a1\"}");
	ts_until0(&a, "{\"type\":\"info\",\"event\":\"session_taken\"}");
	ck_assert(ts_eof(&a));
	ts_until0(&b, "{\"type\":\"info\",\"event\":\"gone\",\"player\":\"alice\"}");
	ts_until0(&b, "{\"type\":\"info\",\"event\":\"back\",\"player\":\"alice\"}");
	cJSON_Delete(ts_play(&b, &a2, id, "a2"));
	cJSON_Delete(ts_play(&a2, &b, id, "b1"));
	ts_close(&a);
	ts_close(&a2);
	ts_close(&b);
	ts_down(&s);
}
END_TEST

static const cJSON *rating_of(const cJSON *list, const char *name)
{
	for (const cJSON *r = list->child; r != NULL; r = r->next)
		if (strcmp(ts_jstr(r, "name"), name) == 0)
			return r;
	ck_abort_msg("no rating for %s", name);
	return NULL;
}

START_TEST(test_rated_game)
{
	struct ts_srv s;
	struct ts_cli a, b, g;
	alice_and_bob(&s, &a, &b, NULL, 0);
	ts_join(&g, s.port, "gus");
	ts_send(&g, "seek ttt rated=1");
	ts_expect_err(&g, "RATED_NEEDS_ACCOUNT");
	ts_send(&a, "seek ttt rated=1 color=first");
	cJSON *ok = ts_expect(&a, "{\"type\":\"ok\",\"cmd\":\"seek\",\"seek\":{\"rated\":true}}");
	int seek = ts_jint(cJSON_GetObjectItem(ok, "seek"), "id");
	cJSON_Delete(ok);
	ts_until0(&g, "{\"type\":\"seek\",\"event\":\"new\"}");
	ts_send(&g, "accept %d", seek);
	ts_expect_err(&g, "RATED_NEEDS_ACCOUNT");
	ts_until0(&b, "{\"type\":\"seek\",\"event\":\"new\"}");
	ts_send(&b, "accept %d", seek);
	cJSON *acc = ts_until(&b, "{\"type\":\"ok\",\"cmd\":\"accept\"}");
	int id = ts_jint(acc, "game");
	cJSON_Delete(acc);
	ts_until0(&a, "{\"type\":\"state\",\"seq\":1}");
	ts_until0(&b, "{\"type\":\"state\",\"seq\":1}");
	cJSON_Delete(ts_play(&a, &b, id, "a1"));
	cJSON_Delete(ts_play(&b, &a, id, "a2"));
	cJSON_Delete(ts_play(&a, &b, id, "b1"));
	cJSON_Delete(ts_play(&b, &a, id, "b2"));
	cJSON_Delete(ts_play(&a, &b, id, "c1"));
	ts_until0(&a, "{\"type\":\"game_over\",\"result\":{\"winner\":0}}");

	/* one game as one rating period for both, from the defaults */
	struct glicko d, na, nb;
	glicko_default(&d);
	glicko_game(&d, &d, 1.0, GLICKO_TAU, &na, &nb);
	ck_assert(na.rating > 1500 && nb.rating < 1500);
	ts_send(&g, "ratings ttt");
	cJSON *r = ts_until(&g, "{\"type\":\"ok\",\"cmd\":\"ratings\",\"kind\":\"ttt\"}");
	cJSON *list = cJSON_GetObjectItem(r, "ratings");
	ck_assert_int_eq(cJSON_GetArraySize(list), 2);
	ck_assert_str_eq(ts_jstr(list->child, "name"), "alice"); /* best first */
	const cJSON *ra = rating_of(list, "alice"), *rb = rating_of(list, "bob");
	ck_assert_double_eq_tol(ts_jnum(ra, "rating"), na.rating, 1e-6);
	ck_assert_double_eq_tol(ts_jnum(ra, "rd"), na.rd, 1e-6);
	ck_assert_double_eq_tol(ts_jnum(ra, "volatility"), na.vol, 1e-9);
	ck_assert_double_eq_tol(ts_jnum(rb, "rating"), nb.rating, 1e-6);
	ck_assert_double_eq_tol(ts_jnum(rb, "rd"), nb.rd, 1e-6);
	ck_assert_int_eq(ts_jint(ra, "games"), 1);
	cJSON_Delete(r);
	ts_send(&g, "ratings nosuchgame");
	ts_until0(&g, "{\"type\":\"error\",\"code\":\"UNKNOWN_GAME\"}");

	/* an unrated game with a guest changes nothing */
	int id2 = ts_begin_game(&a, &g, "ttt");
	ts_send(&a, "resign %d", id2);
	ts_until0(&g, "{\"type\":\"game_over\"}");
	ts_send(&b, "ratings ttt");
	r = ts_until(&b, "{\"type\":\"ok\",\"cmd\":\"ratings\"}");
	ra = rating_of(cJSON_GetObjectItem(r, "ratings"), "alice");
	ck_assert_int_eq(ts_jint(ra, "games"), 1);
	ck_assert_double_eq_tol(ts_jnum(ra, "rating"), na.rating, 1e-6);
	cJSON_Delete(r);

	/* finger: an account with its rating and games; a guest; nobody */
	ts_send(&b, "finger ALICE");
	cJSON *f = ts_until(&b, "{\"type\":\"ok\",\"cmd\":\"finger\",\"name\":\"alice\","
	                        "\"registered\":true,\"guest\":false,\"online\":true}");
	cJSON *fr = cJSON_GetObjectItem(f, "ratings");
	ck_assert_int_eq(cJSON_GetArraySize(fr), 1);
	ck_assert_str_eq(ts_jstr(fr->child, "kind"), "ttt");
	ck_assert_double_eq_tol(ts_jnum(fr->child, "rating"), na.rating, 1e-6);
	cJSON *fg = cJSON_GetObjectItem(f, "games");
	ck_assert_int_eq(cJSON_GetArraySize(fg), 2);
	ck_assert_int_eq(ts_jint(fg->child, "id"), id2); /* newest first */
	ck_assert_int_eq(ts_jint(fg->child->next, "id"), id);
	ck_assert_str_eq(ts_jstr(fg->child->next, "result"), "1-0");
	ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(fg->child->next, "rated")));
	ck_assert(cJSON_IsFalse(cJSON_GetObjectItem(fg->child, "rated")));
	cJSON_Delete(f);
	ts_send(&b, "finger gus");
	ts_until0(&b, "{\"type\":\"ok\",\"cmd\":\"finger\",\"name\":\"gus\",\"registered\":false,"
	              "\"guest\":true,\"online\":true,\"ratings\":[]}");
	ts_send(&b, "finger nobody");
	ts_until0(&b, "{\"type\":\"error\",\"code\":\"NO_SUCH_USER\"}");
	/* history: own games without a name, someone's with one */
	ts_send(&b, "history");
	cJSON *h = ts_until(&b, "{\"type\":\"ok\",\"cmd\":\"history\",\"name\":\"bob\"}");
	cJSON *hg = cJSON_GetObjectItem(h, "games");
	ck_assert_int_eq(cJSON_GetArraySize(hg), 1);
	ck_assert_int_eq(ts_jint(hg->child, "id"), id);
	ck_assert_str_eq(ts_jstr(hg->child, "reason"), "line");
	ck_assert_int_eq(ts_jint(hg->child, "plies"), 5);
	cJSON_Delete(h);
	ts_send(&b, "history gus");
	h = ts_until(&b, "{\"type\":\"ok\",\"cmd\":\"history\",\"name\":\"gus\"}");
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(h, "games")), 1);
	cJSON_Delete(h);
	ts_close(&a);
	ts_close(&b);
	ts_close(&g);
	ts_down(&s);
}
END_TEST

/* The record text of game id through c (JSON), malloc'd. */
static char *fetch_record(struct ts_cli *c, int id)
{
	ts_send(c, "record %d", id);
	cJSON *r = ts_until(c, "{\"type\":\"ok\",\"cmd\":\"record\"}");
	ck_assert_int_eq(ts_jint(r, "game"), id);
	char *text = strdup(ts_jstr(r, "record"));
	cJSON_Delete(r);
	return text;
}

START_TEST(test_record_and_replay)
{
	struct ts_srv s;
	struct ts_cli a, b, v;
	alice_and_bob(&s, &a, &b, NULL, 0);
	int id = ts_begin_game(&a, &b, "tak size=5 time=5+3");
	static const char *const moves[] = {"a1", "e5", "c3", "c2", "d3", "d2", "b3", "c2+"};
	cJSON *last = NULL;
	for (size_t i = 0; i < sizeof moves / sizeof moves[0]; i++) {
		cJSON_Delete(last);
		last = ts_play(i % 2 ? &b : &a, i % 2 ? &a : &b, id, moves[i]);
	}
	ts_send(&a, "resign %d", id);
	ts_until0(&b, "{\"type\":\"game_over\",\"result\":{\"winner\":1,\"reason\":\"resign\"}}");
	cJSON *pos = cJSON_Duplicate(cJSON_GetObjectItem(last, "position"), true);
	cJSON_Delete(last);

	/* the record: PTN tags, parsed back and replayed to the same position */
	char *text = fetch_record(&b, id);
	static const char *const tags[] = {
	        "[Player1 \"alice\"]", "[Player2 \"bob\"]", "[Date \"",      "[Size \"5\"]",
	        "[Komi \"0\"]",        "[Flats \"21\"]",    "[Caps \"1\"]",  "[Clock \"5:0 +3\"]",
	        "[Result \"0-1\"]",    "[Game \"tak\"]",    "[Rated \"no\"]"};
	for (size_t i = 0; i < sizeof tags / sizeof tags[0]; i++)
		ck_assert_msg(strstr(text, tags[i]) != NULL, "no %s in\n%s", tags[i], text);
	struct record rec;
	record_init(&rec);
	int line = 0;
	ck_assert_int_eq(record_parse(text, strlen(text), &rec, &line), 0);
	ck_assert_int_eq((int)rec.nmoves, 8);
	const struct game_ops *ops = game_find("tak");
	void *st = calloc(1, ops->state_size);
	const struct game_ops *used = NULL;
	int bad = 0;
	ck_assert_int_eq(record_replay(&rec, NULL, st, &used, &bad), 0);
	ck_assert_ptr_eq(used, ops);
	cJSON *mine = ops->to_json(st, 0);
	ck_assert_msg(cJSON_Compare(mine, pos, true), "the record replays to another position");
	cJSON_Delete(mine);
	record_clear(&rec);
	free(text);

	/* the same in text mode: the record's lines after the ok */
	struct ts_cli t;
	ts_open(&t, s.port);
	ts_expect0(&t, "bitarenad * ready*");
	ts_send(&t, "record %d", id);
	ts_expect0(&t, "ok record of game * (tak, 8 plies)");
	ts_expect0(&t, "\\[Event \"bitarena game *\"\\]"); /* a glob: [ ] escaped */
	ts_until0(&t, "\\[Player1 \"alice\"\\]");
	ts_until0(&t, "1. a1 e5");
	ts_until0(&t, "4. b3 c2+ 0-1");
	ts_send(&t, "record 999");
	ts_expect0(&t, "error NO_SUCH_GAME: *");
	ts_send(&t, "record x");
	ts_expect0(&t, "error BAD_ARGS: *");
	ts_send(&t, "replay 1 70000");
	ts_expect0(&t, "error BAD_ARGS: *");
	ts_close(&t);

	/* replay: every position in order to this connection only, the last one the game's */
	ts_connect_json(&v, s.port);
	ts_send(&v, "replay %d 0", id);
	ts_expect0(&v, "{\"type\":\"ok\",\"cmd\":\"replay\",\"plies\":8,\"delay_ms\":0}");
	for (int ply = 0; ply <= 8; ply++) {
		char pat[160];
		snprintf(pat, sizeof pat,
		         "{\"type\":\"replay\",\"game\":%d,\"ply\":%d,\"done\":%s}", id, ply,
		         ply == 8 ? "true" : "false");
		cJSON *r = ts_expect(&v, pat);
		if (ply > 0)
			ck_assert_str_eq(ts_jstr(r, "last_move"), moves[ply - 1]);
		if (ply == 8) {
			ck_assert(cJSON_Compare(cJSON_GetObjectItem(r, "position"), pos, true));
			const cJSON *res = cJSON_GetObjectItem(r, "result");
			ck_assert_str_eq(ts_jstr(res, "score"), "0-1");
			ck_assert_str_eq(ts_jstr(res, "reason"), "resign");
		}
		cJSON_Delete(r);
	}
	ts_send(&v, "ping");
	ts_expect0(&v, "{\"type\":\"pong\"}"); /* nothing more came */
	/* a slow replay whose connection goes: its timer stops (the server exits 0 below) */
	struct ts_cli w;
	ts_connect_json(&w, s.port);
	ts_send(&w, "replay %d 60000", id);
	ts_expect0(&w, "{\"type\":\"ok\",\"cmd\":\"replay\"}");
	ts_expect0(&w, "{\"type\":\"replay\",\"ply\":0,\"done\":false}");
	ts_close(&w);
	ts_send(&v, "replay %d 60000", id);
	ts_expect0(&v, "{\"type\":\"ok\",\"cmd\":\"replay\"}");
	ts_expect0(&v, "{\"type\":\"replay\",\"ply\":0}");
	cJSON_Delete(pos);
	free(st);
	ts_close(&a);
	ts_close(&b);
	ts_down(&s); /* v still has a replay running: the shutdown stops it */
	ts_close(&v);
}
END_TEST

static Suite *accounts_suite(void)
{
	Suite *s = suite_create("accounts");
	TCase *tc = tcase_create("server");
	tcase_set_timeout(tc, 120); /* a locked store waits 5 s per write; valgrind */
	tcase_add_test(tc, test_register_and_login);
	tcase_add_test(tc, test_throttle);
	tcase_add_test(tc, test_throttle_parallel);
	tcase_add_test(tc, test_register_limit);
	tcase_add_test(tc, test_guest_seat_needs_token);
	tcase_add_test(tc, test_guest_back_by_address);
	tcase_add_test(tc, test_takeover_with_seat);
	tcase_add_test(tc, test_rated_game);
	tcase_add_test(tc, test_record_and_replay);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	return check_run(accounts_suite());
}
