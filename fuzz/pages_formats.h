/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pages_formats.h - the fixed trace layout of fuzz_pages: header_page texts,
 * event formats (the x86_64 and arm64 IPI, csd, irq_vectors, sched and
 * kernel_stack formats of a 6.8 kernel, plus one event with every dynamic
 * field kind), kallsyms, printk strings and cmdlines.  Shared with
 * pages2dat.c, which turns a fuzz_pages input into a trace.dat.
 *
 * fuzz_pages input: one flag byte, then the stream bytes.
 *   bit 0    big endian
 *   bit 1    4-byte kernel long (header_page with a 4-byte commit word)
 *   bits 2-3 sub-buffer size: 4096, 256, 1024, 64
 *   bit 4    two CPU streams (0 and 2), the bytes split in halves
 */
#ifndef FUZZ_PAGES_FORMATS_H
#define FUZZ_PAGES_FORMATS_H

#define COMMON \
	"format:\n" \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

#define VECTOR(NAME, ID) \
	{ "irq_vectors", "name: " NAME "\nID: " #ID "\n" COMMON \
	  "\tfield:int vector;\toffset:8;\tsize:4;\tsigned:1;\n\n" \
	  "print fmt: \"vector=%d\", REC->vector\n" }

static const struct { const char *system, *text; } formats[] = {
	{ "ipi", "name: ipi_send_cpumask\nID: 353\n" COMMON
	  "\tfield:__data_loc cpumask_t cpumask;\toffset:8;\tsize:4;\tsigned:0;\n"
	  "\tfield:void * callsite;\toffset:16;\tsize:8;\tsigned:0;\n"
	  "\tfield:void * callback;\toffset:24;\tsize:8;\tsigned:0;\n\n"
	  "print fmt: \"cpumask=%s callsite=%pS callback=%pS\", __get_cpumask(cpumask), REC->callsite, REC->callback\n" },
	{ "ipi", "name: ipi_send_cpu\nID: 354\n" COMMON
	  "\tfield:unsigned int cpu;\toffset:8;\tsize:4;\tsigned:0;\n"
	  "\tfield:void * callsite;\toffset:16;\tsize:8;\tsigned:0;\n"
	  "\tfield:void * callback;\toffset:24;\tsize:8;\tsigned:0;\n\n"
	  "print fmt: \"cpu=%u callsite=%pS callback=%pS\", REC->cpu, REC->callsite, REC->callback\n" },
	{ "ipi", "name: ipi_raise\nID: 350\n" COMMON
	  "\tfield:__data_loc unsigned long[] target_cpus;\toffset:8;\tsize:4;\tsigned:0;\n"
	  "\tfield:const char * reason;\toffset:16;\tsize:8;\tsigned:0;\n\n"
	  "print fmt: \"target_mask=%s (%s)\", __get_bitmask(target_cpus), REC->reason\n" },
	{ "ipi", "name: ipi_entry\nID: 351\n" COMMON
	  "\tfield:const char * reason;\toffset:8;\tsize:8;\tsigned:0;\n\n"
	  "print fmt: \"(%s)\", REC->reason\n" },
	{ "ipi", "name: ipi_exit\nID: 352\n" COMMON
	  "\tfield:const char * reason;\toffset:8;\tsize:8;\tsigned:0;\n\n"
	  "print fmt: \"(%s)\", REC->reason\n" },
	{ "csd", "name: csd_queue_cpu\nID: 529\n" COMMON
	  "\tfield:unsigned int cpu;\toffset:8;\tsize:4;\tsigned:0;\n"
	  "\tfield:void * callsite;\toffset:16;\tsize:8;\tsigned:0;\n"
	  "\tfield:void * func;\toffset:24;\tsize:8;\tsigned:0;\n"
	  "\tfield:void * csd;\toffset:32;\tsize:8;\tsigned:0;\n\n"
	  "print fmt: \"cpu=%u callsite=%pS func=%ps csd=%p\", REC->cpu, REC->callsite, REC->func, REC->csd\n" },
	{ "csd", "name: csd_function_entry\nID: 528\n" COMMON
	  "\tfield:void * func;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:void * csd;\toffset:16;\tsize:8;\tsigned:0;\n\n"
	  "print fmt: \"func=%ps, csd=%p\", REC->func, REC->csd\n" },
	{ "csd", "name: csd_function_exit\nID: 527\n" COMMON
	  "\tfield:void * func;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:void * csd;\toffset:16;\tsize:8;\tsigned:0;\n\n"
	  "print fmt: \"func=%ps, csd=%p\", REC->func, REC->csd\n" },
	VECTOR("call_function_exit", 152),
	VECTOR("call_function_entry", 153),
	VECTOR("reschedule_exit", 154),
	VECTOR("reschedule_entry", 155),
	VECTOR("call_function_single_exit", 150),
	VECTOR("call_function_single_entry", 151),
	VECTOR("irq_work_exit", 156),
	VECTOR("irq_work_entry", 157),
	VECTOR("local_timer_entry", 165),
	{ "sched", "name: sched_switch\nID: 372\n" COMMON
	  "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	  "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	  "\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	  "\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	  "\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	  "\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	  "\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
	  "print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d next_prio=%d\", "
	  "REC->prev_comm, REC->prev_pid, REC->prev_prio, (REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)) ? "
	  "__print_flags(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1), \"|\", "
	  "{ 0x00000001, \"S\" }, { 0x00000002, \"D\" }, { 0x00000004, \"T\" }, { 0x00000008, \"t\" }, { 0x00000010, \"X\" }, { 0x00000020, \"Z\" }, { 0x00000040, \"P\" }, { 0x00000080, \"I\" }) : \"R\", "
	  "REC->prev_state & (((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) ? \"+\" : \"\", "
	  "REC->next_comm, REC->next_pid, REC->next_prio\n" },
	{ "sched", "name: sched_wakeup\nID: 374\n" COMMON
	  "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	  "\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	  "\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	  "\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n\n"
	  "print fmt: \"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, REC->pid, REC->prio, REC->target_cpu\n" },
	{ "ftrace", "name: kernel_stack\nID: 4\n" COMMON
	  "\tfield:int size;\toffset:8;\tsize:4;\tsigned:1;\n"
	  "\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n\n"
	  "print fmt: \"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\" \"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\" \"\\t=> %ps\\n\\t=> %ps\\n\", "
	  "(void *)REC->caller[0], (void *)REC->caller[1], (void *)REC->caller[2], (void *)REC->caller[3], "
	  "(void *)REC->caller[4], (void *)REC->caller[5], (void *)REC->caller[6], (void *)REC->caller[7]\n" },
	/* every dynamic and array kind in one event */
	{ "fuzz", "name: fuzz_all\nID: 7\n" COMMON
	  "\tfield:__data_loc char[] name;\toffset:8;\tsize:4;\tsigned:0;\n"
	  "\tfield:__rel_loc char[] rel;\toffset:12;\tsize:4;\tsigned:0;\n"
	  "\tfield:__data_loc unsigned long[] bits;\toffset:16;\tsize:4;\tsigned:0;\n"
	  "\tfield:__data_loc u8[] raw;\toffset:20;\tsize:4;\tsigned:0;\n"
	  "\tfield:short s;\toffset:24;\tsize:2;\tsigned:1;\n"
	  "\tfield:u8 arr[6];\toffset:26;\tsize:6;\tsigned:0;\n"
	  "\tfield:cpumask_t mask;\toffset:32;\tsize:16;\tsigned:0;\n"
	  "\tfield:char buf[];\toffset:48;\tsize:0;\tsigned:0;\n\n"
	  "print fmt: \"name=%s rel=%s bits=%s raw=%s s=%d arr=%s mask=%s buf=%s\", __get_str(name), __get_rel_str(rel), "
	  "__get_bitmask(bits), __print_hex(__get_dynamic_array(raw), __get_dynamic_array_len(raw)), REC->s, "
	  "__print_array(REC->arr, 6, 1), __get_cpumask(mask), REC->buf\n" },
};

