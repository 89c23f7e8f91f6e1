/*
 * check_telnet.c - telnet against the real bitarenad: the negotiation the
 * server answers (DO TIMING-MARK with WILL TIMING-MARK, in order with the
 * replies around it; every other option refused once, refusals never
 * answered), a subnegotiation that never ends (bounded, reported, the
 * connection usable again), and the real `telnet` program (Debian's telnet
 * package) on a pseudo-terminal: after Ctrl-C, which makes telnet send
 * IAC IP IAC DO TIMING-MARK and throw away all output until the answer, the
 * session goes on showing the server's replies; `send ayt` (IAC AYT, raw or
 * from telnet's prompt) is answered with a line that says the server is there.
 *
 * The suite is skipped (exit 77) when no `telnet` is on PATH; run.sh installs it.
 */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_main.h"
#include "testserver.h"

#define WAIT_MS 10000

/* Reads raw bytes from fd into buf (cap bytes) until needle (n bytes) is among them or the
   wait is over; returns how many bytes were read. */
static size_t read_until(int fd, char *buf, size_t cap, const char *needle, size_t n)
{
	size_t len = 0;
	int waited = 0;
	while (len < cap && waited < WAIT_MS) {
		if (len >= n && memmem(buf, len, needle, n) != NULL)
			break;
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		int r = poll(&pf, 1, 50);
		if (r == 0) {
			waited += 50;
			continue;
		}
		ssize_t k = read(fd, buf + len, cap - len);
		if (k <= 0) {
			if (k < 0 && errno == EINTR)
				continue;
			break;
		}
		len += (size_t)k;
	}
	return len;
}

/* A raw connection to s, past the welcome line. */
static int raw_connect(const struct ts_srv *s)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(fd, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)s->port)};
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
	char buf[512];
	size_t n = read_until(fd, buf, sizeof buf, "begin\n", 6);
	ck_assert_msg(n > 0 && memmem(buf, n, "ready", 5) != NULL, "no welcome");
	return fd;
}

static void raw_write(int fd, const void *data, size_t n)
{
	ck_assert_int_eq(write(fd, data, n), (ssize_t)n);
}

/* Writes in (n bytes) to fd, then reads until end (e bytes) ends the answer, which must be
   exactly want (w bytes). */
static void exchange(int fd, const char *in, size_t n, const char *end, size_t e, const char *want,
                     size_t w)
{
	raw_write(fd, in, n);
	char buf[1024];
	size_t got = read_until(fd, buf, sizeof buf, end, e);
	ck_assert_msg(got == w && memcmp(buf, want, w) == 0, "got %zu bytes: %.*s", got, (int)got,
	              buf);
}

START_TEST(test_negotiation_answers)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	int fd = raw_connect(&s);
	/* DO ECHO, WILL NAWS, WONT SGA, DONT ECHO, IAC NOP, then a command */
	static const char in[] =
	        "\xff\xfd\x01\xff\xfb\x1f\xff\xfc\x03\xff\xfe\x01\xff\xf1#a ping\r\n";
	/* exactly: WONT ECHO, DONT NAWS, the pong; nothing for WONT and DONT (no loop) */
	static const char want[] = "\xff\xfc\x01\xff\xfe\x1f#a pong\n";
	exchange(fd, in, sizeof in - 1, "#a pong\n", 8, want, sizeof want - 1);
	/* refused again when asked again: answers follow requests one for one */
	exchange(fd, "\xff\xfd\x01\xff\xfd\x01#b ping\n", 14, "#b pong\n", 8,
	         "\xff\xfc\x01\xff\xfc\x01#b pong\n", 14);
	close(fd);
	ts_down(&s);
}
END_TEST

