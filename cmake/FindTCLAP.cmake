# FindTCLAP: the header-only Templatized C++ Command Line Parser (Debian: libtclap-dev).
#
# Defines TCLAP_FOUND, TCLAP_INCLUDE_DIR, TCLAP_VERSION (when pkg-config knows it) and the
# imported target TCLAP::TCLAP.

find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(PC_TCLAP QUIET tclap)
endif()

find_path(TCLAP_INCLUDE_DIR
  NAMES tclap/CmdLine.h
  HINTS ${PC_TCLAP_INCLUDEDIR} ${PC_TCLAP_INCLUDE_DIRS})
set(TCLAP_VERSION ${PC_TCLAP_VERSION})

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(TCLAP
  REQUIRED_VARS TCLAP_INCLUDE_DIR
  VERSION_VAR TCLAP_VERSION)

if(TCLAP_FOUND AND NOT TARGET TCLAP::TCLAP)
  add_library(TCLAP::TCLAP INTERFACE IMPORTED)
  set_target_properties(TCLAP::TCLAP PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${TCLAP_INCLUDE_DIR}")
endif()
mark_as_advanced(TCLAP_INCLUDE_DIR)
