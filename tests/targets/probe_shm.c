/* SPDX-License-Identifier: MIT */
/*
 * Memory shared with a process outside the recorded one's family, for the
 * recorder's shared-memory watch (userspace/capture/shared_maps.h):
 *
 *   probe_shm writer KIND NAME   map the object writable and shared, print
 *                                "ready", store 1, 2, 3... into its first
 *                                word until killed (at most 60 s)
 *   probe_shm flasher KIND NAME  map the object writable and shared, store
 *                                1, 2, 3... into its first word, unmap it,
 *                                every 20 ms (mapped for microseconds: no
 *                                look at its maps finds it); "ready" first
 *   probe_shm mflasher KIND NAME the same (posix, file or rofile: a file), mapped
 *                                read-only shared from a writable descriptor
 *                                and made writable by mprotect
 *   probe_shm toggler KIND NAME  map the object (posix, file, rofile: a
 *                                file; sysv) read-only and shared (from a
 *                                writable descriptor; System V: attached
 *                                writable, then mprotect'ed read-only),
 *                                print "ready", then every 20 ms make it
 *                                writable (mprotect), store 1, 2, 3...
 *                                into its first word and make it read-only
 *                                again: every look finds it `r--s`
 *   probe_shm memwriter32 PID ADDR  the same by 32-bit system calls (int
 *                                0x80 pwrite64: x86-64 only)
 *   probe_shm compat             exit 0 where the kernel runs 32-bit
 *                                system calls (int 0x80 getpid in a child),
 *                                2 where it proves it runs none (the gate's
 *                                fault, or ENOSYS; said on stdout), 1 when
 *                                it cannot tell (x86-64 only)
 *   probe_shm memwriter PID ADDR store 1, 2, 3... into ADDR (hex) of
 *                                process PID through /proc/PID/mem until
 *                                it fails or 60 s passed; "ready" first
 *   probe_shm pwriter KIND NAME  open the object (posix or file) and
 *                                pwrite 1, 2, 3... into its first word
 *                                without mapping it, as writer does
 *   probe_shm reader KIND NAME   map it read-only shared and writable
 *                                private (a copy: its stores reach nobody),
 *                                print "ready", wait until killed
 *   probe_shm target KIND NAME N map it writable and shared, store -1 into
 *                                the first word (probed), then load it N
 *                                times (probed), 100 us apart
 *   probe_shm target private - N the same on private memory only
 *   probe_shm target rofile NAME N  the same on private memory, after
 *                                mapping the regular file NAME read-only
 *                                shared (never accessed through probes) and
 *                                opening an iconv converter (glibc maps its
 *                                gconv-modules.cache read-only shared)
 *   probe_shm target exposed - N the same on private memory, after
 *                                printing "word PID ADDRESS" (hex)
 *   probe_shm target selfmem - N the same on private memory, storing 1
 *                                into the word through /proc/self/mem
 *                                (no probe) after the probed -1
 *   probe_shm remapper NAME N    map the shm_open object NAME writable and
 *                                shared, print "ready", wait 1 s (looks see
 *                                it there), map it again elsewhere, unmap
 *                                the first, store -1 there and load it N
 *                                times (probed) and end at once: no look
 *                                sees the second mapping
 *   probe_shm vmwriter PID ADDR  store 1, 2, 3... into ADDR (hex) of process
 *                                PID with process_vm_writev until it fails
 *                                or 60 s passed; prints "ready" first
 *   probe_shm watched KIND NAME S  map it as target does (KIND also
 *                                private), print "word PID ADDRESS" (hex),
 *                                store -1 into the word (KIND rofile: the
 *                                file NAME, which must exist, opened
 *                                read-only and mapped shared, no store),
 *                                then load it every
 *                                100 us for S seconds: for `vsc record
 *                                --watch 0xADDRESS -p PID` (no probes
 *                                needed), started while it runs
 *   probe_shm target anon - N    the same on anonymous shared memory
 *                                (MAP_SHARED | MAP_ANONYMOUS) that nobody
 *                                else maps: no fork, no other process
 *   probe_shm contender KIND NAME  (KIND, NAME: not used) make a private page
 *                                of its own read-only and writable again
 *                                (mprotect) without pause, while two threads
 *                                map and unmap pages: the mappings are
 *                                locked when a hook on mprotect would look
 *                                at them; "ready" first, 60 s at most
 *   probe_shm orphan N           the same on anonymous shared memory, after
 *                                forking a child that forks a writer (as
 *                                above, "writer PID" on stdout) and ends: the
 *                                writer, handed to init, is no longer of
 *                                the target's family in /proc
 *
 * KIND: posix (shm_open NAME), file (the regular file NAME), sysv (System
 * V segment of key NAME, decimal). With a writer running, the target reads
 * values no recorded store wrote: a correct program whose trace alone is
 * not SC. With only a reader, the target reads its own -1 back.
 * Exit status 0, or 2 when the object cannot be had.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <iconv.h>
#include <locale.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "vsc/probe.h"

#define OBJECT_SIZE 4096

/* The object, mapped with prot and flags (MAP_SHARED or MAP_PRIVATE). */
static int64_t *map_object(const char *kind, const char *name, int prot, int flags)
{
	void *p = MAP_FAILED;
	int fd = -1;

	if (!strcmp(kind, "sysv")) {
		int id = shmget((key_t)atol(name), OBJECT_SIZE, IPC_CREAT | 0600);
		if (id < 0)
			return NULL;
		p = shmat(id, NULL, prot & PROT_WRITE ? 0 : SHM_RDONLY);
		return p == (void *)-1 ? NULL : p;
	}
	if (!strcmp(kind, "private"))
		p = mmap(NULL, OBJECT_SIZE, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	else if (!strcmp(kind, "anon"))
		p = mmap(NULL, OBJECT_SIZE, prot, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	else if (!strcmp(kind, "posix"))
		fd = shm_open(name, O_RDWR | O_CREAT, 0600);
	else if (!strcmp(kind, "file"))
		fd = open(name, O_RDWR | O_CREAT, 0600);
	if (fd >= 0 && ftruncate(fd, OBJECT_SIZE) == 0)
		p = mmap(NULL, OBJECT_SIZE, prot, flags, fd, 0);
	if (fd >= 0)
		close(fd);
	return p == MAP_FAILED ? NULL : p;
}

static void ready(void)
{
	printf("ready\n");
	fflush(stdout);
}

static int run_writer(const char *kind, const char *name)
{
	volatile int64_t *word = map_object(kind, name, PROT_READ | PROT_WRITE, MAP_SHARED);
	time_t end = time(NULL) + 60;

	if (!word)
		return 2;
	ready();
	for (int64_t i = 1; time(NULL) < end; i++)
		word[0] = i;
	return 0;
}

/* The existing object (posix or file) mapped read-only and shared from a
 * descriptor open for writing, then made writable by mprotect: the mmap
 * asks for no write permission, and nothing else is done to the object
 * (no ftruncate, which inotify would see). NULL when it fails. */
static int64_t *map_then_mprotect(const char *kind, const char *name)
{
	int fd = !strcmp(kind, "posix") ? shm_open(name, O_RDWR, 0) : open(name, O_RDWR);
	void *p = fd < 0 ? MAP_FAILED : mmap(NULL, OBJECT_SIZE, PROT_READ, MAP_SHARED, fd, 0);

	if (fd >= 0)
		close(fd);
	if (p != MAP_FAILED && mprotect(p, OBJECT_SIZE, PROT_READ | PROT_WRITE)) {
		munmap(p, OBJECT_SIZE);
		p = MAP_FAILED;
	}
	return p == MAP_FAILED ? NULL : p;
}

/* via_mprotect: map it by map_then_mprotect(). */
static int run_flasher(const char *kind, const char *name, int via_mprotect)
{
	struct timespec gap = { 0, 20000000 };
	time_t end = time(NULL) + 60;

	ready();
	for (int64_t i = 1; time(NULL) < end; i++) {
		volatile int64_t *word =
			via_mprotect ? map_then_mprotect(kind, name)
				     : map_object(kind, name, PROT_READ | PROT_WRITE, MAP_SHARED);
		if (!word)
			return 2;
		word[0] = i;
		if (!strcmp(kind, "sysv"))
			shmdt((void *)word);
		else
			munmap((void *)word, OBJECT_SIZE);
		nanosleep(&gap, NULL);
	}
	return 0;
}

/* Mapped read-only and shared, made writable only for each store. */
static int run_toggler(const char *kind, const char *name)
{
	struct timespec gap = { 0, 20000000 };
	time_t end = time(NULL) + 60;
	volatile int64_t *word;

	if (!strcmp(kind, "sysv")) {
		word = map_object(kind, name, PROT_READ | PROT_WRITE, MAP_SHARED);
		if (word && mprotect((void *)word, OBJECT_SIZE, PROT_READ))
			word = NULL;
	} else {
		word = map_then_mprotect(!strcmp(kind, "rofile") ? "file" : kind, name);
		if (word && mprotect((void *)word, OBJECT_SIZE, PROT_READ))
			word = NULL;
	}
	if (!word)
		return 2;
	ready();
	for (int64_t i = 1; time(NULL) < end; i++) {
		if (mprotect((void *)word, OBJECT_SIZE, PROT_READ | PROT_WRITE))
			return 2;
		word[0] = i;
		if (mprotect((void *)word, OBJECT_SIZE, PROT_READ))
			return 2;
		nanosleep(&gap, NULL);
	}
	return 0;
}

/* value into addr of process pid through /proc/PID/mem ("self": this
 * process); false when it fails. */
static bool mem_write(const char *pid, uint64_t addr, int64_t value)
{
	char path[64];
	int fd;
	bool done;

	snprintf(path, sizeof(path), "/proc/%s/mem", pid);
	fd = open(path, O_RDWR);
	done = fd >= 0 && pwrite(fd, &value, sizeof(value), (off_t)addr) == sizeof(value);
	if (fd >= 0)
		close(fd);
	return done;
}

#if defined(__x86_64__)
/* pwrite64 (181) as a 32-bit program makes it: int 0x80, the buffer below
 * 4 GiB, the offset in two halves. */
static long pwrite32(int fd, const void *buf, uint32_t len, uint64_t off)
{
	long ret;
	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(181L), "b"((long)fd), "c"((long)(uintptr_t)buf), "d"((long)len),
			   "S"((long)(uint32_t)off), "D"((long)(off >> 32))
			 : "memory", "r8", "r9", "r10", "r11");
	return ret;
}

static bool mem_write32(const char *pid, uint64_t addr, int64_t value)
{
	static int64_t *low;
	char path[64];
	int fd;
	bool done;

	if (!low) {
		low = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
		if (low == MAP_FAILED)
			return false;
	}
	*low = value;
	snprintf(path, sizeof(path), "/proc/%s/mem", pid);
	fd = open(path, O_RDWR);
	done = fd >= 0 && pwrite32(fd, low, sizeof(*low), addr) == sizeof(*low);
	if (fd >= 0)
		close(fd);
	return done;
}

/* Some kernels run no 32-bit system call (ia32 emulation off: int 0x80
 * raises a general protection fault at its own gate, and the caller gets
 * SIGSEGV), so no 32-bit writer can exist there and the test of one has
 * nothing to record. Asked in a child: int 0x80 getpid. Exit 0: it ran
 * (returned the pid); 2: refused, proven (the fault of vector 0x80 itself,
 * or -ENOSYS), said on stdout; 1: anything else (a probe that proves
 * nothing). */
static void compat_fault(int sig, siginfo_t *info, void *context)
{
	const greg_t *r = ((const ucontext_t *)context)->uc_mcontext.gregs;

	(void)sig;
	(void)info;
	/* #GP (13) with the error code of IDT entry 0x80 (vector << 3 | IDT bit) */
	_exit(r[REG_TRAPNO] == 13 && r[REG_ERR] == (0x80 << 3 | 2) ? 3 : 4);
}

static int run_compat(void)
{
	pid_t child = fork();
	int status;

	if (child == 0) {
		struct sigaction sa = { .sa_sigaction = compat_fault, .sa_flags = SA_SIGINFO };
		long ret;

		sigaction(SIGSEGV, &sa, NULL);
		__asm__ volatile("int $0x80" : "=a"(ret) : "a"(20L) : "memory"); /* getpid */
		_exit(ret == (long)getpid() ? 0 : ret == -ENOSYS ? 5 : 1);
	}
	if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status))
		return 1;
	switch (WEXITSTATUS(status)) {
	case 0:
		return 0;
	case 3:
		printf("int 0x80 raised a general protection fault at its gate (vector 0x80): "
		       "the kernel has no 32-bit system call entry\n");
		return 2;
	case 5:
		printf("int 0x80 getpid returned -ENOSYS: the kernel runs no 32-bit system call\n");
		return 2;
	default:
		printf("int 0x80 getpid: the child exited %d (4: SIGSEGV other than the gate's "
		       "fault)\n",
		       WEXITSTATUS(status));
		return 1;
	}
}
#endif

