/* SPDX-License-Identifier: MIT */
/*
 * host.c: the host record.  Everything is read once, at the start of a
 * command, from uname, /proc, /sys and (on x86) CPUID; a source that is
 * missing leaves its field "unknown", empty or -1, never a guess.
 */
#include "harness/results/host.h"
#include "harness/common/wrap.h"
#include "maps/base/area.h"
#include "maps/base/cpu.h"
#include "maps/base/rcu.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#ifndef MAPLAB_VERSION
#define MAPLAB_VERSION "unknown"
#endif
#ifndef MAPLAB_ALLOCATOR
#define MAPLAB_ALLOCATOR "libc"
#endif

#define VULNERABILITIES_DIR "/sys/devices/system/cpu/vulnerabilities"

/* The first line of a small file, without its newline: 0, or -1. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int rc = f && fgets(buf, (int)len, f) ? 0 : -1;
	if (f)
		fclose(f);
	if (rc == 0)
		buf[strcspn(buf, "\n")] = '\0';
	return rc;
}

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

const char *host_hypervisor_name(const char signature[12])
{
	static const struct {
		char signature[12];
		const char *name;
	} known[] = {
		{ "KVMKVMKVM\0\0\0", "kvm" },   /* Firecracker and QEMU/KVM too */
		{ "Microsoft Hv", "hyperv" },
		{ "VMwareVMware", "vmware" },
		{ "XenVMMXenVMM", "xen" },
		{ "TCGTCGTCGTCG", "qemu-tcg" },
		{ "VBoxVBoxVBox", "virtualbox" },
		{ "bhyve bhyve ", "bhyve" },
		{ "ACRNACRNACRN", "acrn" },
	};
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (memcmp(signature, known[i].signature, 12) == 0)
			return known[i].name;
	return NULL;
}

/*
 * Whether the machine is virtual: Xen (and others) name themselves in
 * /sys/hypervisor/type; on x86 a hypervisor sets CPUID.1:ECX bit 31 and
 * signs leaf 0x40000000.  Elsewhere there is no sure sign: -1.
 */
static void read_virtualisation(struct host_record *h)
{
	h->virtualised = -1;
	if (read_line("/sys/hypervisor/type", h->hypervisor,
		      sizeof(h->hypervisor)) == 0 && h->hypervisor[0]) {
		h->virtualised = 1;
		return;
	}
	h->hypervisor[0] = '\0';
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d))
		return;
	h->virtualised = (c >> 31) & 1;
	if (!h->virtualised)
		return;
	char signature[12];
	__cpuid(0x40000000, a, b, c, d);
	memcpy(signature, &b, 4);
	memcpy(signature + 4, &c, 4);
	memcpy(signature + 8, &d, 4);
	const char *name = host_hypervisor_name(signature);
	snprintf(h->hypervisor, sizeof(h->hypervisor), "%s", name ? name : "");
#endif
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct host_vulnerability *)a)->name,
		      ((const struct host_vulnerability *)b)->name);
}

void host_read_vulnerabilities(struct host_record *h, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	h->n_vulns = 0;
	if (!d)
		return;
	while ((e = readdir(d)) && h->n_vulns < HOST_MAX_VULNERABILITIES) {
		struct host_vulnerability *v = &h->vulns[h->n_vulns];
		size_t len = strlen(e->d_name);
		char path[512];
		if (e->d_name[0] == '.' || len >= sizeof(v->name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (read_line(path, v->status, sizeof(v->status)))
			continue;
		memcpy(v->name, e->d_name, len + 1);
		h->n_vulns++;
	}
	closedir(d);
	qsort(h->vulns, h->n_vulns, sizeof(h->vulns[0]), by_name);
}

static bool mitigated(const struct host_vulnerability *v)
{
	return strncmp(v->status, "Mitigation", 10) == 0;
}

void host_mitigations(const struct host_record *h, char *buf, size_t len)
{
	size_t off = 0;
	snprintf(buf, len, "none");
	for (unsigned i = 0; i < h->n_vulns && off < len; i++)
		if (mitigated(&h->vulns[i]))
			off += (size_t)snprintf(buf + off, len - off, "%s%s",
						off ? ", " : "", h->vulns[i].name);
}

void host_read_thp(struct host_record *h, const char *path)
{
	map_thp_mode(path, h->thp, sizeof(h->thp));
}

const char *host_thp_file(void)
{
	const char *path = getenv("MAPLAB_THP_FILE");
	return path && *path ? path : MAP_THP_FILE;
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
	h->cpus_allowed = map_cpu_allowed_count();
	read_virtualisation(h);
	host_read_vulnerabilities(h, VULNERABILITIES_DIR);
	host_read_thp(h, host_thp_file());
	h->allocator = MAPLAB_ALLOCATOR;
	h->rcu = map_rcu_flavor_name();
	h->version = MAPLAB_VERSION;
}

void host_record_build(const struct host_record *h, struct record *out)
{
	const char *mitigations[HOST_MAX_VULNERABILITIES];
	const char *vulns[2 * HOST_MAX_VULNERABILITIES];
	unsigned n_mitigations = 0;

	for (unsigned i = 0; i < h->n_vulns; i++) {
		if (mitigated(&h->vulns[i]))
			mitigations[n_mitigations++] = h->vulns[i].name;
		vulns[2 * i] = h->vulns[i].name;
		vulns[2 * i + 1] = h->vulns[i].status;
	}
	record_init(out, "host");
	record_text(out, "kernel", h->kernel);
	record_text(out, "cpu_model", h->cpu_model);
	record_text(out, "hostname", h->hostname);
	record_whole(out, "nproc", (uint64_t)h->nproc)->missing = h->nproc < 0;
	record_whole(out, "possible_cpus", h->possible_cpus);
	record_whole(out, "cpus_allowed", h->cpus_allowed);
	record_bool(out, "virtualised", h->virtualised);
	record_text(out, "hypervisor", h->hypervisor);
	record_words(out, "mitigations", mitigations, n_mitigations);
	record_pairs(out, "vulnerabilities", vulns, h->n_vulns);
	record_text(out, "thp", h->thp);
	record_text(out, "allocator", h->allocator);
	record_text(out, "rcu", h->rcu);
	record_text(out, "maplab", h->version);
	record_text(out, "date", h->date);
	for (unsigned i = 0; i < out->n; i++)
		out->fields[i].group = "host";
}

/* "virtual machine (kvm)", "bare metal", "virtualised: cannot tell" */
static void format_virtualisation(const struct host_record *h, char *buf,
				  size_t len)
{
	if (h->virtualised < 0)
		snprintf(buf, len, "virtualised: cannot tell");
	else if (!h->virtualised)
		snprintf(buf, len, "bare metal");
	else
		snprintf(buf, len, "virtual machine (%s)",
			 h->hypervisor[0] ? h->hypervisor : "hypervisor unknown");
}

void host_record_line(FILE *f, const struct host_record *h)
{
	char mitigations[512], virt[64];
	host_mitigations(h, mitigations, sizeof(mitigations));
	format_virtualisation(h, virt, sizeof(virt));
	wrap_printf(f, "host: %s, %s, %ld cpus online (%u possible, %u usable here), "
		"%s, mitigations: %s; %s, rcu %s, transparent huge pages %s\n",
		h->kernel, h->cpu_model, h->nproc, h->possible_cpus,
		h->cpus_allowed, virt, mitigations, h->allocator, h->rcu,
		h->thp[0] ? h->thp : "none");
}
