# SPDX-License-Identifier: Apache-2.0
# Debian packages from the install components (`cpack -G DEB` in a build configured with
# -DCMAKE_INSTALL_PREFIX=/usr; scripts/build-debs.sh does both):
#   libgpuverify1           the library and gpuverify-worker, which it starts for every run
#   libgpuverify-dev        headers, libgpuverify.so, the CMake package, gpuverify.pc, gpuverify(3)
#   gpuverify               gv-check and the other tools, gv-fleet, their manual pages
#   gpuverify-integrations  share/gpuverify: Slurm, NHC, node-problem-detector, Prometheus,
#                           Kubernetes and systemd files (nothing enabled or started on install)
# The binaries' library dependencies come from dpkg-shlibdeps; the packages' own from the
# components' (same version); what no binary says (the -dev package's pkg-config Requires,
# gv-fleet's python3) is named below.
set(CPACK_PACKAGE_NAME gpuverify)
set(CPACK_PACKAGE_VENDOR "gpuverify")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "GPU node health checks: is this node fit for work, and if not, what is wrong")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(GPUVERIFY_DEB_MAINTAINER "gpuverify developers <gpuverify@localhost>" CACHE STRING
    "The Debian packages' Maintainer field")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${GPUVERIFY_DEB_MAINTAINER}")
set(CPACK_GENERATOR DEB)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL library dev tools integrations)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The packages install where the build was configured to: the worker's path relative to the
# library and the .pc file's prefix are computed from it.
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
# dpkg-shlibdeps finds the tools' libgpuverify.so.1 in the library component's staging folder.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS
    ${CMAKE_BINARY_DIR}/_CPack_Packages/Linux/DEB/${CPACK_PACKAGE_NAME}-${PROJECT_VERSION}-Linux/library${CMAKE_INSTALL_FULL_LIBDIR})
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)

set(CPACK_DEBIAN_LIBRARY_PACKAGE_NAME libgpuverify1)
set(CPACK_DEBIAN_LIBRARY_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_LIBRARY_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_COMPONENT_LIBRARY_DESCRIPTION
    "GPU node health checks (library)\nlibgpuverify runs driver, CUDA, memory, GEMM, NCCL, RDMA and topology checks in a worker with hard deadlines; NVIDIA libraries are loaded at run time.")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libgpuverify-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_COMPONENT_DEV_DEPENDS library)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
    "libhwloc-dev, libjansson-dev, zlib1g-dev, libsqlite3-dev, pkg-config | pkgconf")
set(CPACK_COMPONENT_DEV_DESCRIPTION
    "GPU node health checks (development files)\nHeaders, the CMake package gpuverify::gpuverify and gpuverify.pc for programs that link libgpuverify.")

set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME gpuverify)
set(CPACK_COMPONENT_TOOLS_DEPENDS library)
set(CPACK_DEBIAN_TOOLS_PACKAGE_DEPENDS "python3")
set(CPACK_COMPONENT_TOOLS_DESCRIPTION
    "GPU node health checks (tools)\ngv-check judges a node; gv-gemm, gv-nccl, gv-rdma, gv-gpudirect, gv-topo and gv-history measure and report; gv-fleet finds the bad node or link among many.")

set(CPACK_DEBIAN_INTEGRATIONS_PACKAGE_NAME gpuverify-integrations)
set(CPACK_DEBIAN_INTEGRATIONS_PACKAGE_ARCHITECTURE all)
set(CPACK_COMPONENT_INTEGRATIONS_DEPENDS tools)
set(CPACK_COMPONENT_INTEGRATIONS_DESCRIPTION
    "GPU node health checks (integrations)\nSlurm health check and Prolog, NHC, node-problem-detector, Prometheus rules, a Kubernetes DaemonSet and systemd units under /usr/share/gpuverify; none is enabled on install.")

# Debian's policy: each package's licence in /usr/share/doc/<package>/copyright.
foreach(_gv_component library dev tools integrations)
  string(TOUPPER ${_gv_component} _gv_upper)
  install(FILES ${PROJECT_SOURCE_DIR}/LICENSE RENAME copyright COMPONENT ${_gv_component}
          DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${CPACK_DEBIAN_${_gv_upper}_PACKAGE_NAME})
endforeach()

include(CPack)
