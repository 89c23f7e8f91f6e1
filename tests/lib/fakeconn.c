/*
 * fakeconn.c - the in-process harness: the fake transport (writes kept in memory, a
 * stall and a drain, closing on a later loop pass) and the server and clients on it
 * (fakeconn.h).
 */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakeconn.h"

/* ---- the transport ----------------------------------------------------------------- */

static struct fk_cli *fk_of(const struct conn *c)
{
	return *(struct fk_cli *const *)c->tdata;
}

static void fk_append(struct fk_cli *f, const char *data, size_t n)
{
	if (f->len + n + 1 > f->cap) {
		size_t cap = f->cap ? f->cap : 4096;
		while (cap < f->len + n + 1)
			cap *= 2;
		f->out = realloc(f->out, cap);
		ck_assert_ptr_nonnull(f->out);
		f->cap = cap;
	}
	memcpy(f->out + f->len, data, n);
	f->len += n;
	f->out[f->len] = '\0';
}

static int fk_write(struct conn *c, struct outbuf *b)
{
	struct fk_cli *f = fk_of(c);
	if (!f->stall) {
		fk_append(f, b->data, b->len);
		conn_wrote(c, b, 0); /* written at once */
		return 0;
	}
	if (f->nheld == f->capheld) {
		f->capheld = f->capheld ? 2 * f->capheld : 16;
		f->held = realloc(f->held, f->capheld * sizeof *f->held);
		ck_assert_ptr_nonnull(f->held);
	}
	f->held[f->nheld++] = outbuf_ref(b);
	f->backlog += b->len;
	return 0;
}

static size_t fk_backlog(const struct conn *c)
{
	return fk_of(c)->backlog;
}

static void fk_pause(struct conn *c)
{
	fk_of(c)->paused = true;
}

static int fk_resume(struct conn *c)
{
	fk_of(c)->paused = false;
	return 0;
}

static void fk_closed_cb(uv_handle_t *h)
{
	struct fk_cli *f = h->data;
	struct conn *c = f->c;
	f->c = NULL;
	conn_closed(c);
}

static void fk_close(struct conn *c, bool graceful)
{
	struct fk_cli *f = fk_of(c);
	(void)graceful;
	if (f->closing)
		return;
	f->closing = true;
	for (size_t i = 0; i < f->nheld; i++)
		outbuf_unref(f->held[i]);
	f->nheld = 0;
	f->backlog = 0;
	uv_close((uv_handle_t *)&f->closer, fk_closed_cb);
}

static const struct conn_transport fk_transport = {
        .name = "fake",
        .write = fk_write,
        .backlog = fk_backlog,
        .pause = fk_pause,
        .resume = fk_resume,
        .close = fk_close,
};

/* ---- the server -------------------------------------------------------------------- */

void fk_run(struct fk_server *fs)
{
	for (int i = 0; i < 1000; i++) {
		uv_run(&fs->loop, UV_RUN_NOWAIT);
		if (!conn_hub_pending(&fs->srv.hub))
			break;
	}
	uv_run(&fs->loop, UV_RUN_NOWAIT);
}

static void fk_wake(uv_timer_t *t)
{
	*(bool *)t->data = true;
}

void fk_wait(struct fk_server *fs, int ms)
{
	uv_timer_t t;
	bool done = false;
	uv_timer_init(&fs->loop, &t);
	t.data = &done;
	uv_timer_start(&t, fk_wake, (uint64_t)ms, 0);
	while (!done)
		uv_run(&fs->loop, UV_RUN_ONCE);
	uv_close((uv_handle_t *)&t, NULL);
	fk_run(fs);
}

void fk_start(struct fk_server *fs, const struct server_config *cfg, bool store)
{
	memset(fs, 0, sizeof *fs);
	ck_assert_int_eq(uv_loop_init(&fs->loop), 0);
	ck_assert_int_eq(server_init(&fs->srv, &fs->loop, cfg), 0);
	fs->store = store;
	if (store) {
		tmpdir_make(fs->datadir, sizeof fs->datadir, "fakeconn-data");
		const struct store_options so = {.dir = fs->datadir};
		ck_assert_int_eq(server_open_store(&fs->srv, &so, true), 0);
	}
}

void fk_stop(struct fk_server *fs)
{
	server_stop(&fs->srv);
	ck_assert_int_eq(uv_run(&fs->loop, UV_RUN_DEFAULT), 0);
	server_free(&fs->srv);
	ck_assert_int_eq(uv_loop_close(&fs->loop), 0);
	if (fs->store)
		tmpdir_remove(fs->datadir);
}

/* ---- clients ----------------------------------------------------------------------- */

void fk_connect_from(struct fk_server *fs, struct fk_cli *f, const char *peer)
{
	memset(f, 0, sizeof *f);
	f->fs = fs;
	f->cap = 4096;
	f->out = malloc(f->cap);
	ck_assert_ptr_nonnull(f->out);
	f->out[0] = '\0';
	uv_timer_init(&fs->loop, &f->closer);
	f->closer.data = f;
	f->c = conn_new(&fs->srv.hub, &fk_transport, sizeof f);
	ck_assert_ptr_nonnull(f->c);
	*(struct fk_cli **)f->c->tdata = f;
	ck_assert_int_eq(conn_open(f->c, peer), 0);
}

void fk_connect(struct fk_server *fs, struct fk_cli *f)
{
	fk_connect_from(fs, f, "fake");
}

void fk_free(struct fk_cli *f)
{
	ck_assert_ptr_null(f->c);
	free(f->out);
	free(f->held);
	f->out = NULL;
	f->held = NULL;
}

