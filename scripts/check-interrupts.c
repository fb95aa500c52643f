// Loaded with LD_PRELOAD by scripts/check-interrupts: in the test process (an executable whose name ends in .xctest),
// the calls the library makes that a signal may interrupt are, in turn on each thread, made as asked, interrupted
// before they start (they fail with EINTR, having done nothing), and, for a read or a write, interrupted midway (they
// move half the bytes asked, as a signal arriving during a transfer leaves it). The library is told from the rest by
// the test executable's symbol table: the functions of the package's library modules linked into it; the tests' own
// code, Foundation, the runtime and the system are left alone. Code that makes an interrupted call again, and goes on
// with the rest of a short transfer, passes; code that takes either for a failure, or for the whole, fails. The number
// of calls interrupted and cut short is written to the file CHECK_INTERRUPTS_LOG names at exit, so that a run that
// touched nothing can be told from one that passed.
//
// Calls: read, write, pread, pwrite, writev, fsync, ftruncate, a blocking flock, and, through the Swift overlay's
// wrappers in libswiftGlibc (Swift code calls the variadic open, openat and fcntl there), open, openat and a waiting
// fcntl lock. Every other call goes straight to the C library.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

// The address ranges of the test executable's mappings and of libswiftGlibc's, read once at load.
typedef struct {
    uintptr_t start, end;
} range;
static range executable[16], overlay[16];
static int executable_count, overlay_count;
// The library's functions in the test executable, as loaded, sorted by address.
static range *library;
static size_t library_count;
static int active;
static atomic_long interrupted_count, shortened_count;
static const char *log_path;
static __thread unsigned long turn;

static int in(const range *ranges, int count, const void *address) {
    uintptr_t value = (uintptr_t)address;
    for (int i = 0; i < count; i++)
        if (value >= ranges[i].start && value < ranges[i].end) return 1;
    return 0;
}

// Whether a mangled Swift name is of a function of the package's library modules: `$s`, the module's name (its length,
// then its characters), starting with `Strata`; not a test module (`…Tests`), nor the tests' support module or the
// fuzz targets.
static int is_library_symbol(const char *name) {
    if (name[0] != '$' || name[1] != 's') return 0;
    char *rest;
    long length = strtol(name + 2, &rest, 10);
    if (length < 6 || rest == name + 2 || strncmp(rest, "Strata", 6) != 0) return 0;
    if (length == 17 && strncmp(rest, "StrataTestSupport", 17) == 0) return 0;
    if (length == 17 && strncmp(rest, "StrataFuzzTargets", 17) == 0) return 0;
    return !(length >= 5 && strncmp(rest + length - 5, "Tests", 5) == 0);
}

static int by_start(const void *a, const void *b) {
    uintptr_t x = ((const range *)a)->start, y = ((const range *)b)->start;
    return x < y ? -1 : x > y;
}

// Reads the library's functions from the executable's symbol table, placed at `base`.
static void read_library(const char *path, uintptr_t base) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat info;
    void *file = fstat(fd, &info) == 0 ? mmap(NULL, (size_t)info.st_size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
    close(fd);
    if (file == MAP_FAILED) return;
    const Elf64_Ehdr *header = file;
    const Elf64_Shdr *sections = (const Elf64_Shdr *)((const char *)file + header->e_shoff);
    for (int i = 0; i < header->e_shnum; i++) {
        if (sections[i].sh_type != SHT_SYMTAB) continue;
        const Elf64_Sym *symbols = (const Elf64_Sym *)((const char *)file + sections[i].sh_offset);
        const char *names = (const char *)file + sections[sections[i].sh_link].sh_offset;
        size_t count = sections[i].sh_size / sizeof(Elf64_Sym);
        library = malloc(count * sizeof(range));
        if (!library) break;
        for (size_t j = 0; j < count; j++) {
            if (ELF64_ST_TYPE(symbols[j].st_info) != STT_FUNC || symbols[j].st_size == 0) continue;
            if (!is_library_symbol(names + symbols[j].st_name)) continue;
            library[library_count++] =
                (range){base + symbols[j].st_value, base + symbols[j].st_value + symbols[j].st_size};
        }
        qsort(library, library_count, sizeof(range), by_start);
        break;
    }
    munmap(file, (size_t)info.st_size);
}

