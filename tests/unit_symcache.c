/*
 * unit_symcache.c - kallsyms indexes kept on disk (core/symcache.c): a
 * table read back from its file equals the table read from the text (every
 * address and name, every lookup); a file under another key, of another
 * text length, or damaged anywhere (a byte changed, cut short, grown, a
 * header field changed) is not used and leaves the table empty; a table
 * that has symbols takes none; a directory keeps the 16 newest files; one
 * that cannot be made is no error.  Refs (a section's place in its file ->
 * its key): each field of the place changes the ref; one put is read back;
 * one with any byte changed, or cut short, is not used.
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
