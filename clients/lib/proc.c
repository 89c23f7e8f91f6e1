/*
 * proc.c - a child program on a pseudo-terminal with its stderr drained; see
 * proc.h.
 */
#include "lib/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

void proc_init(struct proc *p)
{
	memset(p, 0, sizeof *p);
	p->pid = -1;
	p->io = p->err = -1;
}

static void set_nonblock(int fd)
{
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

int proc_start(struct proc *p, char *const argv[], char *why, size_t whylen)
{
	int errp[2], execp[2];
	bool echo = p->echo_err;
	proc_init(p);
	p->echo_err = echo;
	if (pipe(errp) < 0) {
		snprintf(why, whylen, "cannot run %s: %s", argv[0], strerror(errno));
		return -1;
	}
	if (pipe2(execp, O_CLOEXEC) < 0) {
		snprintf(why, whylen, "cannot run %s: %s", argv[0], strerror(errno));
		close(errp[0]);
		close(errp[1]);
		return -1;
	}
	struct termios tio;
	memset(&tio, 0, sizeof tio);
	cfmakeraw(&tio);
	struct winsize ws = {.ws_row = 24, .ws_col = 80};
	pid_t pid = forkpty(&p->io, NULL, &tio, &ws);
	if (pid < 0) {
		snprintf(why, whylen, "cannot run %s: %s", argv[0], strerror(errno));
		close(errp[0]);
		close(errp[1]);
		close(execp[0]);
		close(execp[1]);
		return -1;
	}
	if (pid == 0) {
		/* the child: stderr to the pipe, default signals, then the program */
		dup2(errp[1], STDERR_FILENO);
		close(errp[0]);
		close(errp[1]);
		close(execp[0]);
		signal(SIGPIPE, SIG_DFL);
		execvp(argv[0], argv);
		int e = errno;
		if (write(execp[1], &e, sizeof e) < 0)
			_exit(127);
		_exit(127);
	}
	close(errp[1]);
	close(execp[1]);
	p->pid = pid;
	p->err = errp[0];
	/* the exec pipe closes at a successful exec; 4 bytes mean it failed */
	int e = 0;
	ssize_t r;
	while ((r = read(execp[0], &e, sizeof e)) < 0 && errno == EINTR)
		;
	close(execp[0]);
	if (r == (ssize_t)sizeof e) {
		snprintf(why, whylen, "cannot run %s: %s", argv[0], strerror(e));
		proc_stop(p, 0);
		return -1;
	}
	set_nonblock(p->io);
	set_nonblock(p->err);
	return 0;
}

bool proc_alive(const struct proc *p)
{
	return p->pid > 0 && p->io >= 0 && !p->out_eof;
}

int proc_write(struct proc *p, const char *data, size_t len)
{
	if (!proc_alive(p) || len > sizeof p->in - p->nin)
		return -1;
	memcpy(p->in + p->nin, data, len);
	p->nin += len;
	return 0;
}

int proc_send(struct proc *p, const char *text)
{
	size_t n = strlen(text);
	if (!proc_alive(p) || n + 1 > sizeof p->in - p->nin)
		return -1;
	proc_write(p, text, n);
	return proc_write(p, "\n", 1);
}

void proc_pollfds(const struct proc *p, struct pollfd pf[2])
{
	pf[0] = (struct pollfd){.fd = p->io, .events = 0};
	if (p->io >= 0 && !p->hold_out)
		pf[0].events |= POLLIN;
	if (p->io >= 0 && p->nin > 0)
		pf[0].events |= POLLOUT;
	if (p->io >= 0 && pf[0].events == 0)
		pf[0].fd = -1; /* nothing wanted: do not wake up for a hang-up either */
	pf[1] = (struct pollfd){.fd = p->err, .events = POLLIN};
}

static void close_io(struct proc *p)
{
	if (p->io >= 0)
		close(p->io);
	p->io = -1;
	p->out_eof = true;
	p->nin = 0;
}

static void flush_in(struct proc *p)
{
	while (p->io >= 0 && p->nin > 0) {
		ssize_t w = write(p->io, p->in, p->nin);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				p->nin = 0; /* it is gone; the read side will notice */
			return;
		}
		memmove(p->in, p->in + w, p->nin - (size_t)w);
		p->nin -= (size_t)w;
	}
}

