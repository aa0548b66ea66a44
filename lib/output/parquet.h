/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * out_parquet.h - IPI rows as Apache Parquet files
 *
 * A streaming writer: rows go into column pages as they come, pages are
 * encoded (and zstd-compressed) as soon as they fill up, and a row group is
 * written out when it holds row_group_rows rows or row_group_bytes encoded
 * bytes, so memory stays bounded by one row group whatever the row count.
 * The file appears (is renamed into place) only when it is complete.
 *
 * Columns, in order (the CSV's):
 *   ts_ns        INT64   TIMESTAMP(isAdjustedToUTC=false, NANOS) when the
 *                        trace clock counts nanoseconds, else plain INT64;
 *                        trace clock time, not wall clock
 *   id           INT64
 *   src_cpu      INT32
 *   target_cpu   INT32   (!explode: targets, LIST<INT32>, 3-level encoding)
 *   ntargets     INT32
 *   pid          INT32
 *   comm, event, kind                          STRING, required
 *   callsite, callback, func                   STRING "0x..." as in the CSV
 *   callsite_sym ("sym+0xoff"), callback_sym, func_sym, reason
 *                                              STRING, NULL when unknown
 * Strings are dictionary encoded (PLAIN_DICTIONARY), integers PLAIN, levels
 * RLE; data pages are v1; every column chunk has min/max/null_count.
 */
#ifndef IPT_OUT_PARQUET_H
#define IPT_OUT_PARQUET_H

#include "core/core.h"

enum ipt_pq_codec {
	IPT_PQ_UNCOMPRESSED = 0,	/* Parquet CompressionCodec values */
	IPT_PQ_ZSTD = 6,
};

struct ipt_parquet_opts {
	bool explode;			/* target_cpu (true) or a targets list */
	enum ipt_pq_codec codec;
	int zstd_level;			/* 0: 3 */
	uint64_t row_group_rows;	/* 0: 1048576 */
	uint64_t row_group_bytes;	/* encoded bytes; 0: 64 MiB */
	uint32_t page_rows;		/* rows per data page; 0: 32768 */
	bool ts_is_ns;			/* annotate ts_ns as TIMESTAMP(NANOS) */
	bool numbered;			/* path is a directory (created if needed):
					 * the file becomes path/part-<n>.parquet
					 * with the lowest n not yet taken */
	/* key/value metadata stored in the footer (NULL: left out) */
	const char *source, *clock, *kernel;
};

struct ipt_parquet_writer;

/* path "-": standard output.  NULL on error (ipt_errmsg). */
struct ipt_parquet_writer *ipt_parquet_open(const char *path, const struct ipt_parquet_opts *opts);
/* Add one row (rows of one trace: symbol strings are cached by address).
 * With !explode the row stands for its whole send event (row->targets). */
int ipt_parquet_add(struct ipt_parquet_writer *w, const struct ipt_ipi_row *row);
/* Finish the file and move it into place; frees w.  -1 on error (the
 * partial file is removed). */
int ipt_parquet_close(struct ipt_parquet_writer *w);
/* Drop the partial file; frees w (NULL accepted). */
void ipt_parquet_abort(struct ipt_parquet_writer *w);
/* Rows added so far. */
uint64_t ipt_parquet_rows(const struct ipt_parquet_writer *w);

/* ---- for `ipitrace convert` ---- */

/*
 * Whether the convert options ask for Parquet: --format parquet, an OUT
 * ending in .parquet, or --partition-by.  1 yes, 0 no, -1 when they
 * contradict each other or are invalid (ipt_errmsg says why): compression
 * must be none or zstd, partition keys host and/or date.
 */
int ipt_parquet_wanted(const char *fmt, const char *out, const char *compression,
		       const char *partition_by);

/*
 * The partition directory of trace t under base for keys ("host",
 * "host,date", ...): base/host=<uname nodename>/date=<YYYY-MM-DD>.  host is
 * the second word of the trace's uname ("unknown" if none); date is the
 * trace file's modification time in UTC (trace.dat files hold no wall-clock
 * date).  Values are escaped as Hive does (%XX).  Caller frees.
 */
char *ipt_parquet_partition_dir(struct ipt_trace *t, const char *base, const char *by);

/*
 * The whole conversion: every row of it into out (one row per send event
 * when !explode), compression "none"/"zstd" (NULL: zstd); with partition_by,
 * out is the dataset's root directory and the file goes to
 * out/<partition>/part-<n>.parquet.
 */
int ipt_parquet_convert(struct ipt_trace *t, struct ipt_ipi_iter *it, const char *out,
			bool explode, const char *compression, const char *partition_by);

#endif