static int run_memwriter(const char *pid, uint64_t addr, bool compat)
{
	time_t end = time(NULL) + 60;

	ready();
	for (int64_t i = 1; time(NULL) < end; i++) {
#if defined(__x86_64__)
		if (compat ? !mem_write32(pid, addr, i) : !mem_write(pid, addr, i))
#else
		if (compat || !mem_write(pid, addr, i))
#endif
			return 0; /* it ended */
	}
	return 0;
}

static int run_pwriter(const char *kind, const char *name)
{
	int fd = !strcmp(kind, "posix") ? shm_open(name, O_RDWR | O_CREAT, 0600)
					: open(name, O_RDWR | O_CREAT, 0600);
	time_t end = time(NULL) + 60;

	if (fd < 0 || ftruncate(fd, OBJECT_SIZE))
		return 2;
	ready();
	for (int64_t i = 1; time(NULL) < end; i++)
		if (pwrite(fd, &i, sizeof(i), 0) != sizeof(i))
			return 2;
	return 0;
}

static int run_reader(const char *kind, const char *name)
{
	volatile int64_t *seen = map_object(kind, name, PROT_READ, MAP_SHARED);
	int64_t *copy = strcmp(kind, "sysv")
				? map_object(kind, name, PROT_READ | PROT_WRITE, MAP_PRIVATE)
				: NULL;

	if (!seen || (!copy && strcmp(kind, "sysv")))
		return 2;
	if (copy)
		copy[0] = 42; /* its own page from here on */
	ready();
	sleep(60);
	return seen[0] == 42; /* never: the copy is not the object */
}

