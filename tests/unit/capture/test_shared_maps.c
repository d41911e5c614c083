/* SPDX-License-Identifier: MIT */
/* The shared-memory watch on this very process: which objects a recorded
 * address falls in, whether the address was recorded before or after the
 * object was seen mapped, to the page; only suspect objects that hold a
 * recorded address count; a write by a system call makes one suspect. The
 * sweep of other processes is held off. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "shared_maps.h"

#define PAGE 4096

/* A memfd of pages pages, mapped shared: a shareable object of its own. */
static char *map_memfd(const char *name, size_t pages)
{
	int fd = memfd_create(name, 0);
	char *p;

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)(pages * PAGE)), 0);
	p = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	assert_true(p != MAP_FAILED);
	return p;
}

/* The same, with a private page just below it (mapped first). */
static char *map_memfd_above_private(const char *name, size_t pages)
{
	char *below = mmap(NULL, (pages + 1) * PAGE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd = memfd_create(name, 0);
	char *p;

	assert_true(below != MAP_FAILED && fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)(pages * PAGE)), 0);
	p = mmap(below + PAGE, pages * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
	close(fd);
	assert_true(p == below + PAGE);
	return p;
}

/* The watched object mapped at p. */
static struct shared_object *object_at(struct shared_watch *sw, const char *p)
{
	for (size_t i = 0; i < sw->count; i++)
		for (size_t k = 0; k < sw->objects[i].range_count; k++)
			if (sw->objects[i].ranges[k].start == (uint64_t)(uintptr_t)p)
				return &sw->objects[i];
	fail_msg("no object mapped at %p", (void *)p);
	return NULL;
}

static void scan(struct shared_watch *sw)
{
	sw->sweep_after = UINT64_MAX; /* the target's maps only */
	shared_watch_scan(sw, false);
}

static void test_recorded_after_mapped(void **state)
{
	struct shared_watch sw;
	char *touched = map_memfd("vsc-touched", 2),
	     *untouched = map_memfd_above_private("vsc-untouched", 2);

	(void)state;
	shared_watch_init(&sw, getpid(), false);
	scan(&sw);
	shared_watch_recorded(&sw, (uint64_t)(uintptr_t)(touched + PAGE + 8), 8);
	/* the page before it, not in it (even with the longest access) */
	shared_watch_recorded(&sw, (uint64_t)(uintptr_t)(untouched - PAGE), 8);
	assert_true(shared_watch_holds_recorded(&sw, object_at(&sw, touched)));
	assert_false(shared_watch_holds_recorded(&sw, object_at(&sw, untouched)));
	/* nobody writes them: nothing counts */
	assert_int_equal(shared_watch_uncertain(&sw), 0);
	assert_null(shared_watch_why(&sw));
	/* suspect (as a sweep would find them): only the touched one counts */
	object_at(&sw, touched)->suspect = 1;
	object_at(&sw, untouched)->suspect = 2;
	assert_int_equal(shared_watch_uncertain(&sw), 1);
	shared_watch_free(&sw);
	munmap(touched, 2 * PAGE);
	munmap(untouched - PAGE, 3 * PAGE);
}

/* A recorded address in a mapping no look saw (made after the last one,
 * or made and dropped between two): it may have been a suspect object's,
 * mapped again elsewhere (a -p target that maps it anew and ends before
 * the next look: plain inconsistent on a correct program before), so
 * every suspect object counts. One in memory a look saw does not. */
static void test_recorded_where_no_look_saw(void **state)
{
	static int64_t word; /* the data segment: seen by every look */
	struct shared_watch sw;
	char *seen = map_memfd("vsc-seen", 1), *unseen;

	(void)state;
	shared_watch_init(&sw, getpid(), false);
	scan(&sw);
	object_at(&sw, seen)->suspect = 1;
	shared_watch_recorded(&sw, (uint64_t)(uintptr_t)&word, 8);
	assert_int_equal(shared_watch_uncertain(&sw), 0);
	unseen = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(unseen != MAP_FAILED);
	shared_watch_recorded(&sw, (uint64_t)(uintptr_t)unseen, 8);
	munmap(unseen, PAGE);
	assert_int_equal(shared_watch_uncertain(&sw), 1);
	assert_non_null(shared_watch_why(&sw));
	shared_watch_free(&sw);
	munmap(seen, PAGE);
}

