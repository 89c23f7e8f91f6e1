/*
 * check_flood.c - the flood defences of the real bitarenad with its default
 * limits, over TCP and over WebSocket alike (a raw WebSocket client here:
 * handshake, masked frames): a client that pipelines past its command budget
 * gets RATE_LIMITED with retry_after_ms and nothing of it runs meanwhile,
 * while another client is answered at once; dear verbs (who) run out sooner;
 * replays per connection are limited; --max-clients refuses at the door with
 * a reason; the descriptor table is grown for them all at start. Against the
 * server before these limits every test here fails
 * (everything was answered, every replay ran, nobody was refused).
 */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "testserver.h"
#include "wsclient.h"

/*
 * Counts the pongs among the next lines of c up to the first RATE_LIMITED error (kept in e),
 * at most n lines: how many answers the budget gave before its refusal, whatever the pace at
 * which the server read the burst (a loaded machine reads it in pieces, the bucket refilling
 * meanwhile).
 */
static void count_replies(struct ts_cli *c, int n, int *pongs, int *limited, cJSON **e)
{
	*pongs = *limited = 0;
	for (int i = 0; i < n && *limited == 0; i++) {
		char *l = ts_line(c);
		ck_assert_msg(l != NULL, "reply %d of %d missing", i + 1, n);
		cJSON *j = cJSON_Parse(l);
		free(l);
		const char *type = ts_jstr(j, "type");
		if (strcmp(type, "pong") == 0) {
			(*pongs)++;
		} else if (strcmp(ts_jstr(j, "code"), "RATE_LIMITED") == 0) {
			if ((*limited)++ == 0 && e != NULL) {
				*e = j;
				continue;
			}
		}
		cJSON_Delete(j);
	}
}

START_TEST(test_budget_tcp)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	struct ts_cli a, b;
	ts_connect_json(&a, s.port);
	ts_connect_json(&b, s.port);
	/* 300 pings in one write: the bucket's worth is answered, then one refusal, and the
	   rest waits (read again only after retry_after_ms) */
	char *burst = malloc(300 * 16);
	size_t at = 0;
	for (int i = 0; i < 300; i++)
		at += (size_t)sprintf(burst + at, "#p%d ping\n", i);
	ts_write(&a, burst, at);
	free(burst);
	ts_send(&b, "#b ping");
	ts_expect0(&b, "{\"type\":\"pong\",\"id\":\"b\"}"); /* the other is not held up */
	int pongs, limited;
	cJSON *e = NULL;
	count_replies(&a, 300, &pongs, &limited, &e);
	ck_assert_int_ge(pongs, 99); /* one token went on set format */
	ck_assert_int_ge(limited, 1);
	ck_assert_ptr_nonnull(e);
	ck_assert_int_gt(ts_jint(e, "retry_after_ms"), 0);
	ck_assert_int_le(ts_jint(e, "retry_after_ms"), 10000);
	ck_assert_ptr_nonnull(strstr(ts_jstr(e, "message"), "retry after"));
	cJSON_Delete(e);
	ts_close(&a);
	ts_close(&b);
	ts_down(&s);
}
END_TEST

START_TEST(test_dear_verbs)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	struct ts_cli a;
	ts_join(&a, s.port, "alice");
	/* who costs five: twenty of them, not a hundred, empty the bucket */
	char buf[64 * 8];
	size_t at = 0;
	for (int i = 0; i < 40; i++)
		at += (size_t)sprintf(buf + at, "who\n");
	ts_write(&a, buf, at);
	int ok = 0;
	for (;;) {
		char *l = ts_line(&a);
		ck_assert_ptr_nonnull(l);
		bool lim = strstr(l, "RATE_LIMITED") != NULL;
		ok += strstr(l, "\"cmd\":\"who\"") != NULL && strstr(l, "\"type\":\"ok\"") != NULL;
		free(l);
		if (lim)
			break;
	}
	ck_assert_int_le(ok, 21);
	ck_assert_int_ge(ok, 15);
	ts_close(&a);
	ts_down(&s);
}
END_TEST

START_TEST(test_replays_limited)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	struct ts_cli a, b;
	ts_join(&a, s.port, "alice");
	ts_join(&b, s.port, "bob");
	int id = ts_start_game(&a, &b, "ttt", NULL);
	ts_send(&a, "move %d b2", id);
	ts_expect0(&a, "{\"type\":\"ok\"}");
	ts_send(&a, "resign %d", id);
	ts_until0(&b, "{\"type\":\"game_over\"}");
	/* two replays at a minute a ply run; the third is refused, not queued */
	for (int i = 0; i < 2; i++) {
		ts_send(&b, "#r%d replay %d 60000", i, id);
		ts_until0(&b, "{\"type\":\"ok\",\"cmd\":\"replay\"}");
	}
	ts_send(&b, "#r2 replay %d 60000", id);
	ts_until0(&b, "{\"type\":\"error\",\"code\":\"REPLAY_LIMIT\",\"id\":\"r2\"}");
	ts_close(&a);
	ts_close(&b);
	ts_down(&s);
}
END_TEST