/* Shared objects the target maps but never records an access to: a
 * read-only file (and glibc's gconv cache), then private memory. */
static int64_t *map_unrecorded(const char *name)
{
	static volatile const int64_t *file;

	setlocale(LC_ALL, "C.UTF-8");
	(void)iconv_open("UTF-16", "UTF-8"); /* kept open: the cache stays mapped */
	file = map_object("file", name, PROT_READ, MAP_SHARED);
	if (!file)
		return NULL;
	(void)file[0];
	return map_object("private", "-", PROT_READ | PROT_WRITE, MAP_PRIVATE);
}

static int run_target(const char *kind, const char *name, long n)
{
	bool exposed = !strcmp(kind, "exposed"), self = !strcmp(kind, "selfmem");
	int64_t *word = !strcmp(kind, "rofile") ? map_unrecorded(name)
			: exposed || self
				? map_object("private", "-", PROT_READ | PROT_WRITE, MAP_PRIVATE)
				: map_object(kind, name, PROT_READ | PROT_WRITE, MAP_SHARED);
	struct timespec gap = { 0, 100000 };

	if (!word)
		return 2;
	if (exposed) {
		printf("word %d %p\n", (int)getpid(), (void *)word);
		fflush(stdout);
	}
	vsc_store64(word, -1);
	if (self && !mem_write("self", (uint64_t)(uintptr_t)word, 1))
		return 2;
	for (long i = 0; i < n; i++) {
		(void)vsc_load64(word);
		nanosleep(&gap, NULL);
	}
	return 0;
}

