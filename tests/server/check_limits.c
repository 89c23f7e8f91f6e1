/*
 * check_limits.c - what keeps one client from starving the others or the
 * server's memory, without sockets (tests/lib/fakeconn.h: the whole server on a
 * fake transport): the command budget (token bucket, RATE_LIMITED with
 * retry_after_ms and the input held meanwhile, FLOODING for a client that
 * keeps overrunning, played moves free, a client spending fast served after
 * the others, one line a turn), output counted as the memory it
 * holds (tiny replies included), the soft limit over time, the hard limit and
 * the total, the limits at the door (clients in all, per address, an IPv6
 * /64 as one, loopback free), the login, idle and ping timeouts (seats wait
 * through the grace), watches and replays per connection, plies per game,
 * seek news (subscriptions, one write per subscriber per batch, a seek that
 * came and went unnoticed, a summary past a few), open seeks in all; and the
 * pure parts: the token bucket and the table of addresses. Timers are real
 * and short; nothing asserts how fast anything is.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakeconn.h"
#include "server/net/addrcount.h"
#include "server/util/budget.h"
#include "check_main.h"

static struct fk_server fs;

/* A server with cfg on its own loop (store: a store in a fresh directory). */
static void start(struct server_config *cfg, bool store)
{
	if (cfg->grace_ms == 0)
		cfg->grace_ms = 60000;
	fk_start(&fs, cfg, store);
}

/* Stops the server and frees the clients (a NULL-terminated list). */
#define stop(...) fk_stop_with(&fs, __VA_ARGS__)

/* True once f's connection is gone (the fake transport finished closing it). */
static bool gone(struct fk_cli *f)
{
	fk_run(&fs);
	return f->c == NULL;
}

/* ---- the token bucket ---------------------------------------------------------------- */

START_TEST(test_budget_bucket)
{
	struct budget_config cfg = {.rate = 10, .burst = 5, .strikes = 4};
	struct budget b = {0};
	uint64_t wait;
	budget_init(&b, &cfg, 1000);
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(budget_take(&b, &cfg, 1000, 1, &wait), BUDGET_OK);
	/* empty: a token comes every 100 ms */
	ck_assert_int_eq(budget_take(&b, &cfg, 1000, 1, &wait), BUDGET_LIMITED);
	ck_assert_uint_eq(wait, 100);
	ck_assert_int_eq(budget_take(&b, &cfg, 1100, 1, &wait), BUDGET_OK);
	/* a dear command waits for all its tokens: 3 of them, 300 ms; back at once, twice that */
	ck_assert_int_eq(budget_take(&b, &cfg, 1100, 3, &wait), BUDGET_LIMITED);
	ck_assert_uint_eq(wait, 600); /* the second refusal in a row: 300 doubled */
	ck_assert_int_eq(budget_take(&b, &cfg, 1700, 3, &wait), BUDGET_OK);
	ck_assert_int_eq(budget_take(&b, &cfg, 1700, 3, &wait), BUDGET_LIMITED);
	ck_assert_uint_eq(wait, 4 * 100); /* one token short, the third in a row */
	/* at the end of the wait the bucket is full again; the fourth refusal in a row is the
	   flood */
	ck_assert_int_eq(budget_take(&b, &cfg, 2100, 5, &wait), BUDGET_OK);
	ck_assert_int_eq(budget_take(&b, &cfg, 2100, 1, &wait), BUDGET_FLOOD);
	/* forgiven after a full refill time of good behaviour after the last wait */
	budget_init(&b, &cfg, 0);
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(budget_take(&b, &cfg, 0, 1, &wait), BUDGET_OK);
	ck_assert_int_eq(budget_take(&b, &cfg, 0, 1, &wait), BUDGET_LIMITED); /* wait to 100 */
	ck_assert_int_eq(budget_take(&b, &cfg, 100, 5, &wait), BUDGET_LIMITED);
	ck_assert_uint_eq(wait, 2 * 400); /* 4 missing; a strike in a row: doubled */
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(budget_take(&b, &cfg, 2000, 1, &wait), BUDGET_OK);
	ck_assert_int_eq(budget_take(&b, &cfg, 2000, 1, &wait), BUDGET_LIMITED);
	ck_assert_uint_eq(wait, 100); /* a first strike again */
	/* never more than the bucket, never longer than BUDGET_WAIT_MAX */
	budget_init(&b, &cfg, 0);
	ck_assert_int_eq(budget_take(&b, &cfg, 86400000, 50, &wait), BUDGET_OK); /* as 5 */
	ck_assert_int_eq(budget_take(&b, &cfg, 86400000, 1, &wait), BUDGET_LIMITED);
	/* a paced command (cost 0 up front) runs on an empty bucket; charged after the fact it
	   puts the bucket in debt, and then even cost 0 waits until it is repaid */
	ck_assert_int_eq(budget_take(&b, &cfg, 86400100, 0, &wait), BUDGET_OK);
	budget_charge(&b, &cfg, 3);
	ck_assert_int_eq(budget_take(&b, &cfg, 86400100, 0, &wait), BUDGET_LIMITED);
	ck_assert_uint_eq(wait,
	                  2 * 200); /* 2 tokens of debt (one came in 100 ms); a strike in a row */
	budget_charge(&b, &cfg, 1000); /* debt is at most a bucket: 5 tokens, 500 ms */
	ck_assert_int_eq(budget_take(&b, &cfg, 86400500, 0, &wait), BUDGET_LIMITED);
	ck_assert_int_eq(budget_take(&b, &cfg, 86400700, 0, &wait), BUDGET_OK);
	struct budget_config slow = {.rate = 1, .burst = 1, .strikes = 0};
	budget_init(&b, &slow, 0);
	ck_assert_int_eq(budget_take(&b, &slow, 0, 1, &wait), BUDGET_OK);
	for (int i = 0; i < 40; i++) {
		ck_assert_int_eq(budget_take(&b, &slow, 0, 1, &wait), BUDGET_LIMITED);
		ck_assert_uint_le(wait, BUDGET_WAIT_MAX);
	}
	/* rate 0: no budget */
	struct budget_config none = {0};
	for (int i = 0; i < 1000; i++)
		ck_assert_int_eq(budget_take(&b, &none, 0, 20, &wait), BUDGET_OK);
	ck_assert(!budget_heavy(&b, &none));
	/* heavy: less than half of the bucket left */
	budget_init(&b, &cfg, 0);
	ck_assert(!budget_heavy(&b, &cfg));
	ck_assert_int_eq(budget_take(&b, &cfg, 0, 2, &wait), BUDGET_OK);
	ck_assert(!budget_heavy(&b, &cfg)); /* 3 of 5 */
	ck_assert_int_eq(budget_take(&b, &cfg, 0, 1, &wait), BUDGET_OK);
	ck_assert(budget_heavy(&b, &cfg)); /* 2 of 5 */
	ck_assert_int_eq(budget_take(&b, &cfg, 100, 0, &wait), BUDGET_OK);
	ck_assert(!budget_heavy(&b, &cfg)); /* a token came back: 3 */
	/* spending: more than a twentieth of the bucket spent (of 100: 6 tokens) */
	struct budget_config big = {.rate = 20, .burst = 100, .strikes = 10};
	budget_init(&b, &big, 0);
	ck_assert(!budget_spending(&b, &big));
	ck_assert(!budget_spending(&b, &none));
	ck_assert_int_eq(budget_take(&b, &big, 0, 5, &wait), BUDGET_OK);
	ck_assert(!budget_spending(&b, &big)); /* 95 of 100 */
	ck_assert_int_eq(budget_take(&b, &big, 0, 1, &wait), BUDGET_OK);
	ck_assert(budget_spending(&b, &big)); /* 94 */
	ck_assert(!budget_heavy(&b, &big));
	ck_assert_int_eq(budget_take(&b, &big, 50, 0, &wait), BUDGET_OK);
	ck_assert(!budget_spending(&b, &big)); /* 50 ms: a token back, 95 */
}
END_TEST

