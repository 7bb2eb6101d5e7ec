# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers for the command-line tools and their man pages.
#
#   roce_add_tool(NAME source.c... MAN docs/man/NAME.1 [LIBS lib...] [INCLUDES dir...])
#
# builds the tool from its sources, links libroce (the static archive: with ROCE_LTO the
# library's per-frame calls inline into the tool's loop), the capture reader roce_capio,
# GLib and libm, installs it into bin/ and its man page into share/man/man1 (component
# "tools", i.e. the roce-tools Debian package) and records both for the tests (every tool's
# --version and man page are checked: tests/cli/version_agree.sh, tests/cli/man_pages.sh).
# A tool without a man page is a configure error.
#
#   roce_add_man(PAGE COMPONENT comp)
#
# installs one man page: the "roce-tools X.Y.Z" footer of its .TH line is set to the project
# version; with ROCE_PACKAGING it is installed gzip'd (-9n), as Debian policy asks.

include_guard(GLOBAL)

function(roce_add_man page)
  cmake_parse_arguments(M "" "COMPONENT" "" ${ARGN})
  if(NOT IS_ABSOLUTE "${page}")
    set(page "${PROJECT_SOURCE_DIR}/${page}")
  endif()
  if(NOT EXISTS "${page}")
    message(FATAL_ERROR "roce_add_man: ${page} does not exist")
  endif()
  get_filename_component(file "${page}" NAME)
  if(NOT file MATCHES "\\.([1-9])$")
    message(FATAL_ERROR "roce_add_man: ${page}: the name must end in the section (.1 ... .9)")
  endif()
  set(section ${CMAKE_MATCH_1})
  # configure time: the man page with the project version in its footer
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${page}")
  file(READ "${page}" body)
  string(REGEX REPLACE "(\n\\.TH [^\n]*\")roce-tools [^\"]*\"" "\\1roce-tools ${PROJECT_VERSION}\""
    body "${body}")
  set(out "${PROJECT_BINARY_DIR}/man/man${section}/${file}")
  set(old "")
  if(EXISTS "${out}")
    file(READ "${out}" old)
  endif()
  if(NOT old STREQUAL body)
    file(WRITE "${out}" "${body}")
  endif()
  if(ROCE_PACKAGING)
    add_custom_command(OUTPUT "${out}.gz"
      COMMAND gzip -9nc "${out}" > "${out}.gz"
      DEPENDS "${out}" VERBATIM)
    string(MAKE_C_IDENTIFIER "man_${file}" tgt)
    add_custom_target(${tgt} ALL DEPENDS "${out}.gz")
    install(FILES "${out}.gz" DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section}
      COMPONENT ${M_COMPONENT})
  else()
    install(FILES "${out}" DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section}
      COMPONENT ${M_COMPONENT})
  endif()
  set_property(GLOBAL APPEND PROPERTY ROCE_MAN_PAGES "${out}")
endfunction()

function(roce_add_tool name)
  cmake_parse_arguments(T "" "MAN" "LIBS;INCLUDES" ${ARGN})
  if(NOT T_MAN)
    message(FATAL_ERROR "roce_add_tool(${name}): every tool needs a man page: MAN docs/man/${name}.1")
  endif()
  if(NOT T_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "roce_add_tool(${name}): no sources")
  endif()
  add_executable(${name} ${T_UNPARSED_ARGUMENTS})
  if(T_INCLUDES)
    target_include_directories(${name} PRIVATE ${T_INCLUDES})
  endif()
  target_link_libraries(${name} PRIVATE roce roce_capio PkgConfig::GLIB m ${T_LIBS})
  install(TARGETS ${name} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tools)
  roce_add_man("${T_MAN}" COMPONENT tools)
  set_property(GLOBAL APPEND PROPERTY ROCE_TOOLS ${name})
endfunction()

# After every add_subdirectory(): the list the tests read, one "tool<TAB>man page" a line
# (the tool's path in the build tree; the man page as configured above).
function(roce_write_tool_list)
  get_property(tools GLOBAL PROPERTY ROCE_TOOLS)
  get_property(pages GLOBAL PROPERTY ROCE_MAN_PAGES)
  set(lines "")
  foreach(t ${tools})
    string(APPEND lines "${t}\t$<TARGET_FILE:${t}>\n")
  endforeach()
  foreach(p ${pages})
    string(APPEND lines "man\t${p}\n")
  endforeach()
  file(GENERATE OUTPUT "${PROJECT_BINARY_DIR}/roce-tools.list" CONTENT "${lines}")
endfunction()
