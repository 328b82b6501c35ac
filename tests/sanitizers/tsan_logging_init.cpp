// Linked into every unit test binary of the ThreadSanitizer build (CMakeLists.txt, QUEEN_SANITIZE
// containing thread). It builds spdlog's registry on the main thread before main(), as queen-broker's
// main() does before it starts any thread.
//
// Why: the registry is a function-local static inside the uninstrumented libspdlog.so, and
// registry::instance() there tests the static's guard byte with a plain load, calling the
// __cxa_guard_acquire that TSan intercepts only on the first call. When a test starts a thread
// (a MeshNode link, a spool drain) and that thread and the test's own thread both log first, the
// one that did not build the registry reads it with a happens-before TSan cannot see, and every
// read of the default logger (its level, its name) is reported as a race with the constructor.
// Built before any thread exists, the registry is published to all threads by pthread_create.
#include <spdlog/spdlog.h>

namespace {
const bool registry_built = spdlog::default_logger_raw() != nullptr;
}  // namespace
