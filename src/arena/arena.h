/*
 * arena.h - tournament pairing and tie-breaks: the pure library the server's
 * tournaments call (issue 21).
 *
 * What is here
 *   roundrobin.c  round-robin by the Berger tables (FIDE Handbook C.05, Annex 1),
 *                 single and double (second cycle with colours reversed), and
 *                 the gauntlet (one player against every other, both colours).
 *   matching.c    maximum-weight matching on a general graph (Edmonds' blossom
 *                 algorithm, O(n^3)) with wide integer weights (matching.h).
 *   dutch.c       the Swiss system, FIDE Dutch rules (C.04.3, 2017 version, with
 *                 the basic rules C.04.1): one round's pairing and colours. (FIDE
 *                 revised the system from 1 July 2025; that version is not
 *                 followed yet: docs/arena.md says how far apart they are.)
 *   swiss.c       a Swiss tournament's state as the pairing sees it: scores,
 *                 colour histories, floats, byes (shared by dutch.c, trf.c and
 *                 tiebreak.c).
 *   trf.c         the FIDE TRF-16 text of a Swiss tournament (what any pairing
 *                 checker reads), written, and read back.
 *   tiebreak.c    Buchholz, Buchholz cut-1, Sonneborn-Berger, direct encounter,
 *                 number of wins (FIDE C.07 as in force until June 2023: the
 *                 virtual opponent for unplayed games).
 *   live.c        the lichess-style arena: pairing of free players and the
 *                 2/1/0 scoring with the double-point streak.
 *   ladder.c      the continuous ladder's pairing (its own header, ladder.h).
 *
 * Layer: src/arena sits below the games in libbitarena.a (tests/layers.py,
 * which also ranks this folder's files: dutch.c, trf.c, tiebreak.c > swiss.c >
 * the leaves); it calls only the C library, and no callback reaches it. The
 * server's tournaments (to come) call it from above. stats.h, a match's
 * statistics, shares the folder and calls none of these files.
 *
 * Rules of the house for this folder (as for src/games): no I/O, no globals,
 * nothing that changes behind the caller's back. Plain structs go in, plain
 * structs come out. Every function that can fail returns a negative enum
 * arena_err (arena_strerror() names it); 0 or a count on success.
 *
 * Allocation: round-robin, gauntlet, TRF (both ways), tie-breaks and the live arena write
 * into the caller's buffers only and never allocate. The Swiss pairing
 * (arena_dutch_pair) needs O(n^2) working memory for its weighted graph: it
 * allocates it with malloc on entry (again, wider, when a bracket needs wider
 * weights) and frees it before it returns (nothing survives the call;
 * ARENA_ENOMEM when malloc fails). The matching itself does not allocate.
 *
 * Cost: arena_dutch_pair runs O(n) matchings of O(n^3) each per round; on
 * this project's machine (bench/arena_bench, CPU time) a 64-player round takes
 * a few milliseconds, a 200-player round about a tenth of a second (a few
 * tenths at worst). It is pure and reentrant: a server pairs big fields on a
 * worker thread (uv_queue_work), not on its loop.
 *
 * How it is checked (docs/arena.md has the figures): the Berger tables
 * against the published ones; the matching against exhaustive search; the
 * tie-breaks against the FIDE rules' worked examples; the Dutch pairing
 * against the FIDE-endorsed engine bbpPairings 5.0.1, both pairing every
 * round of thousands of random tournaments (its and ours) from the same
 * state, every round identical; 16 of those tournaments are unit tests
 * (tests/unit/trf).
 *
 * Players are numbered 0..n-1 in every function; for the Swiss that index is
 * the pairing number minus one (the initial ranking: rating, then title,
 * then name, as the caller decides; C.04.2).
 *
 * Points are counted in tenths of a point (int): 10 = one point, 5 = a half,
 * as in the TRF. struct arena_points says what each result is worth.
 *
 * Thread safety: none needed; every function only reads its inputs and writes
 * its outputs.
 */
#ifndef BITARENA_ARENA_ARENA_H
#define BITARENA_ARENA_ARENA_H

