#include "CDAOKitSupport.h"
#include <errno.h>
#include <fcntl.h>

#if defined(__linux__)
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

int daokit_openat_beneath(int directory, const char *path, int flags, unsigned int mode) {
#ifdef SYS_openat2
    struct open_how how = {0};
    how.flags = (unsigned long long)flags;
    // The kernel rejects a mode without O_CREAT or O_TMPFILE.
    how.mode = (flags & O_CREAT) ? mode : 0;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    return (int)syscall(SYS_openat2, directory, path, &how, sizeof how);
#else
    (void)directory; (void)path; (void)flags; (void)mode;
    errno = ENOSYS;
    return -1;
#endif
}
#else
int daokit_openat_beneath(int directory, const char *path, int flags, unsigned int mode) {
    (void)directory; (void)path; (void)flags; (void)mode;
    errno = ENOSYS;
    return -1;
}
#endif