void fk_stop_with(struct fk_server *fs, struct fk_cli *f, ...)
{
	fk_stop(fs);
	va_list ap;
	va_start(ap, f);
	for (; f != NULL; f = va_arg(ap, struct fk_cli *))
		fk_free(f);
	va_end(ap);
}

void fk_type(struct fk_cli *f, const char *data, size_t n)
{
	ck_assert_ptr_nonnull(f->c);
	ck_assert_uint_eq(conn_input_copy(f->c, data, n), n);
	fk_run(f->fs);
}

void fk_send(struct fk_cli *f, const char *fmt, ...)
{
	char line[8192];
	va_list ap;
	va_start(ap, fmt);
	size_t n = ts_format_line(line, sizeof line, fmt, ap);
	va_end(ap);
	fk_type(f, line, n);
}

void fk_hangup(struct fk_cli *f)
{
	if (f->c != NULL)
		conn_close(f->c, false);
	fk_run(f->fs);
}

void fk_drain(struct fk_cli *f)
{
	f->stall = false;
	size_t n = f->nheld;
	struct outbuf **held = f->held;
	f->held = NULL;
	f->nheld = f->capheld = 0;
	for (size_t i = 0; i < n; i++) {
		fk_append(f, held[i]->data, held[i]->len);
		f->backlog -= held[i]->len;
	}
	for (size_t i = 0; i < n; i++) {
		if (f->c != NULL)
			conn_wrote(f->c, held[i], 0);
		outbuf_unref(held[i]);
	}
	free(held);
	fk_run(f->fs);
}

const char *fk_line(struct fk_cli *f)
{
	static char line[1 << 16];
	char *nl = memchr(f->out + f->rd, '\n', f->len - f->rd);
	if (nl == NULL)
		return NULL;
	size_t n = (size_t)(nl - (f->out + f->rd));
	ck_assert_uint_lt(n, sizeof line);
	memcpy(line, f->out + f->rd, n);
	line[n] = '\0';
	f->rd += n + 1;
	return line;
}

void fk_await(struct fk_cli *f)
{
	uint64_t until = uv_now(&f->fs->loop) + 10000;
	while (memchr(f->out + f->rd, '\n', f->len - f->rd) == NULL) {
		ck_assert_msg(uv_now(&f->fs->loop) < until, "no line came");
		fk_wait(f->fs, 5);
	}
}

void fk_nothing(struct fk_cli *f)
{
	const char *l = fk_line(f);
	ck_assert_msg(l == NULL, "expected nothing, got %s", l);
}

cJSON *fk_expect(struct fk_cli *f, const char *pattern)
{
	const char *l = fk_line(f);
	ck_assert_msg(l != NULL, "no line; expected %s", pattern);
	ck_assert_msg(ts_match(pattern, l), "expected %s\n     got %s", pattern, l);
	return cJSON_Parse(l);
}

void fk_expect0(struct fk_cli *f, const char *pattern)
{
	cJSON_Delete(fk_expect(f, pattern));
}

void fk_expectf(struct fk_cli *f, const char *fmt, ...)
{
	char pat[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(pat, sizeof pat, fmt, ap);
	va_end(ap);
	fk_expect0(f, pat);
}

cJSON *fk_until(struct fk_cli *f, const char *pattern)
{
	const char *l;
	while ((l = fk_line(f)) != NULL)
		if (ts_match(pattern, l))
			return cJSON_Parse(l);
	ck_abort_msg("no line matching %s", pattern);
	return NULL;
}

void fk_until0(struct fk_cli *f, const char *pattern)
{
	cJSON_Delete(fk_until(f, pattern));
}

void fk_skip(struct fk_cli *f)
{
	f->rd = f->len;
}

void fk_join_with(struct fk_server *fs, struct fk_cli *f, const char *name, const char *token)
{
	fk_connect(fs, f);
	fk_expect0(f, "bitarenad * ready*");
	fk_send(f, "set format json");
	fk_expect0(f, "{\"type\":\"ok\",\"cmd\":\"set\",\"format\":\"json\"}");
	fk_send(f, "login %s%s%s", name, token ? " " : "", token ? token : "");
	cJSON *ok = fk_expect(f, "{\"type\":\"ok\",\"cmd\":\"login\",\"guest\":true}");
	ck_assert_str_eq(ts_jstr(ok, "name"), name);
	snprintf(f->token, sizeof f->token, "%s", ts_jstr(ok, "token"));
	cJSON_Delete(ok);
}

void fk_join(struct fk_server *fs, struct fk_cli *f, const char *name)
{
	fk_join_with(fs, f, name, NULL);
}

int fk_start_game(struct fk_cli *a, struct fk_cli *b, const char *kind_opts)
{
	fk_send(a, "seek %s color=first", kind_opts);
	cJSON *ok = fk_expect(a, "{\"type\":\"ok\",\"cmd\":\"seek\"}");
	int seek = ts_jint(cJSON_GetObjectItem(ok, "seek"), "id");
	cJSON_Delete(ok);
	fk_until0(b, "{\"type\":\"seek\",\"event\":\"new\"}");
	fk_send(b, "accept %d", seek);
	cJSON *acc = fk_expect(b, "{\"type\":\"ok\",\"cmd\":\"accept\"}");
	int id = ts_jint(acc, "game");
	cJSON_Delete(acc);
	fk_expect0(b, "{\"type\":\"seek\",\"event\":\"gone\"}");
	fk_expect0(a, "{\"type\":\"game_start\",\"seat\":0}");
	fk_expect0(a, "{\"type\":\"state\",\"seq\":1,\"ply\":0,\"seat\":0}");
	fk_expect0(b, "{\"type\":\"game_start\",\"seat\":1}");
	fk_expect0(b, "{\"type\":\"state\",\"seq\":1,\"ply\":0,\"seat\":1}");
	return id;
}