#include <stddef.h>
#include <stdint.h>

/* Negative return codes. */
enum arena_err {
	ARENA_OK = 0,
	ARENA_EINVAL = -1,     /* bad arguments: a size, an index, a result code */
	ARENA_ENOSPACE = -2,   /* the caller's buffer is too small */
	ARENA_ENOMEM = -3,     /* malloc failed (arena_dutch_pair only) */
	ARENA_ENOPAIRING = -4, /* no pairing satisfies the absolute criteria */
	ARENA_ERANGE = -5      /* more players or rounds than the library takes */
};

const char *arena_strerror(int err);

#define ARENA_MAX_PLAYERS 4096 /* round-robin, gauntlet, arena */
#define ARENA_SWISS_MAX   1024 /* the Swiss: its pairing needs O(n^2) memory, O(n^4) time */
#define ARENA_MAX_ROUNDS  255

/* A game of a round: white and black player indexes; black is -1 for a bye
 * (white is then the player who does not play this round). */
struct arena_pair {
	int white;
	int black;
};

/* ---- round-robin and gauntlet (roundrobin.c) ---------------------------- */

/* Flags of arena_rr_round(). */
#define ARENA_RR_KEEP_ORDER 1 /* double round-robin: do NOT swap the last two
                                 rounds of the first cycle (C.05 Annex 1
                                 recommends the swap: it avoids three games in
                                 a row with one colour across the cycles) */

/* Rounds of a round-robin of n players over `cycles` cycles (1 single,
 * 2 double, more allowed): (n - 1 + n % 2) * cycles. ARENA_EINVAL when n < 2
 * or cycles < 1, ARENA_ERANGE past the limits. */
int arena_rr_rounds(int n, int cycles);

/* The games of round `round` (0-based) by the Berger tables: player i is
 * Berger number i + 1. With n odd, the table of n + 1 is used and whoever
 * meets number n + 1 has the bye (reported as {player, -1}, last).
 * Cycle c (0-based) plays the table with colours reversed when c is odd.
 * Writes at most cap pairs, in board order; returns the number written. */
int arena_rr_round(int n, int cycles, int round, unsigned flags, struct arena_pair *out, int cap);

/* Gauntlet: player 0 plays every other player `cycles` times with each
 * colour. Round r (0-based) is one game: opponent 1 + (r / 2) % (n - 1),
 * player 0 white in even rounds. Rounds: 2 * (n - 1) * cycles. */
int arena_gauntlet_rounds(int n, int cycles);
int arena_gauntlet_round(int n, int cycles, int round, struct arena_pair *out);

/* ---- a Swiss tournament's state (swiss.c) -------------------------------- */

/* One round of one player, as in a TRF-16 player line. */
struct arena_game {
	int opp;     /* the opponent's index, or -1 (bye, absent, not paired) */
	char color;  /* 'w', 'b', or '-' for none */
	char result; /* TRF-16 code: '1' '=' '0' played win/draw/loss;
	                '+' '-' forfeit win/loss (opponent given, not played);
	                'W' 'D' 'L' played but unrated (count like 1 = 0);
	                'U' pairing-allocated bye; 'F' full-point bye (requested,
	                or late entry given a point); 'H' half-point bye;
	                'Z' zero-point bye (absent, withdrawn, late entry) */
};

/* What each result is worth, in tenths. arena_points_default(): 10/5/0, a
 * forfeit win like a win, the pairing-allocated bye like a win. */
struct arena_points {
	int win, draw, loss;
	int forfeit_win, forfeit_loss;
	int pab;      /* pairing-allocated bye (C.04.1 c: "as many points as a win") */
	int full_bye; /* 'F' */
	int half_bye; /* 'H' */
	int zero_bye; /* 'Z' */
};
struct arena_points arena_points_default(void);

struct arena_player {
	const char *name; /* TRF columns 15-47; NULL for none */
	int rating;       /* 0 for none */
	const struct arena_game *games; /* rounds 0 .. played-1 */
	int active;       /* 1: to be paired in the next round; 0: withdrawn or
	                     absent (not paired; the caller records a 'Z' or '-') */
};

