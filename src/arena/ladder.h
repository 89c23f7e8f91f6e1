/*
 * ladder.h - the continuous ladder's pairing (issue 22): which members of a
 * ladder play next, and who has white. Pure, like the rest of src/arena (no
 * I/O, no globals, no allocation); the server's ladder (events/ladder.c)
 * calls it whenever a member may have become free to play: a game ended,
 * someone joined or came back, a new day began.
 *
 * The rules, in the order they decide:
 *   - a member plays at most `concurrency` games at once, and only while
 *     `available` (connected, not leaving: the caller says);
 *   - a pair plays at most `pair_cap` games a day (0: no cap);
 *   - a pair meets only when neither of the two has met some other member it
 *     may meet today (busy or not, present) `slack` or more games fewer: a
 *     free member rather waits for the less-met one to finish its game. This
 *     is what makes every pair meet: without it the two members a game's end
 *     frees would meet each other again and again;
 *   - the member who should pick first is the idle one (no game on) who has
 *     waited longest; members with games on but a free slot pick after every
 *     idle one, again by how long their slot has been free;
 *   - the picker meets, among the members it may still meet, the one it has
 *     played least (games started, finished or not), then an idle member
 *     before a busy one, then the one waiting longest, then the closest
 *     rating, then the lower index;
 *   - white is whoever has had white less often in this pair; when even, the
 *     one whose games overall lean less to white (`lean`), then the picker.
 *     So within a pair the colours never differ by more than one.
 * Every member who could play and finds an opponent gets one: the loop goes
 * on until no free member has anyone left to meet.
 *
 * The pair table is the caller's: n * n entries, entry [i * n + j] for i < j
 * the pair of members i and j (indexes into the members array; the lower
 * triangle is not read). ladder_pair() writes the games it makes into the
 * table and into members[].running and members[].lean, exactly as the caller
 * must record them once the games start: after the call both say what the
 * ladder looks like with the new games on.
 */
#ifndef BITARENA_ARENA_LADDER_H
#define BITARENA_ARENA_LADDER_H

#include <stdint.h>

#include "arena/arena.h"

#define LADDER_MAX_MEMBERS 1024 /* members in one call (its work flags sit on the stack) */

struct ladder_member {
	int rating;         /* for the last tie-break only */
	int concurrency;    /* games at once, >= 1 */
	int running;        /* games on now (0 .. concurrency; updated) */
	int lean;           /* whites minus blacks over all its ladder games (updated) */
	int64_t idle_since; /* since when its oldest free slot is free (any unit; less = longer) */
	int available;      /* 0: not paired now (absent, leaving) */
};

struct ladder_pairing {
	int games;  /* games between the two, ever (running ones included) */
	int today;  /* games between them started today */
	int whites; /* of games, those in which the lower index (i of [i * n + j]) had white */
};

/*
 * Pairs the free members of a ladder of n (see the top of this file). Writes at most cap
 * games into out (member indexes, white first), updates members and pairs as it pairs, and
 * returns how many; ARENA_EINVAL (n < 0, n > LADDER_MAX_MEMBERS, NULL arrays, a
 * concurrency < 1, pair_cap < 0, slack < 0). Stops quietly when out is full.
 */
int ladder_pair(struct ladder_member *members, int n, struct ladder_pairing *pairs, int pair_cap,
                int slack, struct arena_pair *out, int cap);

#endif
