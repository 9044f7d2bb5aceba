/* System calls the engine uses that Swift's Glibc module leaves out: glibc declares them only
 * under _GNU_SOURCE, which that module is not built with. Static inline: nothing is linked, and
 * libreshape exports nothing new. */
#ifndef RESHAPE_CSYSTEM_H
#define RESHAPE_CSYSTEM_H

#include <stdint.h>

#ifdef __linux__
/* glibc's and musl's declaration (fcntl.h, _GNU_SOURCE), repeated: this header cannot define
 * _GNU_SOURCE for a fcntl.h that Swift's Glibc module has already built without it. */
extern int sync_file_range(int fd, int64_t offset, int64_t count, unsigned int flags);
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

#endif
