// SPDX-License-Identifier: LGPL-2.1-or-later
/* compress.c - decompression of trace.dat v7 sections and chunks (zstd, zlib) */
#include "core/core.h"

#include <pthread.h>
#include <zlib.h>
#include <zstd.h>

/*
 * One zstd context per thread, made at its first chunk and kept: a
 * context is ~100 KB made and freed for every chunk otherwise (a v7
 * trace's CPU data is chunks of some 40 KB).  Freed when the thread ends.
 */
static pthread_key_t dctx_key;
static pthread_once_t dctx_once = PTHREAD_ONCE_INIT;
static bool dctx_keyed;

static void dctx_free(void *d)
{
	ZSTD_freeDCtx(d);
}

static void dctx_key_make(void)
{
	dctx_keyed = !pthread_key_create(&dctx_key, dctx_free);
}

/* thread_dctx - this thread's context, NULL when none can be had */
static ZSTD_DCtx *thread_dctx(void)
{
	ZSTD_DCtx *d;

	if (pthread_once(&dctx_once, dctx_key_make) || !dctx_keyed)
		return NULL;
	d = pthread_getspecific(dctx_key);
	if (!d && (d = ZSTD_createDCtx()) && pthread_setspecific(dctx_key, d)) {
		ZSTD_freeDCtx(d);
		d = NULL;
	}
	return d;
}

bool ipt_compression_supported(const char *algo)
{
	return !strcmp(algo, "none") || !strcmp(algo, "zstd") || !strcmp(algo, "zlib");
}

/* ipt_decompress - decompress src into exactly dlen bytes at dst */
int ipt_decompress(const char *algo, const uint8_t *src, size_t slen, uint8_t *dst,
		   size_t dlen, const char *path, long long off)
{
	if (!strcmp(algo, "zstd")) {
		ZSTD_DCtx *d = thread_dctx();
		size_t r = d ? ZSTD_decompressDCtx(d, dst, dlen, src, slen) : ZSTD_decompress(dst, dlen, src, slen);

		if (ZSTD_isError(r))
			return ipt_err_at(path, off, "zstd data does not decompress: %s",
					  ZSTD_getErrorName(r));
		if (r != dlen)
			return ipt_err_at(path, off, "zstd data decompresses to %zu bytes, %zu expected",
					  r, dlen);
		return 0;
	}
	if (!strcmp(algo, "zlib")) {
		uLongf out = (uLongf)dlen;
		int r = uncompress(dst, &out, src, (uLong)slen);

		if (r != Z_OK)
			return ipt_err_at(path, off, "zlib data does not decompress (error %d)", r);
		if (out != dlen)
			return ipt_err_at(path, off, "zlib data decompresses to %lu bytes, %zu expected",
					  (unsigned long)out, dlen);
		return 0;
	}
	if (!strcmp(algo, "none")) {
		if (slen != dlen)
			return ipt_err_at(path, off, "stored size %zu differs from %zu", slen, dlen);
		memcpy(dst, src, dlen);
		return 0;
	}
	return ipt_err_at(path, off, "unsupported compression '%s'", algo);
}
