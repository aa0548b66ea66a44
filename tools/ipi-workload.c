// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ipi-workload.c - produce known IPIs on demand and say what was done
 *
 *   ipi-workload [--rate R] [--cpus A,B] pingpong N
 *	pipe ping-pong between a thread on CPU A and one on CPU B, N round
 *	trips: remote wakeups (ttwu_queue_wakelist + csd sched_ttwu_pending)
 *	and reschedule IPIs (wakeup_preempt), about one of each per trip.
 *   ipi-workload [--rate R] [--cpus A,B[,C...]] membarrier N
 *	N membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) from CPU A while a
 *	thread of the process spins on CPU B (and on C...: one thread on each
 *	CPU after A, for IPIs to several CPUs at once): ipi_mb function-call
 *	IPIs.
 *   ipi-workload [--rate R] [--cpus A,B[,C...]] tlb N
 *	N rounds of mmap/touch/mprotect/munmap on CPU A while a thread spins
 *	on CPU B (and C...).  On VMs whose hypervisor flushes remote TLBs
 *	itself (the machines this project runs on) this yields no remote TLB
 *	IPIs.
 *
 * One summary line goes to stdout, e.g. "pingpong: 1000 round trips
 * cpu0<->cpu1 (0.052 s)".  Exit 0 on success, 1 on error, 2 on bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <stdint.h>
#include <unistd.h>

#define MAX_SPIN 256

struct workload {
	long n;			/* operations */
	double rate;		/* operations per second, 0 = as fast as possible */
	int cpu_a, cpu_b;
	int spin_cpu[MAX_SPIN];	/* the spinners' CPUs: B, then C... */
	int nspin;
	atomic_int started;	/* spinners running (or failed) */
	int ping[2], pong[2];	/* pingpong pipes */
	atomic_int spinning;	/* spinners that reached their CPU */
	atomic_bool done;
	struct timespec next;	/* pacing */
};

/* usage - print the help text */
static void usage(FILE *f)
{
	fprintf(f,
		"usage: ipi-workload [--rate R] [--cpus A,B] MODE N\n"
		"\n"
		"Produce known IPIs and print one summary line on stdout.\n"
		"\n"
		"Modes:\n"
		"  pingpong N    N pipe round trips between threads pinned to CPU A and B:\n"
		"                remote wakeups (csd sched_ttwu_pending) and reschedule IPIs\n"
		"  membarrier N  N membarrier(PRIVATE_EXPEDITED) on CPU A while a thread\n"
		"                spins on CPU B (and C...): ipi_mb function-call IPIs\n"
		"  tlb N         N mmap/mprotect/munmap rounds on CPU A with a thread on B\n"
		"                (and C...); on VMs whose hypervisor flushes remote TLBs:\n"
		"                no TLB IPIs\n"
		"\n"
		"Options:\n"
		"  --rate R      pace to R operations per second (default: full speed)\n"
		"  --cpus A,B[,C...]  CPU A and the others (default 0,1); membarrier and\n"
		"                tlb spin a thread on each CPU after A\n"
		"  -h, --help    this text\n");
}

/* now_s - monotonic time in seconds */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* pin - bind the calling thread to one CPU */
static int pin(int cpu)
{
	cpu_set_t set;
	int err;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (err) {
		fprintf(stderr, "ipi-workload: cannot run on CPU %d: %s\n", cpu, strerror(err));
		return -1;
	}
	return 0;
}

/* pace - with --rate, sleep until the next operation is due */
static void pace(struct workload *w)
{
	long step;

	if (w->rate <= 0)
		return;
	if (!w->next.tv_sec)
		clock_gettime(CLOCK_MONOTONIC, &w->next);
	step = (long)(1e9 / w->rate);
	w->next.tv_nsec += step % 1000000000L;
	w->next.tv_sec += step / 1000000000L + w->next.tv_nsec / 1000000000L;
	w->next.tv_nsec %= 1000000000L;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &w->next, NULL) == EINTR)
		;
}

/* xfer - write or read one byte on a pipe */
static int xfer(int fd, bool out)
{
	char b = 'x';
	ssize_t r;

	do
		r = out ? write(fd, &b, 1) : read(fd, &b, 1);
	while (r < 0 && errno == EINTR);
	return r == 1 ? 0 : -1;
}

/* pong_main - the CPU B side of the ping-pong */
static void *pong_main(void *arg)
{
	struct workload *w = arg;

	if (pin(w->cpu_b))
		goto fail;
	for (long i = 0; i < w->n; i++)
		if (xfer(w->ping[0], false) || xfer(w->pong[1], true))
			goto fail;
	return NULL;
fail:
	close(w->pong[1]);	/* the CPU A side sees end of file */
	return (void *)1;
}

