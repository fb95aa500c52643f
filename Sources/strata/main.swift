import Foundation

// `strata <command> <folder> [options]`: see `strata help` and Docs/Tool.md.
exit(StrataTool.runWithProcessArguments())
