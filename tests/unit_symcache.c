/*
 * unit_symcache.c - kallsyms indexes kept on disk (core/symcache.c): a
 * table read back from its file equals the table read from the text (every
 * address and name, every lookup); a file under another key, of another
 * text length, or damaged anywhere (a byte changed, cut short, grown, a
 * header field changed) is not used and leaves the table empty; a table
 * that has symbols takes none; a directory keeps the 16 newest files; one
 * that cannot be made is no error.  Refs (a section's place in its file ->
 * its key): each field of the place changes the ref; one put is read back;
 * one with any byte changed, or cut short, is not used.  The answers kept
 * for a key (kallsyms-KEY.hot): a deferred table asked again answers the
 * addresses and names asked before without reading its text or index,
 * every answer (kept, or not and then read whole) that of a scan of the
 * text written for the test (the last line at or below the address, the
 * first of several at one address); a kept file damaged is not used.
 */
#include "core/core.h"
#include "testlib.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* make_text - n kallsyms lines in address order, half of them a
 * "__pfx_" name then the name it ends (kept once by the reader) */
static char *make_text(int n)
{
	size_t cap = (size_t)n * 64 + 1, len = 0;
	char *s = malloc(cap);
	uint64_t addr = 0xffffffff81000000ull;

	for (int i = 0; i < n && s; i++) {
		char name[48];

		snprintf(name, sizeof(name), "fn_%d_%s", i / 2, i % 7 ? "x" : "a_longer_name");
		if (i % 2 == 0)
			len += (size_t)snprintf(s + len, cap - len, "%016llx t __pfx_%s\n",
						(unsigned long long)addr, name);
		else
			len += (size_t)snprintf(s + len, cap - len, "%016llx T %s\n", (unsigned long long)addr, name);
		addr += 16 + (uint64_t)(i % 5) * 8;
	}
	return s;
}

static long file_size(const char *path)
{
	struct stat sb;

	return stat(path, &sb) ? -1 : (long)sb.st_size;
}

static int count_idx(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += !strncmp(e->d_name, "kallsyms-", 9);
	if (d)
		closedir(d);
	return n;
}

static void write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (f) {
		if (n)
			fwrite(p, 1, n, f);
		fclose(f);
	}
}

/* same - tables a and b hold the same symbols */
static int same(const struct ipt_symtab *a, const struct ipt_symtab *b)
{
	if (a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++)
		if (a->syms[i].addr != b->syms[i].addr || strcmp(a->syms[i].name, b->syms[i].name))
			return 0;
	return 1;
}


/* the test's own reading of make_text's lines and the aliases after them:
 * a scan for the answer to addr (the highest address at or below it, the
 * first line of several there), NULL below the first */
struct oline {
	uint64_t addr;
	char name[64];
};

static int olines(const char *text, struct oline *v, int cap)
{
	int n = 0;

	for (const char *p = text; *p && n < cap; p = strchr(p, '\n') + 1) {
		unsigned long long a;
		char type;

		if (sscanf(p, "%llx %c %63s", &a, &type, v[n].name) == 3)
			v[n++].addr = a;
		if (!strchr(p, '\n'))
			break;
	}
	return n;
}

static const char *oracle(const struct oline *v, int n, uint64_t addr, uint64_t *at)
{
	int best = -1;

	for (int i = 0; i < n; i++)
		if (v[i].addr <= addr && (best < 0 || v[i].addr > v[best].addr))
			best = i;
	if (best >= 0)
		*at = v[best].addr;
	return best < 0 ? NULL : v[best].name;
}

static uint64_t oracle_addr(const struct oline *v, int n, const char *name)
{
	uint64_t a = 0;

	for (int i = 0; i < n; i++)
		if (!strcmp(v[i].name, name) && (!a || v[i].addr < a))
			a = v[i].addr;
	return a;
}

/* asks - each address and name asked of a table deferred with the ref r
 * (as a trace's is), against the scan; the answers that differ */