/* run_pingpong - N round trips between CPU A and CPU B */
static int run_pingpong(struct workload *w)
{
	pthread_t th;
	void *ret = NULL;
	double t0;
	int err = 0;

	if (pipe(w->ping) || pipe(w->pong)) {
		perror("ipi-workload: pipe");
		return 1;
	}
	if (pin(w->cpu_a))
		return 1;
	if (pthread_create(&th, NULL, pong_main, w)) {
		fprintf(stderr, "ipi-workload: cannot start a thread\n");
		return 1;
	}
	t0 = now_s();
	for (long i = 0; i < w->n && !err; i++) {
		pace(w);
		err = xfer(w->ping[1], true) || xfer(w->pong[0], false);
	}
	if (err)
		close(w->ping[1]);	/* let the other side end */
	pthread_join(th, &ret);
	if (err || ret) {
		fprintf(stderr, "ipi-workload: pingpong: pipe transfer failed\n");
		return 1;
	}
	printf("pingpong: %ld round trips cpu%d<->cpu%d (%.3f s)\n", w->n, w->cpu_a, w->cpu_b,
	       now_s() - t0);
	return 0;
}

/*
 * cpu_relax - the spin-wait hint (x86 PAUSE, arm64 YIELD), as the kernel's
 * own spin loops use.  Under qemu's single-threaded TCG, which runs every
 * vCPU in turn on one host thread, the hint ends the vCPU's turn: without
 * it a spinner keeps its vCPU for the whole 100 ms time slice, and a
 * membarrier to 31 spinning CPUs took 4 s (tests/qemu/init.sh).  The
 * thread still runs on its CPU, so the IPIs sent to it are the same.
 */
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("pause" ::: "memory");
#elif defined(__aarch64__) || defined(__arm__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

/* spin_main - keep this process running on one spinner CPU until done */
static void *spin_main(void *arg)
{
	struct workload *w = arg;
	int me = atomic_fetch_add(&w->started, 1);

	if (pin(w->spin_cpu[me])) {
		atomic_store(&w->done, true);
		atomic_fetch_add(&w->spinning, 1);
		return (void *)1;
	}
	/* membarrier interrupts only the CPUs where a thread of the process
	 * is current: on a machine busy with other work (the other test jobs)
	 * the spinner is preempted and draws fewer IPIs.  A higher weight
	 * (nice -10, root only; ignored otherwise) keeps it current. */
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), -10);
	atomic_fetch_add(&w->spinning, 1);
	while (!atomic_load_explicit(&w->done, memory_order_relaxed))
		cpu_relax();
	return NULL;
}

/* start_spinner - start a spinner on each spinner CPU, wait until all run */
static int start_spinner(struct workload *w, pthread_t *th)
{
	int i;

	for (i = 0; i < w->nspin; i++)
		if (pthread_create(&th[i], NULL, spin_main, w)) {
			fprintf(stderr, "ipi-workload: cannot start a thread\n");
			atomic_store(&w->done, true);
			break;
		}
	while (atomic_load(&w->spinning) < i)
		sched_yield();
	if (atomic_load(&w->done)) {
		while (i-- > 0)
			pthread_join(th[i], NULL);
		return -1;
	}
	return 0;
}

/* stop_spinner - end the spinners */
static void stop_spinner(struct workload *w, pthread_t *th)
{
	atomic_store(&w->done, true);
	for (int i = 0; i < w->nspin; i++)
		pthread_join(th[i], NULL);
}

/* membarrier_call - the membarrier(2) system call (not inlined, and the
 * program built with frame pointers: user stacks of its sends then show
 * run_membarrier, the caller, see `record --user-stacks`) */
static __attribute__((noinline)) int membarrier_call(int cmd)
{
	return (int)syscall(__NR_membarrier, cmd, 0, 0);
}

/* run_membarrier - N private expedited barriers with a thread on CPU B */
static int run_membarrier(struct workload *w)
{
	pthread_t th[MAX_SPIN];
	double t0;
	long i;

	if (membarrier_call(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED)) {
		fprintf(stderr, "ipi-workload: membarrier(REGISTER_PRIVATE_EXPEDITED): %s\n",
			strerror(errno));
		return 1;
	}
	if (pin(w->cpu_a) || start_spinner(w, th))
		return 1;
	/* for tests that check user stacks: where this function is, as run */
	if (getenv("IPI_WORKLOAD_PRINT_ADDR"))
		fprintf(stderr, "addr run_membarrier %p pid %d\n", (void *)(uintptr_t)run_membarrier,
			(int)getpid());
	t0 = now_s();
	for (i = 0; i < w->n; i++) {
		pace(w);
		if (membarrier_call(MEMBARRIER_CMD_PRIVATE_EXPEDITED))
			break;
	}
	stop_spinner(w, th);
	if (i < w->n) {
		fprintf(stderr, "ipi-workload: membarrier(PRIVATE_EXPEDITED): %s\n",
			strerror(errno));
		return 1;
	}
	printf("membarrier: %ld private expedited barriers cpu%d -> cpu%d%s (%.3f s)\n", w->n,
	       w->cpu_a, w->cpu_b, w->nspin > 1 ? " and more" : "", now_s() - t0);
	return 0;
}

