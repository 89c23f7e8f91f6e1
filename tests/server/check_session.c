/*
 * check_session.c - the session layer without sockets: games driven through
 * the real dispatcher by clients of a fake transport (tests/lib/fakeconn.h), and
 * through the session API where a test needs what the protocol cannot ask
 * for (clocks of a few milliseconds, a journal of its own). Moves and turns,
 * every refusal of a move, the journal hooks and their order, restoring a
 * game from its records, takebacks, clocks and flags, simultaneous turns and
 * their deadline (an action already in the socket when it falls due is
 * played), spectators (slow ones coalesce), chat, offers, players
 * leaving and coming back within or after the grace. Timers are real and
 * short; nothing asserts how fast anything is.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fakeconn.h"
#include "server/play/offers.h"
#include "server/play/session_clock.h"
#include "server/play/session_internal.h" /* the session's own data, asserted on */
#include "check_main.h"

#define GRACE_MS 60000

/*
 * As if ms had passed for g: its turn began and its absent players left that
 * much earlier; the timer is armed again for what is due now. Tests use it for
 * deadlines that must not come before what the test does first, however slow
 * the machine (valgrind); short deadlines that may come early run for real.
 */
static void age(struct game *g, int64_t ms)
{
	g->turn_started -= (uint64_t)ms;
	for (int i = 0; i < g->ops->nplayers; i++)
		if (g->pl[i].absent)
			g->pl[i].gone_at -= (uint64_t)ms;
	session_clock_arm(g);
}

static struct fk_server fs;

static void start(int64_t grace_ms)
{
	struct server_config cfg = {.grace_ms = grace_ms};
	fk_start(&fs, &cfg, false);
}

/* Joins alice and bob and starts a game of kind_opts (alice first); returns its id. */
static int two_players(struct fk_cli *a, struct fk_cli *b, const char *kind_opts)
{
	fk_join(&fs, a, "alice");
	fk_join(&fs, b, "bob");
	return fk_start_game(a, b, kind_opts);
}

/* mover plays text in game id: its ok, then the new state to both. */
static void play(struct fk_cli *mover, struct fk_cli *other, int id, const char *text)
{
	fk_send(mover, "move %d %s", id, text);
	fk_until0(mover, "{\"type\":\"ok\",\"cmd\":\"move\"}");
	fk_until0(mover, "{\"type\":\"state\"}");
	fk_until0(other, "{\"type\":\"state\"}");
}

/* ---- moves and turns ------------------------------------------------------------------- */

START_TEST(test_moves_and_refusals)
{
	struct fk_cli a, b, c;
	start(GRACE_MS);
	int id = two_players(&a, &b, "ttt");
	fk_join(&fs, &c, "carol");
	fk_send(&b, "move %d b1", id);
	fk_expect0(&b, "{\"type\":\"error\",\"code\":\"NOT_YOUR_TURN\",\"cmd\":\"move\"}");
	fk_send(&a, "move %d hello", id);
	fk_expect0(&a, "{\"type\":\"error\",\"code\":\"BAD_MOVE\"}");
	fk_send(&a, "move %d z9", id);
	fk_expect0(&a, "{\"type\":\"error\",\"code\":\"ILLEGAL_MOVE\"}");
	fk_send(&c, "move %d a1", id);
	fk_expect0(&c, "{\"type\":\"error\",\"code\":\"NOT_YOUR_GAME\"}");
	fk_send(&a, "move 999 a1");
	fk_expect0(&a, "{\"type\":\"error\",\"code\":\"NO_SUCH_GAME\"}");
	fk_send(&a, "move x a1");
	fk_expect0(&a, "{\"type\":\"error\",\"code\":\"BAD_ARGS\"}");
	fk_nothing(&b); /* refusals are told to nobody else */

	fk_send(&a, "#t1 move %d a1", id);
	fk_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"move\",\"id\":\"t1\",\"move\":\"a1\"}");
	cJSON *st = fk_expect(&a, "{\"type\":\"state\",\"seq\":2,\"ply\":1,\"seat\":0,"
	                          "\"last_move\":\"a1\",\"to_move\":[1]}");
	ck_assert_ptr_null(cJSON_GetObjectItem(st, "legal")); /* not alice's move */
	cJSON_Delete(st);
	st = fk_expect(&b, "{\"type\":\"state\",\"seq\":2,\"seat\":1}");
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(st, "legal")), 8);
	cJSON_Delete(st);
	fk_send(&b, "move %d a1", id);
	fk_expect0(&b, "{\"type\":\"error\",\"code\":\"ILLEGAL_MOVE\"}");
	play(&b, &a, id, "b1");
	play(&a, &b, id, "a2");
	play(&b, &a, id, "b2");
	fk_send(&a, "move %d a3", id);
	fk_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"move\"}");
	fk_expect0(&a, "{\"type\":\"state\",\"seq\":6,\"over\":true,\"result\":{\"winner\":0}}");
	fk_expect0(&a, "{\"type\":\"game_over\"}");
	fk_until0(&b, "{\"type\":\"game_over\",\"result\":{\"winner_name\":\"alice\","
	              "\"score\":\"1-0\"}}");
	fk_send(&b, "move %d c3", id);
	fk_expect0(&b, "{\"type\":\"error\",\"code\":\"GAME_OVER\"}");
	fk_send(&b, "resign %d", id);
	fk_expect0(&b, "{\"type\":\"error\",\"code\":\"GAME_OVER\"}");
	fk_stop_with(&fs, &a, &b, &c, NULL);
}
END_TEST