START_TEST(test_max_clients)
{
	static const char *const args[] = {"--max-clients", "3"};
	struct ts_srv s;
	ts_up(&s, args, 2);
	struct ts_cli c[4];
	for (int i = 0; i < 3; i++) {
		ts_open(&c[i], s.port);
		ts_expect0(&c[i], "bitarenad * ready*");
	}
	ts_open(&c[3], s.port);
	ts_expect0(&c[3], "error SERVER_FULL: the server has 3 connections*");
	ck_assert(ts_eof(&c[3]));
	ts_close(&c[3]);
	/* one goes: room again */
	ts_send(&c[0], "quit");
	ck_assert(ts_eof(&c[0]));
	ts_close(&c[0]);
	ts_msleep(50);
	ts_open(&c[0], s.port);
	ts_expect0(&c[0], "bitarenad * ready*");
	for (int i = 0; i < 3; i++)
		ts_close(&c[i]);
	ts_down(&s);
}
END_TEST

/* The size of pid's descriptor table (FDSize in /proc/PID/status), 0 when unknown. */
static long fd_table_size(pid_t pid)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
	FILE *f = fopen(path, "r");
	long n = 0;
	while (f != NULL && fgets(line, sizeof line, f) != NULL)
		if (sscanf(line, "FDSize: %ld", &n) == 1)
			break;
	if (f != NULL)
		fclose(f);
	return n;
}

/*
 * The descriptor table is grown at start for every connection allowed:
 * grown later, each doubling (as connections come) waits for an RCU grace
 * period in a process with threads, and the loop stalled 12-27 ms in
 * accept(). On the server before, the table was 64 slots at start.
 */
START_TEST(test_fd_table_grown)
{
	static const char *const args[] = {"--max-clients", "3000"};
	struct ts_srv s;
	ts_up(&s, args, 2);
	long n = fd_table_size(s.pid);
	ck_assert_msg(n >= 3000, "FDSize %ld", n);
	ts_down(&s);
}
END_TEST

/* ---- over WebSocket (tests/lib/wsclient.h), the pings written as one burst ---------------- */

/* Appends one masked text frame of text to out (at *at). */
static void ws_frame(unsigned char *out, size_t *at, const char *text)
{
	size_t n = strlen(text);
	ck_assert_uint_lt(n, 126);
	static const unsigned char mask[4] = {0x12, 0x34, 0x56, 0x78};
	out[(*at)++] = 0x81;
	out[(*at)++] = (unsigned char)(0x80 | n);
	memcpy(out + *at, mask, 4);
	*at += 4;
	for (size_t i = 0; i < n; i++)
		out[(*at)++] = (unsigned char)text[i] ^ mask[i % 4];
}

START_TEST(test_budget_websocket)
{
	/* the same budget over WebSocket: it is the connection layer's, not a transport's */
	char hpf[256];
	snprintf(hpf, sizeof hpf, "%s/bitarena-http.XXXXXX",
	         getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	int fd = mkstemp(hpf);
	ck_assert_int_ge(fd, 0);
	close(fd);
	unlink(hpf);
	const char *args[] = {"--http", "127.0.0.1:0", "--http-port-file", hpf};
	struct ts_srv s;
	ts_up(&s, args, 4);
	int hport = 0;
	for (int i = 0; i < 500 && hport == 0; i++) {
		FILE *f = fopen(hpf, "r");
		if (f != NULL) {
			if (fscanf(f, "%d", &hport) != 1)
				hport = 0;
			fclose(f);
		}
		if (hport == 0)
			ts_msleep(10);
	}
	unlink(hpf);
	ck_assert_int_gt(hport, 0);
	struct ws_cli w;
	wsc_open(&w, hport);
	char *m = wsc_recv(&w);
	ck_assert_msg(m != NULL && strncmp(m, "bitarenad ", 10) == 0, "welcome: %s", m);
	free(m);
	static unsigned char out[300 * 24];
	size_t at = 0;
	ws_frame(out, &at, "set format json");
	for (int i = 0; i < 200; i++) {
		char t[32];
		snprintf(t, sizeof t, "#w%d ping", i);
		ws_frame(out, &at, t);
	}
	ck_assert_int_eq(write(w.fd, out, at), (ssize_t)at);
	m = wsc_recv(&w);
	ck_assert_ptr_nonnull(m);
	free(m);
	int pongs = 0, limited = 0;
	while (limited == 0 && (m = wsc_recv(&w)) != NULL) {
		if (strstr(m, "\"pong\"") != NULL)
			pongs++;
		if (strstr(m, "\"RATE_LIMITED\"") != NULL) {
			limited++;
			ck_assert_ptr_nonnull(strstr(m, "\"retry_after_ms\":"));
		}
		free(m);
	}
	ck_assert_int_eq(limited, 1);
	ck_assert_int_ge(pongs, 98);
	ck_assert_int_le(pongs, 100);
	/* a TCP client meanwhile is answered at once */
	struct ts_cli b;
	ts_connect_json(&b, s.port);
	ts_send(&b, "#b ping");
	ts_expect0(&b, "{\"type\":\"pong\",\"id\":\"b\"}");
	ts_close(&b);
	wsc_close(&w);
	ts_down(&s);
}
END_TEST

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	Suite *s = suite_create("flood");
	TCase *tc = tcase_create("defaults");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_budget_tcp);
	if (HAVE_WEBSOCKETS)
		tcase_add_test(tc, test_budget_websocket);
	else
		printf("check_flood: this build has no WebSocket "
		       "(./configure --without-websockets): test_budget_websocket is skipped\n");
	tcase_add_test(tc, test_dear_verbs);
	tcase_add_test(tc, test_replays_limited);
	tcase_add_test(tc, test_max_clients);
	tcase_add_test(tc, test_fd_table_grown);
	suite_add_tcase(s, tc);
	return check_run(s);
}
