/*
 * journal.h - the game journal: the session hooks (hooks.h) that write every
 * game to the store (store.h) and the recovery of the games in progress
 * after a restart. Above the session layer: it registers its hooks there and
 * restores games through it; nothing below calls it.
 *
 * What it guarantees (with the store's synchronous commits): a game's id is
 * the store's; every move is in the journal before anyone is told of it; a
 * takeback removes the journalled plies; the end is written with the players'
 * new Glicko-2 ratings when the game was rated. A game end the store refuses
 * is kept and written before every later write and at close, so a finished
 * game never comes back as in progress.
 *
 * The seam for the journal thread (store's writer with group commit): the
 * hooks return once a write is queued instead of done, with the sequence
 * number of the write; the session layer then asks the messages layer to hold
 * the move's reply and broadcasts behind that number (client.h).
 */
#ifndef BITARENA_SERVER_JOURNAL_H
#define BITARENA_SERVER_JOURNAL_H

#include "server/session.h"
#include "server/store.h"

struct unfinished;

struct journal {
	struct store *db;
	struct sessions *sess;
	struct unfinished *unfinished; /* game ends the store refused, retried later */
};

/* Journals the games of s in db (installs the session hooks). */
void journal_init(struct journal *jn, struct store *db, struct sessions *s);
/*
 * Brings back every game in progress in the store: positions replayed,
 * clocks from the journal with the side to move's clock held until that
 * player is back, seats held for their players through the grace; journal rows
 * that do not replay are dropped. Returns the number of games restored or a
 * negative enum store_err.
 */
int journal_recover(struct journal *jn);
/* Writes the game ends that failed before; those that still fail stay. */
void journal_retry(struct journal *jn);
/* Removes the hooks and writes (or logs) the ends still pending; the store stays open. */
void journal_close(struct journal *jn);
/* The seek options of a stored game: its option words, then its clock and rating; 0 or -1. */
int journal_seek_opts(const struct game_ops *ops, const struct store_game *sg,
                      struct seek_opts *so);
/* Logs a failure of the store (always, on stderr): what was tried, the error, SQLite's words. */
void journal_log_failure(struct store *db, const char *what, int r);

#endif
