// Loaded with LD_PRELOAD by scripts/check-closes: every close(2) of a non-negative descriptor that fails with EBADF
// is logged, with the stack that made it, to the file CHECK_CLOSES_LOG names. Such a close is a bug even when it
// fails: the same call, a moment earlier or later, closes whatever descriptor another thread was given that number
// meanwhile (a store's file, a socket, a user's).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int (*real_close)(int);
static const char *log_path;

__attribute__((constructor)) static void check_closes_start(void) {
    real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
    log_path = getenv("CHECK_CLOSES_LOG");
    // The first backtrace loads the unwinder; done here, not inside a failing close.
    void *frame;
    backtrace(&frame, 1);
}

int close(int fd) {
    if (!real_close) real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
    int result = real_close(fd);
    if (result == -1 && errno == EBADF && fd >= 0 && log_path) {
        int saved = errno;
        int out = open(log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        if (out >= 0) {
            char line[160];
            int length = snprintf(line, sizeof line, "=== close(%d) failed with EBADF in process %d (%s)\n", fd,
                                  getpid(), program_invocation_short_name);
            if (length > 0) write(out, line, (size_t)length < sizeof line ? (size_t)length : sizeof line - 1);
            void *frames[64];
            backtrace_symbols_fd(frames, backtrace(frames, 64), out);
            real_close(out);
        }
        errno = saved;
    }
    return result;
}