/* A stream the server paces (a replay's positions) spends without strikes, or waits. */
START_TEST(test_budget_spend)
{
	struct budget_config cfg = {.rate = 10, .burst = 5, .strikes = 2};
	struct budget b = {0};
	uint64_t wait;
	budget_init(&b, &cfg, 0);
	ck_assert(budget_spend(&b, &cfg, 0, 2, &wait));
	ck_assert(budget_spend(&b, &cfg, 0, 2, &wait));
	for (int i = 0; i < 10; i++) { /* a token short: wait 100 ms, again and again */
		ck_assert(!budget_spend(&b, &cfg, 0, 2, &wait));
		ck_assert_uint_eq(wait, 100);
	}
	/* no strike counted: a command is refused once, not disconnected */
	ck_assert_int_eq(budget_take(&b, &cfg, 0, 2, &wait), BUDGET_LIMITED);
	ck_assert(budget_spend(&b, &cfg, 100, 2, &wait));
	/* a bucket in debt waits until repaid */
	budget_charge(&b, &cfg, 5);
	ck_assert(!budget_spend(&b, &cfg, 100, 1, &wait));
	ck_assert_uint_eq(wait, 600);
	struct budget_config none = {.rate = 0, .burst = 5, .strikes = 2};
	ck_assert(budget_spend(&b, &none, 100, 1000, &wait));
}
END_TEST

/* ---- the table of addresses ------------------------------------------------------------ */

START_TEST(test_address_keys)
{
	struct addr_key a, b;
	ck_assert(!addr_key_of("192.0.2.7", &a));
	ck_assert(!addr_key_of("::ffff:192.0.2.7", &b));
	ck_assert(memcmp(&a, &b, sizeof a) == 0); /* IPv4-mapped is the IPv4 address */
	ck_assert(!addr_key_of("192.0.2.8", &b));
	ck_assert(memcmp(&a, &b, sizeof a) != 0);
	/* an IPv6 /64 is one subscriber */
	ck_assert(!addr_key_of("2001:db8:1:2::1", &a));
	ck_assert(!addr_key_of("2001:db8:1:2:ffff:1:2:3", &b));
	ck_assert(memcmp(&a, &b, sizeof a) == 0);
	ck_assert(!addr_key_of("2001:db8:1:3::1", &b));
	ck_assert(memcmp(&a, &b, sizeof a) != 0);
	/* loopback is told apart */
	ck_assert(addr_key_of("127.0.0.1", &a));
	ck_assert(addr_key_of("127.3.2.1", &a));
	ck_assert(addr_key_of("::1", &a));
	ck_assert(addr_key_of("::ffff:127.0.0.1", &a));
	ck_assert(!addr_key_of("not an address", &a));
	ck_assert(!addr_key_of("", &b));
	ck_assert(memcmp(&a, &b, sizeof a) == 0); /* all such under one key */

	/* the table against a plain model, through growth and deletions */
	struct addrcount t;
	addrcount_init(&t);
	enum { N = 300 };
	static unsigned model[N];
	memset(model, 0, sizeof model);
	unsigned x = 7;
	for (int step = 0; step < 20000; step++) {
		x = x * 1103515245u + 12345u;
		unsigned i = (x >> 16) % N;
		char peer[32];
		snprintf(peer, sizeof peer, "10.%u.%u.1", i / 256, i % 256);
		struct addr_key k;
		addr_key_of(peer, &k);
		if (model[i] > 0 && (x >> 8) % 3 == 0) {
			addrcount_del(&t, &k);
			model[i]--;
		} else {
			ck_assert(addrcount_add(&t, &k));
			model[i]++;
		}
		if (step % 97 == 0)
			for (unsigned j = 0; j < N; j++) {
				snprintf(peer, sizeof peer, "10.%u.%u.1", j / 256, j % 256);
				addr_key_of(peer, &k);
				ck_assert_uint_eq(addrcount_get(&t, &k), model[j]);
			}
	}
	for (unsigned j = 0; j < N; j++) {
		char peer[32];
		struct addr_key k;
		snprintf(peer, sizeof peer, "10.%u.%u.1", j / 256, j % 256);
		addr_key_of(peer, &k);
		while (model[j]-- > 0)
			addrcount_del(&t, &k);
	}
	ck_assert_uint_eq(t.used, 0);
	addrcount_free(&t);
}
END_TEST

/* ---- the command budget through the dispatcher ------------------------------------------- */