/* What the hooks saw. */
struct seen {
	int starts, moves, ends, undos;
	int ply_at_move[16]; /* g->ply when on_move ran: the move is not made yet */
	struct move_rec rec[16];
	char reason[32];
	bool refuse_moves;
};

static int hk_start(void *ud, const struct game *g, uint64_t *id)
{
	struct seen *s = ud;
	(void)g;
	s->starts++;
	*id = 42;
	return 0;
}

static int hk_move(void *ud, const struct game *g, const struct move_rec *m)
{
	struct seen *s = ud;
	if (s->refuse_moves)
		return -1;
	ck_assert_int_lt(s->moves, 16);
	s->ply_at_move[s->moves] = g->ply;
	s->rec[s->moves++] = *m;
	return 0;
}

static void hk_end(void *ud, const struct game *g)
{
	struct seen *s = ud;
	s->ends++;
	snprintf(s->reason, sizeof s->reason, "%s", g->reason);
}

static int hk_undo(void *ud, const struct game *g, int n)
{
	struct seen *s = ud;
	(void)g;
	s->undos += n;
	return 0;
}

START_TEST(test_hooks_and_restore)
{
	struct fk_cli a, b;
	start(GRACE_MS);
	struct seen seen;
	memset(&seen, 0, sizeof seen);
	struct session_hooks h = {.ud = &seen,
	                          .on_start = hk_start,
	                          .on_move = hk_move,
	                          .on_end = hk_end,
	                          .on_undo = hk_undo};
	sessions_set_hooks(&fs.srv.sess, &h);
	int id = two_players(&a, &b, "ttt");
	ck_assert_int_eq(id, 42); /* the hook chose the id */
	ck_assert_int_eq(seen.starts, 1);
	struct game *g = session_find(&fs.srv.sess, 42);
	ck_assert_ptr_nonnull(g);

	/* a move the journal refuses is not played, and nobody else hears of it */
	seen.refuse_moves = true;
	fk_send(&a, "move 42 a1");
	fk_expect0(&a, "{\"type\":\"error\",\"code\":\"INTERNAL\",\"cmd\":\"move\"}");
	fk_nothing(&b);
	ck_assert_int_eq(g->ply, 0);
	seen.refuse_moves = false;

	static const char *const line[] = {"a1", "b1", "a2", "b2", "a3"};
	for (int i = 0; i < 5; i++)
		play(i % 2 ? &b : &a, i % 2 ? &a : &b, id, line[i]);
	ck_assert_int_eq(seen.moves, 5);
	for (int i = 0; i < 5; i++) {
		ck_assert_int_eq(seen.rec[i].ply, i);
		ck_assert_int_eq(seen.rec[i].seat, i % 2);
		ck_assert_int_eq(seen.rec[i].act, GAME_ACT_MOVE);
		ck_assert_str_eq(seen.rec[i].text, line[i]);
		ck_assert_int_eq(seen.ply_at_move[i], i);
		ck_assert_int_gt(seen.rec[i].at, 0);
	}
	ck_assert_int_eq(seen.ends, 1);
	ck_assert_str_eq(seen.reason, "line");
	ck_assert(g->over);
	ck_assert_int_eq(g->winner, 0);
	ck_assert_uint_eq(g->nmoves, 5);

	/* the records rebuild the same position in a restored game, without hooks */
	struct game_spec spec = {.ops = g->ops, .so = g->so, .seed = g->seed, .id = 77};
	spec.names[0] = "alice";
	spec.names[1] = "bob";
	size_t kept = 99;
	struct game *g2 = session_restore(&fs.srv.sess, &spec, 1234, g->moves, 5, &kept);
	ck_assert_ptr_nonnull(g2);
	ck_assert_uint_eq(kept, 5);
	ck_assert_int_eq(seen.starts, 1);
	ck_assert_uint_eq(g2->id, 77);
	ck_assert_int_eq(g2->started_at, 1234);
	ck_assert(g2->pl[0].absent && g2->pl[1].absent);
	ck_assert_int_eq(memcmp(g2->st, g->st, g->ops->state_size), 0);
	ck_assert_int_eq(g2->ply, 5);
	session_restart(g2); /* the records end the game: its end is told (and journalled) */
	ck_assert(g2->over);
	ck_assert_int_eq(seen.ends, 2);
	ck_assert_int_eq(seen.moves, 5);

	/* records that stop fitting: bob twice in a row, then a move after the end */
	struct move_rec bad[6];
	memcpy(bad, g->moves, 4 * sizeof bad[0]);
	bad[4] = g->moves[3];
	spec.id = 78;
	struct game *g3 = session_restore(&fs.srv.sess, &spec, 0, bad, 5, &kept);
	ck_assert_uint_eq(kept, 4);
	ck_assert_int_eq(g3->ply, 4);
	memcpy(bad, g->moves, 5 * sizeof bad[0]);
	bad[5] = g->moves[0];
	spec.id = 79;
	g3 = session_restore(&fs.srv.sess, &spec, 0, bad, 6, &kept);
	ck_assert_uint_eq(kept, 5);
	ck_assert_int_eq(seen.moves, 5);
	fk_stop_with(&fs, &a, &b, NULL);
}
END_TEST

