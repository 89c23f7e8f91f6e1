/*
 * limits.h - the limits of the bitarena wire protocol (protocol/PROTOCOL.md),
 * in one place for both sides: the server enforces them, the clients and the
 * tests stay within them. Numbers only: no code, no other header, so any
 * program may include it without pulling in the server or a client.
 */
#ifndef BITARENA_PROTO_LIMITS_H
#define BITARENA_PROTO_LIMITS_H

#define PROTO_VERSION      1 /* "bitarenad 0.1.0 (protocol 1) ready; ..." */
#define PROTO_DEFAULT_PORT "7777"
#define PROTO_DEFAULT_ADDR "127.0.0.1:" PROTO_DEFAULT_PORT

/* §1 framing: bytes in one command line, terminator excluded (LINE_TOO_LONG beyond). */
#define PROTO_LINE_MAX 4096
/* §1 tags: "#<tag> " with 1..PROTO_TAG_MAX characters of [A-Za-z0-9_-]. */
#define PROTO_TAG_MAX 32
/* §3 words after the verb that a command line may carry. */
#define PROTO_MAX_ARGS 24
/* §3 login names: guests [A-Za-z0-9_-], accounts [A-Za-z0-9_]; both 2..20 characters. */
#define PROTO_NAME_MIN 2
#define PROTO_NAME_MAX 20
/* §10 passwords: 6..128 bytes, any byte but NUL. */
#define PROTO_PASS_MIN 6
#define PROTO_PASS_MAX 128
/* §3 a guest's token, given at login: this many characters of [A-Za-z2-9] (no 0 O 1 I l). */
#define PROTO_TOKEN_LEN 20
/* §3 game and seek ids: 1..2^53 - 1, so that they survive a JSON double. */
#define PROTO_MAX_ID 9007199254740991ULL

#endif