START_TEST(test_rate_limited)
{
	/* 2 a second: no token comes back while the burst is read, however slow (valgrind) */
	struct server_config cfg = {.budget = {.rate = 2, .burst = 5, .strikes = 10}};
	start(&cfg, false);
	struct fk_cli a;
	fk_connect(&fs, &a);
	fk_expect0(&a, "bitarenad * ready*");
	/* five fit the bucket; the sixth is refused, and the seventh waits unread */
	fk_type(&a, "#1 ping\n#2 ping\n#3 ping\n#4 ping\n#5 ping\n#6 ping\n#7 ping\n", 56);
	for (int i = 1; i <= 5; i++)
		fk_expectf(&a, "#%d pong", i);
	fk_expect0(&a, "#6 error RATE_LIMITED: too many commands (2 a second, bursts of 5); this "
	               "one was not run: retry after * ms");
	fk_nothing(&a);
	ck_assert(a.paused); /* nothing more is read from it meanwhile: it stays in the kernel */
	fk_wait(&fs, 1100); /* two tokens: #7 and the set below */
	fk_expect0(&a, "#7 pong");
	ck_assert(!a.paused);
	/* JSON: retry_after_ms */
	fk_send(&a, "set format json");
	fk_expect0(&a, "{\"type\":\"ok\"}");
	fk_type(&a, "ping\nping\nping\nping\nping\nping\nping\n", 35);
	const char *l;
	cJSON *e = NULL;
	while ((l = fk_line(&a)) != NULL && e == NULL)
		if (strstr(l, "RATE_LIMITED") != NULL)
			e = cJSON_Parse(l);
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(ts_jstr(e, "code"), "RATE_LIMITED");
	ck_assert_str_eq(ts_jstr(e, "cmd"), "ping");
	ck_assert_int_gt(ts_jint(e, "retry_after_ms"), 0);
	cJSON_Delete(e);
	/* junk and bad commands cost too; an empty line does not */
	struct fk_cli b;
	fk_connect(&fs, &b);
	fk_expect0(&b, "bitarenad * ready*");
	fk_type(&b, "\n\n\n\n\n\n\n\n\n\n\n\n", 12);
	fk_nothing(&b);
	fk_type(&b, "nosuch\nnosuch\nnosuch\nnosuch\nnosuch\nnosuch\n", 42);
	for (int i = 0; i < 5; i++)
		fk_expect0(&b, "error UNKNOWN_COMMAND: *");
	fk_expect0(&b, "error RATE_LIMITED: *");
	stop(&a, &b, NULL);
}
END_TEST

/*
 * Input that filled its block is read again once half of it is handled, not
 * after every line: a client with pings queued in its socket (fed here
 * whenever the connection reads) costs a read for each half block, not one
 * for each line. Reading again after each line, as before, took a read, a
 * resume and a pause for every line a flooder was allowed.
 */
START_TEST(test_full_input_read_at_half)
{
	struct server_config cfg = {.budget = {.rate = 100000, .burst = 100000, .strikes = 10}};
	start(&cfg, false);
	struct fk_cli a;
	fk_connect(&fs, &a);
	fk_expect0(&a, "bitarenad * ready*");
	static const char pings[] = "ping\n";
	size_t sent = 0, reads = 0, pongs = 0;
	while (pongs < 4000) {
		if (!a.paused) { /* the socket has more: it is all read that fits */
			char chunk[CONN_IN_CAP];
			size_t n = 0;
			for (; n < sizeof chunk; n++)
				chunk[n] = pings[(sent + n) % 5];
			sent += conn_input_copy(a.c, chunk, n);
			reads++;
			ck_assert(a.paused); /* its block is full */
		}
		uv_run(&fs.loop, UV_RUN_NOWAIT);
		if (a.paused)
			ck_assert_uint_gt(a.c->in_len, CONN_IN_RESUME);
		const char *l;
		while ((l = fk_line(&a)) != NULL) {
			ck_assert_str_eq(l, "pong");
			pongs++;
		}
	}
	/* 4,000 lines of 5 bytes: the first full block, then one read for each half block */
	ck_assert_uint_le(reads, 2 + 4000 * 5 / CONN_IN_RESUME);
	stop(&a, NULL);
}
END_TEST

/* c's next line waits for the pump, while the line of quiet q, read after it, is answered at
   once; the pump answers c's. */
static void waits_for_pump(struct fk_cli *c, struct fk_cli *q)
{
	ck_assert_uint_eq(conn_input_copy(c->c, "#c ping\n", 8), 8);
	ck_assert_uint_eq(conn_input_copy(q->c, "#q ping\n", 8), 8);
	fk_expect0(q, "#q pong");
	fk_nothing(c);
	fk_run(&fs);
	fk_expect0(c, "#c pong");
}

START_TEST(test_heavy_served_last)
{
	/* 2 tokens a second, bursts of 20: a client below half of its bucket is heavy, one
	   that spent more than one token is spending */
	struct server_config cfg = {.budget = {.rate = 2, .burst = 20, .strikes = 10}};
	start(&cfg, false);
	struct fk_cli f, h, s;
	fk_connect(&fs, &f);
	fk_connect(&fs, &h);
	fk_connect(&fs, &s);
	fk_expect0(&f, "bitarenad * ready*");
	fk_expect0(&h, "bitarenad * ready*");
	fk_expect0(&s, "bitarenad * ready*");
	/* 20, then 19 of 20 left: not spending yet, its line is handled as soon as it is read */
	ck_assert_uint_eq(conn_input_copy(s.c, "#r ping\n", 8), 8);
	fk_expect0(&s, "#r pong");
	ck_assert_uint_eq(conn_input_copy(s.c, "#s ping\n", 8), 8);
	fk_expect0(&s, "#s pong");
	/* 18 left: spending. Its next line waits for the pump */
	waits_for_pump(&s, &h);
	for (int i = 0; i < 10; i++) {
		fk_send(&f, "ping");
		fk_run(&fs);
		fk_expect0(&f, "pong");
	}
	/* 10 of 20 left: not heavy yet, its line is handled in the pump before the heavy ones */
	ck_assert_uint_eq(conn_input_copy(f.c, "#a ping\n", 8), 8);
	fk_run(&fs);
	fk_expect0(&f, "#a pong");
	/* 9 left: heavy. Its next line waits for the pump's heavy slice */
	waits_for_pump(&f, &h);
	/* its bucket full again (6.1 s: 12 tokens more), it is light from its next command
	   on: 19 left after it, its line is handled as soon as it is read */
	fk_wait(&fs, 6100);
	fk_send(&f, "ping");
	fk_expect0(&f, "pong");
	ck_assert_uint_eq(conn_input_copy(f.c, "#b ping\n", 8), 8);
	fk_expect0(&f, "#b pong");
	stop(&f, &h, &s, NULL);
}
END_TEST

/*
 * A spending connection is served one line a turn: the pump's slice is checked between
 * turns, so four costly lines of one client cannot make a pass long. A quiet client's lines
 * run as they are read until one makes it spending; the rest wait for its turns.
 */