struct arena_swiss {
	int n;                             /* players */
	const struct arena_player *players; /* n of them, in pairing-number order */
	int played;                        /* rounds with results */
	int rounds;                        /* rounds planned (the last round
	                                      matters for topscorers, C.04.3 A.7) */
	char first_color; /* 'w' or 'b': the colour drawn for pairing number 1 in
	                     round 1 (C.04.3 E.5); default 'w' when 0 */
	struct arena_points points;
};

/* The score of player p after the first `upto` rounds (tenths). */
int arena_score(const struct arena_swiss *t, int p, int upto);

/* Checks a tournament's state: indexes in range, opponents symmetric (if p
 * played q in round r, q played p with the other colour and the matching
 * result), codes known. 0, ARENA_EINVAL, or ARENA_ERANGE (more than
 * ARENA_SWISS_MAX players or ARENA_MAX_ROUNDS rounds). */
int arena_swiss_check(const struct arena_swiss *t);

/* ---- the Dutch system (dutch.c) ------------------------------------------ */

/* Pairs round t->played + 1 of the tournament for its active players, by the
 * FIDE Dutch system (C.04.3, 2017) and the colour rules (C.04.3 E). Writes
 * the games in board order (the higher score, then the higher-ranked player
 * first, C.04.2), then the pairing-allocated bye, if any, as {p, -1}.
 * Returns the number of entries written, or: ARENA_ENOPAIRING when no pairing
 * satisfies the absolute criteria (C1-C3: no rematch, at most one PAB, no two
 * non-topscorers with the same absolute colour preference), ARENA_ENOSPACE
 * when cap < the number needed ((active + 1) / 2), ARENA_EINVAL for a bad
 * state (arena_swiss_check), ARENA_ENOMEM. Allocates its work memory (see the
 * top of this file) and frees it before returning. */
int arena_dutch_pair(const struct arena_swiss *t, struct arena_pair *out, int cap);

/* ---- TRF-16 (trf.c) ----------------------------------------------------- */

struct arena_trf_info {
	const char *name;      /* 012 tournament name */
	const char *city;      /* 022 */
	const char *federation; /* 032 */
	const char *start, *end; /* 042, 052: dates as the caller writes them */
	const char *arbiter;   /* 102 */
	int next_absences;     /* 1: also write round t->played + 1's entry of every
	                          player who is not active (his games[t->played]:
	                          a 'Z', 'H' or 'F'), as TRF files announce byes and
	                          absences, so that a pairing program pairs exactly
	                          the active players (games must hold that round);
	                          the points column then includes those byes */
};

/* Writes the TRF-16 text of t (header lines, one 001 line per player with
 * rank by the current standings, and the XXR line with the planned rounds)
 * into buf (cap bytes, NUL-terminated). Returns the length, or
 * ARENA_ENOSPACE (nothing usable written), ARENA_EINVAL. */
int arena_trf_write(const struct arena_swiss *t, const struct arena_trf_info *info, char *buf,
		    size_t cap);

#define ARENA_TRF_NAME 34 /* bytes of a name read from a TRF: columns 15-47 and a NUL */

/* Where arena_trf_read() puts a TRF-16 file: the caller's storage (sized by
 * the caps), then what the file says. */
struct arena_trf_doc {
	struct arena_player *players; /* cap_players of them */
	struct arena_game *games;     /* cap_players * cap_rounds: player i's
	                                 rounds from games + i * cap_rounds */
	char (*names)[ARENA_TRF_NAME]; /* cap_players, or NULL (names not kept) */
	int cap_players, cap_rounds;

	int n;            /* players: pairing numbers 1..n, each once */
	int rounds;       /* round columns in the file */
	int played;       /* rounds with a pairing in them (a game, a forfeit or
	                     the PAB); a last column without one holds the
	                     announced byes and absences of the round to pair */
	int planned;      /* XXR: the rounds planned, 0 when the file has none */
	char first_color; /* 'w' or 'b': XXC white1 / black1, or inferred from
	                     the first round with colours (C.04.3 E.5); 0 when
	                     nothing tells */
};

