/* SPDX-License-Identifier: MIT */
/*
 * reproduce_child.c: reproduce's steps as child processes, under SIGINT
 * and SIGTERM (reproduce.h, "Stopping").  A stop signal is forwarded to
 * the running child and waited for, so no child outlives reproduce; then
 * reproduce dies of the signal itself (repro_die_of), as an interrupted
 * command should.  stop_signal and running_child are the only state the
 * handler touches: sig_atomic_t, written by the handler or with the stop
 * signals blocked.
 */
#include "cli/reproduce/reproduce.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t stop_signal;   /* the first one caught, or 0 */
static volatile sig_atomic_t running_child; /* its pid, or 0 */

static void on_stop(int sig)
{
	if (!stop_signal)
		stop_signal = sig;
	if (running_child > 0)
		kill((pid_t)running_child, sig);
}

static const int stop_signals[] = { SIGINT, SIGTERM };
#define N_STOP_SIGNALS 2
static bool caught[N_STOP_SIGNALS];

static void stop_set(sigset_t *set)
{
	sigemptyset(set);
	for (unsigned i = 0; i < N_STOP_SIGNALS; i++)
		sigaddset(set, stop_signals[i]);
}

/* SIGINT and SIGTERM caught, unless maplab started with them ignored
 * (nohup, a script's background job): those stay ignored, in the steps
 * too, as whoever started us asked. */
void repro_catch_stops(void)
{
	for (unsigned i = 0; i < N_STOP_SIGNALS; i++) {
		struct sigaction old, sa = { .sa_handler = on_stop,
					     .sa_flags = SA_RESTART };
		if (sigaction(stop_signals[i], NULL, &old) ||
		    old.sa_handler == SIG_IGN)
			continue;
		stop_set(&sa.sa_mask);
		caught[i] = !sigaction(stop_signals[i], &sa, NULL);
	}
}

/* Ends this process by sig, as the signal would have without a handler:
 * the shell sees a death by SIGINT (status 130), and a script that ran
 * maplab stops too, rather than take an interrupted run for a failed one. */
int repro_die_of(int sig)
{
	sigset_t set;
	fflush(NULL);
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	return 128 + sig; /* not reached */
}

const char *repro_signal_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal";
}

/*
 * Runs file with argv (search: through PATH) and waits for it.  Its wait
 * status; -1 where it could not be started (errno set), or where a stop
 * signal came first (stop_signal set, nothing started).  The stop signals
 * are blocked across fork, so that the handler knows the child's pid from
 * its first instant; the child takes the default actions back before it
 * runs (exec would too), so a signal between fork and exec ends it.
 * hold_int: the child starts with SIGINT blocked, and unblocks it itself
 * once it is ready to die of it (findings.py: python turns a SIGINT into
 * a traceback until then).
 */
int repro_run_child(const char *file, char *const argv[], bool search,
		     const char *what, bool hold_int)
{
	sigset_t stops, old;
	stop_set(&stops);
	fflush(stdout);
	fflush(stderr);
	sigprocmask(SIG_BLOCK, &stops, &old);
	if (stop_signal) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		return -1;
	}
	pid_t pid = fork();
	if (pid == 0) {
		for (unsigned i = 0; i < N_STOP_SIGNALS; i++)
			if (caught[i])
				signal(stop_signals[i], SIG_DFL);
		if (hold_int)
			sigaddset(&old, SIGINT);
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (search)
			execvp(file, argv);
		else
			execv(file, argv);
		fprintf(stderr, "maplab reproduce: %s: %s\n", what, strerror(errno));
		_exit(127);
	}
	int e = errno;
	if (pid > 0)
		running_child = pid;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (pid < 0) {
		errno = e;
		return -1;
	}
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			status = -1;
			break;
		}
	running_child = 0;
	return status;
}

/* A wait status as an exit status: the child's, or 128 + its signal. */
int repro_exit_status(int status)
{
	if (status < 0)
		return 255;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int repro_stop_signal(void)
{
	return stop_signal;
}
