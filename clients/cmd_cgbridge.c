/*
 * cmd_cgbridge.c - `bitarena cg-bridge --game xmas [--server HOST:PORT]
 * [--name NAME] [--seek "opt=value ..." | --accept] [--quiet] -- <bot command ...>`:
 * runs a CodinGame Xmas Rush bot (contest input on stdin, one action line on
 * stdout per turn) as a client of bitarenad. It seeks or accepts one xmas
 * game; every state that asks our seat to act carries the engine's exact
 * contest input for that seat (position.input, see xmas_input()), which is
 * written to the bot; the bot's next line goes back as `move <game> <line>`.
 *
 * Real bots are rough, so:
 *  - the bot runs on a pseudo-terminal (forkpty, raw mode: no echo, no line
 *    editing, no CR/LF translation), so stdio in C/C++/Python bots is line
 *    buffered and an unflushed printf still reaches us at the newline;
 *  - its stderr is a pipe that is drained all the time (and dropped unless
 *    --verbose), so megabytes of debug output never block it;
 *  - lines it writes while no answer is due are dropped; a line over 4096
 *    bytes is cut (the engine refuses anything over 124 characters anyway);
 *  - input waits in a bounded buffer written without blocking, so a bot that
 *    stops reading cannot stall the bridge;
 *  - SIGPIPE is ignored; a bot that crashes or hangs simply stops answering,
 *    and the server's per-turn deadline turns that into the referee's timeout
 *    loss; at the end of the game the bot's process group gets SIGTERM, then
 *    SIGKILL after a short grace, and is reaped.
 * An answer holding control bytes, an empty one, or one with a leading or
 * trailing blank (which the referee's whole-line patterns refuse but the
 * server's line framing would trim away) is sent as the word INVALID: not an
 * action, so the referee's "invalid output". Seeks carry strict=1, so such a
 * line is fatal at once, as on CodinGame, rather than waiting for the deadline.
 * Prints one line with the result and exits 0 when the game ended, 1 otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "cli.h"

int cmd_cg_bridge(int argc, char **argv);

#define BOT_LINE_MAX  4096
#define BOT_INPUT_MAX (64 * 1024)
#define PROG          "bitarena cg-bridge"

/* What a message handler returns to stop the pump (0 goes on; < 0 is a failed send). */
enum { BRIDGE_OVER = 1, BRIDGE_REFUSED = 2 /* the server refused our seek */ };

struct bridge {
	struct net_conn c;
	char name[PROTO_NAME_MAX + 1];
	const char *seek; /* options for "seek xmas ...", or NULL to accept */
	bool quiet, verbose;
	char **cmd; /* the bot's argv (borrowed from ours) */

	long long game; /* -1 until game_start */
	int seat;
	long long answered_seq; /* the state seq the bot's last line answered */
	long long due_seq;      /* the state seq whose answer is awaited, -1 if none */
	bool accept_sent;

	pid_t pid; /* -1 when not running (not started, or reaped) */
	int pty;   /* master side, -1 when closed */
	int err;   /* read end of the bot's stderr pipe, -1 when closed */
	bool bot_gone;
	char in[BOT_INPUT_MAX]; /* input not yet written to the bot: in[0 .. nin) */
	size_t nin;
	char line[BOT_LINE_MAX + 1]; /* the bot's current output line */
	size_t nline;
	bool cut; /* the current line went over BOT_LINE_MAX */
};

/* --- the bot process ------------------------------------------------------------ */

static int bot_start(struct bridge *b)
{
	int errp[2];
	if (pipe(errp) < 0)
		return -1;
	struct termios tio;
	memset(&tio, 0, sizeof tio);
	cfmakeraw(&tio);
	struct winsize ws = {.ws_row = 24, .ws_col = 80};
	pid_t pid = forkpty(&b->pty, NULL, &tio, &ws);
	if (pid < 0) {
		close(errp[0]);
		close(errp[1]);
		return -1;
	}
	if (pid == 0) {
		/* child: stderr to the pipe, then the bot */
		dup2(errp[1], STDERR_FILENO);
		close(errp[0]);
		close(errp[1]);
		signal(SIGPIPE, SIG_DFL);
		execvp(b->cmd[0], b->cmd);
		fprintf(stderr, PROG ": cannot run %s: %s\n", b->cmd[0], strerror(errno));
		_exit(127);
	}
	close(errp[1]);
	b->pid = pid;
	b->err = errp[0];
	fcntl(b->pty, F_SETFL, fcntl(b->pty, F_GETFL) | O_NONBLOCK);
	fcntl(b->err, F_SETFL, fcntl(b->err, F_GETFL) | O_NONBLOCK);
	return 0;
}