START_TEST(test_spending_one_line_a_turn)
{
	/* bursts of 20: spending once more than one token is spent */
	struct server_config cfg = {.budget = {.rate = 2, .burst = 20, .strikes = 10}};
	start(&cfg, false);
	struct fk_cli s;
	fk_connect(&fs, &s);
	fk_expect0(&s, "bitarenad * ready*");
	/* 19 left after #a, 18 after #b: spending; #c waits */
	const char three[] = "#a ping\n#b ping\n#c ping\n";
	ck_assert_uint_eq(conn_input_copy(s.c, three, sizeof three - 1), sizeof three - 1);
	fk_expect0(&s, "#a pong");
	fk_expect0(&s, "#b pong");
	fk_nothing(&s);
	ck_assert(s.c->spending);
	uv_run(&fs.loop, UV_RUN_NOWAIT);
	fk_expect0(&s, "#c pong");
	/* spending: one line a pass */
	const char more[] = "#d ping\n#e ping\n#f ping\n";
	ck_assert_uint_eq(conn_input_copy(s.c, more, sizeof more - 1), sizeof more - 1);
	fk_nothing(&s);
	for (char id = 'd'; id <= 'f'; id++) {
		uv_run(&fs.loop, UV_RUN_NOWAIT);
		char want[16];
		snprintf(want, sizeof want, "#%c pong", id);
		fk_expect0(&s, want);
		fk_nothing(&s);
	}
	stop(&s, NULL);
}
END_TEST

START_TEST(test_flooding_disconnects)
{
	struct server_config cfg = {.budget = {.rate = 100, .burst = 12, .strikes = 4},
	                            .grace_ms = 60000};
	start(&cfg, false);
	struct fk_cli a, b;
	fk_join(&fs, &a, "alice");
	fk_join(&fs, &b, "bob");
	int id = fk_start_game(&a, &b, "ttt");
	fk_skip(&b);
	/* a client that keeps sending after RATE_LIMITED is cut off; its seat waits */
	int rounds = 0;
	while (a.c != NULL && rounds++ < 200) {
		fk_type(&a, "ping\nping\nping\nping\nping\nping\nping\nping\n", 40);
		fk_wait(&fs, 20);
	}
	ck_assert_msg(a.c == NULL, "a flooding client was never disconnected");
	fk_until0(&a, "{\"type\":\"error\",\"code\":\"FLOODING\"}");
	fk_until0(&b, "{\"type\":\"info\",\"event\":\"gone\",\"player\":\"alice\"}");
	/* back with its name and token: the seat was kept */
	struct fk_cli a2;
	fk_join_with(&fs, &a2, "alice", a.token);
	(void)id;
	stop(&a, &b, &a2, NULL);
}
END_TEST

START_TEST(test_played_moves_free)
{
	/* two tokens a second: a game of tic-tac-toe at full speed still plays, because a move
	   that is played costs nothing; a refused one costs */
	struct server_config cfg = {.budget = {.rate = 2, .burst = 12, .strikes = 10}};
	start(&cfg, false);
	struct fk_cli a, b;
	fk_join(&fs, &a, "alice"); /* set format, login: 6 of 12 tokens */
	fk_join(&fs, &b, "bob");
	int id = fk_start_game(&a, &b, "mnk m=4 n=4 k=4"); /* seek 5, accept 2 */
	static const char *const mv[] = {"a1", "a2", "b1", "b2", "c1", "c2", "d2", "d1",
	                                 "a3", "b3", "a4", "b4", "c3", "c4", "d3", "d4"};
	for (int i = 0; i < 16; i++) {
		struct fk_cli *m = i % 2 ? &b : &a, *o = i % 2 ? &a : &b;
		fk_send(m, "move %d %s", id, mv[i]);
		fk_until0(m, "{\"type\":\"ok\",\"cmd\":\"move\"}");
		fk_until0(o, "{\"type\":\"state\"}");
	}
	/* refused moves are paid: the bucket runs dry */
	fk_skip(&a);
	fk_send(&a, "move %d a1", id);
	fk_expect0(&a, "{\"type\":\"error\",\"code\":\"GAME_OVER\"}");
	for (int i = 0; i < 12; i++)
		fk_type(&a, "move 1 a1\n", 10);
	fk_until0(&a, "{\"type\":\"error\",\"code\":\"RATE_LIMITED\"}");
	stop(&a, &b, NULL);
}
END_TEST

/* ---- output counted as memory ----------------------------------------------------------- */

START_TEST(test_output_counts_memory)
{
	/* a client that pipelines pings and reads nothing: before, 64 KiB of 5-byte pongs
	   (13,000 of them, each with its write request and its buffer: megabytes) were held
	   before its input waited; now each counts what it holds */
	struct server_config cfg = {0};
	start(&cfg, false);
	struct fk_cli a;
	fk_connect(&fs, &a);
	fk_expect0(&a, "bitarenad * ready*");
	a.stall = true;
	static char pings[5 * 20000];
	for (int i = 0; i < 20000; i++)
		memcpy(pings + 5 * i, "ping\n", 5);
	size_t off = 0, k;
	while (off < sizeof pings &&
	       (k = conn_input_copy(a.c, pings + off, sizeof pings - off)) > 0) {
		off += k;
		fk_run(&fs);
	}
	ck_assert_uint_lt(off, sizeof pings); /* its input waits: the buffer filled */
	size_t most = CONN_OUT_SOFT / CONN_OUT_ENTRY + 1;
	ck_assert_msg(a.nheld <= most, "%zu replies held for a client that does not read", a.nheld);
	ck_assert_uint_gt(a.nheld, most / 2);
	ck_assert(conn_slow(a.c));
	ck_assert_uint_le(a.c->out_bytes, CONN_OUT_SOFT + 2 * CONN_OUT_ENTRY);
	/* it reads: the rest is answered, in order */
	size_t answered = a.nheld;
	fk_drain(&a);
	while (off < sizeof pings) {
		k = conn_input_copy(a.c, pings + off, sizeof pings - off);
		ck_assert_uint_gt(k, 0);
		off += k;
		fk_run(&fs);
	}
	size_t n = 0;
	while (fk_line(&a) != NULL)
		n++;
	ck_assert_uint_eq(n, 20000);
	ck_assert_uint_gt(n, answered);
	stop(&a, NULL);
}
END_TEST

/* a and b play; w watches game id and stops reading; a's chat fills w's output. */
static void chat_at(struct fk_cli *a, int id, int times)
{
	static char text[1000];
	memset(text, 'x', sizeof text - 1);
	for (int i = 0; i < times; i++) {
		fk_send(a, "say %d %s", id, text);
		fk_skip(a);
	}
}