static int read_out(struct proc *p, proc_line_fn on_line, void *arg)
{
	char buf[4096];
	while (p->io >= 0 && !p->hold_out) {
		ssize_t r = read(p->io, buf, sizeof buf);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (r <= 0) { /* EOF, or EIO once the child has closed the terminal */
			close_io(p);
			return 0;
		}
		for (ssize_t i = 0; i < r; i++) {
			if (buf[i] != '\n') {
				if (p->nline < PROC_LINE_MAX)
					p->line[p->nline++] = buf[i];
				else
					p->cut = true;
				continue;
			}
			if (p->nline > 0 && p->line[p->nline - 1] == '\r')
				p->nline--;
			p->line[p->nline] = '\0';
			bool cut = p->cut;
			p->nline = 0;
			p->cut = false;
			int rc = on_line(arg, p->line, cut);
			if (rc != 0)
				return rc; /* fatal for the caller: the rest is dropped */
		}
	}
	return 0;
}

static void drain_err(struct proc *p)
{
	char buf[4096];
	for (;;) {
		ssize_t r = read(p->err, buf, sizeof buf);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
				close(p->err);
				p->err = -1;
			}
			return;
		}
		for (ssize_t i = 0; i < r; i++)
			p->tail[p->ntail++ % PROC_ERR_TAIL] = buf[i];
		if (p->echo_err)
			fwrite(buf, 1, (size_t)r, stderr);
	}
}

int proc_events(struct proc *p, const struct pollfd pf[2], proc_line_fn on_line, void *arg)
{
	int rc = 0;
	if (p->io >= 0 && pf[0].fd == p->io && (pf[0].revents & POLLOUT))
		flush_in(p);
	if (p->io >= 0 && pf[0].fd == p->io && (pf[0].revents & (POLLIN | POLLHUP | POLLERR)))
		rc = read_out(p, on_line, arg);
	if (p->err >= 0 && pf[1].fd == p->err && pf[1].revents)
		drain_err(p);
	proc_reap(p);
	return rc;
}

bool proc_reap(struct proc *p)
{
	if (p->exited)
		return true;
	if (p->pid <= 0)
		return false;
	if (waitpid(p->pid, &p->status, WNOHANG) == p->pid) {
		p->exited = true;
		p->pid = -1;
		/* what it wrote before dying is still readable: the caller's next poll gets it */
	}
	return p->exited;
}

void proc_stop(struct proc *p, int grace_ms)
{
	if (p->err >= 0)
		drain_err(p);
	close_io(p);
	if (p->err >= 0)
		close(p->err);
	p->err = -1;
	if (p->pid <= 0)
		return;
	kill(-p->pid, SIGTERM);
	kill(p->pid, SIGTERM);
	for (int waited = 0; waited <= grace_ms; waited += 10) {
		if (waitpid(p->pid, &p->status, WNOHANG) == p->pid) {
			p->exited = true;
			p->pid = -1;
			return;
		}
		usleep(10000);
	}
	kill(-p->pid, SIGKILL);
	kill(p->pid, SIGKILL);
	waitpid(p->pid, &p->status, 0);
	p->exited = true;
	p->pid = -1;
}

const char *proc_exit_text(const struct proc *p, char *buf, size_t len)
{
	if (!p->exited)
		snprintf(buf, len, "is running");
	else if (WIFEXITED(p->status))
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(p->status));
	else if (WIFSIGNALED(p->status))
		snprintf(buf, len, "was killed by signal %d (%s)", WTERMSIG(p->status),
		         strsignal(WTERMSIG(p->status)));
	else
		snprintf(buf, len, "ended");
	return buf;
}

const char *proc_end_text(struct proc *p, char *buf, size_t len)
{
	for (int waited = 0; !proc_reap(p) && p->pid > 0 && waited < PROC_END_WAIT_MS; waited += 5)
		usleep(5000);
	if (!p->exited && p->pid > 0) {
		snprintf(buf, len, "closed its output");
		return buf;
	}
	return proc_exit_text(p, buf, len);
}

const char *proc_err_tail(const struct proc *p, char *buf, size_t len)
{
	size_t n = p->ntail < PROC_ERR_TAIL ? p->ntail : PROC_ERR_TAIL;
	size_t start = p->ntail - n, at = 0;
	for (size_t i = 0; i < n && at + 1 < len; i++) {
		char c = p->tail[(start + i) % PROC_ERR_TAIL];
		if (c == '\n' || c == '\r' || c == '\t')
			c = ' ';
		else if ((unsigned char)c < 0x20 || c == 0x7F)
			continue;
		buf[at++] = c;
	}
	while (at > 0 && buf[at - 1] == ' ')
		at--;
	if (len > 0)
		buf[at] = '\0';
	return buf;
}
