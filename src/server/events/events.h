/*
 * events.h - what the events' files share (tourney.c, ladder.c, pools.c): a stored document's
 * fields read back, a game's option words, as stored, parsed into seek options, and the
 * buckets of their pairing-time histograms.
 */
#ifndef BITARENA_SERVER_EVENTS_H
#define BITARENA_SERVER_EVENTS_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "games/game.h"
#include "server/msg/proto.h"

/* Member k of object o as an int (0 when it is not a number) or a string ("" when not). */
int events_json_int(const cJSON *o, const char *k);
const char *events_json_str(const cJSON *o, const char *k);

/* The option words `words` (space-separated, as seek takes them) of a game of ops into so;
   false with why when refused. */
bool events_seek_opts(const struct game_ops *ops, const char *words, struct seek_opts *so,
                      char *why, size_t len);

/* The bucket bounds (seconds) of the events' CPU-time histograms (pairing, saving): 10 us to
   2.5 s; EVENTS_CPU_LE_N of them. */
#define EVENTS_CPU_LE_N 17
extern const double events_cpu_le[EVENTS_CPU_LE_N];
/* The calling thread's CPU time, in seconds: what pairing and saving cost, preemption
   aside (a wall clock counts the time the loop waited for a core: on a loaded machine,
   most of it). */
double events_cpu_now(void);

#endif