static void bot_close_fds(struct bridge *b)
{
	if (b->pty >= 0)
		close(b->pty);
	if (b->err >= 0)
		close(b->err);
	b->pty = b->err = -1;
	b->nin = 0;
}

/* Ends the bot: SIGTERM to its process group, SIGKILL if it is still there after 300 ms. */
static void bot_stop(struct bridge *b)
{
	bot_close_fds(b);
	if (b->pid < 0)
		return;
	kill(-b->pid, SIGTERM);
	kill(b->pid, SIGTERM);
	for (int i = 0; i < 30; i++) {
		if (waitpid(b->pid, NULL, WNOHANG) == b->pid) {
			b->pid = -1;
			return;
		}
		usleep(10000);
	}
	kill(-b->pid, SIGKILL);
	kill(b->pid, SIGKILL);
	waitpid(b->pid, NULL, 0);
	b->pid = -1;
}

static void bot_reap(struct bridge *b)
{
	int status;
	if (b->pid > 0 && waitpid(b->pid, &status, WNOHANG) == b->pid) {
		b->pid = -1;
		if (!b->bot_gone && !b->quiet)
			fprintf(stderr, PROG ": the bot exited (%s %d)\n",
			        WIFEXITED(status) ? "status" : "signal",
			        WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		b->bot_gone = true;
	}
}

/* Queues text for the bot; what does not fit in the buffer is dropped (a bot not reading). */
static void bot_queue(struct bridge *b, const char *text)
{
	size_t n = strlen(text);
	if (b->pty < 0 || n > sizeof b->in - b->nin)
		return;
	memcpy(b->in + b->nin, text, n);
	b->nin += n;
}

static void bot_flush(struct bridge *b)
{
	while (b->pty >= 0 && b->nin > 0) {
		ssize_t w = write(b->pty, b->in, b->nin);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				b->nin = 0; /* the bot is gone; the read side will notice */
			return;
		}
		memmove(b->in, b->in + w, b->nin - (size_t)w);
		b->nin -= (size_t)w;
	}
}

/* --- the server ------------------------------------------------------------------ */

static bool clean_line(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || s[0] == ' ' || s[0] == '\t' || s[n - 1] == ' ' || s[n - 1] == '\t')
		return false;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7F)
			return false;
	return true;
}

/* One complete line from the bot. */
static int bot_line(struct bridge *b, char *text)
{
	size_t n = strlen(text);
	if (n > 0 && text[n - 1] == '\r')
		text[--n] = '\0';
	if (b->due_seq < 0) {
		if (b->verbose)
			fprintf(stderr, PROG ": bot (not asked): %s\n", text);
		return 0;
	}
	b->answered_seq = b->due_seq;
	b->due_seq = -1;
	if (b->verbose)
		fprintf(stderr, PROG ": bot: %s\n", text);
	return net_sendf(&b->c, "move %lld %s", b->game, clean_line(text) ? text : "INVALID");
}

static int bot_read(struct bridge *b)
{
	char buf[4096];
	for (;;) {
		ssize_t r = read(b->pty, buf, sizeof buf);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (r <= 0) { /* EOF, or EIO once the bot has closed the terminal */
			if (!b->bot_gone && !b->quiet)
				fprintf(stderr, PROG ": the bot closed its output\n");
			b->bot_gone = true;
			bot_close_fds(b);
			return 0;
		}
		for (ssize_t i = 0; i < r; i++) {
			if (buf[i] == '\n') {
				b->line[b->nline] = '\0';
				int rc = bot_line(b, b->line);
				b->nline = 0;
				b->cut = false;
				if (rc < 0)
					return rc;
			} else if (b->nline < BOT_LINE_MAX) {
				b->line[b->nline++] = buf[i];
			} else {
				b->cut = true;
			}
		}
	}
}

static void err_drain(struct bridge *b)
{
	char buf[4096];
	for (;;) {
		ssize_t r = read(b->err, buf, sizeof buf);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
				close(b->err);
				b->err = -1;
			}
			return;
		}
		if (b->verbose)
			fwrite(buf, 1, (size_t)r, stderr);
	}
}