START_TEST(test_takeback)
{
	struct fk_cli a, b;
	start(GRACE_MS);
	struct seen seen;
	memset(&seen, 0, sizeof seen);
	struct session_hooks h = {.ud = &seen, .on_move = hk_move, .on_undo = hk_undo};
	sessions_set_hooks(&fs.srv.sess, &h);
	int id = two_players(&a, &b, "ttt");
	struct game *g = session_find(&fs.srv.sess, (uint64_t)id);
	play(&a, &b, id, "b2");
	char before[256];
	ck_assert_uint_le(g->ops->state_size, sizeof before);
	memcpy(before, g->st, g->ops->state_size);
	play(&b, &a, id, "a1");
	play(&a, &b, id, "c3");
	/* bob asks to take back his last move: that is two plies now */
	fk_send(&b, "undo %d", id);
	fk_expect0(&b, "{\"type\":\"ok\",\"cmd\":\"undo\",\"plies\":2}");
	fk_until0(&a, "{\"type\":\"offer\",\"what\":\"undo\",\"event\":\"offer\",\"plies\":2}");
	fk_send(&a, "undo %d", id);
	fk_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"undo\",\"plies\":2}");
	fk_until0(&b, "{\"type\":\"state\",\"ply\":1,\"last_move\":\"b2\",\"to_move\":[1]}");
	ck_assert_int_eq(seen.undos, 2);
	ck_assert_uint_eq(g->nmoves, 1);
	ck_assert_int_eq(memcmp(before, g->st, g->ops->state_size), 0);
	play(&b, &a, id, "c3"); /* play goes on from there */
	ck_assert_int_eq(seen.moves, 4);
	fk_stop_with(&fs, &a, &b, NULL);
}
END_TEST

/* ---- clocks ---------------------------------------------------------------------------- */

/* A game between a and b (logged in) started through the API with a clock of base_ms. */
static struct game *timed_game(struct fk_cli *a, struct fk_cli *b, int64_t base_ms, int64_t inc_ms)
{
	const struct game_ops *ops = game_find("ttt");
	struct game_spec spec = {.ops = ops, .seed = 1};
	char err[160];
	ck_assert_int_eq(seek_opts_parse(ops, 0, NULL, &spec.so, err, sizeof err), 0);
	spec.so.timed = true;
	spec.so.base_ms = base_ms;
	spec.so.inc_ms = inc_ms;
	spec.names[0] = "alice";
	spec.names[1] = "bob";
	spec.clients[0] = client_of(a->c);
	spec.clients[1] = client_of(b->c);
	struct game *g = session_create(&fs.srv.sess, &spec);
	ck_assert_ptr_nonnull(g);
	session_begin(g);
	fk_run(&fs);
	fk_expect0(a, "{\"type\":\"game_start\",\"seat\":0}");
	fk_expect0(a, "{\"type\":\"state\",\"seq\":1}");
	fk_expect0(b, "{\"type\":\"game_start\",\"seat\":1}");
	fk_expect0(b, "{\"type\":\"state\",\"seq\":1}");
	return g;
}