START_TEST(test_timing_mark_in_order)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	int fd = raw_connect(&s);
	/* what telnet sends for Ctrl-C between two commands: IAC IP, IAC DO TIMING-MARK */
	static const char in[] = "#1 ping\r\n\xff\xf4\xff\xfd\x06#2 ping\r\n";
	/* the mark answers after the reply to what came before it and before the next one */
	static const char want[] = "#1 pong\n\xff\xfb\x06#2 pong\n";
	exchange(fd, in, sizeof in - 1, "#2 pong\n", 8, want, sizeof want - 1);
	/* are you there? (telnet's `send ayt`): yes, in order too */
	static const char in2[] = "#3 ping\r\n\xff\xf6#4 ping\r\n";
	static const char want2[] = "#3 pong\n\r\n[bitarenad: yes]\r\n#4 pong\n";
	exchange(fd, in2, sizeof in2 - 1, "#4 pong\n", 8, want2, sizeof want2 - 1);
	close(fd);
	ts_down(&s);
}
END_TEST

START_TEST(test_subnegotiation_unterminated)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	int fd = raw_connect(&s);
	/* IAC SB TERMINAL-TYPE and then no IAC SE: before, everything after it was eaten */
	char in[600];
	memcpy(in, "\xff\xfa\x18", 3);
	memset(in + 3, 'x', 400);
	memcpy(in + 403, "\r\n#c ping\r\n", 11);
	raw_write(fd, in, 414);
	char buf[1024];
	size_t n = read_until(fd, buf, sizeof buf - 1, "#c pong\n", 8);
	buf[n] = '\0';
	ck_assert_msg(strncmp(buf, "error TELNET_UNTERMINATED: ", 27) == 0, "got: %s", buf);
	ck_assert_ptr_nonnull(strstr(buf, "\n#c pong\n"));
	/* and negotiation after it is understood again */
	exchange(fd, "\xff\xfd\x06#d ping\n", 11, "#d pong\n", 8, "\xff\xfb\x06#d pong\n", 11);
	close(fd);
	ts_down(&s);
}
END_TEST

/* ---- the real telnet on a pseudo-terminal ------------------------------------------ */

struct tty {
	pid_t pid;
	int fd; /* the pty master: telnet's terminal */
	char out[1 << 16];
	size_t len, seen; /* seen: the part already matched */
};

/* Waits until text shows on telnet's terminal after what was matched so far. */
static bool tty_wait(struct tty *t, const char *text)
{
	size_t n = strlen(text);
	for (int waited = 0; waited < WAIT_MS;) {
		char *at = memmem(t->out + t->seen, t->len - t->seen, text, n);
		if (at != NULL) {
			t->seen = (size_t)(at - t->out) + n;
			return true;
		}
		struct pollfd pf = {.fd = t->fd, .events = POLLIN};
		if (poll(&pf, 1, 50) == 0) {
			waited += 50;
			continue;
		}
		if (t->len == sizeof t->out - 1)
			return false;
		ssize_t k = read(t->fd, t->out + t->len, sizeof t->out - 1 - t->len);
		if (k <= 0 && errno != EINTR)
			return false;
		if (k > 0)
			t->len += (size_t)k;
		t->out[t->len] = '\0';
	}
	return false;
}

/* Types on telnet's terminal, as a person would (the line discipline does the rest). */
static void tty_type(struct tty *t, const char *keys)
{
	ck_assert_int_eq(write(t->fd, keys, strlen(keys)), (ssize_t)strlen(keys));
}

/* The real telnet on a new pseudo-terminal t, connected to s (past the welcome). */
static void tty_telnet(struct tty *t, const struct ts_srv *s)
{
	memset(t, 0, sizeof *t);
	char port[16];
	snprintf(port, sizeof port, "%d", s->port);
	t->pid = forkpty(&t->fd, NULL, NULL, NULL);
	ck_assert_int_ge(t->pid, 0);
	if (t->pid == 0) {
		setenv("TERM", "dumb", 1);
		execlp("telnet", "telnet", "127.0.0.1", port, (char *)NULL);
		_exit(127);
	}
	ck_assert_msg(tty_wait(t, "'login <name>' to begin"), "no welcome through telnet:\n%s",
	              t->out);
}

