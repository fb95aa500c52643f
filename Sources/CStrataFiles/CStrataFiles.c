#include "CStrataFiles.h"

#include <errno.h>
#include <stdio.h>

#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

int strata_renameat_noreplace(int fromFolder, const char *from, int toFolder, const char *to)
{
#if defined(__APPLE__)
    return renameatx_np(fromFolder, from, toFolder, to, RENAME_EXCL);
#elif defined(__linux__) && defined(SYS_renameat2)
    // RENAME_NOREPLACE is 1 in <linux/fs.h>; glibc's <stdio.h> names it only under _GNU_SOURCE.
    return (int)syscall(SYS_renameat2, fromFolder, from, toFolder, to, 1u);
#else
    (void)fromFolder;
    (void)from;
    (void)toFolder;
    (void)to;
    errno = ENOSYS;
    return -1;
#endif
}