START_TEST(test_flag_falls)
{
	struct fk_cli a, b;
	start(GRACE_MS);
	fk_join(&fs, &a, "alice");
	fk_join(&fs, &b, "bob");
	struct game *g = timed_game(&a, &b, 60000, 2000);
	int id = (int)g->id;
	/* alice moves in time: her clock gets the increment */
	play(&a, &b, id, "a1");
	ck_assert_int_gt(g->left[0], 60000);
	ck_assert_int_le(g->left[0], 62000);
	ck_assert_int_eq(g->left[1], 60000);
	/* a minute goes by: bob's flag falls on the timer, nobody has to move */
	age(g, 60000);
	fk_run(&fs);
	cJSON *over = fk_until(&a, "{\"type\":\"game_over\",\"result\":{\"winner\":0,"
	                           "\"reason\":\"timeout\"}}");
	cJSON *clocks = cJSON_GetObjectItem(over, "clocks");
	ck_assert_int_eq(cJSON_GetArrayItem(clocks, 1)->valueint, 0);
	ck_assert_int_eq(cJSON_GetArrayItem(clocks, 0)->valueint, (int)g->left[0]);
	cJSON_Delete(over);
	fk_until0(&b, "{\"type\":\"game_over\"}");
	/* a clock of a few milliseconds falls for real, with no help */
	int id2 = (int)timed_game(&a, &b, 30, 0)->id;
	fk_wait(&fs, 60);
	char over2[96];
	snprintf(over2, sizeof over2, "{\"type\":\"game_over\",\"game\":%d}", id2);
	fk_until0(&a, over2);
	fk_stop_with(&fs, &a, &b, NULL);
}
END_TEST

START_TEST(test_clock_held_after_restore)
{
	struct fk_cli b;
	start(GRACE_MS); /* bob comes back however slow the machine (valgrind) */
	const struct game_ops *ops = game_find("ttt");
	struct game_spec spec = {.ops = ops, .seed = 1, .id = 5};
	char err[160];
	ck_assert_int_eq(seek_opts_parse(ops, 0, NULL, &spec.so, err, sizeof err), 0);
	spec.so.timed = true;
	spec.so.base_ms = 100;
	spec.names[0] = "alice";
	spec.names[1] = "bob";
	struct move_rec rec = {
	        .ply = 0, .seat = 0, .act = GAME_ACT_MOVE, .text = "a1", .clock_ms = {90, 100}};
	size_t kept;
	struct game *g = session_restore(&fs.srv.sess, &spec, 0, &rec, 1, &kept);
	ck_assert_uint_eq(kept, 1);
	session_restart(g);
	ck_assert(g->clock_held);
	ck_assert_int_eq(g->seq, 2); /* states number on: 1 the start, 2 after a1 (sent again) */
	ck_assert_int_eq(g->left[0], 90);
	/* bob's clock (he is to move) waits for him: more than his 100 ms pass */
	fk_wait(&fs, 150);
	ck_assert(!g->over);
	ck_assert_int_eq(g->left[1], 100);
	fk_join(&fs, &b, "bob"); /* the login's answer, then the resumed game */
	fk_expect0(&b, "{\"type\":\"game_start\",\"game\":5,\"seat\":1}");
	fk_expect0(&b, "{\"type\":\"state\",\"seq\":2,\"ply\":1,\"seat\":1}");
	ck_assert(!g->clock_held);
	fk_wait(&fs, 150); /* now it runs */
	fk_until0(&b, "{\"type\":\"game_over\",\"result\":{\"winner\":0,\"reason\":\"timeout\"}}");
	fk_stop_with(&fs, &b, NULL);
}
END_TEST