/* quit typed into t's telnet, which then ends (or is killed). */
static void tty_quit(struct tty *t)
{
	tty_type(t, "quit\r");
	ck_assert(tty_wait(t, "ok bye"));
	int st;
	for (int i = 0; i < 200 && waitpid(t->pid, &st, WNOHANG) == 0; i++)
		ts_msleep(10);
	if (waitpid(t->pid, &st, WNOHANG) == 0) {
		kill(t->pid, SIGKILL);
		waitpid(t->pid, &st, 0);
	}
	close(t->fd);
}

START_TEST(test_real_telnet_ctrl_c)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	static struct tty t;
	tty_telnet(&t, &s);
	tty_type(&t, "#t1 ping\r");
	ck_assert_msg(tty_wait(&t, "#t1 pong"), "no pong:\n%s", t.out);
	/* Ctrl-C: telnet sends IAC IP IAC DO TIMING-MARK and drops output until answered */
	tty_type(&t, "\x03");
	tty_type(&t, "#t2 ping\r");
	ck_assert_msg(tty_wait(&t, "#t2 pong"), "output stopped after Ctrl-C:\n%s", t.out);
	/* twice, and the session goes on as before */
	tty_type(&t, "\x03");
	tty_type(&t, "#t3 help ping\r");
	ck_assert_msg(tty_wait(&t, "#t3 ok ping"), "output stopped after a second Ctrl-C:\n%s",
	              t.out);
	/* telnet's escape (Ctrl-]) and `send ayt`: the server says it is there */
	tty_type(&t, "\x1d");
	ck_assert_msg(tty_wait(&t, "telnet>"), "no telnet prompt:\n%s", t.out);
	tty_type(&t, "send ayt\r");
	ck_assert_msg(tty_wait(&t, "[bitarenad: yes]"), "AYT unanswered:\n%s", t.out);
	tty_quit(&t);
	ts_down(&s);
}
END_TEST

/* Types keys one at a time, as fast as a person types, so that telnet sends what it sends
   for each (character at a time while the server echoes). */
static void tty_type_slowly(struct tty *t, const char *keys)
{
	for (const char *k = keys; *k != '\0'; k++) {
		ck_assert_int_eq(write(t->fd, k, 1), 1);
		ts_msleep(15);
	}
}

/*
 * A password typed into the real telnet never shows on its terminal: `register NAME` and
 * `login NAME` without one ask for it, the server turns telnet's echo off around it (IAC
 * WILL ECHO, IAC WONT ECHO), and what is typed after is shown again. An erase (DEL) inside
 * the password takes back a character.
 */
START_TEST(test_real_telnet_password_unseen)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	static struct tty t;
	tty_telnet(&t, &s);
	tty_type(&t, "register carol\r");
	ck_assert_msg(tty_wait(&t, "type it on the next line:"), "no prompt:\n%s", t.out);
	tty_type_slowly(&t, "Sesame77\r");
	ck_assert_msg(tty_wait(&t, "ok logged in as carol"), "not registered:\n%s", t.out);
	tty_type(&t, "logout\r");
	ck_assert(tty_wait(&t, "ok carol logged out"));
	tty_type(&t, "login carol\r");
	ck_assert_msg(tty_wait(&t, "type its password on the next line:"), "no prompt:\n%s", t.out);
	tty_type_slowly(&t, "Sesame7X\x7f"
	                    "7\r"); /* a typo taken back */
	ck_assert_msg(tty_wait(&t, "ok logged in as carol"), "not logged in:\n%s", t.out);
	/* the echo is back: a command typed now shows as typed */
	tty_type(&t, "#e ping\r");
	ck_assert_msg(tty_wait(&t, "#e ping\r\n#e pong"), "echo not back:\n%s", t.out);
	ck_assert_msg(memmem(t.out, t.len, "Sesame", 6) == NULL, "the password showed:\n%s", t.out);
	tty_quit(&t);
	ts_down(&s);
}
END_TEST

