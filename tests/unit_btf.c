// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * unit_btf.c - the csd offsets the kprobes read (lib/live/kprobes.c) as the
 * running kernel's BTF gives them, against bpftool's dump of the same BTF
 * (`bpftool btf dump file /sys/kernel/btf/vmlinux format raw`): the
 * bits_offset of __call_single_data.func and of the anonymous member of
 * __call_single_node that holds u_flags (plus u_flags' own offset in it).
 * Without BTF or bpftool: nothing to compare, said on one line.
 */
#include "testlib.h"
#include "live/live.h"

#include <unistd.h>

/* member - bits_offset of 'name' (or of the first '(anon)' when name is
 * NULL) in the raw dump's type "KIND 'type'"; -1 if absent */
static long member(FILE *f, const char *kind_type, const char *name)
{
	char line[512], want[160];
	bool in = false;

	snprintf(want, sizeof(want), "%s", kind_type);
	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		const char *b;

		if (line[0] == '[') {
			in = strstr(line, want) != NULL;
			continue;
		}
		if (!in)
			continue;
		snprintf(want, sizeof(want), "'%s' ", name ? name : "(anon)");
		if (strstr(line, want) && (b = strstr(line, "bits_offset=")))
			return atol(b + 12);
		snprintf(want, sizeof(want), "%s", kind_type);
	}
	return -1;
}

/* anon_type - the dump's type id of the first anonymous member of kind_type */
static long anon_type(FILE *f, const char *kind_type)
{
	char line[512];
	bool in = false;

	rewind(f);
	while (fgets(line, sizeof(line), f)) {
		const char *t;

		if (line[0] == '[') {
			in = strstr(line, kind_type) != NULL;
			continue;
		}
		if (in && strstr(line, "'(anon)' ") && (t = strstr(line, "type_id=")))
			return atol(t + 8);
	}
	return -1;
}

int main(void)
{
	const char *bpftool = access("/usr/sbin/bpftool", X_OK) ? "bpftool" : "/usr/sbin/bpftool";
	char cmd[256], tid[64];
	int fl = -1, fn = -1, r;
	long want_fn, anon_off, anon_id, inner;
	FILE *f;

	r = ipt_btf_csd_layout(&fl, &fn);
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		CHECK(r == 0, "no BTF: %d, want 0", r);
		printf("(no /sys/kernel/btf/vmlinux: nothing to compare)\n");
		TEST_MAIN_END();
	}
	snprintf(cmd, sizeof(cmd), "%s btf dump file /sys/kernel/btf/vmlinux format raw 2>/dev/null", bpftool);
	f = tmpfile();
	{
		FILE *p = popen(cmd, "r");
		char buf[65536];
		size_t n;

		while (p && f && (n = fread(buf, 1, sizeof(buf), p)) > 0)
			fwrite(buf, 1, n, f);
		if (p)
			pclose(p);
	}
	if (!f || ftell(f) == 0) {
		CHECK(r == 1 || r == -1, "BTF: %d", r);
		printf("(no bpftool dump: nothing to compare)\n");
		if (f)
			fclose(f);
		TEST_MAIN_END();
	}
	want_fn = member(f, "STRUCT '__call_single_data'", "func");
	anon_off = member(f, "STRUCT '__call_single_node'", NULL);
	anon_id = anon_type(f, "STRUCT '__call_single_node'");
	snprintf(tid, sizeof(tid), "[%ld] UNION", anon_id);
	inner = member(f, tid, "u_flags");
	fclose(f);
	CHECK(r == 1, "ipt_btf_csd_layout: %d, want 1 (bpftool lists the structs)", r);
	CHECK(want_fn >= 0 && fn == want_fn / 8, "func at %d, bpftool says bit %ld", fn, want_fn);
	CHECK(anon_off >= 0 && inner >= 0 && fl == (anon_off + inner) / 8,
	      "u_flags at %d, bpftool says bit %ld + %ld", fl, anon_off, inner);
	printf("csd: u_flags at +%d, func at +%d (BTF), as bpftool dumps it\n", fl, fn);
	TEST_MAIN_END();
}
