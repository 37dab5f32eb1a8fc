# SPDX-License-Identifier: Apache-2.0
# Installing gpuverify like a system tool (included by the top-level CMakeLists.txt once the
# examples are defined):
#  - the tools and gpuverify-worker find libgpuverify through a RUNPATH relative to their own
#    directory ($ORIGIN), so the installed tree runs without LD_LIBRARY_PATH and can be moved;
#    the build tree keeps CMake's build RPATH. Packagers who want none: -DCMAKE_SKIP_INSTALL_RPATH=ON.
#  - manual pages: gpuverify(3) from man/gpuverify.3, and each tool's from its own --help and
#    --version (help2man) plus man/<tool>.h2m, the sections --help does not carry.
#  - the integrations (examples/integrations, every file there) under <datadir>/gpuverify/.
# It sets GV_TOOLS, GV_MAN_PAGES, GV_BIN_RUNPATH and GV_WORKER_RUNPATH for tests/install.

# "$ORIGIN" followed by the way from `from_dir` to the library's directory.
function(gv_origin_runpath out from_dir)
  file(RELATIVE_PATH rel "${from_dir}" "${CMAKE_INSTALL_FULL_LIBDIR}")
  if(rel STREQUAL "")
    set(${out} "$ORIGIN" PARENT_SCOPE)
  else()
    set(${out} "$ORIGIN/${rel}" PARENT_SCOPE)
  endif()
endfunction()
gv_origin_runpath(GV_BIN_RUNPATH "${CMAKE_INSTALL_FULL_BINDIR}")
gv_origin_runpath(GV_WORKER_RUNPATH "${CMAKE_INSTALL_FULL_LIBEXECDIR}/gpuverify")
# The worker links the library's objects, not libgpuverify.so; its RUNPATH is there for the
# libraries it may come to need. Its build RUNPATH is the library's directory, where it sits in
# the build tree: without one, CMake would fill the room it reserves for the install RUNPATH
# with separators only (empty entries, which the loader reads as the current directory).
set_target_properties(gpuverify-worker PROPERTIES INSTALL_RPATH "${GV_WORKER_RUNPATH}"
                      BUILD_RPATH "$<TARGET_FILE_DIR:gpuverify>")

# The tools: every executable the examples directory defines.
set(GV_TOOLS "")
if(GPUVERIFY_BUILD_EXAMPLES)
  get_property(_gv_targets DIRECTORY ${PROJECT_SOURCE_DIR}/examples PROPERTY BUILDSYSTEM_TARGETS)
  foreach(_gv_target IN LISTS _gv_targets)
    get_target_property(_gv_type ${_gv_target} TYPE)
    if(_gv_type STREQUAL "EXECUTABLE")
      list(APPEND GV_TOOLS ${_gv_target})
      set_target_properties(${_gv_target} PROPERTIES INSTALL_RPATH "${GV_BIN_RUNPATH}")
    endif()
  endforeach()
endif()

# Manual pages.
set(GV_MAN_PAGES gpuverify.3)
install(FILES ${PROJECT_SOURCE_DIR}/man/gpuverify.3 DESTINATION ${CMAKE_INSTALL_MANDIR}/man3
        COMPONENT dev)
find_program(GV_HELP2MAN help2man)
if(GV_TOOLS AND NOT GV_HELP2MAN)
  message(STATUS "help2man not found (Debian: help2man): the tools' manual pages are not generated")
elseif(GV_TOOLS AND CMAKE_CROSSCOMPILING)
  message(STATUS "Cross-compiling: the tools' manual pages (help2man runs the tools) are not generated")
elseif(GV_TOOLS)
  set(_gv_man_dir ${CMAKE_BINARY_DIR}/man)
  set(_gv_man_outputs "")
  foreach(_gv_tool IN LISTS GV_TOOLS)
    set(_gv_include ${PROJECT_SOURCE_DIR}/man/${_gv_tool}.h2m)
    if(NOT EXISTS ${_gv_include})
      message(STATUS "man/${_gv_tool}.h2m not found: ${_gv_tool}(1) has help2man's NAME and no EXIT STATUS")
      set(_gv_include "")
    endif()
    add_custom_command(OUTPUT ${_gv_man_dir}/${_gv_tool}.1
      COMMAND ${CMAKE_COMMAND} -DHELP2MAN=${GV_HELP2MAN} -DTOOL=$<TARGET_FILE:${_gv_tool}>
              -DNAME=${_gv_tool} "-DINCLUDE=${_gv_include}"
              -DFILTER=${PROJECT_SOURCE_DIR}/man/help-for-help2man.sh
              "-DSOURCE=gpuverify ${PROJECT_VERSION}" -DWORKDIR=${_gv_man_dir}/run
              -DOUTPUT=${_gv_man_dir}/${_gv_tool}.1 -P ${PROJECT_SOURCE_DIR}/cmake/gv_help2man.cmake
      DEPENDS ${_gv_tool} ${PROJECT_SOURCE_DIR}/man/help-for-help2man.sh
              ${PROJECT_SOURCE_DIR}/cmake/gv_help2man.cmake ${_gv_include}
      COMMENT "Manual page ${_gv_tool}(1) from ${_gv_tool} --help (help2man)" VERBATIM)
    list(APPEND _gv_man_outputs ${_gv_man_dir}/${_gv_tool}.1)
    # OPTIONAL: a page help2man could not make is left out, not a failed install.
    install(FILES ${_gv_man_dir}/${_gv_tool}.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 OPTIONAL
            COMPONENT tools)
    list(APPEND GV_MAN_PAGES ${_gv_tool}.1)
  endforeach()
  add_custom_target(gv_man ALL DEPENDS ${_gv_man_outputs})
endif()

# The integrations, every file under examples/integrations (new ones included: the glob is
# checked again at each build), keeping their folders; a file starting with "#!" is a program.
set(_gv_integrations ${PROJECT_SOURCE_DIR}/examples/integrations)
file(GLOB_RECURSE _gv_files CONFIGURE_DEPENDS RELATIVE ${_gv_integrations} ${_gv_integrations}/*)
foreach(_gv_file IN LISTS _gv_files)
  if(_gv_file MATCHES "(^|/)(__pycache__|\\.[^/]*)(/|$)|\\.py[co]$|~$")
    continue()
  endif()
  get_filename_component(_gv_dir ${_gv_file} DIRECTORY)
  file(READ ${_gv_integrations}/${_gv_file} _gv_head LIMIT 2 HEX)
  if(_gv_head STREQUAL "2321") # "#!"
    install(PROGRAMS ${_gv_integrations}/${_gv_file}
            DESTINATION ${CMAKE_INSTALL_DATADIR}/gpuverify/${_gv_dir} COMPONENT integrations)
  else()
    install(FILES ${_gv_integrations}/${_gv_file}
            DESTINATION ${CMAKE_INSTALL_DATADIR}/gpuverify/${_gv_dir} COMPONENT integrations)
  endif()
endforeach()
