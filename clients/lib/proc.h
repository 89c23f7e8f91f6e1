/*
 * proc.h - a child program driven line by line, for the bridges (cg-bridge,
 * tei-bridge): a CodinGame bot or a TEI engine that reads lines on stdin and
 * writes lines on stdout.
 *
 * Real programs are rough, so:
 *  - the child runs on a pseudo-terminal (forkpty, raw mode: no echo, no line
 *    editing, no CR/LF translation), so stdio in C/C++/Python programs is line
 *    buffered and an unflushed printf still arrives at its newline;
 *  - its stderr is a pipe that is drained all the time (copied to ours only
 *    when asked); the last bytes are kept, so a program that dies at once can
 *    be reported with what it said;
 *  - whether the program could be started at all is known when proc_start()
 *    returns (an exec failure comes back through a close-on-exec pipe);
 *  - input waits in a bounded buffer written without blocking, so a child that
 *    stops reading cannot stall the caller;
 *  - a line over PROC_LINE_MAX bytes is cut (and marked so);
 *  - the child leads its own process group; proc_stop() sends it SIGTERM,
 *    then SIGKILL after a grace, and reaps it.
 *
 * One poll() loop drives everything: proc_pollfds() fills two pollfd entries,
 * proc_events() handles what poll() reported. SIGPIPE must be ignored by the
 * caller (a child that closed its input must not kill us).
 *
 * Memory: struct proc is the caller's (no allocation); its fds are closed by
 * proc_stop().
 */
#ifndef BITARENA_CLIENTS_PROC_H
#define BITARENA_CLIENTS_PROC_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define PROC_LINE_MAX 4096        /* longer output lines are cut */
#define PROC_IN_MAX   (64 * 1024) /* input not yet read by the child */
#define PROC_ERR_TAIL 512         /* the last stderr bytes kept for reports */

struct proc {
	pid_t pid;            /* -1 when not running (never started, or reaped) */
	int io;               /* pty master: the child's stdin and stdout; -1 when closed */
	int err;              /* read end of the child's stderr pipe; -1 when closed */
	bool out_eof;         /* its stdout is closed (it exited, or closed it) */
	bool exited;          /* reaped: status is valid */
	int status;           /* waitpid() status */
	bool echo_err;        /* copy its stderr to ours as it comes */
	bool hold_out;        /* do not read its stdout for now (the caller's queue is full) */
	char in[PROC_IN_MAX]; /* queued input: in[0 .. nin) */
	size_t nin;
	char line[PROC_LINE_MAX + 1]; /* the output line being read */
	size_t nline;
	bool cut;                 /* that line went over PROC_LINE_MAX */
	char tail[PROC_ERR_TAIL]; /* the last stderr bytes, a ring: tail[(ntail + i) % size] */
	size_t ntail;             /* bytes ever written to tail */
};

/* An idle proc (no child). */
void proc_init(struct proc *p);

/*
 * Starts argv[0] (searched in PATH) with argv. Returns 0, or -1 with why
 * (a sentence: "cannot run ./bot: No such file or directory") when the
 * program could not be run.
 */
int proc_start(struct proc *p, char *const argv[], char *why, size_t whylen);

/* True while the child runs and its stdout is open. */
bool proc_alive(const struct proc *p);

/* Queues text + "\n" for the child. Returns -1 when it is gone or the queue is full. */
int proc_send(struct proc *p, const char *text);
/* Queues len bytes as they are (several lines at once). Returns -1 as proc_send(). */
int proc_write(struct proc *p, const char *data, size_t len);

/* Fills pf[0] (stdout and, with queued input, stdin) and pf[1] (stderr); fd -1 when closed. */
void proc_pollfds(const struct proc *p, struct pollfd pf[2]);

/*
 * Called for each complete output line, terminator (LF, or CR LF) removed;
 * cut says it was longer than PROC_LINE_MAX. A non-zero return is a fatal
 * error of the caller's: proc_events() returns it at once and drops the rest
 * of what it had read. The caller may set hold_out in on_line; reading then
 * stops after the bytes already read (at most 4 KiB more lines).
 */
typedef int (*proc_line_fn)(void *arg, char *line, bool cut);

/*
 * Handles what poll() reported in pf (from proc_pollfds): writes queued
 * input, reads output lines (to on_line), drains stderr, reaps the child
 * when it has exited. Returns 0 or on_line's non-zero value.
 */
int proc_events(struct proc *p, const struct pollfd pf[2], proc_line_fn on_line, void *arg);

/* Reaps the child if it has exited (without waiting); true once it has. */
bool proc_reap(struct proc *p);

/*
 * Ends the child: closes its fds, SIGTERM to its process group, SIGKILL
 * after grace_ms if it is still there, and reaps it. Safe on an idle proc.
 */
void proc_stop(struct proc *p, int grace_ms);

/* "exited with status 1", "was killed by signal 6 (Aborted)", "is running". */
const char *proc_exit_text(const struct proc *p, char *buf, size_t len);

#define PROC_END_WAIT_MS 2000 /* how long proc_end_text() waits for a child to be reaped */

/*
 * Why a child whose output has closed stopped, once it is known: its output closes while it
 * dies, a moment before the kernel lets it be reaped, so this waits for it (at most
 * PROC_END_WAIT_MS) and says how it ended ("exited with status 1", "was killed by signal 6
 * (Aborted)"), or "closed its output" when it runs on without it. Blocks the caller for that
 * moment; for reports, once.
 */
const char *proc_end_text(struct proc *p, char *buf, size_t len);

/* The last stderr line(s) it wrote, on one line ("" when none); for reports. */
const char *proc_err_tail(const struct proc *p, char *buf, size_t len);

#endif
