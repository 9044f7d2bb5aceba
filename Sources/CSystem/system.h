/* System calls the engine uses that Swift's Glibc module leaves out: glibc declares them only
 * under _GNU_SOURCE, which that module is not built with; and one constant Swift cannot make
 * without a lazily initialized global. Static inline: nothing is linked, and libreshape exports
 * nothing new. */
#ifndef RESHAPE_CSYSTEM_H
#define RESHAPE_CSYSTEM_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

#ifdef __linux__
/* glibc's and musl's declaration (fcntl.h, _GNU_SOURCE), repeated: this header cannot define
 * _GNU_SOURCE for a fcntl.h that Swift's Glibc module has already built without it. */
extern int sync_file_range(int fd, int64_t offset, int64_t count, unsigned int flags);
/* sched.h's, with the mask as bytes: cpu_set_t, too, is declared only under _GNU_SOURCE. */
extern int sched_getaffinity(int pid, size_t size, void *mask);
/* sys/mman.h's, also declared only under _GNU_SOURCE. */
extern void *mremap(void *old_address, size_t old_size, size_t new_size, int flags, ...);
#endif

#if defined(__GLIBC__)
/* malloc.h's: the Glibc module leaves that header out. */
extern int malloc_trim(size_t pad);
#endif

/* Gives the memory malloc holds free back to the system where it can (glibc's malloc_trim):
 * memory a thread freed stays in its arena, where another thread's allocations do not reach it.
 * Does nothing elsewhere. */
static inline void csystem_trim_heap(void) {
#if defined(__GLIBC__)
    (void)malloc_trim(0);
#endif
}

/* Asks the system to start writing the file's bytes [offset, offset + count) to disk, without
 * waiting: a later fsync() then has less left to wait for. A hint; returns 0, or -1 with errno
 * set (and where the system has no such call, 0 having done nothing). */
static inline int csystem_start_writeback(int fd, int64_t offset, int64_t count) {
#ifdef __linux__
    return sync_file_range(fd, offset, count, 2 /* SYNC_FILE_RANGE_WRITE */);
#else
    (void)fd;
    (void)offset;
    (void)count;
    return 0;
#endif
}

/* A false that nothing writes: where a record filter's flag points until a chain gives it one
 * (AsideFlag). A Swift global would be initialized at its first use, and ThreadSanitizer reports
 * threads that meet it at once (test_threads did). */
static inline const bool *_Nonnull csystem_never_set(void) {
    static const bool never = false;
    return &never;
}

/* The number of CPUs this process may run on (its affinity mask, as nproc counts them), or 0 when
 * the system does not say (then count the CPUs online). */
static inline int csystem_allowed_cpu_count(void) {
#ifdef __linux__
    unsigned long mask[16] = {0}; /* 1,024 CPUs, as glibc's cpu_set_t */
    if (sched_getaffinity(0, sizeof mask, mask) != 0) return 0;
    int count = 0;
    for (size_t word = 0; word < sizeof mask / sizeof mask[0]; word++) count += __builtin_popcountl(mask[word]);
    return count;
#else
    return 0;
#endif
}

/* Opens a new file without a name in `directory` (O_TMPFILE), for writing (`access` O_WRONLY) or
 * reading and writing (O_RDWR), which the system deletes when it is closed and unmapped, or when
 * the process ends however it ends, unless it is given a name first (linkat through
 * /proc/self/fd). Returns the descriptor, or -1 with errno set, EOPNOTSUPP where the system or
 * the file system cannot. */
static inline int csystem_open_unnamed(const char *directory, int access, unsigned mode) {
#if defined(__linux__) && !defined(__alpha__) && !defined(__hppa__) && !defined(__sparc__)
    return open(directory, 020000000 /* __O_TMPFILE */ | O_DIRECTORY | access | O_CLOEXEC, mode);
#else
    (void)directory;
    (void)access;
    (void)mode;
    errno = EOPNOTSUPP;
    return -1;
#endif
}

/* Address space for an input read in pieces (InputRegion): `size` bytes that hold nothing and
 * cost no memory (PROT_NONE, and so never counted as committed, even with strict overcommit)
 * until parts of it are made usable. Returns NULL with errno set when the system refuses. */
static inline void *csystem_reserve(size_t size) {
    void *address = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return address == MAP_FAILED ? NULL : address;
}

/* Makes reserved pages readable and writable (they read as zeros until written). 0, or -1. */
static inline int csystem_commit(void *address, size_t size) {
    return mprotect(address, size, PROT_READ | PROT_WRITE);
}

/* Gives pages back to the system and reserves their addresses again, in one step: what they held
 * is gone, and so is their memory. 0, or -1. */
static inline int csystem_give_back(void *address, size_t size) {
    void *result = mmap(address, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    return result == MAP_FAILED ? -1 : 0;
}

/* Moves the pages at `from` (committed, `size` bytes) to `to` (reserved), contents and all, without
 * copying or faulting them in again, and reserves `from` again: memory read once is used again
 * at the next place the input goes. Returns 0, or -1 with errno set where the system cannot
 * (mremap's MREMAP_DONTUNMAP is Linux 5.7's); `from` and `to` are then as they were. Never leaves
 * a hole in the reserved range that another mapping could take. */
static inline int csystem_move_pages(void *from, void *to, size_t size) {
#ifdef __linux__
    /* MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP: `to` is replaced at once, and `from` stays
       mapped (empty), so that it is replaced at once too. */
    void *moved = mremap(from, size, size, 1 | 2 | 4, to);
    if (moved == MAP_FAILED) return -1;
    return csystem_give_back(from, size);
#else
    (void)from;
    (void)to;
    (void)size;
    errno = ENOSYS;
    return -1;
#endif
}

#endif

