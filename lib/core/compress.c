// SPDX-License-Identifier: LGPL-2.1-or-later
/* compress.c - decompression of trace.dat v7 sections and chunks (zstd, zlib) */
#include "core/core.h"

#include <zlib.h>
#include <zstd.h>

bool ipt_compression_supported(const char *algo)
{
	return !strcmp(algo, "none") || !strcmp(algo, "zstd") || !strcmp(algo, "zlib");
}

/* ipt_decompress - decompress src into exactly dlen bytes at dst */
int ipt_decompress(const char *algo, const uint8_t *src, size_t slen, uint8_t *dst,
		   size_t dlen, const char *path, long long off)
{
	if (!strcmp(algo, "zstd")) {
		size_t r = ZSTD_decompress(dst, dlen, src, slen);

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
