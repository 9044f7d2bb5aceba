/* CGlibcCompat has no API: it only defines libc symbols for libreshape (see hypotf.c). */
#ifndef RESHAPE_CGLIBCCOMPAT_H
#define RESHAPE_CGLIBCCOMPAT_H
#endif