START_TEST(test_simultaneous_deadline)
{
	struct fk_cli a, b;
	start(GRACE_MS);
	int id = two_players(&a, &b, "xmas seed=0 turn_ms=60000 timeout=lose");
	struct game *g = session_find(&fs.srv.sess, (uint64_t)id);
	fk_send(&a, "move %d PUSH 3 RIGHT", id);
	fk_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"move\",\"pending\":true}");
	fk_send(&a, "move %d PUSH 1 LEFT", id);
	fk_expect0(&a, "{\"type\":\"error\",\"code\":\"ALREADY_ACTED\"}");
	fk_send(&b, "undo %d", id);
	fk_expect0(&b, "{\"type\":\"error\",\"code\":\"NOT_SUPPORTED\"}");
	fk_nothing(&b); /* nothing of alice's action reaches bob before the turn resolves */
	/* bob does not act: the deadline resolves the turn, his timeout is fatal */
	age(g, 60000);
	fk_run(&fs);
	const char *st = "{\"type\":\"state\",\"seq\":2,\"ply\":1,"
	                 "\"last_move\":{\"0\":\"PUSH 3 RIGHT\",\"1\":null}}";
	fk_expect0(&a, st);
	fk_expect0(&b, st);
	fk_expect0(&b, "{\"type\":\"game_over\"}");
	ck_assert_uint_eq(g->nmoves, 2);
	ck_assert_int_eq(g->moves[0].act, GAME_ACT_MOVE);
	ck_assert_int_eq(g->moves[1].act, GAME_ACT_NONE);
	ck_assert_int_eq(g->moves[1].turn, 0);
	fk_stop_with(&fs, &a, &b, NULL);
}
END_TEST

/* A socket feeding f's connection, read by the loop's poll as a transport's reads are. */
struct feed {
	uv_pipe_t pipe;
	int peer; /* the test writes here */
	struct fk_cli *f;
	char buf[256];
};

static void feed_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *b)
{
	struct feed *fd = h->data;
	(void)suggested;
	*b = uv_buf_init(fd->buf, sizeof fd->buf);
}

static void feed_read(uv_stream_t *st, ssize_t n, const uv_buf_t *b)
{
	struct feed *fd = st->data;
	if (n > 0 && fd->f->c != NULL)
		conn_input_copy(fd->f->c, b->base, (size_t)n);
}

static void feed_open(struct feed *fd, struct fk_cli *f)
{
	int sv[2];
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	fd->f = f;
	fd->peer = sv[1];
	ck_assert_int_eq(uv_pipe_init(&fs.loop, &fd->pipe, 0), 0);
	ck_assert_int_eq(uv_pipe_open(&fd->pipe, sv[0]), 0);
	fd->pipe.data = fd;
	ck_assert_int_eq(uv_read_start((uv_stream_t *)&fd->pipe, feed_alloc, feed_read), 0);
}

static void feed_close(struct feed *fd)
{
	close(fd->peer);
	uv_close((uv_handle_t *)&fd->pipe, NULL);
}

/*
 * Bob's action is in the server's socket when the turn's deadline falls due
 * in the same loop pass: it is played (the turn resolves with both actions),
 * not lost to the deadline that libuv's timer phase reaches before its poll.
 */
START_TEST(test_deadline_after_input)
{
	struct fk_cli a, b;
	struct feed fd;
	start(GRACE_MS);
	int id = two_players(&a, &b, "xmas seed=0 turn_ms=60000");
	struct game *g = session_find(&fs.srv.sess, (uint64_t)id);
	feed_open(&fd, &b);
	fk_send(&a, "move %d PUSH 3 RIGHT", id);
	fk_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"move\",\"pending\":true}");
	char line[64];
	int n = snprintf(line, sizeof line, "move %d PUSH 1 LEFT\n", id);
	ck_assert_int_eq(write(fd.peer, line, (size_t)n), n);
	age(g, 60000); /* the deadline is due at the next pass, with bob's line waiting */
	uv_run(&fs.loop, UV_RUN_ONCE);
	fk_run(&fs);
	fk_expect0(&b, "{\"type\":\"ok\",\"cmd\":\"move\",\"pending\":true}");
	const char *st = "{\"type\":\"state\",\"seq\":2,\"ply\":1,"
	                 "\"last_move\":{\"0\":\"PUSH 3 RIGHT\",\"1\":\"PUSH 1 LEFT\"},"
	                 "\"over\":false}";
	fk_expect0(&a, st);
	fk_expect0(&b, st);
	ck_assert(!g->over);
	ck_assert_uint_eq(g->nmoves, 2);
	ck_assert_int_eq(g->moves[1].act, GAME_ACT_MOVE);
	feed_close(&fd);
	fk_stop_with(&fs, &a, &b, NULL);
}
END_TEST

/* ---- spectators and chat --------------------------------------------------------------------- */

