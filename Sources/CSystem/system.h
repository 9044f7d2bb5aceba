/* System calls the engine uses that Swift's Glibc module leaves out: glibc declares them only
 * under _GNU_SOURCE, which that module is not built with. Static inline: nothing is linked, and
 * libreshape exports nothing new. */
#ifndef RESHAPE_CSYSTEM_H
#define RESHAPE_CSYSTEM_H

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __linux__
/* glibc's and musl's declaration (fcntl.h, _GNU_SOURCE), repeated: this header cannot define
 * _GNU_SOURCE for a fcntl.h that Swift's Glibc module has already built without it. */
extern int sync_file_range(int fd, int64_t offset, int64_t count, unsigned int flags);
/* sched.h's, with the mask as bytes: cpu_set_t, too, is declared only under _GNU_SOURCE. */
extern int sched_getaffinity(int pid, size_t size, void *mask);
#endif

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

#endif
