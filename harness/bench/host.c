/* SPDX-License-Identifier: MIT */
#include "host.h"
#include "maps/common/cpu.h"
#include "maps/common/rcu.h"

#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#ifndef MAPLAB_VERSION
#define MAPLAB_VERSION "unknown"
#endif
#ifndef MAPLAB_ALLOCATOR
#define MAPLAB_ALLOCATOR "libc"
#endif

static void read_cpu_model(char *buf, size_t len)
{
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "r");
	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		if (strncmp(line, "model name", 10) == 0 && colon) {
			colon += 2;
			colon[strcspn(colon, "\n")] = '\0';
			snprintf(buf, len, "%s", colon);
			break;
		}
	}
	fclose(f);
}

void host_record_read(struct host_record *h)
{
	struct utsname u;
	memset(h, 0, sizeof(*h));
	if (uname(&u) == 0)
		snprintf(h->kernel, sizeof(h->kernel), "%s", u.release);
	gethostname(h->hostname, sizeof(h->hostname) - 1);
	read_cpu_model(h->cpu_model, sizeof(h->cpu_model));
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(h->date, sizeof(h->date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	h->nproc = sysconf(_SC_NPROCESSORS_ONLN);
	h->possible_cpus = map_possible_cpus();
	h->allocator = MAPLAB_ALLOCATOR;
	h->rcu = map_rcu_flavor_name();
	h->version = MAPLAB_VERSION;
}

void json_string(FILE *f, const char *s)
{
	putc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			putc(*s, f);
	}
	putc('"', f);
}

void host_record_json(FILE *f, const struct host_record *h)
{
	fputs("{\"kernel\":", f);
	json_string(f, h->kernel);
	fputs(",\"cpu_model\":", f);
	json_string(f, h->cpu_model);
	fputs(",\"hostname\":", f);
	json_string(f, h->hostname);
	fprintf(f, ",\"nproc\":%ld,\"possible_cpus\":%u,\"allocator\":\"%s\","
		"\"rcu\":\"%s\",\"maplab\":\"%s\",\"date\":\"%s\"}",
		h->nproc, h->possible_cpus, h->allocator, h->rcu, h->version,
		h->date);
}