/* tlb_round - map, touch, write-protect and unmap one page */
static int tlb_round(long page)
{
	char *p = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -1;
	p[0] = 1;
	if (mprotect(p, (size_t)page, PROT_READ) || munmap(p, (size_t)page))
		return -1;
	return 0;
}

/* run_tlb - N unmap/mprotect rounds with a thread of the process on CPU B */
static int run_tlb(struct workload *w)
{
	long page = sysconf(_SC_PAGESIZE);
	pthread_t th[MAX_SPIN];
	double t0;
	long i;

	if (pin(w->cpu_a) || start_spinner(w, th))
		return 1;
	t0 = now_s();
	for (i = 0; i < w->n; i++) {
		pace(w);
		if (tlb_round(page))
			break;
	}
	stop_spinner(w, th);
	if (i < w->n) {
		fprintf(stderr, "ipi-workload: tlb: mmap/mprotect/munmap: %s\n", strerror(errno));
		return 1;
	}
	printf("tlb: %ld mprotect+munmap rounds on cpu%d with a thread on cpu%d (%.3f s); "
	       "no remote TLB IPIs expected where the hypervisor flushes remote TLBs\n",
	       w->n, w->cpu_a, w->cpu_b, now_s() - t0);
	return 0;
}

/* parse_cpus - "A,B[,C...]": A, then the spinners' CPUs (B first) */
static int parse_cpus(struct workload *w, const char *s)
{
	char *end;
	long v;
	int n = 0;

	for (;;) {
		v = strtol(s, &end, 10);
		if (end == s || v < 0 || v >= CPU_SETSIZE || n > MAX_SPIN)
			return -1;
		if (n == 0)
			w->cpu_a = (int)v;
		else
			w->spin_cpu[n - 1] = (int)v;
		for (int i = 0; i < n; i++)
			if ((i == 0 ? w->cpu_a : w->spin_cpu[i - 1]) == (int)v)
				return -1;
		n++;
		if (!*end)
			break;
		if (*end != ',')
			return -1;
		s = end + 1;
	}
	if (n < 2)
		return -1;
	w->nspin = n - 1;
	w->cpu_b = w->spin_cpu[0];
	return 0;
}

/* parse_args - options and MODE N; returns the mode name or NULL */
static const char *parse_args(struct workload *w, int argc, char **argv, int *rc)
{
	static const struct option opts[] = {
		{ "rate", required_argument, NULL, 'r' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int o;

	*rc = 2;
	while ((o = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (o) {
		case 'r':
			w->rate = strtod(optarg, &end);
			if (*end || w->rate <= 0) {
				fprintf(stderr, "ipi-workload: bad --rate '%s'\n", optarg);
				return NULL;
			}
			break;
		case 'c':
			if (parse_cpus(w, optarg)) {
				fprintf(stderr, "ipi-workload: bad --cpus '%s' (want A,B[,C...])\n", optarg);
				return NULL;
			}
			break;
		case 'h':
			usage(stdout);
			*rc = 0;
			return NULL;
		default:
			usage(stderr);
			return NULL;
		}
	}
	if (argc - optind != 2) {
		usage(stderr);
		return NULL;
	}
	w->n = strtol(argv[optind + 1], &end, 10);
	if (*end || w->n <= 0) {
		fprintf(stderr, "ipi-workload: bad count '%s'\n", argv[optind + 1]);
		return NULL;
	}
	return argv[optind];
}

/* main - parse the arguments and run one mode */
int main(int argc, char **argv)
{
	struct workload w;
	const char *mode;
	int rc;

	memset(&w, 0, sizeof(w));
	w.cpu_b = 1;
	w.spin_cpu[0] = 1;
	w.nspin = 1;
	atomic_init(&w.started, 0);
	atomic_init(&w.spinning, 0);
	atomic_init(&w.done, false);
	mode = parse_args(&w, argc, argv, &rc);
	if (!mode)
		return rc;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "pingpong"))
		return run_pingpong(&w);
	if (!strcmp(mode, "membarrier"))
		return run_membarrier(&w);
	if (!strcmp(mode, "tlb"))
		return run_tlb(&w);
	fprintf(stderr, "ipi-workload: unknown mode '%s' (pingpong, membarrier, tlb)\n", mode);
	return 2;
}
