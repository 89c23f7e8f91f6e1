/*
 * arena.c - the library's error names (arena.h).
 */
#include "arena/arena.h"

const char *arena_strerror(int err)
{
	switch (err) {
	case ARENA_OK:
		return "ok";
	case ARENA_EINVAL:
		return "invalid argument";
	case ARENA_ENOSPACE:
		return "buffer too small";
	case ARENA_ENOMEM:
		return "out of memory";
	case ARENA_ENOPAIRING:
		return "no pairing satisfies the absolute criteria";
	case ARENA_ERANGE:
		return "too many players or rounds";
	default:
		return "unknown error";
	}
}
