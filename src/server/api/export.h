/*
 * export.h - `bitarenad export` and `bitarenad backup`: the whole store for a host's tools,
 * while a server may run on it. export writes every ended game (or those ended since a time)
 * as NDJSON lines or one PTN archive, exactly as /api/games gives them, newest first, from
 * one read snapshot of a reader connection (SQLite: a read transaction in WAL mode, which
 * the server's writer does not wait for; PostgreSQL: REPEATABLE READ, READ ONLY). backup
 * copies a SQLite store with SQLite's online backup API (store_backup()); a PostgreSQL store
 * is dumped with pg_dump (README).
 */
#ifndef BITARENA_SERVER_EXPORT_H
#define BITARENA_SERVER_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "server/store/store.h"

/*
 * Writes the games of the store so opens to out: format "ndjson" or "ptn", since a time as
 * the API reads one (NULL: every game). *count: the games written. 0, or the exit status
 * (1: the store failed, 2: a bad argument) with a sentence in why.
 */
int api_export(const struct store_options *so, const char *since, const char *format, FILE *out,
               int64_t *count, char *why, size_t len);
/* Copies the SQLite store so opens into the new file dest. 0, or 1 with a sentence in why. */
int api_backup(const struct store_options *so, const char *dest, char *why, size_t len);

#endif
