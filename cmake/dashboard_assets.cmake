# The dashboard (web/, docs/dashboard.md) is compiled into the broker: every served file of web/ becomes a
# string in a generated source, so a broker needs no file at run time and serves exactly this tree's assets.
# Files are served flat under /dashboard/<build id>/<file name>; the build id is a hash of every asset, so a
# changed asset gets a new URL and the old one can be cached for good. Editing or adding a file re-runs this.
set(QUEEN_WEB_DIR ${CMAKE_SOURCE_DIR}/web)
# Everything the page loads must fit in this (checked here, so a stray large file fails the configure step).
set(QUEEN_WEB_MAX_BYTES 1048576)
file(GLOB QUEEN_WEB_FILES CONFIGURE_DEPENDS
  ${QUEEN_WEB_DIR}/index.html ${QUEEN_WEB_DIR}/src/*.js ${QUEEN_WEB_DIR}/src/*.css ${QUEEN_WEB_DIR}/src/*.svg
  ${QUEEN_WEB_DIR}/vendor/*.js ${QUEEN_WEB_DIR}/vendor/*.css)
list(SORT QUEEN_WEB_FILES)
# The glob notices added and removed files; this makes an edit of a file re-run the step too.
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${QUEEN_WEB_FILES})

set(QUEEN_WEB_ALL_TEXT "")
set(QUEEN_WEB_NAMES "")
set(QUEEN_WEB_TOTAL_BYTES 0)
foreach(path ${QUEEN_WEB_FILES})
  get_filename_component(name ${path} NAME)
  if(name IN_LIST QUEEN_WEB_NAMES)
    message(FATAL_ERROR "web/: two served files are named ${name} (assets are served flat)")
  endif()
  list(APPEND QUEEN_WEB_NAMES ${name})
  file(READ ${path} text)
  if(text MATCHES "\\)queen_web\"")
    message(FATAL_ERROR "${path} contains the raw-string delimiter of its generated source")
  endif()
  string(LENGTH "${text}" bytes)
  math(EXPR QUEEN_WEB_TOTAL_BYTES "${QUEEN_WEB_TOTAL_BYTES} + ${bytes}")
  string(APPEND QUEEN_WEB_ALL_TEXT "${name}\n${text}")
  set(QUEEN_WEB_TEXT_${name} "${text}")
endforeach()
if(NOT "index.html" IN_LIST QUEEN_WEB_NAMES)
  message(FATAL_ERROR "web/index.html is missing")
endif()
if(QUEEN_WEB_TOTAL_BYTES GREATER QUEEN_WEB_MAX_BYTES)
  message(FATAL_ERROR "web/: the dashboard assets take ${QUEEN_WEB_TOTAL_BYTES} bytes, over ${QUEEN_WEB_MAX_BYTES}")
endif()
string(SHA256 QUEEN_WEB_HASH "${QUEEN_WEB_ALL_TEXT}")
string(SUBSTRING ${QUEEN_WEB_HASH} 0 12 QUEEN_WEB_BUILD_ID)

# index.html names its assets relative to the page with %QUEEN_WEB_BUILD%, replaced by the build id here.
set(QUEEN_WEB_ENTRIES "")
foreach(name ${QUEEN_WEB_NAMES})
  set(text "${QUEEN_WEB_TEXT_${name}}")
  if(name STREQUAL "index.html")
    string(REPLACE "%QUEEN_WEB_BUILD%" "${QUEEN_WEB_BUILD_ID}" text "${text}")
  endif()
  string(APPEND QUEEN_WEB_ENTRIES "    {\"${name}\", literal(R\"queen_web(${text})queen_web\")},\n")
endforeach()

configure_file(${CMAKE_SOURCE_DIR}/src/http/api/dashboard_assets.cpp.in ${CMAKE_BINARY_DIR}/generated/dashboard_assets.cpp @ONLY)
target_sources(queen_http PRIVATE ${CMAKE_BINARY_DIR}/generated/dashboard_assets.cpp)
