/*
 * session_game.c - a game as the other layers read it (see session.h): what
 * it is (id, kind, options, seed, start), who sits where, where it stands
 * (ply, seats to move, over and how), its move records and its spectator
 * count, and the games of a server one by one. Reads only: the bottom of the
 * session's files, above struct game (session_internal.h) and below every
 * other file of the layer, which may call it too.
 */
#include "server/play/session.h"

#include "server/play/session_internal.h"

uint64_t session_id(const struct game *g)
{
	return g->id;
}

const struct game_ops *session_ops(const struct game *g)
{
	return g->ops;
}

const struct seek_opts *session_opts(const struct game *g)
{
	return &g->so;
}

uint64_t session_seed(const struct game *g)
{
	return g->seed;
}

int64_t session_started_at(const struct game *g)
{
	return g->started_at;
}

const struct player *session_seat(const struct game *g, int seat)
{
	return &g->pl[seat];
}

int session_seat_of(const struct game *g, const struct client *c)
{
	for (int i = 0; i < g->ops->nplayers; i++)
		if (g->pl[i].c == c)
			return i;
	return -1;
}

bool session_simultaneous(const struct game *g)
{
	return (g->ops->flags & GAME_SIMULTANEOUS) != 0;
}

int session_ply(const struct game *g)
{
	return g->ply;
}

unsigned session_to_move(const struct game *g)
{
	return g->ops->to_move(g->st);
}

bool session_acted(const struct game *g, int seat)
{
	return g->acted[seat];
}

bool session_over(const struct game *g)
{
	return g->over;
}

struct session_result session_result(const struct game *g)
{
	return (struct session_result){.winner = g->winner, .score = g->score, .reason = g->reason};
}

const struct move_rec *session_moves(const struct game *g, size_t *n)
{
	*n = g->nmoves;
	return g->moves;
}

void session_position(const struct game *g, int seat, void *out)
{
	if (g->ops->view != NULL)
		g->ops->view(g->st, seat, out);
	else
		memcpy(out, g->st, g->ops->state_size);
}

size_t session_watchers(const struct game *g)
{
	int64_t n = (int64_t)g->nw + g->nw_extra;
	return n > 0 ? (size_t)n : 0;
}

uint64_t session_journal_seq(const struct game *g)
{
	return g->jseq;
}

struct client *session_watcher(const struct game *g, size_t i)
{
	return i < g->nw ? g->w[i].c : NULL;
}

struct game *sessions_first(const struct sessions *s)
{
	return s->games;
}

struct game *session_next(const struct game *g)
{
	return g->next;
}
