/*
 * loadverify.c - lk_verify() of loadcheck.h: an acknowledgement log read
 * back and checked, game by game, against `record <game>` from a server
 * (parsed with record_parse), over the blocking line client of net.h. A
 * RATE_LIMITED answer (the server's command budget) is waited out and asked
 * again.
 */
#include "load/loadcheck.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "games/record.h"

struct ack {
	long long game;
	int ply;
	char *text;
};

static int cmp_ack(const void *a, const void *b)
{
	const struct ack *x = a, *y = b;
	if (x->game != y->game)
		return x->game < y->game ? -1 : 1;
	return (x->ply > y->ply) - (x->ply < y->ply);
}

/* Reads the log into *acks (sorted by game, then ply); the count, or -1. */
static long read_log(const char *path, struct ack **acks, const char *prog, FILE *err)
{
	FILE *f = fopen(path, "r");
	if (f == NULL) {
		fprintf(err, "%s: cannot read %s\n", prog, path);
		return -1;
	}
	char line[GAME_MOVE_TEXT + 64];
	long n = 0, cap = 0, lineno = 0;
	*acks = NULL;
	while (fgets(line, sizeof line, f) != NULL) {
		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		long long game;
		int ply, off = 0;
		if (line[0] == '#' || line[0] == '\0')
			continue;
		if (sscanf(line, "%lld %d %n", &game, &ply, &off) != 2 || off == 0 || game <= 0 ||
		    ply <= 0 || line[off] == '\0') {
			fprintf(err, "%s: %s:%ld: not '<game> <ply> <move>'\n", prog, path, lineno);
			goto fail;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			struct ack *a = realloc(*acks, (size_t)cap * sizeof *a);
			if (a == NULL)
				goto fail;
			*acks = a;
		}
		(*acks)[n] = (struct ack){game, ply, strdup(line + off)};
		if ((*acks)[n++].text == NULL)
			goto fail;
	}
	fclose(f);
	qsort(*acks, (size_t)n, sizeof **acks, cmp_ack);
	return n;
fail:
	fclose(f);
	for (long i = 0; i < n; i++)
		free((*acks)[i].text);
	free(*acks);
	*acks = NULL;
	return -1;
}

/* Asks for a game's record and parses it into r; false (with a message) on failure. */
static bool fetch_record(struct net_conn *c, const char *prog, long long game, struct record *r,
                         FILE *err)
{
	cJSON *m = NULL;
	for (int tries = 0;; tries++) {
		if (net_sendf(c, "record %lld", game) < 0 || cli_read_json(c, prog, 10000, &m) < 0) {
			fprintf(err, "%s: record %lld: the server did not answer\n", prog, game);
			return false;
		}
		const char *code = cli_jstr(m, "code");
		if (code == NULL || strcmp(code, "RATE_LIMITED") != 0 || tries == 1000)
			break;
		/* the server's command budget: wait as told, and ask again */
		long long ms = cli_jint(m, "retry_after_ms", 100);
		cJSON_Delete(m);
		m = NULL;
		struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
		nanosleep(&ts, NULL);
	}
	const char *type = cli_jstr(m, "type"), *text = cli_jstr(m, "record");
	bool ok = false;
	if (strcmp(type, "ok") != 0 || text == NULL) {
		fprintf(err, "%s: record %lld: %s: %s\n", prog, game, cli_jstr(m, "code"),
		        cli_jstr(m, "message") ? cli_jstr(m, "message") : "");
	} else {
		int line = 0, e = record_parse(text, strlen(text), r, &line);
		if (e < 0)
			fprintf(err, "%s: record %lld: %s (line %d)\n", prog, game,
			        record_strerror(e), line);
		ok = e == 0;
	}
	cJSON_Delete(m);
	return ok;
}

/* Opens a JSON-mode connection without logging in. */
static int open_json(struct net_conn *c, const char *prog, const char *server, FILE *err)
{
	char msg[256], *line;
	cJSON *m = NULL;
	if (net_connect(c, server, 0, 10000, msg, sizeof msg) < 0) {
		fprintf(err, "%s: %s\n", prog, msg);
		return -1;
	}
	if (net_read_line(c, 10000, &line) < 0 || net_send_line(c, "set format json") < 0 ||
	    cli_read_json(c, prog, 10000, &m) < 0) {
		fprintf(err, "%s: %s: no welcome\n", prog, server);
		net_close(c);
		return -1;
	}
	cJSON_Delete(m);
	return 0;
}

int lk_verify(const char *prog, const char *server, const char *log, FILE *out, FILE *err)
{
	struct ack *acks;
	long n = read_log(log, &acks, prog, err);
	if (n < 0)
		return 2;
	struct net_conn c;
	if (open_json(&c, prog, server, err) < 0) {
		for (long i = 0; i < n; i++)
			free(acks[i].text);
		free(acks);
		return 2;
	}
	long games = 0, bad = 0, i = 0;
	int rc = 0;
	while (i < n && rc != 2) {
		long long game = acks[i].game;
		struct record r;
		record_init(&r);
		games++;
		if (!fetch_record(&c, prog, game, &r, err))
			rc = 2;
		for (; i < n && acks[i].game == game; i++) {
			const struct ack *a = &acks[i];
			const char *got = (size_t)a->ply <= r.nmoves ? r.moves[a->ply - 1] : NULL;
			if (rc == 2 || (got != NULL && strcmp(got, a->text) == 0))
				continue;
			if (bad++ < 20)
				fprintf(err,
				        "%s: game %lld: acknowledged ply %d (%s) %s%s (the record "
				        "has "
				        "%zu moves)\n",
				        prog, game, a->ply, a->text,
				        got ? "differs from the record's "
				            : "is missing from the record",
				        got ? got : "", r.nmoves);
			if (rc == 0)
				rc = 1;
		}
		record_clear(&r);
	}
	net_send_line(&c, "quit");
	net_close(&c);
	if (rc == 0)
		fprintf(out,
		        "%s: all %ld acknowledged moves of %ld games are in the server's records\n",
		        prog, n, games);
	else if (rc == 1)
		fprintf(err, "%s: %ld of %ld acknowledged moves are not in the server's records\n",
		        prog, bad, n);
	for (long k = 0; k < n; k++)
		free(acks[k].text);
	free(acks);
	return rc;
}
