/// The text of `strata help [command]`.
enum Help {
    static func text(for command: Options.Command?) -> String {
        let strata = Invocation.name
        return switch command {
        case .inspect?:
            """
            USAGE: \(strata) inspect <folder> [--limit N] [--max-age SECONDS] [--json] [--progress]

            Lists the entries (key, size, created, expiry, last access, ETag), most recently used first,
            then a summary: count, total size, expired, damaged and unreadable entries. Changes and creates
            nothing, and works on read-only media. It may run beside another inspect or verify, but not while
            an app has the store open: an open store is held alone (exit code 1, error code inUse).

              --limit N          List at most N entries (the summary still counts all).
              --max-age SECONDS  JSON-file store only (a usage error on other stores): the default maximum
                                 age of entries without their own.
            """
        case .verify?:
            """
            USAGE: \(strata) verify <folder> [--repair] [--json] [--progress]

            Reads every entry in full and checks its metadata, its key and its data (content hash for file
            stores, JSON decoding for JSON-file stores); a link inside the store is damage. An entry it cannot
            check (a file this user cannot read, or one a later Strata wrote) is no damage: it is listed apart
            and left as it is, with --repair too. Exit code 1 when any entry is corrupt or not checked.
            Without --repair it changes and creates nothing, as inspect.

              --repair  Take the store alone (as an app would) and remove corrupt entry files and links
                        (file store: a link itself, never its target; a file it cannot prove it wrote
                        is moved aside as *.damaged-<hex>) or move them aside as *.corrupt-<date>
                        (JSON-file store), then check again; a file it cannot remove is reported
                        after that check (exit code 1).
            """
        case .prune?:
            """
            USAGE: \(strata) prune <folder> [--max-size SIZE] [--max-count N] [--max-age SECONDS] [--dry-run] [--json] [--progress]

            Removes expired entries, then the least recently used while the store is over a limit.
            Refuses an offline outbox, whose entries are writes waiting for main. Damaged entries are not
            planned (verify --repair handles them), but in a JSON-file store a prune that removes anything
            opens the store as an app would, which rebuilds a damaged index and moves the damaged entry
            files it meets aside as *.corrupt-<date>.

              --max-size SIZE    Keep at most SIZE bytes of entries: 1048576, 512K, 10MB, 1.5G (K = 1024).
              --max-count N      Keep at most N entries.
              --max-age SECONDS  JSON-file store only (a usage error on other stores): the default maximum
                                 age of entries without their own.
              --dry-run, -n      List what would be removed; remove nothing.
            """
        case .clear?:
            """
            USAGE: \(strata) clear <folder> --yes [--json]

            Removes every entry and the store's own side files (journal, leftover temporaries). File store:
            what the store set aside as damaged (*.damaged-*) goes too when it is a link or a file whose
            sealed trailer proves the store wrote it; a set-aside folder, or a file without that proof, stays.
            JSON-file store: entry files moved aside as *.corrupt-<date> stay, for you to look at. The
            marker, the lock file and files the store did not write stay.

              --yes, -y  Confirm.
            """
        case .help?, nil:
            """
            USAGE: \(strata) <command> <folder> [options]

            Inspects and maintains a Strata store folder: a FileDataSource folder (a BlobCache's persistent
            layer) or a JSONFileDataSource folder. It acts only on a folder carrying a store's marker
            (.strata-store, which the store writes) and refuses any other folder, changing nothing in it; it
            never follows a link. inspect and verify change nothing and may run beside each other; prune,
            clear and verify --repair hold the store alone. An app that has the store open holds it alone:
            every command, inspect and verify too, then exits with 1 (error code inUse).

            COMMANDS:
              inspect   List entries and a summary.
              verify    Check every entry; exit code 1 if any is corrupt.
              prune     Remove expired entries and entries over --max-size / --max-count.
              clear     Remove every entry (needs --yes).
              help      Show this help, or a command's: \(strata) help <command>.

            OPTIONS (every command):
              --json       Print JSON for scripts instead of tables.
              -h, --help   Show help.

            OPTIONS (inspect, verify, prune):
              --progress   Report progress on standard error every 10,000 entries (default: when it is a terminal).

            ENVIRONMENT:
              \(Options.metadataLimitVariable)  The most bytes of keys and metadata read into memory
                           (a SIZE; default 256M, the stores' maximumMetadataSize): past it a command exits
                           with 1 (error code tooLarge). Give the app's limit when it raised its own.

            Options may come before or after the folder; a folder whose name starts with '-' goes after '--',
            which ends the options: \(strata) inspect -- -old-cache

            EXIT CODES: 0 success, 1 corruption found (or entries verify could not check) or failure,
            2 usage error (--max-age on a store other than a JSON-file store too).
            """
        }
    }
}