/*
 * The bytes around a password prompt. A telnet peer (one that ends its lines with CR LF,
 * as telnet does, or negotiates) gets the prompt, then IAC WILL ECHO; its DO ECHO is not
 * answered (it agrees); after the password line IAC WONT ECHO comes before the reply, and
 * its DONT ECHO is not answered. A peer that ends lines with LF alone (nc) gets the prompt
 * as a plain line, no IAC. Neither sees its password again.
 */
START_TEST(test_password_prompt_bytes)
{
	struct ts_srv s;
	ts_up(&s, NULL, 0);
	int fd = raw_connect(&s);
	static const char p1[] = "choose a password for dave (6-128 bytes) and type it on the next "
	                         "line:\n\xff\xfb\x01";
	exchange(fd, "register dave\r\n", 15, "\xff\xfb\x01", 3, p1, sizeof p1 - 1);
	static const char in[] = "\xff\xfd\x01hunter22\r\n";
	static const char ok[] = "\xff\xfc\x01ok logged in as dave\n";
	exchange(fd, in, sizeof in - 1, "dave\n", 5, ok, sizeof ok - 1);
	exchange(fd, "\xff\xfe\x01#p ping\r\n", 11, "#p pong\n", 8, "#p pong\n", 8);
	close(fd);
	/* nc: the same prompt as a plain line; the line after it is the password */
	fd = raw_connect(&s);
	static const char p2[] = "dave is a registered account; type its password on the next "
	                         "line:\n";
	exchange(fd, "login dave\n", 11, "line:\n", 6, p2, sizeof p2 - 1);
	exchange(fd, "hunter22\n", 9, "dave\n", 5, "ok logged in as dave\n", 21);
	close(fd);
	/* a wrong password at the prompt is a failed login like any other; a JSON client is
	   never asked: it gives the password on the line */
	fd = raw_connect(&s);
	exchange(fd, "login dave\n", 11, "line:\n", 6, p2, sizeof p2 - 1);
	static const char bad[] = "error BAD_LOGIN: wrong name or password\n";
	exchange(fd, "hunter23\n", 9, "password\n", 9, bad, sizeof bad - 1);
	static const char js[] = "{\"type\":\"error\",\"code\":\"NAME_REGISTERED\",\"message\":"
	                         "\"dave is a registered account: login dave <password>\","
	                         "\"cmd\":\"login\"}\n";
	raw_write(fd, "set format json\n", 16);
	char buf[256];
	ck_assert_uint_gt(read_until(fd, buf, sizeof buf, "}\n", 2), 0);
	exchange(fd, "login dave\n", 11, "}\n", 2, js, sizeof js - 1);
	close(fd);
	ts_down(&s);
}
END_TEST

/* True when a telnet program is on PATH. */
static bool have_telnet(void)
{
	const char *path = getenv("PATH");
	char dir[4096];
	while (path != NULL && *path != '\0') {
		size_t n = strcspn(path, ":");
		snprintf(dir, sizeof dir, "%.*s/telnet", (int)n, path);
		if (access(dir, X_OK) == 0)
			return true;
		path += n + (path[n] == ':');
	}
	return false;
}

int main(void)
{
	if (!have_telnet()) {
		printf("check_telnet: SKIP: no telnet on PATH (apt-get install telnet)\n");
		return 77;
	}
	signal(SIGPIPE, SIG_IGN);
	Suite *s = suite_create("telnet");
	TCase *tc = tcase_create("telnet");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_negotiation_answers);
	tcase_add_test(tc, test_timing_mark_in_order);
	tcase_add_test(tc, test_subnegotiation_unterminated);
	tcase_add_test(tc, test_real_telnet_ctrl_c);
	tcase_add_test(tc, test_password_prompt_bytes);
	tcase_add_test(tc, test_real_telnet_password_unseen);
	suite_add_tcase(s, tc);
	return check_run(s);
}