static bool seat_in(const cJSON *arr, int seat)
{
	const cJSON *v;
	cJSON_ArrayForEach(v, arr)
	{
		if (cJSON_IsNumber(v) && (int)v->valuedouble == seat)
			return true;
	}
	return false;
}

static int on_error(void *ud, const cJSON *m)
{
	struct bridge *b = ud;
	const char *cmd = cli_jstr(m, "cmd");
	if (!b->quiet)
		fprintf(stderr, PROG ": server: %s: %s\n", cli_jstr(m, "code"),
		        cli_jstr(m, "message") ? cli_jstr(m, "message") : "");
	if (cmd && (strcmp(cmd, "seek") == 0))
		return BRIDGE_REFUSED;
	if (cmd && strcmp(cmd, "accept") == 0)
		b->accept_sent = false;
	return 0;
}

static int on_seek(void *ud, const cJSON *m)
{
	struct bridge *b = ud;
	if (b->seek != NULL || b->game >= 0 || b->accept_sent)
		return 0;
	const cJSON *sk = cJSON_GetObjectItemCaseSensitive(m, "seek");
	const char *ev = cli_jstr(m, "event"), *kind = cli_jstr(sk, "kind");
	if (ev && strcmp(ev, "new") == 0 && kind && strcmp(kind, "xmas") == 0) {
		b->accept_sent = true;
		return net_sendf(&b->c, "accept %lld", cli_jint(sk, "id", 0));
	}
	return 0;
}

/* The answer to "seeks": accept the first open xmas seek. */
static int on_seeks(void *ud, const cJSON *m)
{
	struct bridge *b = ud;
	if (b->seek != NULL || b->accept_sent)
		return 0;
	const cJSON *sk;
	cJSON_ArrayForEach(sk, cJSON_GetObjectItemCaseSensitive(m, "seeks"))
	{
		const char *kind = cli_jstr(sk, "kind"), *by = cli_jstr(sk, "by");
		if (kind && strcmp(kind, "xmas") == 0 && by && strcmp(by, b->name) != 0) {
			b->accept_sent = true;
			return net_sendf(&b->c, "accept %lld", cli_jint(sk, "id", 0));
		}
	}
	return 0;
}

static int on_game_start(void *ud, const cJSON *m)
{
	struct bridge *b = ud;
	const char *kind = cli_jstr(m, "kind");
	if (b->game >= 0 || kind == NULL || strcmp(kind, "xmas") != 0)
		return 0;
	b->game = cli_jint(m, "game", -1);
	b->seat = (int)cli_jint(m, "seat", 0);
	if (!b->quiet)
		fprintf(stderr, PROG ": game %lld started, seat %d\n", b->game, b->seat);
	if (bot_start(b) < 0) {
		fprintf(stderr, PROG ": cannot start the bot: %s\n", strerror(errno));
		b->bot_gone = true;
	}
	return 0;
}

static int on_game_over(void *ud, const cJSON *m)
{
	struct bridge *b = ud;
	if (cli_jint(m, "game", -2) != b->game)
		return 0;
	const cJSON *r = cJSON_GetObjectItemCaseSensitive(m, "result");
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(r, "winner");
	const char *outcome =
	        cJSON_IsNumber(w) ? ((int)w->valuedouble == b->seat ? "win" : "loss") : "draw";
	printf("game %lld: %s %s (%s), seat %d\n", b->game, outcome,
	       cli_jstr(r, "score") ? cli_jstr(r, "score") : "?",
	       cli_jstr(r, "reason") ? cli_jstr(r, "reason") : "?", b->seat);
	fflush(stdout);
	return BRIDGE_OVER;
}

static int on_state(void *ud, const cJSON *m)
{
	struct bridge *b = ud;
	if (cli_jint(m, "game", -2) != b->game)
		return 0;
	long long seq = cli_jint(m, "seq", -1);
	const cJSON *pos = cJSON_GetObjectItemCaseSensitive(m, "position");
	const char *input = cli_jstr(pos, "input");
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "over")))
		return 0; /* game_over follows */
	if (!seat_in(cJSON_GetObjectItemCaseSensitive(m, "to_move"), b->seat) || input == NULL ||
	    seq <= b->answered_seq || seq == b->due_seq)
		return 0;
	b->due_seq = seq; /* a later state replaces an unanswered one */
	bot_queue(b, input);
	bot_flush(b);
	return 0;
}