/* alice and bob play a game that wendy and vera watch, all read up to now; its id. */
static int watched_game(struct fk_cli *a, struct fk_cli *b, struct fk_cli *w, struct fk_cli *v)
{
	fk_join(&fs, a, "alice");
	fk_join(&fs, b, "bob");
	int id = fk_start_game(a, b, "ttt");
	fk_join(&fs, w, "wendy");
	fk_join(&fs, v, "vera");
	fk_send(w, "watch %d", id);
	fk_send(v, "watch %d", id);
	fk_skip(w);
	fk_skip(v);
	return id;
}

START_TEST(test_output_hard_and_time)
{
	struct server_config cfg = {
	        .conn = {.out_soft = 8192, .out_hard = 32768, .out_soft_ms = 300}};
	start(&cfg, false);
	struct fk_cli a, b, w, v;
	int id = watched_game(&a, &b, &w, &v);
	/* the hard limit: w never holds more than it, and is dropped at it */
	w.stall = true;
	size_t most = 0;
	for (int i = 0; i < 100 && w.c != NULL; i++) {
		chat_at(&a, id, 1);
		if (w.c != NULL && w.c->out_bytes > most)
			most = w.c->out_bytes;
		fk_skip(&b);
		fk_skip(&v);
	}
	ck_assert_msg(gone(&w), "a client past the hard limit was not dropped");
	ck_assert_uint_le(most, 32768);
	ck_assert_uint_gt(most, 8192);
	/* the soft limit over time: above it for 300 ms, v is dropped, not at once */
	v.stall = true;
	chat_at(&a, id, 12); /* about 12 KiB: above the soft limit, below the hard */
	ck_assert(v.c != NULL && conn_slow(v.c));
	fk_wait(&fs, 100);
	ck_assert(v.c != NULL);
	fk_wait(&fs, 400);
	ck_assert_msg(gone(&v), "a client above the soft limit for long was not dropped");
	/* a client that drains in time stays */
	struct fk_cli u;
	fk_join(&fs, &u, "ursula");
	fk_send(&u, "watch %d", id);
	fk_skip(&u);
	u.stall = true;
	chat_at(&a, id, 12);
	fk_wait(&fs, 100);
	fk_drain(&u);
	fk_wait(&fs, 400);
	ck_assert(u.c != NULL);
	fk_send(&u, "#u ping");
	fk_until0(&u, "{\"type\":\"pong\",\"id\":\"u\"}");
	stop(&a, &b, &w, &v, &u, NULL);
}
END_TEST

START_TEST(test_output_total)
{
	/* all together above out_total: the connection holding the most goes */
	struct server_config cfg = {.conn = {.out_soft = 1 << 20, .out_total = 40000}};
	start(&cfg, false);
	struct fk_cli a, b, w, v;
	int id = watched_game(&a, &b, &w, &v);
	w.stall = true;
	chat_at(&a, id, 15); /* w holds about 19 KiB */
	v.stall = true;
	for (int i = 0; i < 40 && v.c != NULL && w.c != NULL; i++)
		chat_at(&a, id, 1); /* both grow; w first past the half */
	ck_assert(gone(&w));
	ck_assert(v.c != NULL);
	ck_assert_uint_le(fs.srv.hub.out_total, 40000);
	stop(&a, &b, &w, &v, NULL);
}
END_TEST

/* ---- at the door ------------------------------------------------------------------------ */

START_TEST(test_door)
{
	struct server_config cfg = {.conn = {.max_clients = 6, .max_per_addr = 2}};
	start(&cfg, false);
	struct fk_cli c[10];
	fk_connect_from(&fs, &c[0], "192.0.2.1");
	fk_connect_from(&fs, &c[1], "192.0.2.1");
	fk_connect_from(&fs, &c[2], "::ffff:192.0.2.1"); /* the same address */
	fk_expect0(&c[0], "bitarenad * ready*");
	fk_expect0(&c[1], "bitarenad * ready*");
	fk_expect0(&c[2], "error TOO_MANY_CONNECTIONS: 2 connections come from your address*");
	ck_assert(gone(&c[2]));
	/* one IPv6 /64 is one address; loopback is not limited */
	fk_connect_from(&fs, &c[3], "2001:db8:5:6::1");
	fk_connect_from(&fs, &c[4], "2001:db8:5:6::2");
	fk_connect_from(&fs, &c[5], "2001:db8:5:6:abcd::3");
	fk_expect0(&c[5], "error TOO_MANY_CONNECTIONS*");
	ck_assert(gone(&c[5]));
	fk_connect_from(&fs, &c[6], "127.0.0.1");
	fk_connect_from(&fs, &c[7], "127.0.0.1");
	fk_expect0(&c[7], "bitarenad * ready*");
	/* six in all: the seventh is told the server is full */
	fk_connect_from(&fs, &c[8], "198.51.100.9");
	fk_expect0(&c[8], "error SERVER_FULL: the server has 6 connections*");
	ck_assert(gone(&c[8]));
	/* one leaves: room again, for its address too */
	fk_hangup(&c[0]);
	ck_assert(gone(&c[0]));
	fk_connect_from(&fs, &c[9], "192.0.2.1");
	fk_expect0(&c[9], "bitarenad * ready*");
	ck_assert_uint_eq(fs.srv.hub.nclients, 6);
	stop(&c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &c[6], &c[7], &c[8], &c[9], NULL);
}
END_TEST

/* ---- timeouts --------------------------------------------------------------------------- */

START_TEST(test_conn_find)
{
	/* connections found by id while others come and go (the index compacts its holes) */
	struct server_config cfg = {0};
	start(&cfg, false);
	enum { N = 150 };
	static struct fk_cli f[N];
	uint64_t ids[N];
	for (int i = 0; i < N; i++) {
		fk_connect(&fs, &f[i]);
		ids[i] = f[i].c->id;
	}
	for (int i = 0; i < N; i++)
		if (i % 3 != 0)
			conn_close(f[i].c, false);
	fk_run(&fs);
	for (int i = 0; i < N; i++) {
		struct conn *c = conn_find(&fs.srv.hub, ids[i]);
		if (i % 3 == 0)
			ck_assert_ptr_eq(c, f[i].c);
		else
			ck_assert_ptr_null(c);
	}
	ck_assert_ptr_null(conn_find(&fs.srv.hub, ids[N - 1] + 1));
	fk_stop(&fs);
	for (int i = 0; i < N; i++)
		fk_free(&f[i]);
}
END_TEST