START_TEST(test_spectators)
{
	struct fk_cli a, b, w, s;
	start(GRACE_MS);
	int id = two_players(&a, &b, "mnk m=5 n=5 k=5");
	fk_join(&fs, &w, "wendy");
	fk_connect(&fs, &s); /* a spectator needs no login; it reads text */
	fk_expect0(&s, "bitarenad * ready*");
	fk_send(&w, "watch %d", id);
	fk_expect0(&w, "{\"type\":\"ok\",\"cmd\":\"watch\"}");
	fk_expect0(&w, "{\"type\":\"state\",\"seq\":1,\"seat\":null}");
	fk_send(&s, "watch %d", id);
	fk_expect0(&s, "ok watching game *");
	fk_expect0(&s, "game * mnk, ply 0:*");
	fk_skip(&s);
	/* wendy stops reading: while she is slow she gets only the newest state */
	w.stall = true;
	fs.srv.hub.out_soft = 64; /* a tiny output cap: one state passes it */
	static const char *const mv[] = {"a1", "b1", "a2", "b2", "a3", "b3"};
	for (int i = 0; i < 6; i++)
		play(i % 2 ? &b : &a, i % 2 ? &a : &b, id, mv[i]);
	/* below the cap again but not drained: her next command's answer comes after that state */
	fs.srv.hub.out_soft = CONN_OUT_SOFT;
	fk_send(&w, "#after ping");
	fk_drain(&w);
	fk_expect0(&w, "{\"type\":\"state\",\"seq\":2}"); /* in the socket before it was slow */
	fk_expect0(&w, "{\"type\":\"state\",\"seq\":7,\"ply\":6}"); /* the coalesced newest */
	fk_expect0(&w, "{\"type\":\"pong\",\"id\":\"after\"}");
	fk_nothing(&w);
	/* chat: to players and spectators; a stranger is refused */
	fk_send(&w, "say %d good game so far", id);
	fk_expect0(&w, "{\"type\":\"ok\",\"cmd\":\"say\"}");
	fk_expect0(&w, "{\"type\":\"chat\",\"from\":\"wendy\",\"text\":\"good game so far\"}");
	fk_until0(&a, "{\"type\":\"chat\",\"from\":\"wendy\"}");
	fk_until0(&s, "?*? wendy: good game so far");
	struct fk_cli x;
	fk_join(&fs, &x, "xavier");
	fk_send(&x, "say %d hello", id);
	fk_expect0(&x, "{\"type\":\"error\",\"code\":\"NOT_YOUR_GAME\"}");
	fk_send(&w, "unwatch %d", id);
	fk_expect0(&w, "{\"type\":\"ok\",\"cmd\":\"unwatch\"}");
	fk_send(&w, "unwatch %d", id);
	fk_expect0(&w, "{\"type\":\"error\",\"code\":\"NOT_WATCHING\"}");
	play(&a, &b, id, "a4");
	fk_nothing(&w);
	fk_stop_with(&fs, &a, &b, &w, &s, &x, NULL);
}
END_TEST

/* What a page reads from one message: list with clocks; the latest chat lines, bounded. */
START_TEST(test_list_and_chat_history)
{
	struct fk_cli a, b, w;
	start(GRACE_MS);
	int id = two_players(&a, &b, "ttt time=1+0");
	fk_join(&fs, &w, "wendy");
	fk_send(&w, "list");
	cJSON *ok = fk_expect(&w, "{\"type\":\"ok\",\"cmd\":\"list\"}");
	cJSON *row = cJSON_GetArrayItem(cJSON_GetObjectItem(ok, "games"), 0);
	cJSON *clocks = cJSON_GetObjectItem(row, "clocks");
	ck_assert_int_eq(cJSON_GetArraySize(clocks), 2);
	double c0 = cJSON_GetArrayItem(clocks, 0)->valuedouble;
	ck_assert(c0 > 0 && c0 <= 60000); /* white's clock runs */
	ck_assert_double_eq(cJSON_GetArrayItem(clocks, 1)->valuedouble, 60000);
	ck_assert_int_eq(ts_jint(cJSON_GetObjectItem(row, "time"), "base_ms"), 60000);
	cJSON_Delete(ok);
	/* 25 lines said: a spectator who comes gets the last 20, oldest first */
	for (int i = 0; i < 25; i++) {
		fk_send(&a, "say %d line %d", id, i);
		fk_until0(&a, "{\"type\":\"chat\"}");
	}
	fk_send(&w, "watch %d", id);
	fk_expect0(&w, "{\"type\":\"ok\",\"cmd\":\"watch\"}");
	fk_expect0(&w, "{\"type\":\"state\",\"watchers\":1}");
	cJSON *h = fk_expect(&w, "{\"type\":\"chat_history\",\"total\":25}");
	cJSON *lines = cJSON_GetObjectItem(h, "lines");
	ck_assert_int_eq(cJSON_GetArraySize(lines), SESSION_CHAT_KEEP);
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(lines, 0), "text")->valuestring,
	                 "line 5");
	ck_assert_str_eq(cJSON_GetObjectItem(cJSON_GetArrayItem(lines, 19), "from")->valuestring,
	                 "alice");
	cJSON_Delete(h);
	fk_nothing(&w);
	fk_stop_with(&fs, &a, &b, &w, NULL);
}
END_TEST