static const char header_page8[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
static const char header_page4[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:12;\tsize:4084;\tsigned:0;\n";

static const char kallsyms[] =
	"ffffffff8134ae80 t flush_tlb_func\n"
	"ffffffff8134b1e0 t __pfx_enter_lazy_tlb\n"
	"ffffffff813ac910 t ttwu_queue_wakelist\n"
	"ffffffff813aca60 t __pfx_trace_event_raw_event_sched_process_exec\n"
	"ffffffff813af910 t wakeup_preempt\n"
	"ffffffff813af9b0 t __pfx_wait_task_inactive\n"
	"ffffffff813b4440 t sched_ttwu_pending\n"
	"ffffffff813b45c0 t __pfx_try_to_wake_up\n"
	"ffffffff81450a50 t generic_smp_call_function_single_interrupt\n"
	"ffffffff81450a60 t __pfx_smpcfd_prepare_cpu\n"
	"ffffffff81450000 t smp_call_function_many_cond\n"
	"0000000000001000 t low_sym\n"
	"ffffffffffffff00 t top_sym [mod]\n";
static const char printk[] =
	"0xffffffff82000000 : \"Rescheduling interrupts\"\n"
	"0xffffffff82000020 : \"Function call interrupts\"\n"
	"0x0000000000000010 : \"low\"\n";
static const char cmdlines[] =
	"26181 git\n26182 fx-storm\n1531 memfd:sealed-91\n26136 bash\n21 migration/1\n1 init\n";

static const unsigned int page_sizes[4] = { 4096, 256, 1024, 64 };

#endif