/* clang-format off */
static const struct cli_route bridge_routes[] = {
        {"error", NULL, on_error},
        {"seek", NULL, on_seek},
        {"ok", "seeks", on_seeks},
        {"game_start", NULL, on_game_start},
        {"game_over", NULL, on_game_over},
        {"state", NULL, on_state},
        {NULL, NULL, NULL},
};
/* clang-format on */

/* BRIDGE_OVER when the game is over, BRIDGE_REFUSED, or < 0 on a fatal error. */
static int bridge_loop(struct bridge *b)
{
	for (;;) {
		/* everything the server already sent */
		while (net_buffered(&b->c)) {
			int r = cli_pump(&b->c, PROG, 0, bridge_routes, b);
			if (r != 0)
				return r;
		}
		struct pollfd pf[3] = {
		        {b->c.fd, POLLIN, 0}, {b->pty, POLLIN, 0}, {b->err, POLLIN, 0}};
		if (b->pty >= 0 && b->nin > 0)
			pf[1].events |= POLLOUT;
		if (poll(pf, 3, 100) < 0 && errno != EINTR)
			return NET_EIO;
		if (pf[0].revents) {
			int r = cli_pump(&b->c, PROG, 0, bridge_routes, b);
			if (r != 0)
				return r;
		}
		if (b->pty >= 0 && (pf[1].revents & POLLOUT))
			bot_flush(b);
		if (b->pty >= 0 && (pf[1].revents & (POLLIN | POLLHUP | POLLERR))) {
			int r = bot_read(b);
			if (r < 0)
				return r;
		}
		if (b->err >= 0 && pf[2].revents)
			err_drain(b);
		bot_reap(b);
	}
}

int cmd_cg_bridge(int argc, char **argv)
{
	struct bridge b;
	memset(&b, 0, sizeof b);
	b.game = -1;
	b.answered_seq = 0;
	b.due_seq = -1;
	b.pid = -1;
	b.pty = b.err = -1;
	const char *server = CLI_DEFAULT_SERVER, *name = "cgbot", *game = NULL;
	bool accept = false;
	b.seek = "";
	int i;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			i++;
			break;
		} else if (strcmp(argv[i], "--game") == 0 && i + 1 < argc) {
			game = argv[++i];
		} else if (strcmp(argv[i], "--server") == 0 && i + 1 < argc) {
			server = argv[++i];
		} else if (strcmp(argv[i], "--name") == 0 && i + 1 < argc) {
			name = argv[++i];
		} else if (strcmp(argv[i], "--seek") == 0 && i + 1 < argc) {
			b.seek = argv[++i];
		} else if (strcmp(argv[i], "--accept") == 0) {
			accept = true;
		} else if (strcmp(argv[i], "--quiet") == 0) {
			b.quiet = true;
		} else if (strcmp(argv[i], "--verbose") == 0) {
			b.verbose = true;
		} else {
			return cli_usage(argv[0]);
		}
	}
	if (game == NULL || strcmp(game, "xmas") != 0) {
		fprintf(stderr, PROG ": only --game xmas is bridged\n");
		return cli_usage(argv[0]);
	}
	if (i >= argc) {
		fprintf(stderr, PROG ": no bot command after --\n");
		return cli_usage(argv[0]);
	}
	b.cmd = argv + i;
	if (accept)
		b.seek = NULL;
	for (const char *p = b.seek; p && *p; p++) {
		if (*p == '\n' || *p == '\r') {
			fprintf(stderr, PROG ": --seek options are one line\n");
			return 2;
		}
	}
	signal(SIGPIPE, SIG_IGN);

	if (cli_session_open(&b.c, PROG, server, name, b.name, sizeof b.name, 10000) < 0)
		return 1;
	int r = b.seek ? net_sendf(&b.c, "seek xmas strict=1 %s", b.seek)
	               : net_send_line(&b.c, "seeks");
	if (r >= 0)
		r = bridge_loop(&b);
	bot_stop(&b);
	net_close(&b.c);
	if (r < 0)
		fprintf(stderr, PROG ": %s: %s\n", server, net_strerror(r));
	return r == BRIDGE_OVER ? 0 : 1;
}