/* Xmas Rush: a seat's state lists its actions; each is accepted as it stands. */
START_TEST(test_simultaneous_actions_listed)
{
	struct fk_cli a, b, w;
	start(GRACE_MS);
	int id = two_players(&a, &b, "xmas seed=3 turn_ms=60000");
	fk_join(&fs, &w, "wendy");
	fk_send(&w, "watch %d", id);
	fk_expect0(&w, "{\"type\":\"ok\"}");
	cJSON *st = fk_expect(&w, "{\"type\":\"state\",\"seat\":null}");
	ck_assert_ptr_null(cJSON_GetObjectItem(st, "legal")); /* a spectator acts not */
	ck_assert_ptr_null(cJSON_GetObjectItem(st, "acted"));
	cJSON_Delete(st);
	fk_send(&a, "watch %d", id); /* alice's state again, now */
	fk_expect0(&a, "{\"type\":\"ok\"}");
	st = fk_expect(&a, "{\"type\":\"state\",\"seat\":0,\"acted\":false}");
	cJSON *legal = cJSON_GetObjectItem(st, "legal");
	ck_assert_int_eq(cJSON_GetArraySize(legal), 28);
	ck_assert_str_eq(cJSON_GetArrayItem(legal, 0)->valuestring, "PUSH 0 UP");
	cJSON_Delete(st);
	fk_send(&a, "move %d PUSH 1 LEFT", id);
	fk_expect0(&a, "{\"type\":\"ok\",\"pending\":true}");
	fk_send(&a, "watch %d", id);
	fk_expect0(&a, "{\"type\":\"ok\"}");
	st = fk_expect(&a, "{\"type\":\"state\",\"seat\":0,\"acted\":true}");
	ck_assert_ptr_null(cJSON_GetObjectItem(st, "legal"));
	cJSON_Delete(st);
	fk_send(&b, "move %d PUSH 5 DOWN", id);
	fk_expect0(&b, "{\"type\":\"ok\",\"pending\":true}");
	/* a MOVE turn: PASS first, then one MOVE to each tile in reach; every one is taken */
	st = fk_until(&b, "{\"type\":\"state\",\"seq\":2,\"acted\":false,"
	                  "\"position\":{\"turn_type\":\"MOVE\"}}");
	legal = cJSON_GetObjectItem(st, "legal");
	int n = cJSON_GetArraySize(legal);
	ck_assert_int_ge(n, 1);
	ck_assert_str_eq(cJSON_GetArrayItem(legal, 0)->valuestring, "PASS");
	ck_assert_int_le(n, cJSON_GetArraySize(cJSON_GetObjectItem(
	                            cJSON_GetObjectItem(st, "position"), "reachable")));
	fk_send(&b, "move %d %s", id, cJSON_GetArrayItem(legal, n - 1)->valuestring);
	fk_expect0(&b, "{\"type\":\"ok\",\"pending\":true}");
	cJSON_Delete(st);
	fk_stop_with(&fs, &a, &b, &w, NULL);
}
END_TEST

/* ---- offers -------------------------------------------------------------------------------- */