static int asks(const char *dir, const struct ipt_symcache_ref *r, const char *text, const struct oline *v,
		int n, const uint64_t *addrs, int na, const char *const *names, int nn, int *deferred)
{
	struct ipt_symtab t = { 0 };
	int bad = 0;

	if (ipt_symtab_defer_kallsyms(&t, text, strlen(text)))
		return -1;
	ipt_symtab_defer_cache(&t, dir, r);
	for (int i = 0; i < na; i++) {
		uint64_t at = 0;
		const char *want = oracle(v, n, addrs[i], &at);
		const struct ipt_sym *s = ipt_symtab_lookup(&t, addrs[i]);

		bad += !(want ? s && s->addr == at && !strcmp(s->name, want) : s == NULL);
	}
	for (int i = 0; i < nn; i++)
		bad += ipt_symtab_addr_of(&t, names[i]) != oracle_addr(v, n, names[i]);
	*deferred = __atomic_load_n(&t.lstate, __ATOMIC_RELAXED);
	ipt_symtab_free(&t);
	return bad;
}

int main(void)
{
	char dir[] = "/tmp/unit_symcache.XXXXXX", path[4200];
	struct ipt_symtab st = { 0 }, back = { 0 };
	struct ipt_symcache_key k, other;
	unsigned long long rnd = 0x9e3779b97f4a7c15ull;
	char *text = make_text(3000);
	unsigned char *good;
	long size;
	int unused = 0, bad = 0;
	FILE *f;

	CHECK(text && mkdtemp(dir), "set-up");
	CHECK(ipt_symtab_load_kallsyms(&st, text, strlen(text)) == 0 && st.n == 3000, "the text read: %zu", st.n);
	ipt_symcache_key(&k, text, strlen(text) / 3, strlen(text));
	CHECK(ipt_symtab_load_index(&back, dir, &k) == 0 && back.n == 0, "nothing kept yet");
	ipt_symcache_store(&st, dir, &k);
	snprintf(path, sizeof(path), "%s/kallsyms-%016llx%016llx.idx", dir, (unsigned long long)k.h[0],
		 (unsigned long long)k.h[1]);
	size = file_size(path);
	CHECK(size > 64, "the file %s: %ld bytes", path, size);

	/* read back: the same symbols, the same lookups */
	CHECK(ipt_symtab_load_index(&back, dir, &k) == 1, "read back");
	CHECK(same(&st, &back), "read back: the same %zu symbols (got %zu)", st.n, back.n);
	for (int i = 0; i < 5000; i++) {
		uint64_t a = 0xffffffff80fffff0ull + t_xorshift64(&rnd) % 0x30000;
		const struct ipt_sym *x = ipt_symtab_lookup(&st, a), *y = ipt_symtab_lookup(&back, a);

		bad += !(x == NULL ? y == NULL : y && x->addr == y->addr && !strcmp(x->name, y->name));
	}
	CHECK(bad == 0, "5000 lookups: %d differ", bad);
	/* a table with symbols takes none */
	CHECK(ipt_symtab_load_index(&back, dir, &k) == 0 && same(&st, &back), "a full table: nothing taken");
	ipt_symtab_free(&back);

	/* another key, another text length: not that file */
	other = k;
	other.h[1] ^= 1;
	CHECK(ipt_symtab_load_index(&back, dir, &other) == 0 && !back.n, "another key");
	other = k;
	other.ulen++;
	CHECK(ipt_symtab_load_index(&back, dir, &other) == 0 && !back.n, "another text length");

	/* damage anywhere: the file is not used */
	good = malloc((size_t)size + 16);
	f = fopen(path, "rb");
	CHECK(good && f && fread(good, 1, (size_t)size, f) == (size_t)size, "the file read");
	if (f)
		fclose(f);
	for (int i = 0; good && i < 3000; i++) {
		unsigned char *b = malloc((size_t)size + 16);
		size_t n = (size_t)size;
		int how = (int)(t_xorshift64(&rnd) % 4);

		memcpy(b, good, n);
		if (how == 0) {		/* one byte anywhere */
			b[t_xorshift64(&rnd) % n] ^= (unsigned char)(1 + t_xorshift64(&rnd) % 255);
		} else if (how == 1) {	/* one byte of the header */
			b[t_xorshift64(&rnd) % 64] ^= (unsigned char)(1 + t_xorshift64(&rnd) % 255);
		} else if (how == 2) {	/* cut short */
			n = (size_t)(t_xorshift64(&rnd) % n);
		} else {		/* grown */
			b[n] = 0;
			n += 1 + t_xorshift64(&rnd) % 8;
			memset(b + size, 0, n - (size_t)size);
		}
		write_file(path, b, n);
		if (ipt_symtab_load_index(&back, dir, &k) == 0 && back.n == 0)
			unused++;
		ipt_symtab_free(&back);
		free(b);
	}
	CHECK(unused == 3000, "3000 damaged files: %d not used", unused);
	write_file(path, good, (size_t)size);
	CHECK(ipt_symtab_load_index(&back, dir, &k) == 1 && same(&st, &back), "the sound file again");
	ipt_symtab_free(&back);
	free(good);

	/* the 16 newest kept */
	for (int i = 0; i < 20; i++) {
		char p[4200];
		struct timespec ts[2] = { { 1000000 + i, 0 }, { 1000000 + i, 0 } };

		snprintf(p, sizeof(p), "%s/kallsyms-%032d.idx", dir, i);
		write_file(p, "old", 3);
		utimensat(AT_FDCWD, p, ts, 0);
	}
	CHECK(count_idx(dir) == 21, "21 files before: %d", count_idx(dir));
	unlink(path);
	ipt_symcache_store(&st, dir, &k);
	CHECK(count_idx(dir) == 16 && file_size(path) == size, "16 kept, the new one of them: %d", count_idx(dir));
	{
		char p[4200];

		snprintf(p, sizeof(p), "%s/kallsyms-%032d.idx", dir, 19);
		CHECK(file_size(p) == 3, "the newest old one kept");
		snprintf(p, sizeof(p), "%s/kallsyms-%032d.idx", dir, 4);
		CHECK(file_size(p) < 0, "an older one removed");
	}

	/* a directory that cannot be made: no file, no error */
	ipt_symcache_store(&st, "/proc/no/such/dir", &k);
	CHECK(ipt_symtab_load_index(&back, "/proc/no/such/dir", &k) == 0 && !back.n, "no directory");

	{	/* refs: a section's place -> its key; any field of the place
		 * changes the ref; a ref damaged or cut short is not used */
		const uint64_t file[5] = { 2049, 1234567, 5533926, 1765000000123456789ull, 1765000000123456789ull };
		struct ipt_symcache_ref r, r2;
		struct ipt_symcache_key got;
		char rp[4200];
		int differ = 0;

		ipt_symcache_ref_of(&r, file, 4096, 1000000);
		for (int fld = 0; fld < 7; fld++) {
			uint64_t v[5];

			memcpy(v, file, sizeof(v));
			if (fld < 5)
				v[fld] ^= 1;
			ipt_symcache_ref_of(&r2, v, 4096 + (fld == 5), 1000000 + (fld == 6));
			differ += memcmp(r.h, r2.h, sizeof(r.h)) != 0;
		}
		CHECK(differ == 7, "a ref changes with each of the 7 fields of a place: %d", differ);
		CHECK(ipt_symcache_ref_get(dir, &r, &got) == 0, "no ref yet");
		ipt_symcache_ref_put(dir, &r, &k);
		CHECK(ipt_symcache_ref_get(dir, &r, &got) == 1 && !memcmp(got.h, k.h, sizeof(k.h)) && got.ulen == k.ulen,
		      "a ref read back: the key put");
		snprintf(rp, sizeof(rp), "%s/ref-%016llx%016llx", dir, (unsigned long long)r.h[0],
			 (unsigned long long)r.h[1]);
		CHECK(file_size(rp) == 40, "the ref file: %ld bytes", file_size(rp));
		for (int at = 0; at < 40; at++) {
			int fd = open(rp, O_RDWR);
			unsigned char b = 0;

			if (fd < 0 || pread(fd, &b, 1, at) != 1) {
				CHECK(0, "ref byte %d", at);
				break;
			}
			b ^= 0x10;
			(void)!pwrite(fd, &b, 1, at);
			CHECK(ipt_symcache_ref_get(dir, &r, &got) == 0, "a ref with byte %d changed: not used", at);
			b ^= 0x10;
			(void)!pwrite(fd, &b, 1, at);
			close(fd);
		}
		CHECK(truncate(rp, 39) == 0 && ipt_symcache_ref_get(dir, &r, &got) == 0, "a ref cut short: not used");
	}


	{	/* the answers kept for a key */
		const uint64_t file[5] = { 2050, 7654321, 5533926, 1765000000123456789ull, 1765000000123456789ull };
		struct ipt_symcache_ref r;
		size_t tl = strlen(text);
		char *t2 = malloc(tl + 3 * 64 + 1), hp[4200];
		struct oline *v = malloc(3100 * sizeof(*v));
		uint64_t a1[400], a2[400], all[800];
		const char *names[] = { "fn_10_x", "__pfx_fn_20_x", "fn_7_a_longer_name", "no_such_fn", "alias_0" };
		int n, deferred = 0;

		CHECK(t2 && v, "set-up");
		/* three aliases at addresses already named: the first line wins */
		memcpy(t2, text, tl + 1);
		for (int i = 0; i < 3; i++)
			tl += (size_t)sprintf(t2 + tl, "%016llx T alias_%d\n",
					      (unsigned long long)st.syms[100 + 700 * i].addr, i);
		n = olines(t2, v, 3100);
		CHECK(n == 3003, "the test's scan: %d lines", n);
		for (int i = 0; i < 400; i++) {	/* below, within, above; exact starts */
			a1[i] = 0xffffffff80fff000ull + t_xorshift64(&rnd) % 0x32000;
			a2[i] = i % 3 ? st.syms[t_xorshift64(&rnd) % st.n].addr : a1[i] + 8;
		}
		a1[0] = 0;
		a1[1] = UINT64_MAX;
		a2[0] = st.syms[0].addr;
		a2[1] = st.syms[0].addr - 1;
		memcpy(all, a1, sizeof(a1));
		memcpy(all + 400, a2, sizeof(a2));
		ipt_symcache_ref_of(&r, file, 8192, tl);
		bad = asks(dir, &r, t2, v, n, a1, 400, names, 3, &deferred);
		CHECK(bad == 0 && !deferred, "first run, the whole table: %d of 403 answers differ from the scan", bad);
		bad = asks(dir, &r, t2, v, n, a1, 400, names, 3, &deferred);
		CHECK(bad == 0 && deferred, "asked again: %d differ; %s", bad,
		      deferred ? "answered as kept" : "the table was read");
		bad = asks(dir, &r, t2, v, n, all, 800, names, 5, &deferred);
		CHECK(bad == 0 && !deferred, "more asked: %d of 805 differ; the table read (%d)", bad, deferred);
		bad = asks(dir, &r, t2, v, n, all, 800, names, 5, &deferred);
		CHECK(bad == 0 && deferred, "all asked again: %d differ; %s", bad,
		      deferred ? "answered as kept" : "the table was read");
		/* damaged: not used, the same answers, sound again after */
		{
			struct ipt_symcache_key hk;
			long hs;
			unsigned char *hb;
			int unused2 = 0, wrong = 0;

			CHECK(ipt_symcache_ref_get(dir, &r, &hk) == 1, "the ref kept");
			snprintf(hp, sizeof(hp), "%s/kallsyms-%016llx%016llx.hot", dir, (unsigned long long)hk.h[0],
				 (unsigned long long)hk.h[1]);
			hs = file_size(hp);
			hb = malloc(hs > 0 ? (size_t)hs + 16 : 16);
			f = fopen(hp, "rb");
			CHECK(hs > 64 && hb && f && fread(hb, 1, (size_t)hs, f) == (size_t)hs, "the kept file: %ld bytes", hs);
			if (f)
				fclose(f);
			for (int i = 0; hb && hs > 64 && i < 200; i++) {
				unsigned char *b = malloc((size_t)hs + 16);
				size_t m = (size_t)hs;
				int how = (int)(t_xorshift64(&rnd) % 3);

				memcpy(b, hb, m);
				if (how == 0)
					b[t_xorshift64(&rnd) % m] ^= (unsigned char)(1 + t_xorshift64(&rnd) % 255);
				else if (how == 1)
					m = (size_t)(t_xorshift64(&rnd) % m);
				else
					b[16 + t_xorshift64(&rnd) % 8] ^= 0x40;	/* the key */
				write_file(hp, b, m);
				wrong += asks(dir, &r, t2, v, n, all, 800, names, 5, &deferred) != 0;
				unused2 += !deferred;
				free(b);
			}
			CHECK(wrong == 0 && unused2 == 200, "200 damaged kept files: %d gave another answer, %d used",
			      wrong, 200 - unused2);
			bad = asks(dir, &r, t2, v, n, all, 800, names, 5, &deferred);
			CHECK(bad == 0 && deferred && file_size(hp) == hs, "written again whole: %ld bytes of %ld", file_size(hp), hs);
			free(hb);
		}
		free(v);
		free(t2);
	}
	{	/* clean up */
		DIR *d = opendir(dir);
		struct dirent *e;

		while (d && (e = readdir(d)))
			if (e->d_name[0] != '.' || e->d_name[1] == 'k')
				unlinkat(dirfd(d), e->d_name, 0);
		if (d)
			closedir(d);
		rmdir(dir);
	}
	ipt_symtab_free(&st);
	free(text);
	TEST_MAIN_END();
}