START_TEST(test_login_timeout)
{
	/* 1 s: room for the steps before the deadline however slow the machine (valgrind) */
	struct server_config cfg = {.conn = {.login_ms = 1000}};
	start(&cfg, false);
	struct fk_cli a, b, n, w;
	fk_join(&fs, &a, "alice");
	fk_join(&fs, &b, "bob");
	int id = fk_start_game(&a, &b, "ttt");
	fk_connect(&fs, &n); /* never logs in */
	fk_connect(&fs, &w); /* never logs in, but watches a game */
	fk_send(&w, "watch %d", id);
	fk_wait(&fs, 300);
	ck_assert(n.c != NULL);
	fk_wait(&fs, 1000);
	ck_assert_msg(gone(&n), "a connection that never logged in was kept");
	fk_until0(&n, "info LOGIN_TIMEOUT: no login within 1 s of connecting; this connection "
	              "closes");
	ck_assert(w.c != NULL && a.c != NULL && b.c != NULL);
	fk_send(&w, "#w ping");
	fk_until0(&w, "#w pong");
	stop(&a, &b, &n, &w, NULL);
}
END_TEST

START_TEST(test_idle_timeout)
{
	/* an idle time ten times b's pace, so that a loaded machine's stall does not take b too
	   (300 ms flaked once under make -j2 check beside other builds) */
	struct server_config cfg = {.conn = {.idle_ms = 1000}, .grace_ms = 60000};
	start(&cfg, false);
	struct fk_cli a, b;
	fk_join(&fs, &a, "alice");
	fk_join(&fs, &b, "bob");
	int id = fk_start_game(&a, &b, "ttt");
	/* b keeps talking, a says nothing: a goes (within the idle time and a sweep's period,
	   a quarter of it), its seat waits through the grace */
	for (int i = 0; i < 15; i++) {
		fk_wait(&fs, 100);
		fk_send(&b, "ping");
	}
	ck_assert(gone(&a));
	ck_assert(b.c != NULL);
	fk_until0(&a, "{\"type\":\"info\",\"event\":\"idle_timeout\",\"code\":\"IDLE_TIMEOUT\"}");
	fk_until0(&b,
	          "{\"type\":\"info\",\"event\":\"gone\",\"player\":\"alice\",\"grace_ms\":60000}");
	struct fk_cli a2;
	fk_join_with(&fs, &a2, "alice", a.token);
	fk_until0(&a2, "{\"type\":\"game_start\"}");
	(void)id;
	stop(&a, &b, &a2, NULL);
}
END_TEST

START_TEST(test_ping_timeout)
{
	struct server_config cfg = {.ping_ms = 100, .ping_timeout_ms = 400, .grace_ms = 60000};
	start(&cfg, false);
	struct fk_cli a, b;
	fk_join(&fs, &a, "alice");
	fk_join(&fs, &b, "bob");
	fk_start_game(&a, &b, "ttt");
	fk_send(&a, "set ping on");
	fk_send(&b, "set ping on");
	/* b answers every ping, a none: a is dropped at the deadline, b stays */
	bool told = false;
	for (int i = 0; i < 16; i++) {
		fk_wait(&fs, 60);
		const char *l;
		while ((l = fk_line(&b)) != NULL) {
			told |= ts_match(
			        "{\"type\":\"info\",\"event\":\"gone\",\"player\":\"alice\"}", l);
			cJSON *j = cJSON_Parse(l);
			if (j != NULL && strcmp(ts_jstr(j, "type"), "ping") == 0)
				fk_send(&b, "pong %d", ts_jint(j, "token"));
			cJSON_Delete(j);
		}
	}
	ck_assert_msg(gone(&a), "a client that never answered a ping was kept");
	ck_assert(b.c != NULL);
	ck_assert_msg(told, "the opponent was not told the player left");
	fk_until0(&a, "{\"type\":\"info\",\"event\":\"ping_timeout\",\"code\":\"PING_TIMEOUT\"}");
	stop(&a, &b, NULL);
}
END_TEST

/* ---- per connection and per game ------------------------------------------------------------ */

START_TEST(test_watch_limit)
{
	struct server_config cfg = {.sess = {.max_watches = 2}};
	start(&cfg, false);
	struct fk_cli p[6], w;
	int ids[3];
	char name[16];
	for (int i = 0; i < 6; i++) {
		snprintf(name, sizeof name, "p%d", i);
		fk_join(&fs, &p[i], name);
	}
	for (int g = 0; g < 3; g++) {
		fk_skip(&p[2 * g]);
		fk_skip(&p[2 * g + 1]);
		ids[g] = fk_start_game(&p[2 * g], &p[2 * g + 1], "ttt");
	}
	fk_join(&fs, &w, "wendy");
	fk_send(&w, "watch %d", ids[0]);
	fk_expect0(&w, "{\"type\":\"ok\",\"cmd\":\"watch\"}");
	fk_expect0(&w, "{\"type\":\"state\"}");
	fk_send(&w, "watch %d", ids[1]);
	fk_expect0(&w, "{\"type\":\"ok\",\"cmd\":\"watch\"}");
	fk_expect0(&w, "{\"type\":\"state\"}");
	fk_send(&w, "watch %d", ids[1]); /* again: no second watch */
	fk_expect0(&w, "{\"type\":\"ok\",\"cmd\":\"watch\"}");
	fk_expect0(&w, "{\"type\":\"state\"}");
	fk_send(&w, "watch %d", ids[2]);
	fk_expect0(&w, "{\"type\":\"error\",\"code\":\"WATCH_LIMIT\"}");
	fk_send(&w, "unwatch %d", ids[0]);
	fk_expect0(&w, "{\"type\":\"ok\",\"cmd\":\"unwatch\"}");
	fk_send(&w, "watch %d", ids[2]);
	fk_expect0(&w, "{\"type\":\"ok\",\"cmd\":\"watch\"}");
	/* who lists each one's own games */
	fk_skip(&w);
	fk_send(&w, "who");
	char pat[512];
	snprintf(pat, sizeof pat,
	         "{\"type\":\"ok\",\"cmd\":\"who\",\"users\":[{\"name\":\"wendy\",\"playing\":[],"
	         "\"watching\":[%d,%d]},{\"name\":\"p5\",\"playing\":[%d]}]}",
	         ids[2], ids[1], ids[2]);
	cJSON *who = fk_expect(&w, "{\"type\":\"ok\",\"cmd\":\"who\"}");
	cJSON *pj = cJSON_Parse(pat);
	cJSON *users = cJSON_GetObjectItem(who, "users");
	ck_assert_int_eq(cJSON_GetArraySize(users), 7);
	cJSON *pu = cJSON_GetObjectItem(pj, "users");
	ck_assert(ts_json_match(cJSON_GetArrayItem(pu, 0), cJSON_GetArrayItem(users, 0)));
	ck_assert(ts_json_match(cJSON_GetArrayItem(pu, 1), cJSON_GetArrayItem(users, 1)));
	cJSON_Delete(pj);
	cJSON_Delete(who);
	stop(&p[0], &p[1], &p[2], &p[3], &p[4], &p[5], &w, NULL);
}
END_TEST

