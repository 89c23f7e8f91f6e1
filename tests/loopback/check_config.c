/*
 * check_config.c - bitarenad's config file (--config FILE) and SIGHUP, with
 * the real bitarenad over loopback: the file's settings apply, the command
 * line wins over them; SIGHUP reads the file again, applies at once what may
 * change at run time (seen by clients: the open seeks allowed, the login
 * deadline of new connections) and logs each change and each setting that
 * waits for a restart; a broken or missing file on SIGHUP changes nothing
 * and the log says why; a broken file at start stops bitarenad with status 2
 * and the line at fault; the sample config (--dump-config) names every key of
 * the option table once and, with its defaults uncommented, is accepted.
 */
#include <check.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testproc.h"
#include "testserver.h"
#include "check_main.h"

/* A server with its config file and its log (stderr) in a directory of its own. */
struct srv {
	struct ts_srv s;
	char dir[200], conf[300], log[300];
};

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

/* How often needle occurs in the server's log so far. */
static int log_count(const struct srv *v, const char *needle)
{
	static char buf[1 << 16];
	tp_slurp(v->log, buf, sizeof buf);
	int n = 0;
	for (const char *p = buf; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

/* Waits until needle occurs n times in the log (a SIGHUP handled). */
static void log_wait(const struct srv *v, const char *needle, int n)
{
	for (int i = 0; i < 1000 && log_count(v, needle) < n; i++)
		ts_msleep(10);
	static char buf[1 << 16];
	ck_assert_msg(log_count(v, needle) >= n, "no '%s' in the log:\n%s", needle,
	              tp_slurp(v->log, buf, sizeof buf));
}

static void log_has(const struct srv *v, const char *needle)
{
	static char buf[1 << 16];
	ck_assert_msg(log_count(v, needle) > 0, "no '%s' in the log:\n%s", needle,
	              tp_slurp(v->log, buf, sizeof buf));
}

/* Starts bitarenad --config v->conf (holding text) and the extra arguments (NULL-ended). */
static void up(struct srv *v, const char *text, ...)
{
	tmpdir_make(v->dir, sizeof v->dir, "bitarenad-config");
	snprintf(v->conf, sizeof v->conf, "%s/bitarenad.conf", v->dir);
	snprintf(v->log, sizeof v->log, "%s/stderr", v->dir);
	write_file(v->conf, text);
	ts_port_path(v->s.portfile, sizeof v->s.portfile);
	snprintf(v->s.datadir, sizeof v->s.datadir, "%s/data", v->dir);
	const char *argv[32] = {tp_prog("BITARENAD", "./bitarenad"),
	                        "--config",
	                        v->conf,
	                        "--listen",
	                        "127.0.0.1:0",
	                        "--port-file",
	                        v->s.portfile,
	                        "--data",
	                        v->s.datadir,
	                        "--fast-hash"};
	int n = 10;
	va_list ap;
	va_start(ap, text);
	const char *a;
	while ((a = va_arg(ap, const char *)) != NULL && n < 31)
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	v->s.pid = tp_spawn(argv, "/dev/null", v->log);
	v->s.port = ts_port_file(&v->s, v->s.portfile);
}

static void down(struct srv *v)
{
	ts_stop(&v->s);
	tmpdir_remove(v->dir);
}

/* The file becomes text, SIGHUP, and the wait for the n-th line of its outcome. */
static void reload(struct srv *v, const char *text, const char *outcome, int n)
{
	write_file(v->conf, text);
	ck_assert_int_eq(kill(v->s.pid, SIGHUP), 0);
	log_wait(v, outcome, n);
}

/* c seeks a game: ok, or the error code. */
static void seek(struct ts_cli *c, const char *code)
{
	ts_send(c, "seek ttt");
	char pat[120];
	if (code == NULL)
		snprintf(pat, sizeof pat, "{\"type\":\"ok\",\"cmd\":\"seek\"}");
	else
		snprintf(pat, sizeof pat, "{\"type\":\"error\",\"cmd\":\"seek\",\"code\":\"%s\"}",
		         code);
	for (;;) { /* the seek news of the lobby may come first */
		char *l = ts_line(c);
		ck_assert_msg(l != NULL, "no answer to seek");
		bool news = ts_match("{\"type\":\"seek\"}", l);
		bool is = !news && ts_match(pat, l);
		ck_assert_msg(news || is, "seek: %s, not %s", l, pat);
		free(l);
		if (is)
			return;
	}
}

/* A new connection that does not log in is told LOGIN_TIMEOUT and closed. */
static void login_deadline(int port)
{
	struct ts_cli c;
	ts_open(&c, port);
	ts_until0(&c, "info LOGIN_TIMEOUT: no login within 1 s of connecting*");
	ck_assert(ts_eof(&c));
	ts_close(&c);
}

/* The file's settings apply; the command line's win over them. */
START_TEST(test_file_and_command_line)
{
	struct srv v;
	up(&v, "# a comment\n\n  max-seeks 1\nmax-watches 5\n", "--max-watches", "7", NULL);
	struct ts_cli a;
	ts_join(&a, v.s.port, "alice");
	seek(&a, NULL);
	seek(&a, "TOO_MANY_SEEKS");
	ts_close(&a);
	log_has(&v, "config read file=");
	log_has(&v, "settings=2");
	down(&v);

	up(&v, "max-seeks 1\n", "--max-seeks", "2", NULL);
	ts_join(&a, v.s.port, "alice");
	seek(&a, NULL);
	seek(&a, NULL);
	seek(&a, "TOO_MANY_SEEKS");
	ts_close(&a);
	down(&v);
}
END_TEST

/*
 * SIGHUP: the runtime settings apply at once (more seeks allowed, a login
 * deadline for new connections), each change logged; a setting that needs a
 * restart is logged as such and left; the command line still wins.
 */
START_TEST(test_sighup_applies)
{
	struct srv v;
	up(&v, "max-seeks 1\nlogin-timeout 0\n", "--max-watches", "7", NULL);
	struct ts_cli a;
	ts_join(&a, v.s.port, "alice");
	seek(&a, NULL);
	seek(&a, "TOO_MANY_SEEKS");

	reload(&v, "max-seeks 3\nlogin-timeout 1\nmax-clients 50\nmax-watches 9\nlog-level debug\n",
	       "config reloaded", 1);
	log_has(&v, "option changed key=max-seeks old=1 new=3");
	log_has(&v, "option changed key=login-timeout old=0 new=1");
	log_has(&v, "option changed key=log-level old=info new=debug");
	log_has(&v, "option needs a restart key=max-clients running=10000 file=50");
	log_has(&v, "changed=3 restart=1");
	ck_assert_int_eq(log_count(&v, "key=max-watches"), 0); /* the command line's */
	seek(&a, NULL);
	seek(&a, NULL);
	seek(&a, "TOO_MANY_SEEKS");
	login_deadline(v.s.port); /* the sweep runs now, for new connections */
	/* debug: each connection's life is in the log now */
	log_wait(&v, "connection opened conn=", 1);

	/* back: the file without them is the defaults again */
	reload(&v, "max-seeks 1\n", "config reloaded", 2);
	log_has(&v, "option changed key=login-timeout old=1 new=300");
	log_has(&v, "option changed key=log-level old=debug new=info");
	seek(&a, "TOO_MANY_SEEKS");
	ts_close(&a);
	down(&v);
}
END_TEST

/* A broken or missing file on SIGHUP changes nothing, says why; a good one then applies. */
START_TEST(test_sighup_broken_file)
{
	struct srv v;
	up(&v, "max-seeks 1\n", NULL);
	struct ts_cli a;
	ts_join(&a, v.s.port, "alice");
	seek(&a, NULL);

	static const struct {
		const char *text, *why;
	} broken[] = {
	        {"max-seeks 5\nmax-seeks-typo 5\n",
	         "why=\"line 2: max-seeks-typo is not an option of bitarenad"},
	        {"max-seeks 5\n\ncmd-rate lots\n", "why=\"line 3: cmd-rate takes 0..1000000\""},
	        {"max-seeks 5\nconfig /etc/other.conf\n",
	         "why=\"line 2: config is for the command line only\""},
	        {"max-seeks 5\nmax-seeks 6\n",
	         "why=\"line 2: max-seeks is given twice (line 1 too)\""},
	        {"max-seeks 5\nlog-level loud\n",
	         "why=\"line 2: log-level takes error|warn|info|debug, not 'loud'\""},
	        {"max-seeks 5\nmax-plies\n", "why=\"line 2: max-plies needs a value (N)\""},
	        {"max-seeks 5\nmotd \x1b[2Jhi\n", "why=\"line 2, byte 6: the line holds a control"},
	        {"Max-Seeks 5\n", "why=\"line 1: a setting is a key"},
	};
	int n = 0;
	for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++) {
		reload(&v, broken[i].text, "config not reloaded", ++n);
		log_has(&v, broken[i].why);
		seek(&a, "TOO_MANY_SEEKS"); /* still 1 */
	}
	ck_assert_int_eq(unlink(v.conf), 0);
	ck_assert_int_eq(kill(v.s.pid, SIGHUP), 0);
	log_wait(&v, "config not reloaded", ++n);
	log_has(&v, "why=\"cannot open it: No such file or directory\"");
	log_has(&v, "kept=\"the settings in force\"");
	ck_assert_int_eq(log_count(&v, "option changed"), 0);
	seek(&a, "TOO_MANY_SEEKS");

	reload(&v, "max-seeks 2\n", "config reloaded", 1);
	seek(&a, NULL);
	ts_close(&a);
	down(&v);
}
END_TEST

/* A broken file at start: bitarenad does not start (status 2) and says which line and why. */
START_TEST(test_broken_file_at_start)
{
	static const struct {
		const char *text, *why;
	} broken[] = {
	        {"listen 127.0.0.1:0\nlisten-typo 1\n", "line 2: listen-typo is not an option"},
	        {"grace -1\n", "line 1: grace takes 0..86400 seconds"},
	        {"listen nowhere\n",
	         "line 1: listen wants HOST:PORT or [V6ADDR]:PORT, not 'nowhere'"},
	        {"fast-hash maybe\n", "line 1: fast-hash takes yes or no"},
	};
	char dir[256], conf[300], err[300], msg[4096];
	tmpdir_make(dir, sizeof dir, "bitarenad-config-bad");
	snprintf(conf, sizeof conf, "%s/bitarenad.conf", dir);
	snprintf(err, sizeof err, "%s/stderr", dir);
	const char *argv[] = {tp_prog("BITARENAD", "./bitarenad"),
	                      "--config",
	                      conf,
	                      "--listen",
	                      "127.0.0.1:0",
	                      "--data",
	                      dir,
	                      NULL};
	for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++) {
		write_file(conf, broken[i].text);
		ck_assert_int_eq(tp_wait(tp_spawn(argv, "/dev/null", err), 30), 2);
		tp_slurp(err, msg, sizeof msg);
		ck_assert_msg(strstr(msg, "config refused file=") && strstr(msg, broken[i].why) &&
		                      strchr(msg, '\n') == msg + strlen(msg) - 1,
		              "%s: %s", broken[i].text, msg);
	}
	unlink(conf);
	ck_assert_int_eq(tp_wait(tp_spawn(argv, "/dev/null", err), 30), 2);
	tp_slurp(err, msg, sizeof msg);
	ck_assert_msg(strstr(msg, "cannot open it: No such file or directory"), "%s", msg);
	tmpdir_remove(dir);
}
END_TEST

