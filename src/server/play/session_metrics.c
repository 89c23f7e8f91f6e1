/*
 * session_metrics.c - the play layer's counts (see session_metrics.h): set up and
 * registered once, a game's kind found by its row in the engines' table.
 */
#include "server/play/session_metrics.h"

#include <string.h>

static void setup(struct session_metrics *m)
{
	static const char *const help_games =
	        "games being played now, by kind (a restored game counts from its restore)";
	metric_init_labelled(&m->logins[0], METRIC_COUNTER, "bitarena_logins_total",
	                     "logins, as guests and to accounts", "as", "guest");
	metric_init_labelled(&m->logins[1], METRIC_COUNTER, "bitarena_logins_total", NULL, "as",
	                     "account");
	metric_init(&m->started, METRIC_COUNTER, "bitarena_games_started_total",
	            "games started (new ones, not those restored after a restart)");
	metric_init(&m->ended, METRIC_COUNTER, "bitarena_games_finished_total",
	            "games that ended: a result, or aborted");
	metric_init(&m->moves, METRIC_COUNTER, "bitarena_moves_total",
	            "moves played (in games of simultaneous turns, each seat's action of a turn)");
	for (size_t i = 0; i < SESSION_METRICS_KINDS && game_table[i] != NULL; i++)
		metric_init_labelled(&m->in_progress[i], METRIC_GAUGE, "bitarena_games_in_progress",
		                     help_games, "kind", game_table[i]->name);
	m->set_up = true;
}

void session_metrics_register(struct session_metrics *m, struct metrics *r)
{
	if (!m->set_up)
		setup(m);
	metrics_register(r, &m->logins[0]);
	metrics_register(r, &m->logins[1]);
	metrics_register(r, &m->started);
	metrics_register(r, &m->ended);
	metrics_register(r, &m->moves);
	for (size_t i = 0; i < SESSION_METRICS_KINDS && game_table[i] != NULL; i++)
		metrics_register(r, &m->in_progress[i]);
}

static struct metric *kind_of(struct session_metrics *m, const struct game_ops *ops)
{
	for (size_t i = 0; i < SESSION_METRICS_KINDS && game_table[i] != NULL; i++)
		if (game_table[i] == ops)
			return &m->in_progress[i];
	return NULL;
}

void session_metrics_begun(struct session_metrics *m, const struct game_ops *ops, bool new)
{
	struct metric *k = kind_of(m, ops);
	if (k != NULL)
		metric_inc(k);
	if (new)
		metric_inc(&m->started);
}

void session_metrics_over(struct session_metrics *m, const struct game_ops *ops, bool ended)
{
	struct metric *k = kind_of(m, ops);
	if (k != NULL)
		metric_add(k, -1);
	if (ended)
		metric_inc(&m->ended);
}
