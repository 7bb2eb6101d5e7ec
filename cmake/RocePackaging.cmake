# SPDX-License-Identifier: GPL-2.0-or-later
# Debian packages with CPack (cpack -G DEB; scripts/package.sh configures a build for it):
#
#   libroce0              libroce.so.0 (component lib)
#   libroce-dev           headers, libroce.a, libroce.so, libroce.pc (component dev)
#   roce-tools            roce-analyze and the other tools, their man pages (component tools)
#   wireshark-roce-plugin roce.so in Wireshark's plugin folder for the X.Y it was built
#                         against (component plugin)
#
# Versions are the project version with Debian revision 1.  Run-time dependencies come
# from dpkg-shlibdeps (CPACK_DEBIAN_PACKAGE_SHLIBDEPS).  Three are derived here because no
# ELF file states them: roce-analyze opens libpcap with dlopen() (cli/common/pcapdl.h), so
# roce-tools depends on Debian's libpcap0.8 by name (and recommends libmicrohttpd12, opened
# the same way for --prometheus only); libroce-dev needs the libroce0 of the same version (its libroce.so
# link points there), and the plugin needs the Wireshark X.Y series it was built for
# (Wireshark loads a plugin only into the major.minor it was compiled for): from the version
# of the headers it was built with up to, not including, the next minor release (not the exact
# Debian revision, so that Wireshark's security updates within X.Y stay installable).
if(NOT CMAKE_HOST_SYSTEM_NAME STREQUAL "Linux")
  return()
endif()

set(ROCE_DEB_REVISION 1 CACHE STRING "Debian revision of the packages (version-revision)")
set(ROCE_DEB_MAINTAINER "roce-tools developers" CACHE STRING "Maintainer field of the packages")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME roce-tools)
set(CPACK_PACKAGE_VENDOR "roce-tools")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${ROCE_DEB_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX "${CMAKE_INSTALL_PREFIX}")
set(CPACK_PACKAGE_DIRECTORY "${PROJECT_BINARY_DIR}/packages")
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE ${ROCE_DEB_REVISION})
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_STRIP_FILES ON)
set(ROCE_DEB_FULL_VERSION "${PROJECT_VERSION}-${ROCE_DEB_REVISION}")

set(CPACK_COMPONENTS_ALL dev)
set(CPACK_DEBIAN_DEV_PACKAGE_NAME libroce-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_COMPONENT_DEV_DESCRIPTION "RoCE v1/v2 decoding and analysis library - development files
 libroce decodes and validates RoCE v1 and v2 frames, PFC and PAUSE frames, computes the
 ICRC and analyses PSN sequencing per queue pair, NAK/RNR, ECN/CNP and PFC pause timing.
 .
 This package has the headers, the static archive, the libroce.so link and libroce.pc
 (pkg-config --libs libroce links the shared library, --static --libs the archive's
 dependencies).")

if(TARGET roce_shared)
  list(APPEND CPACK_COMPONENTS_ALL lib)
  set(CPACK_DEBIAN_LIB_PACKAGE_NAME libroce${PROJECT_VERSION_MAJOR})
  set(CPACK_DEBIAN_LIB_PACKAGE_SECTION libs)
  # shlibs file and ldconfig on install/removal (only libroce0 has a library with a soname)
  set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
  set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
  set(CPACK_COMPONENT_LIB_DESCRIPTION "RoCE v1/v2 decoding and analysis library
 libroce decodes and validates RoCE v1 and v2 frames, PFC and PAUSE frames, computes the
 ICRC and analyses PSN sequencing per queue pair, NAK/RNR, ECN/CNP and PFC pause timing.
 .
 This package has the shared library.")
  set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libroce${PROJECT_VERSION_MAJOR} (= ${ROCE_DEB_FULL_VERSION})")
endif()

if(TARGET roce-analyze)
  list(APPEND CPACK_COMPONENTS_ALL tools)
  set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME roce-tools)
  set(CPACK_COMPONENT_TOOLS_DESCRIPTION "RoCE (RDMA over Converged Ethernet) capture analysis tools
 roce-analyze reads pcap and pcapng captures (gzip, zstd, lz4 too) and reports ICRC
 errors, PSN gaps, duplicates, retransmissions, NAK/RNR, ECN/CNP and PFC/PAUSE storms per
 queue pair, as a text report, JSON, CSV or one line per frame.  The tools link libroce
 statically.")
  # dlopen()ed by roce-analyze for BPF filters and live capture (dpkg-shlibdeps cannot see it;
  # its list is appended to this one)
  set(CPACK_DEBIAN_TOOLS_PACKAGE_DEPENDS "libpcap0.8 (>= 1.10)")
  # dlopen()ed by roce-analyze --prometheus only
  set(CPACK_DEBIAN_TOOLS_PACKAGE_RECOMMENDS "libmicrohttpd12 | libmicrohttpd12t64")
endif()

if(TARGET roce-wireshark)
  list(APPEND CPACK_COMPONENTS_ALL plugin)
  set(CPACK_DEBIAN_PLUGIN_PACKAGE_NAME wireshark-roce-plugin)
  # ROCE_WS_* from plugin/CMakeLists.txt
  if(ROCE_WS_LIB_PACKAGE)
    math(EXPR _roce_ws_next "${ROCE_WS_MINOR} + 1")
    set(CPACK_DEBIAN_PLUGIN_PACKAGE_DEPENDS
      "${ROCE_WS_LIB_PACKAGE} (>= ${ROCE_WS_VERSION}), ${ROCE_WS_LIB_PACKAGE} (<< ${ROCE_WS_MAJOR}.${_roce_ws_next}~)")
  endif()
  set(CPACK_DEBIAN_PLUGIN_PACKAGE_ENHANCES "wireshark, tshark")
  set(CPACK_COMPONENT_PLUGIN_DESCRIPTION "RoCE analysis plugin for Wireshark ${ROCE_WS_MAJOR_MINOR}
 Adds a RoCE Analysis tree (roce.* display filters) to Wireshark and tshark: ICRC
 status, CNP/XRC/FECN/BECN, PSN gaps, duplicates, out-of-order frames, retransmissions with
 their cause, NAK/RNR, ACK RTT, ECN CE, PFC pause time per priority and storms, with expert
 info.  It runs the same libroce code as roce-analyze.")
endif()

if(ROCE_PACKAGING)
  foreach(c ${CPACK_COMPONENTS_ALL})
    string(TOUPPER ${c} C)
    install(FILES ${PROJECT_SOURCE_DIR}/packaging/copyright
      DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/${CPACK_DEBIAN_${C}_PACKAGE_NAME}
      COMPONENT ${c})
  endforeach()
endif()

# cpack in a build that was not configured for the packages would package /usr/local paths
# and a plugin folder Wireshark never reads: refuse, and say how.
set(CPACK_PROJECT_CONFIG_FILE "${PROJECT_BINARY_DIR}/CPackProjectConfig.cmake")
if(ROCE_PACKAGING)
  file(WRITE "${CPACK_PROJECT_CONFIG_FILE}" "# packaging build: nothing to check\n")
else()
  file(WRITE "${CPACK_PROJECT_CONFIG_FILE}" "message(FATAL_ERROR \"this build is not configured \
for packages (prefix ${CMAKE_INSTALL_PREFIX}, ROCE_PACKAGING=OFF): run scripts/package.sh, or \
configure with -DCMAKE_INSTALL_PREFIX=/usr -DROCE_PACKAGING=ON\")\n")
endif()

include(CPack)
