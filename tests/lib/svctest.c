/*
 * svctest.c - what the service harnesses share: ports, an unprivileged user, programs
 * run as that user, waiting for daemons, the watchdog (svctest.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "svctest.h"

void svc_msleep(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

int svc_free_port(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return 0;
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t len = sizeof a;
	int port = 0;
	if (bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
	    getsockname(fd, (struct sockaddr *)&a, &len) == 0)
		port = ntohs(a.sin_port);
	close(fd);
	return port;
}

bool svc_user_pick(struct svc_user *u)
{
	memset(u, 0, sizeof *u);
	if (geteuid() != 0)
		return true;
	const char *names[] = {getenv("BITARENA_TEST_USER"), "postgres", "nobody"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		struct passwd *pw = names[i] && *names[i] ? getpwnam(names[i]) : NULL;
		if (pw != NULL && pw->pw_uid != 0) {
			u->drop = true;
			u->uid = pw->pw_uid;
			u->gid = pw->pw_gid;
			snprintf(u->name, sizeof u->name, "%s", pw->pw_name);
			return true;
		}
	}
	return false;
}

/* In a child: becomes u (no supplementary groups). Exits 126 when it cannot. */
static void svc_become(const struct svc_user *u)
{
	if (u == NULL || !u->drop)
		return;
	if (setgroups(0, NULL) != 0 || setgid(u->gid) != 0 || setuid(u->uid) != 0)
		_exit(126);
}

/* Gives path (made by us) to u, so that the service can write in it. */
static bool svc_give(const struct svc_user *u, const char *path)
{
	return !u->drop || chown(path, u->uid, u->gid) == 0;
}

/* True when u can enter and write in dir (every parent must let it through). */
static bool svc_can_use(const struct svc_user *u, const char *dir)
{
	if (!u->drop)
		return true;
	pid_t pid = fork();
	if (pid < 0)
		return false;
	if (pid == 0) {
		svc_become(u);
		_exit(access(dir, R_OK | W_OK | X_OK) == 0 ? 0 : 1);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

int svc_run(const struct svc_user *u, const char *const argv[], const char *log)
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int in = open("/dev/null", O_RDONLY);
		int out = open(log ? log : "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
			_exit(125);
		svc_become(u);
		setenv("LC_ALL", "C", 1);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* True while process pid exists and is not a zombie (a daemon is not ours to reap). */
static bool svc_alive(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return false;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	const char *p = strrchr(buf, ')');
	return p != NULL && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

pid_t svc_pidfile(const char *path)
{
	FILE *f = fopen(path, "r");
	long pid = 0;
	if (f != NULL) {
		if (fscanf(f, "%ld", &pid) != 1)
			pid = 0;
		fclose(f);
	}
	return (pid_t)pid;
}

bool svc_wait_gone(pid_t pid, int ms)
{
	for (int waited = 0; pid > 0 && svc_alive(pid); waited += 10) {
		if (waited >= ms)
			return false;
		svc_msleep(10);
	}
	return true;
}

void svc_rmtree(const char *path)
{
	struct stat sb;
	if (lstat(path, &sb) != 0)
		return;
	if (!S_ISDIR(sb.st_mode)) {
		unlink(path);
		return;
	}
	char cmd[1024];
	/* a service's tree is deep (PostgreSQL's base/...): leave it to rm */
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
	if (strchr(path, '\'') == NULL && system(cmd) != 0)
		rmdir(path);
}

bool svc_watch_start(struct svc_watch *w, void (*cleanup)(void *), void *arg)
{
	int p[2];
	w->pid = -1;
	w->fd = -1;
	if (pipe2(p, O_CLOEXEC) != 0)
		return false;
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return false;
	}
	if (pid == 0) {
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGPIPE, SIG_IGN);
		for (int fd = 3; fd < 1024; fd++)
			if (fd != p[0])
				close(fd);
		char c;
		ssize_t n;
		while ((n = read(p[0], &c, 1)) < 0 && errno == EINTR)
			;
		if (n != 1)
			cleanup(arg);
		_exit(0);
	}
	close(p[0]);
	w->pid = pid;
	w->fd = p[1];
	return true;
}

void svc_watch_done(struct svc_watch *w)
{
	if (w->fd >= 0) {
		ssize_t n = write(w->fd, "x", 1);
		(void)n;
		close(w->fd);
		w->fd = -1;
	}
	if (w->pid > 0) {
		while (waitpid(w->pid, NULL, 0) < 0 && errno == EINTR)
			;
		w->pid = -1;
	}
}

bool svc_tmpdir(const struct svc_user *u, const char *prefix, char *dir, size_t size,
                size_t max_len)
{
	const char *bases[] = {getenv("TMPDIR"), "/tmp"};
	for (size_t i = 0; i < 2; i++) {
		const char *b = bases[i];
		if (b == NULL || *b == '\0' || strlen(b) + strlen(prefix) + 9 > max_len)
			continue;
		snprintf(dir, size, "%s/%s.XXXXXX", b, prefix);
		if (mkdtemp(dir) == NULL)
			continue;
		if (svc_give(u, dir) && svc_can_use(u, dir))
			return true;
		rmdir(dir);
	}
	return false;
}