START_TEST(test_offers)
{
	struct fk_cli a, b;
	start(GRACE_MS);
	int id = two_players(&a, &b, "ttt");
	fk_send(&a, "rematch %d", id);
	fk_expect0(&a, "{\"type\":\"error\",\"code\":\"NOT_NOW\",\"cmd\":\"rematch\"}");
	fk_send(&a, "draw %d", id);
	fk_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"draw\"}");
	fk_expect0(&a, "{\"type\":\"offer\",\"what\":\"draw\",\"event\":\"offer\",\"seat\":0}");
	fk_expect0(&b,
	           "{\"type\":\"offer\",\"what\":\"draw\",\"event\":\"offer\",\"by\":\"alice\"}");
	/* alice's move lapses her offer */
	fk_send(&a, "move %d a1", id);
	fk_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"move\"}");
	fk_expect0(&a, "{\"type\":\"offer\",\"what\":\"draw\",\"event\":\"lapse\"}");
	fk_expect0(&a, "{\"type\":\"state\",\"ply\":1}");
	fk_send(&b, "draw %d accept", id);
	fk_until0(&b, "{\"type\":\"error\",\"code\":\"NO_OFFER\"}");
	fk_send(&b, "abort %d", id);
	fk_expect0(&b, "{\"type\":\"ok\",\"cmd\":\"abort\"}");
	fk_until0(&a,
	          "{\"type\":\"game_over\",\"result\":{\"score\":\"*\",\"reason\":\"aborted\"}}");
	fk_send(&a, "draw %d", id);
	fk_expect0(&a, "{\"type\":\"error\",\"code\":\"GAME_OVER\"}");
	/* a rematch: seats swapped */
	fk_send(&a, "rematch %d", id);
	fk_expect0(&a, "{\"type\":\"ok\",\"cmd\":\"rematch\"}");
	fk_until0(&b, "{\"type\":\"offer\",\"what\":\"rematch\",\"event\":\"offer\"}");
	fk_send(&b, "rematch %d", id);
	cJSON *ok = fk_until(&b, "{\"type\":\"ok\",\"cmd\":\"rematch\"}");
	int id2 = ts_jint(ok, "new_game");
	cJSON_Delete(ok);
	fk_until0(&b, "{\"type\":\"game_start\",\"seat\":0}");
	fk_until0(&a, "{\"type\":\"game_start\",\"seat\":1}");
	fk_send(&a, "rematch %d", id);
	fk_until0(&a, "{\"type\":\"error\",\"code\":\"NOT_NOW\"}");
	fk_send(&b, "move %d b2", id2);
	fk_until0(&b, "{\"type\":\"ok\",\"cmd\":\"move\"}");
	fk_stop_with(&fs, &a, &b, NULL);
}
END_TEST

/* ---- leaving and coming back --------------------------------------------------------------- */

START_TEST(test_leave_and_return)
{
	struct fk_cli a, b, b2;
	start(GRACE_MS);
	int id = two_players(&a, &b, "ttt");
	play(&a, &b, id, "a1");
	fk_hangup(&b);
	ck_assert_ptr_null(b.c);
	fk_expect0(&a, "{\"type\":\"info\",\"event\":\"gone\",\"player\":\"bob\",\"seat\":1,"
	               "\"grace_ms\":60000}");
	/* bob is back within the grace, with his token: his seat and the game are his again */
	fk_join_with(&fs, &b2, "bob", b.token);
	fk_expect0(&b2, "{\"type\":\"game_start\",\"seat\":1}");
	fk_expect0(&b2, "{\"type\":\"state\",\"seq\":2,\"ply\":1,\"seat\":1}");
	fk_expect0(&a, "{\"type\":\"info\",\"event\":\"back\",\"player\":\"bob\"}");
	struct game *g = session_find(&fs.srv.sess, (uint64_t)id);
	age(g, GRACE_MS + 1000); /* his grace would be over: he is back, nothing happens */
	fk_run(&fs);
	fk_nothing(&a);
	play(&b2, &a, id, "b1");
	/* alice goes for good: the grace ends, bob wins */
	fk_hangup(&a);
	fk_expect0(&b2, "{\"type\":\"info\",\"event\":\"gone\",\"player\":\"alice\"}");
	age(g, GRACE_MS - 1000);
	fk_run(&fs);
	fk_nothing(&b2); /* not yet */
	age(g, 1000);
	fk_run(&fs);
	fk_expect0(&b2,
	           "{\"type\":\"game_over\",\"result\":{\"winner\":1,\"reason\":\"abandoned\"}}");
	fk_stop_with(&fs, &a, &b, &b2, NULL);
}
END_TEST

static Suite *session_suite(void)
{
	Suite *s = suite_create("session");
	TCase *tc = tcase_create("moves");
	tcase_add_test(tc, test_moves_and_refusals);
	tcase_add_test(tc, test_hooks_and_restore);
	tcase_add_test(tc, test_takeback);
	suite_add_tcase(s, tc);
	tc = tcase_create("time");
	tcase_add_test(tc, test_flag_falls);
	tcase_add_test(tc, test_clock_held_after_restore);
	tcase_add_test(tc, test_simultaneous_deadline);
	tcase_add_test(tc, test_deadline_after_input);
	suite_add_tcase(s, tc);
	tc = tcase_create("people");
	tcase_add_test(tc, test_spectators);
	tcase_add_test(tc, test_list_and_chat_history);
	tcase_add_test(tc, test_simultaneous_actions_listed);
	tcase_add_test(tc, test_offers);
	tcase_add_test(tc, test_leave_and_return);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(session_suite());
}
