# The Debian package: `make package` (or `cpack --config build/CPackConfig.cmake`) runs CPack's DEB
# generator over the same build and the same install rules as `cmake --install` (cmake/install.cmake),
# with the prefix /usr, into build/package/aioprof-top_<version>-<release>_<arch>.deb.
#
# Its dependencies are not written here: dpkg-shlibdeps reads them from the programs' dynamic
# libraries (libserialport0, libncursesw6, libtinfo6, libcjson1, libc6), so they follow whatever
# the build machine's release calls them. It needs dpkg-dev and file (Makefile's PACKAGE_PKGS).

set(AIOPROF_PACKAGE_MAINTAINER "aioprof-top authors <aioprof-top@localhost>" CACHE STRING
  "The Maintainer field of the Debian package")
set(AIOPROF_PACKAGE_RELEASE 1 CACHE STRING "The Debian revision of the package (the -N of its version)")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME aioprof-top)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${AIOPROF_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "per-coroutine profiler for MicroPython asyncio applications")
set(CPACK_PACKAGE_DESCRIPTION "\
aioprof-top shows, per coroutine of a MicroPython asyncio application on a
microcontroller, how many times it ran, how long in total and its longest
slice: live in a table like top's, from the board's USB serial port or a UART.
It records and replays sessions, writes text and JSON reports, and exports
timelines for Perfetto and speedscope. The board runs the aioprof hook, a small
C library or Python module.
.
This package holds aioprof-top, and aioprof-sim, a simulated device to try it
without a board (aioprof-top --demo).")
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR}/package)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# RelWithDebInfo builds carry their symbols; a package does not need them
set(CPACK_STRIP_FILES ON)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE ${AIOPROF_PACKAGE_RELEASE})
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

# Debian wants a changelog.Debian.gz in every package's doc folder; this one says where the
# package came from. Its date is the build's (SOURCE_DATE_EPOCH when set: reproducible builds).
string(TIMESTAMP changelog_date "%a, %d %b %Y %H:%M:%S +0000" UTC)
file(WRITE ${CMAKE_BINARY_DIR}/debian/changelog.Debian
"aioprof-top (${PROJECT_VERSION}-${AIOPROF_PACKAGE_RELEASE}) unstable; urgency=medium

  * Built with CPack from the aioprof-top sources (make package); the changes
    are in the project's history.

 -- ${AIOPROF_PACKAGE_MAINTAINER}  ${changelog_date}
")
if(AIOPROF_GZIP)
  add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/debian/changelog.Debian.gz
    COMMAND ${AIOPROF_GZIP} -9nc ${CMAKE_BINARY_DIR}/debian/changelog.Debian > ${CMAKE_BINARY_DIR}/debian/changelog.Debian.gz
    DEPENDS ${CMAKE_BINARY_DIR}/debian/changelog.Debian)
  add_custom_target(aioprof_debian_changelog ALL DEPENDS ${CMAKE_BINARY_DIR}/debian/changelog.Debian.gz)
  install(FILES ${CMAKE_BINARY_DIR}/debian/changelog.Debian.gz DESTINATION ${AIOPROF_DOC_DIR}
          COMPONENT debian EXCLUDE_FROM_ALL)
endif()

# One package of the components the Debian layout wants: everything but zsh-site, plus zsh-debian
# and debian (cmake/install.cmake).
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ALL_COMPONENTS_IN_ONE)
set(CPACK_COMPONENTS_ALL Unspecified zsh-debian debian)

include(CPack)
