/*
 * errors.h - the codes of the bitarena wire protocol (errors.def, the one
 * list) as an enum, with each code's name as the wire carries it. Like
 * limits.h, for both sides and below everything: the server sends codes from
 * every layer (the messages layer's replies, the door's refusals, the playtak
 * port reading them back), a client acts on them; none of that should need a
 * layer of the server to know the vocabulary. No code outside this header:
 * the names are a static table the compiler keeps where it is used.
 */
#ifndef BITARENA_PROTO_ERRORS_H
#define BITARENA_PROTO_ERRORS_H

#include <string.h>

/* ERR_<CODE> for every code of errors.def, errors and info notices alike. */
enum err_code {
#define ERR(code, meaning)  ERR_##code,
#define INFO(code, meaning) ERR_##code,
#include "proto/errors.def"
#undef ERR
#undef INFO
	ERR_COUNT /* not a code: how many there are; what err_code_of() gives for none */
};

/* The code's name on the wire: "NO_SUCH_GAME" for ERR_NO_SUCH_GAME. */
static inline const char *err_name(enum err_code e)
{
	static const char *const names[ERR_COUNT] = {
#define ERR(code, meaning)  [ERR_##code] = #code,
#define INFO(code, meaning) [ERR_##code] = #code,
#include "proto/errors.def"
#undef ERR
#undef INFO
	};
	return (unsigned)e < ERR_COUNT ? names[e] : "INTERNAL";
}

/* The code named name (a message's "code" field; may be NULL), or ERR_COUNT for none. */
static inline enum err_code err_code_of(const char *name)
{
	for (int e = 0; name != NULL && e < ERR_COUNT; e++)
		if (strcmp(name, err_name((enum err_code)e)) == 0)
			return (enum err_code)e;
	return ERR_COUNT;
}

#endif
