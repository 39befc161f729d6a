// The build identity, alone in its own file: the generated header changes with every edit of a dirty tree, and
// only this file recompiles then.
#include "loom/build_id.hpp"

namespace loom::cli {
const char* build_id() { return LOOM_BUILD_ID; }
}  // namespace loom::cli