// Whether `address` lies in one of the library's functions.
static int in_library(const void *address) {
    uintptr_t value = (uintptr_t)address;
    size_t low = 0, high = library_count;
    while (low < high) {
        size_t middle = (low + high) / 2;
        if (library[middle].end <= value) {
            low = middle + 1;
        } else if (library[middle].start > value) {
            high = middle;
        } else {
            return 1;
        }
    }
    return 0;
}

static void write_count(void) {
    if (!active || !log_path) return;
    FILE *out = fopen(log_path, "a");
    if (!out) return;
    fprintf(out, "%d %ld %ld\n", getpid(), atomic_load(&interrupted_count), atomic_load(&shortened_count));
    fclose(out);
}

__attribute__((constructor)) static void check_interrupts_start(void) {
    char self[4096];
    ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    if (length <= 0) return;
    self[length] = 0;
    size_t name_length = strlen(self);
    if (name_length < 7 || strcmp(self + name_length - 7, ".xctest") != 0) return;
    FILE *maps = fopen("/proc/self/maps", "r");
    if (!maps) return;
    char line[8192];
    uintptr_t base = 0;
    while (fgets(line, sizeof line, maps)) {
        unsigned long start, end, offset;
        char path[4096] = "";
        if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %4095s", &start, &end, &offset, path) < 3) continue;
        if (strcmp(path, self) == 0 && executable_count < 16) {
            if (offset == 0 && (base == 0 || start < base)) base = start;
            executable[executable_count++] = (range){start, end};
        } else if (strstr(path, "/libswiftGlibc.so") && overlay_count < 16) {
            overlay[overlay_count++] = (range){start, end};
        }
    }
    fclose(maps);
    read_library(self, base);
    log_path = getenv("CHECK_INTERRUPTS_LOG");
    // The first backtrace loads the unwinder; done here, not inside an intercepted call.
    void *frame;
    backtrace(&frame, 1);
    active = library_count > 0;
    atexit(write_count);
}

// What becomes of a call of the library: made as asked, interrupted before it starts (EINTR), or, for a transfer,
// interrupted after part of it (a read or write of fewer bytes than asked, as a signal arriving midway leaves it).
enum verdict { made, interrupted, shortened };

// What becomes of a call whose caller is `caller`: in turn, on each thread, made, interrupted, shortened (a call that
// transfers nothing is made then).
// Not inlined, so that the stack it sees is: itself, the intercepting function, the overlay's wrapper, its caller.
__attribute__((noinline)) static enum verdict judge(const void *caller, int transfers) {
    if (!active) return made;
    int ours = in_library(caller);
    if (!ours && in(overlay, overlay_count, caller)) {
        // The overlay's wrapper: the call is the library's when the wrapper's caller, the first frame in the test
        // executable, is.
        void *frames[5];
        int depth = backtrace(frames, 5);
        for (int i = 2; i < depth; i++) {
            if (!in(executable, executable_count, frames[i])) continue;
            ours = in_library(frames[i]);
            break;
        }
    }
    if (!ours) return made;
    switch (turn++ % 3) {
    case 1:
        atomic_fetch_add(&interrupted_count, 1);
        errno = EINTR;
        return interrupted;
    case 2:
        if (!transfers) return made;
        atomic_fetch_add(&shortened_count, 1);
        return shortened;
    default:
        return made;
    }
}

// Half of `count`, at least one byte: what a transfer cut short by a signal moved.
static size_t shorter(size_t count) { return count > 1 ? count / 2 : count; }