/* The line of a --dump-options row: its "name", whether it is a key of the file, and built. */
static bool row_key(const char *line, char *name, size_t len, bool *built)
{
	cJSON *j = cJSON_Parse(line);
	ck_assert_msg(j != NULL, "not JSON: %s", line);
	snprintf(name, len, "%s", cJSON_GetStringValue(cJSON_GetObjectItem(j, "name")));
	bool file = cJSON_IsTrue(cJSON_GetObjectItem(j, "file"));
	*built = cJSON_IsTrue(cJSON_GetObjectItem(j, "built"));
	cJSON_Delete(j);
	return file;
}

/*
 * The sample config (--dump-config, installed as bitarenad.conf) has each key
 * of the file once, commented out at its default, and each key of the
 * option table is there; its defaults uncommented make a file bitarenad takes.
 */
START_TEST(test_sample_config)
{
	const char *bin = tp_prog("BITARENAD", "./bitarenad");
	char dir[256], sample[300], dump[300], conf[300], cmd[1024];
	tmpdir_make(dir, sizeof dir, "bitarenad-sample");
	snprintf(sample, sizeof sample, "%s/sample", dir);
	snprintf(dump, sizeof dump, "%s/dump", dir);
	snprintf(conf, sizeof conf, "%s/uncommented.conf", dir);
	snprintf(cmd, sizeof cmd, "'%s' --dump-config > '%s' && '%s' --dump-options > '%s'", bin,
	         sample, bin, dump);
	ck_assert_int_eq(system(cmd), 0);
	static char text[1 << 17], rows[1 << 17];
	tp_slurp(sample, text, sizeof text);
	tp_slurp(dump, rows, sizeof rows);
	int keys = 0;
	char unbuilt[1024] = " "; /* the keys of parts this build lacks: left commented */
	for (char *l = rows, *nl; (nl = strchr(l, '\n')) != NULL; l = nl + 1) {
		*nl = '\0';
		char name[64], at[80];
		bool built, file = row_key(l, name, sizeof name, &built);
		if (!built && strlen(unbuilt) + strlen(name) + 2 < sizeof unbuilt)
			strcat(strcat(unbuilt, name), " ");
		snprintf(at, sizeof at, "\n#%s ", name);
		const char *p = strstr(text, at);
		ck_assert_msg((p != NULL) == file, "--%s: a key of the file %d, in the sample %d",
		              name, file, p != NULL);
		ck_assert_msg(p == NULL || strstr(p + 1, at) == NULL, "#%s twice", name);
		keys += file;
	}
	ck_assert_int_ge(keys, 40);
	/* every line fits 80 columns; every "#key value" whose value is a value, uncommented */
	FILE *out = fopen(conf, "w");
	ck_assert_ptr_nonnull(out);
	int taken = 0;
	for (char *l = text, *nl; (nl = strchr(l, '\n')) != NULL; l = nl + 1) {
		*nl = '\0';
		ck_assert_msg(strlen(l) <= 80, "over 80 columns: %s", l);
		ck_assert_msg(*l == '\0' || *l == '#', "not commented out: %s", l);
		if (l[0] != '#' || l[1] < 'a' || l[1] > 'z')
			continue;
		const char *value = strchr(l, ' ');
		ck_assert_ptr_nonnull(value);
		char key[80];
		snprintf(key, sizeof key, " %.*s ", (int)(value - l - 1), l + 1);
		if (strstr(unbuilt, key) != NULL ||
		    strspn(value + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ:/[]|=") == strlen(value + 1) ||
		    strncmp(value + 1, "postgresql://", 13) == 0 ||
		    strncmp(value + 1, "redis://", 8) == 0)
			continue; /* a metavar: no default */
		fprintf(out, "%s\n", l + 1);
		taken++;
	}
	ck_assert_int_eq(fclose(out), 0);
	ck_assert_int_ge(taken, 25);
	char err[300], msg[4096];
	snprintf(err, sizeof err, "%s/stderr", dir);
	struct ts_srv s;
	ts_port_path(s.portfile, sizeof s.portfile);
	const char *argv[] = {bin,           "--config", conf,     "--listen", "127.0.0.1:0",
	                      "--port-file", s.portfile, "--data", dir,        NULL};
	s.pid = tp_spawn(argv, "/dev/null", err);
	s.port = ts_port_file(&s, s.portfile);
	ts_stop(&s);
	tp_slurp(err, msg, sizeof msg);
	char said[64];
	snprintf(said, sizeof said, "settings=%d", taken);
	ck_assert_msg(strstr(msg, said) != NULL, "%s", msg);
	tmpdir_remove(dir);
}
END_TEST

static Suite *config_suite(void)
{
	Suite *s = suite_create("config");
	TCase *tc = tcase_create("loopback");
	tcase_add_test(tc, test_file_and_command_line);
	tcase_add_test(tc, test_sighup_applies);
	tcase_add_test(tc, test_sighup_broken_file);
	tcase_add_test(tc, test_broken_file_at_start);
	tcase_add_test(tc, test_sample_config);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(config_suite());
}
