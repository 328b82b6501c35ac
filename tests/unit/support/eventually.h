#pragma once
// eventually(condition): the unit tests' one condition wait. Polls until the
// condition holds or `within` passes; `within` only bounds a failing test (a
// passing one returns as soon as the condition holds), so it is generous for a
// loaded machine. The pause between polls starts at a yield and grows to 2 ms.
#include <chrono>
#include <thread>

namespace queen::test_support {

template <typename Condition>
bool eventually(Condition condition, std::chrono::milliseconds within = std::chrono::seconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + within;
  std::chrono::microseconds pause{0};
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= deadline) return condition();
    if (pause.count() == 0) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(pause);  // the one poll pause of the unit tests
    }
    pause = std::min<std::chrono::microseconds>(pause + std::chrono::microseconds(100), std::chrono::milliseconds(2));
  }
  return true;
}

}  // namespace queen::test_support