#define REAL(name) \
    static __typeof__(&name) real_##name; \
    if (!real_##name) real_##name = (__typeof__(&name))dlsym(RTLD_NEXT, #name)

// The verdict on the calling function's own caller, for a call that transfers `count` bytes (0 for none).
#define JUDGE(count) judge(__builtin_return_address(0), (count) > 1)

ssize_t read(int fd, void *buffer, size_t count) {
    REAL(read);
    switch (JUDGE(count)) {
    case interrupted: return -1;
    case shortened: return real_read(fd, buffer, shorter(count));
    default: return real_read(fd, buffer, count);
    }
}

ssize_t write(int fd, const void *buffer, size_t count) {
    REAL(write);
    switch (JUDGE(count)) {
    case interrupted: return -1;
    case shortened: return real_write(fd, buffer, shorter(count));
    default: return real_write(fd, buffer, count);
    }
}

ssize_t pread(int fd, void *buffer, size_t count, off_t offset) {
    REAL(pread);
    switch (JUDGE(count)) {
    case interrupted: return -1;
    case shortened: return real_pread(fd, buffer, shorter(count), offset);
    default: return real_pread(fd, buffer, count, offset);
    }
}

ssize_t pwrite(int fd, const void *buffer, size_t count, off_t offset) {
    REAL(pwrite);
    switch (JUDGE(count)) {
    case interrupted: return -1;
    case shortened: return real_pwrite(fd, buffer, shorter(count), offset);
    default: return real_pwrite(fd, buffer, count, offset);
    }
}

ssize_t writev(int fd, const struct iovec *vectors, int count) {
    REAL(writev);
    size_t total = 0;
    for (int i = 0; i < count; i++) total += vectors[i].iov_len;
    switch (JUDGE(total)) {
    case interrupted: return -1;
    case shortened: {
        // The first non-empty vector's bytes, or half of them when it holds all there is: fewer than asked.
        int i = 0;
        while (vectors[i].iov_len == 0) i++;
        struct iovec first = vectors[i];
        if (first.iov_len == total) first.iov_len = shorter(total);
        return real_writev(fd, &first, 1);
    }
    default: return real_writev(fd, vectors, count);
    }
}

int fsync(int fd) {
    REAL(fsync);
    if (JUDGE(0) == interrupted) return -1;
    return real_fsync(fd);
}

int ftruncate(int fd, off_t length) {
    REAL(ftruncate);
    if (JUDGE(0) == interrupted) return -1;
    return real_ftruncate(fd, length);
}

int flock(int fd, int operation) {
    REAL(flock);
    // Only a lock that waits can be interrupted.
    if (!(operation & LOCK_NB) && !(operation & LOCK_UN) && JUDGE(0) == interrupted) return -1;
    return real_flock(fd, operation);
}

// The mode an open's flags say follows them: only a file it may create has one.
static mode_t mode_of(int flags, va_list arguments) {
    return (flags & (O_CREAT | __O_TMPFILE)) ? va_arg(arguments, mode_t) : 0;
}

int open(const char *path, int flags, ...) {
    REAL(open);
    va_list arguments;
    va_start(arguments, flags);
    mode_t mode = mode_of(flags, arguments);
    va_end(arguments);
    if (JUDGE(0) == interrupted) return -1;
    return real_open(path, flags, mode);
}

int openat(int folder, const char *path, int flags, ...) {
    REAL(openat);
    va_list arguments;
    va_start(arguments, flags);
    mode_t mode = mode_of(flags, arguments);
    va_end(arguments);
    if (JUDGE(0) == interrupted) return -1;
    return real_openat(folder, path, flags, mode);
}

int fcntl(int fd, int command, ...) {
    REAL(fcntl);
    va_list arguments;
    va_start(arguments, command);
    void *argument = va_arg(arguments, void *);
    va_end(arguments);
    // Only a lock that waits can be interrupted; every other command passes its argument through untouched.
    if ((command == F_SETLKW || command == F_OFD_SETLKW) && JUDGE(0) == interrupted) return -1;
    return real_fcntl(fd, command, argument);
}
