#pragma once
// The dashboard's files (web/), compiled into the broker by CMake
// (cmake/dashboard_assets.cmake): a broker serves them without reading any
// file at run time, and always the files of the source tree it was built from.
#include <cstddef>
#include <string_view>

namespace queen::http {

struct DashboardAsset {
  std::string_view name;  // file name, served flat under /dashboard/<build id>/
  std::string_view body;
};

// Every asset, index.html among them; `count` receives how many.
const DashboardAsset* dashboard_assets(std::size_t* count) noexcept;

// A hash of every asset: part of their URLs, so a new build gets new URLs.
std::string_view dashboard_build_id() noexcept;

}  // namespace queen::http