/* Reads a TRF-16 file (text, len bytes; lines end in LF, CR LF or CR) into
 * doc: one player per 001 line in pairing-number order (name, rating, games;
 * the points and rank columns are not read), XXR and XXC. A round entry the
 * line does not have reads as {-1, 0, 'Z'} (colour 0: "no entry"); an entry
 * without opponent and with a forfeit code reads as an absence ('-' -> 'Z')
 * or a full-point bye ('+' -> 'F'). Every player is left active.
 * Returns 0, ARENA_EINVAL (a malformed line, a pairing number missing or
 * twice, an opponent out of range, an unknown code), ARENA_ENOSPACE (more
 * players or rounds than the caps), ARENA_ERANGE (past ARENA_SWISS_MAX or
 * ARENA_MAX_ROUNDS). Does not check the rounds against each other:
 * arena_trf_round() does (arena_swiss_check). Never allocates. */
int arena_trf_read(const char *text, size_t len, struct arena_trf_doc *doc);

/* The tournament as it stood before round `round` (0-based, 0 ..
 * doc->played), to pair that round again or for the first time: t->played
 * = round, t->rounds = doc->planned, t->first_color = doc->first_color (or
 * 'w'), default points. A player is active when his entry of that round is
 * a pairing (a game, forfeited or not, or the PAB), or, in the round to pair
 * (round == doc->played), when the file announces no bye or absence for
 * him. Writes players[].active (the doc changes). Returns 0 or what
 * arena_swiss_check() finds (ARENA_EINVAL, ARENA_ERANGE). */
int arena_trf_round(struct arena_trf_doc *doc, int round, struct arena_swiss *t);

/* ---- tie-breaks (tiebreak.c) --------------------------------------------- */

enum arena_tiebreak {
	ARENA_TB_BUCHHOLZ,      /* sum of the opponents' scores */
	ARENA_TB_BUCHHOLZ_CUT1, /* the same less the lowest contribution */
	ARENA_TB_SONNEBORN,     /* opponents' scores weighted by the result */
	ARENA_TB_DIRECT,        /* direct encounter among the tied players */
	ARENA_TB_WINS           /* number of wins (won games, forfeits included) */
};

/* Computes tie-break kind for every player into out[0..n-1] (tenths, or
 * hundredths for Sonneborn-Berger: see tiebreak.c's header for the units and
 * how unplayed rounds count). For ARENA_TB_DIRECT the score among the players
 * tied on points with p (tenths). Returns 0, ARENA_EINVAL. */
int arena_tiebreak(const struct arena_swiss *t, enum arena_tiebreak kind, int64_t *out);

/* ---- the live arena (live.c) -------------------------------------------- */

/* The lichess arena's points for a player's finished games in order (results
 * '1', '=', '0' from the player's side): 2/1/0, and after two wins in a row
 * every game is worth double (a win 4, a draw 2) until a game that is not a
 * win. Returns the total (in whole arena points). streak (may be NULL)
 * receives 1 when the next game is played "on fire". */
int arena_live_score(const char *results, int *streak);

/* A player waiting to be paired. */
struct arena_live_player {
	int id;            /* the caller's id; returned in the pairs */
	int rank;          /* the current standing, 0 = top; ties allowed */
	int last_opp;      /* the id of the last opponent, or -1 */
	int64_t waiting;   /* how long it has waited (any unit, >= 0) */
};

/* Pairs the free players: the one waiting longest picks first, each with the
 * closest-ranked free player who is not its last opponent; when its only
 * candidates are its last opponent, it meets that opponent again only once it
 * has waited at least `rematch_after` (same unit as waiting; it waits
 * otherwise). Colours: white the player who picks. Players left over wait.
 * Writes at most cap pairs (ids, not indexes); returns how many. */
int arena_live_pair(const struct arena_live_player *free, int n, int64_t rematch_after,
		    struct arena_pair *out, int cap);

#endif