/* An address recorded before the object was mapped there (or seen mapped:
 * scans are 200 ms apart) still counts. */
static void test_recorded_before_mapped(void **state)
{
	struct shared_watch sw;
	char *p = map_memfd("vsc-later", 4), *q = map_memfd("vsc-never", 1);

	(void)state;
	shared_watch_init(&sw, getpid(), false);
	shared_watch_recorded(&sw, (uint64_t)(uintptr_t)(p + 3 * PAGE), 4);
	scan(&sw);
	assert_true(shared_watch_holds_recorded(&sw, object_at(&sw, p)));
	assert_false(shared_watch_holds_recorded(&sw, object_at(&sw, q)));
	/* a range seen later: checked against the pages recorded before */
	munmap(q, PAGE);
	q = mmap(p + 3 * PAGE, PAGE, PROT_READ, MAP_SHARED | MAP_FIXED,
		 memfd_create("vsc-moved", 0), 0);
	assert_true(q != MAP_FAILED);
	scan(&sw);
	assert_true(shared_watch_holds_recorded(&sw, object_at(&sw, q)));
	shared_watch_free(&sw);
	munmap(p, 4 * PAGE);
}

/* Ranges that change at every look (here by mprotect, as malloc's large
 * blocks come and go) are joined once they have doubled: they stay few,
 * and what they cover is still known. */
static void test_known_ranges_joined(void **state)
{
	struct shared_watch sw;
	char *seen = map_memfd("vsc-seen", 1);
	char *area =
		mmap(NULL, 1024 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)state;
	assert_true(area != MAP_FAILED);
	shared_watch_init(&sw, getpid(), false);
	scan(&sw);
	object_at(&sw, seen)->suspect = 1;
	shared_watch_recorded(&sw, (uint64_t)(uintptr_t)(area + 700 * PAGE), 8);
	for (int i = 0; i < 1000; i++) {
		assert_int_equal(mprotect(area + (size_t)i * PAGE, PAGE, PROT_READ), 0);
		scan(&sw);
		assert_int_equal(mprotect(area + (size_t)i * PAGE, PAGE, PROT_READ | PROT_WRITE),
				 0);
	}
	assert_true(sw.known_compacted > 0);
	assert_true(sw.known.count < 2 * sw.known_compacted + 1024 + 64);
	assert_int_equal(shared_watch_uncertain(&sw), 0);
	shared_watch_free(&sw);
	munmap(area, 1024 * PAGE);
	munmap(seen, PAGE);
}

/* A write by a system call into a file the target maps shared (no
 * mapping of the writer's to see): the kernel says so, the object is
 * suspect with that reason. */
static void test_written_by_system_call(void **state)
{
	struct shared_watch sw;
	char path[] = "/tmp/vsc-test-shared-XXXXXX";
	int fd = mkstemp(path);
	int64_t one = 1;
	char *p;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, PAGE), 0);
	p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0);
	assert_true(p != MAP_FAILED);
	shared_watch_init(&sw, getpid(), false);
	scan(&sw);
	assert_true(object_at(&sw, p)->wd >= 0);
	assert_int_equal(object_at(&sw, p)->suspect, 0);
	assert_int_equal(pwrite(fd, &one, sizeof(one), 0), sizeof(one));
	scan(&sw);
	assert_true(object_at(&sw, p)->syscall_written);
	assert_int_not_equal(object_at(&sw, p)->suspect, 0);
	assert_non_null(strstr(object_at(&sw, p)->why, "was written by a system call"));
	shared_watch_recorded(&sw, (uint64_t)(uintptr_t)p, 8);
	assert_int_equal(shared_watch_uncertain(&sw), 1);
	assert_non_null(strstr(shared_watch_why(&sw), path));
	shared_watch_free(&sw);
	munmap(p, PAGE);
	close(fd);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recorded_after_mapped),
		cmocka_unit_test(test_recorded_before_mapped),
		cmocka_unit_test(test_recorded_where_no_look_saw),
		cmocka_unit_test(test_known_ranges_joined),
		cmocka_unit_test(test_written_by_system_call),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
