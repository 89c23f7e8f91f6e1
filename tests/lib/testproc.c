/*
 * testproc.c - child processes for the bridge suites: spawn, bounded wait, reading
 * their output (testproc.h).
 */
#include <check.h>
#include <fcntl.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testproc.h"

const char *tp_prog(const char *env, const char *fallback)
{
	const char *p = getenv(env);
	return p && *p ? p : fallback;
}

const char **tp_argv(const char **argv, int cap, ...)
{
	int n = 0;
	va_list ap;
	va_start(ap, cap);
	const char *const *list;
	while ((list = va_arg(ap, const char *const *)) != NULL)
		for (int i = 0; list[i] != NULL; i++) {
			ck_assert_int_lt(n, cap - 1);
			argv[n++] = list[i];
		}
	va_end(ap);
	argv[n] = NULL;
	return argv;
}

pid_t tp_spawn(const char *const argv[], const char *out_path, const char *err_path)
{
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		const char *paths[2] = {out_path, err_path};
		for (int k = 0; k < 2; k++) {
			if (paths[k] == NULL)
				continue;
			int fd = open(paths[k], O_WRONLY | O_CREAT | O_TRUNC, 0600);
			if (fd < 0)
				_exit(126);
			dup2(fd, k == 0 ? STDOUT_FILENO : STDERR_FILENO);
			close(fd);
		}
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	return pid;
}

int tp_wait(pid_t pid, int limit_s)
{
	int status;
	for (int i = 0; i < limit_s * 100; i++) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}

char *tp_slurp(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, len - 1, f) : 0;
	buf[n] = '\0';
	if (f)
		fclose(f);
	return buf;
}

int tp_count_lines(const char *text, const char *prefix)
{
	int n = 0;
	size_t k = strlen(prefix);
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (strncmp(p, prefix, k) == 0)
			n++;
	return n;
}
