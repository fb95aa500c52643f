// The one file call Swift's system modules do not import: a rename that never replaces what is at its target.
// Glibc declares `renameat2` only under `_GNU_SOURCE`, which the Glibc module is not built with; Musl not at all.

#ifndef C_STRATA_FILES_H
#define C_STRATA_FILES_H

/// Renames `from` (relative to the folder `fromFolder`) to `to` (relative to `toFolder`) only when nothing is at
/// `to`: Linux `renameat2(…, RENAME_NOREPLACE)` (the system call, so any C library), Darwin
/// `renameatx_np(…, RENAME_EXCL)`. Returns 0, or -1 with `errno` set: `EEXIST` when something is at `to`;
/// `EINVAL`, `ENOSYS` or `ENOTSUP` when the system or the file system cannot rename so.
int strata_renameat_noreplace(int fromFolder, const char *from, int toFolder, const char *to);

#endif