/* The regular file NAME opened read-only and mapped shared: no mapping of
 * this descriptor can ever write it (not even after mprotect). */
static volatile int64_t *map_read_only(const char *name)
{
	int fd = open(name, O_RDONLY);
	void *p = fd < 0 ? MAP_FAILED : mmap(NULL, OBJECT_SIZE, PROT_READ, MAP_SHARED, fd, 0);

	if (fd >= 0)
		close(fd);
	return p == MAP_FAILED ? NULL : p;
}

static int run_watched(const char *kind, const char *name, long seconds)
{
	bool ro = !strcmp(kind, "rofile");
	volatile int64_t *word =
		ro ? map_read_only(name)
		: !strcmp(kind, "private")
			? map_object(kind, "-", PROT_READ | PROT_WRITE, MAP_PRIVATE)
			: map_object(kind, name, PROT_READ | PROT_WRITE, MAP_SHARED);
	struct timespec gap = { 0, 100000 };
	time_t end = time(NULL) + seconds;

	if (!word)
		return 2;
	printf("word %d %p\n", (int)getpid(), (void *)word);
	fflush(stdout);
	if (!ro)
		word[0] = -1;
	while (time(NULL) < end) {
		(void)word[0];
		nanosleep(&gap, NULL);
	}
	return 0;
}

