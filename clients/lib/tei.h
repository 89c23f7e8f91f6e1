/*
 * tei.h - the Tak Engine Interface (TEI, racetrack's UCI for Tak) as pure
 * functions: the lines an engine writes, what it declared (name, options), the
 * games it can play, and the lines `bitarena tei-bridge` sends. No I/O and no
 * allocation; the bridge (cmd_tei_bridge.c) does the talking.
 *
 * Engine to us (tak.md section 4):
 *     id name <text>            id author <text>
 *     option name <N> type <check|spin|combo|button|string> [default <v>]
 *            [min <n>] [max <n>] [var <v>]...
 *     teiok                     readyok
 *     info ...                  bestmove <ptn move> [ponder <move>]
 * Words are separated by runs of blanks; anything else is TEI_LINE_OTHER.
 *
 * Us to the engine: tei, isready, teinewgame <size>, setoption name HalfKomi
 * value <n> (only when the engine declared HalfKomi), position startpos moves
 * ..., go wtime W btime B winc WI binc BI (in exactly this order: takbag
 * reads the words by position), quit. Nothing else: some engines exit on any
 * command they do not know.
 */
#ifndef BITARENA_CLIENTS_TEI_H
#define BITARENA_CLIENTS_TEI_H

#include <stdbool.h>
#include <stddef.h>

#define TEI_TEXT_MAX 64 /* names, values, moves: longer ones are cut */
#define TEI_MAX_VARS 16 /* combo values kept per option */
#define TEI_MAX_OPTS 32 /* options kept per engine */

enum tei_line_kind {
	TEI_LINE_OTHER = 0, /* anything else, blank lines included */
	TEI_LINE_ID,
	TEI_LINE_OPTION,
	TEI_LINE_TEIOK,
	TEI_LINE_READYOK,
	TEI_LINE_INFO,
	TEI_LINE_BESTMOVE
};

enum tei_opt_type {
	TEI_OPT_UNKNOWN = 0,
	TEI_OPT_CHECK,
	TEI_OPT_SPIN,
	TEI_OPT_COMBO,
	TEI_OPT_BUTTON,
	TEI_OPT_STRING
};

struct tei_option {
	char name[TEI_TEXT_MAX]; /* may hold blanks ("Clear Hash") */
	enum tei_opt_type type;
	char def[TEI_TEXT_MAX]; /* "" when not given */
	bool has_min, has_max;
	long long min, max;
	int nvars;
	char vars[TEI_MAX_VARS][TEI_TEXT_MAX];
};

struct tei_line {
	enum tei_line_kind kind;
	char id_key[TEI_TEXT_MAX];   /* TEI_LINE_ID: "name", "author", ... */
	char id_value[TEI_TEXT_MAX]; /* the rest of the line */
	struct tei_option opt;       /* TEI_LINE_OPTION */
	char move[TEI_TEXT_MAX];     /* TEI_LINE_BESTMOVE: the move word ("" if missing) */
};

/* Reads one line the engine wrote (no terminator). Never fails: see kind. */
enum tei_line_kind tei_parse_line(const char *line, struct tei_line *out);

/*
 * What an engine declared, and what we know of it. sizes: bit n set = it
 * plays size n. half_komi: the value of its HalfKomi option as it has it now
 * (its default, then what we set).
 */
struct tei_engine {
	char name[TEI_TEXT_MAX], author[TEI_TEXT_MAX];
	struct tei_option opts[TEI_MAX_OPTS];
	int nopts;
	unsigned sizes;
	long long half_komi;
};

#define TEI_ALL_SIZES 0x1F8u /* 3..8 */

/* An engine that declared nothing yet, playing every size. */
void tei_engine_init(struct tei_engine *e);
/* Takes in an id or option line (others are ignored); a repeated option replaces the old one. */
void tei_engine_add(struct tei_engine *e, const struct tei_line *l);
/*
 * After teiok: what is known of engines by their id name (Tiltak plays 4..6
 * only; takbag's BreadBot and Taktician 3..8), unless sizes were given by the
 * user (user_sizes != 0). Also sets half_komi to the HalfKomi default.
 */
void tei_engine_ready(struct tei_engine *e, unsigned user_sizes);
/* The option named name (case-insensitive), or NULL. */
const struct tei_option *tei_engine_option(const struct tei_engine *e, const char *name);
/* Whether o takes value v (spin: within min..max; combo: one of its vars; check: 0/1). */
bool tei_option_takes(const struct tei_option *o, long long v);

/*
 * Why e cannot play Tak with these parameters (half_komi in half flats;
 * stones/caps per player, < 0 or 0 meaning the standard count), written into
 * buf; NULL when it can. An engine without a HalfKomi option plays komi 0
 * only; piece counts other than the standard ones cannot be told through TEI.
 */
const char *tei_cannot_play(const struct tei_engine *e, int size, long long half_komi, int stones,
                            int caps, char *buf, size_t len);

/*
 * The setoption line that gives e this komi, into buf; false when none is
 * needed (the engine already has it, or has no such option; the latter only
 * for komi 0, see tei_cannot_play). Updates e->half_komi when true.
 */
bool tei_komi_line(struct tei_engine *e, long long half_komi, char *buf, size_t len);

/* Parses "4-6", "5", "4,6,8" into a size mask (bits 3..8); 0 when malformed. */
unsigned tei_parse_sizes(const char *text);

/*
 * The clock told to an engine. Timed games: each side's real clock and the
 * increment, less margin_pct percent and a fixed TEI_CLOCK_RESERVE_MS (never
 * below TEI_CLOCK_MIN_MS), so an engine that overshoots what it planned
 * still answers before its flag falls. Untimed games: both sides untimed_ms,
 * no increment, every move.
 */
#define TEI_CLOCK_RESERVE_MS 100
#define TEI_CLOCK_MIN_MS     10
struct tei_clock {
	long long wtime, btime, winc, binc;
};
void tei_clock_told(bool timed, const long long clocks[2], long long inc_ms, int margin_pct,
                    long long untimed_ms, struct tei_clock *out);
/* How long a side may think before the bridge calls it hung: twice its told time + 2 s. */
long long tei_hang_ms(const struct tei_clock *c, int seat);
/* "go wtime W btime B winc WI binc BI" into buf; returns snprintf's value. */
int tei_format_go(const struct tei_clock *c, char *buf, size_t len);

#endif