/* Skips f's lines until one matches pattern, running the loop while none is there (the store's
   threads: a login's read, a move's output held until it is durable); at most 10 s a line.
   Returns the line parsed (the caller frees). */
static cJSON *await_until(struct fk_cli *f, const char *pattern)
{
	for (;;) {
		fk_await(f);
		const char *l;
		while ((l = fk_line(f)) != NULL)
			if (ts_match(pattern, l))
				return cJSON_Parse(l);
	}
}

/* fk_join() with a store: the login waits for a reader thread. */
static void join_stored(struct fk_cli *f, const char *name)
{
	fk_connect(&fs, f);
	fk_skip(f);
	fk_send(f, "set format json");
	fk_skip(f);
	fk_send(f, "login %s", name);
	cJSON_Delete(await_until(f, "{\"type\":\"ok\",\"cmd\":\"login\"}"));
}

/* A finished game of a and b with a store (a resigns after b2); returns its id. */
static int stored_game(struct fk_cli *a, struct fk_cli *b)
{
	fk_send(a, "seek ttt color=first");
	cJSON *ok = fk_expect(a, "{\"type\":\"ok\",\"cmd\":\"seek\"}");
	int seek = ts_jint(cJSON_GetObjectItem(ok, "seek"), "id");
	cJSON_Delete(ok);
	fk_send(b, "accept %d", seek);
	cJSON *acc = await_until(b, "{\"type\":\"ok\",\"cmd\":\"accept\"}");
	int id = ts_jint(acc, "game");
	cJSON_Delete(acc);
	cJSON_Delete(await_until(a, "{\"type\":\"state\",\"seq\":1}"));
	fk_send(a, "move %d b2", id);
	fk_send(a, "resign %d", id);
	cJSON_Delete(await_until(b, "{\"type\":\"game_over\"}"));
	return id;
}

START_TEST(test_replay_limit)
{
	struct server_config cfg = {.max_replays = 2};
	start(&cfg, true);
	struct fk_cli a, b;
	join_stored(&a, "alice");
	join_stored(&b, "bob");
	int id = stored_game(&a, &b);
	/* two replays run at once (a minute a ply); the third waits for one of them to end */
	fk_send(&b, "replay %d 60000", id);
	cJSON_Delete(await_until(&b, "{\"type\":\"ok\",\"cmd\":\"replay\"}"));
	fk_send(&b, "replay %d 60000", id);
	cJSON_Delete(await_until(&b, "{\"type\":\"ok\",\"cmd\":\"replay\"}"));
	fk_send(&b, "replay %d 60000", id);
	fk_until0(&b, "{\"type\":\"error\",\"code\":\"REPLAY_LIMIT\"}");
	/* one with no delay ends at once; then there is room */
	stop(&a, &b, NULL);
	start(&cfg, true);
	join_stored(&a, "alice");
	join_stored(&b, "bob");
	id = stored_game(&a, &b);
	for (int i = 0; i < 5; i++) { /* each ends before the next: never more than two */
		fk_send(&b, "replay %d 0", id);
		cJSON_Delete(await_until(&b, "{\"type\":\"ok\",\"cmd\":\"replay\"}"));
		for (int k = 0; k < 200; k++) {
			fk_wait(&fs, 5);
			if (b.c != NULL && ((struct client *)b.c->data)->nreplays == 0)
				break;
		}
		fk_until0(&b, "{\"type\":\"replay\",\"done\":true}");
	}
	stop(&a, &b, NULL);
}
END_TEST

START_TEST(test_max_plies)
{
	/* Tak has no end of its own: the limit draws it */
	struct server_config cfg = {.sess = {.max_plies = 6}};
	start(&cfg, false);
	struct fk_cli a, b;
	fk_join(&fs, &a, "alice");
	fk_join(&fs, &b, "bob");
	int id = fk_start_game(&a, &b, "tak size=5");
	static const char *const mv[] = {"a1", "e5", "b1", "d5", "b2", "d4"};
	for (int i = 0; i < 6; i++) {
		struct fk_cli *m = i % 2 ? &b : &a, *o = i % 2 ? &a : &b;
		fk_send(m, "move %d %s", id, mv[i]);
		fk_until0(m, "{\"type\":\"ok\",\"cmd\":\"move\"}");
		fk_until0(o, "{\"type\":\"state\"}");
	}
	fk_until0(&a, "{\"type\":\"game_over\",\"result\":{\"winner\":null,\"score\":\"1/2-1/2\","
	              "\"reason\":\"max_plies\"}}");
	fk_send(&a, "move %d c3", id);
	fk_until0(&a, "{\"type\":\"error\",\"code\":\"GAME_OVER\"}");
	stop(&a, &b, NULL);
}
END_TEST

/* ---- seek news ------------------------------------------------------------------------- */

