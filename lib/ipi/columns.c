// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * columns.c - the columns of the IPI rows: the one description that the
 * CSV and JSON lines writers (output/rows.c), Parquet (output/parquet*.c)
 * and Python's rows() follow (declared in ipitrace.h)
 */
#include "core/core.h"

static const struct ipt_row_column_info columns[IPT_COL__COUNT] = {
	[IPT_COL_TS_NS] = { "ts_ns", IPT_COLTYPE_INT64, false, false,
			    "time of the send event (the trace clock; ns unless it says otherwise)" },
	[IPT_COL_ID] = { "id", IPT_COLTYPE_INT64, false, false,
			 "sequence number of the send event: the rows of one multicast share it" },
	[IPT_COL_SRC_CPU] = { "src_cpu", IPT_COLTYPE_INT32, false, false, "the CPU that sent the IPI" },
	[IPT_COL_TARGET_CPU] = { "target_cpu", IPT_COLTYPE_INT32, false, false,
				 "the CPU it was sent to (not exploded: targets, the event's CPUs)" },
	[IPT_COL_NTARGETS] = { "ntargets", IPT_COLTYPE_INT32, false, false, "CPUs in the send event's mask" },
	[IPT_COL_PID] = { "pid", IPT_COLTYPE_INT32, false, false, "the sending task" },
	[IPT_COL_COMM] = { "comm", IPT_COLTYPE_STRING, false, false, "its name" },
	[IPT_COL_EVENT] = { "event", IPT_COLTYPE_STRING, false, false,
			    "the send event: ipi_send_cpu, ipi_send_cpumask, ipi_raise, a probe" },
	[IPT_COL_KIND] = { "kind", IPT_COLTYPE_STRING, false, false,
			   "resched, wakeup, call, tlb, irq_work, membarrier, timer, stop or other" },
	[IPT_COL_CALLSITE] = { "callsite", IPT_COLTYPE_ADDRESS, false, false, "where the IPI was sent from" },
	[IPT_COL_CALLSITE_SYM] = { "callsite_sym", IPT_COLTYPE_STRING, true, false, "its symbol, sym+0xoff" },
	[IPT_COL_CALLBACK] = { "callback", IPT_COLTYPE_ADDRESS, false, false,
			       "the IPI's callback (0: none, a reschedule)" },
	[IPT_COL_CALLBACK_SYM] = { "callback_sym", IPT_COLTYPE_STRING, true, false, "its symbol" },
	[IPT_COL_FUNC] = { "func", IPT_COLTYPE_ADDRESS, false, false,
			   "the function really run on the target (the csd queued before the send; 0: unknown)" },
	[IPT_COL_FUNC_SYM] = { "func_sym", IPT_COLTYPE_STRING, true, false, "its symbol" },
	[IPT_COL_REASON] = { "reason", IPT_COLTYPE_STRING, true, false, "arm64 ipi_raise's reason" },
	[IPT_COL_LAT_NS] = { "lat_ns", IPT_COLTYPE_INT64, true, true,
			     "send to the entry of the interrupt that served it, ns" },
	[IPT_COL_HANDLER_NS] = { "handler_ns", IPT_COLTYPE_INT64, true, true,
				 "that interrupt's entry to exit, ns" },
	[IPT_COL_HANDLER_TS_NS] = { "handler_ts_ns", IPT_COLTYPE_INT64, true, true,
				    "the time of that entry (the trace clock)" },
	[IPT_COL_MATCHED] = { "matched", IPT_COLTYPE_BOOL, true, true,
			      "an interrupt on the target served the send" },
	[IPT_COL_COALESCED] = { "coalesced", IPT_COLTYPE_BOOL, true, true,
				"it was served by an interrupt raised for an earlier send" },
	[IPT_COL_UNMATCHED_REASON] = { "unmatched_reason", IPT_COLTYPE_STRING, true, true,
				       "why no interrupt was found: trace_ended, no_receive_events, "
				       "lost_events, no_handler" },
	[IPT_COL_CALLSITE_FUNC] = { "callsite_func", IPT_COLTYPE_STRING, true, false,
				    "the call site's function, without +0x.." },
	[IPT_COL_FUNC_NAME] = { "func_name", IPT_COLTYPE_STRING, true, false,
				"the function run on the target: func's symbol, else the callback's" },
	[IPT_COL_STACK] = { "stack", IPT_COLTYPE_STRINGS, true, true,
			    "the sender's kernel stack, leaf first, tracing frames trimmed" },
};

const struct ipt_row_column_info *ipt_row_column(enum ipt_row_column c)
{
	return (unsigned int)c < IPT_COL__COUNT ? &columns[c] : NULL;
}
