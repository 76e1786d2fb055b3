/* SPDX-License-Identifier: MIT */
#include "cli/progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

void progress_init(struct progress *p, bool quiet)
{
	p->on = !quiet && isatty(STDERR_FILENO);
	p->label[0] = '\0';
}

void progress_label(struct progress *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->label, sizeof(p->label), fmt, ap);
	va_end(ap);
	progress_update(0, p);
}

void progress_update(double done, void *arg)
{
	struct progress *p = arg;
	if (!p->on)
		return;
	if (done > 1)
		done = 1;
	char bar[21];
	int filled = (int)(done * 20);
	for (int i = 0; i < 20; i++)
		bar[i] = i < filled ? '#' : '.';
	bar[20] = '\0';
	fprintf(stderr, "\r\033[K%s [%s] %3.0f%%", p->label, bar, done * 100);
	fflush(stderr);
}

void progress_clear(struct progress *p)
{
	if (p->on)
		fputs("\r\033[K", stderr);
}
