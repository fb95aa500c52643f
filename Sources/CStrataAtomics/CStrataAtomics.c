// Every operation is `static inline` in the header; SwiftPM needs one source file to build the target.
#include "CStrataAtomics.h"