static int run_vmwriter(long pid, uint64_t addr)
{
	time_t end = time(NULL) + 60;

	ready();
	for (int64_t i = 1; time(NULL) < end; i++) {
		struct iovec local = { &i, sizeof(i) };
		struct iovec remote = { (void *)(uintptr_t)addr, sizeof(i) };
		if (process_vm_writev((pid_t)pid, &local, 1, &remote, 1, 0) != sizeof(i))
			return 0; /* it ended */
	}
	return 0;
}

/* The grandchild: stores into word until killed (at most 60 s). */
static void orphan_writer(volatile int64_t *word)
{
	time_t end = time(NULL) + 60;

	printf("writer %d\n", (int)getpid());
	fflush(stdout);
	for (int64_t i = 1; time(NULL) < end; i++)
		word[0] = i;
	_exit(0);
}

static int run_orphan(long n)
{
	int64_t *word =
		mmap(NULL, OBJECT_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct timespec gap = { 0, 100000 };
	pid_t child;

	if (word == MAP_FAILED)
		return 2;
	vsc_store64(word, -1);
	child = fork();
	if (child == 0) {
		if (fork() == 0)
			orphan_writer(word);
		_exit(0);
	}
	if (child < 0 || waitpid(child, NULL, 0) != child)
		return 2;
	for (long i = 0; i < n; i++) {
		(void)vsc_load64(word);
		nanosleep(&gap, NULL);
	}
	return 0;
}

static int run_remapper(const char *name, long n)
{
	int64_t *first = map_object("posix", name, PROT_READ | PROT_WRITE, MAP_SHARED), *again;

	if (!first)
		return 2;
	ready();
	sleep(1);
	/* while the first is mapped: another address */
	again = map_object("posix", name, PROT_READ | PROT_WRITE, MAP_SHARED);
	munmap(first, OBJECT_SIZE);
	if (!again)
		return 2;
	vsc_store64(again, -1);
	for (long i = 0; i < n; i++)
		(void)vsc_load64(again);
	return 0;
}

/* contender: a thread that keeps the mappings' lock busy. */
static void *churn(void *arg)
{
	(void)arg;
	for (;;) {
		void *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p != MAP_FAILED)
			munmap(p, 4096);
	}
	return NULL;
}

static int run_contender(void)
{
	pthread_t t[2];
	char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (page == MAP_FAILED)
		return 2;
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, churn, NULL))
			return 2;
	ready();
	alarm(60);
	for (;;) {
		mprotect(page, 4096, PROT_READ);
		mprotect(page, 4096, PROT_READ | PROT_WRITE);
	}
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "writer"))
		return run_writer(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "vmwriter"))
		return run_vmwriter(atol(argv[2]), strtoull(argv[3], NULL, 16));
	if (argc == 4 && !strcmp(argv[1], "flasher"))
		return run_flasher(argv[2], argv[3], 0);
	if (argc == 4 && !strcmp(argv[1], "mflasher"))
		return run_flasher(argv[2], argv[3], 1);
	if (argc == 4 && !strcmp(argv[1], "toggler"))
		return run_toggler(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "memwriter"))
		return run_memwriter(argv[2], strtoull(argv[3], NULL, 16), false);
	if (argc == 4 && !strcmp(argv[1], "memwriter32"))
		return run_memwriter(argv[2], strtoull(argv[3], NULL, 16), true);
#if defined(__x86_64__)
	if (argc == 2 && !strcmp(argv[1], "compat"))
		return run_compat();
#endif
	if (argc == 4 && !strcmp(argv[1], "pwriter"))
		return run_pwriter(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "reader"))
		return run_reader(argv[2], argv[3]);
	if (argc == 4 && !strcmp(argv[1], "remapper"))
		return run_remapper(argv[2], atol(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "contender"))
		return run_contender();
	if (argc == 3 && !strcmp(argv[1], "orphan"))
		return run_orphan(atol(argv[2]));
	if (argc == 5 && !strcmp(argv[1], "watched"))
		return run_watched(argv[2], argv[3], atol(argv[4]));
	if (argc == 5 && !strcmp(argv[1], "target"))
		return run_target(argv[2], argv[3], atol(argv[4]));
	fprintf(stderr,
		"usage: probe_shm writer|flasher|mflasher|toggler|pwriter|reader|contender KIND NAME | vmwriter|memwriter|memwriter32 PID ADDR | compat | remapper NAME N | target KIND NAME N | watched KIND NAME S | orphan N\n"
		"  KIND: posix, file, sysv or (target only) private, anon, rofile, exposed, selfmem\n");
	return 2;
}