START_TEST(test_seek_news)
{
	struct server_config cfg = {.seek_feed_ms = 200, .max_seeks = 16};
	start(&cfg, false);
	fs.srv.lobby.feed_burst = 1; /* one send at once, then batches */
	struct fk_cli s[6], x, q;
	char name[16];
	for (int i = 0; i < 6; i++) {
		snprintf(name, sizeof name, "s%d", i);
		fk_join(&fs, &s[i], name);
	}
	fk_join(&fs, &x, "xavier"); /* listens, reads nothing: each write is one held outbuf */
	fk_join(&fs, &q, "quiet");
	fk_send(&q, "set seeks off");
	fk_expect0(&q, "{\"type\":\"ok\",\"cmd\":\"set\",\"seeks\":false}");
	fk_wait(&fs, 250);
	x.stall = true;
	/* five seekers at once: xavier gets one write with five lines (before, five writes) */
	for (int i = 0; i < 5; i++) {
		fk_skip(&s[i]);
		fk_send(&s[i], "seek ttt");
		fk_until0(&s[i], "{\"type\":\"ok\",\"cmd\":\"seek\"}");
	}
	fk_wait(&fs, 10); /* the first goes at once; the rest within the batch */
	fk_wait(&fs, 250);
	ck_assert_uint_le(x.nheld, 2);
	fk_drain(&x);
	for (int i = 0; i < 5; i++)
		fk_expectf(&x, "{\"type\":\"seek\",\"event\":\"new\",\"seek\":{\"by\":\"s%d\"}}",
		           i);
	fk_nothing(&x);
	fk_nothing(&q); /* turned off */
	/* the authors hear the others' seeks, not their own */
	fk_until0(&s[0], "{\"type\":\"seek\",\"event\":\"new\",\"seek\":{\"by\":\"s4\"}}");
	fk_skip(&s[4]);
	/* a seek that comes and goes within the batch is never told */
	fk_wait(&fs, 250);
	fk_skip(&s[5]);
	fk_send(&s[5], "seek ttt");
	cJSON *ok = fk_expect(&s[5], "{\"type\":\"ok\",\"cmd\":\"seek\"}");
	int first = ts_jint(cJSON_GetObjectItem(ok, "seek"), "id");
	cJSON_Delete(ok);
	fk_send(&s[5], "seek ttt"); /* within the batch: waits */
	ok = fk_expect(&s[5], "{\"type\":\"ok\",\"cmd\":\"seek\"}");
	int second = ts_jint(cJSON_GetObjectItem(ok, "seek"), "id");
	cJSON_Delete(ok);
	fk_send(&s[5], "unseek %d", second);
	fk_wait(&fs, 250);
	fk_expectf(&x, "{\"type\":\"seek\",\"event\":\"new\",\"seek\":{\"id\":%d}}", first);
	fk_nothing(&x);
	/* more than a few at once: one summary */
	for (int i = 0; i < 5; i++) {
		fk_send(&s[i], "seek ttt");
		fk_send(&s[i], "seek mnk");
	}
	fk_wait(&fs, 250);
	fk_until0(&x, "{\"type\":\"seek\",\"event\":\"new\"}");
	fk_until0(&x, "{\"type\":\"seek\",\"event\":\"changed\",\"count\":9,\"open\":16}");
	fk_nothing(&x);
	/* sixteen open in all: no more */
	fk_send(&x, "seek ttt");
	fk_expect0(&x, "{\"type\":\"error\",\"code\":\"TOO_MANY_SEEKS\"}");
	/* the acceptor hears the end of the seek with its answer, the others in the batch */
	fk_wait(&fs, 250);
	fk_skip(&s[1]);
	fk_skip(&s[2]);
	fk_send(&s[2], "accept %d", first);
	fk_expect0(&s[2], "{\"type\":\"ok\",\"cmd\":\"accept\"}");
	fk_expectf(&s[2], "{\"type\":\"seek\",\"event\":\"gone\",\"id\":%d}", first);
	fk_expect0(&s[2], "{\"type\":\"game_start\"}");
	fk_expect0(&s[2], "{\"type\":\"state\",\"seq\":1}");
	fk_wait(&fs, 250);
	fk_until0(&s[1], "{\"type\":\"seek\",\"event\":\"gone\"}");
	fk_nothing(&s[2]);
	stop(&s[0], &s[1], &s[2], &s[3], &s[4], &s[5], &x, &q, NULL);
}
END_TEST

START_TEST(test_seeks_listed)
{
	/* 26 users with 8 seeks each: `seeks` lists the first LOBBY_SEEKS_LISTED and counts all
	   (before, one reply held them all: at 10,000 open seeks, a megabyte) */
	struct server_config cfg = {.seek_feed_ms = 200};
	start(&cfg, false);
	enum { USERS = 26, EACH = LOBBY_MAX_SEEKS };
	ck_assert_int_gt(USERS * EACH, LOBBY_SEEKS_LISTED);
	static struct fk_cli u[USERS];
	struct fk_cli v, t;
	char name[16];
	for (int i = 0; i < USERS; i++) {
		snprintf(name, sizeof name, "u%d", i);
		fk_join(&fs, &u[i], name);
		fk_send(&u[i], "set seeks off");
		for (int k = 0; k < EACH; k++)
			fk_send(&u[i], "seek ttt");
	}
	fk_join(&fs, &v, "viewer");
	fk_skip(&v);
	fk_send(&v, "seeks");
	cJSON *ok = fk_expect(&v, "{\"type\":\"ok\",\"cmd\":\"seeks\"}");
	ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(ok, "seeks")), LOBBY_SEEKS_LISTED);
	ck_assert_int_eq(ts_jint(ok, "open"), USERS * EACH);
	cJSON_Delete(ok);
	fk_connect(&fs, &t);
	fk_expect0(&t, "bitarenad * ready*");
	fk_send(&t, "login texter");
	fk_send(&t, "set seeks off"); /* the seek feed's next summary may come at any time */
	fk_skip(&t);
	fk_send(&t, "seeks");
	fk_expectf(&t, "ok %d open seeks, the first %d listed", USERS * EACH, LOBBY_SEEKS_LISTED);
	for (int i = 0; i < LOBBY_SEEKS_LISTED; i++)
		fk_expect0(&t, "  * ttt *");
	fk_nothing(&t);
	fk_stop(&fs);
	for (int i = 0; i < USERS; i++)
		fk_free(&u[i]);
	fk_free(&v);
	fk_free(&t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("limits");
	TCase *pure = tcase_create("pure");
	tcase_add_test(pure, test_budget_bucket);
	tcase_add_test(pure, test_budget_spend);
	tcase_add_test(pure, test_address_keys);
	suite_add_tcase(s, pure);
	TCase *tc = tcase_create("server");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_rate_limited);
	tcase_add_test(tc, test_full_input_read_at_half);
	tcase_add_test(tc, test_heavy_served_last);
	tcase_add_test(tc, test_spending_one_line_a_turn);
	tcase_add_test(tc, test_flooding_disconnects);
	tcase_add_test(tc, test_played_moves_free);
	tcase_add_test(tc, test_output_counts_memory);
	tcase_add_test(tc, test_output_hard_and_time);
	tcase_add_test(tc, test_output_total);
	tcase_add_test(tc, test_door);
	tcase_add_test(tc, test_conn_find);
	tcase_add_test(tc, test_login_timeout);
	tcase_add_test(tc, test_idle_timeout);
	tcase_add_test(tc, test_ping_timeout);
	tcase_add_test(tc, test_watch_limit);
	tcase_add_test(tc, test_replay_limit);
	tcase_add_test(tc, test_max_plies);
	tcase_add_test(tc, test_seek_news);
	tcase_add_test(tc, test_seeks_listed);
	suite_add_tcase(s, tc);
	return check_run(s);
}
